"""What a user does with a run-time list beyond growing it (`lists.py`): reading it whole
(`sum`, `min`, `max`, `x in xs`, `xs.index`, `xs.count`), reordering it in place
(`xs.reverse()`, `xs.sort()`, `xs.remove(v)`), and making new lists from it (`xs[a:b:c]`,
`sorted(xs)`, `xs.copy()`), plus the table of list methods (`METHODS`) that `xs.name`
looks up.

Each operation is a loop over the list's items in the arena, built as IR directly: a `for`
op whose carried values are the running result (`fold`). The results follow Python exactly
where the choice shows: `min`/`max` keep the first of equal items and compare as Python's
builtins do (an item replaces the running result only when it is strictly smaller/larger, so
a NaN behaves as in CPython), `sum` of bools is an int, an empty `min` is a `ValueError`.
Sorting is an insertion-free bubble sort: O(n^2), meant for the short lists a thread keeps.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from .. import types as T
from ..errors import CompileError
from ..ir import Value
from . import text_lists
from .context import Translating
from .lists import (
    DATA,
    KEYS_TAG,
    LEN,
    append,
    arena,
    bound,
    bubble,
    clear,
    each,
    element_type,
    extend,
    fix_type,
    fold,
    header,
    holds_text,
    i32,
    info_of,
    insert,
    is_list,
    length,
    loop,
    make,
    ordered,
    pop,
    raise_unless,
    set_header,
    slice_bounds,
    text_item,
    when,
)
from .local_functions import LocalFunction
from .raising import any_raising, guard_effect, raise_builtin
from .scalars import coerce, known_type, scalar_type
from .source import get_source
from .values import Bound, Known, Obj, Tup, V


def _load(tr: Translating, lst: Obj, t: T.Scalar, k: Value) -> Value:
    return arena(tr).load(tr.b, t, tr.b.bin("add", header(tr, lst, DATA), k))


def _store(tr: Translating, lst: Obj, t: T.Scalar, k: Value, v: Value) -> None:
    arena(tr).store(tr.b, t, tr.b.bin("add", header(tr, lst, DATA), k), v)


def _equal(tr: Translating, item: Value, v: V, node: ast.AST) -> Value:
    """`item == v` as Python compares two numbers (of different types too)."""
    got = tr.compare(ast.Eq(), item, v, node)
    return coerce(tr.b, got, T.BOOL)


def _number(tr: Translating, v: V, what: str, node: ast.AST) -> V:
    if isinstance(v, Known) and not isinstance(v.value, (bool, int, float, np.number)):
        tr.fail(node, f"{what}: a list in a kernel holds numbers, not a {type(v.value).__name__}")
    return tr.scalar(v, node)


# ------------------------------------------------------------------------------- reading
def total(tr: Translating, lst: Obj, start: V, node: ast.AST) -> Value:
    """`sum(xs, start)`: the start plus each item in order (Python adds left to right)."""
    if info_of(lst).text:
        text_lists.total(tr, start, node)
    t = element_type(tr, lst, node)
    start = _number(tr, start, "sum()", node)
    acc_t = T.compute_type(t)
    acc_t = T.INT32 if acc_t.is_bool else acc_t
    st = scalar_type(start) or known_type(start.value, acc_t, tr.ctx.fp64)  # type: ignore[union-attr]
    acc_t = T.promote(acc_t, T.compute_type(st))
    tr.at(node)

    def add(k: Value, acc: list[Value]) -> list[Value]:
        item = coerce(tr.b, _load(tr, lst, t, k), acc_t)
        return [tr.b.bin("add", acc[0], item)]

    (out,) = fold(tr, i32(tr, 0), length(tr, lst), [coerce(tr.b, start, acc_t)], add)
    return out


def min_max(tr: Translating, lst: Obj, op: str, node: ast.AST) -> Value:
    """`min(xs)` / `max(xs)`: the first item no other item is strictly below (above); an
    empty list raises ValueError as in Python."""
    if info_of(lst).text:
        return text_lists.min_max(tr, lst, op, node)  # type: ignore[return-value]
    t = element_type(tr, lst, node)
    tr.at(node)
    b = tr.b
    n = length(tr, lst)
    raise_unless(tr, ValueError, b.cmp("gt", n, i32(tr, 0)), f"{op}() arg is an empty sequence",
                 node)  # fmt: skip
    better = "lt" if op == "min" else "gt"

    def pick(k: Value, acc: list[Value]) -> list[Value]:
        item = _load(tr, lst, t, k)
        if t.is_bool:  # min of bools is `and`, max is `or`
            return [b.bin("and" if op == "min" else "or", acc[0], item)]
        return [b.select(b.cmp(better, item, acc[0]), item, acc[0])]

    (out,) = fold(tr, i32(tr, 1), n, [_load(tr, lst, t, i32(tr, 0))], pick)
    return out


def contains(tr: Translating, lst: Obj, v: V, node: ast.AST) -> Value:
    """`v in xs`: whether an item equals `v`."""
    if info_of(lst).text:
        return text_lists.contains(tr, lst, v, node)  # type: ignore[return-value]
    t = element_type(tr, lst, node)
    v = _number(tr, v, "in", node)
    tr.at(node)

    def test(k: Value, acc: list[Value]) -> list[Value]:
        return [tr.b.bin("or", acc[0], _equal(tr, _load(tr, lst, t, k), v, node))]

    (out,) = fold(tr, i32(tr, 0), length(tr, lst), [tr.b.const(False, T.BOOL)], test)
    return out


def _find(tr: Translating, lst: Obj, v: V, node: ast.AST) -> Value:
    """The first position holding an item equal to `v`, or -1."""
    t = element_type(tr, lst, node)
    b = tr.b

    def test(k: Value, acc: list[Value]) -> list[Value]:
        hit = b.bin("and", b.cmp("lt", acc[0], i32(tr, 0)),
                    _equal(tr, _load(tr, lst, t, k), v, node))  # fmt: skip
        return [b.select(hit, k, acc[0])]

    (out,) = fold(tr, i32(tr, 0), length(tr, lst), [i32(tr, -1)], test)
    return out


def _not_in_list(tr: Translating, lst: Obj, v: V, found: Value, node: ast.AST) -> None:
    """Raise Python's `ValueError: 5 is not in list` where `found` is -1."""
    t = element_type(tr, lst, node)
    ok = tr.b.cmp("ge", found, i32(tr, 0))
    if t.is_int and not t.is_bool:
        word = coerce(tr.b, v, T.INT64) if not isinstance(v, Known) else Known(int(v.value))
        fails = tr.b.un("not", ok)
        raise_builtin(tr, ValueError, fails, (0, " is not in list"), node, (word, Known(0)))
    else:
        raise_unless(tr, ValueError, ok, "the value is not in list", node)


