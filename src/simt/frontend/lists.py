"""Lists that grow at run time, one per thread, in the per-thread arena (`arena.py`).

A run-time list is an `Obj` of class `RList` with two fields: `h`, an int32 SSA value, the
offset of its header in the thread's int32 region, and `info`, a known `ListInfo` holding its
element type (fixed by the first value put in it: the display's items, the comprehension's
first item or the first `append`). The header is three int32 words in the arena: length,
capacity, and the offset of the items in the region of the element type. Because the state
lives in memory, a list behaves as Python's does: `ys = xs` is the same list, and a helper
function that appends to a list it was given changes the caller's list.

Which names hold run-time lists is decided by looking at the function's syntax
(`mutated_names`): a list display or comprehension assigned to a name that is appended to,
popped from, extended or assigned into somewhere in the function is a run-time list; other
displays stay tuples of compile-time length, as before. A comprehension over a run-time
sequence (`range(n)` with a run-time `n`, an array, a list) is always a run-time list.

Indexing is checked against the length (an `IndexError` at the user's line, reported as a
KernelError as out-of-bounds array accesses are); running out of arena is a `MemoryError`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from .. import types as T
from ..errors import CompileError
from ..ir import Block, Field, Loc, Value
from .arena import DEFAULT_HEAP, Arena
from .context import Translating
from .raising import raise_builtin
from .scalars import coerce, known_type
from .values import Known, Obj, RStr, Tup, V, View, is_number, make_text

MUTATORS = frozenset({"append", "pop", "extend", "insert", "clear", "sort", "reverse", "remove"})
# methods that make a display assigned to the name a run-time list (tuples have none of them)
LIST_METHODS = MUTATORS | {"index", "count", "copy"}
LEN, CAP, DATA = 0, 1, 2  # the header's words


class RList:
    """The class of run-time list values (`Obj(RList, (("h", handle), ("info", Known(...))))`)."""


# the hint (`Context.list_hints`) of a list of strings: a dict's string keys (`dicts.py`)
TEXT = "text"


KEYS_TAG = "sort keys"  # `make`'s tag of the lists of a sort's keys (`list_ops._keys_of`)


class ListInfo:
    """What the compiler knows of one list: its element type (None until the first item;
    `guessed`: read before it, int32 taken), where it is made (`site`, `loc`: a retry with
    another type, `retry`). Two infos of the same element type and kind are equal, so that
    two lists merge (`a if c else b`). `text`: the items are strings (a list `split` made, one
    that strings are appended to, a display of strings, a dict's string keys): each item is
    the int32 offset, in the arena's int32 region, of a copy of the string's characters after
    their count (`text_item` reads one), and `dtype` is int32; `text_lists.py` reads and
    reorders such a list, `list_ops.py` sends it there."""

    def __init__(
        self, dtype: T.Scalar | str | None = None, site: Any = None, loc: Loc | None = None
    ) -> None:
        self.text = dtype == TEXT
        self.dtype: T.Scalar | None = T.INT32 if dtype == TEXT else dtype  # type: ignore[assignment]
        self.site = site  # where the list is made: the key of `Context.list_hints`
        self.loc = loc  # and that place in the user's file
        self.guessed = False  # read before its first item: int32 taken until one comes

    def __eq__(self, other: object) -> bool:
        return self is other or (
            isinstance(other, ListInfo) and self.dtype is not None
            and self.dtype == other.dtype and self.text == other.text
        )  # fmt: skip

    def __hash__(self) -> int:
        return id(self)


def is_info(x: object) -> bool:
    return isinstance(x, ListInfo)


def unify_infos(a: ListInfo, b: ListInfo) -> bool:
    """Whether one variable may hold lists of both infos (a loop reassigning it): the same
    item type, or one without a type yet, which takes the other's."""
    if a.dtype is None or b.dtype is None:
        t = a.dtype or b.dtype
        a.dtype = b.dtype = t
        a.text = b.text = a.text or b.text
        return True
    return bool(a.dtype == b.dtype and a.text == b.text)


def is_list(v: Any) -> bool:
    return isinstance(v, Obj) and v.cls is RList


def arena(tr: Translating) -> Arena:
    """The specialisation's arena, made at the first growable value."""
    if tr.ctx.arena is None:
        tr.ctx.arena = Arena(tr.ctx.heap if tr.ctx.heap is not None else DEFAULT_HEAP)
    return tr.ctx.arena  # type: ignore[no-any-return]


def info_of(lst: Obj) -> ListInfo:
    info = lst.get("info")
    assert isinstance(info, Known) and isinstance(info.value, ListInfo)
    return info.value


def handle(lst: Obj) -> Value:
    h = lst.get("h")
    assert isinstance(h, Value)
    return h


def i32(tr: Translating, v: int) -> Value:
    return tr.b.const(v, T.INT32)


def header(tr: Translating, lst: Obj, word: int) -> Value:
    return arena(tr).load(tr.b, T.INT32, tr.b.bin("add", handle(lst), i32(tr, word)))


def set_header(tr: Translating, lst: Obj, word: int, v: Value) -> None:
    arena(tr).store(tr.b, T.INT32, tr.b.bin("add", handle(lst), i32(tr, word)), v)


def when(tr: Translating, cond: Value, then: Callable[[], None]) -> None:
    """An `if cond:` of the list machinery itself (no variable changes)."""
    blk, other = Block(), Block()
    with tr.b.at(blk):
        then()
        tr.b.op("yield", [])
    with tr.b.at(other):
        tr.b.op("yield", [])
    tr.b.op("if", [cond], [], [blk, other])


def _ok_when(tr: Translating, cond: Value, then: Callable[[], Value]) -> Value:
    """`then()` (a bool: an allocation went well) where `cond` holds, else True."""
    blk, other = Block(), Block()
    with tr.b.at(blk):
        tr.b.op("yield", [then()])
    with tr.b.at(other):
        tr.b.op("yield", [tr.b.const(True, T.BOOL)])
    return tr.b.op("if", [cond], [T.BOOL], [blk, other]).result


def raise_unless(
    tr: Translating, cls: type, ok: Value, message: str, node: ast.AST | None
) -> None:
    """The thread raises `cls(message)` at `node` where `ok` does not hold (catchable by a
    `try`; uncaught, it ends the thread and is reported after the launch)."""
    raise_builtin(tr, cls, tr.b.un("not", ok), message, node)


def loop(tr: Translating, lo: Value, hi: Value, body: Callable[[Value], None]) -> None:
    """`for k in range(lo, hi): body(k)` of the list machinery itself."""
    blk = Block()
    k = Value(T.INT32, "k")
    blk.args.append(k)
    with tr.b.at(blk):
        body(k)
        tr.b.op("yield", [])
    tr.b.op("for", [lo, hi, i32(tr, 1)], [], [blk], sign=1)


def bubble(tr: Translating, n: Value, step: Callable[[Value, Value], None]) -> None:
    """The passes of a bubble sort over a list of `n` items: `step(j, j + 1)` for each
    adjacent pair a pass reaches (the pass loads both, compares and stores them back, swapped
    where the later is strictly before: stable, as Python's sort)."""
    b = tr.b

    def sweep(i: Value) -> None:
        loop(tr, i32(tr, 0), b.bin("sub", b.bin("sub", n, i32(tr, 1)), i),
             lambda j: step(j, b.bin("add", j, i32(tr, 1))))  # fmt: skip

    loop(tr, i32(tr, 0), n, sweep)


def ordered(tr: Translating, reverse_order: bool | Value, backward: Callable[[], Value],
            forward: Callable[[], Value]) -> Value:  # fmt: skip
    """A sort's comparison in the order `reverse=` asks for: `backward()` where it is true,
    `forward()` where false; a run-time `reverse=` selects between both."""
    if isinstance(reverse_order, bool):
        return backward() if reverse_order else forward()
    return tr.b.select(reverse_order, backward(), forward())


def fold(
    tr: Translating,
    lo: Value,
    hi: Value,
    inits: list[Value],
    body: Callable[[Value, list[Value]], list[Value]],
) -> list[Value]:
    """`for k in range(lo, hi): carried = body(k, carried)` of the list machinery itself,
    starting from `inits`; the carried values after the loop."""
    blk = Block()
    k = Value(T.INT32, "k")
    carried = [Value(v.type, "acc") for v in inits]
    blk.args.extend([k, *carried])
    with tr.b.at(blk):
        new = body(k, carried)
        tr.b.op("yield", new)
    op = tr.b.op("for", [lo, hi, i32(tr, 1), *inits], [v.type for v in inits], [blk], sign=1)
    return list(op.results)


def bound(tr: Translating, e: ast.expr | None, what: str) -> V | None:
    if e is None:
        return None
    v = tr.expr(e)
    if isinstance(v, Known) and v.value is None:
        return None
    if isinstance(v, Known):
        if not isinstance(v.value, (int, np.integer)) or isinstance(v.value, bool):
            tr.fail(e, f"slice {what} must be an integer, not {type(v.value).__name__}")
        return v
    if not (isinstance(v, Value) and isinstance(v.type, T.Scalar) and v.type.is_int):
        tr.fail(e, f"slice {what} must be an integer")
    return v


def slice_bounds(tr: Translating, n: Value, start: V | None, stop: V | None, step: int,
                 node: ast.AST) -> tuple[Value, Value]:  # fmt: skip
    """Where `[start:stop:step]` of a sequence of `n` items begins and how many items it
    takes, as CPython's PySlice_AdjustIndices reads them: negative bounds count from the end,
    then clipped to [0, n] going up and to [-1, n - 1] going down."""
    b = tr.b
    zero, one = i32(tr, 0), i32(tr, 1)

    def adjust(v: V | None, default: Value) -> Value:
        if v is None or (isinstance(v, Known) and v.value is None):
            return default
        x = coerce(b, v, T.INT32)
        x = b.select(b.cmp("lt", x, zero), b.bin("add", x, n), x)
        if step > 0:
            return b.bin("min", b.bin("max", x, zero), n)
        return b.bin("min", b.bin("max", x, i32(tr, -1)), b.bin("sub", n, one))

    if step > 0:
        lo, hi = adjust(start, zero), adjust(stop, n)
        span = b.bin("sub", hi, lo)
        size = i32(tr, step)
    else:
        lo, hi = adjust(start, b.bin("sub", n, one)), adjust(stop, i32(tr, -1))
        span = b.bin("sub", lo, hi)
        size = i32(tr, -step)
    rounded_up = b.bin("floordiv", b.bin("add", span, b.bin("sub", size, one)), size)
    return lo, b.select(b.cmp("gt", span, zero), rounded_up, zero)


# ------------------------------------------------------------------------------- element type
def element_type(tr: Translating, lst: Obj, node: ast.AST) -> T.Scalar:
    info = info_of(lst)
    if info.dtype is None:
        # read before its first item in program order (in a loop, a later line appends): int32
        # until an item says otherwise, then the kernel is translated again knowing the type
        info.dtype, info.guessed = T.INT32, True
        tr.ctx.list_hints.setdefault(info.site, T.INT32)
    return info.dtype


def fix_type(
    tr: Translating, lst: Obj, t: T.Scalar, node: ast.AST,
    what: tuple[str, str, str] = ("list", "values", "item"),
) -> None:
    """An item of type `t` goes into `lst`: the first fixes the list's type; later ones
    must fit it (an int into a float list, a bool into an int list), or under Numba's typing
    widen it (as Numba unifies a list's items). `what` names the
    list's owner, its items and one of them in the refusal (a dict's keys and values are
    lists too: `dicts.py`)."""
    info = info_of(lst)
    if info.dtype is None:
        info.dtype = t
        tr.ctx.list_hints[info.site] = t
    elif info.guessed:  # its first item: the guess holds, or the kernel is translated again
        if t != info.dtype:
            retry(tr, info, t)
            info.dtype = t
        info.guessed = False
    elif t != info.dtype and tr.ctx.int64 and T.promote(info.dtype, t) != info.dtype:
        # Numba's typing (`simt.cuda.jit`): a list's type is that of all its items, unified
        # as Numba's type inference does (`-t` of an int32 `t` is int64 there, so
        # `xs.append(v); xs.append(-t)` makes an int64 list): the kernel is translated again
        # with the unified type (a type only widens, so this ends)
        retry(tr, info, T.promote(info.dtype, t))
    elif t != info.dtype:
        wide = T.promote(info.dtype, t)
        if _ints(info.dtype, t) and _ints(wide, wide) and wide != info.dtype:
            # Python's ints have one type: an int64 item after int32 ones makes the whole
            # list int64 (the kernel is translated again with the list made so)
            retry(tr, info, wide)
            info.dtype = wide
        elif wide != info.dtype or (t.is_float and not info.dtype.is_float):
            owner, items, item = what
            a = "an" if t.name[0] in "aeiou" else "a"
            tr.fail(
                node,
                f"this {owner} holds {info.dtype.name} {items} (from its first {item}), and "
                f"{a} {t.name} value would mix types",
                f"convert it: {info.dtype.name}(...), or make the {owner}'s first {item} "
                f"{a} {t.name}",
            )


def unify_paths(tr: Translating, name: str, a: Obj, b: Obj) -> None:
    """`name` holds the list `a` on one path of an `if` and `b` on the other: one variable,
    one item type. Ints of two widths (or, under Numba's typing, any two numbers) take the
    wider, and the kernel is translated again with both lists made so, as `fix_type` does."""
    ia, ib = info_of(a), info_of(b)
    if ia is ib or ia.dtype is None or ib.dtype is None or ia.dtype == ib.dtype:
        return
    wide = T.promote(ia.dtype, ib.dtype)
    if ia.text == ib.text and (_ints(ia.dtype, ib.dtype) or tr.ctx.int64):
        for info in (ia, ib):
            if info.dtype != wide:
                retry(tr, info, wide)
                info.dtype = wide
        return
    loc = tr.b.loc  # the `if`'s last line translated: where the paths meet
    message = f"`{name}` is a list of {ia.dtype.name} on one path and of {ib.dtype.name} on " \
        "the other"  # fmt: skip
    hint = "give the lists of both paths one item type (2.0, not 2)"
    if loc is None:
        raise CompileError(message, hint=hint)
    raise CompileError(message, loc.filename, loc.line, loc.col, loc.source_line, hint)


def retry(tr: Translating, info: ListInfo, hint: T.Scalar | str) -> None:
    """List `info` was typed wrong in this translation: the next one makes it with `hint`
    (`Context.list_hints`, `Context.list_retry`)."""
    tr.ctx.list_hints[info.site] = hint
    tr.ctx.list_retry.setdefault(info.site, info.loc)


def _ints(a: T.Scalar, b: T.Scalar) -> bool:
    """Whether both types are integers (not bools)."""
    return a.is_int and b.is_int and not a.is_bool and not b.is_bool


def as_item(
    tr: Translating, lst: Obj, v: V, node: ast.AST,
    what: tuple[str, str, str] = ("list", "values", "item"),
) -> Value:
    """`v` as an item of `lst`: the first item fixes the list's type; later ones must fit."""
    if isinstance(v, Tup) or (isinstance(v, Known) and isinstance(v.value, tuple)):
        site = info_of(lst).site
        if isinstance(site, tuple) and site[-1] == KEYS_TAG:
            tr.fail(node, "a key giving tuples writes each one out where it returns it, so "
                    "that the compiler sees how many items they have",
                    "return (a, b) itself: lambda v: (v % 2, v), or `return (len(w), w)` on "
                    "every return of the def")  # fmt: skip
        tr.fail(
            node,
            "this makes a list of tuples, and a list in a kernel holds numbers or strings, "
            "not tuples",
            "loop over the pairs where they are used (for i, v in enumerate(xs): ..., for a, "
            "b in zip(xs, ys): ...), or keep one list per item of the tuples (ks.append(i); "
            "vs.append(v))",
        )
    if isinstance(v, Known) and not is_number(v.value):
        tr.fail(node, f"a list in a kernel holds numbers, not a {type(v.value).__name__}")
    if not isinstance(v, Known) and not (isinstance(v, Value) and isinstance(v.type, T.Scalar)):
        tr.fail(node, "a list in a kernel holds numbers (int, float, bool), not this value")
    info = info_of(lst)
    if info.text:
        tr.fail(node, "this list holds strings (from its first item), and a number would mix "
                "them", "str(v) makes a string of the number; keep numbers in a list of their "
                "own")  # fmt: skip
    if isinstance(v, Known):
        t = known_type(v.value, info.dtype, tr.ctx.fp64)
    else:
        assert isinstance(v, Value)
        t = T.compute_type(v.scalar)
    fix_type(tr, lst, t, node, what)
    assert info.dtype is not None
    return coerce(tr.b, v, info.dtype)


# ------------------------------------------------------------------------------- making lists
def make(tr: Translating, items: list[V], node: ast.AST, tag: str = "") -> Obj:
    """A new run-time list holding `items` (known or typed numbers). `tag` tells apart
    the lists one construct makes (a dict's keys and values) in `Context.list_hints`."""
    ar = arena(tr)
    tr.at(node)
    h, ok = ar.alloc(tr.b, T.INT32, i32(tr, 3))
    raise_unless(tr, MemoryError, ok, ar.exhausted(T.INT32, "a new list"), node)
    site = (id(tr.ctx.inline_stack[-1]), node.lineno, node.col_offset, tag)  # type: ignore[attr-defined]
    info = ListInfo(tr.ctx.list_hints.get(site), site, tr.src.loc(node))
    lst = Obj(RList, (("h", h), ("info", Known(info))))
    texts = any(_is_text(v) for v in items)
    values = [] if texts else [as_item(tr, lst, v, node) for v in items]
    set_header(tr, lst, LEN, i32(tr, 0))
    set_header(tr, lst, CAP, i32(tr, 0))
    set_header(tr, lst, DATA, i32(tr, 0))
    if texts:  # a display of strings (`["a", s]`): each appended (copied), as `append` does
        for v in items:
            append(tr, lst, [v], node)
    if values:
        t = element_type(tr, lst, node)
        n = i32(tr, len(values))
        data, ok = ar.alloc(tr.b, t, n)
        raise_unless(tr, MemoryError, ok, ar.exhausted(t, f"a list of {len(values)} items"), node)

        def fill() -> None:
            for k, v in enumerate(values):
                ar.store(tr.b, t, tr.b.bin("add", data, i32(tr, k)), v)
            set_header(tr, lst, LEN, n)
            set_header(tr, lst, CAP, n)
            set_header(tr, lst, DATA, data)

        when(tr, ok, fill)
    return lst


def repeat(tr: Translating, items: list[V], count: V, node: ast.AST) -> Obj:
    """`[a, b] * n` with a run-time `n`: a run-time list of the items n times. Strings are
    copied once (`make`), then their offsets repeated: strings never change, so the items may
    share them, as Python's list holds the same string objects n times."""
    texts = any(_is_text(v) for v in items)
    lst = make(tr, items if texts else [], node)
    n = tr.b.bin("max", coerce(tr.b, tr.scalar(count, node), T.INT32), i32(tr, 0))
    ar = arena(tr)
    if texts:
        t = T.INT32

        def entry(j: int) -> Value:  # the offset of display item j's copy
            return ar.load(tr.b, T.INT32, tr.b.bin("add", header(tr, lst, DATA), i32(tr, j)))

        k = len(items)
    else:
        values = [as_item(tr, lst, v, node) for v in items]
        if not values:
            return lst
        t = element_type(tr, lst, node)

        def entry(j: int) -> Value:  # (conditional functions: mypy wants one signature)
            return values[j]

        k = len(values)
    total = tr.b.bin("mul", n, i32(tr, k))
    data, ok = ar.alloc(tr.b, t, total)
    raise_unless(tr, MemoryError, ok, ar.exhausted(t, "a repeated list"), node)

    def fill() -> None:
        def body(r: Value) -> None:
            at = tr.b.bin("add", data, tr.b.bin("mul", r, i32(tr, k)))
            for j in range(k):
                ar.store(tr.b, t, tr.b.bin("add", at, i32(tr, j)), entry(j))

        loop(tr, i32(tr, 0), n, body)
        set_header(tr, lst, LEN, total)
        set_header(tr, lst, CAP, total)
        set_header(tr, lst, DATA, data)

    when(tr, ok, fill)
    return lst


def repeats(node: ast.BinOp, a: V, b: V) -> bool:
    """Whether `a * b` (of `node`) repeats a list display a run-time number of times."""
    if isinstance(node.left, ast.List):
        return isinstance(a, (Known, Tup)) and isinstance(b, Value)
    return isinstance(node.right, ast.List) and isinstance(b, (Known, Tup)) and isinstance(a, Value)


def repeat_parts(node: ast.BinOp, a: V, b: V) -> tuple[list[V], V]:
    """The items and the count of a repetition `repeats` accepted."""
    seq, count = (a, b) if isinstance(node.left, ast.List) else (b, a)
    items = list(seq.items) if isinstance(seq, Tup) else [Known(x) for x in seq.value]  # type: ignore[union-attr]
    return items, count


# ------------------------------------------------------------------------------- operations
def length(tr: Translating, lst: Obj) -> Value:
    return header(tr, lst, LEN)


def checked_index(
    tr: Translating, lst: Obj, key: V, n: Value, node: ast.AST, what: str
) -> tuple[Value, Value]:
    """The checked, non-negative item number of `key` (Python's negative indices count from
    the end) and whether it is inside the list: the thread raises `IndexError` at this line
    when it is not (the number is then 0, and the caller changes nothing)."""
    if isinstance(key, Known):
        if not isinstance(key.value, (int, np.integer)) or isinstance(key.value, bool):
            tr.fail(node, f"list indices must be integers, not {type(key.value).__name__}")
        i = i32(tr, int(key.value))
    else:
        if not (isinstance(key, Value) and isinstance(key.type, T.Scalar) and key.type.is_int):
            tr.fail(node, "list indices must be integers")
        assert isinstance(key, Value)
        i = tr.b.cast(key, T.INT32) if key.scalar != T.INT32 else key
    b = tr.b
    if not (isinstance(key, Known) and int(key.value) >= 0):
        if isinstance(key, Known) or key.scalar.is_signed:  # type: ignore[union-attr]
            i = b.select(b.cmp("lt", i, i32(tr, 0)), b.bin("add", i, n), i)
    ok = b.bin("and", b.cmp("ge", i, i32(tr, 0)), b.cmp("lt", i, n))
    raise_unless(tr, IndexError, ok, what, node)
    return b.select(ok, i, i32(tr, 0)), ok


def getitem(tr: Translating, lst: Obj, key: V, node: ast.AST) -> V:
    t = element_type(tr, lst, node)
    tr.at(node)
    i, _ = checked_index(tr, lst, key, length(tr, lst), node, "list index out of range")
    data = header(tr, lst, DATA)
    item = arena(tr).load(tr.b, t, tr.b.bin("add", data, i))
    return text_item(tr, item) if info_of(lst).text else item


def text_item(tr: Translating, at: Value) -> Obj:
    """The string an item of a list of strings stands for: the characters after their count
    at `at` (`ListInfo.text`)."""
    return make_text(tr.b.bin("add", at, i32(tr, 1)), arena(tr).load(tr.b, T.INT32, at))


def setitem(tr: Translating, lst: Obj, key: V, value: V, node: ast.AST) -> None:
    if _is_text(value):  # a copy of the string appended, then moved to place i
        tr.at(node)
        n = length(tr, lst)
        i, ok = checked_index(tr, lst, key, n, node, "list assignment index out of range")
        # (only where i is inside: out of range it is an IndexError alone, as Python's, the
        # list and the heap as they were)
        _append_text(tr, lst, value, node, ok)
        _place_last(tr, lst, n, i, ok, False)
        return
    v = as_item(tr, lst, value, node)
    t = element_type(tr, lst, node)
    tr.at(node)
    i, ok = checked_index(tr, lst, key, length(tr, lst), node, "list assignment index out of range")
    data = header(tr, lst, DATA)
    when(tr, ok, lambda: arena(tr).store(tr.b, t, tr.b.bin("add", data, i), v))


def _grow(tr: Translating, lst: Obj, t: T.Scalar, n: Value, need: Value) -> Value:
    """Make room for `need` items (the list holds `n`): twice the capacity (at least 4),
    in place when the list's items are the last block of their type, else in a new block
    the items move to. Whether there was room (if not, the list stays as it was)."""
    b, ar = tr.b, arena(tr)
    cap = header(tr, lst, CAP)
    data = header(tr, lst, DATA)
    new_cap = b.bin("max", b.bin("max", b.bin("mul", cap, i32(tr, 2)), need), i32(tr, 4))
    last = b.bin("and", b.cmp("gt", cap, i32(tr, 0)),
                 b.cmp("eq", b.bin("add", data, cap), ar.top(b, t)))  # fmt: skip

    def extend_in_place() -> Value:  # doubling, or as much as is left if that is enough
        more = b.bin("max", b.bin("min", b.bin("sub", new_cap, cap), ar.free(b, t)),
                     b.bin("sub", need, cap))  # fmt: skip
        _, ok = ar.alloc(b, t, more)
        set_header(tr, lst, CAP, b.select(ok, b.bin("add", cap, more), cap))
        return ok

    def move() -> Value:
        at, ok = ar.alloc(b, t, new_cap)

        def copy() -> None:
            loop(tr, i32(tr, 0), n, lambda k: ar.store(
                b, t, b.bin("add", at, k), ar.load(b, t, b.bin("add", data, k))))  # fmt: skip
            set_header(tr, lst, DATA, at)
            set_header(tr, lst, CAP, new_cap)

        when(tr, ok, copy)
        return ok

    ok_here = _ok_when(tr, last, extend_in_place)
    ok_moved = _ok_when(tr, b.un("not", last), move)
    return b.bin("and", ok_here, ok_moved)


def reserve(
    tr: Translating, lst: Obj, t: T.Scalar, extra: Value, node: ast.AST,
    what: str = "a growing list",
) -> Value:
    """Room for `extra` more items: whether there is (if not, the thread raises MemoryError
    at `node`, saying `what` ran out, and the caller changes nothing)."""
    b = tr.b
    n = length(tr, lst)
    need = b.bin("add", n, extra)
    ok = _ok_when(tr, b.cmp("gt", need, header(tr, lst, CAP)),
                  lambda: _grow(tr, lst, t, n, need))  # fmt: skip
    raise_unless(tr, MemoryError, ok, arena(tr).exhausted(t, what), node)
    return ok


def push(tr: Translating, lst: Obj, t: T.Scalar, values: list[Value], node: ast.AST) -> None:
    """Append `values` (of the list's type)."""
    b, ar = tr.b, arena(tr)
    n = length(tr, lst)
    ok = reserve(tr, lst, t, i32(tr, len(values)), node)

    def put() -> None:
        data = header(tr, lst, DATA)
        for k, v in enumerate(values):
            ar.store(b, t, b.bin("add", data, b.bin("add", n, i32(tr, k))), v)
        set_header(tr, lst, LEN, b.bin("add", n, i32(tr, len(values))))

    when(tr, ok, put)


def holds_text(tr: Translating, lst: Obj, node: ast.AST) -> None:
    """Make `lst` a list of strings (its first item is one): each item the int32 offset of
    a copy of a string's characters after their count (`text_item`). A list that holds
    numbers already is refused."""
    info = info_of(lst)
    if info.text:
        return
    if info.dtype is not None and not info.guessed:
        tr.fail(node, "this list holds numbers (from its first item), and a string would mix "
                "them", "keep strings in a list of their own")  # fmt: skip
    if info.guessed:  # read before its first item: translated again as a list of strings
        retry(tr, info, TEXT)
    info.dtype, info.text, info.guessed = T.INT32, True, False
    tr.ctx.list_hints[info.site] = TEXT


def push_texts(tr: Translating, lst: Obj, count: Value, words: Value, what: str,
               node: ast.AST, write: Callable[[Value, Value], None],
               only: Value | None = None) -> None:  # fmt: skip
    """Append `count` strings of `words - count` characters in all to a list of strings:
    room for the items and `words` words taken first (a MemoryError where either does not
    fit: the list stays as it was), then `write(at, item)` writes each string's count and
    characters from `at` on and the offset of each at `item` (the first new item's place
    in the arena), and the length grows by `count`. Where `only` (if given) fails, nothing:
    no room taken, no MemoryError."""
    b, ar = tr.b, arena(tr)
    n = length(tr, lst)
    if only is not None:
        count = b.select(only, count, i32(tr, 0))
    ok = reserve(tr, lst, T.INT32, count, node, what)
    if only is not None:
        ok = b.bin("and", ok, only)
    at, room = ar.alloc(b, T.INT32, b.select(ok, words, i32(tr, 0)))
    raise_unless(tr, MemoryError, room, ar.exhausted(T.INT32, what), node)

    def store() -> None:
        write(at, b.bin("add", header(tr, lst, DATA), n))
        set_header(tr, lst, LEN, b.bin("add", n, count))

    when(tr, b.bin("and", ok, room), store)


def _is_text(v: V) -> bool:
    """A known `str` or a run-time string (`strings.py`, which imports this module)."""
    return (isinstance(v, Known) and isinstance(v.value, str)) or (
        isinstance(v, Obj) and v.cls is RStr)


def _append_text(tr: Translating, lst: Obj, v: V, node: ast.AST,
                 only: Value | None = None) -> None:  # fmt: skip
    """`xs.append(s)` of a string: a copy of its characters after their count (the item
    stays whatever becomes of the words `s` came from), the list one of strings from its
    first item on (`holds_text`); where `only` (if given) fails, nothing."""
    holds_text(tr, lst, node)
    b, ar = tr.b, arena(tr)
    if isinstance(v, Known):
        known = str(v.value)
        n = i32(tr, len(known))
    else:
        assert isinstance(v, Obj)
        off, n = v.get("off"), v.get("n")
        assert isinstance(off, Value) and isinstance(n, Value)

    def write(at: Value, item: Value) -> None:
        ar.store(b, T.INT32, at, n)
        if isinstance(v, Known):
            for j, ch in enumerate(known):
                ar.store(b, T.INT32, b.bin("add", at, i32(tr, j + 1)), i32(tr, ord(ch)))
        else:
            loop(tr, i32(tr, 0), n, lambda k: ar.store(
                b, T.INT32, b.bin("add", b.bin("add", at, i32(tr, 1)), k),
                ar.load(b, T.INT32, b.bin("add", off, k))))  # type: ignore[arg-type]  # fmt: skip
        ar.store(b, T.INT32, item, at)

    push_texts(tr, lst, i32(tr, 1), b.bin("add", n, i32(tr, 1)), "a list's string", node, write,
               only)


def append(tr: Translating, lst: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) != 1:
        tr.fail(node, f"list.append() takes exactly one argument ({len(args)} given)")
    if _is_text(args[0]):
        tr.at(node)
        _append_text(tr, lst, args[0], node)
        return Known(None)
    v = as_item(tr, lst, args[0], node)
    t = element_type(tr, lst, node)
    tr.at(node)
    push(tr, lst, t, [v], node)
    return Known(None)


def extend(tr: Translating, lst: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) != 1:
        tr.fail(node, "list.extend() takes exactly one argument")
    (other,) = args
    known_seq = isinstance(other, Known) and isinstance(other.value, (tuple, list))
    if isinstance(other, Tup) or known_seq:
        items = list(other.items) if isinstance(other, Tup) else [Known(x) for x in other.value]  # type: ignore[union-attr]
        if items and all(_is_text(v) for v in items):  # strings: each appended (copied)
            tr.at(node)
            for v in items:
                _append_text(tr, lst, v, node)
            return Known(None)
        values = [as_item(tr, lst, v, node) for v in items]
        if values:
            tr.at(node)
            push(tr, lst, element_type(tr, lst, node), values, node)
        return Known(None)
    if is_list(other):
        assert isinstance(other, Obj)
        if info_of(other).text:  # the same strings (they never change): their offsets
            holds_text(tr, lst, node)
        elif info_of(lst).text and info_of(other).dtype is not None:
            tr.fail(node, "this list holds strings (from its first item), and the numbers of "
                    "that list would mix them", "keep numbers in a list of their own")  # fmt: skip
        ot = element_type(tr, other, node)
        fix_type(tr, lst, ot, node)
        t = element_type(tr, lst, node)
        tr.at(node)
        b, ar = tr.b, arena(tr)
        n, m = length(tr, lst), length(tr, other)  # before: `xs.extend(xs)` doubles xs
        ok = reserve(tr, lst, t, m, node)

        def copy() -> None:
            src, dst = header(tr, other, DATA), header(tr, lst, DATA)
            loop(tr, i32(tr, 0), m, lambda k: ar.store(
                b, t, b.bin("add", dst, b.bin("add", n, k)),
                coerce(b, ar.load(b, ot, b.bin("add", src, k)), t)))  # fmt: skip
            set_header(tr, lst, LEN, b.bin("add", n, m))

        when(tr, ok, copy)
        return Known(None)
    tr.fail(node, "list.extend() takes a list or a tuple in a kernel")


def pop(tr: Translating, lst: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) > 1:
        tr.fail(node, "list.pop() takes at most one argument")
    t = element_type(tr, lst, node)
    tr.at(node)
    b, ar = tr.b, arena(tr)
    n = length(tr, lst)
    if not args:
        ok = b.cmp("gt", n, i32(tr, 0))
        raise_unless(tr, IndexError, ok, "pop from empty list", node)
        last = b.select(ok, b.bin("sub", n, i32(tr, 1)), i32(tr, 0))
        v = ar.load(b, t, b.bin("add", header(tr, lst, DATA), last))
        set_header(tr, lst, LEN, b.select(ok, last, n))
        return _item_value(tr, lst, v, ok)
    i, ok = checked_index(tr, lst, args[0], n, node, "pop index out of range")
    data = header(tr, lst, DATA)
    v = ar.load(b, t, b.bin("add", data, i))

    def remove() -> None:
        end = b.bin("sub", n, i32(tr, 1))

        def shift(k: Value) -> None:
            nxt = ar.load(b, t, b.bin("add", data, b.bin("add", k, i32(tr, 1))))
            ar.store(b, t, b.bin("add", data, k), nxt)

        loop(tr, i, end, shift)
        set_header(tr, lst, LEN, end)

    when(tr, ok, remove)
    return _item_value(tr, lst, v, ok)


def _item_value(tr: Translating, lst: Obj, v: Value, ok: Value) -> V:
    """An item taken out of the list: the number, or of a list of strings the string (the
    empty one where `ok` fails: the thread raised, and nothing is read)."""
    if not info_of(lst).text:
        return v
    s = text_item(tr, v)
    return s.with_field("n", tr.b.select(ok, s.get("n"), i32(tr, 0)))  # type: ignore[arg-type]


def _place_last(tr: Translating, lst: Obj, n: Value, i: Value, ok: Value,
                keep: bool) -> None:  # fmt: skip
    """After a string was appended to a list of `n` items (where it was: the length is
    n + 1), move it to place `i`: the items from there on one up (`keep`: `insert`), or in
    place of item i (the list's length back to n: `xs[i] = s`). Nothing where `ok` fails."""
    b, ar = tr.b, arena(tr)
    grew = b.bin("and", ok, b.cmp("eq", length(tr, lst), b.bin("add", n, i32(tr, 1))))

    def move() -> None:
        data = header(tr, lst, DATA)
        new = ar.load(b, T.INT32, b.bin("add", data, n))
        if keep:
            def shift(j: Value) -> None:  # j runs i to n - 1: item n - 1 - (j - i) moves up
                k = b.bin("sub", b.bin("add", n, i), b.bin("add", j, i32(tr, 1)))
                src = ar.load(b, T.INT32, b.bin("add", data, k))
                ar.store(b, T.INT32, b.bin("add", data, b.bin("add", k, i32(tr, 1))), src)

            loop(tr, i, n, shift)
        else:
            set_header(tr, lst, LEN, n)
        ar.store(b, T.INT32, b.bin("add", data, i), new)

    when(tr, grew, move)


def insert(tr: Translating, lst: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) != 2:
        tr.fail(node, "list.insert() takes exactly two arguments")
    text = _is_text(args[1])
    v = None if text else as_item(tr, lst, args[1], node)
    t = element_type(tr, lst, node) if not text else T.INT32
    tr.at(node)
    b, ar = tr.b, arena(tr)
    n = length(tr, lst)
    key = coerce(b, tr.scalar(args[0], node), T.INT32)
    # Python clips the position to the list: negative counts from the end
    i = b.select(b.cmp("lt", key, i32(tr, 0)), b.bin("add", key, n), key)
    i = b.bin("min", b.bin("max", i, i32(tr, 0)), n)
    if text:  # a copy of the string appended, then moved to its place
        _append_text(tr, lst, args[1], node)
        _place_last(tr, lst, n, i, b.const(True, T.BOOL), True)
        return Known(None)
    assert v is not None
    ok = reserve(tr, lst, t, i32(tr, 1), node)

    def place() -> None:
        data = header(tr, lst, DATA)

        def shift(j: Value) -> None:  # j runs i to n - 1: item n - 1 - (j - i) moves up one
            k = b.bin("sub", b.bin("add", n, i), b.bin("add", j, i32(tr, 1)))
            src = ar.load(b, t, b.bin("add", data, k))
            ar.store(b, t, b.bin("add", data, b.bin("add", k, i32(tr, 1))), src)

        loop(tr, i, n, shift)
        ar.store(b, t, b.bin("add", data, i), v)
        set_header(tr, lst, LEN, b.bin("add", n, i32(tr, 1)))

    when(tr, ok, place)
    return Known(None)


def clear(tr: Translating, lst: Obj, args: list[V], node: ast.AST) -> V:
    if args:
        tr.fail(node, "list.clear() takes no arguments")
    tr.at(node)
    set_header(tr, lst, LEN, i32(tr, 0))
    return Known(None)


def print_items(tr: Translating, lst: Obj) -> None:
    """`print(xs)`'s text of the list, as Python writes it (`[1, 2, 3]`), by print ops: the
    brackets, the first item, then each next one after ", "."""
    b, ar = tr.b, arena(tr)
    t = info_of(lst).dtype
    if t is None:
        b.op("print", [], parts=("[]",))
        return
    n = length(tr, lst)
    data = header(tr, lst, DATA)
    item = Field(0, "")  # formatted on the host as print formats a number
    def first() -> None:
        b.op("print", [ar.load(b, t, data)], parts=(item,))

    def next_one(k: Value) -> None:
        b.op("print", [ar.load(b, t, b.bin("add", data, k))], parts=(", ", item))

    b.op("print", [], parts=("[",))
    when(tr, b.cmp("gt", n, i32(tr, 0)), first)
    loop(tr, i32(tr, 1), n, next_one)
    b.op("print", [], parts=("]",))


def truth(tr: Translating, lst: Obj) -> Value:
    return tr.b.cmp("gt", length(tr, lst), i32(tr, 0))


# ------------------------------------------------------------------------------- syntax
def mutated_names(body: list[ast.stmt]) -> set[str]:
    """Names the function changes as a list: `x.append(...)` and the other mutators,
    `x[i] = v`, `x += [...]`; a list display or comprehension assigned to one is a run-time
    list."""
    out: set[str] = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name)
                and node.func.attr in LIST_METHODS
            ):
                out.add(node.func.value.id)
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                        out.add(t.value.id)
                    if isinstance(node, ast.AugAssign) and isinstance(t, ast.Name):
                        if isinstance(node.value, (ast.List, ast.ListComp)):
                            out.add(t.id)
    return out | reshaped_names(body)


