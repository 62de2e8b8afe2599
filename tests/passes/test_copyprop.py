"""Copy propagation: same-type casts, select of one value, unchanged region results."""

from __future__ import annotations

import random

import numpy as np
import pytest

from simt.ir import Function, verify, walk
from simt.passes.copyprop import copyprop
from simt.types import BOOL, INT32, ArrayType

from .ir_eval import (
    for_,
    function,
    if_,
    random_function,
    random_inputs,
    same_behaviour,
    store,
    while_,
)


def uses(fn: Function, v: object) -> int:
    return sum(op.operands.count(v) for op in walk(fn.body))  # type: ignore[arg-type]


def test_casts_to_the_same_type_and_selects_of_one_value() -> None:
    fn, b, (out, x, c) = function(ArrayType(INT32, 1), INT32, BOOL)
    same = b.op("cast", [x], [INT32]).result
    sel = b.select(c, same, same)
    store(b, out, 0, sel)
    copyprop(fn)
    verify(fn)
    assert fn.body.ops[-1].operands[-1] is x


def test_if_results_yielded_the_same_on_every_path() -> None:
    def build() -> Function:
        fn, b, (out, x, c) = function(ArrayType(INT32, 1), INT32, BOOL)
        r, s = if_(b, c, lambda: [x, b.bin("add", x, x)], lambda: [x, x], [INT32, INT32])
        store(b, out, 0, r)
        store(b, out, 1, s)
        return fn

    fn = same_behaviour(build, copyprop, [[np.zeros(2, np.int32), 3, c] for c in (True, False)])
    stores = [op for op in fn.body.ops if op.opcode == "store"]
    assert stores[0].operands[-1] is fn.params[1].value
    assert stores[1].operands[-1] is not fn.params[1].value


def test_loop_carried_values_never_changed() -> None:
    def build() -> Function:
        fn, b, (out, x, n) = function(ArrayType(INT32, 1), INT32, INT32)
        zero, one = b.const(0, INT32), b.const(1, INT32)

        def body(i, kept, reset, acc):  # type: ignore[no-untyped-def]
            return [kept, x, b.bin("add", acc, kept)]

        kept, reset, acc = for_(b, zero, n, one, [x, x, zero], body)
        (w, k) = while_(b, [zero, n], lambda i, k: b.cmp("lt", i, k),
                        lambda i, k: [b.bin("add", i, one), k])  # fmt: skip
        for j, v in enumerate((kept, reset, acc, w, k)):
            store(b, out, j, v)
        return fn

    fn = same_behaviour(build, copyprop, [[np.zeros(5, np.int32), 7, n] for n in (0, 3)])
    stores = [op for op in fn.body.ops if op.opcode == "store"]
    x, n = fn.params[1].value, fn.params[2].value
    assert [s.operands[-1] for s in stores][:2] == [x, x]
    assert stores[4].operands[-1] is n
    loop = next(op for op in fn.body.ops if op.opcode == "for")
    assert uses(fn, loop.regions[0].args[1]) == 0  # `kept` is read as x inside the body


def test_loop_carried_values_that_are_their_start_or_themselves_on_every_path() -> None:
    # the exception state a range loop carries once the bounds pass proved its checks: every
    # path of the body yields the flag's start (False) or the flag itself (an `if` of them,
    # nested); one path that yields anything else keeps the value carried
    def build() -> Function:
        fn, b, (out, n, c) = function(ArrayType(INT32, 1), INT32, BOOL)
        zero, one = b.const(0, INT32), b.const(1, INT32)

        def body(i, flag, other):  # type: ignore[no-untyped-def]
            inner = if_(b, c, lambda: [zero], lambda: [flag], [INT32])[0]
            (same,) = if_(b, b.cmp("lt", i, one), lambda: [flag], lambda: [inner], [INT32])
            (moved,) = if_(b, c, lambda: [other], lambda: [b.bin("add", other, one)], [INT32])
            b.op("store", [out, i, same])
            return [same, moved]

        flag, other = for_(b, zero, n, one, [zero, zero], body)
        store(b, out, 0, flag)
        store(b, out, 1, other)
        return fn

    args = [[np.zeros(4, np.int32), n, c] for n in (0, 3) for c in (True, False)]
    fn = same_behaviour(build, copyprop, args)
    loop = next(op for op in fn.body.ops if op.opcode == "for")
    zero = loop.operands[3]
    stores = [op for op in fn.body.ops if op.opcode == "store"]
    assert stores[0].operands[-1] is zero
    assert stores[1].operands[-1] is loop.results[1]
    assert uses(fn, loop.regions[0].args[1]) == 0  # the flag is read as its start inside


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_behave_the_same(seed: int) -> None:
    same_behaviour(random_function(seed), copyprop, random_inputs(random.Random(seed), 4))