def index(tr: Translating, lst: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) != 1:  # (the arguments are checked here for a list of strings too)
        tr.fail(node, "list.index() takes one argument in a kernel (no start/stop)",
                "slice first: xs[a:b].index(v) + a")  # fmt: skip
    if info_of(lst).text:
        return text_lists.index(tr, lst, args[0], node)
    v = _number(tr, args[0], "list.index()", node)
    tr.at(node)
    found = _find(tr, lst, v, node)
    _not_in_list(tr, lst, v, found, node)
    return tr.b.bin("max", found, i32(tr, 0))


def count(tr: Translating, lst: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) != 1:
        tr.fail(node, "list.count() takes exactly one argument")
    if info_of(lst).text:
        return text_lists.count(tr, lst, args[0], node)
    t = element_type(tr, lst, node)
    v = _number(tr, args[0], "list.count()", node)
    tr.at(node)
    b = tr.b

    def test(k: Value, acc: list[Value]) -> list[Value]:
        hit = _equal(tr, _load(tr, lst, t, k), v, node)
        return [b.bin("add", acc[0], b.select(hit, i32(tr, 1), i32(tr, 0)))]

    (out,) = fold(tr, i32(tr, 0), length(tr, lst), [i32(tr, 0)], test)
    return out


# ------------------------------------------------------------------------------- in place
def reverse(tr: Translating, lst: Obj, args: list[V], node: ast.AST) -> V:
    if args:
        tr.fail(node, "list.reverse() takes no arguments")
    t = element_type(tr, lst, node)
    tr.at(node)
    b = tr.b
    n = length(tr, lst)
    last = b.bin("sub", n, i32(tr, 1))

    def swap(k: Value) -> None:
        other = b.bin("sub", last, k)
        x, y = _load(tr, lst, t, k), _load(tr, lst, t, other)
        _store(tr, lst, t, k, y)
        _store(tr, lst, t, other, x)

    loop(tr, i32(tr, 0), b.bin("floordiv", n, i32(tr, 2)), swap)
    return Known(None)