def _display_lengths(node: ast.expr) -> list[int | None] | None:
    """The lengths of the lists a display (or `a if c else b` of displays) makes: None for
    one whose length is not in its syntax (a comprehension, `list(...)`, `[v] * n`); None
    for a value that is no display."""
    if isinstance(node, ast.IfExp):
        a, b = _display_lengths(node.body), _display_lengths(node.orelse)
        return None if a is None or b is None else a + b
    if not is_display(node):
        return None
    if isinstance(node, ast.List) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return [len(node.elts)]
    return [None]


def reshaped_names(body: list[ast.stmt]) -> set[str]:
    """Names given lists of different lengths (`xs = [1, 2] if c else [3, 4, 5]`, or
    `xs = [a]` here and `xs = [a, b]` there): a list display of known length is a tuple of
    values, which cannot hold both, so they are run-time lists, as Python's lists are."""
    lengths: dict[str, set[int | None]] = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                got = _display_lengths(node.value)
                if got is not None:
                    lengths.setdefault(node.targets[0].id, set()).update(got)
    return {n for n, ls in lengths.items() if len(ls) > 1}


def is_display(node: ast.expr) -> bool:
    """A list display, a list comprehension, `list(...)` or `[...] * n` (or `a if c else b`
    of them): what becomes a run-time list when assigned to a name the function changes as a
    list."""
    if isinstance(node, ast.IfExp):
        return is_display(node.body) and is_display(node.orelse)
    if isinstance(node, (ast.List, ast.ListComp)):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return isinstance(node.left, ast.List) or isinstance(node.right, ast.List)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
        node.func.id == "list"
    )


