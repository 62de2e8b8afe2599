"""What every runtime ("device") provides: compile, memory, launch.

A runtime takes a kernel in IR form, hands it to its backend's renderer for source text,
compiles that (caching the result on disk where compiling is slow), and launches it. It never
looks at Python source and never types anything: that was done before it.

Argument passing, the same for all runtimes: `launch(..., args)` receives one entry per
`fn.params` in order: a `DeviceArray` of this runtime for array parameters, a NumPy scalar of
the parameter's type for scalar parameters.

Print and kernel errors, the same for all runtimes: the runtime returns what the kernel printed
as a list of `PrintRecord`s, and `simt.runtime.printing` formats and orders them on the host, so
every backend prints the same text in the same order (thread-major: all of thread 0's lines,
then thread 1's, ...). A failure inside the kernel is raised as `KernelError` naming block,
thread and source line.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..errors import LaunchError
from ..ir import Function


@dataclass(frozen=True)
class Dim3:
    """A launch extent in x, y, z."""

    x: int
    y: int = 1
    z: int = 1

    @classmethod
    def of(cls, value: Any, what: str = "launch") -> Dim3:
        """A launch extent from an int, a tuple of 1-3 ints or a `Dim3` (`simt.Dim`); a
        `LaunchError` naming the `what` ("grid", "block") for anything else."""
        if isinstance(value, Dim3):
            parts: tuple[Any, ...] = (value.x, value.y, value.z)
        elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            parts = (int(value), 1, 1)
        elif isinstance(value, tuple) and 1 <= len(value) <= 3:
            parts = tuple(value) + (1,) * (3 - len(value))
        else:
            raise LaunchError(
                f"the {what} size must be an int, a tuple of 1 to 3 ints or a simt.Dim, "
                f"got {value!r}"
            )
        for p in parts:
            if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or p <= 0:
                raise LaunchError(f"the {what} size {value!r} must be made of positive integers")
        return cls(*(int(p) for p in parts))

    @property
    def size(self) -> int:
        return self.x * self.y * self.z

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter((self.x, self.y, self.z))


@dataclass
class PrintRecord:
    """One `print` executed by one thread: `thread` is the launch-wide linear thread id
    (block linear id * threads per block + thread linear id), `seq` counts that thread's prints,
    `print_id` indexes the kernel's print ops in program order, `values` their operands."""

    thread: int
    seq: int
    print_id: int
    values: tuple[Any, ...]


@dataclass
class Compiled:
    """A kernel compiled for one runtime: its source text, the runtime's handle, and metadata
    (print formats, written arrays, resource usage) that `launch` needs."""

    fn: Function
    source: str
    handle: Any = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Nominal:
    """A device kind's nominal profile: what the cost model assumes before `simt calibrate`
    has measured the device (rates per second, times in seconds), and how calibration sizes
    its runs there. See `simt.benchtool.profile.Profile` for the meaning of each rate."""

    copy_bandwidth: float
    peak_flops: float
    launch_overhead: float
    far_rate: float
    loop_rate: float = 0.0
    op_rate: float = 0.0
    gather_rate: float = 0.0
    line_bytes: int = 64  # cache line / memory sector
    # calibration: array sizes divided by `size_scale` (a slow device) and the streaming
    # size multiplied by `stream_boost` (a GPU streams 64 MiB in tens of microseconds); FMA
    # chain length; `many_threads`: a GPU needs far more threads in flight than a CPU
    size_scale: int = 1
    stream_boost: int = 1
    fma_iters: int = 256
    many_threads: bool = False


@dataclass(frozen=True)
class DeviceFacts:
    """What a runtime says of the device it runs on, for profiles and the autotuner."""

    device: str  # its name (profiles are stored per device)
    group_width: int  # threads a SIMD group or warp executes together
    units: int  # cores or multiprocessors
    max_block: int  # threads a block may have
    cache_bytes: int = 0  # last-level cache, 0 where unknown
    tile_lanes: int = 0  # lanes run together, sharing the lines they fetch (0: group_width)


