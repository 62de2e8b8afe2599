"""Lane ranges inside thread loops: a branch on a condition affine in the thread index.

Runs on SPMD-lowered IR (`passes.spmd`). A thread loop over `x` (`for tx in range(lo, hi)`
with `lanes="x"`) whose body compares `tx + c` (`c` from outside the loop) with a value from
outside the loop — `if i + k * 256 < len(a):` with `i = block_idx.x * 1024 + thread_idx.x`,
wherever it stands: in a merge with results, in a nested `if`, in a `select`, in an `and` —
is split into lane ranges:

- an unguarded middle: the lanes for which every such comparison holds, where each of them is
  replaced by the constant `True` (LLVM then drops the branches: plain vector loads and
  stores, no masks);
- guarded edges: the lanes below and above the middle run the original body. When the body
  has just one such comparison, its value on the edges is known too (`False`) and they are
  unguarded as well.

An edge that cannot hold a lane is not emitted: when every comparison only bounds `tx` from
above (`tx + c < n`), there is no lower edge. Each copy is an ordinary thread loop, so the
renderer's other splits (clamped indices) still apply to it. The thread loops the SPMD pass
already narrowed (a bounds guard around everything, `_clip`) have no comparison left to
split; this pass finds the ones it could not turn into a range: guards that merge values,
guards after other per-lane work, inside uniform loops and after barriers.

The range's bounds are computed in int64 (`n - c` cannot wrap); like the SPMD pass's own lane
ranges, they take `tx + c` as the exact sum (a kernel whose `thread_idx + c` wraps around
int32 is not split correctly). Not for loops that print or use atomics (the renderer numbers
prints as it renders them, once). Checked accesses and asserts may be copied: their error
sites are numbered in the IR (`passes.sites`), and each copy keeps its number.
"""

from __future__ import annotations

from ..ir import Block, Function, Op, Value, walk, walk_blocks
from ..types import INT32, INT64, Scalar

# comparisons against `tx + c` whose true lanes form one range, and their mirror image
_FLIP = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
# a thread loop's body is copied up to three times: keep the copies to bodies LLVM compiles
# quickly (the suite's largest thread loops have ~150 ops)
MAX_BODY_OPS = 400


def split_lane_ranges(fn: Function) -> int:
    """Split the `x` thread loops of lowered `fn` by lane ranges, in place; returns how many
    loops were split."""
    found = [
        (block, op)
        for block in walk_blocks(fn.body)
        for op in block.ops
        if op.opcode == "for" and op.attrs.get("lanes") == "x"
    ]
    n = 0
    for block, loop in found:
        new = _split(loop)
        if new is None:
            continue
        k = next(i for i, o in enumerate(block.ops) if o is loop)
        block.ops[k : k + 1] = new
        n += 1
    return n


def affine_offsets(v: Value, iv: Value, inner: dict[int, Op]) -> list[tuple[Value, int]] | None:
    """[(c, sign), ...] when `v` is `iv + sign * c + ...` with every `c` from outside the
    loop; None otherwise."""
    if v is iv:
        return []
    d = inner.get(v.id)
    if d is None or d.opcode != "bin" or d.attrs["op"] not in ("add", "sub"):
        return None
    a, b = d.operands
    if b.id not in inner and b is not iv:
        got = affine_offsets(a, iv, inner)
        if got is not None:
            return [*got, (b, 1 if d.attrs["op"] == "add" else -1)]
    if d.attrs["op"] == "add" and a.id not in inner and a is not iv:
        got = affine_offsets(b, iv, inner)
        if got is not None:
            return [*got, (a, 1)]
    return None


