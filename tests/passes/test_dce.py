"""Dead-code elimination: unused values go, effects and loads stay."""

from __future__ import annotations

import random

import numpy as np
import pytest

from simt.ir import Function, verify
from simt.passes.dce import dce
from simt.types import BOOL, FLOAT32, INT32, ArrayType

from .ir_eval import (
    count,
    for_,
    function,
    if_,
    random_function,
    random_inputs,
    same_behaviour,
    store,
    while_,
)


def test_unused_pure_ops_go_effects_stay() -> None:
    fn, b, (out, x) = function(ArrayType(INT32, 1), INT32)
    y = b.bin("mul", x, x)  # dead
    b.cmp("lt", y, x)  # dead
    store(b, out, 0, b.bin("add", x, b.const(1, INT32)))
    b.op("print", [x], [], parts=("x",))
    b.op("assert", [b.const(True, BOOL)], [], msg=None)
    b.op("barrier")
    dce(fn)
    verify(fn)
    ops = [op.opcode for op in fn.body.ops]
    assert "cmp" not in ops and ops.count("bin") == 1
    assert {"store", "print", "assert", "barrier"} <= set(ops)


def test_unused_loads_stay() -> None:
    fn, b, (a, i) = function(ArrayType(FLOAT32, 1), INT32)
    b.op("load", [a, i], [FLOAT32])
    dce(fn)
    assert count(fn, "load") == 1


def test_if_results_and_effect_free_ifs() -> None:
    def build() -> Function:
        fn, b, (out, x) = function(ArrayType(INT32, 1), INT32)
        c = b.cmp("lt", x, b.const(0, INT32))
        r1, r2 = if_(b, c, lambda: [b.bin("add", x, x), b.bin("mul", x, x)],
                     lambda: [x, b.bin("sub", x, x)], [INT32, INT32])  # fmt: skip
        store(b, out, 0, r1)
        if_(b, c, lambda: [b.bin("add", x, x)], lambda: [x], [INT32])  # unused entirely

        def then() -> list:  # type: ignore[type-arg]
            store(b, out, 1, x)
            return [x]

        if_(b, c, then, lambda: [x], [INT32])  # result unused, but it stores
        return fn

    fn = same_behaviour(build, dce, [[np.zeros(2, np.int32), v] for v in (-3, 0, 4)])
    ifs = [op for op in fn.body.ops if op.opcode == "if"]
    assert [len(op.results) for op in ifs] == [1, 0]
    assert count(fn, "bin") == 1  # only r1's add


def test_unused_loop_carried_values_go() -> None:
    def build() -> Function:
        fn, b, (out, n) = function(ArrayType(INT32, 1), INT32)
        zero, one = b.const(0, INT32), b.const(1, INT32)

        def body(i, s, t, u):  # type: ignore[no-untyped-def]
            # s is used after the loop; t only feeds itself; u is read by the store.
            store(b, out, 1, u)
            return [b.bin("add", s, i), b.bin("mul", t, t), b.bin("add", u, one)]

        s, t, u = for_(b, zero, n, one, [zero, one, zero], body)
        store(b, out, 0, s)
        return fn

    fn = same_behaviour(build, dce, [[np.zeros(2, np.int32), v] for v in (0, 1, 5)])
    (loop,) = [op for op in fn.body.ops if op.opcode == "for"]
    assert len(loop.results) == 2 and len(loop.regions[0].args) == 3
    assert count(fn, "bin") == 2


def test_effect_free_for_goes_while_stays() -> None:
    def build() -> Function:
        fn, b, (out, n) = function(ArrayType(INT32, 1), INT32)
        zero, one = b.const(0, INT32), b.const(1, INT32)
        for_(b, zero, n, one, [zero], lambda i, s: [b.bin("add", s, i)])
        while_(b, [zero], lambda i: b.cmp("lt", i, n), lambda i: [b.bin("add", i, one)])
        store(b, out, 0, n)
        return fn

    fn = same_behaviour(build, dce, [[np.zeros(1, np.int32), v] for v in (0, 3)])
    assert count(fn, "for") == 0 and count(fn, "while") == 1


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_behave_the_same(seed: int) -> None:
    same_behaviour(random_function(seed), dce, random_inputs(random.Random(seed), 4))
