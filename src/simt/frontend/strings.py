"""Strings built at run time, one per thread, in the per-thread arena (`arena.py`).

A run-time string is an `Obj` of class `RStr` with two int32 fields: `off`, where its
characters start in the thread's int32 region, and `n`, how many there are. Characters are
code points, one int32 word each, so `len`, indexing and comparison are Python's for any
text. Strings never change once made (as Python's): an operation that makes a string takes
new words from the region, except that `s + t` (and `s += t` in a loop) writes `t` straight
after `s` when `s`'s characters are the last words taken, so a string grown in a loop takes
one word per character, not a copy per step. A string that does not fit is a `MemoryError`
at the user's line (catchable), never a cut: the capacity is the heap's int32 words
(`@simt.kernel(heap=N)`: N / 4 words, shared with int lists and list headers).

Numbers enter a string through `str(v)` and f-strings (`f"x={v}"`; format specs, `str.format`
and `format()`: `str_format.py`): ints, bools and floats are written on the device exactly as
Python writes them (a float's shortest round-trip digits: `float_format.py`). `print(s)` and
`f.write(s)`
write the characters one print field each (`Field` with spec "c", formatted by the host).

Searching (`t in s`, `s.find(t)`) compares `t` at each position; a slice with step 1 is a
view (another start and length over the same words); `for ch in s` walks the characters
(frontend/iteration.py).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable

import numpy as np

from .. import types as T
from ..ir import Field, Value
from ..ir.ops import QUOTED
from . import tables
from .context import Translating
from .lists import RList, arena, bound, fold, i32, info_of, loop, raise_unless, slice_bounds, when
from .raising import (
    QUOTED_TEXT,
    RaisedText,
    RunTimeText,
    Split,
    caught_sites,
    message_parts,
    quoted_suffix,
    run_time_text,
    set_state,
    site,
    site_test,
)
from .scalars import coerce
from .values import Bound, Known, Obj, RStr, Tup, V
from .values import make_text as make

Text = Obj | str  # a run-time string, or a known one


def is_str(v: object) -> bool:
    return isinstance(v, Obj) and v.cls is RStr


def is_text(v: object) -> bool:
    """A run-time string or a known `str`."""
    return is_str(v) or (isinstance(v, Known) and isinstance(v.value, str))


def offset(s: Obj) -> Value:
    v = s.get("off")
    assert isinstance(v, Value)
    return v


def length(tr: Translating, s: Text) -> Value:
    if isinstance(s, str):
        return i32(tr, len(s))
    v = s.get("n")
    assert isinstance(v, Value)
    return v


def text_of(v: V) -> Text:
    """The string of a front-end value `is_text` holds."""
    if isinstance(v, Known):
        assert isinstance(v.value, str)
        return v.value
    assert isinstance(v, Obj)
    return v


def char(tr: Translating, s: Text, k: Value) -> Value:
    """The code point at position `k` (inside the string) of `s`."""
    if isinstance(s, str):  # a known string: a select chain over its characters
        out = i32(tr, 0)
        for j, c in enumerate(s):
            out = tr.b.select(tr.b.cmp("eq", k, i32(tr, j)), i32(tr, ord(c)), out)
        return out
    return arena(tr).load(tr.b, T.INT32, tr.b.bin("add", offset(s), k))


def put(tr: Translating, at: Value, k: Value, c: Value) -> None:
    arena(tr).store(tr.b, T.INT32, tr.b.bin("add", at, k), c)


# a known string this long is copied by a loop reading a constant table of its characters
# (one store in the code, not one a character); the tables, by string (kept: a table is
# known by its array's identity)
_TABLE_CHARS = 12
_CODES: dict[str, np.ndarray] = {}


def copy(tr: Translating, src: Text, at: Value, start: Value) -> None:
    """Write the characters of `src` at `at + start`..."""
    b = tr.b
    if isinstance(src, str) and _TABLE_CHARS <= len(src) <= tables.MAX_BYTES // 4:
        codes = _CODES.setdefault(src, np.array([ord(c) for c in src], np.int32))
        table = tables.table(tr, codes, ast.Pass(), "chars")  # (its size is fine: no error)
        loop(tr, i32(tr, 0), i32(tr, len(src)), lambda k: put(
            tr, at, b.bin("add", start, k),
            b.op("load", [table, k], [T.INT32], inbounds=True).result))  # fmt: skip
        return
    if isinstance(src, str):
        for j, c in enumerate(src):
            put(tr, at, b.bin("add", start, i32(tr, j)), i32(tr, ord(c)))
        return
    loop(tr, i32(tr, 0), length(tr, src),
         lambda k: put(tr, at, b.bin("add", start, k), char(tr, src, k)))  # fmt: skip


def _alloc(tr: Translating, n: Value, what: str, node: ast.AST | None) -> tuple[Value, Value]:
    """`n` words for a new string's characters: (where, ok); MemoryError where not ok."""
    ar = arena(tr)
    at, ok = ar.alloc(tr.b, T.INT32, n)
    raise_unless(tr, MemoryError, ok, ar.exhausted(T.INT32, what), node)
    return at, ok


def new(tr: Translating, n: Value, what: str, node: ast.AST | None,
         fill: Callable[[Value], None]) -> Obj:  # fmt: skip
    """A new string of `n` characters that `fill(at)` writes; the empty string where the
    heap is full (the thread raises MemoryError)."""
    at, ok = _alloc(tr, n, what, node)
    when(tr, ok, lambda: fill(at))
    return make(at, tr.b.select(ok, n, i32(tr, 0)))


