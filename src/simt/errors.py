"""The three errors a user sees: compile, launch and kernel errors.

Every message names the user's own file and line where there is one, shows the source line
with a caret under the construct, and says what to write instead. Nothing from inside simt's
own code is shown: every public entry point is wrapped by `user_facing` (below),
which cuts simt's frames out of the traceback (docs/language.md, "Which error for what").
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar


class SimtError(Exception):
    """Base class of simt's errors."""

    #: a bug in simt rather than a problem in the user's code (`mark_internal`): its
    #: traceback keeps simt's frames
    internal: bool = False


class CompileError(SimtError):
    """The kernel uses something outside the kernel language, or its types do not fit."""

    def __init__(
        self,
        message: str,
        filename: str | None = None,
        line: int | None = None,
        col: int | None = None,
        source_line: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        self.source_line = source_line
        self.hint = hint
        super().__init__(self._render())

    def _render(self) -> str:
        parts = []
        if self.filename is not None and self.line is not None:
            where = f"{self.filename}:{self.line}"
            if self.col is not None:
                where += f":{self.col + 1}"
            parts.append(f"{where}: {self.message}")
        else:
            parts.append(self.message)
        if self.source_line:
            text = self.source_line.rstrip("\n")
            stripped = text.lstrip()
            indent = len(text) - len(stripped)
            parts.append("    " + stripped)
            if self.col is not None and self.col >= indent:
                parts.append("    " + " " * (self.col - indent) + "^")
        if self.hint:
            parts.append(f"  {self.hint}")
        return "\n".join(parts)


class LaunchError(SimtError):
    """A launch that cannot run: a bad grid or block, wrong arguments."""


@dataclass(frozen=True)
class ThreadFailure:
    """One thread that ended with an exception nobody caught (`KernelError.failures`)."""

    thread: int  # the thread's global linear index (block linear * threads per block + thread)
    block: tuple[int, int, int]
    thread_idx: tuple[int, int, int]
    exception: str  # the exception's class name: "IndexError", "AssertionError", ...
    message: str  # str() of the exception
    filename: str
    line: int

    def __str__(self) -> str:
        text = f"thread {self.thread} raised {self.exception}"
        if self.message:
            text += f": {self.message}"
        return f"{text} at {self.filename}:{self.line}"


class KernelError(SimtError):
    """A failure inside a running kernel: out-of-bounds access, failed assert, an exception
    raised in threads and not caught.

    Carries the block and thread index of the first failing thread and the source location;
    for exceptions raised in threads, `failures` lists the threads (`ThreadFailure`, the
    first `raising.CAPACITY` of them), `counts` how many threads raised at each place, and
    `finished` how many threads finished.
    """

    failures: list[ThreadFailure]
    finished: int | None
    counts: list[tuple[str, str, int, int]]  # (class, file, line, threads) per group

    def __init__(
        self,
        message: str,
        block: tuple[int, int, int] | None = None,
        thread: tuple[int, int, int] | None = None,
        filename: str | None = None,
        line: int | None = None,
        source_line: str | None = None,
    ) -> None:
        self.block = block
        self.thread = thread
        self.filename = filename
        self.line = line
        self.source_line = source_line
        text = message
        if block is not None and thread is not None:
            text += f" (block {block}, thread {thread})"
        if filename is not None and line is not None:
            text = f"{filename}:{line}: {text}"
        if source_line:
            text += "\n    " + source_line.strip()
        self.message = message
        self.failures = []
        self.finished = None
        self.counts = []
        super().__init__(text)

    @classmethod
    def grouped(
        cls,
        failures: list[ThreadFailure],
        groups: list[tuple[ThreadFailure, int]],
        finished: int,
        source_lines: dict[tuple[str, int], str],
    ) -> KernelError:
        """One error for every thread that raised: a line per place and class (`groups`:
        the group's first failure and how many threads raised there), then how many threads
        finished."""
        lines = []
        for first, n in groups:
            what = f"{n:,} thread{'s' if n != 1 else ''} raised {first.exception}"
            what += f" at {first.filename}:{first.line}"
            detail = f"first: thread {first.thread}"
            if first.message:
                detail += f": {first.message}"
            lines.append(f"{what} ({detail})")
            src = source_lines.get((first.filename, first.line))
            if src:
                lines.append("    " + src.strip())
        lines.append(f"{finished:,} thread{'s' if finished != 1 else ''} finished")
        head = groups[0][0] if groups else None
        e = cls("\n".join(lines))
        e.block = head.block if head else None
        e.thread = head.thread_idx if head else None
        e.filename = head.filename if head else None
        e.line = head.line if head else None
        e.source_line = source_lines.get((head.filename, head.line)) if head else None
        e.failures = failures
        e.finished = finished
        e.counts = [(f.exception, f.filename, f.line, n) for f, n in groups]
        return e


    def in_context(self, where: str) -> KernelError:
        """This error with `where` (`in chunk (3,) of f()`) after the failure it describes:
        a grouped error keeps its lines, threads and counts, `where` ending its first line."""
        if not self.counts:
            e = KernelError(
                f"{self.message} {where}", self.block, self.thread, self.filename, self.line,
                self.source_line,
            )  # fmt: skip
        else:
            first, nl, rest = str(self).partition("\n")
            e = KernelError(f"{first} {where}{nl}{rest}")
            e.block, e.thread, e.filename = self.block, self.thread, self.filename
            e.line, e.source_line = self.line, self.source_line
        e.failures, e.finished, e.counts = self.failures, self.finished, self.counts
        return e


def reword(e: SimtError, words: Callable[[str], str]) -> None:
    """Pass the texts of `e` through `words`, in place (`simt.cuda` names simt's functions as
    a Numba program spells them: `cuda.syncthreads()` where simt says `simt.syncthreads()`).
    Internal errors keep their words."""
    if is_internal(e):
        return
    if isinstance(e, CompileError):
        e.message = words(e.message)
        e.hint = words(e.hint) if e.hint else e.hint
        e.args = (e._render(),)
        return
    if isinstance(e, KernelError):
        e.message = words(e.message)
    e.args = tuple(words(a) if isinstance(a, str) else a for a in e.args)


class BackendUnavailable(SimtError):
    """The backend asked for is not installed or has no device here; the message says why."""


# Tracebacks that end at the user's line ----------------------------------------------------
#
# An error simt raises about the user's code (`CompileError`, `LaunchError`, `KernelError`,
# `BackendUnavailable`) says in its message where the problem is; the frames of simt's own code
# that it passed through on the way out say nothing to the user. `user_facing` wraps each
# public entry point (a launch, `simt.compile`, `simt.zeros`, an image function's call, ...):
# when such an error leaves it, the frames from simt's files are cut out of its traceback and
# it is re-raised with a bare `raise`, which adds no frame, so the traceback the user sees ends
# at the user's own line — the line that launched, compiled or called.
#
# Internal errors (a bug in simt, marked with `mark_internal`) keep every frame, and
# `SIMT_INTERNAL_ERRORS=1` keeps them for every error (for debugging simt itself).
# This follows JAX's "traceback filtering" of its internal frames, written for simt.

#: the folder of simt's own source files: frames from files under it are simt's
SIMT_ROOT = os.path.normcase(os.path.dirname(os.path.abspath(__file__))) + os.sep

F = TypeVar("F", bound=Callable[..., Any])


def simt_frames_shown() -> bool:
    """Whether the user asked to see simt's own frames (`SIMT_INTERNAL_ERRORS=1`)."""
    return os.environ.get("SIMT_INTERNAL_ERRORS") == "1"


def mark_internal(e: SimtError) -> SimtError:
    """Mark `e` as a bug in simt: its traceback keeps simt's frames."""
    e.internal = True
    return e


def is_internal(e: BaseException) -> bool:
    """Whether `e` reports a bug in simt rather than a problem in the user's code."""
    return bool(getattr(e, "internal", False))


def is_simt_frame(filename: str) -> bool:
    """Whether a frame of `filename` is simt's own code (a source file or generated code)."""
    if filename.startswith("<simt"):
        return True
    return os.path.normcase(os.path.abspath(filename)).startswith(SIMT_ROOT)


def without_simt_frames(tb: TracebackType | None) -> TracebackType | None:
    """The traceback `tb` with the entries of simt's frames left out (a new chain)."""
    kept = []
    while tb is not None:
        if not is_simt_frame(tb.tb_frame.f_code.co_filename):
            kept.append(tb)
        tb = tb.tb_next
    out: TracebackType | None = None
    for t in reversed(kept):
        out = TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def for_user(e: SimtError) -> SimtError:
    """`e` as a public entry point lets it go: carrying only the user's frames (unless it is
    an internal error or SIMT_SHOW_FRAMES asks for simt's). Re-raise it with a bare `raise`
    (which adds no frame of its own): `except SimtError as e: for_user(e); raise`."""
    if is_internal(e) or simt_frames_shown():
        return e
    e.__suppress_context__ = True  # simt's own exceptions that led to it
    e.__traceback__ = without_simt_frames(e.__traceback__)
    return e


def user_facing(fn: F) -> F:
    """Decorate a public entry point: user errors leaving it carry only the user's frames."""

    @functools.wraps(fn)
    def entry(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SimtError as e:
            if sys.version_info < (3, 11):  # a bare raise reuses the caught traceback there
                if is_internal(e) or simt_frames_shown():
                    raise
                raise e.with_traceback(without_simt_frames(e.__traceback__)) from None
            for_user(e)
            raise  # a bare raise adds no frame of its own

    return entry  # type: ignore[return-value]


class SimtPerformanceWarning(UserWarning):
    """A launch that will run slower than it could; the message says why and what to change
    (the launch advisor's warning, `simt.benchtool.advise`)."""


def file_error(path: str, e: BaseException) -> str:
    """An exception raised by the user's file `path` while it was loaded, in one line with
    the file's line where it happened."""
    line = getattr(e, "lineno", None) if isinstance(e, SyntaxError) else None
    if line is None:
        here = str(Path(path).resolve())
        for fr in traceback.extract_tb(e.__traceback__):
            if str(Path(fr.filename).resolve()) == here:
                line = fr.lineno
    where = f"{path}:{line}" if line else path
    text = (e.msg if isinstance(e, SyntaxError) else str(e)).strip().splitlines()
    return f"{where}: {type(e).__name__}: {text[0] if text else ''}".rstrip(": ")


class NumbaTypingWarning(UserWarning):
    """A `simt.cuda.jit` kernel that cannot follow Numba's typing on this device (a WebGPU
    adapter without 64-bit integers computes its Python ints in int32); the message says
    what differs."""
