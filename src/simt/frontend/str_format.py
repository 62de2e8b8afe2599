"""Format specs in strings built at run time (the strings: `strings.py`): `f"{v:>8x}"`
assigned to a variable, `format(v, spec)` and `"{:+d}".format(v)`, written on the device
exactly as Python's `format` writes them.

A spec is known at compile time (`[[fill]align][sign][#][0][width][grouping][.precision]
[type]`) and checked first by Python's own `format` on a sample of the value's type, so a
spec Python refuses is refused with Python's words. What is written at run time:

- an int of any width, or a bool given a spec: types `d`, `b`, `o`, `x`, `X` (and none),
  fill and align `<`, `>`, `^`, `=`, sign `+`, `-`, space, `#` (`0b`, `0o`, `0x`, `0X`), `0`,
  width, and grouping `,` / `_` (every 3 digits, every 4 in `b`/`o`/`x`; with `0` padding
  the zeros are grouped too, as Python groups them);
- a string (one built at run time, or a number's text after `!s`, `!r`, `!a`): fill and
  align `<`, `>`, `^`, width, `.precision` (its first characters: a view, nothing copied),
  type `s`.

- a float32 (or float16) under `.Nf`, N <= 9, with fill, align, sign, `0`, width (`_fixed`:
  its exact binary value rounded half to even, as Python's); other floats under the float
  types or no type (`{x}`: the shortest round-trip digits) by `float_format`.

Refused with advice: a float under `n`, the `z` flag or grouping of zero padding (the host
writes them: `print` formats any spec), type `c` and `n` of an int, and a float type (`e`,
`f`, `g`, `%`) of an int.

An int's text is laid out as Python lays it out: `[left fill][sign][prefix][middle fill]
[digits with separators][right fill]`, the fill split by the alignment (`^`: the smaller
half on the left). Digits are counted by dividing by the base, then written right to left.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

from .. import types as T
from ..ir import Value
from ..ir.ops import spec_conversion
from . import float_format, raising
from .context import Translating
from .lists import fold, i32, loop, raise_unless, when
from .scalars import coerce
from .strings import (
    Part,
    RRepr,
    Text,
    concat,
    copy,
    from_number,
    is_str,
    length,
    make,
    materialise,
    message_text,
    new,
    offset,
    put,
    repr_text,
    value_of,
)
from .values import Known, Obj, V

_SPEC = re.compile(
    r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>#)?(?P<zero>0)?"
    r"(?P<width>\d+)?(?P<group>[,_])?(?:\.(?P<precision>\d+))?(?P<kind>[a-zA-Z%])?\Z",
    re.DOTALL,
)
_BASE = {"": 10, "d": 10, "b": 2, "o": 8, "x": 16, "X": 16}
_CONVERSIONS = (ord("s"), ord("r"), ord("a"))
MAX_FIXED = 9  # digits after the point a float32 under .Nf is written with on the device


@dataclass(frozen=True)
class Spec:
    """A format spec, parsed as Python's `format` reads it."""

    fill: str | None  # None: not given
    align: str | None
    sign: str
    alt: bool
    zero: bool
    width: int
    group: str
    precision: int | None
    kind: str

    @property
    def pad(self) -> str:
        """The fill character (a `0` flag without a fill given: '0')."""
        return self.fill if self.fill is not None else "0" if self.zero else " "


def parse(spec: str) -> Spec:
    """The parts of a spec Python's `format` accepted."""
    m = _SPEC.match(spec)
    assert m is not None, spec
    g = m.groupdict()
    return Spec(
        fill=g["fill"], align=g["align"], sign=g["sign"] or "-", alt=bool(g["alt"]),
        zero=bool(g["zero"]), width=int(g["width"] or 0), group=g["group"] or "",
        precision=None if g["precision"] is None else int(g["precision"]), kind=g["kind"] or "",
    )  # fmt: skip


def _checked(tr: Translating, sample: object, spec: str, what: str, node: ast.AST) -> Spec:
    """`spec` parsed, after Python's `format` accepted it for a `sample` of the value's type
    (a spec it refuses is refused here, at the user's line, with its words)."""
    try:
        format(sample, spec)
    except (ValueError, TypeError) as e:
        tr.fail(node, f"bad format spec {spec!r} for {what}: {e}")
    return parse(spec)


