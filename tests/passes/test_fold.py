"""Constant folding: exact semantics of docs/semantics.md, identities, known control flow."""

from __future__ import annotations

import random

import numpy as np
import pytest

from simt.ir import Function, Value, format_function, verify
from simt.passes.fold import fold
from simt.types import BOOL, FLOAT32, FLOAT64, INT32, INT64, UINT32, ArrayType, Scalar

from .ir_eval import (
    count,
    evaluate,
    for_,
    function,
    if_,
    random_function,
    random_inputs,
    same_behaviour,
    store,
    while_,
)


def folded_value(t: Scalar, make) -> object:  # type: ignore[no-untyped-def]
    """Build `out[0] = make(b)` over type `t`, fold, and return the stored constant."""
    fn, b, (out,) = function(ArrayType(t, 1))
    store(b, out, 0, make(b))
    fold(fn)
    verify(fn)
    st = fn.body.ops[-1]
    assert st.opcode == "store"
    value = st.operands[-1]
    (op,) = [o for o in fn.body.ops if value in o.results]
    assert op.opcode == "const", format_function(fn)
    return op.attrs["value"]


@pytest.mark.parametrize(
    "t, name, a, b, want",
    [
        (INT32, "add", 2**31 - 1, 1, -(2**31)),
        (INT32, "mul", 65536, 65536, 0),
        (INT32, "sub", -(2**31), 1, 2**31 - 1),
        (UINT32, "sub", 0, 1, 2**32 - 1),
        (INT64, "add", 2**63 - 1, 1, -(2**63)),
        (INT32, "floordiv", -7, 2, -4),
        (INT32, "mod", -7, 2, 1),
        (INT32, "mod", 7, -2, -1),
        (INT32, "floordiv", 7, 0, 0),
        (INT32, "mod", 7, 0, 0),
        (INT32, "floordiv", -(2**31), -1, -(2**31)),
        (INT32, "pow", 3, 4, 81),
        (INT32, "pow", 2, -1, 0),
        (INT32, "pow", -1, -3, -1),
        (INT32, "pow", 2, 31, -(2**31)),
        (INT32, "shl", 1, 33, 2),
        (INT32, "shr", -8, 1, -4),
        (UINT32, "shr", 2**32 - 8, 1, 2**31 - 4),
        (INT32, "min", -3, 2, -3),
        (FLOAT32, "floordiv", -7.0, 2.0, -4.0),
        (FLOAT32, "mod", -7.0, 2.0, 1.0),
        (FLOAT64, "div", 1.0, 4.0, 0.25),
        (BOOL, "xor", True, True, False),
    ],
)
def test_bin_follows_the_semantics(
    t: Scalar, name: str, a: object, b: object, want: object
) -> None:
    got = folded_value(t, lambda bl: bl.bin(name, bl.const(a, t), bl.const(b, t)))
    assert got == want and type(got) is type(want)


def test_float32_folds_in_float32() -> None:
    got = folded_value(
        FLOAT32, lambda b: b.bin("add", b.const(0.1, FLOAT32), b.const(0.2, FLOAT32))
    )
    assert got == float(np.float32(0.1) + np.float32(0.2))
    got = folded_value(FLOAT32, lambda b: b.bin("add", b.const(16777216.0, FLOAT32),
                                                 b.const(1.0, FLOAT32)))  # fmt: skip
    assert got == 16777216.0


@pytest.mark.parametrize(
    "src, dst, a, want",
    [
        (FLOAT32, INT32, -2.7, -2),
        (FLOAT64, INT32, 2.9, 2),
        (INT64, INT32, 2**32 + 5, 5),
        (INT32, UINT32, -1, 2**32 - 1),
        (INT32, BOOL, 7, True),
        (BOOL, INT32, True, 1),
        (INT32, FLOAT32, 16777217, 16777216.0),
        (FLOAT64, FLOAT32, 0.1, float(np.float32(0.1))),
    ],
)
def test_casts_of_constants(src: Scalar, dst: Scalar, a: object, want: object) -> None:
    got = folded_value(dst, lambda b: b.op("cast", [b.const(a, src)], [dst]).result)
    assert got == want and type(got) is type(want)


