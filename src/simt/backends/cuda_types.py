"""How CUDA C++ spells simt's scalar types, values and atomics: type names (float16 as its
bits, converted by helpers), the unsigned type signed arithmetic wraps through, helper
suffixes, literals (NaN and infinities as bit patterns: the text includes no headers), and
the atomic read-modify-writes and compare-and-swaps of each element type as templates."""

from __future__ import annotations

import math

import numpy as np

from ..types import (
    BOOL,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    Scalar,
)

CTYPE: dict[Scalar, str] = {
    BOOL: "bool",
    INT32: "int",
    INT64: "long long",
    UINT32: "unsigned int",
    FLOAT32: "float",
    FLOAT64: "double",
    UINT64: "unsigned long long",
    INT8: "signed char",
    UINT8: "unsigned char",
    INT16: "short",
    UINT16: "unsigned short",
    FLOAT16: "unsigned short",  # the bits; simt_h2f / simt_f2h convert
}
# signed integers wrap through these unsigned types (signed overflow is undefined in C++)
WRAP = {INT32: "unsigned int", INT64: "unsigned long long"}
# the suffix of a helper for a type (`simt_floordiv_i32`)
SUFFIX = {INT32: "i32", INT64: "i64", UINT32: "u32", UINT64: "u64", FLOAT32: "f32",
           FLOAT64: "f64"}  # fmt: skip


def c_literal(value: int | float | bool, t: Scalar) -> str:
    """A C++ literal of type `t` (with parentheses where it is negative)."""
    if t.is_bool:
        return "true" if value else "false"
    if t.is_int:
        v = int(value)
        if t == UINT32:
            return f"{v & 0xFFFFFFFF}u"
        if t == UINT64:
            return f"{v % 2**64}ULL"
        if t == INT64:
            v = (v + 2**63) % 2**64 - 2**63
            text = f"{v}LL" if v != -(2**63) else "(-9223372036854775807LL - 1)"
        else:
            v = (v + 2**31) % 2**32 - 2**31
            text = f"{v}" if v != -(2**31) else "(-2147483647 - 1)"
        return f"({text})" if v < 0 and not text.startswith("(") else text
    f = float(value)
    if t == FLOAT32:
        if math.isnan(f):
            return "__int_as_float(0x7fffffff)"
        if math.isinf(f):
            return "__int_as_float(0x7f800000)" if f > 0 else "(-__int_as_float(0x7f800000))"
        text = str(np.float32(f))  # the shortest text that reads back as this float32
        if "e" not in text and "." not in text:
            text += ".0"
        text += "f"
    else:
        if math.isnan(f):
            return "__longlong_as_double(0x7ff8000000000000LL)"
        if math.isinf(f):
            inf = "__longlong_as_double(0x7ff0000000000000LL)"
            return inf if f > 0 else f"(-{inf})"
        text = repr(f)
        if "e" not in text and "." not in text:
            text += ".0"
    return f"({text})" if text.startswith("-") else text



_ULL = "unsigned long long"
# Atomic read-modify-writes by (operation, element type): a template over the address `{p}`,
# the operand `{v}` and a helper's type suffix `{s}` (`simt_` names are `cuda_helpers`'). An
# element type not listed falls back to "float" (float32, float64), then to "*"; None: refused.
ATOMIC: dict[tuple[str, str], str | None] = {
    ("add", "int64"): f"(long long)atomicAdd(({_ULL}*){{p}}, ({_ULL}){{v}})",
    ("add", "*"): "atomicAdd({p}, {v})",
    ("sub", "int32"): "atomicSub({p}, {v})",
    ("sub", "uint32"): "atomicSub({p}, {v})",
    ("sub", "int64"): f"(long long)atomicAdd(({_ULL}*){{p}}, ({_ULL})0 - ({_ULL}){{v}})",
    ("sub", "*"): "atomicAdd({p}, -{v})",
    ("min", "float"): "simt_atomic_min_{s}({p}, {v})",
    ("min", "*"): "atomicMin({p}, {v})",
    ("max", "float"): "simt_atomic_max_{s}({p}, {v})",
    ("max", "*"): "atomicMax({p}, {v})",
    ("exch", "int64"): f"(long long)atomicExch(({_ULL}*){{p}}, ({_ULL}){{v}})",
    ("exch", "float64"): f"__longlong_as_double((long long)atomicExch(({_ULL}*){{p}}, "
                         f"({_ULL})__double_as_longlong({{v}})))",
    ("exch", "*"): "atomicExch({p}, {v})",
    **{(k, "float"): None for k in ("and", "or", "xor")},
    **{(k, "int64"): f"(long long){f}(({_ULL}*){{p}}, ({_ULL}){{v}})"
       for k, f in (("and", "atomicAnd"), ("or", "atomicOr"), ("xor", "atomicXor"))},
    **{(k, "*"): f"{f}({{p}}, {{v}})"
       for k, f in (("and", "atomicAnd"), ("or", "atomicOr"), ("xor", "atomicXor"))},
}  # fmt: skip
# Compare-and-swap by element type: a template over `{p}`, the expected `{c}` and `{v}`.
CAS: dict[str, str] = {
    "int32": "atomicCAS({p}, {c}, {v})",
    "uint32": "atomicCAS({p}, {c}, {v})",
    "int64": f"(long long)atomicCAS(({_ULL}*){{p}}, ({_ULL}){{c}}, ({_ULL}){{v}})",
    "float32": "__int_as_float(atomicCAS((int*){p}, __float_as_int({c}), __float_as_int({v})))",
    "float64": f"__longlong_as_double((long long)atomicCAS(({_ULL}*){{p}}, "
               f"({_ULL})__double_as_longlong({{c}}), ({_ULL})__double_as_longlong({{v}})))",
}  # fmt: skip


def atomic_template(k: str, t: Scalar) -> str | None:
    """The template of atomic `k` on elements of `t` (None: refused); KeyError: no such
    operation."""
    for key in (t.name, "float" if t.is_float else "", "*"):
        if (k, key) in ATOMIC:
            return ATOMIC[(k, key)]
    raise KeyError(k)
