"""The cpu runtime's threads: the blocks of a launch shared out by a native work loop.

A pool is the calling thread and `threads - 1` worker threads that live in native code (LLVM IR
below, compiled once per pool). A launch writes its job (the kernel's entry, its argument slots
and context, the shared work counter) into the pool's state, opens it, bumps the state's
generation and, if some worker sleeps, wakes it; then the calling thread runs chunks of blocks
itself (`simt_par`: chunks taken from the counter with an atomic add) until none is left. A
worker that sees the generation change takes chunks the same way while the job is open, each
inside a counted compare-and-swap on the job's join word. The calling thread then closes the
job and waits until no worker is inside a chunk: no block is still running when the launch
returns, a worker descheduled between chunks keeps it waiting for nothing, and a worker that
wakes late finds the job closed and goes back to waiting. So the launch never waits for a
thread to wake up (a launch shorter than a worker's wake-up runs on the calling thread alone),
and no chunk costs a trip through Python.

A worker spins on the generation for about `SPIN_SECONDS` after its last job (`pause` between
reads), then sleeps on a condition variable (pthreads): back-to-back launches (the several
kernels of one `exec`, a loop of calls) find it awake, and an idle process burns no CPU beyond
that window. The same native call serves both launch paths: the fast path (`cpu_fast`, one
call with the GIL released: `simt_pool_run`) and the ordinary one (`Pool.run`).

The calling thread, once its own chunks are done, waits for the workers still in the job the
same way: spinning for about `SPIN_SECONDS`, then asleep on a second condition variable until
the last worker out wakes it (a worker descheduled mid-chunk on a loaded machine then costs
the launch no more than its own delay).

`state` (int64 words, one cache line per group): 0 the generation (its low 32 bits), 1 sleeping
workers, 2 stop, 3 spins before sleeping; 8 the join word (`OPEN` while a job takes workers,
plus the number of workers in it), 9 whether the launch sleeps waiting for them; 16-19 the
work counter (the next block, the number of blocks, blocks per chunk) and the address of
`cpu_interrupt`'s count of Ctrl-C; 24-26 the job (entry, argument slots, context); 32 busy
(a launch holds the pool: another Python thread's launch meanwhile runs on its own thread
alone); then the mutex and the two condition variables, the workers' and the launch's (128
bytes each).

Ctrl-C: kernels' long loops poll for it (`cpu_interrupt`, `backends.llvm`) and the block
they are in returns with `STOPPED` in the launch's error word. Besides, in the ordinary path the
calling thread takes its blocks one call at a time (`simt_step`, a few blocks a call: `slices`),
so between two calls it is back in Python, where a SIGINT raises KeyboardInterrupt; it then
writes `STOPPED` into the error word too. Every thread checks that word before each chunk (and
the kernel after each block), so the workers leave, and the KeyboardInterrupt goes on to the
caller with no thread still writing into its arrays.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

# The error word's value that stops a launch (Ctrl-C): below every error code, so the kernels'
# `atomicrmw min` of an error never replaces it.
from ..backends.llvm_abi import INTERRUPT_WORD, STOPPED

GEN, SLEEPERS, STOP, SPIN, JOIN, WAITING, WORK, JOB, BUSY = 0, 1, 2, 3, 8, 9, 16, 24, 32
MUTEX, COND, DONE = 40, 56, 72  # pthread objects, 128 bytes each
STATE_WORDS = 88
OPEN = 1 << 40  # the join word's flag: the job takes workers

DRIVER = """
declare i32 @pthread_mutex_init(ptr, ptr)
declare i32 @pthread_cond_init(ptr, ptr)
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
@PAUSE_DECL@

