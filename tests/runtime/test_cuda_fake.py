"""The CUDA runtime's host side with the driver faked (CI has no GPU): sticky errors are
reported as such, a checked launch costs no driver call beyond the launch itself, and a cached
launch is one `cuLaunchKernel` call with the parameters the ordinary launch passes.

The fake keeps "device" memory in host memory (device pointers are host addresses), so the
runtime's copies, fills and its error records work as on a GPU; kernels do not run: a test
says what a launch does (`FakeGpu.on_launch`). Kernels are compiled by NVRTC for real.
"""

from __future__ import annotations

import ctypes
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import simt
from simt.backends import cuda_layout
from simt.errors import KernelError
from simt.frontend import raising
from simt.runtime import cuda as cuda_rt
from simt.runtime import nvrtc, registry
from simt.runtime.cuda import CudaRuntime

pytestmark = pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")

ILLEGAL = "CUDA_ERROR_ILLEGAL_INSTRUCTION"


class FakeErr(int):
    """A `cuda.bindings` error code: an int with a name."""

    def __new__(cls, name: str) -> FakeErr:
        e = super().__new__(cls, 0 if name == "CUDA_SUCCESS" else 715)
        e.name = name  # type: ignore[attr-defined]
        return e


OK = FakeErr("CUDA_SUCCESS")


class CUDAError(Exception):
    """What cuda.core raises."""


