"""Dropping the bounds checks of array views (`frontend.views`) where they are not wanted.

Indexing a sliced view is checked against the view's extent by an `assert` op marked
`view_check`. Every backend keeps those checks, as it keeps array bounds checks, unless the
kernel is compiled with `boundscheck=False` (the documented unsafe opt-out): then this pass
removes them, then the comparisons that fed them (dead-code elimination). (Until 2026-11-26
the compiled backends dropped them outside debug mode, and an index past a view read the
array's next elements silently.)
"""

from __future__ import annotations

from ..ir import Function, walk_blocks
from .dce import dce


def strip_view_checks(fn: Function) -> Function:
    """`fn` without its views' bounds checks (changed in place, and returned)."""
    found = False
    for blk in walk_blocks(fn.body):
        kept = [op for op in blk.ops if not (op.opcode == "assert" and op.attrs.get("view_check"))]
        found |= len(kept) != len(blk.ops)
        blk.ops = kept
    return dce(fn) if found else fn


__all__ = ["strip_view_checks"]