; the next chunk of at most `per` blocks run (1), or none left, or the launch stopped (0); a
; Ctrl-C since the launch began (the count at `work[3]` against the context's) stops it
define i32 @simt_step(ptr %run, ptr %args, ptr %ctx, ptr %work, i64 %per) {
entry:
  %err = load atomic i64, ptr %ctx monotonic, align 8
  %clean = icmp eq i64 %err, 9223372036854775807
  br i1 %clean, label %poll, label %out
poll:
  %cpp = getelementptr i64, ptr %work, i64 3
  %cp = load ptr, ptr %cpp, align 8
  %now = load atomic i64, ptr %cp monotonic, align 8
  %sincep = getelementptr i64, ptr %ctx, i64 @INTERRUPT_WORD@
  %since = load i64, ptr %sincep, align 8
  %calm = icmp eq i64 %now, %since
  br i1 %calm, label %take, label %stop
stop:
  %old = atomicrmw min ptr %ctx, i64 @STOPPED@ monotonic, align 8
  ret i32 0
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

define void @simt_init(ptr %s) {
entry:
  %m = getelementptr i64, ptr %s, i64 @MUTEX@
  %c = getelementptr i64, ptr %s, i64 @COND@
  %r1 = call i32 @pthread_mutex_init(ptr %m, ptr null)
  %r2 = call i32 @pthread_cond_init(ptr %c, ptr null)
  %d = getelementptr i64, ptr %s, i64 @DONE@
  %r3 = call i32 @pthread_cond_init(ptr %d, ptr null)
  ret void
}

; `n` pauses (to measure what one costs: `SPIN_SECONDS`)
define void @simt_spin(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %loop]
  @PAUSE@
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %n
  br i1 %more, label %loop, label %out
out:
  ret void
}

; a worker thread's life: wait for a new generation (spinning, then asleep), join its job if
; it is still open, run chunks, leave; until `stop`
define void @simt_worker(ptr %s) {
entry:
  %slp = getelementptr i64, ptr %s, i64 @SLEEPERS@
  %stopp = getelementptr i64, ptr %s, i64 @STOP@
  %spinp = getelementptr i64, ptr %s, i64 @SPIN@
  %jp = getelementptr i64, ptr %s, i64 @JOIN@
  %work = getelementptr i64, ptr %s, i64 @WORK@
  %entp = getelementptr i64, ptr %s, i64 @JOB@
  %argp = getelementptr i64, ptr %entp, i64 1
  %ctxp = getelementptr i64, ptr %entp, i64 2
  %m = getelementptr i64, ptr %s, i64 @MUTEX@
  %c = getelementptr i64, ptr %s, i64 @COND@
  %g0 = load atomic i32, ptr %s acquire, align 8
  br label %idle
idle:
  %seen = phi i32 [%g0, %entry], [%seen, %woke], [%g, %nojoin], [%g, %done]
  %halt = load atomic i64, ptr %stopp acquire, align 8
  %halted = icmp ne i64 %halt, 0
  br i1 %halted, label %out, label %ready
ready:
  %spins = load atomic i64, ptr %spinp monotonic, align 8
  br label %spin
spin:
  %i = phi i64 [0, %ready], [%i1, %pause]
  %g = load atomic i32, ptr %s acquire, align 8
  %new = icmp ne i32 %g, %seen
  br i1 %new, label %wake, label %pause
pause:
  @PAUSE@
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %spins
  br i1 %more, label %spin, label %sleep
sleep:
  %l1 = call i32 @pthread_mutex_lock(ptr %m)
  %o1 = atomicrmw add ptr %slp, i64 1 seq_cst, align 8
  br label %check
check:
  %g2 = load atomic i32, ptr %s seq_cst, align 8
  %same = icmp eq i32 %g2, %seen
  %stop2 = load atomic i64, ptr %stopp seq_cst, align 8
  %going = icmp eq i64 %stop2, 0
  %idle2 = and i1 %same, %going
  br i1 %idle2, label %wait, label %up
wait:
  %w = call i32 @pthread_cond_wait(ptr %c, ptr %m)
  br label %check
up:
  %o2 = atomicrmw sub ptr %slp, i64 1 seq_cst, align 8
  %u1 = call i32 @pthread_mutex_unlock(ptr %m)
  br label %woke
woke:
  br label %idle
wake:
  %stop = load atomic i64, ptr %stopp acquire, align 8
  %stopped = icmp ne i64 %stop, 0
  br i1 %stopped, label %out, label %try
try:
  br label %rejoin
rejoin:
  ; in the job for one chunk at a time: a worker counts in the join word only while it takes
  ; and runs a chunk, so one descheduled between chunks keeps no launch waiting
  %j0 = load atomic i64, ptr %jp monotonic, align 8
  br label %cas
cas:
  %j = phi i64 [%j0, %rejoin], [%jnow, %cas2]
  %open = and i64 %j, @OPEN@
  %isopen = icmp ne i64 %open, 0
  br i1 %isopen, label %cas2, label %nojoin
cas2:
  %j1 = add i64 %j, 1
  %cx = cmpxchg ptr %jp, i64 %j, i64 %j1 acquire monotonic
  %ok = extractvalue { i64, i1 } %cx, 1
  %jnow = extractvalue { i64, i1 } %cx, 0
  br i1 %ok, label %run, label %cas
nojoin:
  br label %idle
run:
  %ent = load ptr, ptr %entp, align 8
  %args = load ptr, ptr %argp, align 8
  %ctx = load ptr, ptr %ctxp, align 8
  %perp = getelementptr i64, ptr %work, i64 2
  %per = load i64, ptr %perp, align 8
  %took = call i32 @simt_step(ptr %ent, ptr %args, ptr %ctx, ptr %work, i64 %per)
  %left = atomicrmw sub ptr %jp, i64 1 seq_cst, align 8
  %last = icmp eq i64 %left, 1
  br i1 %last, label %lastout, label %after
lastout:
  ; the job closed and this worker the last in it: wake the launch if it sleeps
  %wp = getelementptr i64, ptr %s, i64 @WAITING@
  %waits = load atomic i64, ptr %wp seq_cst, align 8
  %sleeps = icmp ne i64 %waits, 0
  br i1 %sleeps, label %tell, label %after
tell:
  %dn = getelementptr i64, ptr %s, i64 @DONE@
  %tl = call i32 @pthread_mutex_lock(ptr %m)
  %tb = call i32 @pthread_cond_broadcast(ptr %dn)
  %tu = call i32 @pthread_mutex_unlock(ptr %m)
  br label %after
after:
  %again = icmp ne i32 %took, 0
  br i1 %again, label %rejoin, label %done
done:
  br label %idle
out:
  ret void
}

; a launch takes the pool (0: another launch holds it) and hands its job to the workers
define i32 @simt_post(ptr %s, ptr %ent, ptr %args, ptr %ctx, i64 %nb, i64 %per) {
entry:
  %busyp = getelementptr i64, ptr %s, i64 @BUSY@
  %cx = cmpxchg ptr %busyp, i64 0, i64 1 acquire monotonic
  %got = extractvalue { i64, i1 } %cx, 1
  br i1 %got, label %post, label %busy
busy:
  ret i32 0
post:
  %entp = getelementptr i64, ptr %s, i64 @JOB@
  store ptr %ent, ptr %entp, align 8
  %argp = getelementptr i64, ptr %entp, i64 1
  store ptr %args, ptr %argp, align 8
  %ctxp = getelementptr i64, ptr %entp, i64 2
  store ptr %ctx, ptr %ctxp, align 8
  %work = getelementptr i64, ptr %s, i64 @WORK@
  store i64 0, ptr %work, align 8
  %nbp = getelementptr i64, ptr %work, i64 1
  store i64 %nb, ptr %nbp, align 8
  %perp = getelementptr i64, ptr %work, i64 2
  store i64 %per, ptr %perp, align 8
  %jp = getelementptr i64, ptr %s, i64 @JOIN@
  store atomic i64 @OPEN@, ptr %jp release, align 8
  %old = atomicrmw add ptr %s, i64 1 seq_cst, align 8
  %slp = getelementptr i64, ptr %s, i64 @SLEEPERS@
  %sl = load atomic i64, ptr %slp seq_cst, align 8
  %some = icmp ne i64 %sl, 0
  br i1 %some, label %wake, label %out
wake:
  %m = getelementptr i64, ptr %s, i64 @MUTEX@
  %c = getelementptr i64, ptr %s, i64 @COND@
  %l = call i32 @pthread_mutex_lock(ptr %m)
  %b = call i32 @pthread_cond_broadcast(ptr %c)
  %u = call i32 @pthread_mutex_unlock(ptr %m)
  br label %out
out:
  ret i32 1
}

; the job closed to workers, and back once every worker that joined it has left (spinning
; for them at first, then asleep until the last one out wakes it)
define void @simt_finish(ptr %s) {
entry:
  %jp = getelementptr i64, ptr %s, i64 @JOIN@
  %old = atomicrmw and ptr %jp, i64 @NOT_OPEN@ seq_cst, align 8
  %spinp = getelementptr i64, ptr %s, i64 @SPIN@
  %spins = load atomic i64, ptr %spinp monotonic, align 8
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %pause]
  %j = load atomic i64, ptr %jp acquire, align 8
  %empty = icmp eq i64 %j, 0
  br i1 %empty, label %out, label %again
again:
  %i1 = add i64 %i, 1
  %patient = icmp slt i64 %i1, %spins
  br i1 %patient, label %pause, label %sleep
pause:
  @PAUSE@
  br label %loop
sleep:
  %m = getelementptr i64, ptr %s, i64 @MUTEX@
  %dn = getelementptr i64, ptr %s, i64 @DONE@
  %wp = getelementptr i64, ptr %s, i64 @WAITING@
  %l = call i32 @pthread_mutex_lock(ptr %m)
  store atomic i64 1, ptr %wp seq_cst, align 8
  br label %check
check:
  %j2 = load atomic i64, ptr %jp seq_cst, align 8
  %empty2 = icmp eq i64 %j2, 0
  br i1 %empty2, label %awake, label %wait
wait:
  %w = call i32 @pthread_cond_wait(ptr %dn, ptr %m)
  br label %check
awake:
  store atomic i64 0, ptr %wp seq_cst, align 8
  %u = call i32 @pthread_mutex_unlock(ptr %m)
  br label %out
out:
  %busyp = getelementptr i64, ptr %s, i64 @BUSY@
  store atomic i64 0, ptr %busyp release, align 8
  ret void
}