# ------------------------------------------------------------------------------- fields
def _message(tr: Translating, v: V, conversion: int, spec: str, node: ast.AST) -> V:
    """A caught exception (`except ... as e`) as `str.format` and `format()` read it: its
    message (`str(e)`) under `!s` or with no spec; other values as they are. A spec without
    `!s` is Python's TypeError (an exception's `__format__` takes none): refused here."""
    if raising.is_caught(v) and conversion == -1 and spec:
        tr.fail(node, f"format spec {spec!r} on an exception: Python raises TypeError "
                "(unsupported format string passed to its __format__)",
                f"convert it to its message first: '{{!s:{spec}}}'.format(e), or "
                f"format(str(e), {spec!r})")  # fmt: skip
    if raising.is_caught(v) and conversion in (-1, ord("s")):
        assert isinstance(v, Obj)
        return value_of(message_text(tr, v, node))
    return v


def field(tr: Translating, v: V, spec: str, conversion: int, node: ast.AST,
          built: bool) -> Part | None:  # fmt: skip
    """One `{v!conversion:spec}` of an f-string, `str.format` or `format()` (`conversion`: -1,
    or ord of s, r, a): a known value's text now; a run-time number with its spec (formatted
    by the host in a `print`, by `number` in a string built at run time); a run-time string,
    formatted now, or later by `from_parts` where `built`. None: not a number or a string."""
    if isinstance(v, Known):
        x = v.value
        if conversion == ord("r"):
            x = repr(x)
        elif conversion == ord("s"):
            x = str(x)
        elif conversion == ord("a"):
            x = ascii(x)
        try:
            return format(x, spec)
        except (ValueError, TypeError) as e:
            tr.fail(node, f"bad format spec {spec!r}: {e}")
    if isinstance(v, Value) and isinstance(v.type, T.Scalar):
        # a spec that cannot format this type is refused now, where it is written, not on
        # the host after the launch
        t = v.type
        sample: object = False if t.is_bool else 0.0 if t.is_float else 0
        if spec and conversion in _CONVERSIONS:  # the spec formats the number's text
            _checked(tr, str(sample), spec, f"the text of a {t.name} value", node)
            return (v, f"!{chr(conversion)}:{spec}")
        _checked(tr, sample, spec, f"a {t.name} value", node)
        return (v, spec)
    if is_str(v):
        assert isinstance(v, Obj)
        if conversion == ord("r") and not spec and not built:  # in a print: by the host
            return Obj(RRepr, (("s", v),))
        if conversion in (ord("r"), ord("a")):
            tr.at(node)
            shown = repr_text(tr, v, node, ascii_only=conversion == ord("a"))
            if isinstance(shown, str):
                return format(shown, spec)
            v = shown
        if not spec:
            return v
        if built:
            _checked(tr, "", spec, "a string", node)
            return (v, spec)
        return text(tr, v, spec, node)
    return None


# ------------------------------------------------------------------------------- numbers
def str_of(tr: Translating, v: V, node: ast.AST) -> Text:
    """`str(v)`: a float's shortest digits that read back (as `print` shows it), other
    values by `strings.from_number`."""
    if isinstance(v, Value) and isinstance(v.type, T.Scalar) and v.type.is_float:
        return floating(tr, v, None, "", None, None, node)
    return from_number(tr, v, node)


def number(tr: Translating, v: Value, spec: str, node: ast.AST) -> Text:
    """A run-time number's text under `spec`; a spec `!s:...` (from `{v!s:...}`) formats the
    number's text (`str(v)`) as a string."""
    t = v.type
    assert isinstance(t, T.Scalar)
    conversion, spec = spec_conversion(spec)
    if conversion:
        return text(tr, str_of(tr, v, node), spec, node)
    if t.is_float:
        sp = _checked(tr, 0.0, spec, f"a {t.name} value", node) if spec else None
        return floating(tr, v, sp, spec, None, None, node)
    if not spec or (spec == "d" and not t.is_bool):
        return str_of(tr, v, node)
    sp = _checked(tr, False if t.is_bool else 0, spec, f"a {t.name} value", node)
    if sp.kind not in _BASE:
        why = {
            "c": "a character of a code point",
            "n": "digits as the host's locale writes them",
        }.get(sp.kind, "the int written as a float")
        tr.fail(node, f"a format spec in a string built at run time: {spec!r} ({why})",
                "use d, b, o, x or X (with fill, align, sign, #, 0, width, grouping), or "
                "print it: print(f'...') formats any spec on the host")  # fmt: skip
    tr.at(node)
    return _int(tr, coerce(tr.b, v, T.INT32) if t.is_bool else v, sp, node)


