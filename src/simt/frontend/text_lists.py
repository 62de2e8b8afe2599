"""Reading and reordering a list of strings (`lists.ListInfo.text`: each item the int32 offset
of a string's characters after their count): `v in xs`, `xs.index(v)`, `xs.count(v)`,
`xs.remove(v)`, `min`/`max`, `xs.sort()`/`sorted(xs)` and `sum` (refused, as Python's
TypeError), for `list_ops.py`, whose loops over numbers these follow.

Items compare as Python's strings do: `==` by length and characters (`strings.equal`), order
by code point at the first difference, the shorter first where one is the start of the other
(`strings.less`). Reordering moves the items' offsets only: strings never change, so a sorted
copy, a slice or a copy shares the characters of the list it came from.
"""

from __future__ import annotations

import ast

from .. import types as T
from ..ir import Value
from . import strings
from .context import Translating
from .lists import (
    DATA,
    LEN,
    arena,
    bubble,
    fold,
    header,
    i32,
    length,
    loop,
    ordered,
    raise_unless,
    set_header,
    text_item,
)
from .lists import when as when_
from .raising import raise_builtin
from .values import Known, Obj, V


def item(tr: Translating, lst: Obj, k: Value) -> Obj:
    """Item `k` (inside the list) as a string: a view of its characters."""
    return text_item(tr, offset(tr, lst, k))


def offset(tr: Translating, lst: Obj, k: Value) -> Value:
    """The offset of item `k`'s characters (a list of strings holds their offsets)."""
    return arena(tr).load(tr.b, T.INT32, tr.b.bin("add", header(tr, lst, DATA), k))


def set_offset(tr: Translating, lst: Obj, k: Value, v: Value) -> None:
    """Item `k` becomes the string at offset `v`."""
    arena(tr).store(tr.b, T.INT32, tr.b.bin("add", header(tr, lst, DATA), k), v)


def _text(v: V) -> strings.Text | None:
    """The string `v` is, or None for a value that is no string (it equals no item)."""
    return strings.text_of(v) if strings.is_text(v) else None


def _same(tr: Translating, lst: Obj, k: Value, v: strings.Text, node: ast.AST) -> Value:
    return strings.equal(tr, item(tr, lst, k), v, node)


def contains(tr: Translating, lst: Obj, v: V, node: ast.AST) -> V:
    """`v in xs`: whether an item equals `v` (a number equals no string: False)."""
    s = _text(v)
    if s is None:
        return Known(False)
    tr.at(node)
    b = tr.b

    def test(k: Value, acc: list[Value]) -> list[Value]:
        return [b.bin("or", acc[0], _same(tr, lst, k, s, node))]

    (out,) = fold(tr, i32(tr, 0), length(tr, lst), [b.const(False, T.BOOL)], test)
    return out


def find(tr: Translating, lst: Obj, v: V, node: ast.AST) -> Value:
    """The first position holding an item equal to `v`, or -1."""
    s = _text(v)
    b = tr.b
    if s is None:
        return i32(tr, -1)
    text = s

    def test(k: Value, acc: list[Value]) -> list[Value]:
        hit = b.bin("and", b.cmp("lt", acc[0], i32(tr, 0)), _same(tr, lst, k, text, node))
        return [b.select(hit, k, acc[0])]

    (out,) = fold(tr, i32(tr, 0), length(tr, lst), [i32(tr, -1)], test)
    return out


def not_in_list(tr: Translating, v: V, found: Value, node: ast.AST) -> None:
    """Raise Python's `ValueError: 'w' is not in list` where `found` is -1."""
    fails = tr.b.un("not", tr.b.cmp("ge", found, i32(tr, 0)))
    if isinstance(v, Known):
        raise_builtin(tr, ValueError, fails, f"{v.value!r} is not in list", node)
        return
    if strings.is_str(v):
        assert isinstance(v, Obj)
        strings.raise_quoted(tr, ValueError, fails, v, " is not in list", node)
        return
    raise_builtin(tr, ValueError, fails, "the value is not in list", node)


def index(tr: Translating, lst: Obj, v: V, node: ast.AST) -> V:
    """`xs.index(v)` (its argument checked by `list_ops.index`)."""
    tr.at(node)
    found = find(tr, lst, v, node)
    not_in_list(tr, v, found, node)
    return tr.b.bin("max", found, i32(tr, 0))