; a whole launch from native code (`cpu_fast`): 1, or 0 when another launch holds the pool
define i32 @simt_pool_run(ptr %s, ptr %ent, ptr %args, ptr %ctx, i64 %nb, i64 %per) {
entry:
  %got = call i32 @simt_post(ptr %s, ptr %ent, ptr %args, ptr %ctx, i64 %nb, i64 %per)
  %ok = icmp ne i32 %got, 0
  br i1 %ok, label %run, label %busy
busy:
  ret i32 0
run:
  %work = getelementptr i64, ptr %s, i64 @WORK@
  call void @simt_par(ptr %ent, ptr %args, ptr %ctx, ptr %work)
  call void @simt_finish(ptr %s)
  ret i32 1
}
"""

_PAUSES = {  # a spin loop's hint to the core, per architecture (none elsewhere)
    "x86_64": ("declare void @llvm.x86.sse2.pause()", "call void @llvm.x86.sse2.pause()"),
    "amd64": ("declare void @llvm.x86.sse2.pause()", "call void @llvm.x86.sse2.pause()"),
    "aarch64": ("", 'call void asm sideeffect "yield", ""()'),
    "arm64": ("", 'call void asm sideeffect "yield", ""()'),
}


def driver_text(machine: str | None = None) -> str:
    """The pool's LLVM IR for this machine (`platform.machine()`)."""
    decl, pause = _PAUSES.get((machine or platform.machine()).lower(), ("", ""))
    words = {"INTERRUPT_WORD": INTERRUPT_WORD, "STOPPED": STOPPED, "MUTEX": MUTEX, "COND": COND,
             "SLEEPERS": SLEEPERS, "STOP": STOP, "SPIN": SPIN, "JOIN": JOIN, "WORK": WORK,
             "JOB": JOB, "BUSY": BUSY, "OPEN": OPEN, "WAITING": WAITING, "DONE": DONE,
             "NOT_OPEN": ~OPEN, "PAUSE_DECL": decl, "PAUSE": pause}  # fmt: skip
    text = DRIVER
    for k, v in words.items():
        text = text.replace(f"@{k}@", str(v))
    return text