def from_display(tr: Translating, node: ast.expr) -> Obj:
    """The run-time list a display (`is_display`) makes."""
    if isinstance(node, ast.IfExp):  # the list of the arm the condition picks
        cond = tr.to_bool(tr.expr(node.test), node.test)
        if isinstance(cond, Known):
            return from_display(tr, node.body if cond.value else node.orelse)
        assert isinstance(cond, Value)
        name = f"$list{node.lineno}_{node.col_offset}"

        def arm(e: ast.expr) -> None:
            tr.env[name] = from_display(tr, e)

        body, orelse = node.body, node.orelse
        tr.branch(cond, lambda: arm(body), lambda: arm(orelse))
        made = tr.env.pop(name)
        if not is_list(made):
            tr.fail(node, "the two lists of this `if ... else` hold items of different types",
                    "give both the same item type (1.0 and 2 are a float and an int)")
        assert isinstance(made, Obj)
        return made
    if isinstance(node, ast.BinOp):
        items_node, count_node = (
            (node.left, node.right) if isinstance(node.left, ast.List) else (node.right, node.left)
        )
        items = [tr.expr(e) for e in items_node.elts]  # type: ignore[attr-defined]
        count = tr.expr(count_node)
        if isinstance(count, Known):
            if not isinstance(count.value, (int, np.integer)) or isinstance(count.value, bool):
                tr.fail(count_node, "a list can only be repeated an integer number of times")
            return make(tr, items * max(0, int(count.value)), node)  # NumPy ints too (seed 268)
        return repeat(tr, items, count, node)
    if isinstance(node, ast.Call):
        if node.keywords or len(node.args) > 1:
            tr.fail(node, "list() takes at most one argument")
        if not node.args:
            return make(tr, [], node)
        src = tr.expr(node.args[0])
        if is_list(src):
            assert isinstance(src, Obj)
            lst = make(tr, [], node)
            extend(tr, lst, [src], node)
            return lst
        node = ast.copy_location(
            ast.ListComp(
                elt=ast.Name(id="$x", ctx=ast.Load()),
                generators=[
                    ast.comprehension(target=ast.Name(id="$x", ctx=ast.Store()),
                                      iter=node.args[0], ifs=[], is_async=0)
                ],
            ),
            node,
        )  # fmt: skip
        ast.fix_missing_locations(node)
    if isinstance(node, ast.List):
        return make(tr, [tr.expr(e) for e in node.elts], node)
    assert isinstance(node, ast.ListComp)
    return comprehension(tr, node)