def remove(tr: Translating, lst: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) != 1:
        tr.fail(node, "list.remove() takes exactly one argument")
    if info_of(lst).text:
        return text_lists.remove(tr, lst, args[0], node)
    element_type(tr, lst, node)
    v = _number(tr, args[0], "list.remove()", node)
    tr.at(node)
    found = _find(tr, lst, v, node)
    ok = tr.b.cmp("ge", found, i32(tr, 0))
    raise_unless(tr, ValueError, ok, "list.remove(x): x not in list", node)
    when(tr, ok, lambda: _drop(tr, lst, found, node))
    return Known(None)


def _drop(tr: Translating, lst: Obj, i: Value, node: ast.AST) -> None:
    """Remove item `i` (inside the list): the later items move down one."""
    t = element_type(tr, lst, node)
    b = tr.b
    end = b.bin("sub", length(tr, lst), i32(tr, 1))

    def shift(k: Value) -> None:
        _store(tr, lst, t, k, _load(tr, lst, t, b.bin("add", k, i32(tr, 1))))

    loop(tr, i, end, shift)
    set_header(tr, lst, LEN, end)


def _sort_keywords(tr: Translating, kwargs: dict[str, V],
                   node: ast.AST) -> tuple[bool | Value, V | None]:  # fmt: skip
    """Whether `reverse=` is true (a known bool, or a run-time one: an int or bool read as
    Python reads it), and the `key=` function (None without one, or with `key=None`)."""
    unknown = set(kwargs) - {"reverse", "key"}
    if unknown:
        tr.fail(node, f"sort() got an unexpected keyword argument {sorted(unknown)[0]!r}")
    rev = kwargs.get("reverse", Known(False))
    key = key_function(tr, kwargs.get("key", Known(None)), "sort", node)
    if isinstance(rev, Known) and isinstance(rev.value, (bool, int, np.integer)):
        return bool(rev.value), key
    if isinstance(rev, Value) and isinstance(rev.type, T.Scalar) and not rev.type.is_float:
        return tr.to_bool(rev, node), key  # type: ignore[return-value]
    tr.fail(node, "sort(reverse=...) takes a bool (or an int), as in Python",
            "reverse=True, reverse=False, or a condition such as reverse=t % 2 == 1")


def key_function(tr: Translating, key: V, what: str, node: ast.AST) -> V | None:
    """The `key=` of `sort`, `sorted`, `min`, `max`: None for none (`key=None`), else a
    function known at compile time (a lambda, a def, a builtin), or a refusal saying so."""
    if isinstance(key, Known) and key.value is None:
        return None
    if not (isinstance(key, Known) and (callable(key.value)
                                        or isinstance(key.value, LocalFunction))):  # fmt: skip
        tr.fail(node, f"{what}(key=...) takes a function known at compile time",
                "a lambda (key=lambda p: p % 10), a function defined with def, or a "
                "builtin such as abs or len")  # fmt: skip
    return key


def sort_in_place(tr: Translating, lst: Obj, reverse_order: bool | Value, node: ast.AST,
                  key: V | None = None) -> None:  # fmt: skip
    """A bubble sort of the list's items: adjacent items swap when the later is strictly
    smaller (larger, reversed), so equal items keep their order as in Python's stable sort.
    With a `key` function, by its values (`_sort_by_key`)."""
    if key is not None:
        _sort_by_key(tr, lst, key, reverse_order, node)
        return
    if info_of(lst).text:
        text_lists.sort_in_place(tr, lst, reverse_order, node)
        return
    t = element_type(tr, lst, node)
    tr.at(node)
    b = tr.b
    work_t = T.INT32 if t.is_bool else t

    def step(j: Value, j1: Value) -> None:
        x, y = _load(tr, lst, t, j), _load(tr, lst, t, j1)
        xw, yw = coerce(b, x, work_t), coerce(b, y, work_t)
        swap = ordered(tr, reverse_order, lambda: b.cmp("gt", yw, xw), lambda: b.cmp("lt", yw, xw))
        _store(tr, lst, t, j, b.select(swap, y, x))
        _store(tr, lst, t, j1, b.select(swap, x, y))

    bubble(tr, length(tr, lst), step)


