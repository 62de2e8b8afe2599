"""Device arrays and backend choice: `to_device`, `empty`, `zeros`, `synchronize`, `use`."""

from __future__ import annotations

import operator
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from . import types as T
from .array import DeviceArray
from .errors import BackendUnavailable, LaunchError, user_facing
from .extras import entry
from .runtime import registry


@user_facing
def use(name: str) -> None:
    """Run later launches on backend `name`: "cuda", "webgpu", "cpu" or "sim"."""
    try:
        registry.use(name)
    except BackendUnavailable as e:
        raise e.with_traceback(None) from None


@contextmanager
def using(name: str) -> Iterator[str]:
    """`with simt.using("cpu"):` runs the launches inside the block on backend `name`, then
    goes back to the backend chosen before (also when the block raises). Nests."""
    before = registry.selected()
    use(name)
    try:
        yield name
    finally:
        registry.restore(before)


def backend() -> str:
    """The name of the backend launches run on now."""
    return registry.current().name


def _array_dtype(dtype: Any, what: str) -> np.dtype[Any]:
    """`dtype` as a NumPy dtype kernels take (numbers, bool, complex), or a LaunchError."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        dt = None
    if dt is None or (T.scalar_of_dtype(dt) is None and dt.kind != "c"):
        raise LaunchError(
            f"{what}: dtype {getattr(dt, 'name', None) or repr(dtype)} is not one kernels take; "
            "use bool, int8/16/32/64, uint8/16/32/64, float16/32/64 or complex64/128"
        )
    return dt


def _array_shape(shape: Any, what: str) -> tuple[int, ...]:
    """`shape` (an int or a tuple of ints, none negative) as a tuple, or a LaunchError."""
    shp = (shape,) if isinstance(shape, (int, np.integer)) else shape
    try:
        dims = tuple(operator.index(n) for n in shp)
    except TypeError:
        raise LaunchError(
            f"{what}: shape {shape!r} is not an int or a tuple of ints"
        ) from None
    if any(n < 0 for n in dims):
        raise LaunchError(f"{what}: shape {shape!r} has a negative size; sizes are 0 or more")
    return dims


@user_facing
def to_device(a: Any) -> DeviceArray:
    """A copy of the array `a` on the current backend's device."""
    host = np.asarray(a)
    _array_dtype(host.dtype, "simt.to_device")
    if not host.dtype.isnative:  # big-endian data: the device holds native numbers
        host = host.astype(host.dtype.newbyteorder("="))
    rt = registry.current()
    if rt.host_memory:
        host = np.array(host, copy=True, order="C")
        return DeviceArray(rt, host, host.shape, host.dtype)
    return DeviceArray(rt, rt.upload(np.ascontiguousarray(host)), host.shape, host.dtype)


@user_facing
def empty(shape: int | tuple[int, ...], dtype: Any = np.float32) -> DeviceArray:
    """An uninitialised device array."""
    shp = _array_shape(shape, "simt.empty")
    dt = _array_dtype(dtype, "simt.empty")
    rt = registry.current()
    return DeviceArray(rt, rt.empty(shp, dt), shp, dt)


@user_facing
def zeros(shape: int | tuple[int, ...], dtype: Any = np.float32) -> DeviceArray:
    """A device array of zeros."""
    shp = _array_shape(shape, "simt.zeros")
    return to_device(np.zeros(shp, _array_dtype(dtype, "simt.zeros")))


@user_facing
def synchronize() -> None:
    """Wait until every launch so far has finished on the current backend."""
    registry.current().synchronize()


@user_facing
def map_blocks(kernel: Any, *args: Any, block: Any, halo: Any = 0, boundary: Any = "none",
               out: Any = None, dtype: Any = None, shape: Any = None,
               chunks: Any = None) -> Any:  # fmt: skip
    """Launch `kernel` once per chunk of the dask arrays in `args` (needs `simt[dask]`):
    each chunk is the kernel's whole array, `block` threads a block, blocks covering the
    chunk; the lazy dask array of the argument the kernel writes (`out=` names it if several).
    `halo=` adds that many neighbouring elements around each chunk (`map_overlap`). An array
    the kernel writes that is not passed is allocated (zeros; `dtype=`, `shape=`, `chunks=`,
    by default those of the first dask argument) and returned.
    See docs/dask.md and `simt.dask.kernels`."""
    run = entry("dask", "map_blocks")
    return run(kernel, *args, block=block, halo=halo, boundary=boundary, out=out,
               dtype=dtype, shape=shape, chunks=chunks)
