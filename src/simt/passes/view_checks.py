"""Dropping the bounds checks of array views (`frontend.views`) where they are not wanted.

Indexing a sliced view is checked against the view's extent by an `assert` op marked
`view_check`. `sim` keeps those checks always; the other backends keep them in debug mode
only, as they do array bounds checks: this pass removes them, then the comparisons that fed
them (dead-code elimination).
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