# ------------------------------------------------------------------------------- making
def materialise(tr: Translating, s: str, node: ast.AST | None) -> Obj:
    """A known string as a run-time one (a variable a run-time loop reassigns, or an `if`
    gives different strings)."""
    if node is not None:
        tr.at(node)
    return new(tr, i32(tr, len(s)), "a string", node, lambda at: copy(tr, s, at, i32(tr, 0)))


def from_number(tr: Translating, v: V, node: ast.AST) -> Text:
    """`str(v)`: a known value's text now; an int or a bool's digits at run time."""
    if isinstance(v, Known):
        return str(v.value)
    if is_str(v):
        return v  # type: ignore[return-value]
    if not (isinstance(v, Value) and isinstance(v.type, T.Scalar)):
        kind = getattr(v.cls, "__simt_kind__", None) if isinstance(v, Obj) else None
        tr.fail(node, "str() in a kernel takes a number or a string" + (
            f", not {kind[0]} (it has {kind[1]})" if kind else ""))  # fmt: skip
    t = v.type
    if t.is_float:  # (str_format.str_of writes a float's shortest digits)
        tr.fail(node, "a float in an exception's message, as a string",
                "print the exception, or put str(x) in the message you raise")  # fmt: skip
    tr.at(node)
    if t.is_bool:
        return _booltext_of(tr, v, node)
    return _inttext_of(tr, v, node)


def _booltext_of(tr: Translating, v: Value, node: ast.AST) -> Obj:
    b = tr.b
    n = b.select(v, i32(tr, 4), i32(tr, 5))

    def fill(at: Value) -> None:
        for j in range(5):
            yes = ord("True"[j]) if j < 4 else 0
            put(tr, at, i32(tr, j), b.select(v, i32(tr, yes), i32(tr, ord("False"[j]))))

    return new(tr, i32(tr, 5), "str() of a bool", node, fill).with_field("n", n)


def _inttext_of(tr: Translating, v: Value, node: ast.AST) -> Obj:
    """The decimal digits of an int, with a '-' when negative, as Python writes it."""
    b = tr.b
    t = v.scalar
    wide = t.bits == 64
    ut = T.UINT64 if wide else T.UINT32
    st = T.INT64 if wide else T.INT32
    x = coerce(b, v, st) if t.is_signed else None
    u = b.cast(v, ut) if v.type != ut else v
    if x is not None:  # the magnitude, unsigned (the most negative value too)
        neg = b.cmp("lt", x, b.const(0, st))
        u = b.select(neg, b.bin("sub", b.const(0, ut), u), u)
        sign = b.select(neg, i32(tr, 1), i32(tr, 0))
    else:
        sign = i32(tr, 0)
    digits = i32(tr, 1)
    for k in range(1, 20 if wide else 10):
        more = b.cmp("ge", u, b.const(10**k, ut))
        digits = b.bin("add", digits, b.select(more, i32(tr, 1), i32(tr, 0)))
    n = b.bin("add", sign, digits)

    def fill(at: Value) -> None:
        when(tr, b.cmp("gt", sign, i32(tr, 0)), lambda: put(tr, at, i32(tr, 0), i32(tr, 45)))
        ten = b.const(10, ut)
        def digit(k: Value, acc: list[Value]) -> list[Value]:
            d = coerce(b, b.bin("mod", acc[0], ten), T.INT32)
            put(tr, at, b.bin("sub", b.bin("sub", n, i32(tr, 1)), k), b.bin("add", d, i32(tr, 48)))
            return [b.bin("floordiv", acc[0], ten)]

        fold(tr, i32(tr, 0), digits, [u], digit)

    return new(tr, n, "str() of an int", node, fill)


def concat(tr: Translating, a: Text, c: Text, node: ast.AST) -> Text:
    """`a + c`: written after `a` in place when `a`'s characters are the last words taken."""
    if isinstance(a, str) and isinstance(c, str):
        return a + c
    if a == "" or c == "":
        return c if a == "" else a
    tr.at(node)
    b, ar = tr.b, arena(tr)
    an = length(tr, a)
    if isinstance(a, str):
        in_place = b.const(False, T.BOOL)
    else:
        end = b.bin("add", offset(a), an)
        in_place = b.bin("and", b.cmp("eq", end, ar.top(b, T.INT32)), b.cmp("gt", an, i32(tr, 0)))
        if not isinstance(c, str):
            # `s += str(j)` in a loop: str(j)'s words were taken right after s's, so the two
            # read as one string: nothing to take or copy
            adjacent = b.bin("and", b.cmp("eq", end, offset(c)), b.cmp("gt", an, i32(tr, 0)))
            return _joined(tr, a, c, adjacent, in_place, node)
    return _joined(tr, a, c, b.const(False, T.BOOL), in_place, node)


def _joined(tr: Translating, a: Text, c: Text, adjacent: Value, in_place: Value,
            node: ast.AST) -> Text:  # fmt: skip
    """`a + c` where `adjacent` says c's words follow a's already, and `in_place` that c's
    characters may be written straight after a's (a's are the last words taken)."""
    b = tr.b
    an, cn = length(tr, a), length(tr, c)
    in_place = b.bin("and", in_place, b.un("not", adjacent))
    total = b.bin("add", an, cn)
    keep = b.bin("or", in_place, adjacent)  # a's words stay where they are
    need = b.select(adjacent, i32(tr, 0), b.select(in_place, cn, total))
    at, ok = _alloc(tr, need, "a string", node)
    start = b.select(keep, offset(a), at) if not isinstance(a, str) else at  # type: ignore[arg-type]

    def fill() -> None:
        when(tr, b.un("not", keep), lambda: copy(tr, a, start, i32(tr, 0)))
        when(tr, b.un("not", adjacent), lambda: copy(tr, c, start, an))

    when(tr, ok, fill)
    return make(start, b.select(ok, total, i32(tr, 0)))


