"""`int(s)` of a string built at run time (a line read from a file, a slice of one): Python's
parse, per thread, in one pass over the characters.

Python's grammar for base 10: whitespace around the number (what Python's int() skips: ASCII's
space and `\\t\\n\\v\\f\\r`, and Unicode's spaces), one sign, decimal digits with single
underscores between them (`"1_000"`). Anything else raises `ValueError` in that thread with
Python's message (`invalid literal for int() with base 10: '12a'`; the text is quoted, not
escaped as `repr` would). One difference: only ASCII digits count (Python also takes other
scripts' decimal digits, `int("٣")` is 3; here that is the ValueError). `int(s, base)` is
refused at compile time.

The result has the type `int(x)` of a float has (int32; int64 under Numba's typing). Python's
ints do not overflow; a value past that type is an `OverflowError` of the thread, never a
wrapped number. The parse is a state machine written as a fold (`list_ops.fold`): the state, the
sign, the value so far (kept negative, so the type's minimum parses) and an overflow flag are
its carried values — no early exit, one load and a few selects per character.
"""

from __future__ import annotations

import ast

import numpy as np

from .. import types as T
from ..ir import Value
from .context import Translating
from .list_ops import fold
from .lists import i32
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
    return (f"int() of the string: its value does not fit {t.name} (Python's ints do not "
            "overflow; a kernel's int() is its int type)")  # fmt: skip
