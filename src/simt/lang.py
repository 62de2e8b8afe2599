"""The names kernels use: thread indices, barriers, shared/local arrays, atomics, casts.

These are ordinary Python objects. The front end recognises them by identity and translates
calls to them; called outside a kernel they either do the obvious host-side thing (casts
convert, `grid` is meaningless) or say that they only work inside a kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import types as T


class OnlyInKernel:
    """Base of the objects that only mean something inside a kernel."""

    name = "?"

    def _outside(self) -> None:
        raise RuntimeError(
            f"simt.{self.name} only works inside a @simt.kernel function (it was called from "
            "ordinary Python code)"
        )


class _Dim3Register(OnlyInKernel):
    """`thread_idx`, `block_idx`, `block_dim`, `grid_dim`: their `.x .y .z` are int32."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attr: str) -> Any:
        if attr in ("x", "y", "z"):
            self._outside()
        raise AttributeError(attr)

    def __repr__(self) -> str:
        return f"simt.{self.name}"


thread_idx = _Dim3Register("thread_idx")
block_idx = _Dim3Register("block_idx")
block_dim = _Dim3Register("block_dim")
grid_dim = _Dim3Register("grid_dim")
# Numba-CUDA's (and CUDA C's) spellings of the same registers: `import simt as cuda` then
# runs kernel bodies written for `from numba import cuda` (cuda.threadIdx.x, ...) unchanged.
threadIdx = thread_idx
blockIdx = block_idx
blockDim = block_dim
gridDim = grid_dim


class _Intrinsic(OnlyInKernel):
    """A function that the front end translates; calling it on the host is an error."""

    def __init__(self, name: str, doc: str) -> None:
        self.name = name
        self.__doc__ = doc

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._outside()

    def __repr__(self) -> str:
        return f"simt.{self.name}"


grid = _Intrinsic(
    "grid",
    "grid(n): this thread's global index; an int for n=1, a tuple of n ints for n=2 or 3.",
)
gridsize = _Intrinsic(
    "gridsize",
    "gridsize(n): the number of threads in the grid along its first n axes (block_dim * "
    "grid_dim); an int for n=1, a tuple for n=2 or 3 (Numba's cuda.gridsize, for grid-stride "
    "loops).",
)
syncthreads = _Intrinsic("syncthreads", "Barrier: wait for every thread of the block.")


class _Namespace:
    """A group of intrinsics (`simt.shared`, `simt.local`, `simt.atomic`)."""

    def __init__(self, prefix: str, **members: str) -> None:
        for name, doc in members.items():
            setattr(self, name, _Intrinsic(f"{prefix}.{name}", doc))


shared = _Namespace("shared", array="array(shape, dtype): an array shared by the block.")
local = _Namespace("local", array="array(shape, dtype): an array private to the thread.")
atomic = _Namespace(
    "atomic",
    add="add(arr, idx, v): arr[idx] += v atomically; returns the old value.",
    sub="sub(arr, idx, v): arr[idx] -= v atomically; returns the old value.",
    min="min(arr, idx, v): arr[idx] = min(arr[idx], v) atomically; returns the old value.",
    max="max(arr, idx, v): arr[idx] = max(arr[idx], v) atomically; returns the old value.",
    exch="exch(arr, idx, v): arr[idx] = v atomically; returns the old value.",
    cas="cas(arr, idx, cmp, v): if arr[idx] == cmp then arr[idx] = v; returns the old value.",
)


class ScalarCast:
    """`simt.float32(x)` and friends: a conversion in kernels, NumPy's on the host."""

    def __init__(self, t: T.Scalar) -> None:
        self.type = t
        self.__doc__ = f"Convert to {t.name}."

    def __call__(self, x: Any) -> Any:
        return self.type.np.type(x)

    def __repr__(self) -> str:
        return f"simt.{self.type.name}"


float32 = ScalarCast(T.FLOAT32)
float64 = ScalarCast(T.FLOAT64)
int32 = ScalarCast(T.INT32)
int64 = ScalarCast(T.INT64)
uint32 = ScalarCast(T.UINT32)
uint64 = ScalarCast(T.UINT64)
int8 = ScalarCast(T.INT8)
uint8 = ScalarCast(T.UINT8)
int16 = ScalarCast(T.INT16)
uint16 = ScalarCast(T.UINT16)
float16 = ScalarCast(T.FLOAT16)
bool_ = ScalarCast(T.BOOL)


def dtype_of(obj: Any) -> T.Scalar | None:
    """The scalar type a dtype-like object names: `simt.float32`, `np.float32`, `"float32"`,
    `np.dtype(...)`, `float` (float32, GPU practice), `int` (int32), `bool`."""
    if isinstance(obj, ScalarCast):
        return obj.type
    if obj is float:
        return T.FLOAT32
    if obj is int:
        return T.INT32
    if obj is bool:
        return T.BOOL
    try:
        return T.scalar_of_dtype(np.dtype(obj))
    except TypeError:
        return None


class _Direction:
    """`simt.In[...]` / `simt.Out[...]`: annotations that skip a copy to or from the device."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getitem__(self, item: Any) -> _Direction:
        return self

    def __repr__(self) -> str:
        return f"simt.{self.name}"


In = _Direction("In")  # read only: never copied back
Out = _Direction("Out")  # write only: not copied to the device before the launch