def repeat(tr: Translating, s: Text, count: V, node: ast.AST) -> Text:
    """`s * n` (n <= 0: the empty string)."""
    if isinstance(count, Known) and isinstance(s, str):
        return s * int(count.value)
    if isinstance(count, Known) and (
        not isinstance(count.value, (int, np.integer)) or isinstance(count.value, bool)
    ):
        tr.fail(node, "a string can only be repeated an integer number of times")
    tr.at(node)
    b = tr.b
    times = b.bin("max", coerce(b, tr.scalar(count, node), T.INT32), i32(tr, 0))
    n1 = length(tr, s)

    def fill(at: Value) -> None:
        loop(tr, i32(tr, 0), times, lambda k: copy(tr, s, at, b.bin("mul", k, n1)))

    return new(tr, b.bin("mul", times, n1), "a repeated string", node, fill)


def join(tr: Translating, sep: Text, items: list[V], node: ast.AST) -> Text:
    """`sep.join((a, b, c))` of a tuple of strings."""
    out: Text = ""
    for k, item in enumerate(items):
        if not is_text(item):
            tr.fail(node, "str.join() takes strings (str(v) makes one of a number)")
        if k:
            out = concat(tr, out, sep, node)
        out = concat(tr, out, text_of(item), node)
    return out


def join_list(tr: Translating, sep: Text, lst: Obj, node: ast.AST) -> Obj:
    """`sep.join(xs)` of a list of strings (`lists.ListInfo.text`): sized first (the
    items' lengths and a separator between each two), then written in one new string."""
    from .lists import DATA, header, text_item
    from .lists import length as list_length

    b, ar = tr.b, arena(tr)
    tr.at(node)
    count, data = list_length(tr, lst), header(tr, lst, DATA)
    zero, one = i32(tr, 0), i32(tr, 1)
    m = length(tr, sep)

    def item(k: Value) -> Obj:
        return text_item(tr, ar.load(b, T.INT32, b.bin("add", data, k)))

    (chars,) = fold(tr, zero, count, [zero],
                    lambda k, acc: [b.bin("add", acc[0], length(tr, item(k)))])  # fmt: skip
    total = b.bin("add", chars, b.bin("mul", m, b.bin("max", b.bin("sub", count, one), zero)))

    def fill(at: Value) -> None:
        def one_item(k: Value, acc: list[Value]) -> list[Value]:
            pos = acc[0]
            gap = b.select(b.cmp("gt", k, zero), m, zero)
            when(tr, b.cmp("gt", k, zero), lambda: copy(tr, sep, at, pos))
            it = item(k)
            copy(tr, it, at, b.bin("add", pos, gap))
            return [b.bin("add", pos, b.bin("add", gap, length(tr, it)))]

        fold(tr, zero, count, [zero], one_item)

    return new(tr, total, "a joined string", node, fill)


# a piece of an f-string (`calls.fstring_parts`): literal text, a run-time string, a number
# or a run-time string (where it builds a run-time string) with its format spec
Part = str | Obj | tuple[Value | Obj, str]


# ------------------------------------------------------------------------------- exceptions
def raise_quoted(tr: Translating, cls: type, fails: Value, s: Obj, after: str,
                 node: ast.AST) -> None:  # fmt: skip
    """The thread raises `cls(repr(s) + after)` at `node` where `fails` holds (`s`'s
    characters are the payload; the repr is written where the message is read)."""
    sid = site(tr, cls, (*QUOTED_TEXT, after), node, None, text=True)
    set_state(tr, sid, fails, (offset(s), length(tr, s)))


def exception(tr: Translating, cls: type[BaseException], args: list[V], kwargs: dict[str, V],
              node: ast.AST) -> Obj:  # fmt: skip
    """`ValueError(s)` of a string built at run time: the exception object `raise` takes
    (`raising.RaisedText`); its message is the string's characters, reported per thread."""
    name = cls.__name__
    if kwargs or len(args) != 1 or not is_text(args[0]):
        tr.fail(node, f"{name}() of a string built at run time takes that one string in a kernel",
                f"build one message: raise {name}(f'...')")  # fmt: skip
    plain = all(  # only built-in classes say how it is made
        getattr(builtins, c.__name__, None) is c
        for c in cls.__mro__ if "__init__" in vars(c) or "__new__" in vars(c)
    )  # fmt: skip
    if not plain or cls.__str__ is not BaseException.__str__:
        tr.fail(
            node,
            f"{name} takes its message at compile time in a kernel: its class "
            + ("builds its own message (str(e) is not the string given)"
               if plain else "has its own __init__"),
            "raise an exception class without its own __init__, e.g. raise ValueError(s), "
            "or print the string and raise with values known at compile time",
        )  # fmt: skip
    s = text_of(args[0])
    if isinstance(s, str):
        s = materialise(tr, s, node)
    return Obj(RaisedText, (("cls", Known(cls)), ("off", offset(s)), ("n", length(tr, s))))


def of_payload(tr: Translating, text: RunTimeText) -> Obj:
    """The string of a caught exception's run-time message (`str(e)`): the same characters
    (strings never change)."""
    def word(v: V) -> Value:
        if isinstance(v, Known):
            return i32(tr, int(v.value))
        assert isinstance(v, Value)
        return coerce(tr.b, v, T.INT32)

    return make(word(text.off), word(text.n))