class Runtime(ABC):
    """One device: `sim`, `cpu`, `cuda` or `webgpu`.

    A runtime declares its parts: `source` (its renderer: the text it compiles, no device
    needed), `nominal` (its device kind's nominal profile), `device_facts()`, and its
    capabilities, the class attributes below that every other part asks instead of testing a
    backend's name (tests/test_layering.py refuses a backend name tested outside runtime/ and
    backends/)."""

    name: str = ""
    # the block shape whole-image launches (image functions) use: 256 threads, WebGPU's limit
    image_block: tuple[int, int] = (16, 16)
    nominal: ClassVar[Nominal]

    # capabilities -------------------------------------------------------------------------
    # device buffers are host NumPy arrays: arguments are used in place, no copies (and the C
    # baselines of `simt bench` run on the same processor)
    host_memory: ClassVar[bool] = False
    # runs a block's threads in lockstep under masks, so a barrier under thread-dependent
    # control runs as written (sim); the others get `passes.barriers.lift`'s form, in which
    # every thread of a block reaches every barrier
    lockstep: ClassVar[bool] = False
    # the executable definition of the semantics, the reference of differential tests (sim)
    reference: ClassVar[bool] = False
    # checks every view access itself, always (sim); the others only in debug mode, so the
    # front end's view checks are stripped for them (`pipeline.for_runtime`)
    checks_views: ClassVar[bool] = False
    # what `device_facts().units` counts, in the advisor's words
    unit_word: ClassVar[str] = "multiprocessors"
    # a GPU: memory latency is hidden by switching between many resident threads
    latency_hiding: ClassVar[bool] = False
    # launches run SPMD-lowered thread loops on SIMD lanes (the advisor reads LLVM's
    # vectorisation report and the lowered IR's hints)
    spmd: ClassVar[bool] = False
    # launches run on a pool of host threads (`SIMT_NUM_THREADS`)
    host_threads: ClassVar[bool] = False
    # its language refuses some uses of some types, naming the type (WGSL: float64 math it
    # computes in float32, atomics on 64-bit or packed elements; `passes.legalise`); whether
    # int64 and float64 exist at all is the device's answer: `has_int64()`, `has_float64()`
    refuses_types: ClassVar[bool] = False
    # shares memory with CUDA array libraries (CuPy, PyTorch: `__cuda_array_interface__`)
    cuda_arrays: ClassVar[bool] = False
    # its compiler runs without its device (NVRTC): the fuzzer checks it by compiling where
    # it is not asked to run it
    compiles_without_device: ClassVar[bool] = False
    # how its source text writes a line comment (`kernel.source` headings)
    source_comment: ClassVar[str] = "//"

    def max_array_bytes(self) -> int | None:
        """The most bytes one array may take on this device (WebGPU: the adapter's
        maxStorageBufferBindingSize), or None where it sets no limit of its own."""
        return None

    def device_timer(self) -> Callable[[Callable[[], Any]], float] | None:
        """A function timing `run()` on the device itself (seconds; CUDA events), or None:
        `simt.bench` then times with the host clock around a synchronised call."""
        return None

    def checked_threads(self, kernel: Compiled) -> int | None:
        """How many threads the launches of `kernel` so far ran through the checked copy of
        a body `passes.bounds` versioned on a block-level test (the blocks that failed it),
        or None where this runtime does not count them (the cpu runtime does)."""
        return None

    # runs the IR's warp functions itself (sim, CUDA); the others get `passes.warps.lower`'s
    # form, through a shared scratch array of `warp_slots` (its most threads per block)
    warp_native: ClassVar[bool] = False
    warp_slots: ClassVar[int] = 1024

    @classmethod
    @abstractmethod
    def source(cls, fn: Function) -> str:
        """The source text this runtime compiles for `fn`, from its renderer (no device)."""

    # the most threads one launch may have on this runtime, and why (checked before compiling)
    max_threads: ClassVar[int] = 2**63
    max_threads_why: ClassVar[str] = ""

    def check_limits(self, grid: Dim3, block: Dim3) -> None:
        """LaunchError, with the limit, for a launch this runtime cannot run."""
        total = grid.size * block.size
        if total > self.max_threads:
            from ..errors import LaunchError

            raise LaunchError(
                f"a launch of {grid.size} blocks of {block.size} threads ({total} threads) is "
                f"more than the {self.max_threads} threads a launch may have on {self.name}"
                f"{': ' + self.max_threads_why if self.max_threads_why else ''}; launch fewer "
                "threads and loop over the rest (a grid-stride loop)"
            )

    def device_facts(self) -> DeviceFacts:
        """What this runtime knows of its device (a generic device unless overridden)."""
        return DeviceFacts(self.name, 32, 1, 1024)

    def has_int64(self) -> bool:
        """Whether kernels may compute in int64 (and uint64) on this device: the one answer
        to it (a WebGPU adapter's shader-int64: its `WgslCaps` and legalisation target are
        built from it)."""
        return True

    def has_float64(self) -> bool:
        """Whether kernels may compute in float64 on this device (as `has_int64`)."""
        return True

    @classmethod
    @abstractmethod
    def probe(cls) -> tuple[bool, str]:
        """(available, why): whether this runtime can run here, and a line saying what was
        found or why it was not. Never raises, never imports at `import simt`."""

    def render(self, fn: Function) -> str:
        """The source text this runtime compiles for `fn` on its device (by default what
        `source` gives; a runtime may specialise on the device it opened)."""
        return self.source(fn)

    @abstractmethod
    def compile(self, fn: Function) -> Compiled:
        """Render and compile `fn`, through the disk cache where compiling is slow."""

    @abstractmethod
    def launch(self, kernel: Compiled, grid: Dim3, block: Dim3, args: list[Any]) -> None:
        """Run `kernel` on `grid` x `block` threads. Asynchronous where the device is; prints
        and kernel errors are reported by the next `synchronize` at the latest."""

    def keeps_failures(self, kernel: Compiled) -> bool:
        """Whether this runtime keeps the failure buffer (`Hidden.FAILURES`) of `kernel`
        itself, passed by its launches without an argument, read without a copy and its
        threads' errors raised at the next synchronisation; else each launch passes a
        buffer and reads it back (`Kernel.launch`)."""
        return False

    def fast_launch(
        self, kernel: Compiled, grid: Dim3, block: Dim3, values: list[Any], written: set[str],
        failures: np.ndarray | None = None, exact: bool = False,
    ) -> Any:
        """A cached fast path for more launches of `kernel` on (`grid`, `block`) with
        arguments of the types of `values` (the kernel's arguments, as the launch that just
        ran got them; `written`: the array parameters it writes), or None where the runtime
        has none. It has `runtime`, `fn` and `failure()`: `fn(args)` launches
        with the argument tuple `args` and returns 0 (ran), 3 (the kernel failed: `failure()`
        raises why) or another value (nothing ran: launch the ordinary way). The cpu runtime
        has one (`runtime.cpu_fast`). A kernel whose threads may raise: only a runtime whose
        memory is the host's is asked, with `failures`, the buffer its launches use (the fast
        path's `words`, then read by its `run_raising(args)`, launching instead of `fn`);
        `words` is None for any other. `exact`: one whose arrays must also have the shapes
        of `values`' (or None where the runtime has no such check)."""
        return None

    # memory -------------------------------------------------------------------------------
    @abstractmethod
    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> Any:
        """A device buffer for an array of `shape` and `dtype` (C order)."""

    @abstractmethod
    def upload(self, host: np.ndarray) -> Any:
        """A device buffer holding a copy of `host`."""

    @abstractmethod
    def download(self, buf: Any, out: np.ndarray) -> None:
        """Copy `buf` into the host array `out` (waits for the device)."""

    def synchronize(self) -> None:  # noqa: B027 - a no-op for runtimes that launch synchronously
        """Wait until every launch so far has finished."""

    def info(self) -> dict[str, str]:
        """What `python -m simt info` shows for this runtime."""
        return {}


def unflatten(thread: int, grid: Dim3, block: Dim3) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(block index, thread index) of a launch-wide linear thread id."""
    per_block = block.size
    b, t = divmod(int(thread), per_block)
    bidx = (b % grid.x, (b // grid.x) % grid.y, b // (grid.x * grid.y))
    tidx = (t % block.x, (t // block.x) % block.y, t // (block.x * block.y))
    return bidx, tidx
