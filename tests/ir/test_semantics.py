"""The IR's executable semantics table (simt/ir/semantics.py) against its three readers
(constant folding, the sim backend, the cost model's evaluator) and every backend present:
one kernel per operand type computes every operator of that type on edge-case operands."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simt
from simt import types as T
from simt.benchtool import cost
from simt.ir import semantics, walk
from simt.ir.ops import BIN_OPS, CMP_OPS, UN_OPS
from simt.passes import fold
from simt.runtime import registry

# operators of each operand type, as Python writes them (x, y: the operands)
BIN_SRC = {
    "add": "x + y", "sub": "x - y", "mul": "x * y", "div": "x / y", "floordiv": "x // y",
    "mod": "x % y", "pow": "x ** y", "min": "min(x, y)", "max": "max(x, y)", "and": "x & y",
    "or": "x | y", "xor": "x ^ y", "shl": "x << y", "shr": "x >> y",
}  # fmt: skip
CMP_SRC = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
UN_SRC = {"neg": "-x", "invert": "~x", "abs": "abs(x)", "not": "not x"}
OPS: dict[str, tuple[list[str], list[str], list[str]]] = {  # dtype -> (bin, cmp, un)
    "int32": ([n for n in BIN_OPS if n != "div"], list(CMP_OPS), ["neg", "invert", "abs"]),
    "uint32": ([n for n in BIN_OPS if n != "div"], list(CMP_OPS), ["neg", "invert"]),
    "float32": (
        ["add", "sub", "mul", "div", "floordiv", "mod", "pow", "min", "max"],
        list(CMP_OPS),
        ["neg", "abs"],
    ),
    "bool": (["and", "or", "xor"], ["eq", "ne"], ["not"]),
}
INT_A = [0, 1, -1, 7, -7, 2**31 - 1, -(2**31), 123457, 3, -2, 2, 5, 9, -9, 6, 1000]
INT_B = [0, 1, -1, 2, 3, -1, -1, 33, 40, 31, 32, -3, 0, 4, -4, 7]
FLT_A = [0.0, 1.5, -2.25, 7.0, -7.0, 3e30, -1e-30, 0.1, 3.0, -0.0, 2.0, 5.5, 9.0, -9.5, 6.0, 1e6]
FLT_B = [1.0, 0.5, -1.5, 2.0, 3.0, -1.0, 4.0, 0.3, 0.0, 2.0, -2.0, 3.0, 2.5, 4.0, -4.0, 7.0]
APPROX = {"div", "pow"}  # WGSL's division and every pow may differ from IEEE by ulps
N = len(INT_A)


def operands(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    if dtype == "bool":
        return np.array([0, 0, 1, 1] * 4, bool), np.array([0, 1, 0, 1] * 4, bool)
    if dtype == "float32":
        return np.array(FLT_A, np.float32), np.array(FLT_B, np.float32)
    dt = np.dtype(dtype)
    return (np.array(INT_A, np.int64).astype(dt), np.array(INT_B, np.int64).astype(dt))


def _kernel_module(tmp: Path) -> Any:
    """A module with one kernel per operand type: row k of `out` is operator k."""
    lines = ["import numpy as np", "import simt", ""]
    for dtype in OPS:  # the select op: x where i % 3 == 0, else y
        lines += [
            "@simt.kernel",
            f"def select_{dtype}(a, b, out):",
            "    i = simt.grid(1)",
            "    if i < len(a):",
            "        out[i] = np.where(i % 3 == 0, a[i], b[i])",
            "",
        ]
    for dtype, (bins, cmps, uns) in OPS.items():
        lines += [
            "@simt.kernel",
            f"def ops_{dtype}(a, b, out, cmp):",
            "    i = simt.grid(1)",
            "    if i < len(a):",
            "        x = a[i]",
            "        y = b[i]",
        ]
        for k, name in enumerate(bins):
            lines.append(f"        out[{k}, i] = {BIN_SRC[name]}")
        for k, name in enumerate(uns):
            lines.append(f"        out[{len(bins) + k}, i] = {UN_SRC[name]}")
        for k, name in enumerate(cmps):
            lines.append(f"        cmp[{k}, i] = x {CMP_SRC[name]} y")
        lines.append("")
    path = tmp / "semantics_kernels.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("semantics_kernels", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["semantics_kernels"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def kernels(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return _kernel_module(tmp_path_factory.mktemp("semantics"))


def expected(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Every operator of `dtype` on the operands, from the table alone."""
    a, b = operands(dtype)
    bins, cmps, uns = OPS[dtype]
    out = np.stack(
        [np.asarray(semantics.evaluate("bin", n, a, b)) for n in bins]
        + [np.asarray(semantics.evaluate("un", n, a)) for n in uns]
    ).astype(a.dtype)
    cmp = np.stack([semantics.evaluate("cmp", n, a, b) for n in cmps])
    return out, cmp