def message_text(tr: Translating, e: Obj, node: ast.AST) -> Text:
    """`str(e)` of a caught exception `e` as a string: its message, known when it is one
    known text, a run-time string when built at run time or holding run-time numbers."""
    text = run_time_text(tr, e)
    if text is not None:
        return of_payload(tr, text)
    try:
        parts = message_parts(tr, e)
    except Split:
        return _message_by_site(tr, e, node)
    site = tr.ctx.sites[caught_sites(e)[0] - 1]
    suffix = quoted_suffix(site.parts) if site.text else None
    if suffix is not None:  # a KeyError's message: the key's repr (then a list's words)
        for p in parts:
            if isinstance(p, RunTimeText):
                return concat(tr, repr_text(tr, of_payload(tr, p), node), suffix, node)
    out: Text = ""
    for p in parts:
        if isinstance(p, RunTimeText):
            out = concat(tr, out, of_payload(tr, p), node)
        else:
            out = concat(tr, out, p if isinstance(p, str) else from_number(tr, p[0], node), node)
    return out


def _message_by_site(tr: Translating, e: Obj, node: ast.AST) -> Text:
    """`str(e)` of an exception that may come from several places: each place's message is
    known when compiling (its text, and where its payload numbers go), so the thread makes the
    one of the place it raised at (an `if` on the site, as `raising.each_site`). Places of one
    message template share a branch (a bounds check's message is the same wherever the array
    is indexed), and the payload numbers' digits are written once, before the branches."""
    sites = caught_sites(e)
    exc = e.get("exc")
    templates: dict[tuple[bool, tuple[str | int, ...]], list[int]] = {}
    for sid in sites:
        s = tr.ctx.sites[sid - 1]
        templates.setdefault((s.text, s.parts), []).append(sid)
    if isinstance(exc, Known):  # raised at one known place
        templates = {k: v for k, v in templates.items() if int(exc.value) in v}
    words = sorted({p for (text, parts) in templates if not text for p in parts
                    if isinstance(p, int)})  # fmt: skip
    digits = {p: from_number(tr, e.get("a" if p == 0 else "b"), node) for p in words}
    name = f"$message{len(tr.ctx.site_log)}"

    def one(key: tuple[bool, tuple[str | int, ...]], sid: int) -> None:
        text, parts = key
        if text:  # a message built at run time: its characters (and a KeyError's quotes)
            narrowed = e.with_field("sites", Known((sid,))).with_field("exc", Known(sid))
            msg = message_text(tr, narrowed, node)  # type: ignore[arg-type]
        else:
            msg = ""
            for p in parts:
                msg = concat(tr, msg, p if isinstance(p, str) else digits[p], node)
        tr.env[name] = value_of(msg)

    keys = list(templates)

    def pick(k: int) -> None:
        key, ids = keys[k], templates[keys[k]]
        if k == len(keys) - 1:
            one(key, ids[0])
            return
        tr.branch(site_test(tr, exc, ids), lambda: one(key, ids[0]), lambda: pick(k + 1))

    pick(0)
    return text_of(tr.env.pop(name))


# ------------------------------------------------------------------------------- reading
def char_at(tr: Translating, s: Obj, key: V, node: ast.AST) -> Obj:
    """`s[i]`: the one-character string (the same words: strings never change)."""
    b = tr.b
    tr.at(node)
    n = length(tr, s)
    if isinstance(key, Known):
        if not isinstance(key.value, (int, np.integer)) or isinstance(key.value, bool):
            tr.fail(node, f"string indices must be integers, not {type(key.value).__name__}")
        i = i32(tr, int(key.value))
    else:
        if not (isinstance(key, Value) and isinstance(key.type, T.Scalar) and key.type.is_int):
            tr.fail(node, "string indices must be integers")
        i = coerce(b, key, T.INT32)
    i = b.select(b.cmp("lt", i, i32(tr, 0)), b.bin("add", i, n), i)
    ok = b.bin("and", b.cmp("ge", i, i32(tr, 0)), b.cmp("lt", i, n))
    raise_unless(tr, IndexError, ok, "string index out of range", node)
    at = b.bin("add", offset(s), b.select(ok, i, i32(tr, 0)))
    return make(at, b.select(ok, i32(tr, 1), i32(tr, 0)))


def same_at(tr: Translating, s: Text, t: Text, shift: Value, n: Value) -> Value:
    """Whether `t`'s `n` characters equal `s`'s from `shift` on."""
    def test(k: Value, acc: list[Value]) -> list[Value]:
        same = tr.b.cmp("eq", char(tr, s, tr.b.bin("add", shift, k)), char(tr, t, k))
        return [tr.b.bin("and", acc[0], same)]

    (out,) = fold(tr, i32(tr, 0), n, [tr.b.const(True, T.BOOL)], test)
    return out


def equal(tr: Translating, a: Text, c: Text, node: ast.AST) -> Value:
    """`a == c`: the same length and the same characters."""
    tr.at(node)
    b = tr.b
    an, cn = length(tr, a), length(tr, c)
    same_n = b.cmp("eq", an, cn)
    return b.bin("and", same_n, same_at(tr, a, c, i32(tr, 0), b.select(same_n, an, i32(tr, 0))))


def less(tr: Translating, a: Text, c: Text) -> Value:
    """`a < c` as Python orders strings: by code point at the first place they differ, else
    the shorter first (one pass over the shorter string's length, no early exit)."""
    b = tr.b
    an, cn = length(tr, a), length(tr, c)
    false = b.const(False, T.BOOL)

    def step(k: Value, acc: list[Value]) -> list[Value]:
        decided, below = acc
        x, y = char(tr, a, k), char(tr, c, k)
        first = b.bin("and", b.un("not", decided), b.cmp("ne", x, y))
        return [b.bin("or", decided, first), b.select(first, b.cmp("lt", x, y), below)]

    decided, below = fold(tr, i32(tr, 0), b.bin("min", an, cn), [false, false], step)
    return b.select(decided, below, b.cmp("lt", an, cn))


