"""Loop-invariant code motion: pure ops whose operands come from outside a loop move before it.

`shape`, `block_dim.x * grid_dim.x` and other values that do not change between iterations are
then computed once, not once per iteration (backends that do their own LICM, as LLVM does,
lose nothing; `sim` and the GPU renderers' readers gain). Only pure ops move: they never trap
(integer division by zero is defined as 0) and never touch memory, so computing one before a
loop that runs zero times changes nothing observable. Loads stay where they are: another
thread may write the memory between iterations.
"""

from __future__ import annotations

from ..ir import Block, Function, Op
from ..ir.ops import PURE

_LOOPS = ("for", "while")


def licm(fn: Function) -> Function:
    """Hoist the invariant pure ops of every loop of `fn`, innermost loops first."""
    _block(fn.body)
    return fn


def _block(block: Block) -> None:
    new_ops: list[Op] = []
    for op in block.ops:
        for region in op.regions:
            _block(region)  # inner loops first: what they hoist may move further out
        if op.opcode in _LOOPS:
            new_ops.extend(_hoist(op))
        new_ops.append(op)
    block.ops = new_ops


def _hoist(loop: Op) -> list[Op]:
    """Remove the invariant pure ops from `loop`'s regions; return them in order."""
    inside: set[int] = set()
    for region in loop.regions:
        _defined(region, inside)
    hoisted: list[Op] = []
    changed = True
    while changed:  # hoisting one op can make its users invariant
        changed = False
        for region in loop.regions:
            moved = _take(region, inside)
            if moved:
                changed = True
                hoisted.extend(moved)
                for op in moved:
                    inside.difference_update(r.id for r in op.results)
    return hoisted


def _take(block: Block, inside: set[int]) -> list[Op]:
    """Take the invariant pure ops out of the top level of `block` (nested regions: only
    their loops, handled by `_block`)."""
    keep: list[Op] = []
    moved: list[Op] = []
    for op in block.ops:
        if (op.opcode in PURE and not op.regions
                and all(v.id not in inside for v in op.operands)):  # fmt: skip
            moved.append(op)
            inside.difference_update(r.id for r in op.results)
        else:
            keep.append(op)
    block.ops = keep
    return moved


def _defined(block: Block, out: set[int]) -> None:
    out.update(a.id for a in block.args)
    for op in block.ops:
        out.update(r.id for r in op.results)
        for region in op.regions:
            _defined(region, out)