def count(tr: Translating, lst: Obj, v: V, node: ast.AST) -> V:
    """`xs.count(v)` (its argument checked by `list_ops.count`)."""
    s = _text(v)
    if s is None:
        return Known(0)
    tr.at(node)
    b = tr.b
    text = s

    def test(k: Value, acc: list[Value]) -> list[Value]:
        hit = _same(tr, lst, k, text, node)
        return [b.bin("add", acc[0], b.select(hit, i32(tr, 1), i32(tr, 0)))]

    (out,) = fold(tr, i32(tr, 0), length(tr, lst), [i32(tr, 0)], test)
    return out


def remove(tr: Translating, lst: Obj, v: V, node: ast.AST) -> V:
    """`xs.remove(v)`: the first item equal to `v` taken out (later ones move down one; the
    argument checked by `list_ops.remove`)."""
    tr.at(node)
    b = tr.b
    found = find(tr, lst, v, node)
    ok = b.cmp("ge", found, i32(tr, 0))
    raise_unless(tr, ValueError, ok, "list.remove(x): x not in list", node)

    def drop() -> None:
        end = b.bin("sub", length(tr, lst), i32(tr, 1))
        loop(tr, found, end, lambda k: set_offset(
            tr, lst, k, offset(tr, lst, b.bin("add", k, i32(tr, 1)))))  # fmt: skip
        set_header(tr, lst, LEN, end)

    when_(tr, ok, drop)
    return Known(None)


def min_max(tr: Translating, lst: Obj, op: str, node: ast.AST) -> Obj:
    """`min(xs)` / `max(xs)`: the first item no other item is strictly below (above), as
    strings order; an empty list raises ValueError as in Python (the value is then '')."""
    tr.at(node)
    b = tr.b
    n = length(tr, lst)
    ok = b.cmp("gt", n, i32(tr, 0))
    raise_unless(tr, ValueError, ok, f"{op}() arg is an empty sequence", node)

    def pick(k: Value, acc: list[Value]) -> list[Value]:
        at = offset(tr, lst, k)
        x, best = text_item(tr, at), text_item(tr, acc[0])
        better = strings.less(tr, x, best) if op == "min" else strings.less(tr, best, x)
        return [b.select(better, at, acc[0])]

    (at,) = fold(tr, i32(tr, 1), n, [offset(tr, lst, i32(tr, 0))], pick)
    got = text_item(tr, at)
    return got.with_field("n", b.select(ok, strings.length(tr, got), i32(tr, 0)))


def sort_in_place(tr: Translating, lst: Obj, reverse_order: bool | Value,
                  node: ast.AST) -> None:  # fmt: skip
    """A bubble sort of the items' offsets, as `list_ops.sort_in_place`: adjacent items swap
    where the later is strictly below (above, reversed) as strings order, so equal strings
    keep their order as in Python's stable sort."""
    tr.at(node)
    b = tr.b

    def step(j: Value, j1: Value) -> None:
        x, y = offset(tr, lst, j), offset(tr, lst, j1)
        swap = ordered(tr, reverse_order, lambda: below(tr, x, y), lambda: below(tr, y, x))
        set_offset(tr, lst, j, b.select(swap, y, x))
        set_offset(tr, lst, j1, b.select(swap, x, y))

    bubble(tr, length(tr, lst), step)


def below(tr: Translating, x: Value, y: Value) -> Value:
    """Whether the string at offset `x` orders before the one at `y` (Python's `<`)."""
    return strings.less(tr, text_item(tr, x), text_item(tr, y))


def total(tr: Translating, start: V, node: ast.AST) -> None:
    """`sum(xs)` of a list of strings: Python's TypeError, refused with what it says."""
    if strings.is_text(start):
        tr.fail(node, "sum() can't sum strings (Python's TypeError)", "use ''.join(xs)")
    tr.fail(node, "sum() of a list of strings: unsupported operand type(s) for +: 'int' and "
            "'str' (Python's TypeError)", "''.join(xs) joins them; sum(len(w) for w in xs) "
            "counts their characters")  # fmt: skip