@pytest.mark.parametrize(
    "t, name, a, b",
    [
        (FLOAT32, "div", 1.0, 0.0),  # would be inf
        (FLOAT32, "mod", 1.0, 0.0),  # would be NaN
        (FLOAT32, "mul", 1e30, 1e30),  # overflows float32
    ],
)
def test_non_finite_results_are_left_to_the_backend(
    t: Scalar, name: str, a: float, b: float
) -> None:
    fn, bl, (out,) = function(ArrayType(t, 1))
    store(bl, out, 0, bl.bin(name, bl.const(a, t), bl.const(b, t)))
    assert count(fold(fn), "bin") == 1


def test_out_of_range_float_to_int_is_not_folded() -> None:
    fn, b, (out,) = function(ArrayType(INT32, 1))
    store(b, out, 0, b.op("cast", [b.const(3e9, FLOAT64)], [INT32]).result)
    assert count(fold(fn), "cast") == 1


def test_math_is_folded_and_rounded_to_the_result_type() -> None:
    got = folded_value(FLOAT32, lambda b: b.op("math", [b.const(2.0, FLOAT32)], [FLOAT32],
                                                fn="sqrt").result)  # fmt: skip
    assert got == float(np.float32(np.sqrt(2.0)))
    got = folded_value(BOOL, lambda b: b.op("math", [b.const(2.0, FLOAT32)], [BOOL],
                                             fn="isnan").result)  # fmt: skip
    assert got is False


def identity_fn(t: Scalar, name: str, c: object, left: bool = False) -> Function:
    fn, b, (out, x) = function(ArrayType(t, 1), t)
    k = b.const(c, t)
    store(b, out, 0, b.bin(name, k, x) if left else b.bin(name, x, k))
    return fn


@pytest.mark.parametrize(
    "t, name, c, left, gone",
    [
        (INT32, "add", 0, False, True),
        (INT32, "add", 0, True, True),
        (INT32, "mul", 1, False, True),
        (INT32, "mul", 0, True, True),
        (INT64, "and", 0, False, True),
        (UINT32, "and", 2**32 - 1, False, True),
        (INT32, "or", 0, False, True),
        (INT32, "shl", 0, False, True),
        (INT32, "floordiv", 1, False, True),
        (BOOL, "and", True, False, True),
        (BOOL, "or", True, False, True),
        (FLOAT32, "mul", 1.0, False, True),
        (FLOAT32, "add", -0.0, False, True),
        (FLOAT32, "sub", 0.0, False, True),
        (FLOAT32, "add", 0.0, False, False),  # -0.0 + 0.0 is 0.0
        (FLOAT32, "mul", 0.0, False, False),  # NaN * 0, -1 * 0
        (FLOAT64, "sub", -0.0, False, False),
        (INT32, "mul", 2, False, False),
    ],
)
def test_identities_exact_for_the_type(
    t: Scalar, name: str, c: object, left: bool, gone: bool
) -> None:
    fn = fold(identity_fn(t, name, c, left))
    verify(fn)
    assert count(fn, "bin") == (0 if gone else 1)
    vals = {
        INT32: [0, 1, -5, 2**31 - 1, -(2**31)], INT64: [0, -1, 2**40], UINT32: [0, 7, 2**32 - 1],
        BOOL: [True, False], FLOAT32: [0.0, -0.0, 1.5, float("nan"), float("inf")],
        FLOAT64: [0.0, -0.0, -2.5],
    }[t]  # fmt: skip
    inputs = [[np.zeros(1, t.np), v] for v in vals]
    after = same_behaviour(lambda: identity_fn(t, name, c, left), fold, inputs)
    if t.is_float:  # the sign of zero matters: compare bits
        for v in vals:
            outs = []
            for f in (identity_fn(t, name, c, left), after):
                out = np.zeros(1, t.np)
                evaluate(f, [out, v])
                outs.append(out.view(np.uint8).tobytes())
            assert outs[0] == outs[1]


