"""The cpu runtime's threads: the blocks of a launch shared out by a native work loop.

Python threads only start and end a launch's work. Each calls `simt_par` (compiled once per
process from the LLVM IR below; ctypes releases the GIL for the call), which takes chunks of
blocks from a shared counter with an atomic add and runs them through the kernel's entry until
none is left. The calling thread then spins in native code (`simt_wait`) until every block is
done, and returns: a pool thread that wakes late finds nothing left and returns at once, so the
launch never waits for a thread to wake up, and no chunk costs a trip through the GIL. Handing
chunks out from Python instead cost ~10 % of a 2-thread Sobel on 2048^2 pixels (a GIL round
trip per chunk, ~40 us before the first and ~70 us to join).

`work`, the launch's shared state, is four int64: the next block, the number of blocks, the
blocks per chunk and the blocks done so far.

Ctrl-C: kernels' long loops poll for it (`cpu_interrupt`, `backends.llvm`) and the block
they are in returns with `STOPPED` in the launch's error word. Besides, the calling thread takes
its blocks one call at a time (`simt_step`, a few blocks a call: `slices`), so between two calls
it is back in Python, where a SIGINT raises KeyboardInterrupt; it then writes `STOPPED` into the
error word too. Every thread checks that word before each chunk (and the kernel after each
block), so the pool threads return, and the KeyboardInterrupt goes on to the caller with no
thread still writing into its arrays.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

# The error word's value that stops a launch (Ctrl-C): below every error code, so the kernels'
# `atomicrmw min` of an error never replaces it.
from ..backends.llvm_abi import STOPPED

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

DRIVER = """
define i32 @simt_step(ptr %run, ptr %args, ptr %ctx, ptr %work, i64 %per) {
entry:
  %err = load atomic i64, ptr %ctx monotonic, align 8
  %clean = icmp eq i64 %err, 9223372036854775807
  br i1 %clean, label %take, label %out
take:
  %nbp = getelementptr i64, ptr %work, i64 1
  %nb = load i64, ptr %nbp, align 8
  %lo = atomicrmw add ptr %work, i64 %per monotonic, align 8
  %more = icmp slt i64 %lo, %nb
  br i1 %more, label %go, label %out
go:
  %end = add i64 %lo, %per
  %short = icmp slt i64 %end, %nb
  %hi = select i1 %short, i64 %end, i64 %nb
  call void %run(ptr %args, ptr %ctx, i64 %lo, i64 %hi)
  %donep = getelementptr i64, ptr %work, i64 3
  %n = sub i64 %hi, %lo
  %old = atomicrmw add ptr %donep, i64 %n release, align 8
  ret i32 1
out:
  ret i32 0
}

define void @simt_par(ptr %run, ptr %args, ptr %ctx, ptr %work) {
entry:
  %perp = getelementptr i64, ptr %work, i64 2
  %per = load i64, ptr %perp, align 8
  br label %next
next:
  %more = call i32 @simt_step(ptr %run, ptr %args, ptr %ctx, ptr %work, i64 %per)
  %again = icmp ne i32 %more, 0
  br i1 %again, label %next, label %out
out:
  ret void
}

define i32 @simt_wait(ptr %work, i64 %spins) {
entry:
  %nbp = getelementptr i64, ptr %work, i64 1
  %nb = load i64, ptr %nbp, align 8
  %donep = getelementptr i64, ptr %work, i64 3
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %again]
  %done = load atomic i64, ptr %donep acquire, align 8
  %all = icmp sge i64 %done, %nb
  br i1 %all, label %yes, label %again
again:
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %spins
  br i1 %more, label %loop, label %no
yes:
  ret i32 1
no:
  ret i32 0
}
"""

_PAR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_STEP = ctypes.CFUNCTYPE(
    ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
    ctypes.c_int64,
)  # fmt: skip
_WAIT = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64)
# how long the calling thread spins for the last chunks (~0.3 ms) before it sleeps on the
# pool threads' futures instead (one of them was descheduled, say)
SPINS = 1 << 18
CHUNKS_PER_THREAD = 32  # small chunks: the last one decides how long the others wait
SLICE_SECONDS = 0.05


def slices(largest: int, seconds: float = SLICE_SECONDS) -> Iterator[int]:
    """Block counts for the calling thread's calls (forever): one block first, then as many
    as the last call's time per block says take about `seconds` (at most `largest`). Between
    two calls Python runs, so Ctrl-C stops a launch within about `seconds` or one block; a
    launch of fast blocks costs two calls."""
    n = 1
    while True:
        t = time.perf_counter()
        yield n
        took = time.perf_counter() - t
        n = largest if took <= 0 else max(1, min(largest, int(n * seconds / took)))


class Pool:
    """`threads` threads (the caller and `threads - 1` pool threads) running launches.

    `jit(text)` compiles LLVM IR text and returns a function that gives a symbol's address
    (and keeps the code alive as long as it is referenced)."""

    def __init__(self, threads: int, jit: Callable[[str], Callable[[str], int]]) -> None:
        from concurrent.futures import ThreadPoolExecutor  # ~10 ms to import: when needed

        self.threads = threads
        self._lookup = jit(DRIVER)
        self._par = _PAR(self._lookup("simt_par"))
        self._step = _STEP(self._lookup("simt_step"))
        self._wait = _WAIT(self._lookup("simt_wait"))
        self._pool: ThreadPoolExecutor = ThreadPoolExecutor(
            threads - 1, thread_name_prefix="simt-cpu"
        )

    def run(self, entry: int, args: Any, ctx: Any, nblocks: int) -> None:
        """Run blocks `0 <= b < nblocks` of the kernel whose entry is at address `entry`
        (`backends.llvm`'s `simt_run`); `args` and `ctx` are its NumPy argument and context
        arrays, kept alive here for as long as any thread may read them."""
        per = max(1, nblocks // (self.threads * CHUNKS_PER_THREAD))
        work = np.array([0, nblocks, per, 0], np.int64)
        a, c, w = args.ctypes.data, ctx.ctypes.data, work.ctypes.data

        def job(keep: tuple[Any, ...] = (args, ctx, work)) -> None:
            self._par(entry, a, c, w)

        futures = [self._pool.submit(job) for _ in range(self.threads - 1)]
        try:
            for n in slices(per):  # one slice a call: Ctrl-C is seen in between
                if not self._step(entry, a, c, w, n):
                    break
            if not self._wait(w, SPINS):
                for f in futures:
                    f.result()
        except BaseException:  # KeyboardInterrupt: stop every thread before going on
            ctx[0] = STOPPED
            for f in futures:
                f.cancel()
            for f in futures:
                if not f.cancelled():
                    f.exception()  # waits; the threads return after their current block
            raise
