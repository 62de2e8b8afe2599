"""Folding, the sim backend and the cost model's evaluator are one semantics: each reads the
table of simt/ir/semantics.py (its rows, `UFUNC`, `cast`), and on a sweep of edge operands
(shift amounts at and past the width, negative division and remainder, division by zero,
wrapping overflow, NaN, infinities and signed zeros) the three give the table's answer, for
every operator of every type, on hand-built IR."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

from simt import types as T
from simt.benchtool import cost
from simt.ir import Block, Builder, Function, Param, Value, semantics, verify, walk
from simt.ir.ops import BIN_OPS, CMP_OPS, UN_OPS
from simt.passes import fold
from simt.runtime.base import Dim3
from simt.runtime.sim import SimRuntime

I32 = [0, 1, -1, 2, -2, 7, -7, 3, 31, 32, 33, 40, -32, 2**31 - 1, -(2**31), 123457]
I64 = [0, 1, -1, 2, -2, 7, -7, 3, 63, 64, 65, 31, -64, 2**63 - 1, -(2**63), 2**40 + 3]
U32 = [0, 1, 2, 3, 7, 31, 32, 33, 2**31, 2**32 - 1, 2**32 - 2, 123457]
U64 = [0, 1, 2, 3, 7, 63, 64, 65, 2**63, 2**64 - 1, 2**64 - 2, 2**40 + 3]
FLT = [0.0, -0.0, 1.5, -2.25, 7.0, -7.0, 3.0, 0.5, float("inf"), float("-inf"), float("nan"),
       1e30, -1e-30, 2.0]  # fmt: skip
EDGES: dict[str, list[Any]] = {
    "bool": [False, True], "int32": I32, "int64": I64, "uint32": U32, "uint64": U64,
    "float32": FLT, "float64": FLT + [1e300],
}  # fmt: skip


def operators(t: T.Scalar) -> tuple[list[str], list[str], list[str]]:
    """The (bin, cmp, un) operators the front end makes for operands of type `t`."""
    if t.is_bool:
        return ["and", "or", "xor"], ["eq", "ne"], ["not", "invert"]
    if t.is_float:
        floats = ["add", "sub", "mul", "div", "floordiv", "mod", "pow", "min", "max"]
        return floats, list(CMP_OPS), ["neg", "abs", "not"]
    ints = [n for n in BIN_OPS if n != "div"]
    return ints, list(CMP_OPS), ["neg", "invert", "not"] + (["abs"] if t.is_signed else [])


def operands(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of edge values, as two arrays (lane k: pair k)."""
    pairs = list(itertools.product(EDGES[dtype], repeat=2))
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        wide = np.uint64 if dt.kind == "u" else np.int64
        a = np.array([p[0] for p in pairs], object).astype(wide)
        b = np.array([p[1] for p in pairs], object).astype(wide)
        return a.astype(dt), b.astype(dt)
    return np.array([p[0] for p in pairs], dt), np.array([p[1] for p in pairs], dt)


def kernel(t: T.Scalar) -> Function:
    """out[k, i] = operator k of a[i], b[i]; cmp[k, i] likewise for the comparisons."""
    names = ("a", "b", "out", "cmp")
    types = [T.ArrayType(t, 1), T.ArrayType(t, 1), T.ArrayType(t, 2), T.ArrayType(T.BOOL, 2)]
    ps = [Param(n, k, Value(ty, n)) for k, (n, ty) in enumerate(zip(names, types))]
    body = Block()
    b = Builder(body)
    i = b.bin("add", b.bin("mul", b.special("block_idx", 0), b.special("block_dim", 0)),
              b.special("thread_idx", 0))  # fmt: skip
    x = b.op("load", [ps[0].value, i], [t]).result
    y = b.op("load", [ps[1].value, i], [t]).result
    bins, cmps, uns = operators(t)
    results = [b.bin(n, x, y) for n in bins] + [b.un(n, x) for n in uns]
    for k, r in enumerate(results):
        b.op("store", [ps[2].value, b.const(k, T.INT32), i, r])
    for k, n in enumerate(cmps):
        b.op("store", [ps[3].value, b.const(k, T.INT32), i, b.cmp(n, x, y)])
    fn = Function(f"sweep_{t.name}", ps, body, filename="sweep.py")
    verify(fn)
    return fn