def key_width(key: V) -> int:
    """How many items the tuples a key function gives have (0: it gives no tuple), read from
    its text: a lambda whose body is a tuple display (`lambda w: (len(w), w)`), or a def (in
    the kernel or a module's) whose every `return` gives one of the same length."""
    fn = key.value if isinstance(key, Known) else None
    node: ast.AST
    if isinstance(fn, LocalFunction):
        node = fn.node
    elif inspect.isfunction(fn):  # a module's function or lambda, compiled from its file
        try:
            node = get_source(fn).tree
        except CompileError:
            return 0
    else:
        return 0
    if isinstance(node, ast.Lambda):
        return len(node.body.elts) if isinstance(node.body, ast.Tuple) else 0
    assert isinstance(node, ast.FunctionDef)
    widths = {len(r.value.elts) if isinstance(r.value, ast.Tuple) else 0
              for r in _returns(node.body)}  # fmt: skip
    return widths.pop() if len(widths) == 1 else 0


def _returns(nodes: Iterable[ast.AST]) -> Iterator[ast.Return]:
    """The `return` statements among `nodes` (a function's body), not those of the functions
    or classes defined there."""
    for node in nodes:
        if isinstance(node, ast.Return):
            yield node
        if not isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
            yield from _returns(ast.iter_child_nodes(node))


def _keys_of(tr: Translating, lst: Obj, key: V, node: ast.AST) -> list[Obj]:
    """`[key(x) for x in lst]` (`lists.each`): always run-time lists, tagged apart from the
    lists made at the same call; a key giving tuples (`key_width`) gives a list per position,
    made in the one loop that calls it."""
    width = key_width(key)
    made = each(tr, key, [lst], node, run_time=True, tag=KEYS_TAG, columns=width)
    return list(made.items) if isinstance(made, Tup) else [made]  # type: ignore[list-item]


def _entry_type(tr: Translating, lst: Obj, node: ast.AST) -> T.Scalar:
    """The type of a list's entries: its items' type, or int32 (offsets) for strings."""
    return T.INT32 if info_of(lst).text else element_type(tr, lst, node)


Below = Callable[[list[Value], list[Value]], Value]


def _keyed(tr: Translating, lst: Obj, key: V, node: ast.AST
           ) -> tuple[list[Obj], list[T.Scalar], T.Scalar, Below]:  # fmt: skip
    """What a sort or a min/max by `key` works with: the lists of keys (`_keys_of`: one, or
    one per position of tuple keys), their entry types and the items', and whether one key
    (its entries) is strictly below another as Python orders them: numbers, strings by their
    offsets, tuples item by item (the first unequal pair decides; a NaN is unequal to the
    NaN of another key, as two NaNs computed apart are in Python, so there it decides)."""
    keys = _keys_of(tr, lst, key, node)
    kts = [_entry_type(tr, k, node) for k in keys]
    it = _entry_type(tr, lst, node)
    tr.at(node)
    b = tr.b

    def lt(c: int, x: Value, y: Value) -> Value:
        if info_of(keys[c]).text:
            return text_lists.below(tr, x, y)
        w = T.INT32 if kts[c].is_bool else kts[c]
        return b.cmp("lt", coerce(b, x, w), coerce(b, y, w))

    def eq(c: int, x: Value, y: Value) -> Value:
        if info_of(keys[c]).text:  # a total order: neither below the other
            return b.bin("and", b.un("not", lt(c, x, y)), b.un("not", lt(c, y, x)))
        w = T.INT32 if kts[c].is_bool else kts[c]
        return b.cmp("eq", coerce(b, x, w), coerce(b, y, w))

    def below(xs: list[Value], ys: list[Value]) -> Value:
        last = len(xs) - 1
        out = lt(last, xs[last], ys[last])
        for c in range(last - 1, -1, -1):
            out = b.bin("or", lt(c, xs[c], ys[c]), b.bin("and", eq(c, xs[c], ys[c]), out))
        return out

    return keys, kts, it, below