_PTR = ctypes.c_void_p
_I64 = ctypes.c_int64
_STEP = ctypes.CFUNCTYPE(ctypes.c_int32, _PTR, _PTR, _PTR, _PTR, _I64)
_POST = ctypes.CFUNCTYPE(ctypes.c_int32, _PTR, _PTR, _PTR, _PTR, _I64, _I64)
_ONE = ctypes.CFUNCTYPE(None, _PTR)
_SPIN = ctypes.CFUNCTYPE(None, _I64)
# How long a worker spins for the next job after its last one before it sleeps (and the calling
# thread for the workers in its job before it sleeps until they are done): the gaps between
# the launches of one `exec`, or between calls in a loop, are a few microseconds to tens of
# them; waking a sleeping worker costs the launch a system call (~2 µs) and the worker tens of
# microseconds before it runs. An idle process spends at most this much CPU per worker after
# its last launch. 50 rather than 200 µs: on the loaded 2-core dev machine the user kernels
# used 3-24 % less CPU so (monte_carlo, scan, jacobi, sobel_shared; the spin competes with
# the other threads for the cores), back-to-back launches find the workers awake either way.
SPIN_SECONDS = 50e-6
CHUNKS_PER_THREAD = 32  # small chunks: the last one decides how long the others wait
SLICE_SECONDS = 0.05
_PTHREAD = ("pthread_mutex_init", "pthread_cond_init", "pthread_mutex_lock",
            "pthread_mutex_unlock", "pthread_cond_wait", "pthread_cond_broadcast")  # fmt: skip