def test_same_operand_identities() -> None:
    fn, b, (out, bo, x, f) = function(ArrayType(INT32, 1), ArrayType(BOOL, 1), INT32, FLOAT32)
    store(b, out, 0, b.bin("sub", x, x))
    store(b, out, 1, b.bin("xor", x, x))
    store(b, bo, 0, b.cmp("eq", x, x))
    store(b, bo, 1, b.cmp("eq", f, f))  # NaN != NaN: stays
    store(b, out, 2, b.un("neg", b.un("neg", x)))
    fold(fn)
    verify(fn)
    assert count(fn, "bin") == 0 and count(fn, "cmp") == 1 and count(fn, "un") == 1


def test_select_with_known_condition() -> None:
    fn, b, (out, x, y) = function(ArrayType(INT32, 1), INT32, INT32)
    store(b, out, 0, b.select(b.const(False, BOOL), x, y))
    fold(fn)
    verify(fn)
    assert count(fn, "select") == 0
    assert fn.body.ops[-1].operands[-1] is y


def known_if(cond: bool) -> Function:
    fn, b, (out, x) = function(ArrayType(INT32, 1), INT32)

    def then() -> list:  # type: ignore[type-arg]
        store(b, out, 1, x)
        return [b.bin("add", x, b.const(1, INT32))]

    def other() -> list:  # type: ignore[type-arg]
        return [b.bin("mul", x, b.const(3, INT32))]

    (r,) = if_(b, b.cmp("lt", b.const(1, INT32), b.const(2, INT32)) if cond else
               b.const(False, BOOL), then, other, [INT32])  # fmt: skip
    store(b, out, 0, r)
    return fn


@pytest.mark.parametrize("cond", [True, False])
def test_if_with_known_condition_is_replaced_by_its_branch(cond: bool) -> None:
    inputs = [[np.zeros(2, np.int32), v] for v in (0, 5, -7)]
    fn = same_behaviour(lambda: known_if(cond), fold, inputs)
    assert count(fn, "if") == 0
    assert count(fn, "store") == (2 if cond else 1)
    assert all(op.loc is not None for op in fn.body.ops)


def test_loops_that_never_run() -> None:
    def build() -> Function:
        fn, b, (out,) = function(ArrayType(INT32, 1))
        i0 = b.const(0, INT32)
        (s,) = for_(b, b.const(5, INT32), b.const(5, INT32), b.const(1, INT32), [i0],
                    lambda i, c: [b.bin("add", c, i)])  # fmt: skip

        def cond(c: object) -> object:
            store(b, out, 1, b.const(9, INT32))  # the condition runs once
            return b.cmp("gt", b.const(1, INT32), b.const(2, INT32))

        (w,) = while_(b, [s], cond, lambda c: [b.bin("add", c, c)])
        store(b, out, 0, w)
        return fn

    fn = same_behaviour(build, fold, [[np.full(2, 7, np.int32)]])
    assert count(fn, "for") == 0 and count(fn, "while") == 0 and count(fn, "store") == 2


def test_unknown_values_stay() -> None:
    fn, b, (out, x) = function(ArrayType(INT32, 1), INT32)
    store(b, out, 0, b.bin("add", x, b.const(3, INT32)))
    text = format_function(fold(fn))
    assert "bin.add" in text


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_behave_the_same(seed: int) -> None:
    same_behaviour(random_function(seed), fold, random_inputs(random.Random(seed), 4))


def test_shape_of_a_known_array_and_asserts_that_cannot_fail() -> None:
    fn, b, (out,) = function(ArrayType(INT32, 1))
    sh = b.op("alloc", [], [ArrayType(INT32, 2, "shared", (4, 8))]).result
    store(b, out, 0, b.op("shape", [sh], [INT32], dim=1).result)
    b.op("assert", [b.cmp("lt", b.const(1, INT32), b.const(2, INT32))], [], msg="never")
    b.op("assert", [b.const(False, BOOL)], [], msg="always")
    fold(fn)
    verify(fn)
    assert count(fn, "shape") == 0 and count(fn, "assert") == 1
    assert 8 in [op.attrs.get("value") for op in fn.body.ops]


