"""Grouping what a million threads printed: each distinct text once, with its count.

A thread's text is what it printed followed by its echo (the repr of a bare expression). Texts
are grouped by identity, the groups shown in the order of their first thread, each after a
banner `----- 349526x -----`; with a single group and no silent thread there is no banner;
threads that printed nothing are counted under a final banner with nothing after it. Echoes
come as arrays and are grouped with NumPy, so a million echoed numbers cost milliseconds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

MAX_GROUPS = 256


class Sink(Protocol):
    """Where the REPL writes: plain text, banners, warnings and errors (styled by a console)."""

    def text(self, s: str) -> None: ...
    def banner(self, s: str) -> None: ...
    def warning(self, s: str) -> None: ...
    def error(self, s: str) -> None: ...


@dataclass
class Echo:
    """Per-thread echo values: `arrays` (one per tuple item, or one) and how to show a row."""

    arrays: Sequence[np.ndarray]
    show: Callable[[Sequence[object]], str]


def _codes(arrays: Sequence[np.ndarray]) -> tuple[np.ndarray, int]:
    """A small integer per thread, equal for equal rows of `arrays`, and how many there are."""
    code: np.ndarray | None = None
    count = 1
    for a in arrays:
        u, inv = np.unique(a, return_inverse=True)
        inv = inv.reshape(-1).astype(np.int64)
        code = inv if code is None else code * len(u) + inv
        if len(arrays) > 1:
            code = np.unique(code, return_inverse=True)[1].reshape(-1).astype(np.int64)
        count = int(code.max()) + 1 if len(code) else 1
    assert code is not None
    return code, count


def group(
    n: int,
    prints: Sequence[tuple[int, str]],
    echo: Echo | str | None,
    out: Sink,
    max_groups: int = MAX_GROUPS,
    echoed: np.ndarray | None = None,
) -> None:
    """Write the grouped outputs of `n` threads: `prints` as (thread, text) thread-major, then
    each thread's echo (an `Echo`, or one text for every thread, or None), only for the
    threads `echoed` marks when it is given (a thread that raised echoes nothing)."""
    # what each thread printed, as a code: 0 for nothing
    texts: dict[str, int] = {"": 0}
    pcode = np.zeros(n, np.int64)
    if prints:
        threads: list[int] = []
        codes: list[int] = []
        cur = prints[0][0]
        buf: list[str] = []
        for t, s in [*prints, (-1, "")]:
            if t != cur:
                c = texts.setdefault("".join(buf), len(texts))
                threads.append(cur)
                codes.append(c)
                cur, buf = t, []
            buf.append(s)
        pcode[np.asarray(threads, np.int64)] = np.asarray(codes, np.int64)
    ptext = list(texts)
    masked = echoed is not None and (isinstance(echo, Echo) or bool(echo))
    if isinstance(echo, Echo):
        ecode, ne = _codes(echo.arrays)
    else:
        ecode, ne = np.zeros(n, np.int64), 1
    if masked:  # echo code 0: no echo
        ecode, ne = np.where(np.asarray(echoed), ecode + 1, 0), ne + 1
    key = pcode * ne + ecode
    uk, first, counts = np.unique(key, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    silent = 0
    if (masked or not isinstance(echo, Echo) and not echo) and uk[0] == 0:
        silent = int(counts[0])  # threads that printed nothing and echo nothing
        order = order[order != 0]

    def text(g: int) -> str:
        k, t = int(uk[g]), int(first[g])
        if masked and k % ne == 0:
            tail = ""
        elif isinstance(echo, Echo):
            tail = echo.show([a[t] for a in echo.arrays]) + "\n"
        else:
            tail = echo + "\n" if echo else ""
        return ptext[k // ne] + tail

    if len(order) == 0:
        return  # no thread printed anything
    if len(order) == 1 and not silent:
        out.text(text(int(order[0])))
        return
    last = "\n"
    for g in order[:max_groups].tolist():
        if not last.endswith("\n"):
            out.text("\n")  # a banner starts its own line, after `print(..., end="")`
        out.banner(f"----- {int(counts[g])}x -----")
        last = text(g)
        out.text(last)
    if not last.endswith("\n"):
        out.text("\n")
    if len(order) > max_groups:
        rest = order[max_groups:]
        out.warning(
            f"... {len(rest)} more distinct outputs from {int(counts[rest].sum())} "
            f"threads not shown (only the first {max_groups} are)"
        )
    if silent:
        out.banner(f"----- {silent}x -----")