def floating(tr: Translating, v: Value, sp: Spec | None, spec: str, width: Value | None,
             prec: Value | None, node: ast.AST) -> Text:  # fmt: skip
    """A run-time float under `sp` (None: no spec), its width and precision given at run
    time where not None (`f"{x:{w}.{p}f}"`): a float32 under .Nf by `_fixed`, the float types
    and no type by `float_format` (no spec: the shortest digits, of a float32 as numpy's
    `str` writes it, as `print` shows it; a spec without a type or a precision: those of the
    float64 value, as Python's `format` of a numpy float32 writes it); others refused with
    advice."""
    t = v.scalar
    why = ""
    if sp is not None and sp.kind not in float_format.KINDS and sp.kind:
        why = f"format type {sp.kind!r}"
    elif "z" in spec:
        why = "the 'z' flag"
    elif sp is not None and sp.group and sp.pad == "0" and (sp.align or "=") == "=":
        why = "grouping of zero padding"
    if why:
        tr.fail(
            node,
            f"a {t.name} in a string built at run time"
            f"{f' (format spec {spec!r})' if spec else ''}: {why} is written by the host "
            "(on the device: no type and the types f, F, e, E, g, G and % with fill, align, "
            "sign, #, 0, width, grouping and precision)",
            "use one of those: f'{x}', f'{x:.6g}', f'{x:.3f}', f'{x:e}'; or print it: "
            "print(s, x) and f.write(f'{x}') format any spec on the host",
        )
    tr.at(node)
    shortest = ""
    if sp is None:
        sp, shortest = parse(""), "32" if t == T.FLOAT32 else "64"
    elif not sp.kind and sp.precision is None and prec is None:
        shortest = "64"
    if width is None and prec is None and t.bits <= 32 and sp.kind in ("f", "F") and \
            sp.precision is not None and sp.precision <= MAX_FIXED and not \
            (sp.group or sp.alt):  # fmt: skip
        return _fixed(tr, v, sp, node)  # (float64 arithmetic only: cheaper)
    p = prec if prec is not None else i32(tr, 6 if sp.precision is None else sp.precision)
    w = width if width is not None else i32(tr, sp.width)
    return float_format.number(tr, v, sp, p, w, node, shortest)


def _magnitude(tr: Translating, v: Value) -> tuple[Value, Value, T.Scalar]:
    """(negative, |v| unsigned, that unsigned type) of an int, the most negative one too."""
    b = tr.b
    t = v.scalar
    ut = T.UINT64 if t.bits == 64 else T.UINT32
    u = b.cast(v, ut) if v.type != ut else v
    if not t.is_signed:
        return b.const(False, T.BOOL), u, ut
    x = coerce(b, v, T.INT64 if t.bits == 64 else T.INT32)
    neg = b.cmp("lt", x, b.const(0, x.scalar))
    return neg, b.select(neg, b.bin("sub", b.const(0, ut), u), u), ut


