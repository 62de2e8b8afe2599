"""The host side of `numba.cuda` on simt: device arrays, streams, events, devices.

simt has one device per backend (the current one, `simt.use`), so `gpus` holds one device and
`select_device(0)` selects it. Launches are queued in order on every backend: a stream is
an order simt keeps anyway, and its `synchronize()` waits for every launch so far. Pinned and
mapped arrays are NumPy arrays (on `cpu` and `sim` kernels use them in place; elsewhere they
are copied to the device and back around each launch)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import api
from ..array import DeviceArray
from ..errors import LaunchError, user_facing
from ..runtime import registry


def _shape(shape: Any) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)


def _c_order(order: str, what: str) -> None:
    if order not in ("C", "A", "K"):
        raise LaunchError(
            f"{what}(order={order!r}): simt's device arrays are C-ordered; transpose on the "
            "host or index the other way"
        )


def _key_text(k: Any) -> str:
    """An index as written in brackets: `2:5`, `::2`, `...`, `3`."""
    if isinstance(k, slice):
        text = ":".join("" if v is None else str(v) for v in (k.start, k.stop, k.step))
        return text[:-1] if k.step is None else text
    return "..." if k is Ellipsis else repr(k)


class DeviceNDArray(DeviceArray):
    """A simt device array with what Numba's `DeviceNDArray` adds for the host: `d[i]` (an
    element, copied back), `d[i] = v` and `d[:] = host` (copied in), `reshape`, `ravel`,
    `is_c_contiguous()`. A slice is a view of the device memory in Numba; simt's device
    arrays are whole arrays, so `d[2:5]` is refused by name, never a silent copy."""

    @classmethod
    def of(cls, a: DeviceArray) -> DeviceNDArray:
        return cls(a.runtime, a.buf, a.shape, a.dtype, a.strides)

    def _index(self, key: Any, what: str) -> tuple[int, ...] | None:
        """`key` as a whole element's index, or None for `...`/`:` (the whole array)."""
        items = key if isinstance(key, tuple) else (key,)
        if all(isinstance(k, (int, np.integer)) for k in items) and len(items) == self.ndim:
            return tuple(int(k) for k in items)
        if items in ((Ellipsis,), (slice(None),)):
            return None
        shown = ", ".join(_key_text(k) for k in items)
        raise NotImplementedError(
            f"{what} d[{shown}] of a device array: simt's device arrays are whole arrays, not "
            "views of each other as Numba's slices are; index one element (d[i], d[i, j]), "
            f"copy the whole array back and slice it (d.copy_to_host()[{shown}]), or pass "
            "the whole array and the range's bounds to the kernel"
        )

    def __getitem__(self, key: Any) -> Any:
        idx = self._index(key, "reading")
        host = self.copy_to_host()
        return host if idx is None else host[idx]

    def __setitem__(self, key: Any, value: Any) -> None:
        idx = self._index(key, "writing")
        if isinstance(self.buf, np.ndarray):  # cpu, sim: the device memory is host memory
            self.buf[... if idx is None else idx] = value
            return
        host = self.copy_to_host()
        host[... if idx is None else idx] = value
        self.copy_to_device(host)

    def reshape(self, *newshape: Any, order: str = "C") -> DeviceNDArray:
        """The same memory as an array of `newshape` (C order, as simt's arrays are)."""
        _c_order(order, "reshape")
        shp = tuple(np.empty(self.shape, np.bool_).reshape(*newshape).shape)
        buf = self.buf.reshape(shp) if isinstance(self.buf, np.ndarray) else self.buf
        return DeviceNDArray(self.runtime, buf, shp, self.dtype)

    def ravel(self, order: str = "C") -> DeviceNDArray:
        return self.reshape(self.size, order=order)

    def is_c_contiguous(self) -> bool:
        return True

    def is_f_contiguous(self) -> bool:
        return self.ndim <= 1 or sum(s > 1 for s in self.shape) <= 1


