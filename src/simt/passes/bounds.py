"""Bounds-check elimination: proving array accesses in bounds, and hoisting the checks that
cannot be proven to one test per block.

Every `load`, `store`, `atomic` and `cas` is checked by the renderers unless it carries
`op.attrs["inbounds"] = True`; this pass sets that attribute where it can show, for every
index `i` of an access to array `a` along dimension `d`, that `0 <= i < a.shape[d]` on every
path that reaches the access. It works the way Julia's, Rust's and the JVM's range-check
elimination does: each index gets symbolic lower and upper bounds, linear forms over values
the whole block shares (`len(a)`, `block_idx.x * block_dim.x`, scalar arguments, constants):

- *dominating guards*: inside `if i < len(a):` (also `<=`, `>`, `>=`, `==`, `and` chains,
  `not`, the `else` branch of the negation, an early `if i >= n: return`, a `while`'s
  condition in its body) `i <= len(a) - 1`;
- *definitions*: `min(x, len(a) - 1)` is at most `len(a) - 1`, `max(x, 0)` at least 0;
  `x % n` lies in `[0, n - 1]` when `n >= 1` (Python's floor modulo); sums, differences and
  multiples by constants of bounded values are bounded (`i + 1`, `row * 3 + k`);
- *thread and loop ranges*: `thread_idx.x` lies in `[0, block_dim.x - 1]`, `block_idx.x` in
  `[0, grid_dim.x - 1]`; `block_idx.x * block_dim.x + thread_idx.x` in `[0, 2**31 - 2]` (a
  launch of 2**31 threads along x is refused, `kernel.check_launch`); the variable of
  `for k in range(lo, hi)` lies in `[lo, hi - 1]` (at least `lo` only when `k + step` cannot
  wrap around past `hi`); numeric ranges of every integer value (interval arithmetic that
  gives up, to the type's whole range, wherever an operation may wrap).

An access whose bounds hold for every value the block's values may take is *proven*. One
whose bounds are linear forms of block-level values only — `i <= len(c) - 1` for `a[i]`, where
the guard was on `c`; `thread_idx.x <= block_dim.x - 1` for a shared array of 256 — is
*hoisted*: the kernel's body is versioned (a pure IR transform, no renderer support needed),
`if <every hoisted condition holds>: <the body with those accesses unchecked> else: <the
body with them checked>`. The test is made of block-level values only, so it is uniform: one
branch per block on a GPU, and on the CPU the SPMD pass keeps it as control flow outside the
thread loops (one test per block). Bodies over `MAX_COPY_OPS` are not copied (their checks
stay), so compile times stay bounded. Every other access is *checked*, and the renderers keep
its per-access test.

Wrapping arithmetic is where such proofs go wrong, so it is tracked: a bound through an
operation is used only where that operation provably does not wrap (its operands' numeric
ranges fit its type), except for the index itself, whose sums and products are bounded as
exact integers: there the check `0 <= i < min(len, 2**(bits-1))` also proves that the
wrapped value the kernel computes equals that integer. A hoisted test `lhs <= rhs` is
computed in int32, or in uint32, where the ranges of both sides fit that type (every backend
has 32-bit integers; not every WebGPU adapter has 64-bit ones); a test that fits neither is
not made, and its access stays checked.

Where it runs (`pipeline.prepare`): after the optimisation passes, on the IR a non-`sim`
backend compiles, *before* the CPU's SPMD lowering. Before, because the facts it reads
(guards, `range` loops, thread and block indices) are still the user's; because CUDA and WGSL
compile this IR without any SPMD lowering and need the same proofs; and because the hoisted
test is then an ordinary uniform `if` that the SPMD pass keeps outside the thread loops,
which a test placed after lowering would have to rebuild. `sim` checks every access itself
(it is the reference) and is left alone, as are kernels compiled with `debug=True` (their
checks stay, and their IR stays the front end's) and with `boundscheck=False` (nothing is
checked there).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import cast

from ..ir import Block, Function, Op, Value, walk
from ..ir.ops import MEMORY, PURE
from ..types import BOOL, INT32, UINT32, ArrayType, Scalar
from .rewrite import clone_block, size

# The body is copied once for a hoisted test: keep copies to bodies LLVM compiles quickly
# (as `lane_ranges.MAX_BODY_OPS`).
MAX_COPY_OPS = 400
# How deep the bound search follows definitions and guards, and how many candidate bounds it
# keeps per value: enough for the guards and clamps kernels write, small enough to be fast.
MAX_DEPTH = 6
MAX_CANDIDATES = 8
# Array extents are below this (no address space has more bytes).
MAX_EXTENT = 2**48

Key = tuple[object, ...]


def _norm(x: Fraction | int) -> Fraction | int:
    """A whole Fraction as an int (so that equal forms compare and hash equal)."""
    return int(x) if isinstance(x, Fraction) and x.denominator == 1 else x


Q = Fraction | int  # coefficients: `x // 2` is bounded by `x / 2`


@dataclass(frozen=True)
class Lin:
    """A linear form `sum(coef * leaf) + const` over integer leaves (values, array extents),
    with rational coefficients."""

    terms: tuple[tuple[Key, Q], ...] = ()
    const: Q = 0

    @staticmethod
    def leaf(k: Key) -> Lin:
        return Lin(((k, 1),), 0)

    def __add__(self, other: Lin) -> Lin:
        d = dict(self.terms)
        for k, c in other.terms:
            d[k] = d.get(k, 0) + c
        return Lin(tuple(sorted((k, _norm(c)) for k, c in d.items() if c)),
                   _norm(self.const + other.const))  # fmt: skip

    def scale(self, c: Q) -> Lin:
        if c == 0:
            return Lin((), 0)
        return Lin(tuple((k, _norm(v * c)) for k, v in self.terms), _norm(self.const * c))

    def plus(self, c: Q) -> Lin:
        return Lin(self.terms, _norm(self.const + c))

    def integral(self) -> Lin:
        """`self` times the least positive integer that makes every coefficient whole (the
        same test `<= 0`)."""
        m = 1
        for c in (self.const, *(c for _, c in self.terms)):
            m = math.lcm(m, Fraction(c).denominator)
        return self.scale(m) if m != 1 else self

    def __neg__(self) -> Lin:
        return self.scale(-1)


@dataclass(frozen=True)
class Bound:
    """A candidate bound and the conditions it relies on (each `Lin <= 0`)."""

    lin: Lin
    conds: tuple[Lin, ...] = ()


@dataclass(frozen=True)
class Fact:
    """`a REL b` holds here, REL one of lt, le, eq (operands as value keys)."""

    a: Key
    rel: str
    b: Key


@dataclass
class Report:
    """What the pass did to one kernel: accesses proven, hoisted and left checked, with the
    reason for each kept check (`(line, array, why)`)."""

    proven: int = 0
    hoisted: int = 0
    checked: int = 0
    kept: list[tuple[int, str, str]] = field(default_factory=list)
    versioned: bool = False
    tests: list[str] = field(default_factory=list)  # the block-level test, one part a line


_RING = ("add", "sub", "mul")
_FLIP = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
_NEG = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}
_SAFE_BIN = ("add", "sub", "mul", "min", "max")  # pure and never trapping: may be recomputed


def _type_range(t: Scalar) -> tuple[int, int]:
    if t.kind == "u":
        return 0, 2**t.bits - 1
    if t.kind == "b":
        return 0, 1
    return -(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1


def _preserves(src: Scalar, dst: Scalar) -> bool:
    """Whether casting int `src` to int `dst` keeps every value."""
    if not (src.is_int or src.is_bool) or not dst.is_int:
        return False
    lo, hi = _type_range(src)
    dlo, dhi = _type_range(dst)
    return dlo <= lo and hi <= dhi


_SIZE = {"thread_idx": "block_dim", "block_idx": "grid_dim"}


class _Analysis:
    """Definitions, numeric ranges, symbolic bounds and block-level values of one kernel.

    Leaves of linear forms are keyed: `("v", id)` a value, `("s", array id, dim)` an array's
    extent, `("r", reg, axis)` a block-level special register (`block_dim.x`, ...)."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.defs: dict[int, Op] = {}
        self.values: dict[int, Value] = {}
        self.arrays: dict[int, Value] = {p.value.id: p.value for p in fn.params
                                         if isinstance(p.value.type, ArrayType)}  # fmt: skip
        self.params = {p.value.id for p in fn.params}
        for op in walk(fn.body):
            for r in op.results:
                self.defs[r.id] = op
                if isinstance(r.type, ArrayType):
                    self.arrays[r.id] = r
            for blk in op.regions:
                for k, a in enumerate(blk.args):
                    # a `for` body's first argument is its loop variable
                    first = op.opcode == "for" and blk is op.regions[0] and k == 0
                    self.defs[a.id] = op if first else Op("arg")
        self._rng: dict[int, tuple[int, int, bool]] = {}
        self._hoist: dict[int, bool] = {}
        self.contexts: dict[tuple[object, ...], _Ctx] = {}
        # loop-carried values: block argument -> (initial value, next value, body argument)
        self.carried: dict[int, tuple[Value, Value, Value]] = {}
        for op in walk(fn.body):
            if op.opcode in ("for", "while"):
                body = op.regions[0] if op.opcode == "for" else op.regions[1]
                term = body.terminator
                if term is None or term.opcode != "yield":
                    continue
                k = 3 if op.opcode == "for" else 0
                args = body.args[1:] if op.opcode == "for" else body.args
                for i, (init, nxt) in enumerate(zip(op.operands[k:], term.operands)):
                    for blk in op.regions:
                        blk_args = blk.args[1:] if op.opcode == "for" else blk.args
                        self.carried[blk_args[i].id] = (init, nxt, args[i])
        for op in walk(fn.body):  # outer loops first: their carried values feed inner ones
            if op.opcode in ("for", "while"):
                self._carried(op)

    def _carried(self, loop: Op) -> None:
        """Numeric ranges of a loop's carried values: the hull of their initial values and
        of what the body yields, iterated to a fixpoint (`pout = 1 - pout` stays in [0, 1];
        `offset *= 2` from 1 in [1, max]: a side still growing after two rounds is widened
        to the type's end); the whole range when six rounds do not settle it."""
        k = 3 if loop.opcode == "for" else 0
        body = loop.regions[0] if loop.opcode == "for" else loop.regions[1]
        term = body.terminator
        if term is None or term.opcode != "yield":
            return
        inits = loop.operands[k:]
        firsts = body.args[1:] if loop.opcode == "for" else body.args
        also = [] if loop.opcode == "for" else [loop.regions[0].args]
        inner = [a.id for reg in loop.regions for a in reg.args] + [
            r.id for reg in loop.regions for o in walk(reg) for r in o.results
        ]
        cur = {i: self.rng(v)[:2] for i, v in enumerate(inits)
               if isinstance(v.type, Scalar) and (v.type.is_int or v.type.is_bool)}  # fmt: skip
        # a while's body runs only where its condition holds: `offset < 1024` caps it there
        cap: dict[int, tuple[int | None, int | None]] = {}
        cond = loop.regions[0].terminator if loop.opcode == "while" else None
        if cond is not None and cond.opcode == "condition":
            where: dict[Key, int] = {("v", a.id): i for i, a in enumerate(loop.regions[0].args)}
            for f in _facts_of(self, cond.operands[0], True):
                for side, other, lower in ((f.a, f.b, False), (f.b, f.a, True)):
                    # `arg < other`: arg <= max(other) - 1; `other < arg`: arg >= min + 1
                    i = where.get(side)
                    if i is None or other in where:
                        continue
                    olo, ohi = self.leaf_range(other)
                    lo, hi = cap.get(i, (None, None))
                    step = 0 if f.rel in ("le", "eq") else 1
                    if lower or f.rel == "eq":
                        lo = olo + (step if lower else 0)
                    if not lower or f.rel == "eq":
                        hi = ohi - (0 if lower else step)
                    cap[i] = (lo, hi)

        def assume(ranges: dict[int, tuple[int, int]]) -> None:
            for vid in inner:
                self._rng.pop(vid, None)
            for i, (lo, hi) in ranges.items():
                for a in also:
                    self._rng[a[i].id] = (lo, hi, True)
                clo, chi = cap.get(i, (None, None))
                blo = lo if clo is None else max(lo, clo)
                bhi = hi if chi is None else min(hi, chi)
                self._rng[firsts[i].id] = (blo, max(blo, bhi), True)

        for rnd in range(6):
            assume(cur)
            nxt = {}
            for i, (lo, hi) in cur.items():
                ylo, yhi, _ = self.rng(term.operands[i])
                nlo, nhi = min(lo, ylo), max(hi, yhi)
                if rnd >= 2:  # still growing: widen that side to the type's end
                    tlo, thi = self._full(inits[i])
                    nlo, nhi = (tlo if nlo < lo else lo), (thi if nhi > hi else hi)
                nxt[i] = (nlo, nhi)
            if nxt == cur:  # a fixpoint: what the body yields stays in these ranges
                break
            cur = nxt
        else:
            cur = {i: self._full(inits[i]) for i in cur}
        assume(cur)
        for i, (lo, hi) in cur.items():  # the loop's results are carried values too
            self._rng[loop.results[i].id] = (lo, hi, True)

    # ---- keys -------------------------------------------------------------------------------
    def canon(self, v: Value) -> Value:
        """`v` through value-preserving integer casts."""
        while True:
            op = self.defs.get(v.id)
            if op is None or op.opcode != "cast":
                return v
            src = op.operands[0]
            if not isinstance(src.type, Scalar) or not _preserves(src.type, v.scalar):
                return v
            v = src

    def key(self, v: Value) -> Key:
        v = self.canon(v)
        op = self.defs.get(v.id)
        if op is not None and op.opcode == "shape" and op.operands[0].array.shape is None:
            return ("s", op.operands[0].id, op.attrs["dim"])
        if op is not None and op.opcode == "special" and op.attrs["reg"] != "thread_idx":
            return ("r", op.attrs["reg"], op.attrs["axis"])
        self.values[v.id] = v
        return ("v", v.id)

    def extent(self, arr: Value, dim: int) -> Lin:
        """`arr.shape[dim]` as a linear form."""
        t = arr.array
        if t.shape is not None:
            return Lin((), t.shape[dim])
        return Lin.leaf(("s", arr.id, dim))

    def leaf_range(self, k: Key) -> tuple[int, int]:
        if k[0] == "p":  # the exact product of two leaves
            (alo, ahi), (blo, bhi) = self.leaf_range(k[1]), self.leaf_range(k[2])  # type: ignore[arg-type]
            ps = (alo * blo, alo * bhi, ahi * blo, ahi * bhi)
            return min(ps), max(ps)
        if k[0] == "s":
            t = self.arrays[k[1]].array  # type: ignore[index]
            return 0, (MAX_EXTENT if t.index.bits == 64 else 2**31 - 1)
        if k[0] == "r":
            return _REGS[(str(k[1]), int(k[2]))]  # type: ignore[call-overload]
        lo, hi, _ = self.rng(self.values[k[1]])  # type: ignore[index]
        return lo, hi

    def key_hoistable(self, k: Key) -> bool:
        if k[0] == "p":
            return self.key_hoistable(k[1]) and self.key_hoistable(k[2])  # type: ignore[arg-type]
        if k[0] == "s":
            return k[1] in self.params
        if k[0] == "r":
            return True
        v = self.values[k[1]]  # type: ignore[index]
        return self.hoistable(v) and isinstance(v.type, Scalar) and v.type.is_int

    # ---- numeric ranges ---------------------------------------------------------------------
    def rng(self, v: Value) -> tuple[int, int, bool]:
        """(lo, hi, exact): bounds of `v`'s value, and whether every sum, difference and
        product it is made of is free of wrapping (then its value is the exact integer the
        arithmetic says)."""
        got = self._rng.get(v.id)
        if got is None:
            self._rng[v.id] = (*self._full(v), True)  # a cycle meets the whole range
            got = self._range(v)
            self._rng[v.id] = got
        return got

    def _full(self, v: Value) -> tuple[int, int]:
        if not isinstance(v.type, Scalar) or v.type.is_float:
            return -(2**200), 2**200
        return _type_range(v.type)

    def _range(self, v: Value) -> tuple[int, int, bool]:
        full = self._full(v)
        op = self.defs.get(v.id)
        if op is None or not isinstance(v.type, Scalar) or v.type.is_float:
            return (*full, True)
        oc = op.opcode
        if oc == "const":
            x = int(op.attrs["value"])
            return x, x, True
        if oc == "special":
            return (*_REGS[(op.attrs["reg"], op.attrs["axis"])], True)
        if oc == "shape":
            t = op.operands[0].array
            if t.shape is not None:
                n = t.shape[op.attrs["dim"]]
                return n, n, True
            return 0, min(full[1], MAX_EXTENT), True
        if oc == "for" and op.regions[0].args[0] is v:
            start, stop = op.operands[:2]
            if self.step_up(op):
                lo = self.rng(start)[0] if self.no_wrap_up(op) else full[0]
                return max(lo, full[0]), min(self.rng(stop)[1] - 1, full[1]), True
            return (*full, True)
        if oc == "cast":
            a = op.operands[0]
            if isinstance(a.type, Scalar) and not a.type.is_float:
                lo, hi, ex = self.rng(a)
                if full[0] <= lo and hi <= full[1]:
                    return lo, hi, True
            return (*full, True)
        if oc == "select":
            _, a, b = op.operands
            alo, ahi, _ = self.rng(a)
            blo, bhi, _ = self.rng(b)
            return min(alo, blo), max(ahi, bhi), True
        if oc != "bin":
            return (*full, True)
        a, b = op.operands
        o = op.attrs["op"]
        if self.global_index(op):
            grid = {self._special(a), self._special(b)} == {("block_dim", 0), ("grid_dim", 0)}
            return (1, 2**31 - 1, True) if grid else (0, 2**31 - 2, True)
        alo, ahi, aex = self.rng(a)
        blo, bhi, bex = self.rng(b)
        if o in _RING:
            if o == "add":
                lo, hi = alo + blo, ahi + bhi
            elif o == "sub":
                lo, hi = alo - bhi, ahi - blo
            else:
                ps = (alo * blo, alo * bhi, ahi * blo, ahi * bhi)
                lo, hi = min(ps), max(ps)
            if full[0] <= lo and hi <= full[1]:
                return lo, hi, aex and bex
            return (*full, False)
        if o == "min":
            return min(alo, blo), min(ahi, bhi), True
        if o == "max":
            return max(alo, blo), max(ahi, bhi), True
        if o == "mod" and blo >= 1:
            return 0, bhi - 1, True
        if o == "floordiv" and blo >= 1 and alo >= 0:
            return alo // bhi, ahi // blo, True
        if o == "and" and alo >= 0 and blo >= 0:
            return 0, min(ahi, bhi), True
        if o == "shr" and alo >= 0 and blo >= 0:
            return 0, ahi, True
        return (*full, True)

    def _special(self, v: Value) -> tuple[str, int] | None:
        op = self.defs.get(v.id)
        if op is not None and op.opcode == "special":
            return op.attrs["reg"], op.attrs["axis"]
        return None

    def global_index(self, op: Op) -> bool:
        """`block_idx.x * block_dim.x`, `+ thread_idx.x` on it, or `block_dim.x *
        grid_dim.x`: in [0, 2**31 - 2] (resp. [1, 2**31 - 1]), as `kernel.check_launch`
        refuses a launch of 2**31 or more threads along x."""
        if op.opcode != "bin":
            return False
        a, b = op.operands
        pair = {self._special(a), self._special(b)}
        if op.attrs["op"] == "mul":
            return pair in ({("block_idx", 0), ("block_dim", 0)},
                            {("block_dim", 0), ("grid_dim", 0)})  # fmt: skip
        if op.attrs["op"] == "add" and ("thread_idx", 0) in pair:
            other = b if self._special(a) == ("thread_idx", 0) else a
            d = self.defs.get(other.id)
            return d is not None and d.opcode == "bin" and d.attrs["op"] == "mul" and {
                self._special(x) for x in d.operands} == {("block_idx", 0), ("block_dim", 0)}
        return False

    def _shrinks(self, nxt: Value, arg: Value) -> bool:
        """Whether `nxt`, the next value of loop-carried `arg`, is never above `arg`: `arg`
        itself, `arg // c`, `arg >> k` (arg >= 0), `arg - x` (x >= 0, no wrap), `min(arg, x)`."""
        if nxt is arg:
            return True
        op = self.defs.get(nxt.id)
        if op is None or op.opcode != "bin" or arg not in op.operands:
            return False
        o, (a, b) = op.attrs["op"], op.operands
        if o == "min":
            return True
        if a is not arg:
            return False
        blo, bhi, _ = self.rng(b)
        if o in ("floordiv", "shr"):
            return self.rng(arg)[0] >= 0 and blo >= (1 if o == "floordiv" else 0)
        return o == "sub" and blo >= 0 and self.rng(nxt)[2] and self.rng(nxt)[0] > -(2**31)

    def step_up(self, loop: Op) -> bool:
        return loop.attrs.get("sign") == 1 or self.rng(loop.operands[2])[0] >= 1

    def no_wrap_up(self, loop: Op) -> bool:
        """Whether `k + step` of an upward loop stays in its type while `k < stop`."""
        _, stop, step = loop.operands[:3]
        return self.rng(stop)[1] - 1 + self.rng(step)[1] <= self._full(step)[1]

    # ---- block-level values -----------------------------------------------------------------
    def hoistable(self, v: Value) -> bool:
        """Whether `v` is the same in every thread of a block and can be recomputed at the
        top of the kernel: arguments, constants, block indices and sizes, extents, and pure
        non-trapping arithmetic of those."""
        got = self._hoist.get(v.id)
        if got is None:
            self._hoist[v.id] = False
            got = self._hoistable(v)
            self._hoist[v.id] = got
        return got

    def _hoistable(self, v: Value) -> bool:
        if v.id in self.params:
            return isinstance(v.type, Scalar)
        op = self.defs.get(v.id)
        if op is None:
            return False
        if op.opcode == "const":
            return True
        if op.opcode == "special":
            return op.attrs["reg"] != "thread_idx"
        if op.opcode == "shape":
            return op.operands[0].id in self.params or op.operands[0].array.shape is not None
        if op.opcode == "cast":
            return self.hoistable(op.operands[0])
        if op.opcode == "bin" and op.attrs["op"] in _SAFE_BIN:
            return all(self.hoistable(x) for x in op.operands)
        return False

    # ---- symbolic bounds --------------------------------------------------------------------
    def bounds(self, v: Value, upper: bool, depth: int, ctx: _Ctx) -> list[Bound]:
        """Candidate bounds (upper or lower) of `v`'s value as computed, each a linear form
        over leaves (those `ctx` allows first)."""
        key = ("b", v.id, upper, depth)
        got = ctx.memo.get(key)
        if got is None:
            ctx.memo[key] = []  # a cycle through guards meets no bound
            got = ctx.memo[key] = self._bounds(v, upper, depth, ctx)
        return got

    def _bounds(self, v: Value, upper: bool, depth: int, ctx: _Ctx) -> list[Bound]:
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

    def _no_wrap(self, v: Value, depth: int, ctx: _Ctx) -> tuple[Lin, ...] | None:
        """Block-level tests under which the sums and products of ring op `v` do not wrap
        (its exact integer fits its type); None when there are none."""
        tlo, thi = _type_range(v.scalar)
        up = self._best([Bound(b.lin.plus(-thi), b.conds)
                         for b in self._compose(v, True, depth, ctx)])  # fmt: skip
        down = self._best([Bound((-b.lin).plus(tlo), b.conds)
                           for b in self._compose(v, False, depth, ctx)])  # fmt: skip
        if up is None or down is None:
            return None
        return tuple(c for b in (up, down) for c in (b.lin, *b.conds) if c.terms or c.const > 0)

    def _prune(self, bs: list[Bound], upper: bool, ctx: _Ctx) -> list[Bound]:
        """`_prune`, without a constant bound that a symbolic one matches everywhere (the
        symbolic one is as good in a static proof and better in a block-level test)."""
        sym = [b for b in bs if b.lin.terms and not b.conds
               and all(ctx.good(k) for k, _ in b.lin.terms)]  # fmt: skip
        if sym:
            ext = [self._extreme(b.lin, upper) for b in sym]
            best = min(ext) if upper else max(ext)
            bs = [b for b in bs if b.lin.terms or b.conds
                  or (b.lin.const < best if upper else b.lin.const > best)]  # fmt: skip
        return _prune(bs, ctx.good)

    def _extreme(self, e: Lin, upper: bool) -> Q:
        """The largest (upper) or smallest value of `e` over its leaves' ranges."""
        x = e.const
        for k, c in e.terms:
            lo, hi = self.leaf_range(k)
            x += c * (hi if (c > 0) == upper else lo)
        return x

    def math_bounds(self, v: Value, upper: bool, depth: int, ctx: _Ctx) -> list[Bound]:
        """Bounds of the exact integer that `v`'s sums, differences and products make (equal
        to `v` modulo 2**bits), with the operands bounded as they are computed."""
        key = ("m", v.id, upper, depth)
        got = ctx.memo.get(key)
        if got is None:
            ctx.memo[key] = []
            got = ctx.memo[key] = self._math_bounds(v, upper, depth, ctx)
        return got

    def _math_bounds(self, v: Value, upper: bool, depth: int, ctx: _Ctx) -> list[Bound]:
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

    def key_bounds(self, k: Key, upper: bool, depth: int, ctx: _Ctx) -> list[Bound]:
        if k[0] == "v":
            return self.bounds(self.values[k[1]], upper, depth, ctx)  # type: ignore[index]
        return self._prune(self._base(k, None, upper, depth, ctx), upper, ctx)

    def _compose(self, v: Value, upper: bool, d: int, ctx: _Ctx) -> list[Bound]:
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
        # a product of two block-level values that do not wrap themselves: its exact value
        # is a leaf (`block_idx.x * (2 * block_dim.x)`; tested by division, `div_plan`)
        if self.hoistable(a) and self.hoistable(b) and self.rng(a)[2] and self.rng(b)[2]:
            ka, kb = self.key(a), self.key(b)
            if self.key_hoistable(ka) and self.key_hoistable(kb):
                return [Bound(Lin.leaf(("p", *sorted((ka, kb)))))]
        return []

    def _base(self, k: Key, v: Value | None, upper: bool, depth: int, ctx: _Ctx
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
        elif v is not None and v.id in self.carried and upper:
            init, nxt, arg = self.carried[v.id]
            if self._shrinks(nxt, arg):  # never above its initial value
                out += self.bounds(init, True, d, ctx)
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
            elif self.step_up(op):
                conds: tuple[Lin, ...] = ()
                if not self.no_wrap_up(op):  # stop - 1 + step <= max, tested
                    top = self._full(step)[1]
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
        test can check; None if neither."""
        for c in conds:
            if not c.conds and self.static(c.lin):
                return Bound(Lin((), 0))
        for c in conds:
            if all(self.testable(x) for x in (c.lin, *c.conds)):
                return c
        return None

    def never(self, e: Lin) -> bool:
        """Whether `e <= 0` holds for no value its leaves may take, or only for blocks of
        fewer than 8 threads along x or y (a test no launch worth versioning for passes:
        it would send every block to the checked copy)."""
        low = e.const
        for k, c in e.terms:
            lo, hi = self.leaf_range(k)
            if k[0] == "r" and k[1] == "block_dim" and k[2] in (0, 1):
                lo = 8
            low += c * (lo if c > 0 else hi)
        return low > 0

    def name(self, k: Key) -> str:
        """A leaf as the kernel's source would say it."""
        axis = "xyz"
        if k[0] == "p":
            return f"({self.name(k[1])} * {self.name(k[2])})"  # type: ignore[arg-type]
        if k[0] == "s":
            arr = self.arrays[k[1]]  # type: ignore[index]
            nm = arr.hint or f"%{arr.id}"
            return f"len({nm})" if arr.array.ndim == 1 else f"{nm}.shape[{k[2]}]"
        if k[0] == "r":
            return f"{k[1]}.{axis[int(k[2])]}"  # type: ignore[call-overload]
        return self._expr(self.values[k[1]])  # type: ignore[index]

    def _expr(self, v: Value) -> str:
        op = self.defs.get(v.id)
        if v.hint or op is None:
            return v.hint or f"%{v.id}"
        if op.opcode == "const":
            return str(op.attrs["value"])
        if op.opcode in ("special", "shape"):
            return self.name(self.key(v))
        if op.opcode == "cast":
            return self._expr(op.operands[0])
        if op.opcode == "bin" and op.attrs["op"] in _SAFE_BIN:
            a, b = (self._expr(x) for x in op.operands)
            o = op.attrs["op"]
            return f"{o}({a}, {b})" if o in ("min", "max") else \
                f"({a} {dict(add='+', sub='-', mul='*')[o]} {b})"  # fmt: skip
        return f"%{v.id}"

    def show(self, e: Lin) -> str:
        """`e <= 0` as a test in the kernel's terms (`len(c) - len(a) <= 0`)."""
        parts = []
        for k, c in e.terms:
            nm = self.name(k)
            parts.append(("+ " if c > 0 else "- ") + (nm if abs(c) == 1 else f"{abs(c)}*{nm}"))
        if e.const:
            parts.append(("+ " if e.const > 0 else "- ") + str(abs(e.const)))
        text = " ".join(parts) or "0"
        return (text[2:] if text.startswith("+ ") else "-" + text[2:]) + " <= 0"

    def prove(self, e: Lin, ctx: _Ctx) -> bool:
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

    def sides(self, e: Lin) -> tuple[Lin, Lin]:
        """`e <= 0` as `lhs <= rhs`, each side with positive coefficients only."""
        pos = Lin(tuple((k, c) for k, c in e.terms if c > 0), max(e.const, 0))
        neg = Lin(tuple((k, -c) for k, c in e.terms if c < 0), max(-e.const, 0))
        return pos, neg

    def testable(self, e: Lin) -> bool:
        """Whether a block-level test of `e <= 0` can be made in 32-bit integers."""
        return self.test_type(e) is not None or self.div_plan(e) is not None

    def div_plan(self, e: Lin) -> tuple[Key, int, Lin, Scalar, Key | None] | None:
        """`c * x + rest <= 0` as `x <= (-rest) // c` (c > 0) or `-x <= (-rest) // -c`, for
        the term with the largest coefficient, computed in int32 (or uint32 where `-rest` and
        `x` are never negative and `c > 0`), so that `16 * block_idx.x + ...` is tested
        without computing the product."""
        e = e.integral()
        if not e.terms or not all(self.key_hoistable(k) for k, _ in e.terms):
            return None
        prods = [(k, int(c)) for k, c in e.terms if k[0] == "p"]
        div: Key | None = None
        if prods:  # c * (x * y) + rest <= 0 as x <= ((-rest) // c) // y, for y >= 1
            if len(prods) > 1 or prods[0][1] < 1:
                return None
            (pk, c), = prods
            x, y = pk[1], pk[2]
            if self.leaf_range(y)[0] < 1:  # type: ignore[arg-type]
                x, y = y, x
            if self.leaf_range(y)[0] < 1 or not (self.leaf_range(y)[1] < 2**31):  # type: ignore[arg-type]
                return None
            k, div = cast(Key, x), cast(Key, y)
        else:
            k, c = max(((k, int(c)) for k, c in e.terms), key=lambda t: abs(t[1]))
            if abs(c) < 2:
                return None
            pk = k
        r = -Lin(tuple(t for t in e.terms if t[0] != pk), e.const)
        lo, hi = self.leaf_range(k)
        rlo, rhi = self._extreme(r, False), self._extreme(r, True)
        if -(2**31) < lo and hi < 2**31 and -(2**31) <= rlo and rhi < 2**31:
            return k, c, r, INT32, div
        if c > 0 and 0 <= lo and hi < 2**32 and 0 <= rlo and rhi < 2**32:
            return k, c, r, UINT32, div
        return None

    def test_type(self, e: Lin) -> Scalar | None:
        """The 32-bit type a block-level test of `e <= 0` is computed in exactly (int32 when
        both sides' ranges fit it, else uint32 when they fit that), or None: every backend
        has 32-bit integers, not every adapter has 64-bit ones."""
        e = e.integral()
        if not all(self.key_hoistable(k) for k, _ in e.terms):
            return None
        ranges = [(self._extreme(x, False), self._extreme(x, True)) for x in self.sides(e)]
        if all(-(2**31) <= lo and hi < 2**31 for lo, hi in ranges):
            return INT32
        if all(0 <= lo and hi < 2**32 for lo, hi in ranges):
            return UINT32
        return None

    def static(self, e: Lin) -> bool:
        """Whether `e <= 0` for every value its leaves may take."""
        return self._extreme(e, True) <= 0


@dataclass(frozen=True)
class _Ctx:
    """Where an index is bounded: the guards that hold there, which leaves a block-level test
    may use (block-level ones and the extent it is compared with), and the bounds found so
    far there."""

    facts: tuple[Fact, ...]
    good: Callable[[Key], bool]
    memo: dict[tuple[object, ...], list[Bound]] = field(default_factory=dict, compare=False)


def _known(r: tuple[int, int, bool]) -> bool:
    """Whether a range is one value."""
    return r[0] == r[1]


def _is_ring(op: Op | None) -> bool:
    return op is not None and op.opcode == "bin" and op.attrs["op"] in _RING


_REGS: dict[tuple[str, int], tuple[int, int]] = {
    ("thread_idx", 0): (0, 1023), ("thread_idx", 1): (0, 1023), ("thread_idx", 2): (0, 63),
    ("block_dim", 0): (1, 1024), ("block_dim", 1): (1, 1024), ("block_dim", 2): (1, 64),
    ("block_idx", 0): (0, 2**31 - 2), ("block_idx", 1): (0, 65534), ("block_idx", 2): (0, 65534),
    ("grid_dim", 0): (1, 2**31 - 1), ("grid_dim", 1): (1, 65535), ("grid_dim", 2): (1, 65535),
}  # fmt: skip


def _combine(xs: list[Bound], ys: list[Bound], sign: int) -> list[Bound]:
    return [Bound(x.lin + y.lin.scale(sign), x.conds + y.conds) for x in xs for y in ys]


def _prune(bs: Iterable[Bound], good: Callable[[Key], bool]) -> list[Bound]:
    """Distinct bounds, those a block-level test can use first (then fewest conditions and
    leaves), at most MAX_CANDIDATES."""
    seen: dict[tuple[Lin, tuple[Lin, ...]], Bound] = {}
    for b in bs:
        seen.setdefault((b.lin, b.conds), b)

    def rank(b: Bound) -> tuple[int, int, int]:
        return sum(1 for k, _ in b.lin.terms if not good(k)), len(b.conds), len(b.lin.terms)

    return sorted(seen.values(), key=rank)[:MAX_CANDIDATES]


def _facts_of(an: _Analysis, cond: Value, truth: bool, depth: int = 4) -> list[Fact]:
    """What `cond` being `truth` says about integer values."""
    op = an.defs.get(cond.id)
    if op is None or depth == 0:
        return []
    if op.opcode == "un" and op.attrs["op"] == "not":
        return _facts_of(an, op.operands[0], not truth, depth - 1)
    if op.opcode == "bin" and op.attrs["op"] in ("and", "or") and op.result.type == BOOL:
        if (op.attrs["op"] == "and") == truth:
            return [f for x in op.operands for f in _facts_of(an, x, truth, depth - 1)]
        return []
    if op.opcode != "cmp":
        return []
    a, b = op.operands
    if not isinstance(a.type, Scalar) or not (a.type.is_int):
        return []
    rel = op.attrs["op"] if truth else _NEG[op.attrs["op"]]
    if rel in ("gt", "ge"):
        a, b, rel = b, a, _FLIP[rel]
    if rel == "ne":
        return []
    return [Fact(an.key(a), rel, an.key(b))]


@dataclass
class _Site:
    op: Op
    status: str  # "proven", "hoisted", "checked"
    conds: tuple[Lin, ...] = ()
    why: str = ""


def _judge(an: _Analysis, op: Op, facts: tuple[Fact, ...]) -> _Site:
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
            ctx = an.contexts[ck] = _Ctx(facts, good)
        for upper in (True, False):
            got = _side(an, idx, upper, ext, ctx, MAX_DEPTH)
            if got is None:
                side = "upper" if upper else "lower"
                return _Site(op, "checked", why=f"no {side} bound of index {dim} the block shares")
            need += got
    if not need:
        return _Site(op, "proven")
    return _Site(op, "hoisted", tuple(dict.fromkeys(need)))


def _side(an: _Analysis, idx: Value, upper: bool, ext: Lin, ctx: _Ctx, depth: int
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
    tlo, thi = _type_range(v.scalar)
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


def _pick(an: _Analysis, cands: list[tuple[Bound, tuple[Lin, ...]]], upper: bool
          ) -> tuple[Lin, ...]:  # fmt: skip
    """The conditions of the candidate bound most likely to hold: none left (a proof); else
    the fewest tests, a symbolic bound before a constant one (a constant comes from a type's
    range and rarely passes), the tightest, the simplest."""

    def score(c: tuple[Bound, tuple[Lin, ...]]) -> tuple[int, bool, int, int]:
        b, left = c
        tighter = sum(
            1 for o, _ in cands if o is not b and an.static(b.lin + (-o.lin) if upper else
                                                           o.lin + (-b.lin))
        )  # fmt: skip
        return len(left), not b.lin.terms, -tighter, sum(len(x.terms) for x in left)

    return min(cands, key=score)[1]


def _sites(an: _Analysis, block: Block, facts: tuple[Fact, ...], out: list[_Site]) -> None:
    """Judge every access in `block`, with the guards `facts` that hold there."""
    for op in block.ops:
        if op.opcode in MEMORY and not op.attrs.get("spill"):
            out.append(_judge(an, op, facts))
        if op.opcode == "if":
            cond = op.operands[0]
            _sites(an, op.regions[0], facts + tuple(_facts_of(an, cond, True)), out)
            _sites(an, op.regions[1], facts + tuple(_facts_of(an, cond, False)), out)
        elif op.opcode == "while":
            cond_blk, body = op.regions
            _sites(an, cond_blk, facts, out)
            term = cond_blk.terminator
            extra: list[Fact] = []
            if term is not None and term.opcode == "condition":
                ren = {an.key(a): an.key(b) for a, b in zip(cond_blk.args, body.args)}
                for f in _facts_of(an, term.operands[0], True):
                    extra.append(Fact(ren.get(f.a, f.a), f.rel, ren.get(f.b, f.b)))
            _sites(an, body, facts + tuple(extra), out)
        else:
            for r in op.regions:
                _sites(an, r, facts, out)


def prove_bounds(fn: Function) -> Report:
    """Mark the accesses of `fn` proven in bounds (`attrs["inbounds"]`), and version its body
    on a block-level test where that proves more; changes `fn` in place. The report is also
    kept in `fn.attrs["bounds"]`."""
    an = _Analysis(fn)
    sites: list[_Site] = []
    _sites(an, fn.body, (), sites)
    for s in sites:
        if s.status == "proven":
            s.op.attrs["inbounds"] = True
    hoisted = [s for s in sites if s.status == "hoisted"]
    rep = Report()
    if hoisted:
        why = _no_copy(fn)
        if why:
            for s in hoisted:
                s.status, s.why = "checked", why
        else:
            conds = _strictest(c for s in hoisted for c in s.conds)
            _version(an, fn, {id(s.op) for s in hoisted}, conds)
            rep.versioned = True
            rep.tests = [an.show(c) for c in conds]
    for s in sites:
        if s.status == "proven":
            rep.proven += 1
        elif s.status == "hoisted":
            rep.hoisted += 1
        else:
            rep.checked += 1
            line = s.op.loc.line if s.op.loc is not None else 0
            rep.kept.append((line, s.op.operands[0].hint, s.why))
    fn.attrs["bounds"] = rep
    return rep


def _no_copy(fn: Function) -> str:
    """Why `fn`'s body is not copied for a block-level test ("" when it may be)."""
    if size(fn.body) > MAX_COPY_OPS:
        return f"the kernel is over {MAX_COPY_OPS} ops: its body is not copied for a block test"
    if any(op.opcode == "alloc" for blk in _nested(fn.body) for op in blk.ops):
        return "an array is allocated inside a branch or loop: the body is not copied"
    return ""


def _strictest(conds: Iterable[Lin]) -> list[Lin]:
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


def _version(an: _Analysis, fn: Function, hoisted: set[int], conds: list[Lin]) -> None:
    """`fn.body` becomes `if all(c <= 0 for c in conds): <copy, `hoisted` unchecked> else:
    <body>`, the test computed before it in 32 bits (`test_type`); shared and local arrays
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
            op.opcode in PURE and all(v.id in outside for v in op.operands)
            and len(op.results) == 1 and an.hoistable(op.result)
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

    def leaf(k: Key, t: Scalar) -> Value:
        if k[0] == "p":  # a product: exact wherever the test's value fits `t` (ring arithmetic)
            return emit("bin", [leaf(k[1], t), leaf(k[2], t)], t, op="mul")  # type: ignore[arg-type]
        if k[0] == "s":
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
            lo, hi = _type_range(t)
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
            new.attrs["inbounds"] = True
    fast.ops.append(Op("yield"))
    slow = Block([], [*rest, Op("yield")])
    # `version` marks the test for passes that change what the block-level values are
    # (`spmd.coarsen` makes it hold for every block a wide block runs)
    fn.body.ops = [*pre, Op("if", [ok], [], {"version": True}, [fast, slow])]


__all__ = ["MAX_COPY_OPS", "Report", "prove_bounds"]
