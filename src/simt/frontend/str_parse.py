"""`int(s)` and `float(s)` of a string built at run time (a line read from a file, a slice of
one): Python's parse, per thread, in one pass over the characters.

`float(s)` follows Python's grammar the same way (a table of states, `FLOAT_MOVES`) and is
exact where a float64 product or quotient is, Clinger's fast path: the digits, at most 2**53,
times or divided by a power of ten up to 10**22 (further up while the digits times the extra
power stay below 2**53). Outside that range it is a NotImplementedError of the thread, never
a value rounded differently from Python's; docs/language.md says so.

Python's grammar for base 10: whitespace around the number (what Python's int() skips: ASCII's
space and `\\t\\n\\v\\f\\r`, and Unicode's spaces), one sign, decimal digits with single
underscores between them (`"1_000"`). Anything else raises `ValueError` in that thread with
Python's message (`invalid literal for int() with base 10: '12a'`; the text is quoted, not
escaped as `repr` would). One difference: only ASCII digits count (Python also takes other
scripts' decimal digits, `int("٣")` is 3; here that is the ValueError). `int(s, base)` is
refused at compile time.

The result has the type `int(x)` of a float has (int32; int64 under Numba's typing). Python's
ints do not overflow; a value past that type is an `OverflowError` of the thread, never a
wrapped number. The parse is a state machine written as a fold (`lists.fold`): the state, the
sign, the value so far (kept negative, so the type's minimum parses) and an overflow flag are
its carried values — no early exit, one load and a few selects per character.
"""

from __future__ import annotations

import ast

import numpy as np

from .. import types as T
from ..ir import Value
from .context import Translating
from .lists import fold, i32
from .raising import raise_builtin, set_state, site
from .scalars import coerce
from .strings import Text, char, length, materialise, offset
from .values import Known, V

# the states of the parse
LEAD, SIGN, DIGIT, UNDERSCORE, TRAIL, BAD = range(6)
# the whitespace int() skips around the number: ranges of code points (not all of str.isspace:
# Python's int("\x1f1") is a ValueError)
WHITESPACE = ((9, 13), (32, 32), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
              (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000))


def _in(tr: Translating, c: Value, ranges: tuple[tuple[int, int], ...]) -> Value:
    """Whether code point `c` lies in one of `ranges` (inclusive)."""
    b = tr.b
    out: Value | None = None
    for lo, hi in ranges:
        one = (b.cmp("eq", c, i32(tr, lo)) if lo == hi else
               b.bin("and", b.cmp("ge", c, i32(tr, lo)), b.cmp("le", c, i32(tr, hi))))
        out = one if out is None else b.bin("or", out, one)
    assert out is not None
    return out