class FakeGpu:
    """A fake `cuda.core` and `cuda.bindings.driver` in one, counting every call."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.keep: list[Any] = []  # the memory handed out
        self.sticky: str | None = None  # once set, every call fails with it
        self.on_launch: Callable[[str, tuple[Any, ...]], None] = lambda name, values: None
        self.kernels: dict[int, Any] = {}
        self.last: tuple[Any, ...] = ()  # the parameters of the last launch, as slots
        gpu = self

        class Stream:
            handle = 0

            def sync(self) -> None:
                gpu.calls["stream.sync"] += 1
                gpu.fail()

        class Buffer:
            def __init__(self, n: int) -> None:
                self.mem = np.zeros(n, np.uint8)
                self.handle = self.mem.ctypes.data

        class Kernel:
            def __init__(self, name: str) -> None:
                self.name = name
                self.handle = id(self)
                gpu.kernels[self.handle] = self

        class ObjectCode:
            @staticmethod
            def from_cubin(cubin: bytes, name: str) -> Any:
                gpu.calls["from_cubin"] += 1
                gpu.fail()
                return ObjectCode()

            def get_kernel(self, name: str) -> Kernel:
                return Kernel(name)

        class Device:
            compute_capability = (9, 0)
            name = "Fake GPU"
            device_id = 0
            default_stream = Stream()

            def __init__(self, i: int) -> None:
                pass

            def set_current(self) -> None:
                pass

            def allocate(self, n: int, stream: Any = None) -> Buffer:
                gpu.calls["allocate"] += 1
                gpu.fail()
                b = Buffer(n)
                gpu.keep.append(b)
                return b

        self.Device = Device
        self.ObjectCode = ObjectCode
        self.LaunchConfig = lambda grid, block: (grid, block)

    def fail(self) -> None:
        if self.sticky is not None:
            raise CUDAError(f"{self.sticky}: the device encountered an illegal instruction")

    def launch(self, stream: Any, config: Any, kernel: Any, *values: Any) -> None:
        self.calls["launch"] += 1
        self.fail()
        self.last = tuple(slot(v) for v in values)
        self.on_launch(kernel.name, values)

    def CUfunction(self, handle: int) -> Any:
        return self.kernels[handle]

    def cuLaunchKernel(self, f: Any, gx: int, gy: int, gz: int, bx: int, by: int, bz: int,
                       shared: int, stream: int, params: int,
                       extra: int) -> tuple[Any, ...]:  # fmt: skip
        """Reads as many parameters as the last ordinary launch passed, 8 bytes each."""
        failed = self._call("cuLaunchKernel")
        if failed:
            return failed
        n = len(self.last)
        pointers = (ctypes.c_uint64 * n).from_address(params)
        self.last = tuple(ctypes.string_at(pointers[k], 8) for k in range(n))
        values = tuple(np.frombuffer(b, np.uint64)[0] for b in self.last)
        self.on_launch(f.name, values)
        return (OK,)

    # driver calls: (error, *values)
    def _call(self, what: str) -> tuple[Any, ...] | None:
        self.calls[what] += 1
        return None if self.sticky is None else (FakeErr(self.sticky),)

    def cuMemsetD8Async(self, ptr: int, byte: int, n: int, stream: int) -> tuple[Any, ...]:
        failed = self._call("cuMemsetD8Async")
        ctypes.memset(ptr, byte, n) if failed is None else None
        return failed or (OK,)

    def cuMemcpyDtoHAsync(self, dst: int, src: int, n: int, stream: int) -> tuple[Any, ...]:
        failed = self._call("cuMemcpyDtoHAsync")
        ctypes.memmove(dst, src, n) if failed is None else None
        return failed or (OK,)

    def cuMemcpyHtoDAsync(self, dst: int, src: int, n: int, stream: int) -> tuple[Any, ...]:
        failed = self._call("cuMemcpyHtoDAsync")
        ctypes.memmove(dst, src, n) if failed is None else None
        return failed or (OK,)

    def cuMemHostAlloc(self, n: int, flags: int) -> tuple[Any, ...]:
        assert flags & 0x02, "the failure flag must be mapped into the device's address space"
        mem = np.zeros(max(n, 8), np.uint8)
        self.keep.append(mem)
        return self._call("cuMemHostAlloc") or (OK, mem.ctypes.data)

    def cuMemHostGetDevicePointer(self, p: int, flags: int) -> tuple[Any, ...]:
        return self._call("cuMemHostGetDevicePointer") or (OK, p)

    def cuCtxGetCurrent(self) -> tuple[Any, ...]:
        return (OK, 1)  # the runtime's context (a handle)

    def cuCtxSetCurrent(self, ctx: Any) -> tuple[Any, ...]:
        self.calls["cuCtxSetCurrent"] += 1  # (the pinned memory's thread, `_first_chunk`)
        return (OK,)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeGpu:
    """A CudaRuntime over a FakeGpu, made the current backend for this test."""
    gpu = FakeGpu()
    monkeypatch.setattr(cuda_rt, "_core", lambda: gpu)
    monkeypatch.setattr(cuda_rt, "_driver", lambda: gpu)
    monkeypatch.setattr(CudaRuntime, "broken", None)
    rt = CudaRuntime()
    monkeypatch.setattr(registry, "current", lambda: rt)
    return gpu


def slot(v: Any) -> bytes:
    """A parameter value as the 8 bytes of its slot."""
    return np.asarray(v).tobytes().ljust(8, b"\0")


def fail_thread(values: tuple[Any, ...], thread: int, site: int = 1) -> None:
    """What `simt_fail` does on the GPU for `thread`: the smallest key into the error word,
    1 into the failure flag whose address the buffer's last word holds."""
    words = (ctypes.c_uint64 * cuda_layout.ERR_WORDS).from_address(int(values[-1]))
    words[0] = min(words[0], thread << 20 | site)
    assert words[cuda_layout.ERR_FLAG] != 0, "the error buffer does not name the failure flag"
    ctypes.c_uint32.from_address(words[cuda_layout.ERR_FLAG]).value = 1


def raise_in_thread(values: tuple[Any, ...], thread: int, index: int, size: int) -> None:
    """What a thread raising IndexError at the kernel's first site does on the GPU: one record
    into the kernel's failure buffer in mapped host memory, whose pointer and length are the
    last parameters but the stride (`runtime.cuda`'s plan)."""
    ptr, n = int(values[-3]), int(values[-2])
    words = np.ctypeslib.as_array((ctypes.c_int32 * n).from_address(ptr))
    nsites = n - 1 - raising.CAPACITY * len(raising.RECORD)
    at = 1 + nsites + int(words[0]) * len(raising.RECORD)
    words[0] += 1
    words[1] += 1
    words[at : at + len(raising.RECORD)] = [0, 0, 0, thread, 0, 0, 1, index, 0, size, 0]


