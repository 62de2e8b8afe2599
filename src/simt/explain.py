"""`kernel.explain`: one or two threads' path through a launch on `sim`, as text.

The launch runs on `sim` with a traced program (`simt.backends.sim.render(fn, trace=True)`),
which reports the lines each watched thread runs, the named values it assigns, its loads and
stores with their indices, its barriers and its loop iterations (`simt.runtime.sim_trace`).
This module turns those events into rows: a loop shows its first iterations, a folded count,
and its last one; two threads are aligned line by line and the rows where only one of them
went (divergence) or where their values differ are marked.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .ir import Loc
from .runtime.sim_trace import Event

SHOWN_ITERATIONS = 3  # a loop's iterations shown in full before the fold (then its last one)
_SOURCE_WIDTH = 44


@dataclass
class _Row:
    key: tuple[Any, ...]
    line: int
    source: str
    notes: list[str] = field(default_factory=list)


@dataclass
class _Loop:
    line: int
    source: str
    pre: list[Any] = field(default_factory=list)
    hidden: bool = False
    iterations: list[tuple[str, list[Any]]] = field(default_factory=list)


def _value(v: Any) -> str:
    """A value as a user reads it: float32 in its shortest round-trip form, ints as ints."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, np.floating):
        return str(v)
    if isinstance(v, np.integer):
        return str(int(v))
    return repr(v) if isinstance(v, str) else str(v)


def _note(e: Event) -> str:
    idx = ", ".join(_value(i) for i in e.index)
    if e.kind == "val":
        return f"{e.name} = {_value(e.value)}"
    if e.kind == "alias":
        return f"{e.name} is the array {e.value}"
    if e.kind == "load":
        return f"read {e.name}[{idx}] -> {_value(e.value)}"
    if e.kind == "store":
        return f"{e.name}[{idx}] = {_value(e.value)}"
    if e.kind in ("atomic", "cas"):
        return f"atomic on {e.name}[{idx}] (old value {_value(e.value)})"
    if e.kind == "barrier":
        return "waits at syncthreads() for its block"
    return ""


def _tree(events: list[Event], locs: list[Loc | None]) -> list[Any]:
    """The events of one thread as rows and loops (nested as the loops ran)."""
    root: list[Any] = []
    items: list[Any]
    stack: list[list[Any]] = [root]
    loops: list[tuple[int, _Loop]] = []
    for e in events:
        if e.kind == "begin":
            loc = locs[e.site] if e.site >= 0 else None
            node = _Loop(loc.line if loc else 0, loc.source_line.strip() if loc else "loop")
            node.hidden = loc is None
            items = stack[-1]
            if items and isinstance(items[-1], _Row) and loc and items[-1].key == (
                loc.filename, loc.line) and not items[-1].notes:  # fmt: skip
                items.pop()  # the loop's own row says it
            stack[-1].append(node)
            loops.append((e.loop, node))
            stack.append(node.pre)
        elif e.kind == "iter":
            if not loops:
                continue
            label = f"{e.name} = {_value(e.value)}" if e.name else ""
            body: list[Any] = []
            loops[-1][1].iterations.append((label, body))
            stack[-1] = body
        elif e.kind == "end":
            while loops:
                loop_id, _ = loops.pop()
                stack.pop()
                if loop_id == e.loop:
                    break
        else:
            loc = locs[e.site]
            if loc is None:
                continue  # a line the reader does not see (the REPL's generated lines)
            items = stack[-1]
            key = (loc.filename, loc.line)
            if not items or not isinstance(items[-1], _Row) or items[-1].key != key:
                items.append(_Row(key, loc.line, loc.source_line.strip()))
            note = _note(e)
            if note and (not items[-1].notes or items[-1].notes[-1] != note):
                items[-1].notes.append(note)
    return root


@dataclass
class _Out:
    key: tuple[Any, ...]
    line: str  # the line number column ('' for headers)
    source: str
    note: str