def test_an_if_of_a_few_pure_ops_becomes_selects() -> None:
    def build() -> Function:
        fn, b, (out, bo, x, y) = function(ArrayType(INT32, 1), ArrayType(BOOL, 1), INT32, INT32)
        c = b.cmp("lt", x, y)
        r, s = if_(b, c, lambda: [b.bin("add", x, y), y], lambda: [y, y], [INT32, INT32])
        store(b, out, 0, r)
        store(b, out, 1, s)
        # `c and x > 0`, `c or x > 0` as the front end writes them
        (a,) = if_(b, c, lambda: [b.cmp("gt", x, b.const(0, INT32))],
                   lambda: [b.const(False, BOOL)], [BOOL])  # fmt: skip
        (o,) = if_(b, c, lambda: [b.const(True, BOOL)],
                   lambda: [b.cmp("gt", x, b.const(0, INT32))], [BOOL])  # fmt: skip
        store(b, bo, 0, a)
        store(b, bo, 1, o)
        return fn

    inputs = [
        [np.zeros(2, np.int32), np.zeros(2, bool), x, y] for x, y in ((1, 2), (2, 1), (-3, 3))
    ]
    fn = same_behaviour(build, fold, inputs)
    assert count(fn, "if") == 0 and count(fn, "select") == 1
    logic = [op.attrs["op"] for op in fn.body.ops if op.opcode == "bin" and op.result.type == BOOL]
    assert logic == ["and", "or"]


def test_an_if_with_effects_or_loads_stays() -> None:
    fn, b, (out, x) = function(ArrayType(INT32, 1), INT32)
    c = b.cmp("lt", x, b.const(0, INT32))
    if_(b, c, lambda: [b.op("load", [out, x], [INT32]).result], lambda: [x], [INT32])

    def then() -> list:  # type: ignore[type-arg]
        store(b, out, 0, x)
        return []

    if_(b, c, then, lambda: [], [])
    assert count(fold(fn), "if") == 2


def test_more_integer_identities() -> None:
    fn, b, (out, x) = function(ArrayType(INT32, 1), INT32)
    zero = b.const(0, INT32)
    for j, v in enumerate(
        [
            b.bin("floordiv", zero, x),
            b.bin("mod", zero, x),
            b.bin("mod", x, x),
            b.bin("shl", zero, x),
        ]
    ):
        store(b, out, j, v)
    fold(fn)
    verify(fn)
    assert count(fn, "bin") == 0


@pytest.mark.parametrize("t", [INT32, UINT32, INT64])
def test_integer_constants_reassociate(t: Scalar) -> None:
    def build() -> Function:
        fn, b, (out, x) = function(ArrayType(t, 1), t)
        three = b.const(3, t)
        store(b, out, 0, b.bin("sub", b.bin("add", x, three), three))  # x
        store(b, out, 1, b.bin("sub", b.bin("add", three, x), b.const(5, t)))  # x - 2
        store(b, out, 2, b.bin("add", b.bin("sub", b.bin("add", x, three), three), three))
        return fn

    vals = {INT32: [0, -1, 2**31 - 1, -(2**31)], UINT32: [0, 1, 2**32 - 1], INT64: [0, -(2**63)]}
    fn = same_behaviour(build, fold, [[np.zeros(3, t.np), v] for v in vals[t]])
    stores = [op for op in fn.body.ops if op.opcode == "store"]
    x = fn.params[1].value
    assert stores[0].operands[-1] is x
    defs = {r.id: op for op in fn.body.ops for r in op.results}
    second = defs[stores[1].operands[-1].id]
    assert second.attrs["op"] == "sub" and second.operands[0] is x
    assert defs[second.operands[1].id].attrs["value"] == 2
    third = defs[stores[2].operands[-1].id]
    assert third.operands[0] is x and defs[third.operands[1].id].attrs["value"] == 3


def test_float_constants_do_not_reassociate() -> None:
    fn, b, (out, x) = function(ArrayType(FLOAT32, 1), FLOAT32)
    three = b.const(3.0, FLOAT32)
    store(b, out, 0, b.bin("sub", b.bin("add", x, three), three))  # not x: rounding
    assert count(fold(fn), "bin") == 2


