"""Full unrolling of small `for` loops whose bounds are known.

A loop whose start, stop and step are constants, that runs at most `MAX_TRIPS` times and
whose unrolled body has at most `MAX_OPS` ops is replaced by one copy of its body per
iteration: the induction variable becomes a constant, each copy reads the values the previous
one yielded, and the loop's results are those the last copy yields. Inner loops are unrolled
first, so a small nest unrolls completely. A loop that runs once is unrolled whatever its size.
"""

from __future__ import annotations

from ..ir import Block, Function, Op, Value
from .rewrite import Subst, clone_op, size

MAX_TRIPS = 8
MAX_OPS = 64


def unroll(fn: Function, max_trips: int = MAX_TRIPS, max_ops: int = MAX_OPS) -> Function:
    """Unroll the small known loops of `fn`, in place; returns `fn`."""
    consts: dict[int, object] = {}
    subst = Subst()
    _block(fn.body, consts, subst, max_trips, max_ops)
    subst.apply_all(fn.body)
    return fn


def _block(block: Block, consts: dict[int, object], subst: Subst, trips: int, ops: int) -> None:
    out: list[Op] = []
    for op in block.ops:
        subst.apply(op)
        if op.opcode == "const":
            consts[op.result.id] = op.attrs["value"]
        for region in op.regions:
            _block(region, consts, subst, trips, ops)
        if op.opcode == "for":
            n = _trip_count(op, consts)
            # A loop that runs once is always unrolled: that only removes the loop.
            if n is not None and (n <= 1 or (n <= trips and n * size(op.regions[0]) <= ops)):
                out.extend(_unrolled(op, n, consts, subst))
                continue
        out.append(op)
    block.ops = out


def _trip_count(op: Op, consts: dict[int, object]) -> int | None:
    bounds = [consts.get(v.id) for v in op.operands[:3]]
    if any(not isinstance(b, int) for b in bounds) or bounds[2] == 0:
        return None
    start, stop, step = (int(b) for b in bounds)  # type: ignore[call-overload]
    return len(range(start, stop, step))


def _unrolled(op: Op, n: int, consts: dict[int, object], subst: Subst) -> list[Op]:
    start, step = (consts[v.id] for v in (op.operands[0], op.operands[2]))
    body = op.regions[0]
    iv, args = body.args[0], body.args[1:]
    carried: list[Value] = list(op.operands[3:])
    out: list[Op] = []
    for k in range(n):
        value = int(start) + k * int(step)  # type: ignore[call-overload]
        c = Op("const", [], [Value(iv.type, iv.hint)], {"value": value}, [], op.loc)
        consts[c.result.id] = value
        out.append(c)
        vmap: dict[int, Value] = {iv.id: c.result}
        vmap.update((a.id, v) for a, v in zip(args, carried))
        for inner in body.ops[:-1]:
            out.append(clone_op(inner, vmap))
        carried = [vmap.get(v.id, v) for v in body.ops[-1].operands]
    for r, v in zip(op.results, carried):
        subst.set(r, v)
    return out
