"""Formatting what kernels printed, on the host, the same way for every backend."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

import numpy as np

from ..ir.ops import QUOTED, Field, spec_conversion
from .base import PrintRecord


def format_value(value: Any, spec: str) -> str:
    """One printed value: as Python's `print` shows it when `spec` is empty, else `format`;
    `!s:spec` (from `{v!s:spec}`, also `!r`, `!a`) formats the printed text with `spec`;
    `QUOTED` writes a character of a string's repr."""
    if spec == QUOTED:
        c = int(value)
        if c < 0:  # the quote character: escaped
            return "\\" + chr(-c)
        return repr(chr(c))[1:-1] if c <= 0x10FFFF else "\ufffd"
    conversion, rest = spec_conversion(spec)
    if conversion:
        return format(format_value(value, ""), rest)
    if isinstance(value, (np.bool_, bool)):
        value = bool(value)
    elif isinstance(value, np.integer):
        value = int(value)
    elif isinstance(value, np.floating):
        if not spec:
            # float32 prints its shortest round-trip form (0.1, not 0.10000000149011612).
            return str(value) if value.dtype == np.float32 else repr(float(value))
        value = float(value)
    return format(value, spec) if spec else str(value)


def format_print(parts: Sequence[str | Field], values: Sequence[Any]) -> str:
    """The text one `print` op writes, given its `parts` attribute and its operand values."""
    out = []
    for p in parts:
        out.append(p if isinstance(p, str) else format_value(values[p.arg], p.spec))
    return "".join(out)


def emit(
    records: list[PrintRecord],
    formats: Sequence[Sequence[str | Field]],
    stream: TextIO | None = None,
) -> None:
    """Write `records` thread-major (thread 0's prints, then thread 1's, ...), each thread's in
    the order it printed them. `formats[i]` is the parts of the kernel's i-th print op."""
    if not records:
        return
    stream = stream if stream is not None else sys.stdout
    records.sort(key=lambda r: (r.thread, r.seq))
    if _sinks:  # captured (the REPL groups what each thread printed): nothing is written
        _sinks[-1].extend((r.thread, format_print(formats[r.print_id], r.values)) for r in records)
        return
    stream.write("".join(format_print(formats[r.print_id], r.values) for r in records))
    stream.flush()


_sinks: list[list[tuple[int, str]]] = []

# Streaming (`cpu` and `sim`): a launch still running this many seconds after it started
# writes what its threads printed so far, then what they print next as it comes; None: never.
DEFAULT_STREAM_AFTER = 0.5
_stream_after: list[float | None] = []  # set by `stream_print` (over SIMT_STREAM_PRINT)


def stream_after() -> float | None:
    """The seconds after which a running launch's prints are streamed, or None (never):
    `stream_print(...)`, else the `SIMT_STREAM_PRINT` environment variable (seconds, or
    "off"), else `DEFAULT_STREAM_AFTER`."""
    if _stream_after:
        return _stream_after[-1]
    text = os.environ.get("SIMT_STREAM_PRINT", "").strip().lower()
    if not text:
        return DEFAULT_STREAM_AFTER
    if text in ("off", "no", "false", "never"):
        return None
    try:
        return max(float(text), 0.0)
    except ValueError:
        return DEFAULT_STREAM_AFTER


_ENV = object()


def stream_print(after: Any = _ENV) -> None:
    """Stream `print` output of launches on `cpu` and `sim` that run longer than `after`
    seconds (0: from the start; None: never, everything is written when the launch ends).
    Without an argument: back to `SIMT_STREAM_PRINT` (or the default, 0.5 s)."""
    if after is _ENV:
        _stream_after.clear()
    else:
        _stream_after[:] = [after if after is None else max(float(after), 0.0)]


class Stream:
    """The print stream of one running launch. Until it is `due` nothing is written; then each
    `write` writes the records given (thread-major within the batch, each thread's lines in
    its order), so a thread's lines always come in the order it printed them; what two threads
    print may interleave batch by batch. Never while the REPL captures prints (it groups each
    thread's whole output)."""

    def __init__(self, formats: Sequence[Sequence[str | Field]]) -> None:
        self.formats = formats
        self.after = stream_after()
        self.start = time.monotonic()
        self.streamed = False  # whether something was written already

    @staticmethod
    def wanted() -> bool:
        """Whether a launch starting now may stream at all."""
        return stream_after() is not None and not _sinks

    def due(self) -> bool:
        """Whether the launch has run long enough to stream."""
        return (
            self.after is not None
            and not _sinks
            and time.monotonic() - self.start >= self.after
        )

    def write(self, records: list[PrintRecord]) -> None:
        if records:
            self.streamed = True
            emit(records, self.formats)


def watch(stream: Stream, poll: Callable[[], list[PrintRecord]],
          every: float = 0.1) -> Callable[[], None]:  # fmt: skip
    """Run `poll` (the records printed since its last call) on a background thread while a
    launch runs, writing its records once the stream is due. Returns the function that stops
    the watcher (after which the caller writes what is left)."""
    stop = threading.Event()

    def loop() -> None:
        first = (stream.after or 0.0) - (time.monotonic() - stream.start)
        if stop.wait(max(first, 0.0)):
            return
        while True:
            if stream.due():
                stream.write(poll())
            if stop.wait(every):
                return

    t = threading.Thread(target=loop, name="simt-print-stream", daemon=True)
    t.start()

    def end() -> None:
        stop.set()
        t.join()

    return end


def write_texts(texts: list[tuple[int, str]]) -> None:
    """Write (thread, text) pairs already formatted, in their order: into the capture around
    this one (the REPL's), else to stdout."""
    if not texts:
        return
    if _sinks:
        _sinks[-1].extend(texts)
        return
    sys.stdout.write("".join(t for _, t in texts))
    sys.stdout.flush()


@contextmanager
def capture() -> Iterator[list[tuple[int, str]]]:
    """Within the block, what kernels print is collected as (launch-wide thread id, text) pairs,
    thread-major, instead of being written (the REPL groups the threads' outputs)."""
    sink: list[tuple[int, str]] = []
    _sinks.append(sink)
    try:
        yield sink
    finally:
        _sinks.remove(sink)