def min_max(tr: Translating, op: str, items: list[Text], node: ast.AST) -> Obj:
    """`min(a, b, ...)` / `max(a, b, ...)` of strings: the first no later one is strictly
    below (above), as Python picks; the same characters (strings never change)."""
    tr.at(node)
    b = tr.b
    best = [x if isinstance(x, Obj) else materialise(tr, x, node) for x in items]
    acc = best[0]
    for x in best[1:]:
        better = less(tr, x, acc) if op == "min" else less(tr, acc, x)
        acc = make(b.select(better, offset(x), offset(acc)),
                   b.select(better, length(tr, x), length(tr, acc)))  # fmt: skip
    return acc


def order(tr: Translating, op: str, a: Text, c: Text, node: ast.AST) -> Value:
    """`a < c`, `a <= c`, `a > c`, `a >= c` of strings (`op`: lt, le, gt, ge)."""
    tr.at(node)
    if op in ("gt", "le"):
        a, c = c, a
    lt = less(tr, a, c)
    return tr.b.un("not", lt) if op in ("le", "ge") else lt


def _affix(tr: Translating, s: Obj, args: list[V], node: ast.AST, end: bool) -> V:
    name = "endswith" if end else "startswith"
    if len(args) != 1 or not is_text(args[0]):
        tr.fail(node, f"str.{name}() takes one string in a kernel")
    p = text_of(args[0])
    tr.at(node)
    b = tr.b
    n, pn = length(tr, s), length(tr, p)
    fits = b.cmp("le", pn, n)
    shift = b.select(fits, b.bin("sub", n, pn), i32(tr, 0)) if end else i32(tr, 0)
    return b.bin("and", fits, same_at(tr, s, p, shift, b.select(fits, pn, i32(tr, 0))))


def _case(tr: Translating, s: Obj, args: list[V], node: ast.AST, upper: bool) -> V:
    if args:
        tr.fail(node, f"str.{'upper' if upper else 'lower'}() takes no arguments")
    tr.at(node)
    b = tr.b
    lo, hi = (ord("a"), ord("z")) if upper else (ord("A"), ord("Z"))
    shift = -32 if upper else 32

    def fill(at: Value) -> None:
        def one(k: Value) -> None:
            c = char(tr, s, k)
            inside = b.bin("and", b.cmp("ge", c, i32(tr, lo)), b.cmp("le", c, i32(tr, hi)))
            put(tr, at, k, b.select(inside, b.bin("add", c, i32(tr, shift)), c))

        loop(tr, i32(tr, 0), length(tr, s), one)

    return new(tr, length(tr, s), "a string", node, fill)


# ------------------------------------------------------------------------------- searching
def _find(tr: Translating, s: Text, t: Text, lo: Value, hi: Value | None = None) -> Value:
    """The first position >= `lo` where `t` starts in `s` and ends by `hi` (None: the end of
    `s`), or -1: `t` compared at each position, O(len(s) x len(t)) loads (meant for the short
    strings a thread keeps)."""
    b = tr.b
    n, m = length(tr, s), length(tr, t)

    def test(k: Value, acc: list[Value]) -> list[Value]:
        hit = b.bin("and", b.cmp("lt", acc[0], i32(tr, 0)), same_at(tr, s, t, k, m))
        return [b.select(hit, k, acc[0])]

    # the positions t can start at: lo .. hi - m (none when lo is past it)
    last = b.bin("add", b.bin("sub", n if hi is None else hi, m), i32(tr, 1))
    (out,) = fold(tr, lo, last, [i32(tr, -1)], test)
    return out


def _span(tr: Translating, s: Text, args: list[V], node: ast.AST) -> tuple[Value, Value]:
    """The `start` and `end` arguments of `find`, `rfind`, `index`, `count` (`args` after the
    string searched for) as Python reads them: a negative one counts from the end (0 at
    least), an `end` past the end is the end; a `start` past the end stays (nothing is found
    there, not even "")."""
    b = tr.b
    n, zero = length(tr, s), i32(tr, 0)

    def adjust(v: V) -> Value:
        x = coerce(b, tr.scalar(v, node), T.INT32)
        return b.select(b.cmp("lt", x, zero), b.bin("max", b.bin("add", x, n), zero), x)

    start = adjust(args[0]) if args else zero
    end = b.bin("min", adjust(args[1]), n) if len(args) > 1 else n
    return start, end


def contains(tr: Translating, sub: V, s: V, node: ast.AST) -> Value:
    """`sub in s` of strings: whether `s.find(sub)` finds it."""
    if not (is_text(sub) and is_text(s)):
        tr.fail(node, "'in <string>' requires a string as its left operand",
                "str(v) makes one of a number")  # fmt: skip
    tr.at(node)
    found = _find(tr, text_of(s), text_of(sub), i32(tr, 0))
    return tr.b.cmp("ge", found, i32(tr, 0))


def _find_method(tr: Translating, s: Obj, args: list[V], node: ast.AST) -> V:
    """`s.find(t)`, `s.find(t, start)`, `s.find(t, start, end)`: the first position of `t`
    in `s[start:end]` (counted in `s`), or -1 (`find("")` is the start, as Python's)."""
    if not 1 <= len(args) <= 3 or not is_text(args[0]):
        tr.fail(node, "str.find() takes a string and an optional start and end in a kernel",
                "give the string searched for first: s.find(t, start, end)")  # fmt: skip
    tr.at(node)
    if len(args) == 1:
        return _find(tr, s, text_of(args[0]), i32(tr, 0))
    start, end = _span(tr, s, args[1:], node)
    return _find(tr, s, text_of(args[0]), start, end)


