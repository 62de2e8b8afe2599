"""The WebGPU runtime: WGSL compute shaders run through `wgpu` (wgpu-py) on any GPU that is
not NVIDIA's (Vulkan, Metal, D3D12, OpenGL), and on Mesa's software adapters in CI.

One adapter and device per process (`webgpu_device`). Arrays are storage buffers that stay on
the device between launches (bool arrays as one u32 per element, 8/16-bit elements packed
in u32 words, the last word padded). The rendered WGSL and its layout are kept on disk
(`webgpu_cache`, keyed on the IR): a new process does not render a kernel again. Shader
modules are cached by the hash of their WGSL and pipelines by (WGSL, block shape): the block
shape is a pipeline constant, so one shader serves every block shape. Both tables hold them
weakly: a compiled kernel keeps its shader module and the pipelines it launched with, so they
go when the user's kernel does (a driver compiles each pipeline to machine code: lavapipe's
took ~0.6 MB each, and a process that made thousands of kernels kept them all). Launches are queued
and return at once; reading a buffer back waits (in wgpu 0.32
`queue.on_submitted_work_done_sync()` raises, so `synchronize` reads a small buffer instead).
A launch whose kernel prints or can fail (assert, debug-mode bounds checks) reads its print
and error buffers back before it returns.

`SIMT_WEBGPU_ADAPTER` chooses the adapter (see `webgpu_device`); `SIMT_WEBGPU_PRINT_MB` sets
the size of the print buffer (default 16 MiB); `SIMT_WEBGPU_TIMEOUT` is the time budget of
launches, in seconds (default 300; 0 waits for ever): waiting longer for queued launches to
finish (a read-back, `synchronize`) is a KernelError saying so, not a wait for ever (a device
cannot stop a running shader: simt stops waiting and opens the device again).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import numpy as np

from ..backends.wgsl import F32_ONLY_MATH, MISSING_MATH, render_kernel
from ..backends.wgsl_layout import RECORD_DIMS, RECORD_WORDS, Binding, WgslKernel
from ..errors import (
    BackendUnavailable,
    CompileError,
    KernelError,
    LaunchError,
    SimtError,
    mark_internal,
)
from ..ir import Function, walk
from ..passes import legalise
from ..types import FLOAT64, INT64, UINT64, Scalar
from . import webgpu_cache
from .base import Compiled, DeviceFacts, Dim3, Nominal, PrintRecord, Runtime, unflatten
from .printing import emit
from .webgpu_device import (
    MIB,
    Device,
    WgslCaps,
    caps_of,
    check_binding,
    dispatch,
    driver_output,
    is_lost,
    open_device,
    reopen,
)

__all__ = ["WebGPURuntime", "WgslCaps", "render_checked", "wgsl_target"]

_NO_ERROR = 0xFFFFFFFF
TIMEOUT_ENV = "SIMT_WEBGPU_TIMEOUT"
DEFAULT_TIMEOUT = 300.0
# devices left behind by a launch past its time budget: kept, since dropping one waits for
# its queue to finish
_abandoned: list[Any] = []
_T = TypeVar("_T")


def last_line(e: BaseException) -> str:
    """The last non-empty line of a wgpu error (its cause: "Parent device is lost")."""
    return next((ln.strip() for ln in reversed(str(e).splitlines()) if ln.strip()), "")


def lost_message(name: str, what: str, said: str, reopened: bool = False) -> str:
    """A device lost while simt was `what` (running a kernel, reading an array back)."""
    when = "before simt was" if reopened else "while"
    return (
        f"the webgpu device ({name}) was lost {when} {what} (the driver said: {said!r}). A "
        "kernel that runs too long (a loop that never ends, say) makes the driver reset the "
        "device. simt opened the device again: launches work, but arrays kept on the device "
        "before (simt.to_device) are gone; make them again"
    )


def driver_failure(
    fn: Function, what: str, device: str, error: BaseException, printed: list[str]
) -> CompileError:
    """The CompileError of a kernel whose compilation by the GPU driver lost the device
    (twice: on the device it found and on a fresh one, `WebGPURuntime._driver_compile`)."""
    loc = next((op.loc for op in walk(fn.body) if op.loc is not None), None)
    said = f"the driver printed {' / '.join(printed[-3:])!r}; " if printed else ""
    return CompileError(
        f"the webgpu driver of {device} failed while compiling {fn.name}() ({what}) and the "
        f"device was lost ({said}wgpu said {last_line(error)!r}), on a fresh device again: "
        "the GPU driver's own shader compiler fails on the WGSL simt made for this kernel, "
        "not your code. simt opened a fresh device, so other kernels run; run this one on "
        "another backend (simt.use(\"cpu\")) and please report it with its WGSL "
        f"({fn.name}.source(\"webgpu\", ...)); docs/backends.md lists what is known",
        filename=loc.filename if loc else fn.filename,
        line=loc.line if loc else None,
        source_line=loc.source_line if loc else None,
    )


def time_budget() -> float | None:
    """How long to wait for queued launches, in seconds (`SIMT_WEBGPU_TIMEOUT`, default
    300: lavapipe compiles a large debug-mode shader at its first launch, which took ~30 s
    on a busy 2-core machine); None: for ever (the variable is 0)."""
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    try:
        seconds = float(text) if text else DEFAULT_TIMEOUT
    except ValueError:
        raise LaunchError(
            f"{TIMEOUT_ENV}={text!r} is not a number of seconds; set it to e.g. 120, or 0 to "
            "wait for launches for ever"
        ) from None
    return seconds if seconds > 0 else None


def wgsl_target(caps: WgslCaps) -> legalise.Target:
    """What WGSL, and an adapter with `caps`, cannot compile or needs written differently
    (`passes.legalise`)."""
    return legalise.Target(
        backend="webgpu",
        language="WGSL",
        device=caps.adapter,
        float64=caps.f64,
        int64=caps.i64,
        missing_math=MISSING_MATH,
        float32_only_math=F32_ONLY_MATH,
        atomic_bits=32,
        known_index_in_bounds=True,  # a shader compiler refuses a known index out of bounds
        storage_buffers=caps.max_storage_buffers,
        workgroup_bytes=caps.max_workgroup_storage,
        shared_word=4,  # bool and 8/16-bit shared elements take a word each (wgsl_storage)
        loop_limit=caps.loop_limit,
        hide_wide_ints=True,  # NVIDIA's Vulkan driver misread some (docs/backends.md)
        exact_float=True,  # drivers fuse and fold float arithmetic; NumPy does neither
        bind_literals=True,  # naga evaluates literal expressions, cannot convert 64-bit ones
        wrapping_abs=True,  # naga's SAbs is poison at INT_MIN on lavapipe (fuzzer seed 21623)
    )


def render_checked(
    fn: Function, caps: WgslCaps | None = None, writable: frozenset[int] = frozenset()
) -> WgslKernel:
    """`fn` refused where WGSL or the adapter cannot compile it (a CompileError at the user's
    line), else legalised for it (in place) and rendered (`backends.wgsl.render_kernel`)."""
    legalise.legalise(fn, wgsl_target(caps or WgslCaps()))
    return render_kernel(fn, writable)


class _Pipeline:
    """A compute pipeline: of one kernel's WGSL (declared with `module`) for one block shape.
    Kept by the compiled kernels that launched with it (`Compiled.meta["pipelines"]`); the
    runtime's table finds it again only while one of them does."""

    __slots__ = ("__weakref__", "bgl", "k", "module", "pipe")

    def __init__(self, pipe: Any, bgl: Any, k: WgslKernel, module: Any) -> None:
        self.pipe, self.bgl, self.k, self.module = pipe, bgl, k, module