def _int(tr: Translating, v: Value, sp: Spec, node: ast.AST, width: Value | None = None) -> Text:
    b = tr.b
    w = width if width is not None else i32(tr, sp.width)
    base = _BASE[sp.kind]
    neg, u, ut = _magnitude(tr, v)
    big = b.const(base, ut)
    one, zero = i32(tr, 1), i32(tr, 0)
    most = _ndigits(2**ut.bits - 1, base)  # digits of the largest magnitude

    def count(k: Value, acc: list[Value]) -> list[Value]:  # acc[0]: u // base**(k - 1)
        more = b.select(b.cmp("ge", acc[0], big), one, zero)
        return [b.bin("floordiv", acc[0], big), b.bin("add", acc[1], more)]

    _, ndig = fold(tr, one, i32(tr, most), [u, one], count)
    plus = {"+": ord("+"), " ": ord(" ")}.get(sp.sign, 0)
    sign_ch = b.select(neg, i32(tr, ord("-")), i32(tr, plus))
    sign_n = b.select(b.cmp("ne", sign_ch, zero), one, zero)
    prefix = "0" + sp.kind if sp.alt and base != 10 else ""
    group = 0 if not sp.group else 3 if base == 10 else 4
    align = sp.align or ("=" if sp.zero else ">")
    head = b.bin("add", sign_n, i32(tr, len(prefix)))
    nd = ndig
    if group and sp.pad == "0" and align == "=":
        # zeros fill the width as digits, grouped too, never starting with a separator:
        # the fewest digits n with n + (n - 1) // group >= the width left
        left = b.bin("max", b.bin("sub", w, head), one)
        n0 = b.bin("sub", left, b.bin("floordiv", b.bin("sub", left, one), i32(tr, group + 1)))
        nd = b.bin("max", ndig, n0)
    seps = b.bin("floordiv", b.bin("sub", nd, one), i32(tr, group)) if group else zero
    body = b.bin("add", head, b.bin("add", nd, seps))
    pad = b.bin("max", b.bin("sub", w, body), zero) if sp.width or width is not None else zero
    lpad = {"<": zero, ">": pad, "^": b.bin("floordiv", pad, i32(tr, 2)), "=": zero}[align]
    mid = pad if align == "=" else zero
    total = b.bin("add", body, pad)
    alpha = ord("A" if sp.kind == "X" else "a")

    def digit(at: Value, end: Value, k: Value, acc: list[Value]) -> list[Value]:
        d = coerce(b, b.bin("mod", acc[0], big), T.INT32)
        ch = b.bin("add", d, i32(tr, 48))
        if base > 10:
            ch = b.select(b.cmp("lt", d, i32(tr, 10)), ch, b.bin("add", d, i32(tr, alpha - 10)))
        shift = b.bin("add", k, b.bin("floordiv", k, i32(tr, group))) if group else k
        pos = b.bin("sub", b.bin("sub", end, one), shift)
        put(tr, at, pos, ch)
        if group:  # a separator right of every group-th digit
            cut = b.bin("and", b.cmp("gt", k, zero),
                        b.cmp("eq", b.bin("mod", k, i32(tr, group)), zero))  # fmt: skip
            when(tr, cut, lambda: put(tr, at, b.bin("add", pos, one), i32(tr, ord(sp.group))))
        return [b.bin("floordiv", acc[0], big)]

    def fill(at: Value) -> None:
        _pad(tr, at, zero, lpad, sp.pad)
        when(tr, b.cmp("gt", sign_n, zero), lambda: put(tr, at, lpad, sign_ch))
        copy(tr, prefix, at, b.bin("add", lpad, sign_n))
        start = b.bin("add", lpad, head)
        _pad(tr, at, start, b.bin("add", start, mid), sp.pad)
        end = b.bin("add", b.bin("add", start, mid), b.bin("add", nd, seps))
        fold(tr, zero, nd, [u], lambda k, acc: digit(at, end, k, acc))
        _pad(tr, at, end, total, sp.pad)

    return new(tr, total, "a formatted number", node, fill)


