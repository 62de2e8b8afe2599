"""Sinking a raising thread's failure record into the branch that can raise.

The front end ends a kernel in which an exception can go uncaught with `if raised: <record>`
(`frontend.raising.epilogue`, the `if` marked `record`), its condition and the record's
words being the thread's exception state, carried out of every `if` the thread may raise in.
Where that state comes straight out of an `if` only one of whose branches can raise (the
others yield the constant False: a guard `if i < len(out): ... a[idx[i]] ...`), the record
moves to the end of that branch, reading the values the branch yields: the `if` then carries
no exception state (dead-code elimination removes those results), so a guard stays a plain
guard (a range of threads on the CPU, `passes.lane_ranges`), and the record is made where the
exception was raised. Repeated, it sinks through nested guards.
"""

from __future__ import annotations

from ..ir import Block, Function, Op, Value, walk


def sink_records(fn: Function) -> Function:
    """Sink the failure records of `fn` (see the module doc), in place; returns `fn`."""
    consts = {op.result.id: op.attrs["value"] for op in walk(fn.body) if op.opcode == "const"}
    _block(fn.body, consts)
    return fn


def _block(block: Block, consts: dict[int, object]) -> None:
    k = 0
    while k < len(block.ops):
        op = block.ops[k]
        if op.opcode == "if" and op.attrs.get("record") and _sink(block, k, consts):
            continue  # moved into an earlier op's branch
        k += 1
    for op in block.ops:
        for r in op.regions:
            _block(r, consts)


def _sink(block: Block, k: int, consts: dict[int, object]) -> bool:
    rec = block.ops[k]
    cond = rec.operands[0]
    j = next((j for j in range(k - 1, -1, -1) if any(r is cond for r in block.ops[j].results)),
             None)  # fmt: skip
    if j is None:
        return False
    made = block.ops[j]
    if made.opcode != "if" or made.attrs.get("version") or made.attrs.get("record"):
        return False
    between = {r.id for o in block.ops[j + 1 : k] for r in o.results}
    nested = [rec, *(o for r in rec.regions for o in walk(r))]
    if any(v.id in between for o in nested for v in o.operands):
        return False  # the record reads a value made after that `if`
    at = next(i for i, r in enumerate(made.results) if r is cond)
    live = [r for r in made.regions if consts.get(r.ops[-1].operands[at].id) is not False]
    if len(live) != 1:
        return False
    region = live[0]
    yielded = region.ops[-1].operands
    to: dict[int, Value] = {r.id: y for r, y in zip(made.results, yielded)}
    for o in nested:
        o.operands = [to.get(v.id, v) for v in o.operands]
    del block.ops[k]
    region.ops.insert(len(region.ops) - 1, rec)
    return True


def is_record(op: Op) -> bool:
    """Whether `op` is a raising thread's failure record (`frontend.raising.epilogue`)."""
    return op.opcode == "if" and bool(op.attrs.get("record"))


__all__ = ["is_record", "sink_records"]
