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


class Dim3Register(OnlyInKernel):
    """`thread_idx`, `block_idx`, `block_dim`, `grid_dim`: their `.x .y .z` are int32."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attr: str) -> Any:
        if attr in ("x", "y", "z"):
            self._outside()
        raise AttributeError(attr)

    def __repr__(self) -> str:
        return f"simt.{self.name}"


thread_idx = Dim3Register("thread_idx")
block_idx = Dim3Register("block_idx")
block_dim = Dim3Register("block_dim")
grid_dim = Dim3Register("grid_dim")
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

# Warp functions, with Numba-CUDA's names, signatures and meaning (warps of 32 threads: the
# threads of a block in order of their linear index, 32 at a time). `mask` names the lanes
# taking part (bit k: lane k); threads outside it, or not running the call, give undefined
# values to the others, as in CUDA.
WARP_SIZE = 32
warpsize = WARP_SIZE  # Numba's `cuda.warpsize`: a constant


syncwarp = _Intrinsic(
    "syncwarp",
    "syncwarp(mask=0xFFFFFFFF): wait for the warp's lanes in `mask`; their shared-memory "
    "writes before it are seen after it.",
)
activemask = _Intrinsic(
    "activemask", "activemask(): the uint32 mask of the warp's lanes running this call."
)
ballot_sync = _Intrinsic(
    "ballot_sync",
    "ballot_sync(mask, predicate): a uint32 whose bit k is set when lane k (in `mask`, "
    "running the call) has a true predicate.",
)
all_sync = _Intrinsic(
    "all_sync",
    "all_sync(mask, predicate): whether the predicate is true in every lane of `mask` "
    "running the call.",
)
any_sync = _Intrinsic(
    "any_sync",
    "any_sync(mask, predicate): whether the predicate is true in some lane of `mask` running "
    "the call.",
)
shfl_sync = _Intrinsic(
    "shfl_sync",
    "shfl_sync(mask, value, src_lane): `value` of lane `src_lane % 32` of this warp.",
)
shfl_up_sync = _Intrinsic(
    "shfl_up_sync",
    "shfl_up_sync(mask, value, delta): `value` of lane `laneid - delta`; the thread's own "
    "value where that is below lane 0.",
)
shfl_down_sync = _Intrinsic(
    "shfl_down_sync",
    "shfl_down_sync(mask, value, delta): `value` of lane `laneid + delta`; the thread's own "
    "value where that is past the warp's last lane.",
)
shfl_xor_sync = _Intrinsic(
    "shfl_xor_sync",
    "shfl_xor_sync(mask, value, lane_mask): `value` of lane `laneid ^ lane_mask` (the "
    "butterfly of reductions).",
)


class Inlined(_Intrinsic):
    """An intrinsic written in the kernel language itself: the front end inlines `impl`, a
    plain Python function of this module, at each call (`simt.syncthreads_count`, the atomics
    built from `cas`, ...)."""

    def __init__(self, name: str, doc: str, impl: Any) -> None:
        super().__init__(name, doc)
        self.impl = impl
        impl.__name__ = impl.__qualname__ = name  # what errors about a call of it say


class KernelValue(OnlyInKernel):
    """A name that is a value in kernels, not a function (Numba's `cuda.laneid`): the front end
    inlines `impl()` where it is read."""

    def __init__(self, name: str, doc: str, impl: Any) -> None:
        self.name = name
        self.__doc__ = doc
        self.impl = impl

    def __repr__(self) -> str:
        return f"simt.{self.name}"


class _Namespace:
    """A group of intrinsics (`simt.shared`, `simt.local`, `simt.atomic`)."""

    def __init__(self, prefix: str, **members: str) -> None:
        for name, doc in members.items():
            setattr(self, name, _Intrinsic(f"{prefix}.{name}", doc))

    def __getattr__(self, name: str) -> Any:  # the members set above (for the type checker)
        raise AttributeError(name)


class _Const:
    """`simt.const` (Numba's `cuda.const`): `const.array_like(a)` is a NumPy array known at
    compile time as a kernel constant. simt reads globals at compile time already, so this is
    the array itself: indexed by known values it folds away, indexed by a run-time value it
    is a constant table kept in the program (CUDA `__constant__` memory, a WGSL module-scope
    array, an LLVM constant global; docs/language.md, "Constant tables")."""

    @staticmethod
    def array_like(ary: Any) -> Any:
        """`ary` as a kernel constant (the array itself; on the host too)."""
        return ary

    def __repr__(self) -> str:
        return "simt.const"


const = _Const()


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
    and_="and_(arr, idx, v): arr[idx] &= v atomically; returns the old value.",
    or_="or_(arr, idx, v): arr[idx] |= v atomically; returns the old value.",
    xor="xor(arr, idx, v): arr[idx] ^= v atomically; returns the old value.",
)


class ScalarCast:
    """`simt.float32(x)` and friends: a conversion in kernels, NumPy's on the host."""

    def __init__(self, t: T.Scalar) -> None:
        self.type = t
        self.__doc__ = f"Convert to {t.name}."

    def __call__(self, x: Any, *more: Any) -> Any:
        if _is_type(x):  # Numba's `float32(float32, float32)`: a device function's signature
            return T.Signature(self, (x, *more))
        return self.type.np.type(x)

    def __getitem__(self, dims: Any) -> T.ArraySpec:
        """Numba's array type in a signature: `float32[:]`, `float32[:, ::1]`."""
        return self.type[dims]

    def __repr__(self) -> str:
        return f"simt.{self.type.name}"


def _is_type(x: Any) -> bool:
    return isinstance(x, (ScalarCast, T.Scalar, T.ArraySpec, T.Void))


void = T.void


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


class Direction:
    """`simt.In[...]` / `simt.Out[...]`: annotations that skip a copy to or from the device."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __getitem__(self, item: Any) -> Direction:
        return self

    def __repr__(self) -> str:
        return f"simt.{self.name}"


In = Direction("In")  # read only: never copied back
Out = Direction("Out")  # write only: not copied to the device before the launch


# --------------------------------------------------------------------------------------------
# Intrinsics written in the kernel language (inlined by the front end at each call). Each call
# of a block-wide one makes its own shared slot, so calls in sequence never share state.


def _block_thread() -> Any:
    """This thread's linear index in its block (x fastest, as CUDA numbers lanes)."""
    return thread_idx.x + block_dim.x * (thread_idx.y + block_dim.y * thread_idx.z)


def _syncthreads_count(predicate: Any) -> Any:
    slot = shared.array(1, int32)
    if thread_idx.x == 0 and thread_idx.y == 0 and thread_idx.z == 0:
        slot[0] = 0
    syncthreads()
    if predicate:
        atomic.add(slot, 0, 1)
    syncthreads()
    n = slot[0]
    syncthreads()  # every thread has read the count before the slot is used again
    return n


def _syncthreads_and(predicate: Any) -> Any:
    n = _syncthreads_count(predicate)
    return int32(1) if n == block_dim.x * block_dim.y * block_dim.z else int32(0)


def _syncthreads_or(predicate: Any) -> Any:
    n = _syncthreads_count(predicate)
    return int32(1) if n != 0 else int32(0)


def _laneid() -> Any:
    return _block_thread() % 32


def _atomic_inc(ary: Any, idx: Any, val: Any) -> Any:
    old = ary[idx]
    done = False
    while not done:
        new = 0 if old >= val else old + 1
        prev = atomic.cas(ary, idx, old, new)
        done = prev == old
        old = prev
    return old


def _atomic_dec(ary: Any, idx: Any, val: Any) -> Any:
    old = ary[idx]
    done = False
    while not done:
        new = val if old == 0 or old > val else old - 1
        prev = atomic.cas(ary, idx, old, new)
        done = prev == old
        old = prev
    return old


def _atomic_nanmax(ary: Any, idx: Any, val: Any) -> Any:
    if val != val:  # a NaN value is missing: the element stays, its value is returned
        return ary[idx]
    return atomic.max(ary, idx, val)


def _atomic_nanmin(ary: Any, idx: Any, val: Any) -> Any:
    if val != val:
        return ary[idx]
    return atomic.min(ary, idx, val)


def _atomic_compare_and_swap(ary: Any, old: Any, val: Any) -> Any:
    return atomic.cas(ary, 0, old, val)


def _nanosleep(ns: Any) -> None:
    return None


def _selp(predicate: Any, a: Any, b: Any) -> Any:
    return a if predicate else b


def _fma(a: Any, b: Any, c: Any) -> Any:
    return a * b + c


syncthreads_count = Inlined(
    "syncthreads_count",
    "syncthreads_count(p): a barrier that returns how many threads of the block had p true.",
    _syncthreads_count,
)
syncthreads_and = Inlined(
    "syncthreads_and",
    "syncthreads_and(p): a barrier that returns 1 if p was true in every thread, else 0.",
    _syncthreads_and,
)
syncthreads_or = Inlined(
    "syncthreads_or",
    "syncthreads_or(p): a barrier that returns 1 if p was true in any thread, else 0.",
    _syncthreads_or,
)
threadfence = _Intrinsic(
    "threadfence", "threadfence(): order this thread's memory accesses for the whole device."
)
threadfence_block = _Intrinsic(
    "threadfence_block", "threadfence_block(): order this thread's memory accesses for its block."
)
threadfence_system = _Intrinsic(
    "threadfence_system", "threadfence_system(): order memory accesses for the device and host."
)
laneid = KernelValue(
    "laneid", "laneid: this thread's lane in its warp of 32 (linear index in block % 32).",
    _laneid,
)
nanosleep = Inlined(
    "nanosleep", "nanosleep(ns): accepted; simt's threads do not sleep (a no-op).", _nanosleep
)
setattr(atomic, "compare_and_swap", Inlined(  # noqa: B010
    "atomic.compare_and_swap",
    "compare_and_swap(arr, old, v): cas on arr[0] (Numba's older spelling); returns the old "
    "value.",
    _atomic_compare_and_swap,
))
selp = Inlined("selp", "selp(p, a, b): a if p else b.", _selp)
fma = Inlined("fma", "fma(a, b, c): a * b + c.", _fma)
setattr(atomic, "inc", Inlined(  # noqa: B010
    "atomic.inc",
    "inc(arr, idx, v): arr[idx] = 0 if arr[idx] >= v else arr[idx] + 1 atomically; returns "
    "the old value.",
    _atomic_inc,
))
setattr(atomic, "dec", Inlined(  # noqa: B010
    "atomic.dec",
    "dec(arr, idx, v): arr[idx] = v if arr[idx] == 0 or arr[idx] > v else arr[idx] - 1 "
    "atomically; returns the old value.",
    _atomic_dec,
))
setattr(atomic, "nanmax", Inlined(  # noqa: B010
    "atomic.nanmax",
    "nanmax(arr, idx, v): atomic max where NaN is a missing value; returns the old value.",
    _atomic_nanmax,
))
setattr(atomic, "nanmin", Inlined(  # noqa: B010
    "atomic.nanmin",
    "nanmin(arr, idx, v): atomic min where NaN is a missing value; returns the old value.",
    _atomic_nanmin,
))


# Bit functions (Numba's cuda.popc, clz, ffs, brev), branch-free on 32- and 64-bit words; the
# front end picks the width from the argument's type.


def _popc32(x: Any) -> Any:
    v = uint32(x)
    v = v - ((v >> 1) & 0x55555555)
    v = (v & 0x33333333) + ((v >> 2) & 0x33333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F
    return (v * 0x01010101) >> 24


def _popc64(x: Any) -> Any:
    v = uint64(x)
    v = v - ((v >> 1) & 0x5555555555555555)
    v = (v & 0x3333333333333333) + ((v >> 2) & 0x3333333333333333)
    v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (v * 0x0101010101010101) >> 56


def _clz32(x: Any) -> Any:
    v = uint32(x)
    v = v | (v >> 1)
    v = v | (v >> 2)
    v = v | (v >> 4)
    v = v | (v >> 8)
    v = v | (v >> 16)
    return 32 - _popc32(v)


def _clz64(x: Any) -> Any:
    v = uint64(x)
    v = v | (v >> 1)
    v = v | (v >> 2)
    v = v | (v >> 4)
    v = v | (v >> 8)
    v = v | (v >> 16)
    v = v | (v >> 32)
    return 64 - _popc64(v)


def _ffs32(x: Any) -> Any:
    v = uint32(x)
    r = _popc32(~v & (v - 1)) + 1
    return r if v != 0 else r - r


def _ffs64(x: Any) -> Any:
    v = uint64(x)
    r = _popc64(~v & (v - 1)) + 1
    return r if v != 0 else r - r


def _brev32(x: Any) -> Any:
    v = uint32(x)
    v = ((v >> 1) & 0x55555555) | ((v & 0x55555555) << 1)
    v = ((v >> 2) & 0x33333333) | ((v & 0x33333333) << 2)
    v = ((v >> 4) & 0x0F0F0F0F) | ((v & 0x0F0F0F0F) << 4)
    v = ((v >> 8) & 0x00FF00FF) | ((v & 0x00FF00FF) << 8)
    return (v >> 16) | (v << 16)


def _brev64(x: Any) -> Any:
    v = uint64(x)
    v = ((v >> 1) & 0x5555555555555555) | ((v & 0x5555555555555555) << 1)
    v = ((v >> 2) & 0x3333333333333333) | ((v & 0x3333333333333333) << 2)
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0F) | ((v & 0x0F0F0F0F0F0F0F0F) << 4)
    v = ((v >> 8) & 0x00FF00FF00FF00FF) | ((v & 0x00FF00FF00FF00FF) << 8)
    v = ((v >> 16) & 0x0000FFFF0000FFFF) | ((v & 0x0000FFFF0000FFFF) << 16)
    return (v >> 32) | (v << 32)


class BitFunction(_Intrinsic):
    """`popc`, `clz`, `ffs`, `brev`: `impls` are the 32- and 64-bit versions; `result` is
    "arg" (the argument's type), or the name of an unsigned type of that width."""

    def __init__(self, name: str, doc: str, impls: tuple[Any, Any], result: str) -> None:
        super().__init__(name, doc)
        self.impls = impls
        self.result = result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and isinstance(args[0], (int, np.integer)):
            return self.host(args[0])  # on the host, as Numba's simulator does
        self._outside()

    def host(self, x: Any) -> Any:
        bits = 64 if isinstance(x, (np.int64, np.uint64)) else 32
        v = int(x) & ((1 << bits) - 1)
        if self.name == "popc":
            return bin(v).count("1")
        if self.name == "clz":
            return bits - v.bit_length()
        if self.name == "ffs":
            return (v & -v).bit_length()
        return int(format(v, f"0{bits}b")[::-1], 2)


popc = BitFunction("popc", "popc(x): the number of bits set in x.", (_popc32, _popc64), "arg")
clz = BitFunction("clz", "clz(x): the number of leading zero bits of x.", (_clz32, _clz64),
                  "arg")
ffs = BitFunction(
    "ffs", "ffs(x): the position (from 1) of x's lowest set bit; 0 for 0.", (_ffs32, _ffs64),
    "uint32",
)
brev = BitFunction("brev", "brev(x): x with its bits reversed.", (_brev32, _brev64), "unsigned")
