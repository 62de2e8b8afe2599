"""The CUDA runtime: NVRTC to CUBIN for the present GPU, launched through `cuda-core`.

Kernels are rendered by `backends/cuda.py`, compiled by `nvrtc.compile_cubin` for the device's
own `sm_XY` (never PTX: the driver may be older than NVRTC) and cached on disk. Work goes to
the legacy default stream, so it is ordered with CuPy's and PyTorch's default streams and
their arrays can be passed in without copies (`wrap_foreign`).

Prints and errors: a kernel with `print` (or compiled in debug mode) is checked right after
its launch (the launch then waits), so its output lands where `sim`'s would; a kernel whose
only failure sites are `assert`s and bounds checks is checked at the next `synchronize` or copy
back. That check costs no driver call when nothing failed: every failing thread also sets one
word of mapped pinned host memory (the failure flag, `cuda_layout.ERR_FLAG`), which the host
reads after the synchronisation; only when it is set are the kernels' error records copied back.

Sticky errors: after an illegal address, an illegal instruction, a misaligned access (and the
other errors in `STICKY`) CUDA leaves the process's context unusable; every later driver call
fails the same way. The runtime remembers the first such failure (the kernels launched since the
last good synchronisation, the user's file and line) and reports every later compile, allocation,
launch and copy as a `KernelError` naming it and saying to restart the Python process, rather
than as an error of the innocent kernel that happens to run next.
"""

from __future__ import annotations

import ctypes
import os
import re
import struct
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .. import cache
from ..array import DeviceArray, c_strides
from ..backends import cuda as renderer
from ..backends import cuda_layout as layout
from ..backends.common import describe_failure
from ..errors import BackendUnavailable, KernelError, LaunchError
from ..ir import Function, Hidden, walk
from ..types import ArrayType, scalar_of_dtype
from . import nvrtc
from .base import Compiled, DeviceFacts, Dim3, Nominal, PrintRecord, Runtime, unflatten
from .cuda_interop import KDL_CUDA, cai_dict, dlpack_capsule, read_cai
from .printing import emit

_NO_ERROR = 0xFFFFFFFFFFFFFFFF
_SCALAR, _ARRAY, _CONST = range(3)  # launch plan entries
PRINT_WORDS = int(os.environ.get("SIMT_CUDA_PRINT_WORDS", str(1 << 22)))
#: CUDA errors that leave the context unusable: the process must be restarted to use the GPU
STICKY = frozenset({
    "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_ILLEGAL_INSTRUCTION",
    "CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_HARDWARE_STACK_ERROR",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE", "CUDA_ERROR_INVALID_PC", "CUDA_ERROR_LAUNCH_FAILED",
    "CUDA_ERROR_LAUNCH_TIMEOUT", "CUDA_ERROR_ASSERT", "CUDA_ERROR_EXTERNAL_DEVICE",
})  # fmt: skip
_ERROR_NAME = re.compile(r"CUDA_ERROR_[A-Z_]+")
_HOSTALLOC_DEVICEMAP = 0x02  # CU_MEMHOSTALLOC_DEVICEMAP
#: bytes of mapped pinned host memory allocated at a time (`CudaRuntime._mapped`): the failure
#: flag and the failure buffers of five kernels (`raising.buffer_words`: 45 KB each, 537 KB
#: with run-time messages)
MAPPED_CHUNK = 1 << 18


def _core() -> Any:
    """The `cuda.core` module (older releases keep the API under `cuda.core.experimental`)."""
    try:
        import cuda.core as core

        core.Device  # noqa: B018 - probe that this release exports the API at the top
        return core
    except (ImportError, AttributeError):
        import cuda.core.experimental as core

        return core


def _driver() -> Any:
    from cuda.bindings import driver

    return driver


def sticky_error(e: BaseException) -> str | None:
    """The name of the sticky CUDA error (`STICKY`) that exception `e` reports, or None."""
    for name in _ERROR_NAME.findall(f"{getattr(e, 'name', '')} {e}"):
        if name in STICKY:
            return name
    return None


def where(fn: Function) -> tuple[str | None, int | None]:
    """The user's file and the first line of kernel `fn`'s body (None when unknown)."""
    lines = [op.loc.line for op in walk(fn.body) if op.loc is not None]
    return (fn.filename, min(lines)) if lines else (None, None)


def _ok(result: Any, what: str) -> Any:
    """Unpack a `cuda.bindings.driver` call's (error, *values), raising on failure."""
    err, *rest = result if isinstance(result, tuple) else (result,)
    if int(err) != 0:
        raise RuntimeError(f"{what} failed: {getattr(err, 'name', err)}")
    return rest[0] if len(rest) == 1 else tuple(rest)


@dataclass
class CudaBuffer:
    """Device memory simt can index: a pointer and the object that owns the memory (a
    `cuda.core` Buffer, or a foreign array that must stay alive)."""

    ptr: int
    nbytes: int
    owner: Any = None
    strides: tuple[int, ...] | None = None  # in elements, for a foreign non-C-ordered view


class _AlwaysSet:
    """The failure flag where mapped pinned memory could not be had: always "maybe failed"."""

    value = property(lambda self: 1, lambda self, v: None)


@dataclass
class _Pending:
    """An `assert`-only kernel launched since the last check, and its launch shape."""

    kernel: Compiled
    grid: Dim3
    block: Dim3