@user_facing
def to_device(obj: Any, stream: Any = 0, copy: bool = True, to: DeviceArray | None = None) -> Any:
    """A device copy of the array `obj` (or, with `to=`, `obj` copied into that array)."""
    if to is not None:
        copy_to_device(to, obj)
        return to
    return DeviceNDArray.of(api.to_device(np.ascontiguousarray(obj)))


@user_facing
def copy_to_device(dev: DeviceArray, ary: Any) -> None:
    """Copy the host array `ary` into the device array `dev` (same shape)."""
    try:
        dev.copy_to_device(ary)
    except ValueError as e:
        raise LaunchError(str(e)) from None


@user_facing
def device_array(
    shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C", stream: Any = 0
) -> DeviceNDArray:
    """An uninitialised device array (Numba's default dtype is float64)."""
    _c_order(order, "device_array")
    return DeviceNDArray.of(api.empty(_shape(shape), dtype))


@user_facing
def device_array_like(ary: Any, stream: Any = 0) -> DeviceNDArray:
    """An uninitialised device array of `ary`'s shape and dtype."""
    return DeviceNDArray.of(api.empty(_shape(ary.shape), ary.dtype))


@user_facing
def pinned_array(shape: Any, dtype: Any = np.float64, strides: Any = None, order: str = "C") -> Any:
    """A host array (page-locked memory is the host's business in simt: a NumPy array)."""
    _c_order(order, "pinned_array")
    return np.empty(_shape(shape), dtype)


@user_facing
def mapped_array(
    shape: Any,
    dtype: Any = np.float64,
    strides: Any = None,
    order: str = "C",
    stream: Any = 0,
    portable: bool = False,
    wc: bool = False,
) -> Any:
    """A host array kernels can write: a NumPy array, copied back after each launch that
    writes it (used in place on `cpu` and `sim`)."""
    _c_order(order, "mapped_array")
    return np.empty(_shape(shape), dtype)


def pinned_array_like(ary: Any) -> Any:
    return np.empty(_shape(ary.shape), ary.dtype)


def mapped_array_like(ary: Any, stream: Any = 0, portable: bool = False, wc: bool = False) -> Any:
    return np.empty(_shape(ary.shape), ary.dtype)


def In(ary: Any) -> Any:  # noqa: N802 - Numba's names
    """Numba's copy-direction wrapper: simt finds which arrays a kernel writes by itself."""
    return ary


def Out(ary: Any) -> Any:  # noqa: N802
    return ary


def InOut(ary: Any) -> Any:  # noqa: N802
    return ary


def is_supported_version() -> bool:
    return True


@contextlib.contextmanager
def profiling() -> Iterator[None]:
    """Accepted: simt has no profiler hook (use simt.bench)."""
    yield


@contextlib.contextmanager
def pinned(*arylist: Any) -> Iterator[None]:
    """Numba's `with cuda.pinned(a, b):` — nothing to do in simt."""
    yield


@contextlib.contextmanager
def mapped(
    *arylist: Any, stream: Any = 0, portable: bool = False, wc: bool = False
) -> Iterator[Any]:
    """Numba's `with cuda.mapped(a) as d_a:` — the arrays themselves."""
    yield arylist[0] if len(arylist) == 1 else arylist


def synchronize() -> None:
    """Wait for every launch so far on the current backend."""
    api.synchronize()


class Stream:
    """A CUDA stream: simt runs launches in order on every backend, so a stream is that
    order; `synchronize()` waits for the launches so far."""

    def synchronize(self) -> None:
        api.synchronize()

    @contextlib.contextmanager
    def auto_synchronize(self) -> Iterator[Stream]:
        """`with stream.auto_synchronize():` waits for the stream when the block ends."""
        try:
            yield self
        finally:
            self.synchronize()

    def __repr__(self) -> str:
        return f"<simt.cuda stream on {api.backend()}>"


def stream() -> Stream:
    return Stream()


def default_stream() -> Stream:
    return Stream()


legacy_default_stream = default_stream
per_thread_default_stream = default_stream


def external_stream(ptr: int) -> Stream:
    return Stream()


