"""The types of the kernel language: scalars and arrays, and how they combine.

Numbers follow GPU practice (see docs/semantics.md): integer literals and thread indices are
int32, a float made from integers is float32 unless the kernel asks for fp64, and a literal
takes the type of the other operand of an operator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Scalar:
    """A scalar type: one of the module-level instances below. The storage-only types (8- and
    16-bit ints, float16) are element types of arrays: loads convert them to their compute
    type and stores convert back (`compute_type`); no other value has them."""

    name: str
    kind: str  # "b" bool, "i" signed int, "u" unsigned int, "f" float
    bits: int

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_signed(self) -> bool:
        return self.kind in "if"

    @property
    def dtype(self) -> np.dtype:
        """The NumPy dtype of this type, under the name NumPy looks for: as with Numba's
        types, `np.dtype(simt.types.float32)` and `np.zeros(n, simt.types.float32)` work."""
        return np.dtype(self.name)

    @property
    def np(self) -> np.dtype:
        """The NumPy dtype of this type (`dtype`)."""
        return np.dtype(self.name)

    @property
    def is_storage(self) -> bool:
        """Whether this is an array element type only (computed in `compute_type`)."""
        return self in _COMPUTE

    def __str__(self) -> str:
        return self.name

    def __getitem__(self, dims: Any) -> ArraySpec:
        """Numba's spelling of an array type in a signature: `float32[:]`, `float32[:, ::1]`."""
        return ArraySpec.of(self, dims)


@dataclass(frozen=True)
class ArraySpec:
    """An array parameter of a Numba signature (`float32[:, ::1]`): its element type and its
    axes as Numba writes them. Only a signature reads it: arrays are typed at the launch."""

    dtype: Scalar
    dims: tuple[str, ...]

    @staticmethod
    def of(dtype: Scalar, dims: Any) -> ArraySpec:
        axes = dims if isinstance(dims, tuple) else (dims,)
        spelled = []
        for a in axes:
            plain = isinstance(a, slice) and a.start is None and a.stop is None
            if not plain or a.step not in (None, 1):
                raise TypeError(
                    f"an array type of a signature has only `:` axes: write {dtype.name}[:] "
                    f"(one axis), {dtype.name}[:, :] (two) or {dtype.name}[:, ::1] (C order)"
                )
            spelled.append(":" if a.step is None else "::1")
        return ArraySpec(dtype, tuple(spelled))

    @property
    def ndim(self) -> int:
        return len(self.dims)

    def __str__(self) -> str:
        name = "boolean" if self.dtype.kind == "b" else self.dtype.name
        return f"{name}[{', '.join(self.dims)}]"


def _spelled(x: Any) -> str:
    """A type of a signature as Numba's signature strings write it (`simt.float32`, a
    `Scalar`, an `ArraySpec` or `void`)."""
    t = x.type if isinstance(getattr(x, "type", None), Scalar) else x
    if isinstance(t, Scalar):
        return "boolean" if t.kind == "b" else t.name
    if isinstance(t, (ArraySpec, Void)):
        return str(t)
    raise TypeError(f"{x!r} is not a type: a signature names types, as in void(float32[:], int32)")


class Signature:
    """A Numba signature made of type objects, `void(float32[:], int32)`: `cuda.jit` reads it
    as the same signature written as a string (`str(sig)`)."""

    def __init__(self, ret: Any, params: tuple[Any, ...]) -> None:
        self.text = f"{_spelled(ret)}({', '.join(_spelled(p) for p in params)})"

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"signature {self.text!r}"


class Void:
    """Numba's `void`: the return type of a kernel's signature, `void(float32[:], int32)`."""

    def __call__(self, *params: Any) -> Signature:
        return Signature(self, params)

    def __str__(self) -> str:
        return "void"

    def __repr__(self) -> str:
        return "simt.void"


void = Void()

BOOL = Scalar("bool", "b", 8)
INT32 = Scalar("int32", "i", 32)
INT64 = Scalar("int64", "i", 64)
UINT32 = Scalar("uint32", "u", 32)
FLOAT32 = Scalar("float32", "f", 32)
FLOAT64 = Scalar("float64", "f", 64)
UINT64 = Scalar("uint64", "u", 64)
INT8 = Scalar("int8", "i", 8)
UINT8 = Scalar("uint8", "u", 8)
INT16 = Scalar("int16", "i", 16)
UINT16 = Scalar("uint16", "u", 16)
FLOAT16 = Scalar("float16", "f", 16)