def _fixed(tr: Translating, v: Value, sp: Spec, node: ast.AST) -> Text:
    """A float32 (or float16) under `.Nf` (N <= 9) as Python writes it: the exact binary value
    rounded half to even at N digits. Exact in float64: the value, its integer part (floor)
    and fraction are float64 numbers exactly, and the fraction (at most 24 significant bits)
    times 10**N (5**N below 2**21, times a power of 2) needs at most 45 bits, so the digits
    before and after the rounding point and the rest compared with 0.5 are exact. The
    integer part (below 2**128) is cut into 32-bit limbs (by powers of 2: exact) and divided
    by 10**9 five times (uint64), giving five groups of nine digits. nan, inf as Python's."""
    b = tr.b
    f64, u64 = T.FLOAT64, T.UINT64
    n = sp.precision
    assert n is not None

    def c(x: float) -> Value:
        return b.const(x, f64)

    def math(fn: str, *args: Value) -> Value:
        return b.op("math", list(args), [args[0].type], fn=fn).result

    def test(fn: str, x: Value) -> Value:
        return b.op("math", [x], [T.BOOL], fn=fn).result

    one, zero = i32(tr, 1), i32(tr, 0)
    y = b.cast(v, f64)
    # what the float32 is, from its bits (isinf, isfinite: a driver assuming no NaN keeps
    # them; its sign bit: -0.0 is written "-0.00", as Python does)
    f32 = b.cast(v, T.FLOAT32)
    special = b.un("not", test("isfinite", f32))
    nan = b.bin("and", special, b.un("not", test("isinf", f32)))
    sign = math("copysign", b.const(1.0, T.FLOAT32), f32)
    neg = b.bin("and", b.un("not", nan), b.cmp("lt", sign, b.const(0.0, T.FLOAT32)))
    a = b.un("abs", y)
    a = b.select(special, c(0.0), a)
    whole = math("floor", a)
    scaled = b.bin("mul", b.bin("sub", a, whole), c(10.0**n))  # exact (see above)
    q = math("floor", scaled)
    rest = b.bin("sub", scaled, q)
    qi = b.cast(q, u64)
    if n:  # the last digit kept: the last of q, or (.0f) of the integer part
        odd = b.cmp("eq", b.bin("and", qi, b.const(1, u64)), b.const(1, u64))
    else:
        half = math("floor", b.bin("mul", whole, c(0.5)))
        odd = b.cmp("ne", b.bin("sub", whole, b.bin("mul", half, c(2.0))), c(0.0))
    up = b.bin("or", b.cmp("gt", rest, c(0.5)), b.bin("and", b.cmp("eq", rest, c(0.5)), odd))
    qi = b.bin("add", qi, b.select(up, b.const(1, u64), b.const(0, u64)))
    carry = b.cmp("eq", qi, b.const(10**n, u64))  # .999 rounded up: one more unit
    qi = b.select(carry, b.const(0, u64), qi)
    whole = b.bin("add", whole, b.select(carry, c(1.0), c(0.0)))
    limbs: list[Value] = []  # 32 bits each, the highest first (each below 2**63 as a cast)
    for p in (96, 64, 32):
        limb = math("floor", b.bin("mul", whole, c(2.0**-p)))
        whole = b.bin("sub", whole, b.bin("mul", limb, c(2.0**p)))
        limbs.append(b.cast(limb, u64))
    limbs.append(b.cast(whole, u64))
    s32 = b.const(32, u64)
    billion = b.const(10**9, u64)
    groups: list[Value] = []  # nine digits each, the last nine first
    for _ in range(5):
        rem = b.const(0, u64)
        for j, limb in enumerate(limbs):
            cur = b.bin("or", b.bin("shl", rem, s32), limb)
            limbs[j], rem = b.bin("floordiv", cur, billion), b.bin("mod", cur, billion)
        groups.append(coerce(b, rem, T.INT32))
    nint = one  # digits of the integer part: those of its highest group that is not 0
    for j, g in enumerate(groups):
        nd = one
        for k in range(1, 9):
            nd = b.bin("add", nd, b.select(b.cmp("ge", g, i32(tr, 10**k)), one, zero))
        nint = b.select(b.cmp("ne", g, zero), b.bin("add", i32(tr, 9 * j), nd), nint)
    plus = {"+": ord("+"), " ": ord(" ")}.get(sp.sign, 0)
    sign_ch = b.select(neg, i32(tr, ord("-")), i32(tr, plus))
    sign_n = b.select(b.cmp("ne", sign_ch, zero), one, zero)
    digits = b.select(special, i32(tr, 3), b.bin("add", nint, i32(tr, n + 1 if n else 0)))
    body = b.bin("add", sign_n, digits)
    align = sp.align or ("=" if sp.zero else ">")
    pad = b.bin("max", b.bin("sub", i32(tr, sp.width), body), zero) if sp.width else zero
    lpad = {"<": zero, ">": pad, "^": b.bin("floordiv", pad, i32(tr, 2)), "=": zero}[align]
    mid = pad if align == "=" else zero
    total = b.bin("add", body, pad)
    words = ("NAN", "INF") if sp.kind == "F" else ("nan", "inf")
    ten = i32(tr, 10)

    def number(at: Value, start: Value) -> None:
        for j, g in enumerate(groups):
            def digit(k: Value, acc: list[Value], j: int = j) -> list[Value]:
                idx = b.bin("add", k, i32(tr, 9 * j))
                pos = b.bin("sub", b.bin("sub", b.bin("add", start, nint), one), idx)
                ch = b.bin("add", b.bin("mod", acc[0], ten), i32(tr, 48))
                when(tr, b.cmp("lt", idx, nint), lambda: put(tr, at, pos, ch))
                return [b.bin("floordiv", acc[0], ten)]

            fold(tr, zero, i32(tr, 9), [g], digit)
        if not n:
            return
        point = b.bin("add", start, nint)
        put(tr, at, point, i32(tr, ord(".")))

        def decimal(k: Value, acc: list[Value]) -> list[Value]:
            d = coerce(b, b.bin("mod", acc[0], b.const(10, u64)), T.INT32)
            pos = b.bin("sub", b.bin("add", point, i32(tr, n)), k)
            put(tr, at, pos, b.bin("add", d, i32(tr, 48)))
            return [b.bin("floordiv", acc[0], b.const(10, u64))]

        fold(tr, zero, i32(tr, n), [qi], decimal)

    def fill(at: Value) -> None:
        _pad(tr, at, zero, lpad, sp.pad)
        when(tr, b.cmp("gt", sign_n, zero), lambda: put(tr, at, lpad, sign_ch))
        start = b.bin("add", b.bin("add", lpad, sign_n), mid)
        _pad(tr, at, b.bin("add", lpad, sign_n), start, sp.pad)

        def word() -> None:
            for k in range(3):
                ch = b.select(nan, i32(tr, ord(words[0][k])), i32(tr, ord(words[1][k])))
                put(tr, at, b.bin("add", start, i32(tr, k)), ch)

        when(tr, special, word)
        when(tr, b.un("not", special), lambda: number(at, start))
        _pad(tr, at, b.bin("add", start, digits), total, sp.pad)

    return new(tr, total, "a formatted number", node, fill)