def _run(kernels: Any, dtype: str, backend: str) -> tuple[np.ndarray, np.ndarray]:
    a, b = operands(dtype)
    bins, cmps, uns = OPS[dtype]
    out = np.zeros((len(bins) + len(uns), N), a.dtype)
    cmp = np.zeros((len(cmps), N), bool)
    with simt.using(backend):
        getattr(kernels, f"ops_{dtype}")[1, N](a, b, out, cmp)
        simt.synchronize()
    return out, cmp


def _compare(dtype: str, got: np.ndarray, want: np.ndarray, approx: bool, who: str) -> None:
    bins, _, uns = OPS[dtype]
    for k, name in enumerate(bins + uns):
        g, w = got[k], want[k]
        if dtype == "float32":
            tol = 4e-6 if approx and name in APPROX else 0.0
            ok = np.isclose(g, w, rtol=tol, atol=0.0, equal_nan=True) | (g == w)
            # (a zero's sign may differ on webgpu: docs/semantics.md)
        else:
            ok = g == w
        assert ok.all(), (
            f"{name} on {dtype} ({who}): operands {operands(dtype)[0][~ok]}, "
            f"{operands(dtype)[1][~ok]}: got {g[~ok]}, the table says {w[~ok]}"
        )


def test_every_operator_has_a_row_and_a_kernel(kernels: Any) -> None:
    seen: set[tuple[str, str]] = set()
    for dtype in OPS:
        a, b = operands(dtype)
        k = getattr(kernels, f"ops_{dtype}")
        bins, cmps, uns = OPS[dtype]
        fn, _ = k.specialised_ir(a, b, np.zeros((1, N), a.dtype), np.zeros((1, N), bool))
        seen |= {(op.opcode, op.attrs["op"]) for op in walk(fn.body)
                 if op.opcode in ("bin", "cmp", "un")}  # fmt: skip
    table = {(oc, n) for oc, rows in semantics.TABLE.items() for n in rows}
    assert table == {("bin", n) for n in BIN_OPS} | {("cmp", n) for n in CMP_OPS} | {
        ("un", n) for n in UN_OPS
    }
    assert table - seen == set(), "operators no test kernel reaches"


@pytest.mark.parametrize("dtype", list(OPS))
def test_folding_is_the_table(dtype: str) -> None:
    a, b = operands(dtype)
    t = T.scalar_of_dtype(a.dtype)
    assert t is not None
    want, want_cmp = expected(dtype)
    bins, cmps, uns = OPS[dtype]
    for k, name in enumerate(bins + uns):
        for j in range(N):
            x, y = fold.to_py(a[j], t), fold.to_py(b[j], t)
            r = fold.fold_bin(name, t, x, y) if name in bins else fold.fold_un(name, t, x)
            if r is None:  # not folded (a NaN or an infinity): left to run time
                continue
            w = fold.to_py(want[k, j], t)
            assert r == w or (dtype == "float32" and np.isclose(r, w, rtol=1e-6)), (
                f"fold {name} {x} {y}: {r}, the table says {w}"
            )
    for k, name in enumerate(cmps):
        for j in range(N):
            r = fold.fold_cmp(name, t, fold.to_py(a[j], t), fold.to_py(b[j], t))
            assert r == bool(want_cmp[k, j])


