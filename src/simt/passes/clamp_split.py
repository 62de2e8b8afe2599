"""Clamped indices inside thread loops: the lanes that reach no clamp run without it.

Runs on SPMD-lowered IR, after `lane_ranges` (the CPU lowering, `runtime.cpu.lower`). A
thread loop over `x` (`lanes="x"`) whose body starts clamping `x + c` (`c` from outside the
loop) against a value from outside the loop with an integer `min` / `max` — `min(x + 1,
w - 1)`, or an image read's `min(max(x - 1, 0), w - 1)` through another such clamp — is split
by lanes into three copies:

- a middle: the lanes where no clamp is active, each clamp replaced by the value it clamps
  (contiguous vector loads instead of gathers);
- the lanes below and above it: the original body.

So a block as wide as the image (a row) still runs its interior as vectors. The bounds are
computed in int64 (`bound - c` cannot wrap there) and, for an int32 loop variable, kept to the
lanes where `x + c` does not wrap (there an int32 clamp may be active). The copies are marked
`split` and not split again. Not for loops that print or use atomics (prints are numbered as
they are rendered). Checked accesses and asserts may be copied: their error sites are numbered
in the IR (`passes.sites`). This was the LLVM renderer's own split (one loop jumping over the
middle); as a pass it is IR a test can read, and the renderer transforms nothing.
"""

from __future__ import annotations

from ..ir import Block, Function, Op, Value, walk, walk_blocks
from ..types import INT64, Scalar


def split_clamps(fn: Function) -> int:
    """Split the `x` thread loops of lowered `fn` whose bodies clamp `x + c`, in place;
    returns how many loops were split."""
    found = [
        (block, op)
        for block in walk_blocks(fn.body)
        for op in block.ops
        if op.opcode == "for" and op.attrs.get("lanes") == "x" and not op.attrs.get("split")
    ]
    n = 0
    for block, loop in found:
        if any(o.opcode in ("print", "atomic", "cas") for o in walk(loop.regions[0])):
            continue
        found_clamps = clamps(loop)
        if not found_clamps:
            continue
        k = next((i for i, o in enumerate(block.ops) if o is loop), None)
        if k is None:  # inside a loop split already
            continue
        block.ops[k : k + 1] = _split(loop, found_clamps)
        n += 1
    return n


def clamps(loop: Op) -> list[tuple[Op, int, Value]]:
    """Integer `min`/`max` ops at the top of a thread loop's body that clamp `x + c` (x the
    loop variable, c from outside the loop) against a value from outside the loop, directly
    or through another such clamp: triples of (op, the operand that is `x + c` or the inner
    clamp, `x + c`)."""
    body = loop.regions[0]
    iv = body.args[0]
    inner = {r.id: o for o in walk(body) for r in o.results}

    def affine(v: Value) -> bool:
        if v is iv:
            return True
        o = inner.get(v.id)
        if o is None or o.opcode != "bin" or o.attrs["op"] not in ("add", "sub"):
            return False
        a, b = o.operands
        outside = (a.id not in inner and a is not iv, b.id not in inner and b is not iv)
        return (affine(a) and outside[1]) or (o.attrs["op"] == "add" and affine(b) and outside[0])

    out: list[tuple[Op, int, Value]] = []
    clamped: dict[int, Value] = {}  # result id of a clamp found -> the `x + c` it clamps
    for o in body.ops:
        if o.opcode == "bin" and o.attrs["op"] in ("min", "max") and o.result.scalar.is_signed:
            a, b = o.operands
            for k, (x, bound) in enumerate(((a, b), (b, a))):
                if bound.id in inner or bound is iv:
                    continue
                if x.id in clamped:
                    out.append((o, k, clamped[x.id]))
                elif affine(x):
                    out.append((o, k, x))
                else:
                    continue
                clamped[o.result.id] = out[-1][2]
                break
    return out