class WebGPURuntime(Runtime):
    """Kernels as WGSL compute shaders on the process's WebGPU device."""

    name = "webgpu"
    max_threads = 2**32 - 1
    max_threads_why = "WGSL numbers threads in 32 bits"
    latency_hiding = True
    refuses_types = True
    warp_slots = 256  # a workgroup's most invocations (WebGPU's default limit)
    nominal = Nominal(copy_bandwidth=100e9, peak_flops=2e12, launch_overhead=100e-6,
                      far_rate=1e9, line_bytes=32)  # fmt: skip

    def __init__(self) -> None:
        self.dev: Device = open_device()
        # by the hash of their WGSL (and block shape), held by the compiled kernels alone
        # (`Compiled.handle`, `_Pipeline.module`, `Compiled.meta["pipelines"]`)
        self._modules: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
        self._pipelines: weakref.WeakValueDictionary[tuple[str, tuple[int, int, int]],
                                                     _Pipeline] = weakref.WeakValueDictionary()
        self._opened = 0  # devices opened again (`_reopen`): older pipelines are of a lost one
        self._print_buf: Any = None
        self._print64_buf: Any = None
        self._sync_buf: Any = None
        self._running: list[str] = []  # kernels launched and not yet waited for
        # the wait for launches past their time budget, while the device still runs them
        self._waiter: threading.Thread | None = None
        self._wait_lock = threading.Lock()  # launches may come from several threads (dask)
        self._waiting_for: list[str] = []
        self._last_loss = ""  # what wgpu said when simt last found the device lost
        self._caps: tuple[Device, WgslCaps] | None = None  # `caps`, of the device it was read on

    # ------------------------------------------------------------------ discovery
    @classmethod
    def probe(cls) -> tuple[bool, str]:
        try:
            dev = open_device()
        except BackendUnavailable as e:
            return False, str(e)
        except Exception as e:  # noqa: BLE001 - a probe never raises
            return False, f"{type(e).__name__}: {e}"
        import wgpu

        why = f"{dev.describe()} through wgpu {wgpu.__version__}"
        if dev.backend == "OpenGL":  # only ever by SIMT_WEBGPU_ADAPTER (webgpu_device.choose)
            why += " — OpenGL, as SIMT_WEBGPU_ADAPTER asks: known wrong results (docs/backends.md)"
        return True, why

    def info(self) -> dict[str, str]:
        d = self.dev
        import wgpu

        return {
            "adapter": d.name,
            "backend": d.backend,
            "type": "CPU adapter (software)" if d.is_cpu else d.adapter_type,
            "features": ", ".join(sorted(d.features)) or "no f64, no i64",
            "max binding": f"{d.limits.get('max-storage-buffer-binding-size', 0) // MIB} MiB",
            "wgpu": wgpu.__version__,
        }

    @property
    def caps(self) -> WgslCaps:
        """What this device compiles and launches (`webgpu_device.caps_of`), read once per
        device (a lost device is replaced by a new one)."""
        if self._caps is None or self._caps[0] is not self.dev:
            self._caps = (self.dev, caps_of(self.dev))
        return self._caps[1]

    # ------------------------------------------------------------------ compile
    @classmethod
    def source(cls, fn: Function) -> str:
        """The WGSL text of `fn` for an adapter that has every feature (no device opened)."""
        return render_checked(fn).source

    def render(self, fn: Function) -> str:
        """The WGSL text of `fn` for this adapter."""
        return render_checked(fn, self.caps).source

    def has_int64(self) -> bool:
        return "shader-int64" in self.dev.features

    def has_float64(self) -> bool:
        return "shader-f64" in self.dev.features

    def device_facts(self) -> DeviceFacts:
        # the adapter's own limit on threads per workgroup (its caps), not WebGPU's default
        return DeviceFacts(
            self.info().get("adapter", "webgpu"), 32, 8, self.caps.max_block_threads
        )

    def compile(self, fn: Function) -> Compiled:
        k, module, key = self._variant(fn, frozenset())
        return Compiled(fn, k.source, module, {"wgsl": k, "key": key})

    def _variant(self, fn: Function, writable: frozenset[int]) -> tuple[WgslKernel, Any, str]:
        """The rendered kernel, its shader module and its hash, with the array parameters at
        `writable` declared writable (see `render_kernel`)."""
        # refusals said at the user's line, and the adapter's rewrites, before the cache's
        # key is made (its error sites are ops of the legalised IR)
        legalise.legalise(fn, wgsl_target(self.caps))
        disk = webgpu_cache.key(fn, self.caps, writable)
        k = webgpu_cache.load(disk, fn)
        if k is None:
            k = render_kernel(fn, writable)
            webgpu_cache.store(disk, fn, k)
        key = hashlib.sha256(k.source.encode()).hexdigest()
        module = self._modules.get(key)
        if module is None:
            source = k.source
            module = self._driver_compile(
                fn, "its shader module", lambda: self._shader_module(fn, source)
            )
            self._modules[key] = module
        return k, module, key

    def _shader_module(self, fn: Function, source: str) -> Any:
        try:
            return self.dev.device.create_shader_module(code=source)
        except Exception as e:
            if is_lost(e):
                raise  # the driver, not the WGSL (`_driver_compile`)
            # naga refused our WGSL: a simt bug, said so
            raise mark_internal(CompileError(
                f"internal error: the WebGPU driver rejected the WGSL simt made for "
                f"{fn.name} (this is a bug in simt): {e}"
            )) from None

    def _driver_compile(self, fn: Function, what: str, make: Callable[[], _T]) -> _T:
        """`make()` (a shader module or pipeline of `fn` made on this device), where a lost
        device is told apart: lost before (a kernel that ran too long, a reset) or lost by the
        driver's own compiler failing on this kernel (NVIDIA's Vulkan driver printed "NVVM
        compilation failed" and wgpu said "Parent device is lost"). The device is opened again
        and `make()` tried once more with the driver's output captured: lost again, it is
        this kernel, a CompileError in the user's terms (not "a bug in simt", not a refused
        block shape), and the device is opened again, so the next kernel runs."""
        try:
            return make()
        except Exception as e:
            if isinstance(e, SimtError) or not is_lost(e):
                raise
            self._last_loss = last_line(e)
        self._reopen()
        failure: Exception | None = None
        with driver_output() as said:
            try:
                result = make()
            except Exception as e:  # noqa: BLE001 - judged below, once the output is read
                failure = e
        if failure is None:
            return result
        if isinstance(failure, SimtError) or not is_lost(failure):
            raise failure
        device = self.dev.describe()
        self._reopen()
        raise driver_failure(fn, what, device, failure, said) from None

    def _pipeline(self, compiled: Compiled, block: Dim3, args: list[Any]) -> _Pipeline:
        """The pipeline of this launch: per block shape, and per set of array arguments
        bound twice (`f(a, a)`: those are declared writable). A device lost on the way:
        `_driver_compile`."""
        return self._driver_compile(
            compiled.fn, "its compute pipeline", lambda: self._make_pipeline(compiled, block, args)
        )

    def _make_pipeline(self, compiled: Compiled, block: Dim3, args: list[Any]) -> _Pipeline:
        k: WgslKernel = compiled.meta["wgsl"]
        aliased = self._aliased(k, args)
        shape = (block.x, block.y, block.z)
        # the kernel's own pipelines, of the device open now: what keeps them alive
        own: tuple[int, dict[Any, _Pipeline]] | None = compiled.meta.get("pipelines")
        if own is None or own[0] != self._opened:
            own = compiled.meta["pipelines"] = (self._opened, {})
        got = own[1].get((aliased, shape))
        if got is not None:
            return got
        module, source_key = compiled.handle, compiled.meta["key"]
        if aliased or source_key not in self._modules:  # (or a device opened again since)
            k, module, source_key = self._variant(compiled.fn, aliased)
        key = (source_key, shape)
        got = self._pipelines.get(key)  # the same WGSL launched by another kernel
        if got is None:
            got = self._new_pipeline(compiled, block, k, module)
            self._pipelines[key] = got
        own[1][(aliased, shape)] = got
        return got

    def _new_pipeline(self, compiled: Compiled, block: Dim3, k: WgslKernel,
                      module: Any) -> _Pipeline:  # fmt: skip
        import wgpu

        entries = []
        for b in k.bindings:
            if b.kind == "params":
                layout = {"type": wgpu.BufferBindingType.uniform}
            elif b.read_only:
                layout = {"type": wgpu.BufferBindingType.read_only_storage}
            else:
                layout = {"type": wgpu.BufferBindingType.storage}
            entries.append(
                {"binding": b.index, "visibility": wgpu.ShaderStage.COMPUTE, "buffer": layout}
            )
        dev = self.dev.device
        bgl = dev.create_bind_group_layout(entries=entries)
        layout = dev.create_pipeline_layout(bind_group_layouts=[bgl])
        constants = {"simt_bx": block.x, "simt_by": block.y, "simt_bz": block.z}
        try:
            pipe = dev.create_compute_pipeline(
                layout=layout,
                compute={"module": module, "entry_point": k.entry, "constants": constants},
            )
        except Exception as e:
            if is_lost(e):
                raise  # the driver's compiler, or a device lost before (`_driver_compile`)
            raise LaunchError(
                f"the WebGPU device refused a block of {tuple(block)} threads for "
                f"{compiled.fn.name}: {e}"
            ) from None
        return _Pipeline(pipe, bgl, k, module)

    # ------------------------------------------------------------------ memory
    def _usage(self) -> int:
        import wgpu

        u = wgpu.BufferUsage
        return int(u.STORAGE | u.COPY_SRC | u.COPY_DST)

    @staticmethod
    def _padded(nbytes: int) -> int:
        return max((nbytes + 15) // 16 * 16, 16)

    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        with self._lost_device("making an array"):
            return self._empty(shape, dtype)

    def _empty(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        dt = np.dtype(dtype)
        n = int(np.prod(shape, dtype=np.int64))
        nbytes = n * (4 if dt == np.bool_ else dt.itemsize)
        check_binding(self.caps, nbytes, f"an array of shape {tuple(shape)} and dtype {dt}")
        return self.dev.device.create_buffer(size=self._padded(nbytes), usage=self._usage())

    def max_array_bytes(self) -> int | None:
        return self.caps.max_binding_bytes

    def upload(self, host: np.ndarray) -> Any:
        with self._lost_device("copying an array to the device"):
            return self._upload(host)

    def _upload(self, host: np.ndarray) -> Any:
        if self._waiter is not None:  # still running a launch past its time budget
            self._wait_launches()
        data = np.ascontiguousarray(host)
        if data.dtype == np.bool_:
            data = data.astype(np.uint32)
        what = f"an array of shape {host.shape} and dtype {host.dtype}"
        check_binding(self.caps, data.nbytes, what)
        buf = self.dev.device.create_buffer(size=self._padded(data.nbytes), usage=self._usage())
        if data.nbytes:
            raw = data.reshape(-1).view(np.uint8)
            if data.nbytes % 4:  # 8/16-bit elements packed in words: copies are whole words
                raw = np.concatenate([raw, np.zeros(-data.nbytes % 4, np.uint8)])
            self.dev.device.queue.write_buffer(buf, 0, raw)
        return buf

    def download(self, buf: Any, out: np.ndarray) -> None:
        self._check_buffer(buf, "this array")
        with self._lost_device("reading an array back"):
            self._download(buf, out)

    def _download(self, buf: Any, out: np.ndarray) -> None:
        self._wait_launches()
        stored = np.dtype(np.uint32) if out.dtype == np.bool_ else out.dtype
        nbytes = out.size * stored.itemsize
        if nbytes == 0:
            return
        # whole words (8/16-bit elements are packed); only the array's own bytes are used
        raw = self.dev.device.queue.read_buffer(buf, 0, (nbytes + 3) // 4 * 4)
        flat = np.frombuffer(raw, dtype=stored, count=out.size)
        out[...] = (
            (flat != 0).reshape(out.shape) if out.dtype == np.bool_ else flat.reshape(out.shape)
        )

    def synchronize(self) -> None:
        with self._lost_device("waiting for the device"):
            self._synchronize()

    def _synchronize(self) -> None:
        # Reading a buffer back waits for every submission before it.
        self._wait_launches()
        if self._sync_buf is None:
            self._sync_buf = self.dev.device.create_buffer(size=16, usage=self._usage())
        self.dev.device.queue.read_buffer(self._sync_buf, 0, 4)

    # ------------------------------------------------------------------ a lost device
    @contextlib.contextmanager
    def _lost_device(self, what: str) -> Iterator[None]:
        """A lost device (the driver reset it after a kernel ran too long, or the GPU went
        away) becomes a KernelError saying so; the device is opened again, so the next launch
        runs, while arrays that lived on the lost one are gone."""
        try:
            yield
        except Exception as e:
            if isinstance(e, SimtError) or not is_lost(e):
                raise
            name = self.dev.name
            self._reopen()
            raise KernelError(lost_message(name, what, last_line(e))) from None

    def _reopen(self) -> None:
        self.dev = reopen()
        self._opened += 1
        self._modules.clear()
        self._pipelines.clear()
        self._print_buf = self._print64_buf = self._sync_buf = None

    def _wait_launches(self) -> None:
        """Wait for the launches queued so far, at most `time_budget()` seconds: past it, a
        KernelError says which kernels and how to raise the budget. No device can stop a
        running shader, so the device goes on with it: until it is done, each later use of
        the device waits for it again, at most the budget (`_waiter`)."""
        budget = time_budget()
        with self._wait_lock:  # one waiter at a time, seen the same by every thread
            waiter = self._waiter
            if waiter is None:
                if not self._running:
                    return
                names, self._running = self._running, []
                if budget is None:
                    return  # the read that follows waits
                if self._sync_buf is None:
                    self._sync_buf = self.dev.device.create_buffer(size=16, usage=self._usage())
                # reading a buffer back waits for every launch before it (wgpu 0.32's
                # `on_submitted_work_done_async` fails); on a daemon thread, so that one that
                # never returns keeps neither this call nor the process's exit waiting
                queue, buf = self.dev.device.queue, self._sync_buf
                waiter = threading.Thread(target=queue.read_buffer, args=(buf, 0, 4),
                                          daemon=True, name="simt-webgpu-wait")  # fmt: skip
                self._waiter, self._waiting_for = waiter, names
                waiter.start()
        waiter.join(budget)
        if not waiter.is_alive():
            with self._wait_lock:
                if self._waiter is waiter:
                    self._waiter = None
            return
        which = ", ".join(f"{n}()" for n in dict.fromkeys(self._waiting_for))
        raise KernelError(
            f"the webgpu launch of {which} ran longer than its time budget of {budget:g} s on "
            f"{self.dev.name}, and simt stopped waiting for it (a loop that never ends?). If "
            f"it is meant to run that long, raise the budget: {TIMEOUT_ENV}=<seconds> in the "
            "environment (0 waits for ever). No device can stop a running shader: until it "
            "is done, each use of the webgpu device waits for it again (at most the budget); "
            "the other backends work meanwhile (simt.use(\"cpu\"))"
        )

    def _check_buffer(self, buf: Any, what: str) -> None:
        """LaunchError when `buf` belongs to a device lost since it was made."""
        owner = getattr(buf, "_device", None)  # wgpu-py's GPUBuffer knows its device
        if owner is not None and owner is not self.dev.device:
            raise LaunchError(
                f"{what} lived on a webgpu device that was lost (see the KernelError before); "
                "make it again (simt.to_device) on the device simt opened since"
            )

    # ------------------------------------------------------------------ launch
    def _uniform(self, k: WgslKernel, grid: Dim3, args: list[Any]) -> bytes:
        raw = bytearray(k.uniform_size)
        for f in k.uniform:
            src = f.source
            if src[0] == "scalar":
                value: Any = args[int(src[1])]  # type: ignore[call-overload]
            elif src[0] == "shape":
                value = args[int(src[1])].shape[int(src[2])]  # type: ignore[call-overload]
            elif src[0] == "stride":
                value = args[int(src[1])].strides[int(src[2])]  # type: ignore[call-overload]
            elif src[0] == "grid":
                value = tuple(grid)[int(src[1])]  # type: ignore[call-overload]
            elif src[0] == "blocks":
                value = grid.size
            else:
                value = 0
            dt = f.type.np
            if f.type.is_int and np.dtype(dt).itemsize == 4:
                value = int(value) & 0xFFFFFFFF if f.type.kind == "u" else int(value)
            arr = np.array([value]).astype(dt)
            raw[f.offset : f.offset + dt.itemsize] = arr.tobytes()
        return bytes(raw)

    def _check_args(self, k: WgslKernel, args: list[Any], names: list[str]) -> None:
        for b in k.bindings:
            if b.kind != "array":
                continue
            a = args[b.param]
            name = names[b.param]  # the parameter's name (`b.name` is the WGSL one)
            if getattr(a, "runtime", None) is not self:
                raise LaunchError(f"argument {name!r} is not an array on the webgpu device")
            self._check_buffer(a.buf, f"argument {name!r}")
            if a.ndim and a.strides[-1] != 1 and a.shape[-1] > 1:
                raise LaunchError(
                    f"argument {name!r} is not contiguous in its last dimension; pass a "
                    "C-contiguous array"
                )

    @staticmethod
    def _aliased(k: WgslKernel, args: list[Any]) -> frozenset[int]:
        seen: dict[int, list[int]] = {}
        for b in k.bindings:
            if b.kind == "array":
                seen.setdefault(id(args[b.param].buf), []).append(b.param)
        return frozenset(i for group in seen.values() if len(group) > 1 for i in group)

    def _print_buffers(self) -> tuple[Any, Any]:
        if self._print_buf is None:
            mb = float(os.environ.get("SIMT_WEBGPU_PRINT_MB", "16"))
            limit = self.caps.max_binding_bytes
            size = min(max(int(mb * MIB) // 16 * 16, 64), limit)
            self._print_buf = self.dev.device.create_buffer(size=size, usage=self._usage())
            self._print64_buf = self.dev.device.create_buffer(
                size=min(size, limit), usage=self._usage()
            )
        return self._print_buf, self._print64_buf

    def launch(self, kernel: Compiled, grid: Dim3, block: Dim3, args: list[Any]) -> None:
        with self._lost_device(f"running {kernel.fn.name}"):
            self._launch(kernel, grid, block, args)

    def _launch(self, kernel: Compiled, grid: Dim3, block: Dim3, args: list[Any]) -> None:
        import wgpu

        if self._waiter is not None:  # still running a launch past its time budget
            self._wait_launches()
        dims = dispatch(self.caps, (grid.x, grid.y, grid.z), (block.x, block.y, block.z))
        self._check_args(kernel.meta["wgsl"], args, [p.name for p in kernel.fn.params])
        before = self.dev.device
        pipeline = self._pipeline(kernel, block, args)
        pipe, bgl, k = pipeline.pipe, pipeline.bgl, pipeline.k
        if self.dev.device is not before:  # lost before this launch, opened again meanwhile
            raise KernelError(lost_message(
                self.dev.name, f"preparing {kernel.fn.name}", self._last_loss, reopened=True
            ))
        dev = self.dev.device
        queue = dev.queue
        ubuf = dev.create_buffer(
            size=max(k.uniform_size, 16),
            usage=wgpu.BufferUsage.UNIFORM | wgpu.BufferUsage.COPY_DST,
        )
        queue.write_buffer(ubuf, 0, self._uniform(k, grid, args))
        err_buf = None
        entries = []
        for b in k.bindings:
            buf = self._binding_buffer(b, k, args, ubuf)
            if b.kind == "errors":
                err_buf = buf
            entries.append({"binding": b.index, "resource": {"buffer": buf}})
        group = dev.create_bind_group(layout=bgl, entries=entries)
        enc = dev.create_command_encoder()
        cpass = enc.begin_compute_pass()
        cpass.set_pipeline(pipe)
        cpass.set_bind_group(0, group)
        cpass.dispatch_workgroups(*dims)
        cpass.end()
        queue.submit([enc.finish()])
        self._running = [*self._running[-2:], kernel.fn.name]
        if k.print_types:
            self._emit_prints(k)
        if err_buf is not None:
            self._check_errors(kernel, k, err_buf, grid, block)

    def _binding_buffer(self, b: Binding, k: WgslKernel, args: list[Any], ubuf: Any) -> Any:
        queue = self.dev.device.queue
        if b.kind == "array":
            return args[b.param].buf
        if b.kind == "params":
            return ubuf
        if b.kind == "errors":
            n = len(k.error_ops)
            init = np.full(n, _NO_ERROR, np.uint32)
            if k.error_record:  # unlocked, no thread, no site, then the access's words
                record = np.zeros(RECORD_WORDS, np.uint32)
                record[1:3] = _NO_ERROR
                init = np.concatenate([init, record])
            buf = self.dev.device.create_buffer(
                size=self._padded(4 * len(init)), usage=self._usage()
            )
            queue.write_buffer(buf, 0, init.tobytes())
            return buf
        words, f64s = self._print_buffers()
        buf = words if b.kind == "prints" else f64s
        queue.write_buffer(buf, 0, np.zeros(4, np.uint32).tobytes())  # head = 0
        return buf

    def _emit_prints(self, k: WgslKernel) -> None:
        self._wait_launches()
        words_buf, f64_buf = self._print_buffers()
        queue = self.dev.device.queue
        head = int(np.frombuffer(queue.read_buffer(words_buf, 0, 4), np.uint32)[0])
        capacity = words_buf.size // 4 - 1
        used = min(head, capacity)
        words = np.frombuffer(queue.read_buffer(words_buf, 4, max(used, 1) * 4), np.uint32)
        f64s: np.ndarray | None = None
        if any(FLOAT64 in ts for ts in k.print_types):
            n64 = int(np.frombuffer(queue.read_buffer(f64_buf, 0, 4), np.uint32)[0])
            cap64 = (f64_buf.size - 8) // 8
            f64s = np.frombuffer(
                queue.read_buffer(f64_buf, 8, max(min(n64, cap64), 1) * 8), np.float64
            )
        records, lost = decode_prints(words[:used], k.print_types, f64s)
        if head > capacity:
            mb = words_buf.size / MIB
            warnings.warn(
                f"simt: the webgpu print buffer ({mb:.3g} MiB) filled up during this launch and "
                f"about {4 * (head - used)} bytes of print records were dropped; set "
                "SIMT_WEBGPU_PRINT_MB to a larger size",
                RuntimeWarning,
                stacklevel=4,
            )
        emit(records, k.print_formats)  # type: ignore[arg-type]

    def _check_errors(
        self, compiled: Compiled, k: WgslKernel, buf: Any, grid: Dim3, block: Dim3
    ) -> None:
        self._wait_launches()
        n = len(k.error_ops) + (RECORD_WORDS if k.error_record else 0)
        words = np.frombuffer(self.dev.device.queue.read_buffer(buf, 0, 4 * n), np.uint32)
        firsts = words[: len(k.error_ops)]
        if not np.any(firsts != _NO_ERROR):
            return
        site = int(np.argmin(firsts))
        thread = int(firsts[site])
        op = k.error_ops[site]
        from ..backends.common import describe_failure

        index = shape = None
        rec = words[len(k.error_ops) :]
        if k.error_record and int(rec[1]) == thread and int(rec[2]) == site:
            nd = int(rec[3])
            index = [int(x) for x in rec[4 : 4 + 2 * nd].copy().view(np.int64)]
            shape = [int(x) for x in rec[4 + 2 * RECORD_DIMS : 4 + 2 * RECORD_DIMS + nd]]
        bidx, tidx = unflatten(thread, grid, block)
        loc = op.loc
        raise KernelError(
            describe_failure(op, index, shape),
            block=bidx,  # type: ignore[arg-type]
            thread=tidx,  # type: ignore[arg-type]
            filename=loc.filename if loc else compiled.fn.filename,
            line=loc.line if loc else None,
            source_line=loc.source_line if loc else None,
        )


def decode_prints(
    words: np.ndarray, types: list[list[Scalar]], f64s: np.ndarray | None
) -> tuple[list[PrintRecord], int]:
    """The `PrintRecord`s in a print buffer's words (records `[thread, seq, print id,
    values...]`); also the number of words left over (a record cut short by a full buffer)."""
    out: list[PrintRecord] = []
    pos = 0
    n = len(words)
    while pos + 3 <= n:
        thread, seq, pid = int(words[pos]), int(words[pos + 1]), int(words[pos + 2])
        ts = types[pid]
        width = 3 + sum(2 if t in (INT64, UINT64) else 1 for t in ts)
        if pos + width > n:
            break
        values = []
        w = pos + 3
        for t in ts:
            word = words[w : w + 1]
            if t in (INT64, UINT64):
                values.append(words[w : w + 2].view(t.np)[0])
                w += 2
                continue
            if t == FLOAT64:
                j = int(word[0])
                values.append(
                    np.float64(f64s[j]) if f64s is not None and j < len(f64s) else np.float64("nan")
                )
            elif t.is_bool:
                values.append(np.bool_(word[0] != 0))
            else:
                values.append(word.view(t.np)[0])
            w += 1
        out.append(PrintRecord(thread, seq, pid, tuple(values)))
        pos += width
    return out, n - pos