@pytest.mark.parametrize("dtype", list(OPS))
def test_the_cost_models_evaluator_is_the_table(dtype: str, kernels: Any) -> None:
    """Also where the cost model's own copy disagreed: shift amounts of 32 and more."""
    a, b = operands(dtype)
    k = getattr(kernels, f"ops_{dtype}")
    fn, _ = k.specialised_ir(a, b, np.zeros((1, N), a.dtype), np.zeros((1, N), bool))
    x, y = [op.result for op in walk(fn.body) if op.opcode == "load"][:2]
    compared = 0
    for op in walk(fn.body):
        # the operators of x and y (not the thread index's arithmetic, nor the bounds checks')
        if op.opcode not in ("bin", "cmp", "un") or op.operands[0] is not x:
            continue
        if len(op.operands) > 1 and op.operands[1] is not y:
            continue
        args = [a, b][: len(op.operands)]
        got = cost.compute(op, args, op.result.scalar)
        want = np.asarray(semantics.evaluate(op.opcode, op.attrs["op"], *args))
        assert got is not None
        with np.errstate(all="ignore"):
            want = want.astype(got.dtype)
        assert np.array_equal(got, want, equal_nan=True), op.attrs["op"]
        compared += 1
    assert compared > 0  # (bool operators may be written as selects by the front end)


@pytest.mark.parametrize("backend", list(registry.RUNTIMES))  # a new one too
@pytest.mark.parametrize("dtype", list(OPS))
def test_every_backend_computes_the_table(dtype: str, backend: str, kernels: Any) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"backend {backend!r} not present: {why}")
    want, want_cmp = expected(dtype)
    got, got_cmp = _run(kernels, dtype, backend)
    _compare(dtype, got, want, backend != "sim", backend)
    assert np.array_equal(got_cmp, want_cmp), f"comparisons on {dtype} ({backend})"


@pytest.mark.parametrize("dtype", list(OPS))
def test_cuda_compiles_every_operator(dtype: str, kernels: Any) -> None:
    """NVRTC compiles the kernel (its results are checked where a GPU runs the suite)."""
    from simt.runtime import nvrtc

    if nvrtc.version() is None:
        pytest.skip("NVRTC is not installed")
    from simt.backends import cuda
    from simt.runtime.cuda import nvrtc_options

    a, b = operands(dtype)
    k = getattr(kernels, f"ops_{dtype}")
    fn, _ = k.specialised_ir(a, b, np.zeros((1, N), a.dtype), np.zeros((1, N), bool))
    kern = cuda.build(fn)
    nvrtc.compile_cubin(kern.source, "sm_80", nvrtc_options(kern))


# ---------------------------------------------------------------- select
def _select_op(kernels: Any, dtype: str) -> Any:
    a, b = operands(dtype)
    fn, _ = getattr(kernels, f"select_{dtype}").specialised_ir(a, b, np.zeros(N, a.dtype))
    (op,) = [op for op in walk(fn.body) if op.opcode == "select"]
    return op


@pytest.mark.parametrize("dtype", list(OPS))
def test_select_is_the_table_in_folding_and_the_cost_model(dtype: str, kernels: Any) -> None:
    a, b = operands(dtype)
    c = np.arange(N) % 3 == 0
    want = semantics.select(c, a, b)
    assert np.array_equal(want, np.where(c, a, b))
    op = _select_op(kernels, dtype)
    assert np.array_equal(cost.compute(op, [c, a, b], op.result.scalar), want)
    # folding a known condition picks the operand the table picks
    assert semantics.select(True, op.operands[1], op.operands[2]) is op.operands[1]
    assert semantics.select(False, op.operands[1], op.operands[2]) is op.operands[2]


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
@pytest.mark.parametrize("dtype", list(OPS))
def test_every_backend_selects_as_the_table(dtype: str, backend: str, kernels: Any) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"backend {backend!r} not present: {why}")
    a, b = operands(dtype)
    out = np.zeros(N, a.dtype)
    with simt.using(backend):
        getattr(kernels, f"select_{dtype}")[1, N](a, b, out)
        simt.synchronize()
    assert np.array_equal(out, semantics.select(np.arange(N) % 3 == 0, a, b))


@pytest.mark.parametrize("dtype", list(OPS))
def test_cuda_compiles_select(dtype: str, kernels: Any) -> None:
    from simt.runtime import nvrtc

    if nvrtc.version() is None:
        pytest.skip("NVRTC is not installed")
    from simt.backends import cuda
    from simt.runtime.cuda import nvrtc_options

    a, b = operands(dtype)
    fn, _ = getattr(kernels, f"select_{dtype}").specialised_ir(a, b, np.zeros(N, a.dtype))
    kern = cuda.build(fn)
    assert " ? " in kern.source
    nvrtc.compile_cubin(kern.source, "sm_80", nvrtc_options(kern))