def _count_method(tr: Translating, s: Obj, args: list[V], node: ast.AST) -> V:
    """`s.count(t)`, `s.count(t, start)`, `s.count(t, start, end)`: how many times `t` occurs
    in `s[start:end]`, left to right and not overlapping (`count("")` is one more than the
    characters there, as Python's)."""
    if not 1 <= len(args) <= 3 or not is_text(args[0]):
        tr.fail(node, "str.count() takes a string and an optional start and end in a kernel",
                "give the string counted first: s.count(t, start, end)")  # fmt: skip
    t = text_of(args[0])
    tr.at(node)
    b = tr.b
    start, end = _span(tr, s, args[1:], node)
    m = length(tr, t)
    one, zero = i32(tr, 1), i32(tr, 0)

    def step(k: Value, acc: list[Value]) -> list[Value]:
        fits = b.cmp("le", b.bin("add", k, m), end)
        hit = b.bin("and", b.bin("and", b.cmp("ge", k, acc[0]), fits),
                    same_at(tr, s, t, k, b.select(fits, m, zero)))  # fmt: skip
        return [b.select(hit, b.bin("add", k, m), acc[0]),
                b.bin("add", acc[1], b.select(hit, one, zero))]  # fmt: skip

    _, times = fold(tr, start, end, [zero, zero], step)
    empty = b.bin("max", b.bin("add", b.bin("sub", end, start), one), zero)
    return b.select(b.cmp("eq", m, zero), empty, times)


def _index_method(tr: Translating, s: Obj, args: list[V], node: ast.AST) -> V:
    """`s.index(t)`, `s.index(t, start[, end])`: `find`, raising ValueError ("substring not
    found") where it finds nothing."""
    if not 1 <= len(args) <= 3 or not is_text(args[0]):
        tr.fail(node, "str.index() takes a string and an optional start and end in a kernel",
                "give the string searched for first: s.index(t, start, end)")  # fmt: skip
    found = _find_method(tr, s, args, node)
    assert isinstance(found, Value)
    raise_unless(tr, ValueError, tr.b.cmp("ge", found, i32(tr, 0)), "substring not found", node)
    return tr.b.bin("max", found, i32(tr, 0))


def _rfind_method(tr: Translating, s: Obj, args: list[V], node: ast.AST) -> V:
    """`s.rfind(t)`, `s.rfind(t, start)`, `s.rfind(t, start, end)`: the last position where
    `t` starts in `s[start:end]` (counted in `s`), or -1 (`rfind("")` is the end)."""
    if not 1 <= len(args) <= 3 or not is_text(args[0]):
        tr.fail(node, "str.rfind() takes a string and an optional start and end in a kernel",
                "give the string searched for first: s.rfind(t, start, end)")  # fmt: skip
    t = text_of(args[0])
    tr.at(node)
    b = tr.b
    start, end = _span(tr, s, args[1:], node)
    m = length(tr, t)

    def test(k: Value, acc: list[Value]) -> list[Value]:
        return [b.select(same_at(tr, s, t, k, m), k, acc[0])]

    (out,) = fold(tr, start, b.bin("add", b.bin("sub", end, m), i32(tr, 1)), [i32(tr, -1)],
                  test)  # fmt: skip
    return out


def _title(tr: Translating, s: Obj, args: list[V], node: ast.AST) -> V:
    """`s.title()`: each letter after a letter in lower case, each other letter in upper case
    (ASCII letters, as `upper` and `lower`; a digit or an apostrophe starts a new word, as
    in Python: "1st" is "1St")."""
    if args:
        tr.fail(node, "str.title() takes no arguments")
    tr.at(node)
    b = tr.b

    def inside(c: Value, lo: str, hi: str) -> Value:
        return b.bin("and", b.cmp("ge", c, i32(tr, ord(lo))), b.cmp("le", c, i32(tr, ord(hi))))

    def fill(at: Value) -> None:
        def one(k: Value, acc: list[Value]) -> list[Value]:
            c = char(tr, s, k)
            low, up = inside(c, "a", "z"), inside(c, "A", "Z")
            c2 = b.select(b.bin("and", acc[0], up), b.bin("add", c, i32(tr, 32)), c)
            c2 = b.select(b.bin("and", b.un("not", acc[0]), low), b.bin("sub", c, i32(tr, 32)),
                          c2)  # fmt: skip
            put(tr, at, k, c2)
            return [b.bin("or", low, up)]

        fold(tr, i32(tr, 0), length(tr, s), [b.const(False, T.BOOL)], one)

    return new(tr, length(tr, s), "a string", node, fill)


