"""Unrolling of small loops with known bounds."""

from __future__ import annotations

import random

import numpy as np
import pytest

from simt.ir import Function
from simt.passes.unroll import unroll
from simt.types import INT32, INT64, ArrayType, Scalar

from .ir_eval import count, for_, function, random_function, random_inputs, same_behaviour, store


def loop(start: int, stop: int, step: int, t: Scalar = INT32, nested: bool = False) -> Function:
    fn, b, (out, x) = function(ArrayType(INT32, 1), INT32)

    def body(i, s, p):  # type: ignore[no-untyped-def]
        i32 = b.cast(i, INT32)
        store(b, out, 0, i32)  # an effect in each iteration
        if nested:
            (p,) = for_(b, b.const(0, INT32), b.const(2, INT32), b.const(1, INT32), [p],
                        lambda j, q: [b.bin("add", q, j)])  # fmt: skip
        return [b.bin("add", s, b.bin("mul", i32, x)), b.bin("mul", p, b.const(3, INT32))]

    one = b.const(1, INT32)
    s, p = for_(b, b.const(start, t), b.const(stop, t), b.const(step, t), [x, one], body)
    store(b, out, 1, s)
    store(b, out, 2, p)
    return fn


INPUTS = [[np.zeros(3, np.int32), v] for v in (0, 2, -5, 2**31 - 1)]


@pytest.mark.parametrize(
    "start, stop, step, t",
    [(0, 4, 1, INT32), (5, -3, -2, INT32), (1, 8, 3, INT64), (0, 8, 1, INT32), (3, 3, 1, INT32)],
)
def test_small_known_loops_unroll(start: int, stop: int, step: int, t: Scalar) -> None:
    fn = same_behaviour(lambda: loop(start, stop, step, t), unroll, INPUTS)
    assert count(fn, "for") == 0
    assert count(fn, "store") == len(range(start, stop, step)) + 2
    assert all(op.loc is not None for op in fn.body.ops)


@pytest.mark.parametrize("start, stop, step", [(0, 9, 1), (0, 100, 1)])
def test_long_loops_stay(start: int, stop: int, step: int) -> None:
    fn = same_behaviour(lambda: loop(start, stop, step), unroll, INPUTS)
    assert count(fn, "for") == 1


def test_big_bodies_stay() -> None:
    fn = same_behaviour(lambda: loop(0, 4, 1), lambda f: unroll(f, max_ops=10), INPUTS)
    assert count(fn, "for") == 1


def test_nests_unroll_from_the_inside() -> None:
    fn = same_behaviour(lambda: loop(0, 3, 1, nested=True), unroll, INPUTS)
    assert count(fn, "for") == 0
    fn = same_behaviour(lambda: loop(0, 8, 1, nested=True), unroll, INPUTS)
    assert count(fn, "for") == 1  # 8 iterations of the unrolled inner body is too much


def test_unknown_bounds_stay() -> None:
    def build() -> Function:
        fn, b, (out, n) = function(ArrayType(INT32, 1), INT32)
        (s,) = for_(b, b.const(0, INT32), n, b.const(1, INT32), [n],
                    lambda i, s: [b.bin("add", s, i)])  # fmt: skip
        store(b, out, 0, s)
        return fn

    fn = same_behaviour(build, unroll, [[np.zeros(1, np.int32), n] for n in (0, 3)])
    assert count(fn, "for") == 1


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_behave_the_same(seed: int) -> None:
    same_behaviour(random_function(seed), unroll, random_inputs(random.Random(seed), 4))


def test_a_loop_that_runs_once_unrolls_whatever_its_size() -> None:
    fn = same_behaviour(lambda: loop(0, 1, 1), lambda f: unroll(f, max_ops=1), INPUTS)
    assert count(fn, "for") == 0
