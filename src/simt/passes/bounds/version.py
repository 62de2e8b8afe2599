"""The block-level test (`passes.bounds`): the kernel's body versioned as `if <every hoisted
condition holds>: <a copy with those accesses unchecked> else: <the body>`, the test computed
at the top in 32 bits from block-level values (a pure IR transform)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ...ir import Block, Function, Op, Value, walk
from ...ir.ops import PURE
from ...types import BOOL, INT32, Scalar
from ..rewrite import clone_block, size
from .forms import Key, Lin, Q, type_range
from .search import Analysis

# The body is copied once for a hoisted test: keep copies to bodies LLVM compiles quickly
# (as `lane_ranges.MAX_BODY_OPS`).
MAX_COPY_OPS = 400


def no_copy(fn: Function, limit: int = MAX_COPY_OPS) -> str:
    """Why `fn`'s body is not copied for a block-level test ("" when it may be)."""
    if size(fn.body) > limit:
        return f"the kernel is over {limit} ops: its body is not copied for a block test"
    if any(op.opcode == "alloc" for blk in _nested(fn.body) for op in blk.ops):
        return "an array is allocated inside a branch or loop: the body is not copied"
    return ""


def strictest(conds: Iterable[Lin]) -> list[Lin]:
    """The tests `conds` without those another implies (`x - 16 <= 0` implies `x - 8 <= 0`)."""
    best: dict[tuple[tuple[Key, Q], ...], Q] = {}
    for c in conds:
        best[c.terms] = max(best.get(c.terms, c.const), c.const)
    return [Lin(t, k) for t, k in best.items()]


def _nested(block: Block) -> Iterable[Block]:
    for op in block.ops:
        for r in op.regions:
            yield r
            yield from _nested(r)


def version_body(
    an: Analysis, fn: Function, hoisted: set[int], conds: list[Lin], mark: Callable[[Op], None]
) -> None:
    """`fn.body` becomes `if all(c <= 0 for c in conds): <copy, `hoisted` unchecked (`mark`)>
    else: <body>`, the test computed before it in 32 bits (`test_type`); shared and local arrays
    stay outside."""
    # arrays, and the block-level values at the top (extents, `block_idx.x * block_dim.x`),
    # stay outside the copies: both use them, and the CPU's SPMD pass still sees them as the
    # block-level values it turns guards into lane ranges with; values that differ by thread
    # stay inside, in the thread loops that use them
    pre: list[Op] = []
    rest: list[Op] = []
    outside = {p.value.id for p in fn.params}
    for op in fn.body.ops:
        if op.opcode == "alloc" or (
            op.opcode in PURE
            and all(v.id in outside for v in op.operands)
            and len(op.results) == 1
            and an.hoistable(op.result)
        ):
            pre.append(op)
            outside.update(r.id for r in op.results)
        else:
            rest.append(op)
    made: dict[int, Value] = {}

    def emit(opcode: str, operands: list[Value], t: Scalar, **attrs: object) -> Value:
        r = Value(t)
        pre.append(Op(opcode, operands, [r], dict(attrs), [], None))
        return r

    def remat(v: Value) -> Value:
        if v.id in an.params or v.id in outside:
            return v
        got = made.get(v.id)
        if got is None:
            op = an.defs[v.id]
            got = emit(op.opcode, [remat(x) for x in op.operands], v.scalar, **op.attrs)
            made[v.id] = got
        return got

    def int32(v: Value) -> Value:
        """Block-level integer `v` in int32 (its range fits): a known one as an int32
        constant (WGSL cannot cast an int64 literal where a pipeline constant is in it)."""
        lo, hi, _ = an.rng(v)
        if lo == hi:
            return emit("const", [], INT32, value=lo)
        y = remat(v)
        return y if y.type == INT32 else emit("cast", [y], INT32)

    def leaf(k: Key, t: Scalar) -> Value:
        if k[0] == "p":  # a product: exact wherever the test's value fits `t` (ring arithmetic)
            return emit("bin", [leaf(k[1], t), leaf(k[2], t)], t, op="mul")  # type: ignore[arg-type]
        if k[0] == "k":  # the last iteration of a counted loop: (stop - start - 1) // step
            start, stop, step = an.defs[k[1]].operands[:3]  # type: ignore[index]
            s32 = [int32(v) for v in (start, stop)]
            one = emit("const", [], INT32, value=1)
            d = emit("bin", [emit("bin", [s32[1], s32[0]], INT32, op="sub"), one], INT32,
                     op="sub")  # fmt: skip
            x = emit("bin", [d, emit("const", [], INT32, value=an.rng(step)[0])], INT32,
                     op="floordiv")  # fmt: skip
        elif k[0] == "s":
            arr = an.arrays[k[1]]  # type: ignore[index]
            x = emit("shape", [arr], arr.array.index, dim=k[2])
        elif k[0] == "r":
            x = emit("special", [], INT32, reg=k[1], axis=k[2])
        else:
            x = remat(an.values[k[1]])  # type: ignore[index]
        return x if x.type == t else emit("cast", [x], t)

    def side(e: Lin, t: Scalar) -> Value:
        """`e` in 32-bit arithmetic: exact wherever its value fits `t` (sums and products
        wrap modulo 2**32, so the parts of `e` need not fit, only the result)."""

        def const(x: Q) -> Value:
            lo, hi = type_range(t)
            x = int(x) % 2**32
            return emit("const", [], t, value=x - 2**32 if x > hi else x)

        acc: Value | None = None
        for k, coef in e.terms:
            x = leaf(k, t)
            if coef != 1:
                x = emit("bin", [x, const(coef)], t, op="mul")
            acc = x if acc is None else emit("bin", [acc, x], t, op="add")
        if acc is None or e.const:
            c = const(e.const)
            acc = c if acc is None else emit("bin", [acc, c], t, op="add")
        return acc

    ok: Value | None = None
    for c in conds:
        c = c.integral()
        t = an.test_type(c)
        if t is not None:
            lhs, rhs = an.sides(c)
            test = emit("cmp", [side(lhs, t), side(rhs, t)], BOOL, op="le")
        else:
            plan = an.div_plan(c)
            assert plan is not None
            k, coef, r, t, div = plan
            q = emit("bin", [side(r, t), emit("const", [], t, value=abs(int(coef)))], t,
                     op="floordiv")  # fmt: skip
            if div is not None:  # (x * y) <= q as x <= q // y, y >= 1
                q = emit("bin", [q, leaf(div, t)], t, op="floordiv")
            x = leaf(k, t)
            if coef > 0:  # x <= (-rest) // c
                test = emit("cmp", [x, q], BOOL, op="le")
            else:  # -x <= (-rest) // -c
                nx = emit("bin", [emit("const", [], t, value=0), x], t, op="sub")
                test = emit("cmp", [nx, q], BOOL, op="le")
        ok = test if ok is None else emit("bin", [ok, test], BOOL, op="and")
    assert ok is not None
    vmap: dict[int, Value] = {}
    fast = clone_block(Block([], rest), vmap)
    for old, new in zip(walk(Block([], rest)), walk(fast)):
        if id(old) in hoisted:
            mark(new)
    fast.ops.append(Op("yield"))
    slow = Block([], [*rest, Op("yield")])
    # `version` marks the test for passes that change what the block-level values are
    # (`spmd.coarsen` makes it hold for every block a wide block runs)
    fn.body.ops = [*pre, Op("if", [ok], [], {"version": True}, [fast, slow])]