@simt.kernel
def crashes(a):
    i = simt.grid(1)
    if i < len(a):
        a[i] = 1.0


@simt.kernel
def innocent(a):
    i = simt.grid(1)
    if i < len(a):
        a[i] = 2.0


def test_a_sticky_error_is_named_at_every_later_use(fake: FakeGpu) -> None:
    def launch(name: str, values: tuple[Any, ...]) -> None:
        if "crashes" in name:
            fake.sticky = ILLEGAL  # the GPU's context is gone from here on

    fake.on_launch = launch
    ok = simt.to_device(np.zeros(8, np.float32))
    innocent[1, 32](ok)  # compiled and launched while the GPU still works
    a = np.zeros(8, np.float32)
    with pytest.raises(KernelError) as first:
        crashes[1, 32](a)  # the copy back waits for the launch: the error surfaces there
    msg = str(first.value)
    assert "crashes()" in msg and ILLEGAL in msg and "restart the Python process" in msg
    assert first.value.filename == __file__ and first.value.line is not None
    assert "bug in simt" not in msg and "internal error" not in msg

    b = np.zeros(8, np.float32)
    uses: list[Callable[[], Any]] = [
        lambda: innocent[1, 32](ok),  # a compiled kernel: the launch
        lambda: innocent[1, 32](b),  # a new specialisation (argument kind): compile + copies
        lambda: simt.to_device(b),  # an allocation and a copy
        lambda: ok.numpy(),  # a copy back
        simt.synchronize,
    ]
    for use in uses:
        with pytest.raises(KernelError) as later:
            use()
        text = str(later.value)
        assert "crashes()" in text and ILLEGAL in text, text
        assert "restart the Python process" in text, text
        assert "bug in simt" not in text and "internal error" not in text, text
        assert later.value.filename == __file__, text


def test_a_non_sticky_launch_error_does_not_poison_the_process(fake: FakeGpu) -> None:
    a = simt.to_device(np.zeros(8, np.float32))
    innocent[1, 32](a)
    fake.sticky = "CUDA_ERROR_OUT_OF_MEMORY"
    with pytest.raises(Exception) as e:
        simt.to_device(np.zeros(8, np.float32))
    assert "OUT_OF_MEMORY" in str(e.value)
    fake.sticky = None
    assert CudaRuntime.broken is None
    innocent[1, 32](a)
    simt.synchronize()


@simt.kernel
def unguarded(a):
    i = simt.grid(1)
    a[i] = 3.0  # no guard: a bounds check stays in the kernel


def test_a_checked_launch_costs_no_copy_or_fill(fake: FakeGpu) -> None:
    a = simt.to_device(np.zeros(64, np.float32))
    unguarded[1, 64](a)  # compile: the error buffer is allocated and initialised once
    simt.synchronize()
    fake.calls.clear()
    for _ in range(10):
        unguarded[1, 64](a)  # through the cached launch: one driver call each
    simt.synchronize()
    assert fake.calls == Counter({"cuLaunchKernel": 10, "stream.sync": 1}), fake.calls

    # a thread raises IndexError in the 3rd launch: reported at the synchronisation, then reset
    count = 0

    def launch(name: str, values: tuple[Any, ...]) -> None:
        nonlocal count
        count += 1
        if count == 3:
            raise_in_thread(values, thread=40, index=64, size=64)

    fake.on_launch = launch
    fake.calls.clear()
    for _ in range(5):
        unguarded[1, 64](a)
    with pytest.raises(KernelError) as e:
        simt.synchronize()
    assert e.value.thread == (40, 0, 0) and "a[i] = 3.0" in str(e.value)
    assert "(first: thread 40: index 64 is out of bounds of `a` with size 64)" in str(e.value)
    # the failure buffer is mapped host memory: read and reset without a copy
    assert fake.calls["cuMemcpyDtoHAsync"] == 0 and fake.calls["cuMemcpyHtoDAsync"] == 0
    fake.on_launch = lambda name, values: None
    fake.calls.clear()
    unguarded[1, 64](a)
    simt.synchronize()  # the failure was reported once; the next launch is clean again
    assert fake.calls == Counter({"cuLaunchKernel": 1, "stream.sync": 1}), fake.calls
    # the ordinary path (no cache) makes no copy or fill either
    fake.calls.clear()
    unguarded.launch(unguarded[1, 64].grid, unguarded[1, 64].block, (a,), {})
    simt.synchronize()
    assert fake.calls == Counter({"launch": 1, "stream.sync": 1}), fake.calls