# storage-only type -> the type its values compute in (docs/semantics.md, "Types")
_COMPUTE: dict[Scalar, Scalar] = {
    INT8: INT32, UINT8: INT32, INT16: INT32, UINT16: INT32, FLOAT16: FLOAT32,
}  # fmt: skip

SCALARS: dict[str, Scalar] = {
    t.name: t
    for t in (
        BOOL,
        INT32,
        INT64,
        UINT32,
        FLOAT32,
        FLOAT64,
        UINT64,
        INT8,
        UINT8,
        INT16,
        UINT16,
        FLOAT16,
    )  # fmt: skip
}

# Numba's names for these types, so that a ported program's `from numba import types` (or
# `types as numba_types`) becomes `from simt import types`: `cuda.shared.array(4, types.int32)`
boolean = bool_ = BOOL
int8, int16, int32, int64 = INT8, INT16, INT32, INT64
uint8, uint16, uint32, uint64 = UINT8, UINT16, UINT32, UINT64
float16, float32, float64 = FLOAT16, FLOAT32, FLOAT64
intp, uintp, intc, uintc = INT64, UINT64, INT32, UINT32
float_, double = FLOAT32, FLOAT64

# NumPy dtypes that arrays may have, mapped onto the kernel language's scalars.
_NP_TO_SCALAR: dict[str, Scalar] = {name: t for name, t in SCALARS.items()}


def scalar_of_dtype(dtype: np.dtype | type | str) -> Scalar | None:
    """The kernel-language scalar for a NumPy dtype, or None when it has none."""
    return _NP_TO_SCALAR.get(np.dtype(dtype).name)


def compute_type(t: Scalar) -> Scalar:
    """The type values of element type `t` compute in: int32 for 8- and 16-bit ints, float32
    for float16, `t` itself for the others."""
    return _COMPUTE.get(t, t)


# Where an array lives: a kernel argument in device memory, per block, per thread, or a
# constant table (a NumPy array known at compile time, read-only, in the program itself).
GLOBAL = "global"
SHARED = "shared"
LOCAL = "local"
CONST = "const"


@dataclass(frozen=True)
class ArrayType:
    """An array of `dtype` with `ndim` dimensions.

    `space` says where it lives. Global arrays (kernel arguments) carry their shape and strides
    at run time; shared and local arrays have a `shape` known at compile time and are C-ordered.
    `index` is the integer type of `len`, `.shape` and `.size`: int32 unless some array of the
    launch has 2**31 or more elements, when the specialisation uses int64.
    """

    dtype: Scalar
    ndim: int
    space: str = GLOBAL
    shape: tuple[int, ...] | None = None
    index: Scalar = INT32

    def __str__(self) -> str:
        if self.shape is not None:
            dims = "x".join(str(d) for d in self.shape)
            return f"{self.space} {self.dtype}[{dims}]"
        return f"{self.dtype}[{','.join(':' * self.ndim)}]"


Type = Scalar | ArrayType


def promote(a: Scalar, b: Scalar) -> Scalar:
    """The type two typed operands of an arithmetic operator are converted to.

    GPU practice rather than NumPy's: an integer combined with float32 gives float32, not
    float64; bool behaves as int32; int32 with uint32 gives uint32, as in C.
    """
    a, b = compute_type(a), compute_type(b)
    if a == b:
        return INT32 if a.is_bool else a
    if a.is_float or b.is_float:
        if a.is_float and b.is_float:
            return a if a.bits >= b.bits else b
        return a if a.is_float else b
    a = INT32 if a.is_bool else a
    b = INT32 if b.is_bool else b
    if a == b:
        return a
    if UINT64 in (a, b):  # as in C: uint64 with any other int is uint64
        return UINT64
    if INT64 in (a, b):
        return INT64
    return UINT32


def literal_type(value: object, fp64: bool, int64: bool = False) -> Scalar:
    """The type a Python number takes when it must be materialised with no other operand
    (`int64`: Numba's typing, where a Python int is int64)."""
    if isinstance(value, (bool, np.bool_)):
        return BOOL
    if isinstance(value, np.generic):
        t = scalar_of_dtype(value.dtype)
        if t is not None:
            return compute_type(t)
    if isinstance(value, (int, np.integer)):
        return INT32 if -(2**31) <= int(value) < 2**31 and not int64 else INT64
    return FLOAT64 if fp64 else FLOAT32


def float_type(fp64: bool) -> Scalar:
    """The float type made from integers (`i / n`, `float(i)`, `math.sqrt(i)`)."""
    return FLOAT64 if fp64 else FLOAT32