class CudaRuntime(Runtime):
    """NVIDIA GPUs through NVRTC and cuda-core."""

    name = "cuda"
    warp_native = True  # __shfl_sync and friends
    nominal = Nominal(copy_bandwidth=1.5e12, peak_flops=30e12, launch_overhead=8e-6,
                      far_rate=5e9, line_bytes=32, stream_boost=4, fma_iters=4096,
                      many_threads=True)  # fmt: skip
    latency_hiding = True
    compiles_without_device = True
    cuda_arrays = True
    _probed: tuple[bool, str] | None = None

    @classmethod
    def probe(cls) -> tuple[bool, str]:
        """Whether a GPU, its driver and NVRTC are usable; never raises. Asked once per
        process (the answer does not change while it runs)."""
        if cls._probed is None:
            try:
                cls._probed = cls._probe()
            except Exception as e:  # noqa: BLE001 - probing must never break `simt info`
                cls._probed = (False, f"{type(e).__name__}: {e}")
        return cls._probed

    @classmethod
    def _probe(cls) -> tuple[bool, str]:
        v = nvrtc.version()
        nv = f"NVRTC {v[0]}.{v[1]}" if v else "NVRTC not usable (pip install simt[cuda])"
        try:
            driver = _driver()
        except ImportError:
            return False, f"cuda-bindings is not installed (pip install simt[cuda]); {nv}"
        try:
            (err,) = driver.cuInit(0)
        except Exception:  # noqa: BLE001 - DynamicLibNotFoundError and kin
            return False, f"no NVIDIA driver (libcuda not found); {nv}"
        if int(err) != 0:
            name = getattr(err, "name", str(err))
            return False, f"NVIDIA driver present but no usable GPU ({name}); {nv}"
        err, count = driver.cuDeviceGetCount()
        if int(err) != 0 or count == 0:
            return False, f"NVIDIA driver present but no GPU (CUDA_ERROR_NO_DEVICE); {nv}"
        err, dev = driver.cuDeviceGet(0)
        err, raw = driver.cuDeviceGetName(64, dev)
        gpu = raw.split(b"\0")[0].decode(errors="replace")
        major = _ok(
            driver.cuDeviceGetAttribute(
                driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev
            ),
            "cc",
        )
        minor = _ok(
            driver.cuDeviceGetAttribute(
                driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev
            ),
            "cc",
        )
        drv = _ok(driver.cuDriverGetVersion(), "driver version")
        what = f"{gpu} (sm_{major}{minor}), driver CUDA {drv // 1000}.{drv % 1000 // 10}; {nv}"
        if v is None:
            return False, f"{what}: NVRTC is needed to compile kernels"
        archs = nvrtc.supported_archs()
        if archs and f"sm_{major}{minor}" not in archs:
            return False, f"{what}: this NVRTC cannot compile for sm_{major}{minor}"
        try:
            _core()
        except ImportError:
            return False, f"{what}; cuda-core is not installed (pip install simt[cuda])"
        return True, what

    #: the first sticky error of this process (its message), shared by every instance: once
    #: set, the GPU cannot be used again until the process restarts
    broken: ClassVar[KernelError | None] = None

    def __init__(self) -> None:
        try:
            core = _core()
            self.core = core
            self.driver = _driver()
            self.device = core.Device(0)
            self.device.set_current()
            cc = self.device.compute_capability
            self.arch = f"sm_{cc[0]}{cc[1]}"
            self.stream = self.device.default_stream
            self.stream_handle = int(self.stream.handle)
        except Exception as e:  # noqa: BLE001 - cuda.core's CUDAError is not a RuntimeError
            raise BackendUnavailable(f"the CUDA device could not be opened: {e}") from None
        self._pending: list[_Pending] = []
        self._configs: dict[tuple[Dim3, Dim3], Any] = {}
        self._inflight: list[Function] = []  # launched since the last good synchronisation
        self._flag: Any = None  # the failure flag: a ctypes uint32 in mapped host memory
        self._flag_dev = 0  # its device address
        self._chunk = (0, 0, 0)  # mapped pinned memory left to hand out: host, device, bytes
        self._chunk_lock = threading.Lock()  # two threads' first compiles carve it at once
        # the first chunk is allocated in the background, beside the first compile's front end
        # and passes (`_mapped` waits for it): pinning memory is a slow driver call
        self._chunk_thread: threading.Thread | None = None
        try:
            err, ctx = self.driver.cuCtxGetCurrent()
            if int(err) == 0 and int(ctx) != 0:
                self._chunk_thread = threading.Thread(
                    target=self._first_chunk, args=(ctx,), name="simt-cuda-pinned", daemon=True
                )
                self._chunk_thread.start()
        except Exception:  # noqa: BLE001 - no context to share: the first `_mapped` allocates
            self._chunk_thread = None

    # ---------------------------------------------------------------- compile
    @classmethod
    def source(cls, fn: Function) -> str:
        """The CUDA C++ text of `fn`."""
        return renderer.render(fn)

    def device_facts(self) -> DeviceFacts:
        """The device's name, 32-thread warps, its multiprocessors and L2 cache."""
        sms, l2 = 0, 0
        try:
            props = self.device.properties
            sms = int(props.multiprocessor_count)
            l2 = int(props.l2_cache_size)
        except Exception:  # noqa: BLE001 - older cuda.core: a nominal count, no cache known
            pass
        return DeviceFacts(self.info().get("device", "cuda"), 32, sms or 80, 1024, l2)

    def compile(self, fn: Function) -> Compiled:
        """Render, compile to CUBIN for this GPU (through the disk cache), load."""
        self._usable(f"compiling {fn.name}()")
        kern = renderer.build(fn)
        cubin, log = cached_cubin(kern.source, self.arch, nvrtc_options(kern))
        try:
            code = self.core.ObjectCode.from_cubin(cubin, name=kern.name)
            handle = code.get_kernel(kern.name)
        except Exception as e:  # noqa: BLE001 - cuda.core's CUDAError is not a RuntimeError
            self._raise_if_sticky(e, f"loading {fn.name}()")
            raise
        res = nvrtc.parse_resources(log).get(kern.name, {})
        meta: dict[str, Any] = {"cuda": kern, "code": code, "resources": res}
        compiled = Compiled(fn, kern.source, handle, meta)
        if kern.prints:
            meta["print_buf"] = self._alloc_raw(4 * (PRINT_WORDS + 2))
        if any(p.hidden is Hidden.FAILURES for p in fn.params):
            self._failure_buffer(compiled)
        if kern.sites:
            err = self._alloc_raw(8 * layout.ERR_WORDS)
            meta["err_init"] = self._error_words()
            meta["err_buf"] = err
            self._reset_error(compiled)
        meta["plan"] = self._plan(fn, kern, meta)
        return compiled

    @staticmethod
    def _plan(
        fn: Function, kern: layout.CudaKernel, meta: dict[str, Any]
    ) -> list[tuple[int, int, Any]]:
        """How `launch` turns its arguments into the kernel's parameters, worked out once:
        (what, argument index, index type or constant value) per argument."""
        plan: list[tuple[int, int, Any]] = []
        for p in kern.params:
            if p.kind == "scalar":
                plan.append((_SCALAR, p.param, None))
            elif p.kind == "ptr":
                t = fn.params[p.param].value.type
                assert isinstance(t, ArrayType)
                words = meta.get("failures")
                if fn.params[p.param].hidden is Hidden.FAILURES and words is not None:
                    # the kernel's own failure buffer in mapped host memory: pointer, length,
                    # stride, the same at every launch
                    plan += [(_CONST, 0, np.uint64(meta["failures_dev"])),
                             (_CONST, 0, t.index.np.type(words.size)), (_CONST, 0, np.int64(1))]
                    continue
                plan.append((_ARRAY, p.param, t.index.np.type))
            elif p.kind == "print":
                plan.append((_CONST, 0, np.uint64(meta["print_buf"].ptr)))
            elif p.kind == "print_cap":
                plan.append((_CONST, 0, np.uint32(PRINT_WORDS)))
            elif p.kind == "error":
                plan.append((_CONST, 0, np.uint64(meta["err_buf"].ptr)))
            # "shape" and "stride" parameters travel with their array's pointer
        return plan

    # ---------------------------------------------------------------- launch
    def launch(self, kernel: Compiled, grid: Dim3, block: Dim3, args: list[Any]) -> None:
        """Launch on the default stream; waits only when the kernel prints or is in debug
        mode, to report what it printed or the first failing thread."""
        if CudaRuntime.broken is not None:
            self._usable(f"launching {kernel.fn.name}()")
        kern: layout.CudaKernel = kernel.meta["cuda"]
        pbuf: CudaBuffer | None = kernel.meta.get("print_buf")
        ebuf: CudaBuffer | None = kernel.meta.get("err_buf")
        values: list[Any] = []
        add = values.append
        for code, i, conv in kernel.meta["plan"]:
            if code == _SCALAR:
                add(args[i])
            elif code == _ARRAY:
                a = args[i]
                # pointer, shape and strides as kernel parameters, made once per array
                cached = a.__dict__.get("_cuda_params") if isinstance(a, DeviceArray) else None
                if cached is None or cached[0] is not conv:
                    cached = (conv, _array_params(a, conv, kern.name))
                    if isinstance(a, DeviceArray):
                        a.__dict__["_cuda_params"] = cached
                values.extend(cached[1])
            else:  # a constant: the print buffer, its size, the error word
                add(conv)
        if pbuf is not None:
            self._memset8(pbuf.ptr, 0, 8)
        config = self._configs.get((grid, block))
        if config is None:
            config = self.core.LaunchConfig(grid=tuple(grid), block=tuple(block))
            self._configs[(grid, block)] = config
        self._inflight.append(kernel.fn)
        try:
            self.core.launch(self.stream, config, kernel.handle, *values)
        except Exception as e:  # noqa: BLE001 - cuda.core's CUDAError is not a RuntimeError
            self._raise_if_sticky(e, f"launching {kernel.fn.name}()")
            raise LaunchError(f"the CUDA launch of {kern.name} failed: {e}") from None
        if ebuf is not None or "failures" in kernel.meta:
            self._pending.append(_Pending(kernel, grid, block))
        if pbuf is not None or kernel.fn.debug:
            self._sync()
            if pbuf is not None:
                self._emit_prints(kern, pbuf)
            self._check_pending()

    def fast_launch(
        self, kernel: Compiled, grid: Dim3, block: Dim3, values: list[Any], written: set[str],
        failures: Any = None, exact: bool = False,
    ) -> CudaFastLaunch | None:
        """A cached launch (`CudaFastLaunch`) for more launches of `kernel` on (`grid`,
        `block`) with arguments of the types of `values`, or None: the kernel prints or is in
        debug mode (those launches wait), it has hidden or complex parameters, or an argument
        is not a simt device array of this runtime or a plain number; or `exact` shapes
        were asked for (this runtime does not check them)."""
        if kernel.meta.get("print_buf") is not None or kernel.fn.debug or exact:
            return None
        if any(p.part or (p.hidden and (p.hidden is not Hidden.FAILURES
                                        or "failures" not in kernel.meta))
               for p in kernel.fn.params):  # (its own failure buffer: a constant)
            return None
        return CudaFastLaunch.make(self, kernel, grid, block, values)

    def device_timer(self) -> Callable[[Callable[[], Any]], float] | None:
        """A function timing `run()` with CUDA events on this runtime's stream (seconds), or
        None where cuda.core has no timing events (the host clock will do)."""
        core = getattr(self, "core", None)
        stream = getattr(self, "stream", None)
        if core is None or stream is None or not hasattr(core, "EventOptions"):
            return None
        try:
            opts = core.EventOptions(enable_timing=True)
        except Exception:  # noqa: BLE001 - an older cuda.core: the host clock will do
            return None

        def timed(run: Callable[[], Any]) -> float:
            e0 = stream.record(options=opts)
            run()
            e1 = stream.record(options=opts)
            e1.sync()
            return float(e1 - e0) / 1e3  # cuda.core gives milliseconds

        return timed

    def synchronize(self) -> None:
        """Wait for every launch, then report the first failed `assert` or out-of-bounds
        access among them."""
        self._sync()
        self._check_pending()

    def _check_pending(self) -> None:
        """After a synchronisation: nothing to do unless a thread set the failure flag; then
        read back the error record of each kernel launched since the last check (once per
        kernel), reset those that failed, and raise the first failure: the threads that
        raised (`_raised`) before any record, which is read and reset all the same (else a
        later, clean launch of its kernel reported it again)."""
        pending, self._pending = self._pending, []
        first = self._raised(pending)
        if not pending or self._flag is None or self._flag.value == 0:
            if first is not None:
                raise first
            return
        self._flag.value = 0
        seen: set[int] = set()
        for p in pending:
            if id(p.kernel) in seen or "err_buf" not in p.kernel.meta:
                # its record holds the first failure of all its launches; or it has none (a
                # kernel whose threads only raise: its failure buffer was read by `_raised`)
                continue
            seen.add(id(p.kernel))
            err = self._check_error(p.kernel, p.grid, p.block)
            first = first or err
        if first is not None:
            raise first

    def keeps_failures(self, kernel: Compiled) -> bool:
        return "failures" in kernel.meta

    def _failure_buffer(self, compiled: Compiled) -> None:
        """The failure buffer of a kernel whose threads may raise, in mapped pinned host
        memory (the kernel writes it, the host reads it after a synchronisation: no copy), made
        at compile time and zero between launches; none where mapped memory cannot be had
        (each launch then passes and reads back a buffer of its own)."""
        n = int(compiled.fn.attrs["failure_words"])
        try:
            host, dev = self._mapped(4 * n)
        except Exception as e:  # noqa: BLE001 - no mapped memory: the slower path
            self._raise_if_sticky(e, "allocating pinned memory")
            return
        # (np.frombuffer, not np.ctypeslib: importing that is a few ms of a first compile)
        words = np.frombuffer(memoryview((ctypes.c_int32 * n).from_address(host)), np.int32)
        words[:] = 0
        compiled.meta["failures"] = words
        compiled.meta["failures_dev"] = dev

    @staticmethod
    def _raised(pending: list[_Pending]) -> KernelError | None:
        """After a synchronisation: the grouped KernelError of the threads that raised in the
        kernels launched since the last one (read in mapped host memory: no driver call), their
        buffers zeroed again; None when no thread raised."""
        first: KernelError | None = None
        for p in pending:
            words = p.kernel.meta.get("failures")
            if words is None or not words[0]:
                continue
            fn = p.kernel.fn
            try:
                err = fn.attrs["decode_failures"](words, fn.attrs["raise_sites"],
                                                  tuple(p.grid), tuple(p.block))  # fmt: skip
            finally:
                words[:] = 0
            first = first or err
        return first

    def _sync(self) -> None:
        self._usable("waiting for the GPU")
        try:
            self.stream.sync()
        except Exception as e:  # noqa: BLE001
            self._raise_if_sticky(e, "waiting for the GPU")
            raise KernelError(f"the CUDA device reported an error: {e}") from None
        self._inflight.clear()

    # ---------------------------------------------------------------- sticky errors
    def _usable(self, what: str) -> None:
        """Raise the KernelError of the process's first sticky error, if there was one."""
        first = CudaRuntime.broken
        if first is not None:
            cause = first.message.split(". CUDA leaves", 1)[0]
            raise KernelError(
                f"{what} is impossible: the GPU stopped working in this process earlier "
                f"({cause}), and CUDA cannot recover from that in the same process: restart "
                "the Python process (in Jupyter: restart the kernel); to see what the failing "
                "kernel's threads do, run it on backend 'sim' (simt.use(\"sim\"))",
                filename=first.filename,
                line=first.line,
            )

    def _raise_if_sticky(self, e: BaseException, what: str) -> None:
        """When `e` is a sticky CUDA error: remember it as the process's first (naming the
        kernels in flight) and raise it as a KernelError; otherwise return."""
        name = sticky_error(e)
        if name is None:
            return
        if CudaRuntime.broken is None:
            CudaRuntime.broken = self._first_failure(name, what)
            raise CudaRuntime.broken from None
        self._usable(what)

    def _first_failure(self, name: str, what: str) -> KernelError:
        kernels = list(dict.fromkeys(fn.name for fn in self._inflight))
        filename, line = where(self._inflight[-1]) if len(kernels) == 1 else (None, None)
        if kernels:
            which = (f"kernel {kernels[0]}()" if len(kernels) == 1 else
                     "one of the kernels " + ", ".join(f"{k}()" for k in kernels))  # fmt: skip
            ran = f"{which} failed on the GPU with {name}"
        else:
            ran = f"the GPU reported {name} while {what}"
        if name == "CUDA_ERROR_ILLEGAL_INSTRUCTION":
            ran += (" (often a warp operation such as ballot_sync whose mask names a thread "
                    "that does not make the call: backend 'sim' says which)")  # fmt: skip
        elif name in ("CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_MISALIGNED_ADDRESS"):
            ran += " (an access outside any array; boundscheck=False turns simt's checks off)"
        return KernelError(
            f"{ran}. CUDA leaves the process's GPU context unusable after this error: every "
            "later GPU operation in this process will fail; restart the Python process (in "
            "Jupyter: restart the kernel)",
            filename=filename,
            line=line,
        )

    def _emit_prints(self, kern: layout.CudaKernel, pbuf: CudaBuffer) -> None:
        head = np.empty(2, np.uint32)
        self._dtoh(head, pbuf.ptr)
        used = min(int(head[0]), PRINT_WORDS)
        used -= used % kern.record_words
        words = np.empty(used, np.uint32)
        if used:
            self._dtoh(words, pbuf.ptr + 8)
        emit(decode_records(words, kern), [p.parts for p in kern.prints])  # type: ignore[misc]
        if head[1]:
            sys.stderr.write(
                f"simt: {int(head[1])} print records were dropped: the CUDA print buffer "
                f"holds {PRINT_WORDS} words (set SIMT_CUDA_PRINT_WORDS for more)\n"
            )

    def _check_error(self, kernel: Compiled, grid: Dim3, block: Dim3) -> KernelError | None:
        """The failure kernel's error record holds (reset for its next launch), or None."""
        ebuf: CudaBuffer = kernel.meta["err_buf"]
        words = np.empty(layout.ERR_WORDS, np.uint64)
        self._dtoh(words, ebuf.ptr)
        if int(words[0]) == _NO_ERROR:
            return None
        self._reset_error(kernel)
        return decode_error(words, kernel.meta["cuda"], grid, block)

    def _error_words(self) -> np.ndarray:
        """A fresh error buffer's words: no failure yet (the error word and the record's key
        all ones), the lock open, the failure flag's device address last."""
        words = np.full(layout.ERR_WORDS, _NO_ERROR, np.uint64)
        words[layout.ERR_RECORD] = 0
        words[layout.ERR_FLAG] = self._failure_flag()
        return words

    def _failure_flag(self) -> int:
        """The device address of the failure flag (made on first use; 0 where mapped pinned
        memory is not available: the host then reads every kernel's record back)."""
        if self._flag is None:
            try:
                host, dev = self._mapped(4)
            except Exception as e:  # noqa: BLE001 - no mapped memory: the slower path
                self._raise_if_sticky(e, "allocating pinned memory")
                self._flag = _AlwaysSet()
                return 0
            self._flag = ctypes.c_uint32.from_address(host)
            self._flag.value = 0
            self._flag_dev = dev
        return self._flag_dev

    def _mapped(self, nbytes: int) -> tuple[int, int]:
        """(host address, device address) of `nbytes` of mapped pinned host memory, zeroed,
        16-byte aligned, kept for the process's lifetime (the failure flag, the kernels'
        failure buffers): carved from chunks of `MAPPED_CHUNK` bytes, so that a process's
        flag and its first kernels' buffers are one `cuMemHostAlloc` (each pins and maps
        pages for the device), made in the background from the runtime's start
        (`_first_chunk`): a cached compile needs this memory (bench/RESULTS.md, CUDA compile
        time). A request larger than a chunk is an allocation of its own, the chunk kept for
        the smaller ones. Thread-safe (two Python threads may compile at once). Raises what
        the driver raises."""
        with self._chunk_lock:
            t = self._chunk_thread
            if t is not None:
                t.join()  # (if it failed, the chunk below is allocated here, errors said)
                self._chunk_thread = None
            n = (max(int(nbytes), 1) + 15) & ~15
            if n > MAPPED_CHUNK:
                host, dev, _ = self._pinned(n, self._drv)
                return host, dev
            host, dev, left = self._chunk
            if n > left:
                host, dev, left = self._pinned(MAPPED_CHUNK, self._drv)
            self._chunk = (host + n, dev + n, left - n)
            return host, dev

    def _first_chunk(self, ctx: Any) -> None:
        """The first chunk of `_mapped`, on a thread of its own in the runtime's context."""
        try:
            _ok(self.driver.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
            self._chunk = self._pinned(MAPPED_CHUNK, _ok)
        except Exception:  # noqa: BLE001 - the first `_mapped` allocates, and says why not
            pass

    def _pinned(self, size: int, check: Callable[[Any, str], Any]) -> tuple[int, int, int]:
        """`size` bytes of mapped pinned host memory, zeroed: (host, device address, size)."""
        host = int(check(self.driver.cuMemHostAlloc(size, _HOSTALLOC_DEVICEMAP),
                         "cuMemHostAlloc"))  # fmt: skip
        dev = int(check(self.driver.cuMemHostGetDevicePointer(host, 0),
                        "cuMemHostGetDevicePointer"))  # fmt: skip
        ctypes.memset(host, 0, size)
        return host, dev, size

    def _reset_error(self, kernel: Compiled) -> None:
        """Put kernel's error buffer back to no failure (at compile time and after one)."""
        init: np.ndarray = kernel.meta["err_init"]
        ebuf: CudaBuffer = kernel.meta["err_buf"]
        self._drv(
            self.driver.cuMemcpyHtoDAsync(ebuf.ptr, init.ctypes.data, init.nbytes,
                                          self.stream_handle),
            "cuMemcpyHtoD",
        )  # fmt: skip

    # ---------------------------------------------------------------- memory
    def _drv(self, result: Any, what: str) -> Any:
        """`_ok` for the runtime's own driver calls: a sticky error is remembered and
        reported as such."""
        try:
            return _ok(result, what)
        except RuntimeError as e:
            self._raise_if_sticky(e, what)
            raise

    def _alloc_raw(self, nbytes: int) -> CudaBuffer:
        self._usable("allocating GPU memory")
        try:
            buf = self.device.allocate(max(int(nbytes), 1), stream=self.stream)
        except Exception as e:  # noqa: BLE001 - cuda.core's CUDAError is not a RuntimeError
            self._raise_if_sticky(e, "allocating GPU memory")
            raise
        return CudaBuffer(int(buf.handle), int(nbytes), buf)

    def _memset8(self, ptr: int, byte: int, nbytes: int) -> None:
        self._drv(self.driver.cuMemsetD8Async(ptr, byte, nbytes, self.stream_handle),
                  "cuMemsetD8")  # fmt: skip

    def _dtoh(self, out: np.ndarray, ptr: int) -> None:
        self._usable("copying from the GPU")
        self._drv(
            self.driver.cuMemcpyDtoHAsync(out.ctypes.data, ptr, out.nbytes, self.stream_handle),
            "cuMemcpyDtoH",
        )
        self._sync()

    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> CudaBuffer:
        """Uninitialised device memory for a C-ordered array."""
        n = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        return self._alloc_raw(n)

    def upload(self, host: np.ndarray) -> CudaBuffer:
        """A device copy of `host` (C order)."""
        host = np.ascontiguousarray(host)
        buf = self._alloc_raw(host.nbytes)
        if host.nbytes:
            self._drv(
                self.driver.cuMemcpyHtoDAsync(
                    buf.ptr, host.ctypes.data, host.nbytes, self.stream_handle
                ),
                "cuMemcpyHtoD",
            )
            # The host array may be freed or changed as soon as we return.
            self._sync()
        return buf

    def download(self, buf: Any, out: np.ndarray) -> None:
        """Copy `buf` into `out` after every launch so far, then report failed asserts."""
        self._usable("copying from the GPU")
        self.synchronize()
        if out.nbytes == 0:
            return
        b = _buffer_of(buf)
        if b.strides is not None and b.strides != c_strides(out.shape):
            _download_strided(self, b, b.strides, out)
            return
        if not out.flags.c_contiguous:
            tmp = np.empty(out.shape, out.dtype)
            self._dtoh(tmp, b.ptr)
            out[...] = tmp
        else:
            self._dtoh(out, b.ptr)

    def info(self) -> dict[str, str]:
        """The GPU, its architecture and NVRTC's version."""
        v = nvrtc.version()
        return {
            "device": str(self.device.name),
            "arch": self.arch,
            "nvrtc": f"{v[0]}.{v[1]}" if v else "unavailable",
        }

    # ---------------------------------------------------------------- interop
    def array_interop(self, arr: DeviceArray, name: str) -> Any:
        """`__cuda_array_interface__`, `__dlpack__` and `__dlpack_device__` of `arr`."""
        b = _buffer_of(arr)
        contiguous = arr.strides == c_strides(arr.shape)
        if name == "__cuda_array_interface__":
            return cai_dict(b.ptr, arr.shape, arr.dtype, None if contiguous else arr.strides)
        dev = int(self.device.device_id)
        if name == "__dlpack_device__":
            return lambda: (KDL_CUDA, dev)
        if name == "__dlpack__":

            def dlpack(stream: Any = None, **_: Any) -> Any:
                # Our work is on the legacy default stream; a consumer on another stream
                # gets correct data only after it: wait here (cheap next to a copy).
                if stream not in (None, 1, -1):
                    self._sync()
                return dlpack_capsule(arr, b.ptr, arr.shape, arr.dtype, arr.strides, dev)

            return dlpack
        raise AttributeError(name)

    def wrap_foreign(self, obj: Any) -> DeviceArray | None:
        """A DeviceArray over the memory of a CuPy array, PyTorch CUDA tensor or any object
        with `__cuda_array_interface__` (no copy); None for other objects."""
        if not hasattr(obj, "__cuda_array_interface__"):
            return None
        ptr, shape, dtype, strides, span = read_cai(obj)
        if scalar_of_dtype(dtype) is None:
            raise LaunchError(
                f"a CUDA array of dtype {dtype} cannot be passed to a kernel: use bool, int32, "
                "int64, uint32, float32 or float64"
            )
        own = None if strides == c_strides(shape) else strides
        return DeviceArray(self, CudaBuffer(ptr, span, obj, own), shape, dtype, strides)

    def resources(self, fn: Function) -> dict[str, int]:
        """Registers, spills and shared memory per block of `fn` on this GPU."""
        return resources(fn, self.arch)


class CudaFastLaunch:
    """A cached launch of one kernel specialisation on one launch shape, for arguments of the
    types it was made for: the kernel's parameters live in one packed buffer (8 bytes a
    parameter) and an array of pointers to them, both made once; a launch checks each argument
    against what the specialisation's key guaranteed, copies an array's pointer, shape and
    strides (packed once per array) or a number into its slots, and makes one `cuLaunchKernel`
    call: no `LaunchConfig`, no argument conversion by cuda.core, no copy or fill (a kernel's
    failures are seen through the failure flag at the next synchronisation).

    `fn(args)` returns 0 when it launched, 1 when an argument differs from what the cache was
    made for (nothing ran: the caller launches the ordinary way, whose checks and messages are
    the user's); `failure()` is never needed (failures surface at synchronisation)."""

    words: Any = None  # (a failure buffer of its own is read at a sync: `_raised`)

    def __init__(self, rt: CudaRuntime, kernel: Compiled, grid: Dim3, block: Dim3,
                 checks: list[tuple[Any, ...]], block_bytes: bytearray,
                 n_params: int) -> None:  # fmt: skip
        self.runtime = rt
        self.kernel = kernel
        self.checks = checks  # per argument: (kind, position, slot offset, what it must be)
        self.nargs = len(checks)
        self.params = block_bytes  # the packed parameter values
        self.view = memoryview(block_bytes)
        base = ctypes.addressof((ctypes.c_char * len(block_bytes)).from_buffer(block_bytes))
        self.pointers = np.array([base + 8 * k for k in range(n_params)] or [0], np.uint64)
        self.address = int(self.pointers.ctypes.data)  # (`.ctypes` costs microseconds)
        self.shape = (*grid, *block)
        driver = rt.driver
        self.launch = driver.cuLaunchKernel
        self.func = driver.CUfunction(int(kernel.handle.handle))
        self.pending = (_Pending(kernel, grid, block)
                        if "err_buf" in kernel.meta or "failures" in kernel.meta else None)

    @classmethod
    def make(cls, rt: CudaRuntime, kernel: Compiled, grid: Dim3, block: Dim3,
             values: list[Any]) -> CudaFastLaunch | None:  # fmt: skip
        """The cache for `kernel` with arguments like `values` (None: one it cannot take)."""
        fn = kernel.fn
        params = {p.index: p for p in fn.params}
        checks: list[tuple[Any, ...]] = []
        offsets: dict[int, tuple[int, Any]] = {}  # argument -> (first slot, index type)
        consts: list[tuple[int, bytes]] = []
        slots = 0  # the plan, slot by slot: an array takes 1 + 2 * ndim, the rest one each
        for code, i, conv in kernel.meta["plan"]:
            if code == _ARRAY:
                t = params[i].value.type
                assert isinstance(t, ArrayType)
                offsets[i] = (slots, conv)
                slots += 1 + 2 * t.ndim
            elif code == _SCALAR:
                offsets[i] = (slots, params[i].value.scalar.np.type)
                slots += 1
            else:
                consts.append((slots, _slot_bytes(conv)))
                slots += 1
        for k, v in enumerate(values):
            if isinstance(v, DeviceArray):
                if v.runtime is not rt or not isinstance(v.buf, CudaBuffer) or v.dtype.kind == "c":
                    return None
                at, conv = offsets.get(k, (-1, None))
                ty = params[k].value.type if at >= 0 else None
                if isinstance(ty, ArrayType) and len(v.shape) != ty.ndim:
                    return None
                checks.append(("array", k, 8 * at if at >= 0 else -1, v.dtype, v.ndim,
                               v.size >= 2**31, conv))  # fmt: skip
            elif type(v) in (int, float, bool) or (
                isinstance(v, np.generic) and v.dtype.kind in "biuf"
            ):
                fits = type(v) is int and -(2**31) <= v < 2**31
                at, conv = offsets.get(k, (-1, None))
                fmt = _STRUCT.get(np.dtype(conv).char) if conv is not None else None
                if conv is not None and fmt is None:
                    return None
                checks.append(("number", k, 8 * at if at >= 0 else -1, type(v), fits, None,
                               fmt))  # fmt: skip
            else:
                return None  # a host array (copied per launch), a foreign array, complex
        buf = bytearray(8 * max(slots, 1))
        for at, data in consts:
            buf[8 * at : 8 * at + len(data)] = data
        return cls(rt, kernel, grid, block, checks, buf, slots)

    def fn(self, args: tuple[Any, ...]) -> int:
        """Launch with `args` (0), or 1 where they differ from what this cache takes."""
        rt = self.runtime
        if len(args) != self.nargs or CudaRuntime.broken is not None:
            return 1
        view = self.view
        pack = struct.pack_into
        for kind, k, at, want, nd, big, conv in self.checks:
            a = args[k]
            if kind == "array":
                if (type(a) is not DeviceArray or a.runtime is not rt
                        or (a.dtype is not want and a.dtype != want)
                        or len(a.shape) != nd or (a.size >= 2**31) != big):  # fmt: skip
                    return 1
                if at >= 0:
                    packed = a.__dict__.get("_cuda_packed")
                    if packed is None or packed[0] is not conv:
                        b = a.buf
                        if not isinstance(b, CudaBuffer):
                            return 1
                        packed = (conv, b"".join(_slot_bytes(x)
                                                 for x in _array_params(a, conv, "")))  # fmt: skip
                        a.__dict__["_cuda_packed"] = packed
                    data = packed[1]
                    view[at : at + len(data)] = data
            else:
                if type(a) is not want:
                    return 1
                if want is int and (-(2**31) <= a < 2**31) != nd:
                    return 1
                if at >= 0:
                    try:
                        pack(conv, view, at, a)  # as NumPy converts it, or an error
                    except (OverflowError, ValueError, TypeError, struct.error):
                        return 1
        pending = rt._pending
        if self.pending is not None and (not pending or pending[-1] is not self.pending):
            pending.append(self.pending)
        inflight = rt._inflight
        if not inflight or inflight[-1] is not self.kernel.fn:
            inflight.append(self.kernel.fn)
        g = self.shape
        (err,) = self.launch(self.func, g[0], g[1], g[2], g[3], g[4], g[5], 0,
                             rt.stream_handle, self.address, 0)  # fmt: skip
        if int(err) != 0:
            e = RuntimeError(f"cuLaunchKernel failed: {getattr(err, 'name', err)}")
            rt._raise_if_sticky(e, f"launching {self.kernel.fn.name}()")
            raise LaunchError(f"the CUDA launch of {self.kernel.fn.name}() failed: {e}")
        return 0

    def failure(self) -> None:
        """Not used: a failing thread is reported at the next synchronisation."""


# struct's format of each parameter type a number may have (little-endian, standard sizes):
# packing converts as NumPy's scalar types do where both succeed, and raises where NumPy would
# give a value the ordinary path must judge (a float32 overflow to inf, an int out of range)
_STRUCT = {"?": "<?", "b": "<b", "B": "<B", "h": "<h", "H": "<H", "i": "<i", "I": "<I",
           "l": "<q", "L": "<Q", "q": "<q", "Q": "<Q", "f": "<f", "d": "<d"}  # fmt: skip


def _slot_bytes(x: Any) -> bytes:
    """A kernel parameter's value as its 8-byte slot (little-endian, zero-padded)."""
    return np.asarray(x).tobytes().ljust(8, b"\0")


def _buffer_of(x: Any) -> CudaBuffer:
    b = x.buf if isinstance(x, DeviceArray) else x
    if not isinstance(b, CudaBuffer):
        raise LaunchError(f"an array of another backend was passed to a CUDA kernel: {x!r}")
    return b


def _array_params(a: Any, index: Any, kernel: str) -> tuple[Any, ...]:
    """An array's kernel parameters: pointer, shape (as the index type), strides (int64)."""
    b = a.buf if isinstance(a, DeviceArray) else a
    if not isinstance(b, CudaBuffer):
        raise LaunchError(f"an array of another backend was passed to the CUDA kernel {kernel}")
    return (
        np.uint64(b.ptr),
        *(index(s) for s in a.shape),
        *(np.int64(s) for s in a.strides),
    )


def _download_strided(
    rt: CudaRuntime, b: CudaBuffer, strides: tuple[int, ...], out: np.ndarray
) -> None:
    """Copy a strided device view back: the whole span it covers, then a host view of it."""
    item = out.dtype.itemsize
    raw = np.empty(max(b.nbytes // item, 1), out.dtype)
    rt._dtoh(raw[: b.nbytes // item], b.ptr)
    view = np.lib.stride_tricks.as_strided(
        raw, out.shape, tuple(s * item for s in strides), writeable=False
    )
    out[...] = view


def decode_error(
    words: np.ndarray, kern: layout.CudaKernel, grid: Dim3, block: Dim3
) -> KernelError | None:
    """The KernelError that the error buffer `words` (`layout.ERR_WORDS` uint64 words read
    back after a launch) reports, or None when no thread failed: the failing thread with the
    lowest id, its site (an `assert` or an access) and, for an access whose record kept the
    same key, the index it used and the array's extents."""
    key = int(words[0])
    if key == _NO_ERROR:
        return None
    site = kern.sites[(key & 0xFFFFF) - 1]
    bidx, tidx = unflatten(key >> 20, grid, block)
    index: list[int] | None = None
    extent: list[int] | None = None
    r = layout.ERR_RECORD
    nd = int(words[r + 2])
    if int(words[r + 1]) == key and 0 < nd <= layout.RECORD_DIMS:
        signed = words.view(np.int64)
        index = [int(x) for x in signed[r + 3 : r + 3 + nd]]
        d = r + 3 + layout.RECORD_DIMS
        extent = [int(x) for x in signed[d : d + nd]]
    loc = site.loc
    return KernelError(
        describe_failure(site, index, extent),
        bidx,  # type: ignore[arg-type]
        tidx,  # type: ignore[arg-type]
        loc.filename if loc else None,
        loc.line if loc else None,
        loc.source_line if loc else None,
    )


def decode_records(words: np.ndarray, kern: layout.CudaKernel) -> list[PrintRecord]:
    """The print records in a buffer's `words` (a multiple of `kern.record_words`)."""
    rw = kern.record_words
    if rw == 0 or words.size == 0:
        return []
    recs = words.reshape(-1, rw)
    threads = recs[:, 0].astype(np.uint64) | (recs[:, 1].astype(np.uint64) << np.uint64(32))
    seqs = recs[:, 2]
    pids = recs[:, 3]
    out: list[PrintRecord] = []
    for pid, fmt in enumerate(kern.prints):
        rows = np.nonzero(pids == pid)[0]
        if rows.size == 0:
            continue
        cols = []
        for k, t in enumerate(fmt.types):
            lo = recs[rows, 4 + 2 * k]
            hi = recs[rows, 5 + 2 * k]
            pair = lo.astype(np.uint64) | (hi.astype(np.uint64) << np.uint64(32))
            if t.is_float and t.bits == 32:
                col: np.ndarray = lo.view(np.float32)
            elif t.is_float:
                col = pair.view(np.float64)
            elif t.is_bool:
                col = lo != 0
            elif t.kind == "u" and t.bits == 64:
                col = pair
            elif t.kind == "u":
                col = lo.astype(np.uint32)
            else:
                col = pair.view(np.int64).astype(t.np)
            cols.append(col)
        for j, r in enumerate(rows):
            out.append(PrintRecord(int(threads[r]), int(seqs[r]), pid, tuple(c[j] for c in cols)))
    return out


def nvrtc_options(kern: layout.CudaKernel) -> tuple[str, ...]:
    """The NVRTC options a kernel compiles with (also used by the fuzzer and tests)."""
    # Every float operation rounds on its own, as on `sim` and every other backend: NVRTC
    # would otherwise fuse `a * b + c` into one FMA with one rounding. Fast math allows it.
    return ("-use_fast_math",) if kern.fast_math else ("--fmad=false",)


def cached_cubin(source: str, arch: str, options: tuple[str, ...] = ()) -> tuple[bytes, str]:
    """(CUBIN, NVRTC log) for `source` on `arch`, from the disk cache when it is there."""
    v = nvrtc.version()
    k = cache.key("cuda", source, arch, " ".join(options), repr(v))
    cubin = cache.load("cuda", k)
    log = cache.load("cuda", k + ".log")
    if cubin is not None and log is not None:
        return cubin, log.decode(errors="replace")
    cubin, text, _ = nvrtc.compile_cubin(source, arch, options)
    cache.store("cuda", k, cubin)
    cache.store("cuda", k + ".log", text.encode())
    return cubin, text


def resources(fn: Function, arch: str = "sm_90") -> dict[str, int]:
    """What ptxas reports for `fn` on `arch`: registers, spill_stores, spill_loads,
    stack_frame, shared (static shared memory per block, bytes), constant, barriers.
    Needs NVRTC only, no GPU."""
    known = nvrtc.supported_archs()
    wanted = arch if arch.startswith(("sm_", "compute_")) else f"sm_{arch}"
    if known and wanted.replace("compute_", "sm_") not in known:
        raise LaunchError(
            f"arch={arch!r} is not a GPU architecture this NVRTC compiles for; choose one "
            f"of {', '.join(known)}"
        )
    kern = renderer.build(fn)
    _, log = cached_cubin(kern.source, arch, nvrtc_options(kern))
    return nvrtc.parse_resources(log).get(kern.name, {})