def getslice(tr: Translating, s: Text, sl: ast.Slice, node: ast.AST) -> V:
    """`s[a:b:c]` as Python reads it (bounds clipped, negative ones from the end); step 1 is
    a view of the same characters (strings never change: nothing copied), another known step
    copies them. A known string cut at known bounds is cut now."""
    start, stop = bound(tr, sl.lower, "start"), bound(tr, sl.upper, "stop")
    step_v = bound(tr, sl.step, "step")
    if step_v is not None and not isinstance(step_v, Known):
        tr.fail(sl.step or node, "a string slice's step must be known at compile time",  # type: ignore[arg-type]
                "cut with step 1 and pick characters: s[a:b][k] in a loop")  # fmt: skip
    step = int(step_v.value) if isinstance(step_v, Known) else 1
    if step == 0:
        tr.fail(node, "slice step cannot be zero")
    if isinstance(s, str) and all(v is None or isinstance(v, Known) for v in (start, stop)):
        lo_k = None if start is None else int(start.value)  # type: ignore[union-attr]
        hi_k = None if stop is None else int(stop.value)  # type: ignore[union-attr]
        return Known(s[lo_k:hi_k:step])
    s = s if isinstance(s, Obj) else materialise(tr, s, node)
    tr.at(node)
    b = tr.b
    lo, count = slice_bounds(tr, length(tr, s), start, stop, step, node)
    if step == 1:
        return make(b.bin("add", offset(s), lo), count)

    def one(at: Value, k: Value) -> None:
        put(tr, at, k, char(tr, s, b.bin("add", lo, b.bin("mul", k, i32(tr, step)))))

    def fill(at: Value) -> None:
        loop(tr, i32(tr, 0), count, lambda k: one(at, k))

    return new(tr, count, "a string slice", node, fill)


METHODS: dict[str, Callable[[Translating, Obj, list[V], ast.AST], V]] = {
    "upper": lambda tr, s, a, n: _case(tr, s, a, n, True),
    "lower": lambda tr, s, a, n: _case(tr, s, a, n, False),
    "startswith": lambda tr, s, a, n: _affix(tr, s, a, n, False),
    "endswith": lambda tr, s, a, n: _affix(tr, s, a, n, True),
    "find": _find_method,
    "count": _count_method,
    "index": _index_method,
    "rfind": _rfind_method,
    "title": _title,
}


class Method:
    """A method of a run-time string (`s.upper`), or `sep.join` of a known separator."""

    def __init__(self, name: str) -> None:
        self.name = name

    def call(self, tr: Translating, s: V, args: list[V], kwargs: dict[str, V],
             node: ast.AST) -> V:  # fmt: skip
        if kwargs:
            tr.fail(node, f"str.{self.name}() takes no keyword arguments in a kernel")
        if self.name == "join":
            if len(args) != 1:
                tr.fail(node, "str.join() takes exactly one argument")
            (seq,) = args
            if isinstance(seq, Obj) and seq.cls is RList and info_of(seq).text:
                return join_list(tr, text_of(s), seq, node)
            if isinstance(seq, Tup):
                items = list(seq.items)
            elif isinstance(seq, Known) and isinstance(seq.value, (tuple, list)):
                items = [Known(x) for x in seq.value]
            else:
                tr.fail(node, "str.join() in a kernel joins a tuple or list display of strings, "
                        "or a list of strings", "','.join((a, b, c)), ','.join(s.split()), "
                        "or a list strings were appended to")  # fmt: skip
            return value_of(join(tr, text_of(s), items, node))
        assert isinstance(s, Obj)
        return METHODS[self.name](tr, s, args, node)


def attribute(tr: Translating, s: Obj, attr: str, node: ast.AST,
              more: tuple[str, ...] = ()) -> V:  # fmt: skip
    """`s.name` of a run-time string; `more`: the other methods it has (`str_ops`)."""
    if attr not in METHODS and attr != "join":
        names = ", ".join(sorted([*METHODS, *more, "join"]))
        tr.fail(node, f"strings built at run time have {names}, len(), indexing, slicing, "
                      f"iteration, in, + and *, ==, not .{attr}")  # fmt: skip
    return Bound(s, Method(attr))


def value_of(t: Text) -> V:
    """The front end's value of a string: `Known` for a known one."""
    return Known(t) if isinstance(t, str) else t


def print_chars(tr: Translating, s: Obj) -> None:
    """`print(s)`'s text of a run-time string: one print field per character."""
    def one(k: Value) -> None:
        tr.b.op("print", [char(tr, s, k)], parts=(Field(0, "c"),))

    loop(tr, i32(tr, 0), length(tr, s), one)


class RRepr:
    """A print part (`calls._print_ops`) that is the repr of a run-time string (`Obj(RRepr,
    (("s", s),))`): written by `print_repr`."""


def print_text_items(tr: Translating, lst: Obj) -> None:
    """`print(xs)`'s text of a list of strings (`lists.ListInfo.text`): each item as its
    repr, as Python writes a list (`['a', "b'c"]`)."""
    from .lists import DATA, header, length, text_item

    b, ar = tr.b, arena(tr)
    n, data = length(tr, lst), header(tr, lst, DATA)

    def item(k: Value) -> Obj:
        return text_item(tr, ar.load(b, T.INT32, b.bin("add", data, k)))

    def rest(k: Value) -> None:
        b.op("print", [], parts=(", ",))
        print_repr(tr, item(k))

    b.op("print", [], parts=("[",))
    when(tr, b.cmp("gt", n, i32(tr, 0)), lambda: print_repr(tr, item(i32(tr, 0))))
    loop(tr, i32(tr, 1), n, rest)
    b.op("print", [], parts=("]",))


def print_repr(tr: Translating, s: Text) -> None:
    """`repr(s)`'s text, as `print` writes a string inside a list, a dict or a set: in single
    quotes, or in double quotes where it holds a single quote and no double quote (Python's
    rule), each character escaped as repr escapes it (by the host: `ir.ops.QUOTED`)."""
    b = tr.b
    if isinstance(s, str):
        b.op("print", [], parts=(repr(s),))
        return

    def has(k: Value, acc: list[Value]) -> list[Value]:
        c = char(tr, s, k)
        return [b.bin("or", acc[0], b.cmp("eq", c, i32(tr, 39))),
                b.bin("or", acc[1], b.cmp("eq", c, i32(tr, 34)))]  # fmt: skip

    false = b.const(False, T.BOOL)
    single, double = fold(tr, i32(tr, 0), length(tr, s), [false, false], has)
    q = b.select(b.bin("and", single, b.un("not", double)), i32(tr, 34), i32(tr, 39))
    b.op("print", [q], parts=(Field(0, "c"),))

    def one(k: Value) -> None:
        c = char(tr, s, k)
        v = b.select(b.cmp("eq", c, q), b.bin("sub", i32(tr, 0), c), c)
        b.op("print", [v], parts=(Field(0, QUOTED),))

    loop(tr, i32(tr, 0), length(tr, s), one)
    b.op("print", [q], parts=(Field(0, "c"),))


