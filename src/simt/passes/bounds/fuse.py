"""One unsigned comparison for an index check the bounds pass could not prove.

The front end checks an index as two comparisons, `i >= 0` (`check="lower"`) and `i < n`
(`check="upper"`), which the bounds pass judges one by one. Where both are left, they are
one test: `n` is an array's length, never negative, so `0 <= i < n` is `unsigned(i) <
unsigned(n)` — the way CUDA C, Rust and the JVM spell a range check. One compare is cheaper
everywhere, and on the CPU it also keeps LLVM from learning `i >= 0` where the access is
made: from a signed test it turns the index's sign extension into a zero extension, after
which x86's gathers can no longer use 32-bit indices (`vgatherqps`, half the lanes per
instruction, where `vgatherdps` ran without checks).
"""

from __future__ import annotations

from ...ir import Block, Function, Op, Value
from ...types import INT32, UINT32, UINT64
from .sites import is_check


def fuse_checks(fn: Function) -> int:
    """Replace each surviving pair of checks of one index in one block by a single unsigned
    comparison (the upper one's op, now on unsigned copies of the index and the length; the
    lower one becomes True). Returns how many pairs were fused."""
    return _block(fn.body)


def _block(block: Block) -> int:
    fused = 0
    lower: dict[int, Op] = {}
    out: list[Op] = []
    for op in block.ops:
        for region in op.regions:
            fused += _block(region)
        if is_check(op) and op.attrs["check"] == "lower":
            lower[op.operands[0].id] = op
        elif is_check(op) and (low := lower.pop(op.operands[0].id, None)) is not None:
            i, n = op.operands
            u = UINT32 if i.scalar.bits <= INT32.bits else UINT64
            ci, cn = (Op("cast", [v], [Value(u)], {}, [], op.loc) for v in (i, n))
            out += [ci, cn]
            op.operands = [ci.result, cn.result]
            op.attrs = {"op": "lt"}
            low.opcode, low.operands, low.attrs = "const", [], {"value": True}
            fused += 1
        out.append(op)
    block.ops[:] = out
    return fused
