"""Constant tables: a NumPy array known at compile time, indexed by a run-time value.

`WEIGHTS[i]` with `WEIGHTS` a global array and `i` known folds to a literal; with `i` computed
at run time the array becomes a *table*: an `alloc` op of a read-only `const` array whose
`data` attribute holds its elements (flat, C order). Each renderer keeps it in the program
itself (CUDA `__constant__` memory, a WGSL module-scope array, an LLVM constant global, a
NumPy array on `sim`); loads from it are ordinary loads, bounds-checked like any array's.

One table per array and specialisation: the ops are made once, at the top of the kernel, when
the translation ends (`prepend`), so every use, in any branch or loop, reads the same table.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from .. import types as T
from ..ir import Op, Value
from .context import Translating

# A table is kept in the program's text: bigger ones are refused with advice (pass the array
# as an argument). CUDA's constant memory holds 64 KiB; bigger tables go to global memory.
MAX_BYTES = 1 << 20


def as_array(value: Any) -> np.ndarray | None:
    """`value` as the array of a table, when it can be one: a NumPy array of booleans, integers
    or floats, a tuple/list of numbers (nested to one shape), or bytes (uint8: a file read with
    `open(path, "rb").read()` at compile time); None otherwise."""
    if isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, (bytes, bytearray)) and value:  # a file's bytes read while compiling
        arr = np.frombuffer(bytes(value), np.uint8)
    elif isinstance(value, (tuple, list)) and value:
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError):
            return None
    else:
        return None
    if arr.dtype.kind not in "biuf" or arr.size == 0 or arr.ndim == 0:
        return None
    return arr


def element_type(arr: np.ndarray, fp64: bool) -> T.Scalar:
    """The element type of a table made of `arr`. As known numbers elsewhere in a kernel
    (docs/language.md, "Partial evaluation"), a table does not widen the code around it:
    float64 (and Python floats) become the kernel's float type (float32 unless `fp64`),
    float16 float32, and int64 int32 when every element fits in 32 bits; other types stay."""
    kind, bits = arr.dtype.kind, arr.dtype.itemsize * 8
    if kind == "b":
        return T.BOOL
    if kind == "f":
        if bits == 64:
            return T.float_type(fp64)
        return T.FLOAT32 if bits <= 32 else T.FLOAT64
    if kind == "i" and bits == 64:
        lo, hi = int(arr.min()), int(arr.max())
        return T.INT32 if -(2**31) <= lo and hi < 2**31 else T.INT64
    t = T.scalar_of_dtype(arr.dtype)
    assert t is not None, arr.dtype
    return t


def table(tr: Translating, arr: np.ndarray, node: ast.AST, hint: str = "table") -> Value:
    """The table of `arr` in the kernel being translated (made once per array); `hint` names
    it in the generated code."""
    key = id(arr)
    got = tr.ctx.tables.get(key)
    if got is not None:
        return got[1]
    t = element_type(arr, tr.ctx.fp64)
    nbytes = arr.size * max(t.bits // 8, 1)
    if nbytes > MAX_BYTES:
        tr.fail(
            node,
            f"this {arr.dtype} array known at compile time has {arr.size} elements: too big to "
            f"keep in the program as a constant table (at most {MAX_BYTES // 1024} KiB)",
            "pass it to the kernel as an argument",
        )
    at = T.ArrayType(t, arr.ndim, T.CONST, tuple(int(d) for d in arr.shape))
    v = Value(at, hint)
    with np.errstate(all="ignore"):
        flat = np.ascontiguousarray(arr).reshape(-1).astype(t.np)
    data = tuple(flat.tolist())
    tr.ctx.tables[key] = (arr, v, data)
    return v


def prepend(tables: dict[int, tuple[Any, Value, tuple[Any, ...]]]) -> list[Op]:
    """The `alloc` ops of the tables a translation made, for the top of its body."""
    return [Op("alloc", [], [v], {"data": data}) for _, v, data in tables.values()]