def comprehension(tr: Translating, node: ast.ListComp | ast.GeneratorExp,
                  tag: str = "") -> Obj:  # fmt: skip
    """`[elt for target in it if cond ...]` as a run-time list: the loops the comprehension
    stands for, appending to a fresh list; its variables are its own (as in Python 3).
    `tag`: as `make`'s, for a comprehension simt writes at the place of another list."""
    name = f"$lc{node.lineno}_{node.col_offset}{tag}"
    lst = make(tr, [], node, tag)
    append_call = ast.Call(
        func=ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()), attr="append",
                           ctx=ast.Load()),
        args=[node.elt], keywords=[],
    )  # fmt: skip
    stmt: ast.stmt = ast.Expr(value=append_call)
    ast.copy_location(stmt, node.elt)
    return run_comprehension(tr, node.generators, stmt, name, lst)


def each(tr: Translating, fn: V, seqs: list[V], node: ast.AST, keep: bool = False,
         run_time: bool = False, tag: str = "", columns: int = 0) -> V:  # fmt: skip
    """`[fn(x, y) for x, y in zip(xs, ys)]` over the values `seqs` (or, `keep`, `[x for x in
    xs if fn(x)]`; `fn` Known(None): `if x`), translated as that comprehension is: `fn` may
    be any function a kernel can call, called once per item, in order. `run_time`: a run-time
    list even over known items (`tag`: as `make`'s). `columns` > 0: `fn` gives tuples of that
    many items, and the result is a tuple of as many run-time lists, one per position (a list
    holds no tuples), made in that one loop. The names it binds are not identifiers, so no
    variable of the user's is hidden (a message about the call names "the function")."""
    if columns:
        return _columns(tr, fn, seqs, node, tag, columns)
    hidden, target, source, applied = _each_loop(fn, seqs)
    elt, ifs = applied, []
    if keep:
        elt = _load("item 0")  # (`_each_loop`'s name of the first sequence's item)
        ifs = [elt if isinstance(fn, Known) and fn.value is None else applied]
    gen = ast.comprehension(target=target, iter=source, ifs=ifs, is_async=0)
    comp = ast.fix_missing_locations(
        ast.copy_location(ast.ListComp(elt=elt, generators=[gen]), node))  # fmt: skip
    with _hiding(tr, hidden):
        return comprehension(tr, comp, tag) if run_time else tr.expr(comp)


