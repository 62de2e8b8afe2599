"""The math table (`simt.builtins.MATH`) and every consumer derived from it.

Each row is checked in each place that reads it: the front end's names, constant folding,
the `sim` namespace, the CPU backend's spelling and C library symbols, WGSL's spelling or
refusal, CUDA's helpers, the cost model. The corpus (`tests/corpus/k_math_rows.py`) runs
each row on every backend and compiles it with NVRTC.
"""

from __future__ import annotations

import ctypes
import dataclasses
import math
import re

import numpy as np
import pytest

import simt
from corpus import k_math_rows
from simt.backends import cuda_helpers, llvm_helpers, llvm_math, wgsl, wgsl_helpers
from simt.builtins import LIBM_NAMES, MATH, SIM_NAMES, WGSL_F32_ONLY, sim_name
from simt.frontend import calls
from simt.passes.fold import fold_math
from simt.runtime import sim
from simt.types import BOOL, FLOAT32, FLOAT64, INT32

ROWS = list(MATH)
PUBLIC = [n for n, r in MATH.items() if r.public]


def _sample(name: str) -> list[float | int]:
    """A point inside the row's corpus domain (its tuple row's, for a part)."""
    owner = next((r.name for r in MATH.values() if name in r.parts), name)
    dom = k_math_rows.DOMAINS[owner]
    return [
        (lo + hi) / 2 + 0.1 if kind == "float" else lo + 3 * hi
        for kind, (lo, hi) in zip(MATH[name].args, dom)
    ] + [d for _, d in MATH[name].keywords]


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_row_has_a_corpus_case(name: str) -> None:
    assert name in k_math_rows.DOMAINS
    assert any(c.name == f"math_row_{name}" for c in k_math_rows.CASES)


@pytest.mark.parametrize("name", PUBLIC)
def test_the_front_end_accepts_the_row(name: str) -> None:
    row = MATH[name]
    if hasattr(math, name):
        assert getattr(math, name) in calls._HANDLERS
    if row.numpy is not None:
        assert row.numpy in calls._HANDLERS
    assert hasattr(math, name) or row.numpy is not None, f"{name}: nothing calls it"


@pytest.mark.parametrize("name", [n for n in ROWS if not MATH[n].parts])
def test_fold_agrees_with_the_reference(name: str) -> None:
    row = MATH[name]
    args = _sample(name)
    t = {"bool": BOOL, "int": INT32, "float": FLOAT64}[row.result]
    folded = fold_math(name, t, args)
    assert folded is not None, f"{name}{tuple(args)} did not fold"
    kinds = row.operand_kinds
    direct = row.ref(*(np.int64(a) if k != "float" else np.float64(a) for a, k in zip(args, kinds)))
    assert folded == pytest.approx(float(direct), rel=1e-12)
    # and the reference agrees with CPython where CPython has the function
    host = getattr(math, name, None)
    if host is not None and not row.keywords:
        assert float(direct) == pytest.approx(float(host(*args)), rel=1e-12)


@pytest.mark.parametrize("name", [n for n in ROWS if not MATH[n].parts])
def test_sim_namespace_has_the_reference(name: str) -> None:
    assert SIM_NAMES[sim_name(name)] is MATH[name].ref
    assert sim._HELPERS[sim_name(name)] is MATH[name].ref
    # float32 in, float32 out (the sim computes in the kernel's type)
    args = [np.float32(a) if k == "float" else np.int32(a)
            for a, k in zip(_sample(name), MATH[name].operand_kinds)]  # fmt: skip
    r = MATH[name].ref(*args)
    want = {"float": np.float32, "int": np.int32, "bool": np.bool_}[MATH[name].result]
    assert np.asarray(r).dtype == want, (name, np.asarray(r).dtype)


@pytest.mark.parametrize("name", [n for n in ROWS if not MATH[n].parts])
def test_cpu_backend_spells_the_row(name: str) -> None:
    row = MATH[name]
    assert row.llvm or row.libm, name
    if row.llvm_f32 is not None:
        assert row.llvm_f32 in llvm_math.KERNELS and llvm_math.helpers(row.llvm_f32)
    if row.llvm is not None and row.llvm.startswith("simt.math."):
        assert row.llvm in llvm_helpers.MATH_HELPERS, row.llvm
    if row.libm and row.llvm is None:
        libc = ctypes.CDLL(None)
        for sym in (row.libm, row.libm + "f"):
            assert sym in LIBM_NAMES and hasattr(libc, sym), sym


def test_every_cpu_helper_and_kernel_is_a_rows() -> None:
    """No spelling lives outside the table: each helper or kernel is some row's."""
    spelled = {r.llvm for r in MATH.values()} | {r.llvm_f32 for r in MATH.values()}
    assert set(llvm_helpers.MATH_HELPERS) <= spelled
    assert llvm_math.KERNELS <= spelled


@pytest.mark.parametrize("name", [n for n in ROWS if not MATH[n].parts])
def test_cuda_helpers_named_by_the_row_exist(name: str) -> None:
    for helper in re.findall(r"\bsimt_\w+", MATH[name].c):
        assert helper in cuda_helpers.HELPERS, helper