def table(t: T.Scalar, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    bins, cmps, uns = operators(t)
    out = [semantics.evaluate("bin", n, a, b) for n in bins]
    out += [semantics.evaluate("un", n, a) for n in uns]
    with np.errstate(all="ignore"):
        res = np.stack([np.asarray(r).astype(a.dtype) for r in out])
    return res, np.stack([semantics.evaluate("cmp", n, a, b) for n in cmps])


def same(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Lane by lane: the same value, NaN as NaN, and the same sign of a zero."""
    eq = np.asarray(got == want)
    if got.dtype.kind == "f":
        eq = (eq & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))
    return eq


def _check(who: str, t: T.Scalar, names: list[str], got: np.ndarray, want: np.ndarray,
           a: np.ndarray, b: np.ndarray) -> None:  # fmt: skip
    for k, name in enumerate(names):
        ok = same(got[k], want[k])
        assert ok.all(), (
            f"{who}: {name} on {t.name}: operands {a[~ok][:6]}, {b[~ok][:6]}: got "
            f"{got[k][~ok][:6]}, the table says {want[k][~ok][:6]}"
        )


DTYPES = list(EDGES)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sim_runs_the_table(dtype: str) -> None:
    t = T.scalar_of_dtype(np.dtype(dtype))
    assert t is not None
    a, b = operands(dtype)
    bins, cmps, uns = operators(t)
    out = np.zeros((len(bins) + len(uns), a.size), a.dtype)
    cmp = np.zeros((len(cmps), a.size), bool)
    rt = SimRuntime()
    rt.launch(rt.compile(kernel(t)), Dim3(1), Dim3(a.size), [a, b, out, cmp])
    want, want_cmp = table(t, a, b)
    _check("sim", t, bins + uns, out, want, a, b)
    _check("sim", t, cmps, cmp, want_cmp, a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_the_cost_models_evaluator_runs_the_table(dtype: str) -> None:
    t = T.scalar_of_dtype(np.dtype(dtype))
    assert t is not None
    a, b = operands(dtype)
    bins, cmps, uns = operators(t)
    got: dict[str, list[np.ndarray]] = {"bin": [], "un": [], "cmp": []}
    fn = kernel(t)
    x, y = (op.result for op in walk(fn.body) if op.opcode == "load")
    for op in walk(fn.body):
        if op.opcode in got and op.operands[0] is x:  # (not the thread index's)
            with np.errstate(all="ignore"):
                r = cost.compute(op, [a, b][: len(op.operands)], op.result.scalar)
            assert r is not None
            got[op.opcode].append(r)
    want, want_cmp = table(t, a, b)
    _check("cost", t, bins + uns, np.stack(got["bin"] + got["un"]), want, a, b)
    _check("cost", t, cmps, np.stack(got["cmp"]), want_cmp, a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_folding_is_the_table_where_it_folds(dtype: str) -> None:
    """Folding gives the table's value, or leaves the op to run time (None): a NaN operand of
    a float min or max, a result that is not a finite float."""
    t = T.scalar_of_dtype(np.dtype(dtype))
    assert t is not None
    a, b = operands(dtype)
    bins, cmps, uns = operators(t)
    want, want_cmp = table(t, a, b)
    folded = 0
    for j in range(a.size):
        x, y = fold.to_py(a[j], t), fold.to_py(b[j], t)
        for k, name in enumerate(bins + uns):
            r = fold.fold_bin(name, t, x, y) if k < len(bins) else fold.fold_un(name, t, x)
            if r is None:
                assert t.is_float, f"fold {name} {x} {y} on {t.name}: not folded"
                continue
            folded += 1
            w = want[k, j]
            if name == "pow" and t.is_float:
                # NumPy's power of two scalars and its vector loop may differ in the last
                # place (1.5 ** 0.5 in float32, 7.0 ** 1.5 in float64): the table's rows
                # are NumPy's, and folding has scalars where the sweep has arrays
                assert np.isclose(r, w, rtol=4 * float(np.finfo(a.dtype).eps), atol=0.0)
                continue
            assert same(np.asarray(r, a.dtype), w), f"fold {name} {x!r} {y!r}: {r!r}, table {w!r}"
        for k, name in enumerate(cmps):
            assert fold.fold_cmp(name, t, x, y) == bool(want_cmp[k, j]), (name, x, y)
    assert folded > a.size  # most of the sweep folds


CASTS = ["bool", "int32", "uint32", "int64", "uint64", "float32", "float64"]


@pytest.mark.parametrize("src", CASTS)
def test_one_conversion_for_fold_sim_and_cost(src: str) -> None:
    """A `cast` op: `semantics.cast` is what sim runs, what the cost model computes and, where
    the semantics define it, what folding gives (a float to an integer it does not fit, NaN
    or an infinity: unspecified, neither folded nor compared)."""
    st = T.scalar_of_dtype(np.dtype(src))
    assert st is not None
    x = np.array(EDGES[src] + ([2.5, -2.5, 4e9, -3e9, 1e20] if st.is_float else []),
                 dtype=object).astype(np.uint64 if src.startswith("u") else
                                      None if st.is_float or st.is_bool else np.int64
                                      ).astype(src)  # fmt: skip
    for dst in CASTS:
        if dst == src:
            continue  # no cast op
        dt = T.scalar_of_dtype(np.dtype(dst))
        assert dt is not None
        with np.errstate(all="ignore"):
            want = semantics.cast(x, dt.np)
        defined = np.ones(x.size, bool)
        if st.is_float and dt.is_int:
            info = np.iinfo(dt.np)
            with np.errstate(all="ignore"):
                tr = np.trunc(x.astype(np.float64))
            defined = np.isfinite(tr) & (tr >= float(info.min)) & (tr < float(info.max) + 1)
        # sim: the program's conversion is the table's
        body = Block()
        bld = Builder(body)
        ps = [Param("x", 0, Value(T.ArrayType(st, 1), "x")),
              Param("y", 1, Value(T.ArrayType(dt, 1), "y"))]  # fmt: skip
        i = bld.special("thread_idx", 0)
        v = bld.op("load", [ps[0].value, i], [st]).result
        bld.op("store", [ps[1].value, i, bld.cast(v, dt)])
        fn = Function("conv", ps, body, filename="conv.py")
        verify(fn)
        y = np.zeros(x.size, dt.np)
        rt = SimRuntime()
        with np.errstate(all="ignore"):
            rt.launch(rt.compile(fn), Dim3(1), Dim3(x.size), [x, y])
        assert same(y[defined], want[defined]).all(), (src, dst, x[defined], y[defined])
        # the cost model: the table where defined
        op = next(o for o in walk(body) if o.opcode == "cast")
        with np.errstate(all="ignore"):
            got = cost.compute(op, [x], dt)
        assert got is not None and same(got[defined], want[defined]).all(), (src, dst)
        # folding: the table where defined, nothing where not
        for j in range(x.size):
            r = fold.fold_cast(st, dt, fold.to_py(x[j], st))
            if not defined[j]:
                assert r is None, (src, dst, x[j], r)
            elif r is not None:
                assert same(np.asarray(r, dt.np), want[j]), (src, dst, x[j], r, want[j])
            else:  # a float result that is not finite is left to run time
                assert dt.is_float and not np.isfinite(want[j]), (src, dst, x[j])


def test_every_operator_has_one_row_and_sims_ufuncs_are_their_rows() -> None:
    assert set(semantics.BIN) == set(BIN_OPS) and len(BIN_OPS) == len(set(BIN_OPS))
    assert set(semantics.CMP) == set(CMP_OPS) and len(CMP_OPS) == len(set(CMP_OPS))
    assert set(semantics.UN) == set(UN_OPS) and len(UN_OPS) == len(set(UN_OPS))
    for dtype in DTYPES:
        t = T.scalar_of_dtype(np.dtype(dtype))
        assert t is not None
        a, b = operands(dtype)
        for name in operators(t)[0]:
            if name not in semantics.UFUNC:
                continue
            ufunc = eval(semantics.UFUNC[name], {"np": np})  # noqa: S307 - the table's text
            with np.errstate(all="ignore"):
                got = ufunc(a, b)
            want = semantics.evaluate("bin", name, a, b)
            assert same(np.asarray(got), np.asarray(want)).all(), (name, dtype)