def _columns(tr: Translating, fn: V, seqs: list[V], node: ast.AST, tag: str,
             width: int) -> Tup:  # fmt: skip
    """`each`'s tuple-valued form: `for x in xs: v = fn(x); c0.append(v[0]); c1.append(v[1])`
    into fresh run-time lists `c0`, `c1`, ... (the function called once per item, in order)."""
    made = [make(tr, [], node, f"{tag}{c}") for c in range(width)]
    hidden, target, source, applied = _each_loop(fn, seqs)
    hidden.update({f"column {c}": lst for c, lst in enumerate(made)})
    body: list[ast.stmt] = [ast.Assign([ast.Name("the value", ast.Store())], applied)]
    for c in range(width):
        item = ast.Subscript(_load("the value"), ast.Constant(c), ast.Load())
        body.append(ast.Expr(ast.Call(ast.Attribute(_load(f"column {c}"), "append", ast.Load()),
                                      [item], [])))  # fmt: skip
    stmt = ast.If(ast.Constant(True), body, [])  # the statements, in one
    gen = ast.comprehension(target=target, iter=source, ifs=[], is_async=0)
    for x in [*ast.walk(stmt), *ast.walk(target), *ast.walk(source)]:
        ast.copy_location(x, node)
    with _hiding(tr, hidden, "the value"):
        run_comprehension(tr, [gen], stmt, "column 0", made[0])
    return Tup(tuple(made))


