"""Ctrl-C for the cpu runtime's native code: a SIGINT handler that counts, chained to Python's.

While a launch runs, the thread that called it is inside compiled code (a ctypes call), where
Python's own SIGINT handling only notes the signal: KeyboardInterrupt is raised once the call
returns, and a block that loops for ever never returns. So the runtime installs, in front of
Python's C-level handler, a small native one (LLVM IR compiled once per process, below) that
adds one to a counter and then calls the handler it replaced, so Python still raises
KeyboardInterrupt as always. Kernels call `simt_poll` every few thousand loop iterations
(`backends.llvm`: `POLL_EVERY`), which compares the counter with its value at the launch's
start (`armed()`, kept in the launch's context) and, when they differ, marks the launch
stopped and jumps back to the kernel's entry (`longjmp`), which returns.

The handler is put back in front whenever Python replaced it (`signal.signal(SIGINT, ...)` with
a Python function installs Python's C handler again): `armed()` checks at each launch. When
SIGINT is ignored or left to the system's default (`signal.SIG_IGN`, `SIG_DFL`), nothing is
installed: Ctrl-C then does what the user asked for. Only where `sigaction` exists (Linux,
macOS; not Windows, whose Ctrl-C is no signal): elsewhere kernels see the counter stay at 0 and
a launch is stopped between its slices of blocks only (`cpu_pool.slices`).

The handler's `struct sigaction` is the one the system gave back for Python's handler with
only its first field (the handler's address, first on every POSIX system) replaced: flags and
mask stay Python's, so system calls interrupted by Ctrl-C still fail with EINTR as Python needs.
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
from collections.abc import Callable

from ..backends.llvm_abi import INTERRUPT_WORD, POLL_FUNCTION, STOPPED

HANDLER = """
@simt_sigints = global i64 0, align 8
@simt_previous = global ptr null, align 8

declare void @_longjmp(ptr, i32) noreturn

define void @simt_on_sigint(i32 %sig, ptr %info, ptr %uctx) {
entry:
  %old = atomicrmw add ptr @simt_sigints, i64 1 seq_cst, align 8
  %prev = load atomic ptr, ptr @simt_previous seq_cst, align 8
  %addr = ptrtoint ptr %prev to i64
  %real = icmp ugt i64 %addr, 1
  br i1 %real, label %chain, label %out
chain:
  call void %prev(i32 %sig, ptr %info, ptr %uctx)
  br label %out
out:
  ret void
}

define void @simt_poll(ptr %ctx, ptr %jb) {
entry:
  %now = load atomic i64, ptr @simt_sigints monotonic, align 8
  %sincep = getelementptr i64, ptr %ctx, i64 @INTERRUPT_WORD@
  %since = load i64, ptr %sincep, align 8
  %hit = icmp ne i64 %now, %since
  br i1 %hit, label %stop, label %go
stop:
  %old = atomicrmw min ptr %ctx, i64 @STOPPED@ monotonic, align 8
  call void @_longjmp(ptr %jb, i32 1)
  unreachable
go:
  ret void
}

@simt_sigaction_buf = global [512 x i8] zeroinitializer, align 16

declare i32 @sigaction(i32, ptr, ptr)

; `armed()` in native code, for the cpu runtime's native fast launches (`cpu_fast`): the handler
; put back in front of SIGINT's current one when Python replaced it, and the count returned
define i64 @simt_arm() {
entry:
  %r = call i32 @sigaction(i32 @SIGINT@, ptr null, ptr @simt_sigaction_buf)
  %failed = icmp ne i32 %r, 0
  br i1 %failed, label %out, label %look
look:
  %cur = load ptr, ptr @simt_sigaction_buf, align 16
  %addr = ptrtoint ptr %cur to i64
  %system = icmp ule i64 %addr, 1
  %ours = icmp eq ptr %cur, @simt_on_sigint
  %keep = or i1 %system, %ours
  br i1 %keep, label %out, label %install
install:
  store atomic ptr %cur, ptr @simt_previous seq_cst, align 8
  store ptr @simt_on_sigint, ptr @simt_sigaction_buf, align 16
  %r2 = call i32 @sigaction(i32 @SIGINT@, ptr @simt_sigaction_buf, ptr null)
  br label %out
out:
  %n = load atomic i64, ptr @simt_sigints monotonic, align 8
  ret i64 %n
}