def to_int(tr: Translating, s: Text, node: ast.AST) -> V:
    """`int(s)`: the thread's number, or a ValueError / OverflowError of the thread."""
    t = T.INT64 if tr.ctx.int64 else T.INT32
    if isinstance(s, str):  # known: Python parses it now; a bad one still raises per thread
        try:
            v = int(s)
        except ValueError as e:
            raise_builtin(tr, ValueError, None, str(e), node)
            return Known(0)
        if not np.iinfo(t.np).min <= v <= np.iinfo(t.np).max:
            raise_builtin(tr, OverflowError, None, _too_big(t), node)
            return Known(0)
        return Known(v)
    tr.at(node)
    b = tr.b
    lo = int(np.iinfo(t.np).min)
    q, r = -((-lo) // 10), (-lo) % 10  # lo == q * 10 - r: val * 10 - d < lo past these

    def const(x: int) -> Value:
        return b.const(x, t)

    def step(k: Value, acc: list[Value]) -> list[Value]:
        state, neg, val, over = acc
        c = char(tr, s, k)
        d = b.bin("sub", c, i32(tr, 48))
        digit = b.bin("and", b.cmp("ge", d, i32(tr, 0)), b.cmp("le", d, i32(tr, 9)))
        space = _in(tr, c, WHITESPACE)
        sign = _in(tr, c, ((43, 43), (45, 45)))
        under = b.cmp("eq", c, i32(tr, 95))

        def st(x: int) -> Value:
            return b.cmp("eq", state, i32(tr, x))

        def pick(pairs: list[tuple[Value, int]], default: int) -> Value:
            out = i32(tr, default)
            for cond, to in reversed(pairs):
                out = b.select(cond, i32(tr, to), out)
            return out

        # the next state from each state; a digit from LEAD, SIGN, DIGIT or UNDERSCORE counts
        from_lead = pick([(space, LEAD), (sign, SIGN), (digit, DIGIT)], BAD)
        from_sign = pick([(digit, DIGIT)], BAD)
        from_digit = pick([(digit, DIGIT), (under, UNDERSCORE), (space, TRAIL)], BAD)
        from_trail = pick([(space, TRAIL)], BAD)
        nxt = b.select(st(LEAD), from_lead, b.select(st(SIGN), from_sign, b.select(
            st(DIGIT), from_digit, b.select(st(UNDERSCORE), from_sign, b.select(
                st(TRAIL), from_trail, i32(tr, BAD))))))  # fmt: skip
        counts = b.bin("and", digit, b.cmp("eq", nxt, i32(tr, DIGIT)))
        dt = coerce(b, d, t)
        past = b.bin("or", b.cmp("lt", val, const(q)), b.bin(
            "and", b.cmp("eq", val, const(q)), b.cmp("gt", dt, const(r))))  # fmt: skip
        grown = b.bin("sub", b.bin("mul", val, const(10)), dt)
        keep = b.bin("or", b.un("not", counts), past)
        new_val = b.select(keep, val, grown)
        new_over = b.bin("or", over, b.bin("and", counts, past))
        new_neg = b.bin("or", neg, b.bin("and", st(LEAD), b.cmp("eq", c, i32(tr, 45))))
        return [nxt, new_neg, new_val, new_over]

    inits = [i32(tr, LEAD), b.const(False, T.BOOL), const(0), b.const(False, T.BOOL)]
    state, neg, val, over = fold(tr, i32(tr, 0), length(tr, s), inits, step)
    ok = b.bin("or", b.cmp("eq", state, i32(tr, DIGIT)), b.cmp("eq", state, i32(tr, TRAIL)))
    # positive and == the minimum: one past the type's maximum
    over = b.bin("or", over, b.bin("and", b.un("not", neg), b.cmp("eq", val, const(lo))))
    sid = site(tr, ValueError, ("invalid literal for int() with base 10: '", "'"), node,
               text=True)  # fmt: skip
    text = s if not isinstance(s, str) else materialise(tr, s, node)
    set_state(tr, sid, b.un("not", ok), (offset(text), length(tr, text)))
    raise_builtin(tr, OverflowError, b.bin("and", ok, over), _too_big(t), node)
    return b.select(neg, val, b.bin("sub", const(0), val))


def _too_big(t: T.Scalar) -> str:
    more = ("; a kernel under Numba's typing (@simt.cuda.jit) reads int64, or parse it with "
            "float()") if t == T.INT32 else "; parse it with float()"  # fmt: skip
    return (f"int() of the string: its value does not fit {t.name} (Python's ints do not "
            f"overflow; a kernel's int() is its int type){more}")  # fmt: skip


# ------------------------------------------------------------------------------- float(s)
# the states of float()'s parse: what the characters so far are; a run of digits may hold
# single underscores (`1_0.5`, `1e1_0`), a point may stand without digits on one side (`.5`,
# `5.`, not `.`)
(F_LEAD, F_SIGN, F_INT, F_INT_U, F_DOT0, F_FRACS, F_FRAC, F_FRAC_U, F_EXP, F_ESIGN, F_EXPD,
 F_EXP_U, F_TRAIL, F_BAD) = range(14)  # fmt: skip
# state -> ((character class, next state), ...); a class not listed leads to F_BAD
FLOAT_MOVES: dict[int, tuple[tuple[str, int], ...]] = {
    F_LEAD: (("space", F_LEAD), ("sign", F_SIGN), ("digit", F_INT), ("dot", F_DOT0)),
    F_SIGN: (("digit", F_INT), ("dot", F_DOT0)),
    F_INT: (("digit", F_INT), ("under", F_INT_U), ("dot", F_FRACS), ("e", F_EXP),
            ("space", F_TRAIL)),  # fmt: skip
    F_INT_U: (("digit", F_INT),),
    F_DOT0: (("digit", F_FRAC),),
    F_FRACS: (("digit", F_FRAC), ("e", F_EXP), ("space", F_TRAIL)),
    F_FRAC: (("digit", F_FRAC), ("under", F_FRAC_U), ("e", F_EXP), ("space", F_TRAIL)),
    F_FRAC_U: (("digit", F_FRAC),),
    F_EXP: (("sign", F_ESIGN), ("digit", F_EXPD)),
    F_ESIGN: (("digit", F_EXPD),),
    F_EXPD: (("digit", F_EXPD), ("under", F_EXP_U), ("space", F_TRAIL)),
    F_EXP_U: (("digit", F_EXPD),),
    F_TRAIL: (("space", F_TRAIL),),
}
FLOAT_ENDS = (F_INT, F_FRACS, F_FRAC, F_EXPD, F_TRAIL)
EXACT = 22  # 10**22 is the largest power of ten a float64 holds exactly (Clinger's fast path)
MANTISSA = 2.0**53


def to_float(tr: Translating, s: Text, node: ast.AST) -> V:
    """`float(s)`: Python's value (rounded to the kernel's float type as storing it in a
    float32 array would), or a ValueError of the thread; a number outside the exact range
    (more than 15-16 significant digits, or a power of ten past 10**22) is a
    NotImplementedError of the thread, never a value rounded differently from Python's."""
    ft = T.float_type(tr.ctx.fp64)
    if isinstance(s, str):
        try:
            return Known(float(s))
        except ValueError as err:
            raise_builtin(tr, ValueError, None, str(err), node)
            return Known(0.0)
    tr.at(node)
    b = tr.b
    f64 = T.FLOAT64

    def fc(x: float) -> Value:
        return b.const(x, f64)

    def step(k: Value, acc: list[Value]) -> list[Value]:
        state, neg, eneg, m, e, z, ex, inexact, first, last, lead = acc
        c = char(tr, s, k)
        d = b.bin("sub", c, i32(tr, 48))
        cls = {
            "digit": b.bin("and", b.cmp("ge", d, i32(tr, 0)), b.cmp("le", d, i32(tr, 9))),
            "space": _in(tr, c, WHITESPACE),
            "sign": _in(tr, c, ((43, 43), (45, 45))),
            "dot": b.cmp("eq", c, i32(tr, 46)),
            "under": b.cmp("eq", c, i32(tr, 95)),
            "e": _in(tr, c, ((69, 69), (101, 101))),
        }

        def st(x: int) -> Value:
            return b.cmp("eq", state, i32(tr, x))

        nxt = i32(tr, F_BAD)
        for frm, moves in FLOAT_MOVES.items():
            to = i32(tr, F_BAD)
            for name, target in reversed(moves):
                to = b.select(cls[name], i32(tr, target), to)
            nxt = b.select(st(frm), to, nxt)
        digit = cls["digit"]
        into = b.bin("or", b.cmp("eq", nxt, i32(tr, F_INT)), b.cmp("eq", nxt, i32(tr, F_FRAC)))
        mantissa_digit = b.bin("and", digit, into)
        in_frac = b.cmp("eq", nxt, i32(tr, F_FRAC))
        # value = m * 10**(e + z): a zero digit waits in z (trailing zeros move into the
        # exponent); another digit multiplies m by 10**(z + 1) first, exact while below 2**53
        zero = b.cmp("eq", d, i32(tr, 0))
        waits = b.bin("and", mantissa_digit, zero)
        grows = b.bin("and", mantissa_digit, b.un("not", zero))
        p = _power(tr, b.bin("min", b.bin("add", z, i32(tr, 1)), i32(tr, EXACT)))
        grown = b.bin("add", b.bin("mul", m, p), coerce(b, d, f64))
        fits = b.bin("and", b.cmp("lt", grown, fc(MANTISSA)), b.cmp("lt", z, i32(tr, EXACT)))
        new_inexact = b.bin("or", inexact, b.bin("and", grows, b.un("not", fits)))
        new_m = b.select(grows, grown, m)
        new_z = b.select(grows, i32(tr, 0), b.select(waits, b.bin("add", z, i32(tr, 1)), z))
        new_e = b.select(b.bin("and", mantissa_digit, in_frac), b.bin("sub", e, i32(tr, 1)), e)
        exp_digit = b.bin("and", digit, b.cmp("eq", nxt, i32(tr, F_EXPD)))
        ex_grown = b.bin("min", b.bin("add", b.bin("mul", ex, i32(tr, 10)), d), i32(tr, 100000))
        new_ex = b.select(exp_digit, ex_grown, ex)
        minus = b.cmp("eq", c, i32(tr, 45))
        new_neg = b.bin("or", neg, b.bin("and", st(F_LEAD), minus))
        new_eneg = b.bin("or", eneg, b.bin("and", st(F_EXP), minus))
        # where the text without surrounding whitespace starts and ends (for inf and nan)
        text = b.un("not", cls["space"])
        starts = b.bin("and", text, b.cmp("lt", first, i32(tr, 0)))
        new_first = b.select(starts, k, first)
        new_last = b.select(text, k, last)
        new_lead = b.select(starts, c, lead)  # the first character that is not whitespace
        return [nxt, new_neg, new_eneg, new_m, new_e, new_z, new_ex, new_inexact, new_first,
                new_last, new_lead]  # fmt: skip

    false = b.const(False, T.BOOL)
    inits = [i32(tr, F_LEAD), false, false, fc(0.0), i32(tr, 0), i32(tr, 0), i32(tr, 0), false,
             i32(tr, -1), i32(tr, -1), i32(tr, 0)]  # fmt: skip
    n = length(tr, s)
    state, neg, eneg, m, e, z, ex, inexact, first, last, lead = fold(
        tr, i32(tr, 0), n, inits, step)  # fmt: skip
    ok = b.cmp("eq", state, i32(tr, FLOAT_ENDS[0]))
    for x in FLOAT_ENDS[1:]:
        ok = b.bin("or", ok, b.cmp("eq", state, i32(tr, x)))
    e10 = b.bin("add", b.bin("add", e, z), b.select(eneg, b.bin("sub", i32(tr, 0), ex), ex))
    # past 10**22, Clinger's extension: m * 10**(e10 - 22) first, while that stays exact
    over = b.bin("max", b.bin("sub", e10, i32(tr, EXACT)), i32(tr, 0))
    m = b.bin("mul", m, _power(tr, b.bin("min", over, i32(tr, EXACT))))
    inexact = b.bin("or", inexact, b.bin("or", b.cmp("gt", over, i32(tr, EXACT)),
                                         b.cmp("ge", m, fc(MANTISSA))))  # fmt: skip
    e10 = b.bin("sub", e10, over)
    mag = b.select(b.cmp("lt", e10, i32(tr, 0)), b.bin("sub", i32(tr, 0), e10), e10)
    p = _power(tr, b.bin("min", mag, i32(tr, EXACT)))
    value = b.select(b.cmp("lt", e10, i32(tr, 0)), b.bin("div", m, p), b.bin("mul", m, p))
    value = b.select(b.cmp("eq", m, fc(0.0)), fc(0.0), value)
    value = b.select(neg, b.bin("sub", fc(-0.0), value), value)
    exact = b.bin("or", b.cmp("eq", m, fc(0.0)), b.bin(
        "and", b.un("not", inexact), b.cmp("le", mag, i32(tr, EXACT))))  # fmt: skip
    # "inf", "infinity", "nan" in any case, with one sign, inside the whitespace
    minus = b.cmp("eq", lead, i32(tr, 45))
    sign = b.bin("or", minus, b.cmp("eq", lead, i32(tr, 43)))
    word_at = b.bin("add", first, coerce(b, sign, T.INT32))
    word_n = b.bin("sub", b.bin("add", last, i32(tr, 1)), word_at)
    inf = b.bin("or", _word(tr, s, word_at, word_n, "inf"), _word(tr, s, word_at, word_n,
                                                                   "infinity"))  # fmt: skip
    nan = _word(tr, s, word_at, word_n, "nan")
    special = b.select(minus, fc(-np.inf), fc(np.inf))
    special = b.select(nan, fc(np.nan), special)
    value = b.select(b.bin("or", inf, nan), special, value)
    bad = b.un("not", b.bin("or", ok, b.bin("or", inf, nan)))
    sid = site(tr, ValueError, ("could not convert string to float: '", "'"), node, text=True)
    text = s if not isinstance(s, str) else materialise(tr, s, node)
    set_state(tr, sid, bad, (offset(text), length(tr, text)))
    raise_builtin(tr, NotImplementedError, b.bin("and", ok, b.un("not", exact)),
                  "float() of a string in a kernel parses numbers of at most 15 significant "
                  "digits with a power of ten within 1e-22..1e22 (where it is exact); this "
                  "one is outside: parse it on the host (np.loadtxt)", node)  # fmt: skip
    return coerce(b, value, ft)


def _power(tr: Translating, k: Value) -> Value:
    """10.0**k for 0 <= k <= EXACT, exact in float64 (a select chain over the constants)."""
    b = tr.b
    out = b.const(1.0, T.FLOAT64)
    for j in range(1, EXACT + 1):
        out = b.select(b.cmp("eq", k, i32(tr, j)), b.const(10.0**j, T.FLOAT64), out)
    return out


def _word(tr: Translating, s: Text, at: Value, n: Value, word: str) -> Value:
    """Whether the `n` characters of `s` from `at` are `word`, in any case (ASCII)."""
    b = tr.b
    same_n = b.cmp("eq", n, i32(tr, len(word)))

    def test(k: Value, acc: list[Value]) -> list[Value]:
        c = char(tr, s, b.bin("add", at, k))
        lower = b.select(b.bin("and", b.cmp("ge", c, i32(tr, 65)), b.cmp("le", c, i32(tr, 90))),
                         b.bin("add", c, i32(tr, 32)), c)  # fmt: skip
        expected = i32(tr, 0)
        for j, ch in enumerate(word):
            expected = b.select(b.cmp("eq", k, i32(tr, j)), i32(tr, ord(ch)), expected)
        return [b.bin("and", acc[0], b.cmp("eq", lower, expected))]

    (out,) = fold(tr, i32(tr, 0), b.select(same_n, n, i32(tr, 0)), [same_n], test)
    return out
