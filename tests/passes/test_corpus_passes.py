"""Every pass over the front end's IR of every corpus kernel: verified, and the same behaviour.

Behaviour is checked with the test interpreter, one thread at a time (a few thread and block
indices), before and after each pass: what the thread stores, prints and asserts must agree.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from simt.frontend.specialise import translate
from simt.ir import Function, verify, walk
from simt.kernel import parts_view
from simt.passes.copyprop import copyprop
from simt.passes.cse import cse
from simt.passes.dce import dce
from simt.passes.fold import fold
from simt.passes.optimize import optimize
from simt.passes.unroll import unroll

from .ir_eval import EvalAssert, EvalBounds, evaluate

try:
    from corpus import CASES
except ImportError as e:  # pragma: no cover - the corpus is part of the repository
    raise ImportError(f"tests/corpus could not be imported: {e}") from e

PASSES = {
    "fold": fold,
    "copyprop": copyprop,
    "cse": cse,
    "dce": dce,
    "unroll": unroll,
    "optimize": functools.partial(optimize, check=True),
}


def _dim(d: Any) -> tuple[int, int, int]:
    if isinstance(d, int):
        return (d, 1, 1)
    if isinstance(d, tuple):
        return (*d, *(1,) * (3 - len(d)))  # type: ignore[return-value]
    return (d.x, d.y, d.z)


def _front_end(case: Any) -> tuple[Function, list[Any]]:
    k = case.kernel
    args = case.make_args()
    values = k.bind(*args)
    specs = k.arg_specs(*args, backend="ir")
    fn = translate(k.pyfunc, specs, fp64=k.fp64, debug=k.debug, dynamic_shared=k.dynamic_shared)
    # a complex array: its float parts; a complex scalar: two parameters, its parts; the
    # hidden ones (failure buffer, lists' arenas) as the case's launch makes them
    threads = int(np.prod(_dim(case.grid))) * int(np.prod(_dim(case.block)))
    return fn, [
        fn.hidden_zeros(p, threads) if p.hidden else parts_view(p.argument(values[p.index]))
        for p in fn.params
    ]


def _run(fn: Function, args: list[Any], special: dict[str, int]) -> tuple[Any, list[Any]]:
    a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
    try:
        out: Any = evaluate(fn, a, special)
    except (EvalAssert, EvalBounds) as e:
        out = type(e).__name__
    return out, [x for x in a if isinstance(x, np.ndarray)]


def _threads(case: Any) -> list[dict[str, int]]:
    grid, block = _dim(case.grid), _dim(case.block)
    out = []
    for t, bl in (((0, 0, 0), (0, 0, 0)), ((1, 0, 0), (0, 0, 0)), ((block[0] - 1, 0, 0),
                  (grid[0] - 1, 0, 0))):  # fmt: skip
        d = {}
        for ax in range(3):
            xyz = "xyz"[ax]
            d[f"thread_idx.{xyz}"] = min(t[ax], block[ax] - 1)
            d[f"block_idx.{xyz}"] = min(bl[ax], grid[ax] - 1)
            d[f"block_dim.{xyz}"] = block[ax]
            d[f"grid_dim.{xyz}"] = grid[ax]
        out.append(d)
    return out


@pytest.mark.parametrize("name", list(PASSES))
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_pass_on_corpus_kernel(case: Any, name: str) -> None:
    before, args = _front_end(case)
    verify(before)
    after, _ = _front_end(case)
    after = PASSES[name](after)
    verify(after)
    for special in _threads(case):
        p0, a0 = _run(before, args, special)
        p1, a1 = _run(after, args, special)
        assert p0 == p1, (special, p0, p1)
        for x, y in zip(a0, a1):
            np.testing.assert_array_equal(x, y, err_msg=str(special))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_optimised_corpus_kernels_keep_their_source_locations(case: Any) -> None:
    fn, _ = _front_end(case)
    had = sum(1 for op in walk(fn.body) if op.loc is not None and op.opcode in _LOCATED)
    optimize(fn)
    ops = [op for op in walk(fn.body) if op.opcode in _LOCATED]
    assert all(op.loc is not None for op in ops)
    assert had == 0 or ops  # the effects are still there


_LOCATED = ("store", "load", "atomic", "cas", "print", "assert")
