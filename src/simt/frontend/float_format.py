"""A float in a string built at run time under the float format types `f`, `F`, `e`, `E`,
`g`, `G` and `%`, or no type, written on the device exactly as Python's `format` writes it
(the spec's parts: `str_format.Spec`; the string: `strings.py`). No type and no precision
(`str(x)`, `f"{x}"`) is the shortest digits that read back (`_shortest`), laid out as
Python's `repr` (or, for a float32 with no spec, numpy's `str`, as `print` shows it).

The value is made exact first: |x| (float32 and float16 widened to float64, which is exact)
is `m * 2**e` with `m` below 2**53 (scaled by powers of 2: exact); its trailing zero bits are
dropped, then it is the integer `D = m * 2**e` (e >= 0) or `D * 10**-k` with `D = m * 5**k`
(k = -e), built in 32-bit limbs of a local array (at most 2547 bits: the smallest subnormal)
by multiplying by 2**31 or 5**13 at a time. D is cut into base-10**9 chunks (repeated
division), so every decimal digit of the value is known; rounding at any digit is then
Python's half to even on the digits themselves (the digit after the cut, and whether any
digit below it is not 0), and a carry runs through the 9s above. This is the exact method
(no float arithmetic decides a digit); the cost is O(digits x limbs): a few hundred
operations for everyday values, tens of thousands for 1e-300 under `.300f`.

Layout, as Python's: `[left fill][sign][middle fill][integer digits, grouped][.fraction]
[e+XX][%][right fill]`; `%` formats `x * 100` (a float64 product, as Python's); `g` keeps
`precision` significant digits, fixed-point when the exponent is in [-4, precision), and
drops trailing zeros (not under `#`); `inf`, `nan` (`INF`, `NAN` under the capital types),
with `%` after them too; -0.0 and a negative value rounded to 0 keep their `-`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from .. import types as T
from ..ir import Block, Value
from .context import Translating
from .lists import fold, i32, loop, when
from .scalars import coerce
from .strings import Text, new, put

NL = 84  # 32-bit limbs: m * 5**1074 < 2**2547 (80 limbs)
NCH = 90  # base-10**9 chunks: at most 767 digits
KINDS = ("f", "F", "e", "E", "g", "G", "%")


def _while(tr: Translating, inits: list[Value], cond: Callable[[list[Value]], Value],
           body: Callable[[list[Value]], list[Value]]) -> list[Value]:  # fmt: skip
    """`while cond(vs): vs = body(vs)` of the formatting machinery; the values after it."""
    b = tr.b
    cblk, bblk = Block(), Block()
    cargs = [Value(v.type, "w") for v in inits]
    bargs = [Value(v.type, "w") for v in inits]
    cblk.args.extend(cargs)
    bblk.args.extend(bargs)
    with b.at(cblk):
        b.op("condition", [cond(cargs)])
    with b.at(bblk):
        b.op("yield", body(bargs))
    return list(b.op("while", inits, [v.type for v in inits], [cblk, bblk]).results)


class _Ops:
    """The builder's integer and select ops under short names, so that the digit code reads
    as the arithmetic it is (`add(e, c(29))`)."""

    def __init__(self, tr: Translating) -> None:
        self.tr, self.b = tr, tr.b

    def u(self, x: int) -> Value:
        return self.b.const(x, T.UINT64)

    def c(self, x: int) -> Value:
        return i32(self.tr, x)

    def sel(self, cond: Value, x: Value, y: Value) -> Value:
        return self.b.select(cond, x, y)

    def add(self, x: Value, y: Value) -> Value:
        return self.b.bin("add", x, y)

    def sub(self, x: Value, y: Value) -> Value:
        return self.b.bin("sub", x, y)

    def lt(self, x: Value, y: Value) -> Value:
        return self.b.cmp("lt", x, y)

    def eq(self, x: Value, y: Value) -> Value:
        return self.b.cmp("eq", x, y)

    def both(self, x: Value, y: Value) -> Value:
        return self.b.bin("and", x, y)

    def either(self, x: Value, y: Value) -> Value:
        return self.b.bin("or", x, y)


def _binary(tr: Translating, a: Value) -> tuple[Value, Value]:
    """(m, e) of a float64 `a` >= 0: a = m * 2**e exactly, m (uint64) in [2**52, 2**53), or a
    subnormal's (e = -1074, m below 2**52); 0 is (0, 0)."""
    b = tr.b
    u64, f64 = T.UINT64, T.FLOAT64

    ops = _Ops(tr)
    c, sel, add, sub, lt, both = ops.c, ops.sel, ops.add, ops.sub, ops.lt, ops.both

    zero = c(0)
    # |x| = m * 2**e exactly, m an integer below 2**53 (a subnormal: e = -1074): scaled by
    # powers of 2 (exact), down while above 2**53, then up while below 2**52
    y, e = a, zero
    for q in (512, 256, 128, 64, 32, 16, 8, 4, 2, 1):
        big = b.cmp("ge", y, b.const(2.0 ** (52 + q), f64))
        y = sel(big, b.bin("mul", y, b.const(2.0**-q, f64)), y)
        e = sel(big, add(e, c(q)), e)
    for q in (512, 512, 256, 128, 64, 32, 16, 8, 4, 2, 1):
        small = both(lt(y, b.const(2.0 ** (53 - q), f64)), b.cmp("ge", sub(e, c(q)), c(-1074)))
        small = both(small, b.cmp("gt", y, b.const(0.0, f64)))
        y = sel(small, b.bin("mul", y, b.const(2.0**q, f64)), y)
        e = sel(small, sub(e, c(q)), e)
    m = b.cast(y, u64)
    return m, e