@simt.kernel
def saxpy(a, x, out, n):
    i = simt.grid(1)
    if i < n:
        out[i] = a * x[i]


def test_a_cached_launch_is_one_driver_call_with_the_same_parameters(fake: FakeGpu) -> None:
    x, y = simt.to_device(np.arange(64, dtype=np.float32)), simt.to_device(np.ones(64, np.float32))
    out = simt.empty(64, np.float32)
    launch = saxpy[2, 32]
    launch(2.0, x, out, 40)  # the ordinary path: compiles, launches through cuda.core
    ordinary = fake.last
    fake.calls.clear()
    launch(2.0, x, out, 40)
    assert fake.calls == Counter({"cuLaunchKernel": 1}), fake.calls
    assert fake.last == ordinary  # the same bytes for every parameter

    launch(3.0, y, out, 50)  # other values of the same types: still one call, patched
    assert fake.calls["cuLaunchKernel"] == 2 and fake.calls["launch"] == 0
    patched = fake.last
    launch.kernel.launch(launch.grid, launch.block, (3.0, y, out, 50), {})  # the ordinary way
    assert fake.last == patched

    for a in (0.1, -1e-40, 3.4028235e38, np.float32(0.3)):  # rounding to float32 as NumPy does
        launch(a, y, out, 50)
        cached = fake.last
        launch.kernel.launch(launch.grid, launch.block, (a, y, out, 50), {})
        assert fake.last == cached, a
    fake.calls.clear()
    with np.errstate(over="ignore"):
        launch(1e39, x, out, 40)  # beyond float32: the ordinary path converts it (to inf)
    assert fake.calls["launch"] == 1 and fake.calls["cuLaunchKernel"] == 0
    assert fake.last[0] == slot(np.float32(np.inf))

    fake.calls.clear()
    launch(2.0, x, out, 2**40)  # an int64 now: another specialisation, the ordinary path
    assert fake.calls["launch"] == 1 and fake.calls["cuLaunchKernel"] == 0
    fake.calls.clear()
    launch(2.0, np.arange(64, dtype=np.float32), out, 40)  # a host array: copied, ordinary
    assert fake.calls["launch"] == 1 and fake.calls["cuLaunchKernel"] == 0


@simt.kernel
def unguarded_too(a):
    i = simt.grid(1)
    a[i] = 3.0  # (each test its own kernels: their launchers keep the test's runtime)


def test_cached_checked_launches_report_failures_and_sticky_errors(fake: FakeGpu) -> None:
    a = simt.to_device(np.zeros(64, np.float32))
    launch = unguarded_too[1, 64]
    launch(a)
    launch(a)  # the second makes the cache; from here on one driver call a launch
    simt.synchronize()
    fake.calls.clear()
    for _ in range(10):
        launch(a)
    simt.synchronize()
    assert fake.calls == Counter({"cuLaunchKernel": 10, "stream.sync": 1}), fake.calls

    fake.on_launch = lambda name, values: raise_in_thread(values, thread=7, index=64, size=64)
    launch(a)
    fake.on_launch = lambda name, values: None
    with pytest.raises(KernelError) as e:
        simt.synchronize()
    assert e.value.thread == (7, 0, 0) and "a[i] = 3.0" in str(e.value)
    assert str(e.value).startswith("1 thread raised IndexError at ")

    fake.on_launch = lambda name, values: setattr(fake, "sticky", ILLEGAL)
    launch(a)
    with pytest.raises(KernelError, match="unguarded_too.. failed on the GPU with CUDA_ERROR_ILL"):
        simt.synchronize()
    with pytest.raises(KernelError, match="restart the Python process"):
        launch(a)  # the cache steps aside: the ordinary path says why nothing can run