def _split(loop: Op) -> list[Op] | None:
    body = loop.regions[0]
    iv = body.args[0]
    ops = list(walk(body))
    if len(ops) > MAX_BODY_OPS or any(
        o.opcode in ("print", "atomic", "cas", "barrier") for o in ops
    ):
        return None
    inner = {r.id: o for o in ops for r in o.results}
    for blk in walk_blocks(body):
        for arg in blk.args:
            inner[arg.id] = Op("arg")  # defined in the loop: not a loop-invariant value
    cmps: list[tuple[Op, str, Value, list[tuple[Value, int]]]] = []
    for o in ops:
        if o.opcode != "cmp" or o.attrs["op"] not in _FLIP or o.operands[0].type != INT32:
            continue
        a, b = o.operands
        offs = affine_offsets(a, iv, inner) if b.id not in inner else None
        if offs is not None:
            cmps.append((o, o.attrs["op"], b, offs))
            continue
        offs = affine_offsets(b, iv, inner) if a.id not in inner and a is not iv else None
        if offs is not None:
            cmps.append((o, _FLIP[o.attrs["op"]], a, offs))
    if not cmps:
        return None
    pre: list[Op] = []

    def emit(opcode: str, operands: list[Value], t: Scalar = INT64, **attrs: object) -> Value:
        r = Value(t)
        pre.append(Op(opcode, operands, [r], dict(attrs), [], loop.loc))
        return r

    def wide(v: Value) -> Value:
        return emit("cast", [v])

    # the range's bounds in int64: `n - c` and `n - c + 1` cannot wrap there; clamped to the
    # loop's own int32 range before they come back to int32
    one = emit("const", [], value=1)
    lo, hi = loop.operands[0], loop.operands[1]
    lo64, hi64 = wide(lo), wide(hi)
    mid_lo, mid_hi = lo64, hi64
    lower = upper = False
    for _, rel, bound, offs in cmps:
        x = wide(bound)  # tx REL bound - offsets
        for c, sign in offs:
            x = emit("bin", [x, wide(c)], op="sub" if sign > 0 else "add")
        if rel in ("le", "gt"):
            x = emit("bin", [x, one], op="add")
        if rel in ("lt", "le"):
            mid_hi = emit("bin", [mid_hi, x], op="min")
            upper = True
        else:
            mid_lo = emit("bin", [mid_lo, x], op="max")
            lower = True
    if lower:
        mid_lo = emit("bin", [mid_lo, hi64], op="min")
    if upper:
        mid_hi = emit("bin", [mid_hi, mid_lo], op="max")
    mid_lo = emit("cast", [mid_lo], INT32) if lower else lo
    mid_hi = emit("cast", [mid_hi], INT32) if upper else hi
    known_off = len(cmps) == 1  # the edges' one comparison is False there
    out = list(pre)
    if lower:
        out.append(_copy(loop, lo, mid_lo, cmps, False if known_off else None))
    out.append(_copy(loop, mid_lo, mid_hi, cmps, True))
    if upper:
        out.append(_copy(loop, mid_hi, hi, cmps, False if known_off else None))
    return out


def _copy(loop: Op, lo: Value, hi: Value, cmps: list, value: bool | None) -> Op:
    """A copy of `loop` over lanes [lo, hi), its comparisons `cmps` replaced by `value`
    (kept when None)."""
    fixed = {c[0].result.id for c in cmps} if value is not None else set()
    mapping: dict[int, Value] = {}
    new = _clone_op(loop, mapping, fixed, value)
    new.operands = [lo, hi, *new.operands[2:]]
    return new


def _clone_block(block: Block, mapping: dict[int, Value], fixed: set[int], value: bool | None
                 ) -> Block:  # fmt: skip
    args = []
    for a in block.args:
        na = Value(a.type, a.hint)
        mapping[a.id] = na
        args.append(na)
    return Block(args, [_clone_op(o, mapping, fixed, value) for o in block.ops])


def _clone_op(op: Op, mapping: dict[int, Value], fixed: set[int], value: bool | None) -> Op:
    results = []
    for r in op.results:
        nr = Value(r.type, r.hint)
        mapping[r.id] = nr
        results.append(nr)
    if op.opcode == "cmp" and op.result.id in fixed:
        return Op("const", [], results, {"value": value}, [], op.loc)
    operands = [mapping.get(v.id, v) for v in op.operands]
    regions = [_clone_block(r, mapping, fixed, value) for r in op.regions]
    return Op(op.opcode, operands, results, dict(op.attrs), regions, op.loc)