def _load(name: str) -> ast.expr:
    return ast.Name(name, ast.Load())


def _each_loop(fn: V, seqs: list[V]) -> tuple[dict[str, V], ast.expr, ast.expr, ast.expr]:
    """What `each` loops with: the names it binds for the loop (the function, the
    sequences), the loop's target (`item 0`, or a tuple of them) and iterable (`items 0`, or
    `zip` of them), and the call of the function on the items."""
    hidden: dict[str, V] = {"the function": fn, "zip items": Known(zip)}
    hidden.update({f"items {k}": v for k, v in enumerate(seqs)})
    names = [f"item {k}" for k in range(len(seqs))]
    target: ast.expr = ast.Name(names[0], ast.Store())
    source = _load("items 0")
    if len(seqs) > 1:
        target = ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())
        source = ast.Call(_load("zip items"), [_load(f"items {k}") for k in range(len(seqs))], [])
    return hidden, target, source, ast.Call(_load("the function"), [_load(n) for n in names], [])


@contextmanager
def _hiding(tr: Translating, hidden: dict[str, V], *made: str) -> Iterator[None]:
    """`hidden` bound in the translator's environment while inside (and `made`, names the
    code inside binds); after, they are what they were before (one `each` may run inside
    another's function)."""
    names = [*hidden, *made]
    saved = {n: tr.env[n] for n in names if n in tr.env}
    tr.env.update(hidden)
    try:
        yield
    finally:
        for n in names:
            tr.env.pop(n, None)
        tr.env.update(saved)