@simt.kernel
def fills_two(a, b):
    i = simt.grid(1)
    a[i] = 1.0  # threads past the arrays' end raise IndexError; the others finish
    b[i] = 2.0


def test_a_launch_whose_threads_raise_copies_the_finished_threads_results_back(
    fake: FakeGpu,
) -> None:
    """Host arrays: the raised IndexError surfaces at the synchronisation of the copy back,
    after the finished threads' writes have landed in every one of the user's arrays."""

    def launch(name: str, values: tuple[Any, ...]) -> None:
        for ptr, n, v in ((values[0], 40, 1.0), (values[3], 40, 2.0)):  # in device memory
            np.ctypeslib.as_array((ctypes.c_float * n).from_address(int(ptr)))[:] = v
        raise_in_thread(values, thread=40, index=40, size=40)

    fake.on_launch = launch
    a, b = np.zeros(40, np.float32), np.zeros(40, np.float32)
    with pytest.raises(KernelError) as e:
        fills_two[1, 64](a, b)
    assert e.value.thread == (40, 0, 0) and "a[i] = 1.0" in str(e.value)
    assert (a == 1.0).all() and (b == 2.0).all(), (a, b)
    fake.on_launch = lambda name, values: None
    fills_two[1, 64](a, b)  # reported once: the next launch is clean
    simt.synchronize()
    fake.on_launch = lambda name, values: setattr(fake, "sticky", ILLEGAL)
    with pytest.raises(KernelError) as e:
        fills_two[1, 64](a, b)  # the GPU stops working: its first report, not a later one
    assert "fills_two() failed on the GPU with " + ILLEGAL in str(e.value), str(e.value)


@simt.kernel
def may_raise(a):
    i = simt.grid(1)
    a[i] = 4.0  # a failure buffer of its own (grouped IndexError), no error record


@simt.kernel
def debug_oob(a):
    # (a kernel whose threads meet and whose one unproven access is tested once per block
    # keeps the backends' own check: the first failing thread's record; debug mode no longer
    # does, its threads raise IndexError as any kernel's do, #23)
    s = simt.shared.array(64, simt.float32)
    t = simt.thread_idx.x
    s[t] = 1.0  # 128 threads, 64 elements
    simt.syncthreads()
    if t < len(a):
        a[t] = s[0]


def test_a_debug_launch_after_an_unchecked_raising_launch_names_its_thread(
    fake: FakeGpu,
) -> None:
    """A kernel whose threads may raise, launched on device arrays and not yet checked, has a
    failure buffer but no error record: checking the debug kernel's failure skips it (on the
    H100, KeyError 'err_buf' as simt's internal error)."""
    d = simt.to_device(np.zeros(64, np.float32))
    may_raise[1, 64](d)  # nothing raised; checked at the next synchronisation
    fake.on_launch = lambda name, values: fail_thread(values, thread=95)
    with pytest.raises(KernelError) as e:
        debug_oob[1, 128](np.zeros(100, np.float32))
        simt.synchronize()
    assert e.value.block == (0, 0, 0) and e.value.thread == (95, 0, 0), str(e.value)
    assert "s[t] = 1.0" in str(e.value) and "internal error" not in str(e.value)


@simt.kernel
def may_raise_too(a):
    i = simt.grid(1)
    a[i] = 4.0


@simt.kernel
def debug_oob_too(a):  # (as `debug_oob`: the backends' own check)
    s = simt.shared.array(64, simt.float32)
    t = simt.thread_idx.x
    s[t] = 1.0
    simt.syncthreads()
    if t < len(a):
        a[t] = s[0]


