"""Dead-code elimination: ops, `if` results and loop-carried values nobody needs.

A mark-and-sweep over the whole function. The roots are the ops with an effect (store,
atomic, cas, barrier, print, assert), loads (an out-of-bounds load is an error on `sim` and in
debug mode, so even an unused one stays) and `while` loops (removing one could turn a loop
that never ends into one that does). From the roots liveness flows to operands, through `if`
results to the values each branch yields, and through loop-carried values, to a fixpoint: a
carried value is live when the loop's result is used or when the body reads it for something
live, so a counter only ever used to compute itself dies.
"""

from __future__ import annotations

from ..ir import Block, Function, Op
from ..ir.ops import EFFECTS

# Ops kept even when their results are unused (see the module docstring).
_ROOTS = EFFECTS | {"load", "while"}


def dce(fn: Function) -> Function:
    """Remove the dead code of `fn`, in place; returns `fn`."""
    roots: dict[int, bool] = {}  # id(op) -> op is or contains a root
    live: set[int] = set()
    while True:
        n = len(live)
        _mark(fn.body, live, roots)
        if len(live) == n:
            break
    _sweep(fn.body, live, roots)
    return fn


def _is_root(op: Op, roots: dict[int, bool]) -> bool:
    r = roots.get(id(op))
    if r is None:
        r = op.opcode in _ROOTS or any(_is_root(o, roots) for b in op.regions for o in b.ops)
        roots[id(op)] = r
    return r


def _op_live(op: Op, live: set[int], roots: dict[int, bool]) -> bool:
    return _is_root(op, roots) or any(r.id in live for r in op.results)


def _carried(op: Op, live: set[int]) -> list[bool]:
    """For a loop: which carried values are live (result used, or read by the loop)."""
    if op.opcode == "for":
        (body,) = op.regions
        return [r.id in live or a.id in live for r, a in zip(op.results, body.args[1:])]
    cond, body = op.regions
    return [
        r.id in live or c.id in live or b.id in live
        for r, c, b in zip(op.results, cond.args, body.args)
    ]


def _mark(block: Block, live: set[int], roots: dict[int, bool]) -> None:
    for op in reversed(block.ops):
        k = op.opcode
        if k in ("yield", "condition") or not _op_live(op, live, roots):
            continue  # terminator operands are marked by the op owning the region
        if k == "if":
            live.add(op.operands[0].id)
            for j, r in enumerate(op.results):
                if r.id in live:
                    for region in op.regions:
                        live.add(region.ops[-1].operands[j].id)
        elif k in ("for", "while"):
            first = 3 if k == "for" else 0
            live.update(v.id for v in op.operands[:first])
            body = op.regions[-1]
            for j, on in enumerate(_carried(op, live)):
                if on:
                    live.add(op.operands[first + j].id)
                    live.add(body.ops[-1].operands[j].id)
            if k == "while":
                live.add(op.regions[0].ops[-1].operands[0].id)
        else:
            live.update(v.id for v in op.operands)
        for region in op.regions:
            _mark(region, live, roots)


def _sweep(block: Block, live: set[int], roots: dict[int, bool]) -> None:
    kept: list[Op] = []
    for op in block.ops:
        if op.opcode not in ("yield", "condition") and not _op_live(op, live, roots):
            continue
        if op.opcode == "if":
            keep = [j for j, r in enumerate(op.results) if r.id in live]
            op.results = [op.results[j] for j in keep]
            for region in op.regions:
                term = region.ops[-1]
                term.operands = [term.operands[j] for j in keep]
        elif op.opcode in ("for", "while"):
            _prune_loop(op, live)
        for region in op.regions:
            _sweep(region, live, roots)
        kept.append(op)
    block.ops = kept


def _prune_loop(op: Op, live: set[int]) -> None:
    keep = [j for j, on in enumerate(_carried(op, live)) if on]
    first = 3 if op.opcode == "for" else 0
    op.operands = op.operands[:first] + [op.operands[first + j] for j in keep]
    op.results = [op.results[j] for j in keep]
    for region in op.regions:
        skip = 1 if op.opcode == "for" else 0  # the induction variable stays
        region.args = region.args[:skip] + [region.args[skip + j] for j in keep]
    body = op.regions[-1]
    term = body.ops[-1]
    term.operands = [term.operands[j] for j in keep]
