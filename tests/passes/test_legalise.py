"""passes.legalise: what a target lacks, refused before rendering, from the target's data; its
device's limits; what its compilers get wrong, rewritten in the IR."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import simt
from simt.backends.common import describe_failure
from simt.ir import Block, Builder, Function, Param, Value, format_function, verify, walk
from simt.ir.failures import LOOP_BUDGET
from simt.ir.ops import BIND, EXACT, HIDE
from simt.passes.legalise import (
    Target,
    check,
    legalise,
    misread_int,
    shared_bytes,
    storage_buffers,
)
from simt.types import BOOL, FLOAT32, FLOAT64, INT32, INT64, SHARED, ArrayType, Scalar, Type

from .ir_eval import EvalAssert, evaluate, for_, function, same_behaviour, while_
from .ir_eval import store as store_

# a made-up target: the pass reads what it lacks, never its name
GPU = Target("gpu", language="GL", device="the test device")


def make(types: list[Type], body: Callable[..., None]) -> Function:
    block = Block()
    b = Builder(block)
    params = [Param(f"p{i}", i, Value(t, f"p{i}")) for i, t in enumerate(types)]
    body(b, *[p.value for p in params])
    fn = Function("k", params, block, filename="test.py")
    verify(fn)
    return fn


def store(b: Builder, a: Value, v: Value) -> None:
    b.op("store", [a, b.const(0, INT32), v])


def math_of(name: str, t: Scalar) -> Function:
    def body(b: Builder, a: Value, x: Value) -> None:
        store(b, a, b.op("math", [x], [t], fn=name).result)

    return make([ArrayType(t, 1), t], body)


def test_a_target_lacking_nothing_passes_everything_and_the_ir_is_unchanged() -> None:
    fn = math_of("exp", FLOAT64)
    before = format_function(fn)
    check(fn, GPU)
    assert format_function(fn) == before


def test_missing_types_are_refused_naming_the_target_and_device() -> None:
    fn = math_of("sqrt", FLOAT64)
    with pytest.raises(simt.CompileError, match="float64 is not available on gpu with the test"):
        check(fn, Target("gpu", device="the test device", float64=False))

    def body(b: Builder, a: Value, x: Value) -> None:
        store(b, a, b.cast(x, INT32))

    fn = make([ArrayType(INT32, 1), INT64], body)
    check(fn, GPU)
    with pytest.raises(simt.CompileError, match="int64 is not available on gpu"):
        check(fn, Target("gpu", int64=False))


def test_math_the_language_lacks_or_computes_in_float32() -> None:
    lacks = Target("gpu", language="GL", missing_math=frozenset({"expm1"}),
                   float32_only_math=frozenset({"exp"}))  # fmt: skip
    with pytest.raises(simt.CompileError, match=r"math.expm1 is not available on gpu \(GL has"):
        check(math_of("expm1", FLOAT32), lacks)
    with pytest.raises(simt.CompileError, match="GL computes it in float32 precision"):
        check(math_of("exp", FLOAT64), lacks)
    check(math_of("exp", FLOAT32), lacks)  # float32 operands are what it computes


def test_atomic_width_and_known_out_of_bounds_index() -> None:
    def atomic(b: Builder, a: Value) -> None:
        b.op("atomic", [a, b.const(0, INT32), b.const(1, INT64)], [INT64], op="add")

    fn = make([ArrayType(INT64, 1)], atomic)
    check(fn, GPU)
    with pytest.raises(simt.CompileError, match="GL atomics are 32-bit integers"):
        check(fn, Target("gpu", language="GL", atomic_bits=32))

    def known(b: Builder, out: Value) -> None:
        sh = b.op("alloc", [], [ArrayType(FLOAT32, 2, SHARED, (4, 4))]).result
        v = b.op("load", [sh, b.const(1, INT32), b.const(4, INT32)], [FLOAT32]).result
        store(b, out, v)

    fn = make([ArrayType(FLOAT32, 1)], known)
    check(fn, GPU)
    with pytest.raises(simt.CompileError, match=r"index \[1, 4\] is out of bounds"):
        check(fn, Target("gpu", known_index_in_bounds=True))


# ---------------------------------------------------------------- the device's limits
def test_storage_buffers_and_workgroup_memory_past_the_devices_limits() -> None:
    def body(b: Builder, x: Value, y: Value, z: Value) -> None:
        store(b, z, b.bin("add", b.op("load", [x, b.const(1, INT32)], [FLOAT32]).result,
                          b.op("load", [y, b.const(1, INT32)], [FLOAT32]).result))  # fmt: skip

    fn = make([ArrayType(FLOAT32, 1)] * 3, body)
    assert storage_buffers(fn) == 4  # three arrays and the failure records of checked accesses
    check(fn, Target("gpu", storage_buffers=4))
    with pytest.raises(simt.CompileError, match="needs 4 storage buffers.*binds at most 3"):
        check(fn, Target("gpu", device="the test device", storage_buffers=3))
    fn.boundscheck = False
    assert storage_buffers(fn) == 3  # no access can fail

    def tile(b: Builder, out: Value) -> None:
        sh = b.op("alloc", [], [ArrayType(BOOL, 2, SHARED, (16, 16))]).result
        b.op("store", [sh, b.const(0, INT32), b.const(0, INT32), b.const(True, BOOL)])

    fn = make([ArrayType(FLOAT32, 1)], tile)
    assert shared_bytes(fn) == 256 and shared_bytes(fn, 4) == 1024
    check(fn, Target("gpu", workgroup_bytes=1024, shared_word=4))
    with pytest.raises(simt.CompileError, match="uses 1024 bytes of shared memory"):
        check(fn, Target("gpu", workgroup_bytes=1023, shared_word=4))


# ---------------------------------------------------------------- the device's rewrites
def _loops() -> Function:
    """out[0] = sum of range(p1, p2, p3) (step of unknown sign); then a while that halves p2."""
    fn, b, (out, lo, hi, step) = function(ArrayType(INT32, 1), INT32, INT32, INT32)
    (s,) = for_(b, lo, hi, step, [b.const(0, INT32)], lambda i, c: [b.bin("add", c, i)])
    store_(b, out, 0, s)
    (h,) = while_(b, [hi], lambda v: b.cmp("gt", v, b.const(0, INT32)),
                  lambda v: [b.bin("floordiv", v, b.const(2, INT32))])  # fmt: skip
    store_(b, out, 1, h)
    return fn


def test_loops_are_checked_after_them_on_a_device_with_a_loop_budget() -> None:
    budget = Target("gpu", loop_limit=100)
    inputs = [[np.zeros(2, np.int32), lo, hi, st]
              for lo, hi, st in ((0, 10, 1), (10, 0, -3), (5, 5, 1), (0, 7, 3), (3, -40, 2))]
    fn = same_behaviour(_loops, lambda f: legalise(f, budget), inputs)  # fmt: skip
    asserts = [op for op in walk(fn.body) if op.opcode == "assert"]
    assert len(asserts) == 2 and all(op.attrs[LOOP_BUDGET] == 100 for op in asserts)
    assert "65535" not in describe_failure(asserts[0]) and "100 loop" in describe_failure(
        asserts[0])
    text = format_function(fn)
    assert format_function(legalise(fn, budget)) == text  # a second time changes nothing
    plain = _loops()
    text = format_function(plain)
    assert format_function(legalise(plain, GPU)) == text  # no loop budget: unchanged


def test_a_loop_the_device_cut_short_fails_its_check() -> None:
    # the `for` as a device leaving it after its first iteration would: its counter's next
    # value, carried out of the loop, still passes the condition
    fn = legalise(_loops(), Target("gpu", loop_limit=100))
    loop = next(op for op in walk(fn.body) if op.opcode == "for")
    body = loop.regions[0]
    nxt = body.ops[-1].operands[-1]
    body.ops[-1].operands[-1] = loop.operands[0]  # `next` stays at the start: cut short
    with pytest.raises(EvalAssert):
        evaluate(fn, [np.zeros(2, np.int32), 0, 10, 1])
    body.ops[-1].operands[-1] = nxt
    evaluate(fn, [np.zeros(2, np.int32), 0, 10, 1])


def test_what_a_drivers_compiler_gets_wrong_is_marked_for_the_renderer() -> None:
    def body(b: Builder, a: Value, f: Value, x: Value) -> None:
        y = b.bin("mul", x, b.const(2**31, INT64))
        store(b, a, b.bin("add", y, b.const(12345678901, INT64)))
        m = b.bin("mul", f, f)  # feeds an add: EXACT
        s = b.bin("add", m, f)  # feeds nothing: as written
        z = b.const(0.0, FLOAT32)
        q = b.bin("div", s, z)  # divides by a HIDE copy of 0.0
        b.op("store", [a, b.const(1, INT32), b.cast(b.bin("add", q, z), INT64)])

    fn = make([ArrayType(INT64, 1), FLOAT32, INT64], body)
    legalise(fn, Target("gpu", hide_wide_ints=True, exact_float=True))
    verify(fn)
    consts = {op.attrs["value"]: op for op in walk(fn.body) if op.opcode == "const"}
    assert consts[2**31].attrs.get(HIDE) and not consts[12345678901].attrs.get(HIDE)
    bins = [op for op in walk(fn.body) if op.opcode == "bin" and op.result.scalar == FLOAT32]
    assert [bool(op.attrs.get(EXACT)) for op in bins] == [True, False, False, False]
    div = next(op for op in bins if op.attrs["op"] == "div")
    hidden = [op for op in walk(fn.body) if op.attrs.get(HIDE) and op.attrs["value"] == 0.0]
    assert len(hidden) == 1 and div.operands[1] is hidden[0].result  # only the divisor's use
    text = format_function(fn)
    legalise(fn, Target("gpu", hide_wide_ints=True, exact_float=True))
    assert format_function(fn) == text
    assert misread_int(2**31) and misread_int(-(2**32)) and misread_int(2**40)
    assert not misread_int(2**31 - 1) and not misread_int(2**32 + 1)


def test_a_signed_abs_is_written_with_the_irs_wrapping_subtraction() -> None:
    def build() -> Function:
        fn, b, (out, x, u) = function(ArrayType(INT64, 1), INT32, INT64)
        store_(b, out, 0, b.cast(b.un("abs", x), INT64))
        store_(b, out, 1, b.un("abs", u))
        return fn

    edges = (0, 1, -1, 7, -(2**31), 2**31 - 1)
    inputs = [[np.zeros(2, np.int64), x, u] for x in edges for u in (*edges, -(2**63))]
    fn = same_behaviour(build, lambda f: legalise(f, Target("gpu", wrapping_abs=True)), inputs)
    assert not [op for op in walk(fn.body) if op.opcode == "un"]
    assert len([op for op in walk(fn.body) if op.opcode == "select"]) == 2


def test_literals_a_compiler_would_evaluate_are_bound() -> None:
    def body(b: Builder, a: Value, x: Value) -> None:
        q = b.bin("floordiv", b.const(5, INT64), b.const(0, INT64))  # all literals: bound
        y = b.bin("add", x, b.const(7, INT64))  # with a run-time operand: a literal
        z = b.bin("shl", y, b.const(3, INT64))  # with a run-time operand: a literal
        b.op("store", [a, b.const(1, INT64), b.bin("add", q, z)])  # an index: a literal
        b.op("store", [a, b.const(2, INT32), b.const(9, INT64)])  # a stored literal: a literal

    fn = make([ArrayType(INT64, 1), INT64], body)
    legalise(fn, Target("gpu", bind_literals=True))
    verify(fn)
    marked = {op.attrs["value"]: bool(op.attrs.get(BIND)) for op in walk(fn.body)
              if op.opcode == "const"}  # fmt: skip
    assert marked == {5: True, 0: True, 7: False, 3: False, 1: False, 2: False, 9: False}
    text = format_function(fn)
    legalise(fn, Target("gpu", bind_literals=True))
    assert format_function(fn) == text