def test_a_debug_failure_reported_after_an_earlier_kernels_raise_is_not_reported_again(
    fake: FakeGpu,
) -> None:
    """Both failed before one check: the earlier kernel's raising threads are reported, and the
    debug kernel's record is reset too (else its next, clean launch reported it)."""
    d = simt.to_device(np.zeros(64, np.float32))
    fake.on_launch = lambda name, values: raise_in_thread(values, thread=7, index=64, size=64)
    may_raise_too[1, 64](d)  # checked at the next synchronisation
    fake.on_launch = lambda name, values: fail_thread(values, thread=95)
    d100 = simt.to_device(np.zeros(100, np.float32))
    with pytest.raises(KernelError) as e:
        debug_oob_too[1, 128](d100)
        simt.synchronize()
    assert e.value.thread == (7, 0, 0), str(e.value)
    fake.on_launch = lambda name, values: None
    debug_oob_too[1, 128](d100)  # clean: nothing to report
    simt.synchronize()
    may_raise_too[1, 64](d)
    simt.synchronize()


def test_mapped_memory_from_several_threads_and_past_a_chunk(fake: FakeGpu) -> None:
    """`_mapped` hands out disjoint spans when Python threads ask at once (their first
    compiles), and a request larger than a chunk is an allocation of its own that leaves the
    chunk to the smaller ones (a 537 KB failure buffer threw the rest of a chunk away). The
    threads part is a stress test: the race it guards (a lock-free read and write of the
    chunk, a few bytecodes apart) is too narrow to be met on every run without the lock."""
    import threading

    from simt.runtime.cuda import MAPPED_CHUNK

    rt = registry.current()
    spans: list[tuple[int, int]] = []
    go = threading.Barrier(8)

    def take() -> None:
        go.wait()
        for _ in range(50):
            host, _ = rt._mapped(64)  # type: ignore[attr-defined]
            spans.append((host, host + 64))

    threads = [threading.Thread(target=take) for _ in range(8)]
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two bytecodes, nearly
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    spans.sort()
    assert len(spans) == 400
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:])), "overlap"
    before = fake.calls["cuMemHostAlloc"]
    _, _, left = rt._chunk  # type: ignore[attr-defined]
    rt._mapped(MAPPED_CHUNK + 16)  # type: ignore[attr-defined]
    assert fake.calls["cuMemHostAlloc"] == before + 1
    assert rt._chunk[2] == left  # type: ignore[attr-defined]


def test_the_failure_flag_and_buffers_share_one_pinned_allocation(fake: FakeGpu) -> None:
    """Compiling kernels whose threads may raise (each with a failure buffer in mapped host
    memory) and one with an error record (the failure flag) pins host memory once per
    process, not once per kernel (`CudaRuntime._mapped`), and that from the runtime's start,
    in the background: each cuMemHostAlloc pins and maps pages for the device, a cost of every
    compile, cached or not, until then (#28, #29)."""
    rt = registry.current()
    assert rt._chunk_thread is not None  # type: ignore[attr-defined]
    rt._chunk_thread.join()  # type: ignore[attr-defined]
    assert fake.calls["cuMemHostAlloc"] == fake.calls["cuCtxSetCurrent"] == 1, fake.calls
    # new kernels (the module's are compiled already, for the runtime of an earlier test)
    raising = [simt.kernel(may_raise.pyfunc), simt.kernel(unguarded.pyfunc)]
    recording = simt.kernel(debug_oob.pyfunc)
    a = simt.to_device(np.zeros(64, np.float32))
    for k in (*raising, recording):
        k[1, 64](a)
    simt.synchronize()
    assert fake.calls["cuMemHostAlloc"] == 1, fake.calls
    spans = []
    for k in raising:
        (spec,) = k.specialisations("cuda")
        words = spec.compiled.meta["failures"]
        assert words.flags.writeable and not words.any()
        spans.append((words.ctypes.data, words.ctypes.data + words.nbytes))
    flag = ctypes.addressof(rt._flag)  # type: ignore[attr-defined]
    spans.append((flag, flag + 4))
    spans.sort()
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:])), spans
