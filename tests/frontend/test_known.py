"""Known-value evaluation agrees with run-time code on every operator (issue #15, item 10).

For each integer operator, each pair of operands from a table of edge values is computed
twice: folded at compile time (`simt.frontend.known.binop`, what a kernel gets from `7 // 0`)
and by a kernel on `sim` from typed operands. Wrapped to the type, the two must be equal.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simt
from simt import types as T
from simt.frontend import known
from simt.frontend.scalars import const_value
from simt.runtime import registry

OPS = {
    "add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%", "pow": "**",
    "and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>",
}  # fmt: skip
EDGES = (0, 1, -1, 2, -2, 3, 7, -7, 31, 32, 33, -31, -32, 2**31 - 1, -(2**31), 65536, 40)


@pytest.fixture(autouse=True)
def _on_sim(monkeypatch: pytest.MonkeyPatch) -> None:
    simt.use("sim")


def _kernel(tmp_path: Path, op: str) -> Any:
    path = tmp_path / f"k_{op}.py"
    path.write_text(
        "import simt\n\n\n@simt.kernel\ndef k(a, b, out):\n"
        "    i = simt.grid(1)\n"
        f"    out[i] = a[i] {OPS[op]} b[i]\n"
    )
    spec = importlib.util.spec_from_file_location(f"known_{op}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.k


@pytest.mark.parametrize("t", [T.INT32, T.UINT32], ids=str)
@pytest.mark.parametrize("op", list(OPS))
def test_known_and_run_time_agree(tmp_path: Path, op: str, t: T.Scalar) -> None:
    pairs = list(itertools.product(EDGES, EDGES))
    if op == "pow":  # keep the powers small enough to read; wrap-around is the point elsewhere
        pairs = [(x, y) for x, y in pairs if abs(y) <= 33]
    a = np.array([const_value(x, t) for x, _ in pairs], t.np)
    b = np.array([const_value(y, t) for _, y in pairs], t.np)
    out = np.zeros(len(pairs), t.np)
    _kernel(tmp_path, op)[len(pairs), 1](a, b, out)
    for k, (x, y) in enumerate(pairs):
        # the folded value of literals of type t, as the launch sees them
        folded = known.binop(op, t.np.type(a[k]), t.np.type(b[k]), False)
        assert const_value(folded, t) == int(out[k]), (op, t, int(a[k]), int(b[k]))
        if t == T.INT32:  # Python ints: Python's answer, wrapped, agrees with run time too
            plain = known.binop(op, x, y, False)
            want = int(out[k])
            if op in ("shl", "shr") and y >= 32:
                continue  # Python: 1 << 40 stays 2**40 while known (documented)
            if op == "pow" and y > 31:
                continue
            assert const_value(plain, t) == want, (op, x, y, plain, want)


@simt.kernel
def folded(out, x, i):
    out[0] = simt.uint32(-1)
    out[1] = simt.int32(3e9)
    out[2] = 7 % 0
    out[3] = 7 // 0
    out[4] = simt.int32(1 << -1)
    out[5] = 2**-1
    out[6] = i < 2**70
    out[7] = i > 3000000000
    out[8] = math.log(256, 2)
    out[9] = math.log(x, 2)
    out[10] = math.trunc(simt.float32(x) * 1.5)
    out[11] = (-1) ** -3
    out[12] = simt.uint32(12) & -8
    out[13] = math.trunc(simt.float32(2.5))  # a known float32 (found by the mutator)


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_known_values_follow_the_run_time_rules(backend: str) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(why)
    simt.use(backend)
    out = np.zeros(14, np.int64)
    folded[1, 1](out, 8.0, 5)
    want = [2**32 - 1, 3 * 10**9 - 2**32, 0, 0, -(2**31), 0, 1, 0, 8, 3, 12, -1, 8, 2]
    assert out.tolist() == want


@simt.kernel
def huge_float(out):
    out[0] = float(10**400)


def test_a_known_int_too_large_for_a_float_is_a_located_compile_error() -> None:
    # found by the 5,000-kernel campaign (seed 12085): an internal OverflowError before
    with pytest.raises(simt.CompileError, match=r"float\(\) of a value known") as e:
        huge_float[1, 1](np.zeros(1, np.float32))
    assert e.value.line is not None


@simt.kernel
def _small_casts_of_big_known_ints(out):
    out[0] = simt.uint16(31 << 100)
    out[1] = simt.int8((1 << 70) + 200)
    out[2] = simt.uint8(-1 - (1 << 80))
    out[3] = simt.int16(-40000.7)


def test_small_type_casts_wrap_known_ints_of_any_size() -> None:
    # found by the fuzzer (seed 20439): simt.uint16(31 << 100) was an internal OverflowError
    simt.use("sim")
    out = np.zeros(4, np.int32)
    _small_casts_of_big_known_ints[1, 1](out)
    assert out.tolist() == [0, ((1 << 70) + 200) % 256 - 256, (-1 - (1 << 80)) % 256, 25536]


@simt.kernel
def _known_complex_and_float32(cz):
    z = 0.25j + simt.float32(0.5)  # NumPy's complex64 when folded: still a known complex
    cz[0] = z
    cz[1] = z * 2 - 1j


def test_a_known_complex_next_to_a_numpy_float_stays_a_complex() -> None:
    # found by the out-of-bounds campaign (seed 32256): "cannot store a complex64 into a
    # float32 array" on every backend
    simt.use("sim")
    cz = np.zeros(2, np.complex64)
    _known_complex_and_float32[1, 1](cz)
    assert cz.tolist() == [0.5 + 0.25j, 1.0 - 0.5j]