define ptr @simt_counter() {
entry:
  ret ptr @simt_sigints
}

define ptr @simt_previous_slot() {
entry:
  ret ptr @simt_previous
}
""".replace("@INTERRUPT_WORD@", str(INTERRUPT_WORD)).replace("@STOPPED@", str(STOPPED)).replace(
    "@SIGINT@", str(int(signal.SIGINT))
)

_SIGACTION_BYTES = 512  # more than any system's struct sigaction
_lock = threading.Lock()


class _Handler:
    """The compiled handler, its counter and the C library's `sigaction`."""

    def __init__(self, jit: Callable[[str], Callable[[str], int]]) -> None:
        self.lookup = jit(HANDLER)  # keeps the code alive for the life of the process
        self.address = self.lookup("simt_on_sigint")
        self.count = ctypes.c_int64.from_address(
            ctypes.CFUNCTYPE(ctypes.c_void_p)(self.lookup("simt_counter"))() or 0
        )
        self.previous = ctypes.c_void_p.from_address(
            ctypes.CFUNCTYPE(ctypes.c_void_p)(self.lookup("simt_previous_slot"))() or 0
        )
        libc = ctypes.CDLL(None, use_errno=True)
        self.sigaction = libc.sigaction
        self.sigaction.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        self.sigaction.restype = ctypes.c_int
        self.buf = ctypes.create_string_buffer(_SIGACTION_BYTES)

    def arm(self) -> None:
        """Put the handler in front of SIGINT's current one, unless it is there already or
        SIGINT is ignored or left to the system's default."""
        if self.sigaction(signal.SIGINT, None, self.buf) != 0:
            return
        handler = ctypes.c_void_p.from_buffer(self.buf)
        current = handler.value or 0
        if current in (0, 1, self.address):  # SIG_DFL, SIG_IGN, or ours
            return
        self.previous.value = current
        handler.value = self.address
        self.sigaction(signal.SIGINT, self.buf, None)


_handler: _Handler | None = None
_failed = False


def address(jit: Callable[[str], Callable[[str], int]]) -> int:
    """The address of `simt_poll` (for the JIT linker), compiling the handler first (the JIT
    linker must know `_longjmp` already)."""
    global _handler
    with _lock:
        if _handler is None:
            _handler = _Handler(jit)
    return _handler.lookup(POLL_FUNCTION)


def arm_address() -> int:
    """The address of `simt_arm` (`armed()` in native code: `int64_t simt_arm(void)`, called
    with the GIL held), or 0 where Ctrl-C reaches kernels some other way or not at all."""
    h = _handler
    if h is None or os.name != "posix" or _failed:
        return 0
    return h.lookup("simt_arm")


def counter() -> int:
    """The address of the count of Ctrl-C (an int64 the handler adds one to; launches keep its
    value at their start in their context), or of a count that stays 0 where there is none."""
    h = _handler
    return ctypes.addressof(h.count) if h is not None else ctypes.addressof(_never)


_never = ctypes.c_int64(0)


def armed() -> int:
    """Make sure Ctrl-C reaches kernels (see the module's doc) and return the count of Ctrl-C
    so far: a launch stops when the count changes. Called by each launch, on any thread."""
    global _failed
    h = _handler
    if h is None:
        return 0
    if os.name == "posix" and not _failed:
        try:
            h.arm()
        except (AttributeError, OSError):  # no usable sigaction: slices only
            _failed = True
    return h.count.value
