"""Block-level tests (`passes.bounds`): whether `lin <= 0` holds for every value its leaves
may take, can never hold, or can be tested once per block in 32-bit integers (`test_type`,
`div_plan`), and how it reads in the kernel's own terms (`show`)."""

from __future__ import annotations

from typing import cast

from ...ir import Value
from ...types import INT32, UINT32, Scalar
from .forms import Key, Lin, Q
from .ranges import SAFE_BIN, Ranges


class BlockTests(Ranges):
    """`Ranges`, and what a block-level test of a linear form can be."""

    def extreme(self, e: Lin, upper: bool) -> Q:
        """The largest (upper) or smallest value of `e` over its leaves' ranges."""
        x = e.const
        for k, c in e.terms:
            lo, hi = self.leaf_range(k)
            x += c * (hi if (c > 0) == upper else lo)
        return x

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
        if k[0] == "k":  # the number of a counted loop's last iteration
            start, stop, step = (self._expr(x) for x in self.defs[k[1]].operands[:3])  # type: ignore[index]
            return f"(len(range({start}, {stop}, {step})) - 1)"
        return self._expr(self.values[k[1]])  # type: ignore[index]

    def _expr(self, v: Value) -> str:
        op = self.defs.get(v.id)
        if v.hint or op is None:
            return v.hint or f"%{v.id}"
        if op.opcode == "const":
            return str(op.attrs["value"])
        if op.opcode in ("special", "shape"):
            k = self.key(v)  # a value key here (`thread_idx.x`, a fixed extent) would recurse
            return self.name(k) if k[0] != "v" else f"%{v.id}"
        if op.opcode == "cast":
            return self._expr(op.operands[0])
        if op.opcode == "bin" and op.attrs["op"] in SAFE_BIN:
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
            ((pk, c),) = prods
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
        rlo, rhi = self.extreme(r, False), self.extreme(r, True)
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
        ranges = [(self.extreme(x, False), self.extreme(x, True)) for x in self.sides(e)]
        if all(-(2**31) <= lo and hi < 2**31 for lo, hi in ranges):
            return INT32
        if all(0 <= lo and hi < 2**32 for lo, hi in ranges):
            return UINT32
        return None

    def static(self, e: Lin) -> bool:
        """Whether `e <= 0` for every value its leaves may take."""
        return self.extreme(e, True) <= 0
