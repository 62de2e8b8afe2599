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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..ir import Function


@dataclass(frozen=True)
class Dim3:
    """A launch extent in x, y, z."""

    x: int
    y: int = 1
    z: int = 1

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


class Runtime(ABC):
    """One device: `sim`, `cpu`, `cuda` or `webgpu`."""

    name: str = ""
    # the block shape whole-image launches (image functions) use: 256 threads, WebGPU's limit
    image_block: tuple[int, int] = (16, 16)

    @classmethod
    @abstractmethod
    def probe(cls) -> tuple[bool, str]:
        """(available, why): whether this runtime can run here, and a line saying what was
        found or why it was not. Never raises, never imports at `import simt`."""

    @abstractmethod
    def render(self, fn: Function) -> str:
        """The source text this runtime compiles for `fn` (no device calls)."""

    @abstractmethod
    def compile(self, fn: Function) -> Compiled:
        """Render and compile `fn`, through the disk cache where compiling is slow."""

    @abstractmethod
    def launch(self, kernel: Compiled, grid: Dim3, block: Dim3, args: list[Any]) -> None:
        """Run `kernel` on `grid` x `block` threads. Asynchronous where the device is; prints
        and kernel errors are reported by the next `synchronize` at the latest."""

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