def _ndigits(x: int, base: int) -> int:
    """How many digits `x` has in `base`."""
    n = 1
    while x >= base:
        x, n = x // base, n + 1
    return n


def _pad(tr: Translating, at: Value, lo: Value, hi: Value, ch: str) -> None:
    """The fill character at `lo`..`hi` (nothing where hi <= lo)."""
    loop(tr, lo, hi, lambda k: put(tr, at, k, i32(tr, ord(ch))))


# ------------------------------------------------------------------------------- strings
def text(tr: Translating, s: Text, spec: str, node: ast.AST, width: Value | None = None,
         prec: Value | None = None) -> Text:  # fmt: skip
    """A string under a string spec: cut to its `.precision` first characters (a view), then
    filled to its width (either given at run time where not None)."""
    sp = _checked(tr, "", spec, "a string", node)
    if isinstance(s, str) and width is None and prec is None:
        return format(s, spec)
    if isinstance(s, str):
        s = materialise(tr, s, node)
    tr.at(node)
    b = tr.b
    n = length(tr, s)
    if prec is not None or sp.precision is not None:
        n = b.bin("min", n, prec if prec is not None else i32(tr, sp.precision or 0))
        s = make(offset(s), n)
    if not sp.width and width is None:
        return s
    zero = i32(tr, 0)
    w = width if width is not None else i32(tr, sp.width)
    pad = b.bin("max", b.bin("sub", w, n), zero)
    align = sp.align or "<"
    lpad = {"<": zero, ">": pad, "^": b.bin("floordiv", pad, i32(tr, 2))}[align]
    total = b.bin("add", n, pad)
    body: Text = s

    def fill(at: Value) -> None:
        _pad(tr, at, zero, lpad, sp.pad)
        copy(tr, body, at, lpad)
        _pad(tr, at, b.bin("add", lpad, n), total, sp.pad)

    return new(tr, total, "a formatted string", node, fill)


# ------------------------------------------------------------------------------- nested fields
_NESTED = re.compile(
    r"(?:(?P<fill>[^\x00])?(?P<align>[<>=^]))?(?P<sign>[-+ ])?(?P<z>z)?(?P<alt>#)?(?P<zero>0)?"
    r"(?P<width>\d+|\x00)?(?P<group>[,_])?(?:\.(?P<precision>\d+|\x00))?"
    r"(?P<kind>[a-zA-Z%])?\Z",
    re.DOTALL,
)