def _flatten(items: list[Any], depth: int = 0) -> list[_Out]:
    out: list[_Out] = []
    pad = "  " * depth
    for it in items:
        if isinstance(it, _Row):
            out.append(_Out(("row", depth, it.key), str(it.line), pad + it.source,
                            "; ".join(it.notes)))  # fmt: skip
            continue
        if it.hidden:
            continue
        n = len(it.iterations)
        out.append(_Out(("loop", depth, it.line), str(it.line), pad + it.source,
                        f"loop: {n} iteration{'s' if n != 1 else ''}"))  # fmt: skip
        out.extend(_flatten(it.pre, depth + 1))
        shown = list(enumerate(it.iterations))
        if n > SHOWN_ITERATIONS + 1:
            folded = n - SHOWN_ITERATIONS - 1
            first, last = shown[:SHOWN_ITERATIONS], shown[-1:]
        else:
            first, last, folded = shown, [], 0
        for k, (label, body) in first:
            out.append(_iteration(depth, k, label))
            out.extend(_flatten(body, depth + 2))
        if folded:
            more = f"{folded} more iteration{'s' if folded != 1 else ''} folded"
            out.append(_Out(("fold", depth), "", pad + "  ...", more))
        for k, (label, body) in last:
            out.append(_iteration(depth, k, label))
            out.extend(_flatten(body, depth + 2))
    return out


def _iteration(depth: int, k: int, label: str) -> _Out:
    return _Out(("iter", depth, k), "", "  " * depth + f"  iteration {k + 1}", label)


def _clip(s: str, width: int) -> str:
    return s if len(s) <= width else s[: width - 3] + "..."


def format_one(title: str, events: list[Event], locs: list[Loc | None]) -> str:
    """One thread's path as text: a row per line it ran, with what it did there."""
    rows = _flatten(_tree(events, locs))
    width = min(_SOURCE_WIDTH, max((len(r.source) for r in rows), default=10))
    lines = [title, f"  {'line':>5}  {'source':<{width}}  what this thread did"]
    for r in rows:
        lines.append(f"  {r.line:>5}  {_clip(r.source, width):<{width}}  {r.note}".rstrip())
    return "\n".join(lines)


def format_two(
    title: str,
    labels: tuple[str, str],
    events: tuple[list[Event], list[Event]],
    locs: list[Loc | None],
) -> str:
    """Two threads side by side, aligned line by line. Marks: `>>` a line only one of them ran
    (they diverge there), `*` a line both ran with different values."""
    a, b = (_flatten(_tree(e, locs)) for e in events)
    width = min(_SOURCE_WIDTH, max((len(r.source) for r in a + b), default=10))
    col = max(24, *(len(r.note) for r in a + b))
    col = min(col, 40)
    lines = [
        title,
        f"     {'line':>5}  {'source':<{width}}  {_clip(labels[0], col):<{col}} | {labels[1]}",
    ]
    matcher = difflib.SequenceMatcher(None, [r.key for r in a], [r.key for r in b], autojunk=False)

    def row(mark: str, x: _Out | None, y: _Out | None) -> None:
        ref = x or y
        assert ref is not None
        left = x.note if x else "(not run by this thread)"
        right = y.note if y else "(not run by this thread)"
        src = _clip(ref.source, width)
        left = _clip(left, col)
        lines.append(f"  {mark:<2} {ref.line:>5}  {src:<{width}}  {left:<{col}} | {right}".rstrip())

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for x, y in zip(a[i1:i2], b[j1:j2]):
                row("*" if x.note != y.note else "", x, y)
            continue
        for x in a[i1:i2]:
            row(">>", x, None)
        for y in b[j1:j2]:
            row(">>", None, y)
    lines.append("  >> only one of the two threads ran the line (they diverge); * values differ")
    return "\n".join(lines)


__all__ = ["SHOWN_ITERATIONS", "format_one", "format_two"]
