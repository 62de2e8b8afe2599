"""Device arrays: data that stays on a runtime's device between launches.

`simt.to_device`, `simt.empty` and `simt.zeros` make them on the current backend; `.numpy()`
copies back. On `cpu` and `sim` the device is the host, so a device array is a NumPy array
and a NumPy argument is used in place, never copied.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np


class Memory(Protocol):
    """What a device array needs of the runtime whose memory holds it: its name, buffers,
    copies. Every `runtime.base.Runtime` is one (this part sits below the runtimes: it reads
    none of them, not even for annotations)."""

    @property
    def name(self) -> str: ...

    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> Any: ...

    def upload(self, host: np.ndarray) -> Any: ...

    def download(self, buf: Any, out: np.ndarray) -> None: ...


class DeviceArray:
    """An array in a runtime's memory, C-ordered unless it wraps a host view (cpu, sim)."""

    def __init__(
        self,
        runtime: Memory,
        buf: Any,
        shape: tuple[int, ...],
        dtype: np.dtype,
        strides: tuple[int, ...] | None = None,
    ) -> None:
        self.runtime = runtime
        self.buf = buf
        self.shape = tuple(int(s) for s in shape)
        self.dtype = np.dtype(dtype)
        # Strides in elements, not bytes: what kernels index with.
        self.strides = strides if strides is not None else c_strides(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def numpy(self) -> np.ndarray:
        """A host copy (waits for the device)."""
        out = np.empty(self.shape, self.dtype)
        self.runtime.download(self.buf, out)
        return out

    def copy_to_host(self, ary: np.ndarray | None = None, stream: Any = 0) -> np.ndarray:
        """Numba's name for `numpy()`; with `ary`, the data is copied into it."""
        if ary is None:
            return self.numpy()
        if tuple(ary.shape) != self.shape:
            raise ValueError(f"copy_to_host: ary has shape {ary.shape}, the array {self.shape}")
        ary[...] = self.numpy()
        return ary

    def copy_to_device(self, ary: Any, stream: Any = 0) -> None:
        """Copy the host array `ary` (of this shape) into this array (Numba's name)."""
        host = np.ascontiguousarray(ary, dtype=self.dtype)
        if host.shape != self.shape:
            raise ValueError(f"copy_to_device: ary has shape {host.shape}, the array {self.shape}")
        if isinstance(self.buf, np.ndarray):  # cpu, sim: the device memory is host memory
            self.buf[...] = host
        else:
            self.buf = self.runtime.upload(host)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype}, backend={self.runtime.name})"

    # Interop where the runtime has it (CUDA: __cuda_array_interface__, DLPack).
    def __getattr__(self, name: str) -> Any:
        if name in ("__cuda_array_interface__", "__dlpack__", "__dlpack_device__"):
            hook = getattr(self.runtime, "array_interop", None)
            if hook is not None:
                return hook(self, name)
        raise AttributeError(name)


def c_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides of a C-ordered array of `shape`."""
    strides = []
    acc = 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(strides))


def complex_parts(a: DeviceArray) -> DeviceArray:
    """A complex64/complex128 device array as the float32/float64 array of its parts: the
    same memory, one more axis of 2 (real, imaginary) last, as kernels take complex arrays."""
    part = np.dtype(np.float32 if a.dtype.itemsize == 8 else np.float64)
    shape = (*a.shape, 2)
    strides = (*(s * 2 for s in a.strides), 1)
    buf = a.buf
    if isinstance(buf, np.ndarray):  # cpu, sim: the device memory is a host array
        buf = buf[..., None].view(part)
    return DeviceArray(a.runtime, buf, shape, part, strides)


def host_view(runtime: Memory, a: np.ndarray) -> DeviceArray:
    """Wrap a host array for a runtime whose device memory is host memory (cpu, sim)."""
    itemsize = a.dtype.itemsize
    strides = tuple(s // itemsize for s in a.strides)
    return DeviceArray(runtime, a, a.shape, a.dtype, strides)
