"""Uniformity analysis: which values may differ between the threads of one block.

A value is *uniform* when every thread of a block that computes it gets the same result, and
*varying* otherwise. `thread_idx` is varying; `block_idx`, `block_dim`, `grid_dim`, constants,
scalar parameters and array shapes are uniform; an op is varying when an operand is; loads are
varying when an index is (a load from a thread's own `local` array always is; a load marked
`uniform`, made by `passes.barriers`, never is); atomics return
varying values. An `if`/`for`/`while` whose condition or bounds are varying is *divergent*:
its results are varying, and so is every value defined inside its regions (threads reach them
on different iterations, or not at all).

`passes.barriers.lift` uses the analysis to move barriers out of divergent control for the
backends that need every thread of a block at each barrier. The CPU backend's SPMD lowering
uses `varying(fn, loads=False, divergence=False)`: there a value is "uniform" only if it can
be recomputed once per block from uniform inputs without touching memory, wherever it sits.
"""

from __future__ import annotations

from ..errors import CompileError
from ..ir import Block, Function, Op, Value, walk
from ..ir.ops import ATOMICS
from ..types import LOCAL, ArrayType

BARRIER_HINT = "call syncthreads() in the loop's body instead (before or after the test)"


def varying(fn: Function, *, loads: bool = True, divergence: bool = True) -> set[int]:
    """Ids of the values of `fn` that may differ between threads of one block.

    With `loads=False` every load counts as varying (memory is never trusted to be uniform);
    with `divergence=False` values inside divergent regions are judged by their operands
    alone (results of divergent ops stay varying).
    """
    out: set[int] = set()
    # Results and block arguments only ever become varying, so iterating to a fixpoint ends.
    while True:
        before = len(out)
        _block(fn.body, out, False, loads, divergence)
        if len(out) == before:
            return out


def _block(block: Block, out: set[int], divergent: bool, loads: bool, div: bool) -> None:
    if divergent and div:
        out.update(a.id for a in block.args)
    for op in block.ops:
        _op(op, out, divergent, loads, div)


def _mark(op: Op, out: set[int]) -> None:
    out.update(r.id for r in op.results)


def _op(op: Op, out: set[int], divergent: bool, loads: bool, div: bool) -> None:  # noqa: C901
    k = op.opcode
    any_varying = any(v.id in out for v in op.operands)
    if divergent and div:
        _mark(op, out)
    if k == "special":
        if op.attrs.get("reg") == "thread_idx":
            _mark(op, out)
    elif k == "alloc":
        t = op.result.type
        if isinstance(t, ArrayType) and t.space == LOCAL:
            _mark(op, out)  # each thread has its own
    elif k == "load":
        arr = op.operands[0]
        if op.attrs.get("uniform") and not any_varying:
            pass  # read after a barrier by every thread alike (`passes.barriers`' flags)
        elif any_varying or not loads:
            _mark(op, out)
        elif isinstance(arr.type, ArrayType) and arr.type.space == LOCAL:
            _mark(op, out)
    elif k in ATOMICS or k == "warp":
        _mark(op, out)  # (a warp function's result is its warp's, not the block's)
    elif k == "if":
        cond_varying = op.operands[0].id in out
        for r in op.regions:
            _block(r, out, divergent or cond_varying, loads, div)
        if cond_varying:
            _mark(op, out)
        for r in op.regions:
            _carry(r, op, out)
    elif k == "for":
        (body,) = op.regions
        bounds_varying = any(v.id in out for v in op.operands[:3])
        if bounds_varying:
            out.add(body.args[0].id)
            _mark(op, out)
            out.update(a.id for a in body.args)
        for init, arg, res in zip(op.operands[3:], body.args[1:], op.results):
            if init.id in out:
                out.add(arg.id)
                out.add(res.id)
        _block(body, out, divergent or bounds_varying, loads, div)
        _carry(body, op, out, body.args[1:])
    elif k == "while":
        cond, body = op.regions
        for init, a, b, res in zip(op.operands, cond.args, body.args, op.results):
            if init.id in out:
                out.update((a.id, b.id, res.id))
        term = cond.ops[-1] if cond.ops else None
        cond_varying = term is not None and term.operands[0].id in out
        _block(cond, out, divergent or cond_varying, loads, div)
        cond_varying = term is not None and term.operands[0].id in out
        if cond_varying:
            # Threads leave the loop on different iterations: every carried value diverges.
            _mark(op, out)
            out.update(a.id for a in cond.args)
            out.update(a.id for a in body.args)
        _block(body, out, divergent or cond_varying, loads, div)
        for a, b, res, y in zip(cond.args, body.args, op.results, _yields(body)):
            if y.id in out:
                out.update((a.id, b.id, res.id))
    elif k in ("yield", "condition"):
        pass
    elif any_varying:
        _mark(op, out)


def _yields(block: Block) -> list[Value]:
    term = block.terminator
    return list(term.operands) if term is not None else []


def _carry(block: Block, op: Op, out: set[int], args: list[Value] | None = None) -> None:
    """Results (and loop-carried arguments) fed by a varying yielded value become varying."""
    for i, y in enumerate(_yields(block)):
        if y.id in out:
            if i < len(op.results):
                out.add(op.results[i].id)
            if args is not None and i < len(args):
                out.add(args[i].id)


def divergent_ops(fn: Function) -> list[Op]:
    """The structured ops of `fn` whose control (condition or bounds) is varying."""
    var = varying(fn)
    out = []
    for op in walk(fn.body):
        if op.opcode == "if" and op.operands[0].id in var:
            out.append(op)
        elif op.opcode == "for" and any(v.id in var for v in op.operands[:3]):
            out.append(op)
        elif op.opcode == "while":
            term = op.regions[0].terminator
            if term is not None and term.operands[0].id in var:
                out.append(op)
    return out


def check_barriers(fn: Function) -> None:
    """Raise `CompileError` at a barrier no backend can place: one in the condition of a
    `while` (`while f(x):` where `f` waits at a barrier). Barriers under thread-dependent
    conditions and loops are allowed: threads that returned leave the block's count, and a
    barrier that every thread of the block reaches is well defined (`sim` checks that they
    do; `passes.barriers.lift` places them for the other backends)."""
    for op in walk(fn.body):
        if op.opcode != "while":
            continue
        for inner in walk(op.regions[0]):
            if inner.opcode == "barrier":
                loc = inner.loc
                raise CompileError(
                    "syncthreads() in the condition of a while loop",
                    filename=loc.filename if loc else None,
                    line=loc.line if loc else None,
                    col=loc.col if loc else None,
                    source_line=loc.source_line if loc else None,
                    hint=BARRIER_HINT,
                )
