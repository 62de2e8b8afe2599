"""Copy propagation: uses of a value that merely copies another read the original.

Copies are casts to the type a value already has, `select(c, x, x)`, an `if` result that every
branch yields as the same value, and a loop-carried value the loop never changes (the body
yields it back unchanged, or yields the very value it started from, or an `if` result that is
one of those two on every path: the exception state a loop carries once the bounds pass proved
its checks). The copies themselves are left for dead-code elimination.
"""

from __future__ import annotations

from ..ir import Block, Function, Op, Value, walk
from .rewrite import Subst


def copyprop(fn: Function) -> Function:
    """Propagate the copies of `fn`, in place; returns `fn`."""
    subst = Subst()
    _block(fn.body, subst)
    # Values found to be copies after a region was visited (loop-carried ones) are also used
    # inside that region: one more rewrite catches them.
    subst.apply_all(fn.body)
    return fn


def _block(block: Block, subst: Subst) -> None:
    for op in block.ops:
        subst.apply(op)
        for region in op.regions:
            _block(region, subst)
        _op(op, subst)


def _op(op: Op, subst: Subst) -> None:
    k = op.opcode
    if k == "cast" and op.operands[0].type == op.result.type:
        subst.set(op.result, op.operands[0])
    elif k == "select" and op.operands[1] is op.operands[2]:
        subst.set(op.result, op.operands[1])
    elif k == "if":
        then, other = (r.ops[-1] for r in op.regions)
        subst.apply(then)
        subst.apply(other)
        for r, a, b in zip(op.results, then.operands, other.operands):
            if a is b:
                subst.set(r, a)
    elif k in ("for", "while"):
        first, skip = (3, 1) if k == "for" else (0, 0)
        body = op.regions[-1]
        term = body.ops[-1]
        subst.apply(term)
        made = {id(r): (o, i) for o in walk(body) if o.opcode == "if"
                for i, r in enumerate(o.results)}  # fmt: skip
        for j, (init, out) in enumerate(zip(op.operands[first:], term.operands)):
            if _either(out, body.args[skip + j], init, made):
                # Never changed: the carried value is its initial value on every iteration.
                subst.set(op.results[j], init)
                for region in op.regions:
                    subst.set(region.args[skip + j], init)


def _either(v: Value, arg: Value, init: Value, made: dict[int, tuple[Op, int]]) -> bool:
    """Whether `v` is `arg` or `init` on every path: one of them, or a result of an `if` of
    the loop's body (`made`) that every branch yields as such a value."""
    if v is arg or v is init:
        return True
    got = made.get(id(v))
    if got is None:
        return False
    op, i = got
    return all(_either(r.ops[-1].operands[i], arg, init, made) for r in op.regions)