# the shortest digits: (significand bits, least exponent, limbs of one big number, most digits)
FORMATS = {"64": (53, -1074, 64, 17), "32": (24, -149, 16, 9)}


def _shortest(tr: Translating, a: Value, single: bool) -> tuple[Value, Value, Value]:
    """The shortest decimal digits that read back as `a` (a float64 > 0, finite; `single`:
    a float32 widened, read back as a float32), the nearest to `a` of those (ties: the even
    digit), as (a local int32 array of the digits, the first most significant; their
    count; the exponent of the first).

    Free-format digit generation (Steele & White's, in the form Burger & Dybvig give it):
    with a = f * 2**e, the numbers r / s = a / 10**k and m+ / s, m- / s, the distances to
    the midpoints between `a` and its neighbours (m- is half m+ where f is a power of 2,
    the gap below being half the gap above), are big integers (32-bit limbs in a local
    array). Each step multiplies r, m+ and m- by 10 and takes the digit r // s (by
    subtracting 8s, 4s, 2s and s where they fit); it stops once the digits so far lie
    inside the interval (r < m-, the rest rounding down) or the next one up does
    (r + m+ > s), both ends counting where f is even (a tie reads back as the even
    significand). No float arithmetic decides a digit."""
    b = tr.b
    u64, i32t = T.UINT64, T.INT32
    bits, emin, nl, most = FORMATS["32" if single else "64"]

    ops = _Ops(tr)
    u, c, sel, add, sub = ops.u, ops.c, ops.sel, ops.add, ops.sub
    both, either = ops.both, ops.either

    zero, one = c(0), c(1)
    mask = u(0xFFFFFFFF)
    f, e = _binary(tr, a)
    if single:  # the float32's own significand (24 bits) and exponent: the same value
        e32 = b.bin("max", add(e, c(29)), c(emin))
        f = b.bin("shr", f, b.cast(sub(e32, e), u64))
        e = e32
    low_ok = b.cmp("eq", b.bin("and", f, u(1)), u(0))  # f even: the midpoints read back
    unequal = both(b.cmp("eq", f, u(2 ** (bits - 1))), b.cmp("gt", e, c(emin)))
    # a < 2**(x + 1), x = e + bit length of f - 1; k >= 10's exponent of a, at most 1 short
    t, bl = f, one
    for q in (32, 16, 8, 4, 2, 1):
        hi = b.cmp("ne", b.bin("shr", t, u(q)), u(0))
        t = sel(hi, b.bin("shr", t, u(q)), t)
        bl = add(bl, sel(hi, c(q), zero))
    x = sub(add(e, bl), one)
    k = add(b.bin("floordiv", b.bin("mul", x, c(78913)), c(1 << 18)), one)

    mem = b.op("alloc", [], [T.ArrayType(u64, 1, "local", (6 * nl,))]).result
    digs = b.op("alloc", [], [T.ArrayType(i32t, 1, "local", (most + 1,))]).result
    R0, R1, S, MP, MM, TT = (c(j * nl) for j in range(6))

    def ld(i: Value) -> Value:
        return b.op("load", [mem, i], [u64]).result

    def st(i: Value, val: Value) -> None:
        b.op("store", [mem, i, val])

    # r = 4f 2**max(e, 0), s = 4 2**max(-e, 0), m+ = 2 2**max(e, 0), m- = m+ or half of it;
    # then times 10**-k (r, m+, m-) or 10**k (s): the powers of 2 first, as shifts
    kneg, kpos = b.bin("max", b.un("neg", k), zero), b.bin("max", k, zero)
    sh_r = add(b.bin("max", e, zero), kneg)
    sh_s = add(b.bin("max", b.un("neg", e), zero), kpos)
    grow = b.bin("floordiv", add(b.bin("mul", b.un("abs", k), c(75)), c(1023)), c(1024))
    n = add(add(b.bin("max", b.bin("floordiv", sh_r, c(32)), b.bin("floordiv", sh_s, c(32))),
                c(5)), grow)  # fmt: skip
    n = b.bin("min", n, c(nl))  # (never reached: the limbs each number may take)

    def clear(j: Value) -> None:
        for base in (R0, S, MP, MM):
            st(add(base, j), u(0))

    loop(tr, zero, n, clear)

    def place(base: Value, val: Value, sh: Value) -> None:
        """number = val (below 2**56) * 2**sh."""
        q = add(base, b.bin("floordiv", sh, c(32)))
        rr = b.cast(b.bin("mod", sh, c(32)), u64)
        w0 = b.bin("shl", b.bin("and", val, mask), rr)
        w1 = b.bin("shl", b.bin("shr", val, u(32)), rr)
        c1 = add(b.bin("shr", w0, u(32)), b.bin("and", w1, mask))
        st(q, b.bin("and", w0, mask))
        st(add(q, one), b.bin("and", c1, mask))
        st(add(q, c(2)), add(b.bin("shr", w1, u(32)), b.bin("shr", c1, u(32))))

    place(R0, b.bin("mul", f, u(4)), sh_r)
    place(S, u(4), sh_s)
    place(MP, u(2), sh_r)
    place(MM, sel(unequal, u(1), u(2)), sh_r)

    def times(bases: list[Value], factors: list[Value]) -> None:
        """Each number at `bases` *= its factor (below 2**32), in one pass over the limbs."""

        def step(i: Value, acc: list[Value]) -> list[Value]:
            out = []
            for base, fac, carry in zip(bases, factors, acc):
                cur = add(b.bin("mul", ld(add(base, i)), fac), carry)
                st(add(base, i), b.bin("and", cur, mask))
                out.append(b.bin("shr", cur, u(32)))
            return out

        fold(tr, zero, n, [u(0)] * len(bases), step)

    # the powers of 5: r, m+, m- by 5**-k, or s by 5**k (13 at a time, then the rest)
    below = b.cmp("lt", k, zero)
    ak = b.un("abs", k)

    def fives(count: Value, big: Value) -> None:
        def one_step(j: Value) -> None:
            times([R0, MP, MM, S], [sel(below, big, u(1))] * 3 + [sel(below, u(1), big)])

        loop(tr, zero, count, one_step)

    fives(b.bin("floordiv", ak, c(13)), u(5**13))
    (part,) = fold(tr, zero, b.bin("mod", ak, c(13)), [u(1)],
                   lambda j, acc: [b.bin("mul", acc[0], u(5))])  # fmt: skip
    fives(one, part)

    def compare(pairs: list[tuple[Value, Value]]) -> list[Value]:
        """-1, 0 or 1 for each pair of numbers (bases) compared, in one pass from the top."""

        def step(j: Value, acc: list[Value]) -> list[Value]:
            i = sub(sub(n, one), j)
            out = []
            for (pa, pb), res in zip(pairs, acc):
                x, y = ld(add(pa, i)), ld(add(pb, i))
                here = sel(b.cmp("gt", x, y), one, sel(b.cmp("lt", x, y), c(-1), zero))
                out.append(sel(b.cmp("eq", res, zero), here, res))
            return out

        return fold(tr, zero, n, [zero] * len(pairs), step)

    def minus(out: Value, pa: Value, pb: Value, times_b: int = 1) -> Value:
        """number at `out` = (a - times_b * b) mod 2**(32n); whether it did not go below 0."""

        def step(i: Value, acc: list[Value]) -> list[Value]:
            borrow, carry = acc
            prod = add(b.bin("mul", ld(add(pb, i)), u(times_b)), carry) if times_b != 1 \
                else ld(add(pb, i))  # fmt: skip
            low = b.bin("and", prod, mask)
            d = sub(sub(add(ld(add(pa, i)), u(1 << 32)), low), borrow)
            st(add(out, i), b.bin("and", d, mask))
            return [sub(u(1), b.bin("shr", d, u(32))),
                    b.bin("shr", prod, u(32)) if times_b != 1 else u(0)]  # fmt: skip

        borrow, _ = fold(tr, zero, n, [u(0), u(0)], step)
        return b.cmp("eq", borrow, u(0))

    # k one short (a's upper midpoint reaches 10**k): s *= 10
    fits = minus(TT, S, R0)  # t = s - r
    (cmp_high,) = compare([(MP, TT)])
    reach = either(b.un("not", fits),
                   either(b.cmp("gt", cmp_high, zero), both(low_ok, b.cmp("eq", cmp_high, zero))))
    when(tr, reach, lambda: times([S], [u(10)]))
    k = sel(reach, add(k, one), k)

    def digit(w: list[Value]) -> list[Value]:
        ro, so, i, _ = w
        times([ro, MP, MM], [u(10)] * 3)
        d = zero
        for wt in (8, 4, 2, 1):
            ge = minus(so, ro, S, wt)
            ro, so = sel(ge, so, ro), sel(ge, ro, so)
            d = add(d, sel(ge, c(wt), zero))
        minus(TT, S, ro)  # t = s - r (r < s now)
        lo_c, hi_c, mid_c = compare([(ro, MM), (MP, TT), (ro, TT)])
        tc1 = either(b.cmp("lt", lo_c, zero), both(low_ok, b.cmp("eq", lo_c, zero)))
        tc2 = either(b.cmp("gt", hi_c, zero), both(low_ok, b.cmp("eq", hi_c, zero)))
        odd = b.cmp("eq", b.bin("and", d, one), one)
        nearer_up = either(b.cmp("gt", mid_c, zero), both(b.cmp("eq", mid_c, zero), odd))
        up = both(tc2, either(b.un("not", tc1), nearer_up))
        b.op("store", [digs, b.bin("min", i, c(most)), add(d, sel(up, one, zero))])
        i = add(i, one)
        done = either(either(tc1, tc2), b.cmp("ge", i, c(most)))
        return [ro, so, i, done]

    _, _, nd, _ = _while(tr, [R0, R1, zero, b.const(False, T.BOOL)],
                         lambda w: b.un("not", w[3]), digit)  # fmt: skip
    return digs, nd, sub(k, one)