# ------------------------------------------------------------------------------- repr
# code points repr() escapes beyond ASCII's controls, as (first, last): the C1 controls and
# U+00A0, the soft hyphen, the surrogates, and the line and paragraph separators (Python
# escapes every code point `str.isprintable` says no to; the others above U+00FF it does
# escape are left as they are here)
_UNPRINTABLE = ((0x80, 0xA0), (0xAD, 0xAD), (0xD800, 0xDFFF), (0x2028, 0x2029))


def repr_text(tr: Translating, s: Text, node: ast.AST, ascii_only: bool = False) -> Text:
    """`repr(s)` (`ascii(s)` where `ascii_only`) of a run-time string, as a new string: in
    single quotes, or double quotes where it holds a single quote and no double quote
    (Python's rule); a backslash, the quote, tab, newline and return escaped as `\\\\`,
    `\\'`, `\\t`, `\\n`, `\\r`, other controls and the code points of `_UNPRINTABLE` as
    `\\xhh` / `\\uhhhh` (under `ascii`: every non-ASCII one, `\\Uhhhhhhhh` above U+FFFF)."""
    if isinstance(s, str):
        return ascii(s) if ascii_only else repr(s)
    b = tr.b
    tr.at(node)
    n = length(tr, s)
    zero, one = i32(tr, 0), i32(tr, 1)

    def quotes(k: Value, acc: list[Value]) -> list[Value]:
        c = char(tr, s, k)
        return [b.bin("or", acc[0], b.cmp("eq", c, i32(tr, 39))),
                b.bin("or", acc[1], b.cmp("eq", c, i32(tr, 34)))]  # fmt: skip

    false = b.const(False, T.BOOL)
    single, double = fold(tr, zero, n, [false, false], quotes)
    q = b.select(b.bin("and", single, b.un("not", double)), i32(tr, 34), i32(tr, 39))

    def inside(c: Value, lo: int, hi: int) -> Value:
        return b.bin("and", b.cmp("ge", c, i32(tr, lo)), b.cmp("le", c, i32(tr, hi)))

    def width(c: Value) -> Value:
        """How many characters `c` takes in the repr."""
        short = b.bin("or", b.cmp("eq", c, i32(tr, 92)), b.cmp("eq", c, q))
        for e in (9, 10, 13):
            short = b.bin("or", short, b.cmp("eq", c, i32(tr, e)))
        w = b.select(b.bin("or", b.cmp("lt", c, i32(tr, 32)), b.cmp("eq", c, i32(tr, 127))),
                     i32(tr, 4), one)  # fmt: skip
        if ascii_only:
            w = b.select(b.cmp("gt", c, i32(tr, 127)), i32(tr, 4), w)
            w = b.select(b.cmp("gt", c, i32(tr, 0xFF)), i32(tr, 6), w)
            w = b.select(b.cmp("gt", c, i32(tr, 0xFFFF)), i32(tr, 10), w)
        else:
            for lo, hi in _UNPRINTABLE:
                w = b.select(inside(c, lo, hi), i32(tr, 4 if hi <= 0xFF else 6), w)
        return b.select(short, i32(tr, 2), w)

    def count(k: Value, acc: list[Value]) -> list[Value]:
        return [b.bin("add", acc[0], width(char(tr, s, k)))]

    (total,) = fold(tr, zero, n, [i32(tr, 2)], count)

    def fill(at: Value) -> None:
        put(tr, at, zero, q)

        def one_char(k: Value, acc: list[Value]) -> list[Value]:
            c = char(tr, s, k)
            w = width(c)
            letter = b.select(b.cmp("eq", w, i32(tr, 4)), i32(tr, ord("x")),
                              b.select(b.cmp("eq", w, i32(tr, 6)), i32(tr, ord("u")),
                                       i32(tr, ord("U"))))  # fmt: skip
            short = c
            for e, name in ((9, "t"), (10, "n"), (13, "r")):
                short = b.select(b.cmp("eq", c, i32(tr, e)), i32(tr, ord(name)), short)

            def write(j: Value) -> None:
                shift = b.bin("mul", b.bin("sub", b.bin("sub", w, one), j), i32(tr, 4))
                d = b.bin("and", b.bin("shr", c, shift), i32(tr, 15))
                hexd = b.bin("add", d, b.select(b.cmp("lt", d, i32(tr, 10)), i32(tr, 48),
                                                i32(tr, ord("a") - 10)))  # fmt: skip
                ch = b.select(b.cmp("eq", j, one), letter, hexd)
                ch = b.select(b.cmp("eq", w, i32(tr, 2)), short, ch)
                ch = b.select(b.cmp("eq", j, zero), i32(tr, 92), ch)
                ch = b.select(b.cmp("eq", w, one), c, ch)
                put(tr, at, b.bin("add", acc[0], j), ch)

            loop(tr, zero, w, write)
            return [b.bin("add", acc[0], w)]

        (end,) = fold(tr, zero, n, [one], one_char)
        put(tr, at, end, q)

    return new(tr, total, "a string's repr", node, fill)