@pytest.mark.parametrize("name", [n for n in ROWS if not MATH[n].parts])
def test_wgsl_spelling_or_refusal(name: str) -> None:
    row = MATH[name]
    if row.wgsl is not None:
        for helper in re.findall(
            r"\bsimt_\w+", row.wgsl.format(*"abcd", s="f32" if "float" in row.args else "i32")
        ):
            assert helper in wgsl_helpers.HELPERS, helper
    assert (name in wgsl.F32_ONLY_MATH) == row.wgsl_f32_only
    if row.wgsl_f64 is not None:  # simt's float64 WGSL function: the row is not refused
        assert not row.wgsl_f32_only
        for helper in re.findall(r"\bsimt_\w+", row.wgsl_f64):
            assert helper in wgsl_helpers.HELPERS and helper.endswith("_f64"), helper


def test_wgsl_float32_only_list_is_the_tables() -> None:
    assert WGSL_F32_ONLY == {n for n, r in MATH.items() if r.wgsl_f32_only}
    assert "sqrt" not in WGSL_F32_ONLY and "exp" not in WGSL_F32_ONLY  # (wgsl_math64)


def test_every_float32_row_has_a_wgsl_spelling() -> None:
    """Issue 23/24: no float32 math row is refused on webgpu."""
    assert [n for n, r in MATH.items() if r.wgsl is None and not r.parts] == []


@simt.kernel
def _calls_erf(x, out):
    i = simt.grid(1)
    if i < len(out):
        out[i] = math.erf(x[i])


def test_renderers_read_their_spelling_from_the_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each renderer takes its spelling from the row: a changed row changes the text."""
    args = (np.ones(4, np.float32), np.zeros(4, np.float32))
    wgsl_text, cpu_text = (_calls_erf.source(b, *args) for b in ("webgpu", "cpu"))
    assert "simt_erf_f32(" in wgsl_text and "@simt.vm.erf.f32(" in cpu_text
    changed = dataclasses.replace(
        MATH["erf"], wgsl="simt_atan_f32({0})", llvm_f32=None, libm="erfc", c="erfc{f}({0})"
    )
    monkeypatch.setitem(MATH, "erf", changed)
    wgsl_text, cpu_text, cuda_text = (
        _calls_erf.source(b, *args) for b in ("webgpu", "cpu", "cuda")
    )
    assert "simt_atan_f32(" in wgsl_text and "simt_erf_f32(" not in wgsl_text
    assert "@erfcf(" in cpu_text and "@simt.vm.erf.f32" not in cpu_text
    assert "erfcf(" in cuda_text


def test_tuple_rows_are_made_of_rows() -> None:
    for row in MATH.values():
        for part in row.parts:
            assert part in MATH and not MATH[part].public


@simt.kernel
def erf_of_index(out):
    i = simt.grid(1)
    if i < len(out):
        out[i] = math.erf(i * 0.01)


def test_cost_of_a_computed_math_call() -> None:
    """Issue 14's bug: the cost model evaluated the sim's text (`_erf` undefined there)."""
    out = np.zeros(256, np.float32)
    c = erf_of_index.cost(2, 128, out)
    assert c.flops == 256 * (1 + MATH["erf"].weight)  # i * 0.01, then erf
    erf_of_index[2, 128](out)
    np.testing.assert_allclose(out, [math.erf(i * 0.01) for i in range(256)], rtol=1e-6)


def test_known_operands_run_in_cpython() -> None:
    @simt.kernel
    def known(out):
        m, e = math.frexp(48.0)
        out[0] = m + e + math.isqrt(50) + math.gcd(12, 18) + np.floor(2.5)
        out[1] = math.e + math.pi + (1.0 if math.isclose(1.0, 1.0 + 1e-12) else 0.0)
        out[2] = math.inf
        out[3] = math.nan

    out = np.zeros(4, np.float64)
    known[1, 1](out)
    assert out[0] == 0.75 + 6 + 7 + 6 + 2.0
    assert out[1] == pytest.approx(math.e + math.pi + 1.0)
    assert out[2] == math.inf and math.isnan(out[3])


def test_a_float_for_an_int_operand_is_a_compile_error() -> None:
    @simt.kernel
    def bad(a, out):
        i = simt.grid(1)
        out[i] = math.isqrt(a[i])

    with pytest.raises(simt.CompileError, match=r"math.isqrt\(\) needs an integer"):
        bad[1, 4](np.ones(4, np.float32), np.zeros(4, np.int32))


def test_unknown_keyword_is_a_compile_error() -> None:
    @simt.kernel
    def bad(a, out):
        i = simt.grid(1)
        out[i] = math.isclose(a[i], 1.0, tolerance=0.1)

    with pytest.raises(simt.CompileError, match="rel_tol"):
        bad[1, 4](np.ones(4, np.float32), np.zeros(4, np.bool_))


def test_float64_rows_keep_their_type() -> None:
    """The result type of a row: the float operands' (float64 stays float64)."""
    assert fold_math("sqrt", FLOAT64, [2.0]) == math.sqrt(2.0)
    assert fold_math("sqrt", FLOAT32, [2.0]) == float(np.float32(math.sqrt(2.0)))