def _sort_by_key(tr: Translating, lst: Obj, key: V, reverse_order: bool | Value,
                 node: ast.AST) -> None:  # fmt: skip
    """`xs.sort(key=f)` as Python does it: the keys first (`_keys_of`), then the bubble sort
    of `sort_in_place` on the keys, each swap moving the items with them: stable, and equal
    keys keep their items' order."""
    keys, kts, it, below = _keyed(tr, lst, key, node)
    b = tr.b

    def step(j: Value, j1: Value) -> None:
        kx = [_load(tr, k, t, j) for k, t in zip(keys, kts)]
        ky = [_load(tr, k, t, j1) for k, t in zip(keys, kts)]
        x, y = _load(tr, lst, it, j), _load(tr, lst, it, j1)
        swap = ordered(tr, reverse_order, lambda: below(kx, ky), lambda: below(ky, kx))
        for k, t, a, c in zip(keys, kts, kx, ky):
            _store(tr, k, t, j, b.select(swap, c, a))
            _store(tr, k, t, j1, b.select(swap, a, c))
        _store(tr, lst, it, j, b.select(swap, y, x))
        _store(tr, lst, it, j1, b.select(swap, x, y))

    # a key that raised left the keys unfinished: Python sorts nothing then
    guard_effect(tr, lambda: bubble(tr, length(tr, lst), step))


def min_max_by_key(tr: Translating, lst: Obj, key: V, op: str, node: ast.AST) -> V:
    """`min(xs, key=f)` / `max(xs, key=f)`: the first item no other item's key is strictly
    below (above); an empty list raises ValueError as in Python."""
    keys, kts, it, below = _keyed(tr, lst, key, node)
    b = tr.b
    n = length(tr, lst)
    raise_unless(tr, ValueError, b.cmp("gt", n, i32(tr, 0)), f"{op}() arg is an empty sequence",
                 node)  # fmt: skip
    m = len(keys)

    def pick(k: Value, acc: list[Value]) -> list[Value]:
        kk = [_load(tr, lk, t, k) for lk, t in zip(keys, kts)]
        best = acc[:m]
        better = below(kk, best) if op == "min" else below(best, kk)
        return [*(b.select(better, x, y) for x, y in zip(kk, best)),
                b.select(better, k, acc[m])]  # fmt: skip

    first = i32(tr, 0)
    raising = any_raising(tr)  # a key raised: the keys are unfinished, none is compared
    if isinstance(raising, Value):
        n = b.select(raising, first, n)
    elif raising.value:  # type: ignore[union-attr]
        n = first
    firsts = [_load(tr, lk, t, first) for lk, t in zip(keys, kts)]
    *_, at = fold(tr, i32(tr, 1), n, [*firsts, first], pick)
    entry = _load(tr, lst, it, at)
    return text_item(tr, entry) if info_of(lst).text else entry


def sort(tr: Translating, lst: Obj, args: list[V], node: ast.AST,
         kwargs: dict[str, V] | None = None) -> V:  # fmt: skip
    if args:
        tr.fail(node, "list.sort() takes no positional arguments")
    rev, key = _sort_keywords(tr, kwargs or {}, node)
    sort_in_place(tr, lst, rev, node, key)
    return Known(None)


# ------------------------------------------------------------------------------- new lists
def copy_of(tr: Translating, lst: Obj, node: ast.AST) -> Obj:
    """A new list with the items of `lst` (`xs.copy()`, `list(xs)`, `xs[:]`; of a list of
    strings, the same strings: they never change)."""
    out = make(tr, [], node)
    extend(tr, out, [lst], node)
    return out


def concat(tr: Translating, a: V, c: V, node: ast.AST) -> Obj:
    """`xs + ys` with a run-time list on a side: a new list of the items of both (a list
    display or a run-time list on the other side; a list of strings takes strings)."""
    for v in (a, c):
        if isinstance(v, (Tup, Known)) and not (
            (isinstance(v, Tup) and v.is_list) or (isinstance(v, Known)
                                                   and isinstance(v.value, list))):  # fmt: skip
            what = type(v.value).__name__ if isinstance(v, Known) else "tuple"
            tr.fail(node, f'can only concatenate list (not "{what}") to list (Python\'s '
                    "TypeError)", "list(t) makes a list of a tuple")  # fmt: skip
        elif not isinstance(v, (Tup, Known, Obj)) or (isinstance(v, Obj) and not is_list(v)):
            tr.fail(node, "`+` of a list and this value: a list takes another list",
                    "xs.append(v) adds one item")  # fmt: skip
    out = make(tr, [], node)
    extend(tr, out, [a], node)
    extend(tr, out, [c], node)
    return out


