"""What the bounds pass knows of a kernel's values before it searches for bounds
(`passes.bounds`): definitions, the numeric range of every integer value (interval arithmetic
that gives up, to the type's whole range, wherever an operation may wrap; loop-carried values
iterated to a fixpoint), leaf keys of values, which values are block-level (the same in every
thread of a block and recomputable at the kernel's top), and the relations guards establish
(`facts_of`)."""

from __future__ import annotations

from ...ir import Function, Op, Value, walk
from ...types import BOOL, ArrayType, Scalar
from .forms import Fact, Key, Lin, preserves, type_range

# Array extents are below this (no address space has more bytes).
MAX_EXTENT = 2**48

RING = ("add", "sub", "mul")
_FLIP = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
_NEG = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}
SAFE_BIN = ("add", "sub", "mul", "min", "max")  # pure and never trapping: may be recomputed


REGS: dict[tuple[str, int], tuple[int, int]] = {
    ("thread_idx", 0): (0, 1023), ("thread_idx", 1): (0, 1023), ("thread_idx", 2): (0, 63),
    ("block_dim", 0): (1, 1024), ("block_dim", 1): (1, 1024), ("block_dim", 2): (1, 64),
    ("block_idx", 0): (0, 2**31 - 2), ("block_idx", 1): (0, 65534), ("block_idx", 2): (0, 65534),
    ("grid_dim", 0): (1, 2**31 - 1), ("grid_dim", 1): (1, 65535), ("grid_dim", 2): (1, 65535),
}  # fmt: skip


