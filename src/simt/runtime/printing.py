"""Formatting what kernels printed, on the host, the same way for every backend."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO

import numpy as np

from ..ir.ops import Field
from .base import PrintRecord


def format_value(value: Any, spec: str) -> str:
    """One printed value: as Python's `print` shows it when `spec` is empty, else `format`."""
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