def number(tr: Translating, v: Value, sp: Any, prec: Value, width: Value,
           node: ast.AST, shortest: str = "") -> Text:  # fmt: skip
    """`v` (a float) under spec `sp` (a `str_format.Spec`, which imports this module, whose
    kind is one of `KINDS` or none), with its precision and width as int32 values (known or
    run-time). `shortest` ("64" or "32"; no type and no precision): the shortest digits that
    read back as the float64 (Python's `repr`) or the float32 (numpy's `str`) it is; no type
    with a precision is `g` keeping a `.0` (Python's rule)."""
    b = tr.b
    u64, f64 = T.UINT64, T.FLOAT64
    kind = sp.kind.lower()
    dot0 = kind == "" and not shortest
    if dot0:
        kind = "g"
    upper = sp.kind.isupper()

    ops = _Ops(tr)
    u, c, sel, add, sub = ops.u, ops.c, ops.sel, ops.add, ops.sub
    lt, eq, both, either = ops.lt, ops.eq, ops.both, ops.either

    def math(fn: str, args: list[Value], t: T.Scalar) -> Value:
        return b.op("math", args, [t], fn=fn).result

    zero, one = c(0), c(1)
    prec = b.bin("max", prec, zero)
    x = b.cast(v, f64) if v.scalar != f64 else v
    if kind == "%":  # Python multiplies by 100 first, in float64 (1e308 is inf%)
        x = b.bin("mul", x, b.const(100.0, f64))
    finite = math("isfinite", [x], T.BOOL)
    nan = math("isnan", [x], T.BOOL)
    sign = math("copysign", [b.const(1.0, f64), x], f64)
    neg = both(b.un("not", nan), lt(sign, b.const(0.0, f64)))
    a = sel(finite, b.un("abs", x), b.const(0.0, f64))
    m0, e0 = _binary(tr, a)

    def exact() -> tuple[Callable[[Value], Value], Value, Value]:
        """X, `x` rounded at its precision: its digits (`xdigit(i)`, 0: its last),
        their count and the exponent of the first."""
        m, e = _while(
            tr, [m0, e0],
            lambda w: both(both(lt(w[1], zero), b.cmp("ne", w[0], u(0))),
                           eq(b.bin("and", w[0], u(1)), u(0))),
            lambda w: [b.bin("shr", w[0], u(1)), add(w[1], one)],
        )  # fmt: skip
        e = sel(eq(m, u(0)), zero, e)
        k = b.bin("max", b.un("neg", e), zero)  # the value is D * 10**-k

        limbs = b.op("alloc", [], [T.ArrayType(u64, 1, "local", (NL,))]).result
        chunks = b.op("alloc", [], [T.ArrayType(u64, 1, "local", (NCH,))]).result

        def ld(arr: Value, i: Value) -> Value:
            return b.op("load", [arr, i], [u64]).result

        def st(arr: Value, i: Value, val: Value) -> None:
            b.op("store", [arr, i, val])

        mask = u(0xFFFFFFFF)
        st(limbs, zero, b.bin("and", m, mask))
        st(limbs, one, b.bin("shr", m, u(32)))
        n0 = sel(b.cmp("ne", b.bin("shr", m, u(32)), u(0)), c(2), sel(eq(m, u(0)), zero, one))

        def times(n: Value, factor: Value) -> Value:
            """limbs[:n] *= factor (below 2**32); the new count of limbs."""

            def step(i: Value, acc: list[Value]) -> list[Value]:
                cur = add(b.bin("mul", ld(limbs, i), factor), acc[0])
                st(limbs, i, b.bin("and", cur, mask))
                return [b.bin("shr", cur, u(32))]

            (carry,) = fold(tr, zero, n, [u(0)], step)
            more = b.cmp("ne", carry, u(0))
            when(tr, more, lambda: st(limbs, n, carry))
            return sel(more, add(n, one), n)

        def scale(n: Value, count: Value, big: int, big_exp: int, base: int) -> Value:
            """limbs *= base**count, `big` = base**big_exp at a time."""
            (n,) = fold(tr, zero, b.bin("floordiv", count, c(big_exp)), [n],
                        lambda i, acc: [times(acc[0], u(big))])  # fmt: skip
            rest = b.bin("mod", count, c(big_exp))
            (part,) = fold(tr, zero, rest, [u(1)], lambda i, acc: [b.bin("mul", acc[0], u(base))])
            return times(n, part)

        n = scale(n0, b.bin("max", e, zero), 2**31, 31, 2)
        n = scale(n, k, 5**13, 13, 5)

        # D in base 10**9 chunks, the lowest first (D = 0: one chunk, 0)
        billion = u(10**9)

        def chunk(w: list[Value]) -> list[Value]:
            nl, nc = w

            def div(j: Value, acc: list[Value]) -> list[Value]:
                i = sub(sub(nl, one), j)
                cur = b.bin("or", b.bin("shl", acc[0], u(32)), ld(limbs, i))
                st(limbs, i, b.bin("floordiv", cur, billion))
                return [b.bin("mod", cur, billion)]

            (rem,) = fold(tr, zero, nl, [u(0)], div)
            st(chunks, nc, rem)
            top = ld(limbs, b.bin("max", sub(nl, one), zero))
            nl = sel(both(b.cmp("gt", nl, zero), eq(top, u(0))), sub(nl, one), nl)
            return [nl, add(nc, one)]

        _, nc = _while(tr, [n, zero], lambda w: b.cmp("gt", w[0], zero), chunk)
        when(tr, eq(nc, zero), lambda: st(chunks, zero, u(0)))
        nc = b.bin("max", nc, one)

        def ndigits(x: Value) -> Value:
            out = one
            for p in range(1, 10):
                out = add(out, sel(b.cmp("ge", x, u(10**p)), one, zero))
            return out

        nd = add(b.bin("mul", sub(nc, one), c(9)), ndigits(ld(chunks, sub(nc, one))))

        def ddigit(i: Value) -> Value:
            """Digit `i` of D (0: its last), 0 past its first."""
            inside = both(b.cmp("ge", i, zero), lt(i, nd))
            j = sel(inside, i, zero)
            word = ld(chunks, b.bin("floordiv", j, c(9)))
            r = b.bin("mod", j, c(9))
            p10 = u(1)
            for q in range(1, 9):
                p10 = sel(eq(r, c(q)), u(10**q), p10)
            d = coerce(b, b.bin("mod", b.bin("floordiv", word, p10), u(10)), T.INT32)
            return sel(inside, d, zero)

        # where the digits kept end: X = round(D * 10**s), half to even
        if kind in ("e", "g"):
            p = add(prec, one) if kind == "e" else b.bin("max", prec, one)
            s = sub(p, nd)
        else:
            p = prec
            s = sub(prec, k)
        cut = b.bin("max", b.un("neg", s), zero)  # digits of D dropped
        below = sub(cut, one)  # the digit that decides the rounding

        def sticky_step(i: Value, acc: list[Value]) -> list[Value]:
            return [either(acc[0], b.cmp("ne", ddigit(i), zero))]

        (sticky,) = fold(tr, zero, b.bin("max", below, zero), [b.const(False, T.BOOL)], sticky_step)
        dec = ddigit(below)
        last_odd = eq(b.bin("mod", ddigit(cut), c(2)), one)
        up = both(b.cmp("gt", cut, zero),
                  either(b.cmp("gt", dec, c(5)),
                         both(eq(dec, c(5)), either(sticky, last_odd))))  # fmt: skip
        # the 9s the carry runs through, from the cut up
        (nines, _) = fold(tr, cut, b.bin("max", nd, cut), [zero, b.const(True, T.BOOL)],
                          lambda i, acc: [add(acc[0], sel(both(acc[1], eq(ddigit(i), c(9))), one,
                                                          zero)),
                                          both(acc[1], eq(ddigit(i), c(9)))])  # fmt: skip
        kept = sub(nd, cut)  # digits of D kept (<= 0: none)
        overflow = both(up, both(b.cmp("gt", kept, zero), eq(nines, kept)))  # 99.9 -> 100
        nx = add(b.bin("max", kept, one), sel(overflow, one, zero))
        zeros = b.bin("max", s, zero)  # zeros after D's digits (s >= 0)
        exp10 = sub(sub(nd, one), k)  # the exponent of D's first digit
        shift = zero  # one digit fewer (e, g: the carry made p + 1 digits)
        if kind in ("e", "g"):
            exp10 = add(exp10, sel(overflow, one, zero))
            shift = sel(overflow, one, zero)
            nx = sub(nx, shift)
        nx = add(nx, zeros)

        def xdigit(i: Value) -> Value:
            """Digit `i` of the rounded value X (0: its last), 0 past its first."""
            i = add(i, shift)
            j = add(sub(i, zeros), cut)  # the same place in D
            d = sel(lt(i, zeros), zero, ddigit(j))
            rel = sub(j, cut)
            d = sel(both(up, both(b.cmp("ge", rel, zero), lt(rel, nines))), zero, d)
            d = sel(both(up, eq(rel, nines)), add(d, one), d)
            return d
        return xdigit, nx, exp10

    # the layout: F0 fraction digits (before g drops zeros), the exponent written or not
    pg = b.bin("max", prec, one)  # g's significant digits
    if shortest:
        digs, nds, exp10 = _shortest(tr, sel(eq(a, b.const(0.0, f64)), b.const(1.0, f64), a),
                                     shortest == "32")  # fmt: skip
        zero_v = eq(a, b.const(0.0, f64))
        nds = sel(zero_v, one, nds)
        exp10 = sel(zero_v, zero, exp10)
        if shortest == "32":  # numpy's float32: fixed-point for 1e-4 <= |x| < 1e6
            fixed = either(zero_v, both(b.cmp("ge", a, b.const(1e-4, f64)),
                                        lt(a, b.const(1e6, f64))))  # fmt: skip
        else:  # Python's repr: fixed-point for 1e-4 <= |x| < 1e16, by its digits
            fixed = both(b.cmp("ge", exp10, c(-4)), lt(exp10, c(16)))
        sci = b.un("not", fixed)
        f0 = sel(fixed, b.bin("max", sub(sub(nds, one), exp10), one), sub(nds, one))
        at_one = sel(fixed, exp10, zero)  # the exponent of the digit written at 10**0

        def shortest_digit(i: Value) -> Value:
            """Digit `i` of the shortest digits as written (0: the last written)."""
            j = add(sub(at_one, i), f0)
            inside = both(b.cmp("ge", j, zero), lt(j, nds))
            d = b.op("load", [digs, sel(inside, j, zero)], [T.INT32]).result
            return sel(both(inside, b.un("not", zero_v)), d, zero)

        xdigit: Callable[[Value], Value] = shortest_digit
        int_n = sel(sci, one, b.bin("max", add(exp10, one), one))
        frac = f0
    else:
        xdigit, nx, exp10 = exact()
        if kind == "g":
            # no format type, a precision: g, but fixed-point only below 10**(p - 1)
            top = sub(pg, one) if dot0 else pg
            fixed = both(b.cmp("ge", exp10, c(-4)), lt(exp10, top))
            f0 = sel(fixed, sub(sub(pg, one), exp10), sub(pg, one))
            sci = b.un("not", fixed)
        elif kind == "e":
            f0, sci = prec, b.const(True, T.BOOL)
        else:
            f0, sci = prec, b.const(False, T.BOOL)
        int_n = sel(sci, one, b.bin("max", sub(nx, f0), one))
        frac = f0
    if kind == "g" and not sp.alt:  # trailing zeros dropped

        def trail(i: Value, acc: list[Value]) -> list[Value]:
            z = both(acc[1], eq(xdigit(i), zero))
            return [add(acc[0], sel(z, one, zero)), z]

        (tz, _) = fold(tr, zero, f0, [zero, b.const(True, T.BOOL)], trail)
        frac = sub(f0, tz)
        if dot0:  # an integer keeps '.0' (Python's repr rule)
            frac = sel(both(fixed, eq(frac, zero)), one, frac)
    point = b.cmp("gt", frac, zero)
    if sp.alt:
        point = b.const(True, T.BOOL)
    group = 0 if not sp.group else 3
    seps = b.bin("floordiv", sub(int_n, one), c(group)) if group else zero
    ae = b.un("abs", exp10)
    exp_digits = sel(b.cmp("ge", ae, c(100)), c(3), c(2))
    exp_n = sel(sci, add(c(2), exp_digits), zero)
    pct = c(1 if kind == "%" else 0)
    plus = {"+": ord("+"), " ": ord(" ")}.get(sp.sign, 0)
    sign_ch = sel(neg, c(ord("-")), c(plus))
    sign_n = sel(b.cmp("ne", sign_ch, zero), one, zero)
    digits_n = add(add(add(int_n, seps), add(sel(point, one, zero), frac)), exp_n)
    digits_n = sel(finite, digits_n, c(3))
    body = add(add(sign_n, digits_n), pct)
    align = sp.align or ("=" if sp.zero else ">")
    pad = b.bin("max", sub(width, body), zero)
    lpad = {"<": zero, ">": pad, "^": b.bin("floordiv", pad, c(2)), "=": zero}[align]
    mid = pad if align == "=" else zero
    total = add(body, pad)
    fill_ch = c(ord(sp.pad))
    words = ("NAN", "INF") if upper else ("nan", "inf")

    def run(at: Value, lo: Value, hi: Value, ch: Value) -> None:
        loop(tr, lo, hi, lambda q: put(tr, at, q, ch))

    def fill(at: Value) -> None:
        run(at, zero, lpad, fill_ch)
        when(tr, b.cmp("gt", sign_n, zero), lambda: put(tr, at, lpad, sign_ch))
        start = add(lpad, sign_n)
        run(at, start, add(start, mid), fill_ch)
        start = add(start, mid)

        def word() -> None:
            for q in range(3):
                ch = sel(nan, c(ord(words[0][q])), c(ord(words[1][q])))
                put(tr, at, add(start, c(q)), ch)

        def digits() -> None:
            def int_digit(jj: Value) -> None:
                d = add(xdigit(sub(add(f0, sub(int_n, one)), jj)), c(48))
                if not group:
                    put(tr, at, add(start, jj), d)
                    return
                left = sub(sub(int_n, one), jj)  # digits right of this one
                pos = add(start, add(jj, sub(seps, b.bin("floordiv", left, c(group)))))
                put(tr, at, pos, d)
                cut_here = both(b.cmp("gt", left, zero), eq(b.bin("mod", left, c(group)), zero))
                when(tr, cut_here, lambda: put(tr, at, add(pos, one), c(ord(sp.group))))

            loop(tr, zero, int_n, int_digit)
            here = add(start, add(int_n, seps))
            when(tr, point, lambda: put(tr, at, here, c(ord("."))))
            after = add(here, sel(point, one, zero))

            def frac_digit(jj: Value) -> None:
                put(tr, at, add(after, jj), add(xdigit(sub(sub(f0, one), jj)), c(48)))

            loop(tr, zero, frac, frac_digit)
            ex = add(after, frac)

            def exponent() -> None:
                put(tr, at, ex, c(ord("E" if upper else "e")))
                put(tr, at, add(ex, one), sel(lt(exp10, zero), c(ord("-")), c(ord("+"))))
                for q in range(3):
                    dq = b.bin("mod", b.bin("floordiv", ae, c(10 ** (2 - q))), c(10))
                    pos = add(add(ex, c(2)), sub(c(q), sub(c(3), exp_digits)))

                    def one_digit(dq: Value = dq, pos: Value = pos) -> None:
                        put(tr, at, pos, add(dq, c(48)))

                    when(tr, b.cmp("ge", c(q), sub(c(3), exp_digits)), one_digit)

            when(tr, sci, exponent)

        when(tr, b.un("not", finite), word)
        when(tr, finite, digits)
        end = add(start, digits_n)
        if kind == "%":
            put(tr, at, end, c(ord("%")))
        run(at, add(end, pct), total, fill_ch)

    return new(tr, total, "a formatted number", node, fill)
