"""Common-subexpression elimination: scopes, loads against stores, never effects."""

from __future__ import annotations

import random

import numpy as np
import pytest

from simt.ir import Function, Value, verify
from simt.passes.cse import cse
from simt.types import FLOAT32, INT32, ArrayType

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


def test_repeated_pure_ops_are_merged() -> None:
    def build() -> Function:
        fn, b, (out, x, y) = function(ArrayType(INT32, 1), INT32, INT32)
        s1 = b.bin("add", x, y)
        s2 = b.bin("add", x, y)
        d = b.bin("sub", x, y)  # another op: stays
        store(b, out, 0, b.bin("mul", s1, s2))
        store(b, out, 1, b.bin("mul", d, b.special("thread_idx", 0)))
        store(b, out, 2, b.special("thread_idx", 0))
        return fn

    fn = same_behaviour(build, cse, [[np.zeros(3, np.int32), 3, -4]])
    assert count(fn, "bin") == 4 and count(fn, "special") == 1


def test_constants_of_different_types_or_signs_stay_apart() -> None:
    fn, b, (o32, of) = function(ArrayType(INT32, 1), ArrayType(FLOAT32, 1))
    store(b, o32, 0, b.const(1, INT32))
    store(b, of, 0, b.const(1.0, FLOAT32))
    store(b, of, 1, b.const(0.0, FLOAT32))
    store(b, of, 2, b.const(-0.0, FLOAT32))
    cse(fn)
    verify(fn)
    values = sorted(repr(op.attrs["value"]) for op in fn.body.ops if op.opcode == "const")
    assert values == ["-0.0", "0", "0.0", "1", "1.0", "2"]  # indices 0, 1, 2 share


def test_outer_values_are_visible_inside_regions_not_the_reverse() -> None:
    def build() -> Function:
        fn, b, (out, x, c) = function(ArrayType(INT32, 1), INT32, INT32)
        outer = b.bin("mul", x, x)
        cond = b.cmp("lt", c, x)
        (r,) = if_(b, cond, lambda: [b.bin("mul", x, x)], lambda: [b.bin("add", x, c)], [INT32])
        (q,) = if_(b, cond, lambda: [b.bin("add", x, c)], lambda: [x], [INT32])
        store(b, out, 0, b.bin("add", outer, b.bin("add", r, q)))
        store(b, out, 1, b.bin("add", x, c))  # the inner add x, c are not visible here
        return fn

    fn = same_behaviour(build, cse, [[np.zeros(2, np.int32), 3, c] for c in (0, 5)])
    assert count(fn, "bin") == 6  # of 7: only the mul inside the first `then` is gone


def test_loads_are_merged_only_without_a_write_between() -> None:
    def build() -> Function:
        fn, b, (a, i) = function(ArrayType(INT32, 1), INT32)
        l1 = b.op("load", [a, i], [INT32]).result
        l2 = b.op("load", [a, i], [INT32]).result  # same as l1
        b.op("store", [a, b.const(0, INT32), b.bin("add", l1, l2)])
        l3 = b.op("load", [a, i], [INT32]).result  # after a store: stays
        b.op("store", [a, b.const(1, INT32), l3])
        b.op("barrier")
        l4 = b.op("load", [a, i], [INT32]).result  # after a barrier: stays
        b.op("store", [a, b.const(2, INT32), l4])
        return fn

    fn = same_behaviour(build, cse, [[np.arange(4, dtype=np.int32) + 10, i] for i in range(4)])
    assert count(fn, "load") == 3


def test_loads_are_not_reused_from_outside_a_loop() -> None:
    def build() -> Function:
        fn, b, (a, n) = function(ArrayType(INT32, 1), INT32)
        zero, one = b.const(0, INT32), b.const(1, INT32)
        first = b.op("load", [a, zero], [INT32]).result

        def body(i, s):  # type: ignore[no-untyped-def]
            v = b.op("load", [a, zero], [INT32]).result
            b.op("store", [a, zero, b.bin("add", v, one)])
            return [b.bin("add", s, v)]

        (s,) = for_(b, zero, n, one, [first], body)
        (w,) = while_(b, [zero], lambda j: b.cmp("lt", b.op("load", [a, zero], [INT32]).result,
                                                  n), lambda j: [j])  # fmt: skip
        b.op("store", [a, one, s])
        return fn

    fn = same_behaviour(build, cse, [[np.array([1, 0], np.int32), n] for n in (0, 3)])
    assert count(fn, "load") == 3


def test_effects_and_allocs_are_never_merged() -> None:
    fn, b, (a, x) = function(ArrayType(INT32, 1), INT32)
    for _ in range(2):
        b.op("atomic", [a, b.const(0, INT32), x], [INT32], op="add")
        b.op("print", [x], [], parts=("x",))
        b.op("alloc", [], [ArrayType(INT32, 1, "shared", (4,))])
    cse(fn)
    verify(fn)
    assert count(fn, "atomic") == 2 and count(fn, "print") == 2 and count(fn, "alloc") == 2


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_behave_the_same(seed: int) -> None:
    same_behaviour(random_function(seed), cse, random_inputs(random.Random(seed), 4))


def test_commutative_operands_are_matched_in_either_order() -> None:
    def build() -> Function:
        fn, b, (out, fo, x, y, f, g) = function(
            ArrayType(INT32, 1), ArrayType(FLOAT32, 1), INT32, INT32, FLOAT32, FLOAT32
        )
        store(b, out, 0, b.bin("add", x, y))
        store(b, out, 1, b.bin("add", y, x))  # merged
        store(b, out, 2, b.bin("min", y, x))
        store(b, out, 3, b.bin("min", x, y))  # merged: ints
        store(b, out, 4, b.bin("sub", y, x))  # not commutative
        store(b, out, 5, b.bin("sub", x, y))
        store(b, fo, 0, b.bin("min", f, g))
        store(b, fo, 1, b.bin("min", g, f))  # floats: which zero or NaN comes back may differ
        return fn

    inputs = [[np.zeros(6, np.int32), np.zeros(2, np.float32), 3, -4, 0.0, -0.0]]
    fn = same_behaviour(build, cse, inputs)
    assert count(fn, "bin") == 6


def test_checked_loads_are_merged_like_loads() -> None:
    """`if ok: load a[i] else 0` (the front end's IndexError check of an access no proof
    covers) is merged as a load is: with the same condition and index, once, until a write."""

    def build() -> Function:
        fn, b, (a, i) = function(ArrayType(INT32, 1), INT32)
        ok = b.cmp("lt", i, b.op("shape", [a], [INT32], dim=0).result)

        def checked() -> Value:
            then = lambda: [b.op("load", [a, i], [INT32], inbounds=True).result]  # noqa: E731
            (v,) = if_(b, ok, then, lambda: [b.const(0, INT32)], [INT32])
            return v

        v1, v2 = checked(), checked()  # the same element twice: one load
        b.op("store", [a, b.const(0, INT32), b.bin("add", v1, v2)])
        v3 = checked()  # after a store: stays
        b.op("store", [a, b.const(1, INT32), v3])
        return fn

    fn = same_behaviour(build, cse, [[np.arange(4, dtype=np.int32) + 10, i] for i in range(6)])
    assert count(fn, "load") == 2 and count(fn, "if") == 2