class Event:
    """A CUDA event: `record()` notes the time once the launches before it have finished."""

    def __init__(self, timing: bool = True) -> None:
        self.timing = timing
        self.time: float | None = None

    def record(self, stream: Any = 0) -> None:
        api.synchronize()
        self.time = time.perf_counter()

    def synchronize(self) -> None:
        api.synchronize()

    def wait(self, stream: Any = 0) -> None:
        api.synchronize()

    def query(self) -> bool:
        return self.time is not None

    def elapsed_time(self, end: Event) -> float:
        """Milliseconds from this event to `end` (both recorded)."""
        return event_elapsed_time(self, end)


def event(timing: bool = True) -> Event:
    return Event(timing)


@user_facing
def event_elapsed_time(start: Event, end: Event) -> float:
    """Milliseconds between two recorded events."""
    if start.time is None or end.time is None:
        raise LaunchError("event_elapsed_time needs two recorded events (call .record())")
    if not (start.timing and end.timing):
        raise LaunchError("event_elapsed_time needs events made with timing=True")
    return (end.time - start.time) * 1000.0


def is_available() -> bool:
    """True: simt always has a backend to run kernels on (at least `sim`)."""
    return True


def is_cuda_array(obj: Any) -> bool:
    """Whether `obj` is a device array (simt's, or one with __cuda_array_interface__)."""
    return isinstance(obj, DeviceArray) or hasattr(obj, "__cuda_array_interface__")


class Device:
    """The current backend's device, with the attributes Numba programs read."""

    def __init__(self, index: int = 0) -> None:
        self.id = index

    @property
    def _rt(self) -> Any:
        return registry.current()

    @property
    def name(self) -> bytes:
        return f"{self._rt.name}: {self._rt.device_facts().device}".encode()

    @property
    def compute_capability(self) -> tuple[int, int]:
        """(0, 0) off NVIDIA hardware: no CUDA architecture applies."""
        return (0, 0)

    @property
    def WARP_SIZE(self) -> int:  # noqa: N802 - Numba's attribute names
        return 32

    @property
    def MAX_THREADS_PER_BLOCK(self) -> int:  # noqa: N802
        return int(self._rt.device_facts().max_block)

    @property
    def MULTIPROCESSOR_COUNT(self) -> int:  # noqa: N802
        return int(self._rt.device_facts().units)

    def __enter__(self) -> Device:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def reset(self) -> None:
        api.synchronize()

    def __repr__(self) -> str:
        return f"<simt.cuda device {self.id} ({self._rt.name})>"


class _GPUs:
    """`cuda.gpus`: the devices (one: the current backend's)."""

    def __len__(self) -> int:
        return 1

    def __getitem__(self, i: int) -> Device:
        if i not in (0, -1):
            raise IndexError(f"simt has one device (the current backend's), not {i + 1}")
        return Device(0)

    def __iter__(self) -> Iterator[Device]:
        return iter([Device(0)])

    @property
    def current(self) -> Device:
        return Device(0)


gpus = _GPUs()


def list_devices() -> list[Device]:
    return list(gpus)


def get_current_device() -> Device:
    return Device(0)


@user_facing
def select_device(device_id: int) -> Device:
    """Select device 0, the current backend's (choose backends with `simt.use`)."""
    if device_id != 0:
        raise LaunchError(
            f"select_device({device_id}): simt has one device per backend, device 0; choose the "
            "backend with simt.use('cpu' | 'webgpu' | 'cuda' | 'sim')"
        )
    return Device(0)


def close() -> None:
    api.synchronize()


def detect() -> bool:
    """Print the backends simt found (as `python -m simt info`) and return True."""
    print("Found backends:")
    for name in registry.RUNTIMES:
        ok, why = registry.probe(name)
        print(f"  {name:7} {'yes' if ok else 'no':4} {why}")
    print(f"Current: {api.backend()}")
    return True


def profile_start() -> None:
    """Accepted: simt has no profiler hook (use simt.bench)."""


def profile_stop() -> None:
    """Accepted: simt has no profiler hook (use simt.bench)."""