def _negation_fn(t: Scalar) -> Function:
    """`out[0] = (x * -1) + y; out[1] = y + (-1 * x)`."""
    fn, b, (out, x, y) = function(ArrayType(t, 1), t, t)
    m1 = b.const(-1.0 if t.is_float else -1, t)
    store(b, out, 0, b.bin("add", b.bin("mul", x, m1), y))
    store(b, out, 1, b.bin("add", y, b.bin("mul", m1, x)))
    return fn


@pytest.mark.parametrize("t", [FLOAT32, FLOAT64, INT32, INT64])
def test_multiplying_by_minus_one_is_a_subtraction(t: Scalar) -> None:
    fn = fold(_negation_fn(t))
    verify(fn)
    text = format_function(fn)
    assert "bin.mul" not in text and text.count("bin.sub") == 2, text
    big = 2**31 - 1 if t == INT32 else 2**40
    vals = [0.0, -0.0, 1.5, float("inf"), float("nan")] if t.is_float else [0, -big - 1, big]
    inputs = [[np.zeros(2, t.np), x, y] for x in vals for y in vals]
    same_behaviour(lambda: _negation_fn(t), fold, inputs)


def test_an_if_result_every_branch_yields_as_one_constant_is_that_constant() -> None:
    """A flag no branch sets (the exception state of a check the bounds pass proved) becomes
    a constant, and the `if` that only carried it goes: `if raised: <record>` disappears."""
    fn, b, (x, out) = function(INT32, ArrayType(INT32, 1))
    c = b.cmp("lt", x, b.const(3, INT32))

    def side(k: int) -> list[Value]:  # a branch with an effect: not made a select
        store(b, out, 2, b.const(k, INT32))
        return [b.const(False, BOOL), b.const(k, INT32)]

    flag, v = if_(b, c, lambda: side(1), lambda: side(2), [BOOL, INT32])
    if_(b, flag, lambda: (store(b, out, 0, v), [])[1], lambda: [], [])
    store(b, out, 1, v)
    fold(fn)
    verify(fn)
    ifs = [op for op in fn.body.ops if op.opcode == "if"]
    assert len(ifs) == 1 and len(ifs[0].results) == 1  # v's; the flag's `if` is gone
    for xv, want in ((0, 1), (5, 2)):
        arrs = [np.zeros(3, np.int32)]
        evaluate(fn, [xv, *arrs], {})
        assert arrs[0].tolist() == [0, want, want]


def test_x_and_not_x_or_y_is_false() -> None:
    """A second IndexError check of an element already checked: `take = fails and not
    raised`, where `raised` is `fails or ...`, folds to False (its state goes)."""
    fn, b, (x, y, out) = function(INT32, INT32, ArrayType(INT32, 1))
    fails = b.cmp("lt", x, b.const(0, INT32))
    other = b.cmp("gt", y, b.const(5, INT32))
    raised = b.bin("or", other, fails)
    take = b.bin("and", fails, b.un("not", raised))
    b.op("store", [out, b.const(0, INT32), b.select(take, x, y)])
    fold(fn)
    verify(fn)
    assert not any(op.opcode == "select" for op in fn.body.ops)
    for xv, yv in ((-1, 7), (3, 2)):
        arrs = [np.zeros(1, np.int32)]
        evaluate(fn, [xv, yv, *arrs], {})
        assert arrs[0][0] == yv


def test_zero_and_minus_zero_from_two_branches_stay_apart() -> None:
    """`same_results` folds an `if` result every branch yields as one constant, but 0.0 and
    -0.0 are equal and still two results (1 / x tells them apart)."""
    fn, b, (x, out) = function(INT32, ArrayType(FLOAT32, 1))
    c = b.cmp("lt", x, b.const(3, INT32))

    def side(k: float) -> list[Value]:  # a branch with an effect: not made a select
        store(b, out, 1, b.const(k, FLOAT32))
        return [b.const(k, FLOAT32)]

    (v,) = if_(b, c, lambda: side(0.0), lambda: side(-0.0), [FLOAT32])
    store(b, out, 0, v)
    fold(fn)
    verify(fn)
    for xv, sign in ((0, 1.0), (5, -1.0)):
        arrs = [np.ones(2, np.float32)]
        evaluate(fn, [xv, *arrs], {})
        assert np.copysign(1.0, arrs[0][0]) == sign
