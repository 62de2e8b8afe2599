"""Each access's verdict (`passes.bounds`): proven in bounds, hoisted to the block-level test
(with its conditions), or checked (with the reason), from the bound search of each index
against the array's extent under the guards that hold at the access."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from ...ir import Block, Op, Value
from ...ir.ops import MEMORY
from .forms import Bound, Fact, Key, Lin, type_range
from .ranges import facts_of
from .search import Analysis, Ctx

# How deep the bound search follows definitions and guards.
MAX_DEPTH = 6


@dataclass
class Site:
    """An access (`load`, `store`, `atomic`, `cas`) or one comparison of the front end's
    check of one (`is_check`), and its verdict."""

    op: Op
    status: str  # "proven", "hoisted", "checked"
    conds: tuple[Lin, ...] = ()
    why: str = ""
    # a check (`is_check`): the access it checks, as (place, array name); None: an access
    check: tuple[object, str] | None = None

    @property
    def array(self) -> str:
        return self.check[1] if self.check is not None else self.op.operands[0].hint


def is_check(op: Op) -> bool:
    """Whether `op` is one comparison of the front end's check of an index, `i >= 0` (attrs
    `check="lower"`) or `i < n` (`"upper"`), where an access raises IndexError
    (`frontend.raising.check_index`): the pass judges it as it judges an access, proven ones
    becoming True (`prove_bounds`)."""
    return op.opcode == "cmp" and op.attrs.get("check") in ("lower", "upper")


def _judge_check(an: Analysis, op: Op, facts: tuple[Fact, ...]) -> Site:
    """The verdict of check `op` (`is_check`): `idx >= 0`, or `idx < n` for any `n` (an
    array's extent, most often; the form of `n` then is that extent)."""
    idx, n = op.operands
    upper = op.attrs["check"] == "upper"
    if upper:
        d = an.defs.get(an.canon(n).id)
        ext = Lin((), d.attrs["value"]) if d is not None and d.opcode == "const" else (
            Lin.leaf(an.key(n)))  # fmt: skip
    else:
        ext = Lin((), 1)  # (unused: a lower bound needs none)
    ext_keys = {k for k, _ in ext.terms}

    def good(k: Key) -> bool:
        return k in ext_keys or an.key_hoistable(k)

    ck = (facts, frozenset(ext_keys))
    ctx = an.contexts.get(ck)
    if ctx is None:
        ctx = an.contexts[ck] = Ctx(facts, good)
    got = _side(an, idx, upper, ext, ctx, MAX_DEPTH)
    loc = op.loc
    of = ((loc.filename, loc.line, loc.col) if loc is not None else None, str(op.attrs["array"]))
    if got is None:
        side = "upper" if upper else "lower"
        return Site(op, "checked", why=f"no {side} bound of the index the block shares", check=of)
    return Site(op, "hoisted" if got else "proven", tuple(dict.fromkeys(got)), check=of)


def _judge(an: Analysis, op: Op, facts: tuple[Fact, ...]) -> Site:
    """Whether access `op` is proven, can be hoisted (and on which conditions), or stays
    checked."""
    arr = op.operands[0]
    t = arr.array
    need: list[Lin] = []
    for dim, idx in enumerate(op.operands[1 : 1 + t.ndim]):
        ext = an.extent(arr, dim)
        ext_keys = {k for k, _ in ext.terms}

        def good(k: Key, ext_keys: set[Key] = ext_keys) -> bool:
            return k in ext_keys or an.key_hoistable(k)

        ck = (facts, frozenset(ext_keys))
        ctx = an.contexts.get(ck)
        if ctx is None:
            ctx = an.contexts[ck] = Ctx(facts, good)
        for upper in (True, False):
            got = _side(an, idx, upper, ext, ctx, MAX_DEPTH)
            if got is None:
                side = "upper" if upper else "lower"
                return Site(op, "checked", why=f"no {side} bound of index {dim} the block shares")
            need += got
    if not need:
        return Site(op, "proven")
    return Site(op, "hoisted", tuple(dict.fromkeys(need)))


def _side(an: Analysis, idx: Value, upper: bool, ext: Lin, ctx: Ctx, depth: int
          ) -> list[Lin] | None:  # fmt: skip
    """The block-level tests (`lin <= 0` each, [] when proven) under which `idx <= ext - 1`
    (upper) or `idx >= 0` holds; None when there are none."""
    v = an.canon(idx)
    op = an.defs.get(v.id)
    o = op.attrs.get("op") if op is not None and op.opcode == "bin" else None
    if depth > 0 and o in ("min", "max") and (o == "max") == upper:
        # max(a, b) <= n - 1 when both are; min(a, b) >= 0 likewise
        assert op is not None
        parts = [_side(an, x, upper, ext, ctx, depth - 1) for x in op.operands]
        if parts[0] is None or parts[1] is None:
            return None
        return parts[0] + parts[1]
    tlo, thi = type_range(v.scalar)
    exact = an.rng(v)[2]
    cands = []
    for b in an.math_bounds(v, upper, depth, ctx):
        # upper: b <= extent - 1; lower: b >= 0; when the index's sums may wrap, the exact
        # integer fits the index type too (then it is the index)
        conds = [b.lin + (-ext).plus(1) if upper else -b.lin, *b.conds]
        if not exact:
            conds.append(b.lin.plus(-thi) if upper else (-b.lin).plus(tlo))
        left = tuple(dict.fromkeys(c for c in conds if not an.prove(c, ctx)))
        if any(an.never(c) or not an.testable(c) for c in left):
            continue
        cands.append((b, left))
    if upper and depth > 0:
        got = _aligned(an, v, ext, ctx, depth - 1)
        if got is not None:
            cands.append((Bound(ext.plus(-1)), got))
    if not cands:
        return None
    out = list(_pick(an, cands, upper))
    if not exact:  # the other side of the exact integer must fit the type as well
        other = []
        for b in an.math_bounds(v, not upper, depth, ctx):
            conds = [(-b.lin).plus(tlo) if upper else b.lin.plus(-thi), *b.conds]
            left = tuple(dict.fromkeys(c for c in conds if not an.prove(c, ctx)))
            if not any(an.never(c) or not an.testable(c) for c in left):
                other.append((b, left))
        if not other:
            return None
        out += _pick(an, other, not upper)
    return out


def _aligned(an: Analysis, v: Value, ext: Lin, ctx: Ctx, depth: int) -> tuple[Lin, ...] | None:
    """The block-level tests under which `x + r <= E - 1` by alignment, for an extent `E` that
    is a power of two and a dominating guard `x % m == 0` (`if tid % (2 * s) == 0:
    sh[tid + s]`, a tree reduction's step): where `m` is a power of two (`pow2_or_zero`, at
    least 1) below `2 * E` it divides `E`, so a multiple `x` of it in `[0, E - 1]` is at most
    `E - m`, and `r <= m - 1` keeps `x + r` at most `E - 1`. Needs `x >= 0`, `x <= E - 1` and
    `m <= 2 * E - 1` (each proven or tested, `_side`) and `r <= m - 1` (proven); None where
    the rule does not apply. The exact sum is what is bounded (the caller's type checks
    stand)."""
    e = ext.const
    if ext.terms or not isinstance(e, int) or e < 1 or e & (e - 1) or (
        e - 1 > type_range(v.scalar)[1]
    ):
        return None
    op = an.defs.get(v.id)
    if op is None or op.opcode != "bin" or op.attrs["op"] != "add":
        return None
    for x, r in (op.operands, op.operands[::-1]):
        m = _multiple_of(an, x, ctx)
        if m is None or not an.pow2_or_zero(m) or an.rng(m)[0] < 1 or an.rng(x)[0] < 0:
            continue
        if not _below_divisor(an, r, m, ctx):
            continue
        fits = _side(an, x, True, ext, ctx, depth)
        small = _side(an, m, True, Lin((), 2 * e), ctx, depth)
        if fits is not None and small is not None:
            tests = list(dict.fromkeys(fits + small))
            return tuple(t for i, t in enumerate(tests)
                         if not any(j != i and implies(o, t) and (j < i or not implies(t, o))
                                    for j, o in enumerate(tests)))  # fmt: skip
    return None


def implies(a: Lin, b: Lin) -> bool:
    """Whether `a <= 0` implies `b <= 0` as a multiple: `b = c * a + d` with `c > 0` and
    `d <= 0` (`block_dim.x <= 256` implies `2 * block_dim.x <= 513`)."""
    if not a.terms or [k for k, _ in a.terms] != [k for k, _ in b.terms]:
        return False
    c = Fraction(b.terms[0][1]) / Fraction(a.terms[0][1])
    if c <= 0 or any(Fraction(y) != c * Fraction(x) for (_, x), (_, y) in zip(a.terms, b.terms)):
        return False
    return Fraction(b.const) - c * Fraction(a.const) <= 0


def _multiple_of(an: Analysis, x: Value, ctx: Ctx) -> Value | None:
    """The divisor `m` of a guard `x % m == 0` that holds here, if there is one."""
    k = an.key(x)
    for f in ctx.facts:
        if f.rel != "eq":
            continue
        for a, b in ((f.a, f.b), (f.b, f.a)):
            if a[0] != "v" or b[0] != "v":
                continue
            zero = an.defs.get(b[1])  # type: ignore[call-overload]
            mod = an.defs.get(a[1])  # type: ignore[call-overload]
            if zero is None or zero.opcode != "const" or zero.attrs["value"] != 0:
                continue
            if mod is not None and mod.opcode == "bin" and mod.attrs["op"] == "mod" and (
                an.key(mod.operands[0]) == k
            ):
                return mod.operands[1]
    return None


def _below_divisor(an: Analysis, r: Value, m: Value, ctx: Ctx) -> bool:
    """Whether `r <= m - 1` holds here: `m` is `c * r` (c >= 2, no wrap) with `r >= 1`, or
    the bound search proves it."""
    op = an.defs.get(an.canon(m).id)
    if op is not None and op.opcode == "bin" and op.attrs["op"] == "mul" and an.rng(m)[2]:
        a, b = op.operands
        for y, c in ((a, b), (b, a)):
            clo, chi, _ = an.rng(c)
            if an.canon(y) is an.canon(r) and clo == chi >= 2 and an.rng(r)[0] >= 1:
                return True
    return an.prove(Lin.leaf(an.key(r)) + Lin.leaf(an.key(m)).scale(-1) + Lin((), 1), ctx)


def _pick(an: Analysis, cands: list[tuple[Bound, tuple[Lin, ...]]], upper: bool
          ) -> tuple[Lin, ...]:  # fmt: skip
    """The conditions of the candidate bound most likely to hold: none left (a proof); else
    the fewest tests, a symbolic bound before a constant one (a constant comes from a type's
    range and rarely passes), the tightest, the simplest."""

    # a candidate whose every test follows from each test of another holds wherever that
    # one does: the other goes (`x + s <= 255` by alignment, tested `block_dim.x <= 256`, over
    # the sum of bounds' `2 * block_dim.x <= 257`)
    def weaker(a: tuple[Lin, ...], b: tuple[Lin, ...]) -> bool:
        return bool(a) and bool(b) and all(any(implies(y, x) for y in b) for x in a)

    cands = [c for c in cands
             if not any(weaker(o[1], c[1]) and not weaker(c[1], o[1]) for o in cands)]

    def score(c: tuple[Bound, tuple[Lin, ...]]) -> tuple[int, bool, int, int]:
        b, left = c
        tighter = sum(
            1 for o, _ in cands if o is not b and an.static(b.lin + (-o.lin) if upper else
                                                           o.lin + (-b.lin))
        )  # fmt: skip
        return len(left), not b.lin.terms, -tighter, sum(len(x.terms) for x in left)

    return min(cands, key=score)[1]


def judge_block(
    an: Analysis,
    block: Block,
    facts: tuple[Fact, ...],
    out: list[Site],
    stop: Callable[[Site], bool] | None = None,
) -> bool:
    """Judge every access in `block`, with the guards `facts` that hold there; with `stop`,
    only until a verdict it holds true of (then True)."""
    for op in block.ops:
        if op.opcode in MEMORY and not op.attrs.get("spill") and not op.attrs.get("inbounds"):
            out.append(_judge(an, op, facts))  # (in bounds already: under a check's `if`)
            if stop is not None and stop(out[-1]):
                return True
        elif is_check(op):
            out.append(_judge_check(an, op, facts))
            if stop is not None and stop(out[-1]):
                return True
        if op.opcode == "if":
            cond = op.operands[0]
            if judge_block(an, op.regions[0], facts + tuple(facts_of(an, cond, True)), out, stop):
                return True
            if judge_block(an, op.regions[1], facts + tuple(facts_of(an, cond, False)), out,
                           stop):  # fmt: skip
                return True
        elif op.opcode == "while":
            cond_blk, body = op.regions
            if judge_block(an, cond_blk, facts, out, stop):
                return True
            term = cond_blk.terminator
            extra: list[Fact] = []
            if term is not None and term.opcode == "condition":
                ren = {an.key(a): an.key(b) for a, b in zip(cond_blk.args, body.args)}
                for f in facts_of(an, term.operands[0], True):
                    extra.append(Fact(ren.get(f.a, f.a), f.rel, ren.get(f.b, f.b)))
            if judge_block(an, body, facts + tuple(extra), out, stop):
                return True
        else:
            for r in op.regions:
                if judge_block(an, r, facts, out, stop):
                    return True
    return False