def run_comprehension(tr: Translating, generators: list[ast.comprehension], stmt: ast.stmt,
                      name: str, made: Obj) -> Obj:  # fmt: skip
    """Run `stmt` (which fills `made`, read as `name`) inside the loops and conditions of a
    comprehension's `generators`; the comprehension's variables are its own (as in Python 3):
    after it, names it bound are what they were before. Returns `made`. (Lists, dicts and
    sets: `dicts.comprehension` too.)"""
    for g in reversed(generators):
        for cond in reversed(g.ifs):
            stmt = ast.copy_location(ast.If(test=cond, body=[stmt], orelse=[]), cond)
        stmt = ast.copy_location(ast.For(target=g.target, iter=g.iter, body=[stmt], orelse=[]),
                                 g.iter)  # fmt: skip
    ast.fix_missing_locations(stmt)
    targets = {n.id for g in generators for n in ast.walk(g.target)
               if isinstance(n, ast.Name)}  # fmt: skip
    saved = {n: tr.env[n] for n in targets if n in tr.env}
    tr.env[name] = made
    try:
        tr.stmts([stmt])
    finally:
        tr.env.pop(name, None)
        for n in targets:
            tr.env.pop(n, None)
        tr.env.update(saved)
    return made


def run_time_comprehension(tr: Translating, node: ast.ListComp | ast.GeneratorExp) -> bool:
    """Whether a generator of the comprehension walks a run-time sequence: a `range` with a
    run-time bound, an array or view, a run-time list or string (those cannot unroll; and
    `zip`/`enumerate`/`reversed` of one: `iteration.run_time_call`)."""
    for g in node.generators:
        it = g.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
            if any(not isinstance(tr.expr(a), Known) for a in it.args):
                return True
        elif isinstance(it, (ast.Name, ast.Attribute, ast.Subscript)):
            try:
                v = tr.expr(it)
            except CompileError:
                continue  # the unrolling path reports it
            if is_list(v) or (isinstance(v, Obj) and v.cls is RStr) or isinstance(v, View) or (
                isinstance(v, Value) and isinstance(v.type, T.ArrayType)
            ):
                return True
    return False