class Ranges:
    """Definitions, leaf keys, numeric ranges and block-level values of one kernel (what the
    bound search, `search.Analysis`, builds on).

    Leaves of linear forms are keyed: `("v", id)` a value, `("s", array id, dim)` an array's
    extent, `("r", reg, axis)` a block-level special register (`block_dim.x`, ...), `("k",
    id)` the number of the last iteration of the counted loop whose variable is value `id`
    (`last_iteration`)."""

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
        self._pow2: set[int] | None = None  # `pow2_or_zero`
        # loop-carried values: block argument -> (initial value, next value, body argument)
        self.carried: dict[int, tuple[Value, Value, Value]] = {}
        self.carried_by: dict[int, Op] = {}  # a carried block argument -> its loop
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
                        self.carried_by[blk_args[i].id] = op
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
            for f in facts_of(self, cond.operands[0], True):
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
                    tlo, thi = self.full_range(inits[i])
                    nlo, nhi = (tlo if nlo < lo else lo), (thi if nhi > hi else hi)
                nxt[i] = (nlo, nhi)
            if nxt == cur:  # a fixpoint: what the body yields stays in these ranges
                break
            cur = nxt
        else:
            cur = {i: self.full_range(inits[i]) for i in cur}
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
            if not isinstance(src.type, Scalar) or not preserves(src.type, v.scalar):
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
            return REGS[(str(k[1]), int(k[2]))]  # type: ignore[call-overload]
        if k[0] == "k":
            got = self.last_iteration(self.defs[k[1]])  # type: ignore[index]
            assert got is not None
            return got
        lo, hi, _ = self.rng(self.values[k[1]])  # type: ignore[index]
        return lo, hi

    def key_hoistable(self, k: Key) -> bool:
        if k[0] == "p":
            return self.key_hoistable(k[1]) and self.key_hoistable(k[2])  # type: ignore[arg-type]
        if k[0] == "s":
            return k[1] in self.params
        if k[0] == "r":
            return True
        if k[0] == "k":
            return self.last_iteration(self.defs[k[1]]) is not None  # type: ignore[index]
        v = self.values[k[1]]  # type: ignore[index]
        return self.hoistable(v) and isinstance(v.type, Scalar) and v.type.is_int

    # ---- numeric ranges ---------------------------------------------------------------------
    def rng(self, v: Value) -> tuple[int, int, bool]:
        """(lo, hi, exact): bounds of `v`'s value, and whether every sum, difference and
        product it is made of is free of wrapping (then its value is the exact integer the
        arithmetic says)."""
        got = self._rng.get(v.id)
        if got is None:
            self._rng[v.id] = (*self.full_range(v), True)  # a cycle meets the whole range
            got = self._range(v)
            self._rng[v.id] = got
        return got

    def full_range(self, v: Value) -> tuple[int, int]:
        if not isinstance(v.type, Scalar) or v.type.is_float:
            return -(2**200), 2**200
        return type_range(v.type)

    def _range(self, v: Value) -> tuple[int, int, bool]:
        full = self.full_range(v)
        op = self.defs.get(v.id)
        if op is None or not isinstance(v.type, Scalar) or v.type.is_float:
            return (*full, True)
        oc = op.opcode
        if oc == "const":
            x = int(op.attrs["value"])
            return x, x, True
        if oc == "special":
            return (*REGS[(op.attrs["reg"], op.attrs["axis"])], True)
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
        if o in RING:
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
            return (
                d is not None
                and d.opcode == "bin"
                and d.attrs["op"] == "mul"
                and {self._special(x) for x in d.operands} == {("block_idx", 0), ("block_dim", 0)}
            )
        return False

    def shrinks(self, nxt: Value, arg: Value) -> bool:
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

    def last_iteration(self, loop: Op) -> tuple[int, int] | None:
        """The range of `(stop - start - 1) // step`, the number of the last iteration of
        `for` loop `loop` (its variable is `start + step * k` in iteration `k`), when the
        block can compute it at the top in int32: `start` and `stop` block-level values,
        `step` a constant of at least 1. None otherwise. (Below 0 when the loop runs no
        iteration: a bound through it then holds for no iteration, which is none.)"""
        if loop.opcode != "for":
            return None
        start, stop, step = loop.operands[:3]
        slo, shi, _ = self.rng(step)
        if not (slo == shi >= 1) or not (self.hoistable(start) and self.hoistable(stop)):
            return None
        (alo, ahi, _), (blo, bhi, _) = self.rng(start), self.rng(stop)
        dlo, dhi = blo - ahi - 1, bhi - alo - 1
        if not all(-(2**31) <= x < 2**31 for x in (alo, ahi, blo, bhi, dlo, dhi)):
            return None
        return dlo // slo, dhi // slo

    def counted_step(self, arg: Value) -> int | None:
        """`c` where loop-carried `arg` of a counted `for` loop (`last_iteration`) grows by
        the constant `c >= 0` in every iteration (`tile += 1` at the top level of the body:
        `arg + c` is what the body yields), so that in iteration `k` it is `init + c * k`
        (while that does not wrap); None otherwise."""
        loop = self.carried_by.get(arg.id)
        got = self.carried.get(arg.id)
        if loop is None or got is None or self.last_iteration(loop) is None:
            return None
        nxt = got[1]
        op = self.defs.get(nxt.id)
        if op is None or op.opcode != "bin" or op.attrs["op"] != "add" or arg not in op.operands:
            return None
        other = op.operands[1] if op.operands[0] is arg else op.operands[0]
        lo, hi, _ = self.rng(other)
        return lo if lo == hi >= 0 else None

    def step_up(self, loop: Op) -> bool:
        return loop.attrs.get("sign") == 1 or self.rng(loop.operands[2])[0] >= 1

    def no_wrap_up(self, loop: Op) -> bool:
        """Whether `k + step` of an upward loop stays in its type while `k < stop`."""
        _, stop, step = loop.operands[:3]
        return self.rng(stop)[1] - 1 + self.rng(step)[1] <= self.full_range(step)[1]

    def pow2_or_zero(self, v: Value) -> bool:
        """Whether every value `v` takes is 0 or a power of two (never negative): a constant
        so; a product of such values, or one shifted left by a constant, whose numeric range
        shows no wrap; one shifted right or divided by a power of two; `min`, `max`, a
        `select` or a value-preserving cast of such values; a value a loop carries from such
        a first value to such a next one (`s = 1`, `s *= 2`; `s >>= 1` from one). The
        greatest set of values these rules keep (values around a loop rely on each other)."""
        if self._pow2 is None:
            cands = {vid for vid, x in self.values_by_id().items()
                     if isinstance(x.type, Scalar) and x.type.is_int}  # fmt: skip
            while True:
                keep = {vid for vid in cands if self._pow2_step(vid, cands)}
                if keep == cands:
                    break
                cands = keep
            self._pow2 = cands
        return self.canon(v).id in self._pow2 or v.id in self._pow2

    def values_by_id(self) -> dict[int, Value]:
        """Every value `fn` defines (op results, block arguments) and its parameters."""
        out = {p.value.id: p.value for p in self.fn.params}
        for op in walk(self.fn.body):
            for r in op.results:
                out[r.id] = r
            for blk in op.regions:
                for a in blk.args:
                    out[a.id] = a
        return out

    def _pow2_step(self, vid: int, s: set[int]) -> bool:
        """Whether value `vid` is 0 or a power of two where the values of `s` are."""

        def p2(x: int) -> bool:
            return x >= 0 and x & (x - 1) == 0

        if vid in self.carried:
            init, nxt, _ = self.carried[vid]
            return init.id in s and nxt.id in s
        op = self.defs.get(vid)
        if op is None or not op.results:
            return False
        v = next((r for r in op.results if r.id == vid), None)
        if v is None or not isinstance(v.type, Scalar):
            return False
        if op.opcode == "const":
            return p2(int(op.attrs["value"]))
        if op.opcode == "cast":
            a = op.operands[0]
            return isinstance(a.type, Scalar) and preserves(a.type, v.type) and a.id in s
        if op.opcode == "select":
            return all(x.id in s for x in op.operands[1:])
        if op.opcode != "bin":
            return False
        o, (a, b) = op.attrs["op"], op.operands
        lo, _, exact = self.rng(v)
        if o == "mul":  # no wrap: the exact product of powers of two
            return exact and lo >= 0 and a.id in s and b.id in s
        if o in ("min", "max"):
            return a.id in s and b.id in s
        blo, bhi, _ = self.rng(b)
        if o == "shl":  # `a << k` for a known k, its range below the type's end
            alo, ahi, _ = self.rng(a)
            return (blo == bhi and 0 <= blo < v.type.bits - 1 and alo >= 0
                    and ahi << blo <= self.full_range(v)[1] and a.id in s)  # fmt: skip
        if o == "shr":
            return 0 <= blo and bhi < v.type.bits and a.id in s
        if o == "floordiv":
            return blo == bhi and p2(blo) and blo >= 1 and a.id in s
        return False

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
        if op.opcode == "bin" and op.attrs["op"] in SAFE_BIN:
            return all(self.hoistable(x) for x in op.operands)
        return False


def facts_of(an: Ranges, cond: Value, truth: bool, depth: int = 4) -> list[Fact]:
    """What `cond` being `truth` says about integer values."""
    op = an.defs.get(cond.id)
    if op is None or depth == 0:
        return []
    if op.opcode == "un" and op.attrs["op"] == "not":
        return facts_of(an, op.operands[0], not truth, depth - 1)
    if op.opcode == "bin" and op.attrs["op"] in ("and", "or") and op.result.type == BOOL:
        if (op.attrs["op"] == "and") == truth:
            return [f for x in op.operands for f in facts_of(an, x, truth, depth - 1)]
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
