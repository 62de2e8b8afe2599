"""How WGSL spells simt's scalar types and values: type names, the storage type of an array's
elements (no bool in storage; 8/16-bit elements of global arrays packed into u32 words),
literals and conversions between types (with the drivers' sign-extension bugs avoided).
Shared by the WGSL renderer, its storage emulation and its module layout."""

from __future__ import annotations

import math

import numpy as np

from ..types import FLOAT32, INT32, INT64, UINT32, UINT64, Scalar, compute_type

WGSL_TYPES = {"bool": "bool", "int32": "i32", "uint32": "u32", "int64": "i64",
              "float32": "f32", "float64": "f64", "uint64": "u64",
              # storage-only types are held in their compute type, normalised (an int8 value
              # is an i32 in [-128, 127], a float16 one an f32 that float16 represents)
              "int8": "i32", "uint8": "i32", "int16": "i32", "uint16": "i32",
              "float16": "f32"}  # fmt: skip

# Elements per 32-bit word of the element types WGSL has no storage for: global arrays of them
# are packed into u32 words (`packed_access`).
PACKED = {"int8": 4, "uint8": 4, "int16": 2, "uint16": 2, "float16": 2}


def wgsl_type(t: Scalar) -> str:
    """The WGSL spelling of a scalar type."""
    return WGSL_TYPES[t.name]


def storage_type(t: Scalar) -> str:
    """The element type an array of `t` has in WGSL memory (no bool in storage; 8/16-bit
    elements of a global array are packed into u32 words)."""
    return "u32" if t.is_bool or t.name in PACKED else wgsl_type(t)


def literal(value: int | float | bool, t: Scalar) -> str:
    """A WGSL literal of type `t` (an expression for values that have no literal)."""
    if t.is_bool:
        return "true" if value else "false"
    if t.is_storage:  # held in its compute type, normalised as a store would
        with np.errstate(all="ignore"):
            narrow = np.asarray(value).astype(t.np)[()]
        return literal(narrow.item(), compute_type(t))
    if t == INT32:
        v = (
            int(np.int64(int(value)).astype(np.int32))
            if not -(2**31) <= int(value) < 2**31
            else int(value)
        )
        return "i32(-2147483648)" if v == -(2**31) else f"{v}i"
    if t == UINT32:
        return f"{int(value) & 0xFFFFFFFF}u"
    if t == INT64:
        v = int(value)
        return "i64(-9223372036854775807li - 1li)" if v == -(2**63) else f"{v}li"
    if t == UINT64:
        return f"{int(value) & 0xFFFFFFFFFFFFFFFF}lu"
    f = float(value)
    if t == FLOAT32:
        with np.errstate(over="ignore"):  # a float32 literal out of range is infinite
            f = float(np.float32(f))
    if math.isfinite(f):
        # the shortest text that reads back as the same float32 / float64 (`0.1f`)
        return f"{str(np.float32(f))}f" if t == FLOAT32 else f"{f!r}lf"
    bits = "0x7fc00000u" if math.isnan(f) else ("0x7f800000u" if f > 0 else "0xff800000u")
    return f"bitcast<f32>({bits})" if t == FLOAT32 else f"f64(bitcast<f32>({bits}))"


def zero(t: Scalar) -> str:
    """The literal zero of type `t`."""
    return literal(0, t)


def convert(a: str, s: Scalar, t: Scalar) -> str:
    """The expression converting `a` of type `s` to type `t` (neither storage-only)."""
    if t.is_bool:
        expr = f"{a} != {zero(s)}"
    elif s == UINT32 and t.bits == 64 and t.is_int:
        # naga sign-extends u32 -> i64 (as if from i32): keep the low 32 bits only
        expr = f"{wgsl_type(t)}({a}) & {literal(0xFFFFFFFF, t)}"
    elif s == INT32 and t == UINT64:  # sign-extended, then the bits (as C and NumPy)
        expr = f"u64((i64({a}) << 32u) >> 32u)"
    elif s.is_bool and t.bits == 64:
        expr = f"select({zero(t)}, {literal(1, t)}, {a})"
    elif s == INT32 and t == INT64:
        # Sign extension written as shifts, not a bare i64(x): with naga (wgpu-native) on
        # Mesa 22.3 lavapipe, a signed i64 comparison whose operand is i64(an i32) comes
        # out wrong (`>` always true, `<` always false). See docs/backends.md.
        expr = f"(i64({a}) << 32u) >> 32u"
    else:
        expr = f"{wgsl_type(t)}({a})"
    return expr