def copy(tr: Translating, lst: Obj, args: list[V], node: ast.AST) -> V:
    if args:
        tr.fail(node, "list.copy() takes no arguments")
    return copy_of(tr, lst, node)


def sorted_copy(tr: Translating, lst: Obj, kwargs: dict[str, V], node: ast.AST) -> Obj:
    """`sorted(xs)`: a new, sorted list; `xs` stays as it was."""
    rev, key = _sort_keywords(tr, kwargs, node)
    out = copy_of(tr, lst, node)
    sort_in_place(tr, out, rev, node, key)
    return out


def getslice(tr: Translating, lst: Obj, sl: ast.Slice, node: ast.AST) -> Obj:
    """`xs[a:b:c]` as Python reads it: a new list of the items from a up to (not including)
    b, every c-th; bounds past either end are clipped, negative ones count from the end.
    The step must be known at compile time (it decides the direction). A list of strings
    gives a list of the same strings (their offsets copied: strings never change)."""
    start, stop = bound(tr, sl.lower, "start"), bound(tr, sl.upper, "stop")
    step_v = bound(tr, sl.step, "step")
    if step_v is not None and not isinstance(step_v, Known):
        tr.fail(sl.step or node, "a list slice's step must be known at compile time",  # type: ignore[arg-type]
                "write the loop: [xs[k] for k in range(a, b, step)]")  # fmt: skip
    step = int(step_v.value) if isinstance(step_v, Known) else 1
    if step == 0:
        tr.fail(node, "slice step cannot be zero")
    t = element_type(tr, lst, node)
    tr.at(node)
    lo, count_ = slice_bounds(tr, length(tr, lst), start, stop, step, node)
    out = make(tr, [], node)
    if info_of(lst).text:
        holds_text(tr, out, node)
    else:
        fix_type(tr, out, t, node)
    _fill_slice(tr, lst, out, t, lo, step, count_, node)
    return out


def _fill_slice(tr: Translating, src: Obj, out: Obj, t: T.Scalar, lo: Value, step: int,
                count_: Value, node: ast.AST) -> None:  # fmt: skip
    b = tr.b
    ar = arena(tr)
    data, ok = ar.alloc(b, t, count_)
    raise_unless(tr, MemoryError, ok, ar.exhausted(t, "a list slice"), node)

    def fill() -> None:
        def body(k: Value) -> None:
            at = b.bin("add", lo, b.bin("mul", k, i32(tr, step)))
            ar.store(b, t, b.bin("add", data, k), _load(tr, src, t, at))

        loop(tr, i32(tr, 0), count_, body)
        set_header(tr, out, LEN, count_)
        set_header(tr, out, 1, count_)
        set_header(tr, out, DATA, data)

    when(tr, ok, fill)


# ------------------------------------------------------------------------------- methods
Op = Callable[[Translating, Obj, list[V], ast.AST], V]
METHODS: dict[str, Op] = {
    "append": append, "pop": pop, "extend": extend, "insert": insert, "clear": clear,
    "index": index, "count": count, "reverse": reverse, "remove": remove, "copy": copy,
}  # fmt: skip
KEYWORDS = {"sort"}  # the methods that take keyword arguments


class Method:
    """A list method (`xs.append`), bound by `attribute` and run by `call`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def call(self, tr: Translating, lst: Obj, args: list[V], kwargs: dict[str, V],
             node: ast.AST) -> V:  # fmt: skip
        if self.name == "sort":
            return sort(tr, lst, args, node, kwargs)
        if kwargs:
            tr.fail(node, f"list.{self.name}() takes no keyword arguments")
        return METHODS[self.name](tr, lst, args, node)


def attribute(tr: Translating, lst: Obj, attr: str, node: ast.AST) -> V:
    if attr not in METHODS and attr not in KEYWORDS:
        names = ", ".join(sorted([*METHODS, *KEYWORDS]))
        tr.fail(node, f"lists in kernels have {names}, len(), indexing, slicing and iteration, "
                      f"not .{attr}")  # fmt: skip
    return Bound(lst, Method(attr))
