"""Device arrays and backend choice: `to_device`, `empty`, `zeros`, `synchronize`, `use`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .array import DeviceArray
from .errors import BackendUnavailable, user_facing
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


@user_facing
def to_device(a: Any) -> DeviceArray:
    """A copy of the array `a` on the current backend's device."""
    host = np.asarray(a)
    rt = registry.current()
    if rt.host_memory:
        host = np.array(host, copy=True, order="C")
        return DeviceArray(rt, host, host.shape, host.dtype)
    return DeviceArray(rt, rt.upload(np.ascontiguousarray(host)), host.shape, host.dtype)


@user_facing
def empty(shape: int | tuple[int, ...], dtype: Any = np.float32) -> DeviceArray:
    """An uninitialised device array."""
    shp = (shape,) if isinstance(shape, int) else tuple(shape)
    dt = np.dtype(dtype)
    rt = registry.current()
    return DeviceArray(rt, rt.empty(shp, dt), shp, dt)


@user_facing
def zeros(shape: int | tuple[int, ...], dtype: Any = np.float32) -> DeviceArray:
    """A device array of zeros."""
    shp = (shape,) if isinstance(shape, int) else tuple(shape)
    return to_device(np.zeros(shp, dtype))


@user_facing
def synchronize() -> None:
    """Wait until every launch so far has finished on the current backend."""
    registry.current().synchronize()


@user_facing
def map_blocks(kernel: Any, *args: Any, block: Any, halo: Any = 0, boundary: Any = "none",
               out: Any = None) -> Any:  # fmt: skip
    """Launch `kernel` once per chunk of the dask arrays in `args` (needs `simt[dask]`):
    each chunk is the kernel's whole array, `block` threads a block, blocks covering the
    chunk; the lazy dask array of the argument the kernel writes (`out=` names it if several).
    `halo=` adds that many neighbouring elements around each chunk (`map_overlap`).
    See docs/dask.md and `simt.dask.kernels`."""
    try:
        from .dask import map_blocks as dask_map_blocks
    except ImportError as e:
        raise BackendUnavailable(str(e)) from None
    return dask_map_blocks(kernel, *args, block=block, halo=halo, boundary=boundary, out=out)
