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
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

DRIVER = """
define void @simt_par(ptr %run, ptr %args, ptr %ctx, ptr %work) {
entry:
  %nbp = getelementptr i64, ptr %work, i64 1
  %nb = load i64, ptr %nbp, align 8
  %perp = getelementptr i64, ptr %work, i64 2
  %per = load i64, ptr %perp, align 8
  %donep = getelementptr i64, ptr %work, i64 3
  br label %next
next:
  %lo = atomicrmw add ptr %work, i64 %per monotonic, align 8
  %more = icmp slt i64 %lo, %nb
  br i1 %more, label %go, label %out
go:
  %end = add i64 %lo, %per
  %short = icmp slt i64 %end, %nb
  %hi = select i1 %short, i64 %end, i64 %nb
  call void %run(ptr %args, ptr %ctx, i64 %lo, i64 %hi)
  %n = sub i64 %hi, %lo
  %old = atomicrmw add ptr %donep, i64 %n release, align 8
  br label %next
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
_WAIT = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64)
# how long the calling thread spins for the last chunks (~0.3 ms) before it sleeps on the
# pool threads' futures instead (one of them was descheduled, say)
SPINS = 1 << 18
CHUNKS_PER_THREAD = 32  # small chunks: the last one decides how long the others wait


class Pool:
    """`threads` threads (the caller and `threads - 1` pool threads) running launches.

    `jit(text)` compiles LLVM IR text and returns a function that gives a symbol's address
    (and keeps the code alive as long as it is referenced)."""

    def __init__(self, threads: int, jit: Callable[[str], Callable[[str], int]]) -> None:
        from concurrent.futures import ThreadPoolExecutor  # ~10 ms to import: when needed

        self.threads = threads
        self._lookup = jit(DRIVER)
        self._par = _PAR(self._lookup("simt_par"))
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
        self._par(entry, a, c, w)
        if not self._wait(w, SPINS):
            for f in futures:
                f.result()
