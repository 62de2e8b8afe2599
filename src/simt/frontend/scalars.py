"""Typing and converting scalars: the number rules of docs/semantics.md in one place."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import types as T
from ..ir import Builder, Value
from .values import Known, V, is_number, scalar_type


def known_type(value: Any, other: T.Scalar | None, fp64: bool) -> T.Scalar:
    """The type a known number takes next to a typed operand of type `other` (None: alone).

    A literal takes the other operand's type, except that a float next to an int gives the
    default float. NumPy scalars known at compile time (items of a known array, say) count as
    literals too: a float64 weight matrix must not turn float32 image code into float64.
    """
    if other is None:
        return T.literal_type(value, fp64)
    if isinstance(value, (bool, np.bool_)):
        return other if not other.is_bool else T.BOOL
    if isinstance(value, (int, np.integer)):
        if other.is_bool:
            return T.literal_type(value, fp64)
        if other.is_int and not holds(other, int(value)):
            # Python's value is kept: a constant int32 cannot hold makes the operation int64,
            # as the same value passed as an argument does (docs/semantics.md)
            return T.promote(other, T.INT64 if -(2**63) <= int(value) < 2**63 else T.UINT64)
        return other
    # a Python float
    return other if other.is_float else T.float_type(fp64)


def holds(t: T.Scalar, value: int) -> bool:
    """Whether a known integer keeps its value as a constant of integer type `t` (an unsigned
    type also takes the negative numbers int32 holds, wrapping them as C does: `x & -2`)."""
    t = T.compute_type(t)
    if t.kind == "i":
        return -(1 << (t.bits - 1)) <= value < 1 << (t.bits - 1)
    return -(1 << 31) <= value < 1 << t.bits


def wrap_int(value: Any, t: T.Scalar) -> int:
    """A known number as integer type `t` holds it: floats truncate toward zero, ints wrap
    modulo 2**bits, as at run time. (A non-finite float's conversion is unspecified: 0.)"""
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            return 0
        value = int(value)  # truncation toward zero, as a cast does
    v = int(value) & ((1 << t.bits) - 1)
    if t.kind == "i" and v >= 1 << (t.bits - 1):
        v -= 1 << t.bits
    return v


def const_value(value: Any, t: T.Scalar) -> int | float | bool:
    """`value` converted to a Python number of type `t`, wrapping ints as the device does."""
    if t.is_bool:
        return bool(value)
    if t.is_int:
        return wrap_int(value, t)
    if t == T.FLOAT32:
        return float(np.float32(value))
    return float(value)


def coerce(b: Builder, v: V, t: T.Scalar) -> Value:
    """`v` as a typed value of type `t`: a constant for a known number, else a cast."""
    if isinstance(v, Known):
        assert is_number(v.value), v
        return b.const(const_value(v.value, t), t)
    assert isinstance(v, Value) and isinstance(v.type, T.Scalar), v
    if v.type == t:
        return v
    if t.is_bool:
        zero = b.const(const_value(0, v.type), v.type)
        return b.cmp("ne", v, zero)
    return b.cast(v, t)


def narrow(b: Builder, v: V, t: T.Scalar) -> Value:
    """`v` converted to the storage-only type `t` (8- or 16-bit int, float16), through its
    compute type: ints wrap, a float becomes an int by truncation first (as NumPy's astype),
    float16 rounds to nearest."""
    c = T.compute_type(t)
    x = coerce(b, v, c)
    return b.cast(x, t)


def materialise(b: Builder, v: V, fp64: bool, int64: bool = False) -> Value:
    """`v` as a typed value; a known number takes its literal type (a Python int is int64
    under Numba's typing, `int64`)."""
    if isinstance(v, Known):
        return coerce(b, v, T.literal_type(v.value, fp64, int64))
    assert isinstance(v, Value)
    return v


def arith_type(a: T.Scalar, b: T.Scalar) -> T.Scalar:
    """The type of an arithmetic operator on typed operands of types `a` and `b`."""
    return T.promote(a, b)


def numba_int(op: str, a: T.Scalar, b: T.Scalar) -> T.Scalar:
    """Numba's type for integer operator `op` on operands of integer (or bool) types `a` and
    `b` (a Python int counting as int64): every result is 64 bits wide, uint64 when both
    operands are unsigned, else int64; a shift keeps the signedness of its left operand.
    (Numba's rule, `numba.core.typing`: integer arithmetic is done at least in the machine's
    int; `simt.cuda.jit` follows it where the device has 64-bit integers.)"""
    if op in ("shl", "shr"):
        return T.UINT64 if a.is_int and a.kind == "u" else T.INT64
    unsigned = all(t.is_int and t.kind == "u" for t in (a, b))
    return T.UINT64 if unsigned else T.INT64


def merge_type(a: T.Scalar, b: T.Scalar) -> T.Scalar:
    """The type a variable takes when two paths give it values of types `a` and `b`."""
    if a == b:
        return a
    return T.promote(a, b)


def merge_scalar(a: V, b: V, fp: bool) -> T.Scalar:
    """The one type two values meet in (a conditional expression's branches, `np.where`'s
    choices): the promotion of their types, a known number taking the other's type."""
    ta, tb = scalar_type(a), scalar_type(b)
    if ta is None and tb is None:
        return T.literal_type(a.value, fp)  # type: ignore[union-attr]
    if ta is None:
        return known_type(a.value, tb, fp)  # type: ignore[union-attr]
    if tb is None:
        return known_type(b.value, ta, fp)  # type: ignore[union-attr]
    return ta if ta == tb else T.promote(ta, tb)
