"""Strings rewritten at run time (the strings themselves: `strings.py`): `s.strip()`,
`s.lstrip()`, `s.rstrip()` (of whitespace as `str.isspace` has it, or of the characters
given) and `s.replace(old, new)`, plus the table (`METHODS`) that `s.name` looks up before
the building methods of `strings.METHODS`.

A strip is a view (another start and length over the same words: strings never change);
`replace` reads the string twice, once to size the result and once to write it, comparing
`old` at each position (O(len(s) x len(old)) loads).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

import numpy as np

from .. import types as T
from ..ir import Value
from . import lists, strings
from .context import Translating
from .lists import fold, i32, when
from .scalars import coerce
from .strings import (
    Text,
    char,
    copy,
    is_text,
    length,
    make,
    new,
    offset,
    put,
    same_at,
    text_of,
)
from .values import Bound, Known, Obj, V

# the code points `str.isspace` holds true for, as (first, last) ranges (the last is U+3000)
_SPACE = [c for c in range(0x3001) if chr(c).isspace()]
SPACE_RANGES = [
    (c, c2)
    for c, c2 in zip(
        [c for c in _SPACE if c - 1 not in _SPACE], [c for c in _SPACE if c + 1 not in _SPACE]
    )
]


# ------------------------------------------------------------------------------- cutting
def _is_space(tr: Translating, c: Value, chars: Text | None) -> Value:
    b = tr.b
    if chars is None:
        acc = b.const(False, T.BOOL)
        for lo, hi in SPACE_RANGES:
            inside = b.cmp("eq", c, i32(tr, lo)) if lo == hi else b.bin(
                "and", b.cmp("ge", c, i32(tr, lo)), b.cmp("le", c, i32(tr, hi)))  # fmt: skip
            acc = b.bin("or", acc, inside)
        return acc

    def test(k: Value, acc: list[Value]) -> list[Value]:
        return [b.bin("or", acc[0], b.cmp("eq", char(tr, chars, k), c))]

    (out,) = fold(tr, i32(tr, 0), length(tr, chars), [b.const(False, T.BOOL)], test)
    return out


def _strip(tr: Translating, s: Obj, args: list[V], node: ast.AST, left: bool, right: bool) -> V:
    name = "strip" if left and right else "lstrip" if left else "rstrip"
    if len(args) > 1 or (args and not (is_text(args[0]) or _is_none(args[0]))):
        tr.fail(node, f"str.{name}() takes no argument or a string of the characters to remove")
    chars = text_of(args[0]) if args and not _is_none(args[0]) else None
    tr.at(node)
    b = tr.b
    n = length(tr, s)

    def keep(k: Value, acc: list[Value]) -> list[Value]:  # the first and last kept positions
        kept = b.un("not", _is_space(tr, char(tr, s, k), chars))
        first = b.select(b.bin("and", kept, b.cmp("eq", acc[0], n)), k, acc[0])
        return [first, b.select(kept, k, acc[1])]

    first, last = fold(tr, i32(tr, 0), n, [n, i32(tr, -1)], keep)
    lo = first if left else i32(tr, 0)
    hi = b.bin("add", last, i32(tr, 1)) if right else n
    hi = b.bin("max", hi, lo)  # nothing kept: empty
    return make(b.bin("add", offset(s), lo), b.bin("sub", hi, lo))


def _is_none(v: V) -> bool:
    return isinstance(v, Known) and v.value is None


# ------------------------------------------------------------------------------- rewriting
def replace(tr: Translating, s: Obj, args: list[V], node: ast.AST) -> V:
    """`s.replace(old, new)`: each occurrence of `old`, left to right and not overlapping,
    written as `new` (an empty `old`: `new` before each character and at the end)."""
    if len(args) != 2 or not (is_text(args[0]) and is_text(args[1])):
        tr.fail(node, "str.replace() takes two strings in a kernel (no count)",
                "to replace only the first k, cut first: s[:j].replace(a, b) + s[j:]")  # fmt: skip
    old, rep = text_of(args[0]), text_of(args[1])
    tr.at(node)
    b = tr.b
    n, m, r = length(tr, s), length(tr, old), length(tr, rep)
    empty = b.cmp("eq", m, i32(tr, 0))
    one = i32(tr, 1)

    def hits(k: Value, skip: Value) -> Value:  # `old` starts at k, past the last one taken
        fits = b.cmp("le", b.bin("add", k, m), n)  # (compared only where it fits)
        same = same_at(tr, s, old, k, b.select(fits, m, i32(tr, 0)))
        return b.bin("and", b.cmp("ge", k, skip), b.bin("and", fits, same))

    def count(k: Value, acc: list[Value]) -> list[Value]:
        hit = hits(k, acc[0])
        return [b.select(hit, b.bin("add", k, m), acc[0]),
                b.bin("add", acc[1], b.select(hit, one, i32(tr, 0)))]  # fmt: skip

    _, times = fold(tr, i32(tr, 0), n, [i32(tr, 0), i32(tr, 0)], count)
    times = b.select(empty, b.bin("add", n, one), times)
    size = b.bin("add", n, b.bin("mul", times, b.bin("sub", r, m)))

    def fill(at: Value) -> None:
        def step(k: Value, acc: list[Value]) -> list[Value]:
            skip, pos = acc
            hit = hits(k, skip)
            when(tr, hit, lambda: copy(tr, rep, at, pos))
            pos = b.select(hit, b.bin("add", pos, r), pos)
            # the character itself, where no `old` covers it (an empty `old` covers none)
            own = b.bin("and", b.cmp("ge", k, skip), b.bin("or", b.un("not", hit), empty))
            when(tr, own, lambda: put(tr, at, pos, char(tr, s, k)))
            pos = b.select(own, b.bin("add", pos, one), pos)
            return [b.select(hit, b.bin("add", k, m), skip), pos]

        _, pos = fold(tr, i32(tr, 0), n, [i32(tr, 0), i32(tr, 0)], step)
        when(tr, empty, lambda: copy(tr, rep, at, pos))

    return new(tr, size, "a replaced string", node, fill)


# ------------------------------------------------------------------------------- splitting
def _split_args(tr: Translating, name: str, args: list[V], kwargs: dict[str, V],
                node: ast.AST) -> tuple[Text | None, Value | None]:  # fmt: skip
    """`sep` and `maxsplit` of `s.split(...)` / `s.rsplit(...)`, by place or keyword, as
    Python takes them: `sep` None (whitespace) or a non-empty string, `maxsplit` an int
    (negative: no limit; None when not given)."""
    unknown = set(kwargs) - {"sep", "maxsplit"}
    if unknown:
        tr.fail(node, f"str.{name}() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    if len(args) > 2:
        tr.fail(node, f"str.{name}() takes at most 2 arguments ({len(args)} given)")
    given = dict(zip(("sep", "maxsplit"), args))
    for k, v in kwargs.items():
        if k in given:
            tr.fail(node, f"str.{name}() got multiple values for argument {k!r}")
        given[k] = v
    sep_v = given.get("sep", Known(None))
    if not (is_text(sep_v) or _is_none(sep_v)):
        tr.fail(node, f"str.{name}(): the separator must be a string or None",
                "str(v) makes a string of a number")  # fmt: skip
    sep = None if _is_none(sep_v) else text_of(sep_v)
    if sep == "":
        tr.fail(node, f"str.{name}(): empty separator (Python's ValueError)")
    most = given.get("maxsplit")
    if most is None:
        return sep, None
    if isinstance(most, Known) and isinstance(most.value, (int, np.integer)):
        return sep, (None if most.value < 0 else i32(tr, min(int(most.value), _MOST)))
    if not (isinstance(most, Value) and isinstance(most.type, T.Scalar) and most.type.is_int):
        tr.fail(node, f"str.{name}(): maxsplit must be an integer",
                "int(x) makes one of a float")  # fmt: skip
    assert isinstance(most, Value)
    t = most.type
    if t.bits > 32 or (t.kind == "u" and t.bits == 32):  # sys.maxsize, 2**32: no limit still
        most = tr.b.bin("min", most, tr.b.const(_MOST, t))
        if t.kind == "i":  # -2**32 too (a negative one is no limit)
            most = tr.b.bin("max", most, tr.b.const(-1, t))
    return sep, coerce(tr.b, most, T.INT32)


_MOST = 2**31 - 1  # a maxsplit at or above it allows more cuts than a string can have


def split(tr: Translating, s: Obj, args: list[V], node: ast.AST,
          kwargs: dict[str, V] | None = None, rev: bool = False) -> V:  # fmt: skip
    """`s.split()` (runs of whitespace, as `str.isspace` has it, none at either end),
    `s.split(sep)` (at each `sep`, left to right, not overlapping; empty pieces kept), with a
    `maxsplit` (at most that many cuts: the rest is the last piece, its whitespace at the
    start dropped where the cuts are at whitespace), and `s.rsplit(...)` (the same from the
    right: `sep`s found right to left, the rest the first piece): a new list of strings,
    each piece a copy after its count, in the string's order. The string is walked twice:
    once to count the pieces and their characters (so that the heap is taken, or a
    MemoryError raised, once), once to write them."""
    name = "rsplit" if rev else "split"
    sep, most = _split_args(tr, name, args, kwargs or {}, node)
    tr.at(node)
    b = tr.b
    out = lists.make(tr, [], node, "split")
    lists.holds_text(tr, out, node)
    n = length(tr, s)
    zero, one = i32(tr, 0), i32(tr, 1)
    last = b.bin("sub", n, one)
    m = length(tr, sep) if sep is not None else zero

    def can(taken: Value) -> Value:  # another cut is allowed
        if most is None:
            return b.const(True, T.BOOL)
        return b.bin("or", b.cmp("lt", most, zero), b.cmp("lt", taken, most))

    def walk(on_piece: Callable[[Value, Value, Value, list[Value]], list[Value]],
             extra: list[Value]) -> list[Value]:  # fmt: skip
        """`extra = on_piece(lo, hi, is_piece, extra)` at each place a piece may end, in the
        walk's direction (`is_piece`: whether one does); the `extra` values after the last.
        `mark`: where the piece being read starts (its end, walking from the right)."""
        if sep is None:
            def word(j: Value, acc: list[Value]) -> list[Value]:
                mark, inside, taken, *more = acc
                k = b.bin("sub", last, j) if rev else j
                space = _is_space(tr, char(tr, s, k), None)
                ends = b.bin("and", b.bin("and", inside, space), can(taken))
                lo, hi = (b.bin("add", k, one), mark) if rev else (mark, k)
                more = on_piece(lo, hi, ends, more)
                begins = b.bin("and", b.un("not", inside), b.un("not", space))
                # past the last cut the rest runs to the end once it has begun
                inside = b.select(can(taken), b.un("not", space),
                                  b.bin("or", inside, b.un("not", space)))  # fmt: skip
                taken = b.bin("add", taken, b.select(ends, one, zero))
                start = b.bin("add", k, one) if rev else k
                return [b.select(begins, start, mark), inside, taken, *more]

            mark, inside, _, *more = fold(tr, zero, n, [n if rev else zero,
                                                        b.const(False, T.BOOL), zero, *extra],
                                          word)  # fmt: skip
            return on_piece(zero if rev else mark, mark if rev else n, inside, more)
        assert sep is not None
        sp = sep

        def cut_at(j: Value, acc: list[Value]) -> list[Value]:
            mark, taken, *more = acc
            k = b.bin("sub", last, j) if rev else j
            if rev:  # the separator ends by the piece's end
                fits = b.cmp("le", b.bin("add", k, m), mark)
            else:
                fits = b.bin("and", b.cmp("ge", k, mark), b.cmp("le", b.bin("add", k, m), n))
            hit = b.bin("and", b.bin("and", fits, can(taken)),
                        same_at(tr, s, sp, k, b.select(fits, m, zero)))  # fmt: skip
            lo, hi = (b.bin("add", k, m), mark) if rev else (mark, k)
            more = on_piece(lo, hi, hit, more)
            taken = b.bin("add", taken, b.select(hit, one, zero))
            return [b.select(hit, k if rev else b.bin("add", k, m), mark), taken, *more]

        mark, _, *more = fold(tr, zero, n, [n if rev else zero, zero, *extra], cut_at)
        return on_piece(zero if rev else mark, mark if rev else n, b.const(True, T.BOOL), more)

    # the count of pieces and of their words (each: its count, then its characters)
    def counted(lo: Value, hi: Value, yes: Value, acc: list[Value]) -> list[Value]:
        more = b.select(yes, one, zero)
        size = b.select(yes, b.bin("add", b.bin("sub", hi, lo), one), zero)
        return [b.bin("add", acc[0], more), b.bin("add", acc[1], size)]

    count, words = walk(counted, [zero, zero])
    arena = lists.arena(tr)

    def write(at: Value, item: Value) -> None:
        step = i32(tr, -1 if rev else 1)

        def one_piece(lo: Value, hi: Value, yes: Value, acc: list[Value]) -> list[Value]:
            cur, it = acc
            size = b.bin("sub", hi, lo)

            def store() -> None:
                arena.store(b, T.INT32, cur, size)
                lists.loop(tr, zero, size, lambda k: put(tr, b.bin("add", cur, one), k,
                                                         char(tr, s, b.bin("add", lo, k))))
                arena.store(b, T.INT32, it, cur)

            when(tr, yes, store)
            return [b.select(yes, b.bin("add", cur, b.bin("add", size, one)), cur),
                    b.select(yes, b.bin("add", it, step), it)]  # fmt: skip

        # from the right, the pieces come last first: item count - 1 down to 0
        first = b.bin("add", item, b.bin("sub", count, one)) if rev else item
        walk(one_piece, [at, first])

    lists.push_texts(tr, out, count, words, f"a {name} string", node, write)
    return out


# ------------------------------------------------------------------------------- methods
Op = Callable[[Translating, Obj, list[V], ast.AST], V]
METHODS: dict[str, Op] = {
    "strip": lambda tr, s, a, n: _strip(tr, s, a, n, True, True),
    "lstrip": lambda tr, s, a, n: _strip(tr, s, a, n, True, False),
    "rstrip": lambda tr, s, a, n: _strip(tr, s, a, n, False, True),
    "replace": replace,
}
# the methods that take keyword arguments (`Method.call` calls `split` for them): whether
# each cuts from the right
KEYWORDS = {"split": False, "rsplit": True}


class Method:
    """A rewriting method of a run-time string (`s.strip`, `s.replace`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def call(self, tr: Translating, s: V, args: list[V], kwargs: dict[str, V],
             node: ast.AST) -> V:  # fmt: skip
        assert isinstance(s, Obj)
        if self.name in KEYWORDS:
            return split(tr, s, args, node, kwargs, rev=KEYWORDS[self.name])
        if kwargs:
            tr.fail(node, f"str.{self.name}() takes no keyword arguments in a kernel")
        return METHODS[self.name](tr, s, args, node)


def attribute(tr: Translating, s: Obj, attr: str, node: ast.AST) -> V:
    """`s.name` of a run-time string: a method of this table or of `strings.METHODS`."""
    if attr in METHODS or attr in KEYWORDS:
        return Bound(s, Method(attr))
    return strings.attribute(tr, s, attr, node, more=(*METHODS, *KEYWORDS))
