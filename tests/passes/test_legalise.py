"""passes.legalise: what a target lacks, refused before rendering, from the target's data."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import simt
from simt.ir import Block, Builder, Function, Param, Value, format_function, verify
from simt.passes.legalise import Target, check
from simt.types import FLOAT32, FLOAT64, INT32, INT64, SHARED, ArrayType, Scalar, Type

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