def nested(tr: Translating, v: V, pieces: list[Part], conversion: int, node: ast.AST) -> Text:
    """`{v:{w}.{p}f}`: a field whose spec holds fields of run-time ints, as the width and
    the precision (Python writes their text into the spec, then formats): `v` formatted now
    into a string built at run time. A negative width reads as Python reads `-5` there (the
    sign `-`, the default, and width 5) where the spec gives no sign, else the thread raises
    ValueError, as a negative precision does."""
    text_ = ""
    values: list[Value] = []
    for p in pieces:
        if isinstance(p, str):
            text_ += p
            continue
        x, inner = p if isinstance(p, tuple) else (p, "")
        if inner or not (isinstance(x, Value) and isinstance(x.type, T.Scalar)
                         and x.type.is_int and not x.type.is_bool):  # fmt: skip
            tr.fail(node, "a field inside a format spec takes a run-time int, as the width "
                    "or the precision (f'{x:{w}.{p}f}')", "write the rest of the spec "
                    "out, or choose between known specs with an if")  # fmt: skip
        text_ += "\x00"
        values.append(x)
    m = _NESTED.match(text_)
    taken = [g for g in ("width", "precision") if m is not None and m.group(g) == "\x00"]
    if m is None or len(taken) != len(values):
        tr.fail(node, f"a run-time field in the format spec {text_.replace(chr(0), '{...}')!r} "
                "stands for something other than the width or the precision",
                "a run-time int may be the width or the precision (f'{x:>{w}.{p}f}'); "
                "choose between known specs with an if for the rest")  # fmt: skip
    assert m is not None
    given = dict(zip(taken, values))
    spec = text_.replace("\x00", "1")  # a sample: what Python accepts, with these
    b = tr.b
    tr.at(node)
    zero = i32(tr, 0)
    width = prec = None
    if "precision" in given:
        prec = coerce(b, given["precision"], T.INT32)
        raise_unless(tr, ValueError, b.cmp("ge", prec, zero),
                     "Format specifier missing precision", node)  # fmt: skip
        prec = b.bin("max", prec, zero)
    if "width" in given:
        width = coerce(b, given["width"], T.INT32)
        if m.group("sign") or is_str(v) or conversion in _CONVERSIONS:
            raise_unless(tr, ValueError, b.cmp("ge", width, zero),
                         "Sign not allowed in string format specifier" if is_str(v) or
                         conversion in _CONVERSIONS else "Invalid format specifier",
                         node)  # fmt: skip
        width = b.un("abs", width)
    v = _message(tr, v, conversion, spec, node)
    if isinstance(v, Known):
        if conversion in _CONVERSIONS:
            convert: dict[int, Callable[[object], str]] = {
                ord("r"): repr, ord("s"): str, ord("a"): ascii,
            }  # fmt: skip
            v = Known(convert[conversion](v.value))
            conversion = -1
        if isinstance(v.value, str):
            return text(tr, v.value, spec, node, width, prec)
        v = coerce(b, v, T.literal_type(v.value, tr.ctx.fp64)) if isinstance(
            v.value, (int, float)) else v  # fmt: skip
    if isinstance(v, Value) and isinstance(v.type, T.Scalar) and conversion in _CONVERSIONS:
        v = value_of(str_of(tr, v, node))
        conversion = -1
    if is_str(v):
        assert isinstance(v, Obj)
        s: Text = v
        if conversion in (ord("r"), ord("a")):
            s = repr_text(tr, v, node, ascii_only=conversion == ord("a"))
        return text(tr, s, spec, node, width, prec)
    if not (isinstance(v, Value) and isinstance(v.type, T.Scalar)):
        tr.fail(node, "a format spec with run-time fields formats a number or a string")
    t = v.type
    if t.is_float:
        sp = _checked(tr, 0.0, spec, f"a {t.name} value", node)
        return floating(tr, v, sp, text_.replace("\x00", "{}"), width, prec, node)
    sp = _checked(tr, False if t.is_bool else 0, spec, f"a {t.name} value", node)
    if sp.kind not in _BASE:
        tr.fail(node, f"a format spec in a string built at run time: "
                f"{text_.replace(chr(0), '{}')!r}",
                "use d, b, o, x or X (with fill, align, sign, #, 0, width, grouping)")  # fmt: skip
    return _int(tr, coerce(b, v, T.INT32) if t.is_bool else v, sp, node, width)


# ------------------------------------------------------------------------------- building
def from_parts(tr: Translating, parts: list[Part], node: ast.AST) -> Text:
    """An f-string outside `print`, from its pieces (`calls.fstring_parts`): literal text,
    run-time strings and numbers with their spec. Each `{expr}` was translated once, there,
    so the string is sized and written from those values (an expression with an effect, a
    call of an atomic, runs once, as in Python)."""
    out: Text = ""
    for p in parts:
        if isinstance(p, tuple):  # formatted here: its words follow those of `out`
            v, spec = p
            piece = text(tr, v, spec, node) if isinstance(v, Obj) else number(tr, v, spec, node)
        else:
            piece = p
        out = concat(tr, out, piece, node)
    return out