def _split(loop: Op, found: list[tuple[Op, int, Value]]) -> list[Op]:
    """The ops computing the middle's lanes [lo, hi), then the loop over [start, lo), the
    middle without its clamps, and the loop over [hi, stop)."""
    body = loop.regions[0]
    iv = body.args[0]
    t = iv.scalar
    defs = {r.id: o for o in walk(body) for r in o.results}
    pre: list[Op] = []

    def emit(opcode: str, operands: list[Value], ty: Scalar = INT64, **attrs: object) -> Value:
        r = Value(ty)
        pre.append(Op(opcode, operands, [r], dict(attrs), [], loop.loc))
        return r

    def wide(v: Value) -> Value:
        return v if t == INT64 else emit("cast", [v])

    def at_zero(v: Value) -> Value:
        """`v` (a sum of the loop variable and values from outside) where the variable is 0."""
        if v is iv:
            return emit("const", [], t, value=0)
        op = defs[v.id]
        a, b = (at_zero(x) if x.id in defs or x is iv else x for x in op.operands)
        return emit("bin", [a, b], v.scalar, op=op.attrs["op"])

    start, stop = loop.operands[0], loop.operands[1]
    lo, hi = wide(start), wide(stop)
    seen: set[int] = set()
    for c, k, x in found:
        # x = iv + off: the clamp is inactive where iv + off >= bound (max) or <= bound (min)
        off = wide(at_zero(x))
        edge = emit("bin", [wide(c.operands[1 - k]), off], op="sub")
        if c.attrs["op"] == "max":
            lo = emit("bin", [lo, edge], op="max")
        else:
            edge = emit("bin", [edge, emit("const", [], value=1)], op="add")
            hi = emit("bin", [hi, edge], op="min")
        if t != INT64 and x.id not in seen:
            # and where iv + off does not wrap around: there an int32 clamp may be active
            seen.add(x.id)
            least = emit("bin", [emit("const", [], value=-(2**31)), off], op="sub")
            most = emit("bin", [emit("const", [], value=2**31), off], op="sub")
            lo = emit("bin", [lo, least], op="max")
            hi = emit("bin", [hi, most], op="min")
    lo = emit("bin", [lo, wide(stop)], op="min")
    hi = emit("bin", [hi, lo], op="max")
    if t != INT64:
        lo, hi = emit("cast", [lo], t), emit("cast", [hi], t)
    drop = {c.result.id: k for c, k, _ in found}
    return [
        *pre,
        _copy(loop, start, lo, {}),
        _copy(loop, lo, hi, drop),
        _copy(loop, hi, stop, {}),
    ]


def _copy(loop: Op, lo: Value, hi: Value, drop: dict[int, int]) -> Op:
    """A copy of `loop` over lanes [lo, hi); the ops whose results are in `drop` are left
    out, their results replaced by their operand `drop[result id]`."""
    new = _clone_op(loop, {}, drop)
    assert new is not None
    new.operands = [lo, hi, *new.operands[2:]]
    new.attrs["split"] = True  # not split again
    return new


def _clone_block(block: Block, mapping: dict[int, Value], drop: dict[int, int]) -> Block:
    args = []
    for a in block.args:
        na = Value(a.type, a.hint)
        mapping[a.id] = na
        args.append(na)
    ops = [c for c in (_clone_op(o, mapping, drop) for o in block.ops) if c is not None]
    return Block(args, ops)


def _clone_op(op: Op, mapping: dict[int, Value], drop: dict[int, int]) -> Op | None:
    operands = [mapping.get(v.id, v) for v in op.operands]
    if op.results and op.results[0].id in drop:
        mapping[op.results[0].id] = operands[drop[op.results[0].id]]
        return None
    results = []
    for r in op.results:
        nr = Value(r.type, r.hint)
        mapping[r.id] = nr
        results.append(nr)
    regions = [_clone_block(r, mapping, drop) for r in op.regions]
    return Op(op.opcode, operands, results, dict(op.attrs), regions, op.loc)