_never = ctypes.c_int64(0)


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


def chunk(nblocks: int, threads: int) -> int:
    """Blocks per chunk of a launch of `nblocks` blocks on `threads` threads."""
    return max(1, nblocks // (threads * CHUNKS_PER_THREAD))


@functools.cache
def available() -> bool:
    """Whether this system has what the workers need (pthreads' mutexes and condition
    variables): POSIX systems. Elsewhere every launch runs on the calling
    thread."""
    if os.name != "posix":
        return False
    lib = ctypes.CDLL(None)
    return all(hasattr(lib, n) for n in _PTHREAD)


def _register(llvm: Any) -> None:
    lib = ctypes.CDLL(None)
    for n in _PTHREAD:
        llvm.add_symbol(n, ctypes.cast(getattr(lib, n), ctypes.c_void_p).value)


def _stop(state: np.ndarray, post: Any, threads: list[threading.Thread]) -> None:
    """Make the workers of `state` return (at exit, or when their pool is collected)."""
    if state[STOP]:
        return
    state[STOP] = 1
    # a job that takes no worker, whose generation wakes them all
    if post(state.ctypes.data, None, None, None, 0, 1):
        state[JOIN] = 0
        state[BUSY] = 0
    for t in threads:
        if t is not threading.current_thread():
            t.join(timeout=1.0)


class Pool:
    """`threads` threads (the caller and `threads - 1` workers) running launches.

    `jit(text)` compiles LLVM IR text and returns a function that gives a symbol's address
    (and keeps the code alive as long as it is referenced); `counter` is the address of the
    count of Ctrl-C that launches compare with their context's (`cpu_interrupt.counter`)."""

    def __init__(
        self, threads: int, jit: Callable[[str], Callable[[str], int]], counter: int
    ) -> None:
        import llvmlite.binding as llvm

        self.threads = threads
        # the address of the count of Ctrl-C (`cpu_interrupt.counter`; 0: one that stays 0)
        self.counter = counter or ctypes.addressof(_never)
        _register(llvm)
        self._lookup = jit(driver_text())
        self._step = _STEP(self._lookup("simt_step"))
        self._post = _POST(self._lookup("simt_post"))
        self._finish = _ONE(self._lookup("simt_finish"))
        self.run_address = self._lookup("simt_pool_run")  # for `cpu_fast`
        self.state = state = np.zeros(STATE_WORDS, np.int64)
        self.address = state.ctypes.data
        _ONE(self._lookup("simt_init"))(self.address)
        state[WORK + 3] = self.counter
        state[SPIN] = spins(_SPIN(self._lookup("simt_spin")), SPIN_SECONDS)
        worker = _ONE(self._lookup("simt_worker"))
        keep = (state, self._lookup)  # alive while a worker runs their code

        def work(addr: int = self.address, keep: Any = keep) -> None:
            worker(addr)

        self._threads = [
            threading.Thread(target=work, name=f"simt-cpu-{n}", daemon=True)
            for n in range(threads - 1)
        ]
        for t in self._threads:
            t.start()
        # the workers return when the pool is collected, or at exit (before the code they run
        # is freed)
        self._closer = weakref.finalize(self, _stop, state, self._post, self._threads)
        self.pid = os.getpid()
        _pools.add(self)

    def run(self, entry: int, args: Any, ctx: Any, nblocks: int) -> None:
        """Run blocks `0 <= b < nblocks` of the kernel whose entry is at address `entry`
        (`backends.llvm`'s `simt_run`); `args` and `ctx` are its NumPy argument and context
        arrays. The calling thread takes its chunks a few at a time (back in Python in between,
        where Ctrl-C raises); when another launch holds the pool, it takes them all."""
        per = chunk(nblocks, self.threads)
        a, c, s = args.ctypes.data, ctx.ctypes.data, self.address
        work = s + 8 * WORK
        if not self._post(s, entry, a, c, nblocks, per):  # another Python thread's launch
            local = np.array([0, nblocks, per, self.counter], np.int64)
            work = local.ctypes.data
            try:
                for n in slices(per):
                    if not self._step(entry, a, c, work, n):
                        break
            except BaseException:
                ctx[0] = STOPPED
                raise
            return
        try:
            for n in slices(per):  # one slice a call: Ctrl-C is seen in between
                if not self._step(entry, a, c, work, n):
                    break
        except BaseException:  # KeyboardInterrupt: stop every thread before going on
            ctx[0] = STOPPED
            raise
        finally:
            self._finish(s)  # waits (GIL released) for the workers in the job to leave


# A child made by `fork` has none of its parent's workers (and maybe a lock a worker held):
# every pool it inherited takes no more launches (`simt_post` finds it busy, so a fast launch
# that names it runs on the calling thread), and the runtime makes a new pool (`Pool.pid`).
_pools: weakref.WeakSet[Pool] = weakref.WeakSet()


def _forked() -> None:
    for pool in list(_pools):
        pool.state[BUSY] = 1
        pool.state[STOP] = 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forked)


def spins(spin: Callable[[int], None], seconds: float) -> int:
    """How many pauses (`simt_spin`) take about `seconds` here (the fastest of a few tries:
    a try this thread was descheduled in says nothing)."""
    n, best = 4096, float("inf")
    for _ in range(5):
        t = time.perf_counter()
        spin(n)
        best = min(best, time.perf_counter() - t)
    return max(64, int(seconds * n / max(best, 1e-9)))
