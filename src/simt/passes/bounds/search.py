"""The symbolic bound search (`passes.bounds`): candidate upper and lower bounds of a value,
linear forms over block-level leaves, from its definition (sums, differences, multiples,
`min`, `max`, `%`, `//`, shifts), thread, block and loop ranges, loop-carried values and the
dominating guards (`Ctx`), each with the block-level conditions it relies on; and whether a
condition is proven where it is needed (`prove`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from ...ir import Function, Op, Value
from .blocktest import BlockTests
from .forms import Bound, Fact, Key, Lin, type_range
from .ranges import RING

# How many candidate bounds the search keeps per value: enough for the guards and clamps
# kernels write, small enough to be fast.
MAX_CANDIDATES = 8

_SIZE = {"thread_idx": "block_dim", "block_idx": "grid_dim"}


@dataclass(frozen=True)
class Ctx:
    """Where an index is bounded: the guards that hold there, which leaves a block-level test
    may use (block-level ones and the extent it is compared with), and the bounds found so
    far there."""

    facts: tuple[Fact, ...]
    good: Callable[[Key], bool]
    memo: dict[tuple[object, ...], list[Bound]] = field(default_factory=dict, compare=False)


class Analysis(BlockTests):
    """`BlockTests`, and the bounds of values where guards hold."""

    def __init__(self, fn: Function) -> None:
        super().__init__(fn)
        self.contexts: dict[tuple[object, ...], Ctx] = {}

    # ---- symbolic bounds --------------------------------------------------------------------
    def bounds(self, v: Value, upper: bool, depth: int, ctx: Ctx) -> list[Bound]:
        """Candidate bounds (upper or lower) of `v`'s value as computed, each a linear form
        over leaves (those `ctx` allows first)."""
        key = ("b", v.id, upper, depth)
        got = ctx.memo.get(key)
        if got is None:
            ctx.memo[key] = []  # a cycle through guards meets no bound
            got = ctx.memo[key] = self._bounds(v, upper, depth, ctx)
        return got

    def _bounds(self, v: Value, upper: bool, depth: int, ctx: Ctx) -> list[Bound]:
        v = self.canon(v)
        lo, hi, exact = self.rng(v)
        if lo == hi:
            return [Bound(Lin((), lo))]
        out = self._base(self.key(v), v, upper, depth, ctx)
        op = self.defs.get(v.id)
        if depth > 0 and _is_ring(op):
            nw = () if exact else self._no_wrap(v, depth - 1, ctx)
            if nw is not None:  # the exact integer is the value (when tests `nw` pass)
                out += [Bound(b.lin, b.conds + nw) for b in self._compose(v, upper, depth - 1,
                                                                           ctx)]  # fmt: skip
        return self._prune(out, upper, ctx)

    def _no_wrap(self, v: Value, depth: int, ctx: Ctx) -> tuple[Lin, ...] | None:
        """Block-level tests under which the sums and products of ring op `v` do not wrap
        (its exact integer fits its type); None when there are none."""
        tlo, thi = type_range(v.scalar)
        up = self._best([Bound(b.lin.plus(-thi), b.conds)
                         for b in self._compose(v, True, depth, ctx)])  # fmt: skip
        down = self._best([Bound((-b.lin).plus(tlo), b.conds)
                           for b in self._compose(v, False, depth, ctx)])  # fmt: skip
        if up is None or down is None:
            return None
        return tuple(c for b in (up, down) for c in (b.lin, *b.conds) if c.terms or c.const > 0)

    def _prune(self, bs: list[Bound], upper: bool, ctx: Ctx) -> list[Bound]:
        """`_prune`, without a constant bound that a symbolic one matches everywhere (the
        symbolic one is as good in a static proof and better in a block-level test)."""
        sym = [b for b in bs if b.lin.terms and not b.conds
               and all(ctx.good(k) for k, _ in b.lin.terms)]  # fmt: skip
        if sym:
            ext = [self.extreme(b.lin, upper) for b in sym]
            best = min(ext) if upper else max(ext)
            bs = [b for b in bs if b.lin.terms or b.conds
                  or (b.lin.const < best if upper else b.lin.const > best)]  # fmt: skip
        return _prune_bounds(bs, ctx.good)

    def math_bounds(self, v: Value, upper: bool, depth: int, ctx: Ctx) -> list[Bound]:
        """Bounds of the exact integer that `v`'s sums, differences and products make (equal
        to `v` modulo 2**bits), with the operands bounded as they are computed."""
        key = ("m", v.id, upper, depth)
        got = ctx.memo.get(key)
        if got is None:
            ctx.memo[key] = []
            got = ctx.memo[key] = self._math_bounds(v, upper, depth, ctx)
        return got

    def _math_bounds(self, v: Value, upper: bool, depth: int, ctx: Ctx) -> list[Bound]:
        v = self.canon(v)
        op = self.defs.get(v.id)
        if not _is_ring(op):
            return self.bounds(v, upper, depth, ctx)
        out = self._compose(v, upper, depth - 1, ctx) if depth > 0 else []
        nw = () if self.rng(v)[2] else self._no_wrap(v, depth - 1, ctx) if depth > 0 else None
        if nw is not None:  # the value is the exact integer (when tests `nw` pass)
            out += [Bound(b.lin, b.conds + nw)
                    for b in self._base(self.key(v), v, upper, depth, ctx)]  # fmt: skip
        return self._prune(out, upper, ctx)

    def key_bounds(self, k: Key, upper: bool, depth: int, ctx: Ctx) -> list[Bound]:
        if k[0] == "v":
            return self.bounds(self.values[k[1]], upper, depth, ctx)  # type: ignore[index]
        return self._prune(self._base(k, None, upper, depth, ctx), upper, ctx)

    def _compose(self, v: Value, upper: bool, d: int, ctx: Ctx) -> list[Bound]:
        op = self.defs[v.id]
        a, b = op.operands
        o = op.attrs["op"]
        if o == "add":
            return _combine(self.math_bounds(a, upper, d, ctx),
                            self.math_bounds(b, upper, d, ctx), 1)  # fmt: skip
        if o == "sub":
            return _combine(self.math_bounds(a, upper, d, ctx),
                            self.math_bounds(b, not upper, d, ctx), -1)  # fmt: skip
        for x, y in ((a, b), (b, a)):
            lo, hi, _ = self.rng(y)
            if lo == hi:
                if lo == 0:
                    return [Bound(Lin((), 0))]
                got = self.math_bounds(x, upper if lo > 0 else not upper, d, ctx)
                return [Bound(g.lin.scale(lo), g.conds) for g in got]
        # a value times a block-level one `y >= 0`: between the value's bounds times `y`
        # when those are block-level (nbody's `tile * block_dim.x`, `tile` at most the number
        # of its loop's last iteration): products of leaves, tested by division (`div_plan`)
        for x, y in ((a, b), (b, a)):
            ylo, _, yexact = self.rng(y)
            if self.hoistable(x) or not self.hoistable(y) or ylo < 0 or not yexact:
                continue
            ky = self.key(y)
            if not self.key_hoistable(ky):
                continue
            out = [Bound(_times(xb.lin, ky), xb.conds)
                   for xb in self.math_bounds(x, upper, d, ctx)
                   if all(self.key_hoistable(k) for k, _ in xb.lin.terms)]
            if out:
                return out
        # a product of two block-level values that do not wrap themselves: its exact value
        # is a leaf (`block_idx.x * (2 * block_dim.x)`; tested by division, `div_plan`)
        if self.hoistable(a) and self.hoistable(b) and self.rng(a)[2] and self.rng(b)[2]:
            ka, kb = self.key(a), self.key(b)
            if self.key_hoistable(ka) and self.key_hoistable(kb):
                return [Bound(Lin.leaf(("p", *sorted((ka, kb)))))]
        return []

    def _base(self, k: Key, v: Value | None, upper: bool, depth: int, ctx: Ctx
              ) -> list[Bound]:  # fmt: skip
        """Bounds of key `k` (value `v` when it is one) from its numeric range, itself, its
        defining op (min, max, %, thread and loop ranges) and the guards in `ctx`."""
        lo, hi = self.leaf_range(k) if v is None else self.rng(v)[:2]
        out = [Bound(Lin((), hi if upper else lo))]
        # itself: a block-level value, the extent it is compared with, or any other value (a
        # bound through it is used only where it cancels: `thid - offset` under
        # `thid >= offset`)
        out.append(Bound(Lin.leaf(k)))
        if depth <= 0:
            return out
        d = depth - 1
        op = self.defs.get(v.id) if v is not None else None
        o = op.attrs.get("op") if op is not None and op.opcode == "bin" else None
        if op is not None and o in ("min", "max"):
            a, b = op.operands
            ba = self.bounds(a, upper, d, ctx)
            bb = self.bounds(b, upper, d, ctx)
            if (o == "min") == upper:  # min's upper bound: either operand's; max's lower too
                out += ba + bb
            else:  # both operands': the larger (upper) of two bounds a constant apart
                for x in ba:
                    for y in bb:
                        diff = x.lin + (-y.lin)
                        if not diff.terms:
                            pick = x if (diff.const >= 0) == upper else y
                            out.append(Bound(pick.lin, x.conds + y.conds))
        elif op is not None and o == "mod":
            n = op.operands[1]
            # Python's floor modulo by n >= 1 lies in [0, n - 1]
            need = self._best([Bound(Lin((), 1) + (-x.lin), x.conds)
                               for x in self.bounds(n, False, d, ctx)])  # fmt: skip
            if need is not None:
                cond = (need.lin, *need.conds)
                if upper:
                    out += [Bound(x.lin.plus(-1), x.conds + cond)
                            for x in self.bounds(n, True, d, ctx)]  # fmt: skip
                else:
                    out.append(Bound(Lin((), 0), cond))
        elif op is not None and o in ("floordiv", "shr") and _known(self.rng(op.operands[1])) \
                and (o == "floordiv" or self.rng(op.operands[0])[0] >= 0):  # fmt: skip
            # x // c lies in [(x - c + 1) / c, x / c] for c >= 1 (x >> k: c = 2**k, x >= 0)
            a, n = op.operands
            m = self.rng(n)[0]  # a shift by `bits` or more is masked: no bound from it
            c = m if o == "floordiv" else 2**m if 0 <= m < 31 else 0
            if 1 <= c <= 2**31:
                out += [Bound(x.lin.plus(0 if upper else 1 - c).scale(Fraction(1, c)), x.conds)
                        for x in self.bounds(a, upper, d, ctx)]  # fmt: skip
        elif v is not None and v.id in self.carried:  # (no other case below is a carried value)
            init, nxt, arg = self.carried[v.id]
            if upper and self.shrinks(nxt, arg):  # never above its initial value
                out += self.bounds(init, True, d, ctx)
            elif (c := self.counted_step(v)) is not None:
                # `init + c * k` in iteration k (nbody's `tile`): at most `init + c * last`,
                # at least `init`, where `init + c * last` fits the type (no sum wrapped)
                loop = self.carried_by[v.id]
                last = Lin.leaf(("k", loop.regions[0].args[0].id)).scale(c)
                fits = last.plus(self.rng(init)[1] - type_range(v.scalar)[1])
                wraps: tuple[Lin, ...] = () if self.static(fits) else (fits,)
                out += [Bound(x.lin + last if upper else x.lin, x.conds + wraps)
                        for x in self.bounds(init, upper, d, ctx)]  # fmt: skip
        elif op is not None and op.opcode == "special" and upper:
            reg, axis = op.attrs["reg"], op.attrs["axis"]
            if reg in _SIZE and ctx.good(("r", _SIZE[reg], axis)):
                out.append(Bound(Lin.leaf(("r", _SIZE[reg], axis)).plus(-1)))
        elif k[0] == "r" and k[1] == "block_idx" and upper:
            out.append(Bound(Lin.leaf(("r", "grid_dim", k[2])).plus(-1)))
        elif op is not None and op.opcode == "for" and v is op.regions[0].args[0]:
            start, stop, step = op.operands[:3]
            if self.step_up(op) and upper:
                out += [Bound(x.lin.plus(-1), x.conds) for x in self.bounds(stop, True, d, ctx)]
                if self.last_iteration(op) is not None:  # start + step * (the last iteration)
                    last = Lin.leaf(("k", v.id)).scale(self.rng(step)[0])
                    out += [Bound(x.lin + last, x.conds)
                            for x in self.bounds(start, True, d, ctx)]  # fmt: skip
            elif self.step_up(op):
                conds: tuple[Lin, ...] = ()
                if not self.no_wrap_up(op):  # stop - 1 + step <= max, tested
                    top = self.full_range(step)[1]
                    need = self._best([Bound(x.lin + y.lin.plus(-1 - top), x.conds + y.conds)
                                       for x in self.bounds(stop, True, d, ctx)
                                       for y in self.bounds(step, True, d, ctx)])  # fmt: skip
                    if need is None:
                        return out
                    conds = (need.lin, *need.conds)
                out += [Bound(x.lin, x.conds + conds) for x in self.bounds(start, False, d, ctx)]
        for f in ctx.facts:  # dominating guards
            if upper and f.a == k:
                out += [Bound(x.lin.plus(-1 if f.rel == "lt" else 0), x.conds)
                        for x in self.key_bounds(f.b, True, d, ctx)]  # fmt: skip
            elif not upper and f.b == k:
                out += [Bound(x.lin.plus(1 if f.rel == "lt" else 0), x.conds)
                        for x in self.key_bounds(f.a, False, d, ctx)]  # fmt: skip
            if f.rel == "eq" and k in (f.a, f.b):
                out += self.key_bounds(f.b if f.a == k else f.a, upper, d, ctx)
        return out

    def _best(self, conds: list[Bound]) -> Bound | None:
        """Of candidate conditions `lin <= 0`, one that always holds, else one a block-level
        test can check and some launch passes; None if neither. (A constant from a type's
        range that never holds is testable too: taken first as the no-wrap test of `i * 2`,
        it hid the guard of `if i * 2 < len(a): a[i * 2]`, and `a` was tested against the
        block's whole range instead.)"""
        for c in conds:
            if not c.conds and self.static(c.lin):
                return Bound(Lin((), 0))
        for c in conds:
            if all(self.testable(x) and not self.never(x) for x in (c.lin, *c.conds)):
                return c
        return None

    def prove(self, e: Lin, ctx: Ctx) -> bool:
        """Whether `e <= 0` always holds here: over its leaves' ranges, or with a leaf (or
        two) replaced by its bounds from the guards."""
        if self.static(e):
            return True
        if not 1 <= len(e.terms) <= 2:
            return False
        options = [
            [b.lin.scale(c) for b in self.key_bounds(k, c > 0, 3, ctx) if not b.conds]
            for k, c in e.terms
        ]
        base = Lin((), e.const)
        if len(options) == 1:
            return any(self.static(base + x) for x in options[0])
        return any(self.static(base + x + y) for x in options[0] for y in options[1])


def _known(r: tuple[int, int, bool]) -> bool:
    """Whether a range is one value."""
    return r[0] == r[1]


def _is_ring(op: Op | None) -> bool:
    return op is not None and op.opcode == "bin" and op.attrs["op"] in RING


def _times(e: Lin, k: Key) -> Lin:
    """`e` times leaf `k`: each term a product of two leaves."""
    out = Lin((), 0)
    for t, c in e.terms:
        out = out + Lin.leaf(("p", *sorted((t, k)))).scale(c)  # type: ignore[type-var]
    return out + Lin.leaf(k).scale(e.const)


def _combine(xs: list[Bound], ys: list[Bound], sign: int) -> list[Bound]:
    return [Bound(x.lin + y.lin.scale(sign), x.conds + y.conds) for x in xs for y in ys]


def _prune_bounds(bs: Iterable[Bound], good: Callable[[Key], bool]) -> list[Bound]:
    """Distinct bounds, those a block-level test can use first (then fewest conditions and
    leaves), at most MAX_CANDIDATES."""
    seen: dict[tuple[Lin, tuple[Lin, ...]], Bound] = {}
    for b in bs:
        seen.setdefault((b.lin, b.conds), b)

    def rank(b: Bound) -> tuple[int, int, int]:
        return sum(1 for k, _ in b.lin.terms if not good(k)), len(b.conds), len(b.lin.terms)

    return sorted(seen.values(), key=rank)[:MAX_CANDIDATES]