# ------------------------------------------------------------------------------- format
def builtin(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    """`format(v, spec)`: a known value formatted now; a run-time number or string into a
    string built at run time, as `f"{v:spec}"`."""
    if kwargs or not 1 <= len(args) <= 2:
        tr.fail(node, "format() takes a value and an optional spec (no keywords)")
    spec = args[1] if len(args) == 2 else Known("")
    if not (isinstance(spec, Known) and isinstance(spec.value, str)):
        tr.fail(node, "format()'s spec must be a string known at compile time",
                "choose between known specs with an if, or build the text from pieces")  # fmt: skip
    part = field(tr, _message(tr, args[0], -1, spec.value, node), spec.value, -1, node, True)
    if part is None:
        tr.fail(node, "format() in a kernel formats numbers and strings")
    return value_of(from_parts(tr, [part], node))


class Method:
    """`template.format(...)` of a template known at compile time: its fields (`{}`,
    `{0}`, `{name}`, each with a conversion and a spec) read now, by Python's own parser;
    the arguments formatted as an f-string's, into a string built at run time."""

    name = "format"

    def call(self, tr: Translating, s: V, args: list[V], kwargs: dict[str, V],
             node: ast.AST) -> V:  # fmt: skip
        assert isinstance(s, Known) and isinstance(s.value, str)
        template = s.value
        if all(isinstance(a, Known) for a in [*args, *kwargs.values()]):
            try:
                return Known(template.format(*[a.value for a in args],  # type: ignore[union-attr]
                                             **{k: a.value for k, a in kwargs.items()}))  # type: ignore[union-attr]  # fmt: skip
            except (ValueError, TypeError, IndexError, KeyError, AttributeError) as e:
                tr.fail(node, f"str.format() at compile time raised {type(e).__name__}: {e}")
        try:
            pieces = list(string.Formatter().parse(template))
        except ValueError as e:
            tr.fail(node, f"str.format(): {e}")
        parts: list[Part] = []
        auto: bool | None = None  # `{}` fields (True) or `{0}` fields (False)
        k = 0
        for literal, name, spec, conv in pieces:
            if literal:
                parts.append(literal)
            if name is None:
                continue
            if "{" in (spec or ""):
                tr.fail(node, f"a nested field in the format spec {spec!r} of str.format() in a "
                        "kernel", "write the spec out, or use an f-string: f'{v:{w}}' with w "
                        "known at compile time")  # fmt: skip
            if name == "" or name.isdecimal():
                if auto is not None and auto != (name == ""):
                    how = ("automatic field numbering", "manual field specification")
                    a, b = how if auto else how[::-1]
                    tr.fail(node, f"str.format(): cannot switch from {a} to {b}")
                auto = name == ""
                key: int | str = k if auto else int(name)
                k += auto
            elif name.isidentifier() or not any(c in name for c in ".["):
                key = name  # (Python looks any other name up among the keywords too)
            else:
                tr.fail(node, f"str.format() field {{{name}}}: attribute and index fields "
                        "are not read in a kernel", "pass the value: '{}'.format(p.x)")  # fmt: skip
            if isinstance(key, int) and key >= len(args):
                tr.fail(node, f"str.format(): Replacement index {key} out of range for "
                        f"positional args tuple of {len(args)}")  # fmt: skip
            if isinstance(key, str) and key not in kwargs:
                tr.fail(node, f"str.format(): no keyword argument {key!r}")
            if conv not in (None, "s", "r", "a"):
                tr.fail(node, f"str.format(): Unknown conversion specifier {conv}")
            v = args[key] if isinstance(key, int) else kwargs[key]
            c = ord(conv) if conv else -1
            part = field(tr, _message(tr, v, c, spec or "", node), spec or "", c, node, True)
            if part is None:
                tr.fail(node, "str.format() in a kernel formats numbers and strings")
            parts.append(part)
        return value_of(from_parts(tr, parts, node))


def refuse_run_time_template(tr: Translating, node: ast.AST) -> None:
    """`t.format(...)` of a string `t` built at run time. Its fields (how many, which argument
    each takes, under which spec) decide the code compiled for each argument, and text built
    at run time may hold braces of its own (`{{`, `}}`, more fields), so the front end cannot
    know them: refused, with the three spellings that do work."""
    tr.fail(node, "str.format() of a string built at run time: its fields (which argument, "
            "which spec) decide the code compiled for each argument, so a kernel reads them "
            "from a template known when compiling", "write the template as a literal or an "
            "f-string ('{}: {:>5}'.format(k, v), f'{k}: {v:>5}'); for text built at run time "
            "around known fields, join the pieces: head + f'{v:>5}' + tail; for a template "
            "only known at run time, fill named placeholders with replace: "
            "tpl.replace('{name}', str(v))")  # fmt: skip


__all__ = ["Spec", "parse", "number", "text", "from_parts", "field", "builtin", "Method"]
