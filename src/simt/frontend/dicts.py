"""Dicts and sets of numbers or strings, one per thread, in the per-thread arena (`arena.py`).

A run-time dict is an `Obj` of class `RDict` with two fields, `keys` and `values`: two
run-time lists (`lists.py`) whose item `j` is the dict's `j`-th entry, in insertion order. A
set is an `Obj` of class `RSet` with one field, `keys`. The state lives in the lists' headers
in the arena, so a dict behaves as Python's does: `e = d` is the same dict, and a helper that
adds to a dict it was given changes the caller's.

The table is linear: a lookup (`d[k]`, `k in d`, `d.get`, storing a key) compares the key
with every key the dict holds, O(n) for n entries, which is what a thread's tens of entries
want (no hashing, no probing, no tombstones); storing a new key appends it to both lists (they
grow as lists do), deleting one moves the later entries down one (also O(n)), so iteration is
always in insertion order (Python's order for dicts; for sets, whose order Python leaves
unspecified, simt gives insertion order too).

Keys are integers of any width or bools (the first key fixes the key type; later keys must
fit it, as a list's items must), or strings (`strings.py`): the keys list then holds, for
each key, the int32 offset of a copy of its characters after their count
(`lists.ListInfo.text`), compared by length and characters. Values are numbers (the first
fixes the value type). Number lookups take any number, compared as Python's `==` compares
numbers; a string looked up among numbers (or a number among strings) is not found. A
missing key is a `KeyError` of the thread (catchable by a `try`, reported after the launch
otherwise); running out of arena is a `MemoryError`. A `for` over a dict or a set checks
its size at each step (`iteration._Loop.run`: Python's RuntimeError).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import types as T
from ..ir import Field, Value
from . import lists, strings
from .context import Translating
from .lists import (
    DATA,
    LEN,
    arena,
    element_type,
    fold,
    header,
    i32,
    info_of,
    length,
    set_header,
    when,
)
from .raising import QUOTED_TEXT, payload_type, raise_builtin, set_state, site
from .scalars import coerce, known_type
from .values import Bound, Known, Obj, V, is_number, kind_of


class RDict:
    """The class of run-time dicts (`Obj(RDict, (("keys", list), ("values", list)))`)."""


class RSet:
    """The class of run-time sets (`Obj(RSet, (("keys", list),))`)."""


class RKeys:
    """`d.keys()`: a view of dict `d` (`Obj(RKeys, (("d", d),))`), as are the next two."""


class RValues:
    """`d.values()`."""


class RItems:
    """`d.items()`: walked as (key, value) pairs."""


VIEWS = (RKeys, RValues, RItems)


def is_dict(v: Any) -> bool:
    return isinstance(v, Obj) and v.cls is RDict


def is_set(v: Any) -> bool:
    return isinstance(v, Obj) and v.cls is RSet


def is_view(v: Any) -> bool:
    return isinstance(v, Obj) and v.cls in VIEWS


def is_dict_like(v: Any) -> bool:
    """A dict, a set or a view of a dict: what `for`, `len` and `in` take."""
    return isinstance(v, Obj) and (v.cls is RDict or v.cls is RSet or v.cls in VIEWS)


def _keys(d: Obj) -> Obj:
    k = d.get("keys")
    assert isinstance(k, Obj)
    return k


def _values(d: Obj) -> Obj:
    v = d.get("values")
    assert isinstance(v, Obj)
    return v


def _name(d: Obj) -> str:
    return "set" if is_set(d) else "dict"


def _owner(v: Obj) -> Obj:
    """The dict or set of a dict, a set or a view."""
    if v.cls in VIEWS:
        d = v.get("d")
        assert isinstance(d, Obj)
        return d
    return v


def as_list(tr: Translating, v: Obj, node: ast.AST, counted: bool = False,
            walked: bool = False) -> Obj:  # fmt: skip
    """The run-time list whose items a dict-like value walks: a dict's or set's keys, a
    view's keys or values (`sum(d.values())`, `sorted(s)`: read only, or copied). `counted`:
    only its length is wanted (`len(d.items())` is the number of keys); `walked`: a `for`
    loop reads its items one by one (string keys are read only so)."""
    if v.cls is RItems and not (counted or walked):
        tr.fail(node, "d.items() gives (key, value) pairs, which only a `for` loop takes in "
                      "a kernel", "loop: for k, v in d.items(): ...")  # fmt: skip
    d = _owner(v)
    out = _values(d) if v.cls is RValues else _keys(d)
    if info_of(out).text and not (counted or walked):
        tr.fail(node, f"a {_name(d)}'s string keys are read by a `for` loop, `in` and len() "
                      "in a kernel, not as a whole (sorted, min, max, list, sum)",
                "loop over them: for k in d: ...")  # fmt: skip
    return out


def describe(v: Any) -> str:
    """What a value is, in the user's words, for refusals (`a list`, `a dict`)."""
    if lists.is_list(v):
        return "a list"
    if is_dict(v):
        return "a dict"
    if is_set(v):
        return "a set"
    if is_view(v):
        return "a dict view"
    if strings.is_text(v):
        return "a string"
    return kind_of(v)


# ------------------------------------------------------------------------------- keys, values
def _text_keys(tr: Translating, d: Obj, key: V, node: ast.AST, store: bool) -> bool | None:
    """Whether `key` goes with `d`'s keys as a string (True) or a number (False): the first
    key (stored or looked up) fixes which the dict holds. None: the other kind, which a
    lookup never finds (Python's `1 in {"a": 2}` is False); storing it is refused."""
    info = info_of(_keys(d))
    text = strings.is_text(key)
    if text and (info.dtype is None or (info.guessed and not info.text)):
        # the first key, or the first after a number was guessed (a lookup before the first
        # store, in a loop): a dict of strings (translated again where the guess was wrong)
        if info.guessed:
            lists.retry(tr, info, lists.TEXT)
        info.dtype, info.text, info.guessed = T.INT32, True, False
        tr.ctx.list_hints[info.site] = lists.TEXT
        return True
    if info.dtype is None or info.text == text:
        return text
    if store:
        kinds = ("strings", "a number") if info.text else ("numbers", "a string")
        tr.fail(node, f"this {_name(d)}'s keys are {kinds[0]} (from its first key), and "
                      f"{kinds[1]} key would mix them", f"keep {kinds[1][2:]} keys in "
                      f"a {_name(d)} of their own")  # fmt: skip
    return None


def _lookup_key(tr: Translating, d: Obj, key: V, node: ast.AST) -> V:
    """A key to look up: a string, or any number (compared as Python's `==` compares
    numbers)."""
    if strings.is_text(key):
        return key
    if isinstance(key, Known) and not is_number(key.value):
        tr.fail(node, f"{_name(d)} keys in kernels are strings, integers (of any width) or "
                      f"bools, not {describe(key)}")  # fmt: skip
    if not isinstance(key, Known) and not (
        isinstance(key, Value) and isinstance(key.type, T.Scalar)
    ):
        tr.fail(node, f"{_name(d)} keys in kernels are strings, integers (of any width) or "
                      f"bools, not {describe(key)}",
                "a kernel's dicts and sets hold numbers and strings only")  # fmt: skip
    return key


def _store_key(tr: Translating, d: Obj, key: V, node: ast.AST) -> V:
    """A key to store: a string (`_put` copies it), or a number as the dict's key type
    (a `Value`, fixed by the first key)."""
    key = _lookup_key(tr, d, key, node)
    if _text_keys(tr, d, key, node, store=True):
        return key
    is_float = (
        isinstance(key.value, (float, np.floating))
        if isinstance(key, Known)
        else key.type.is_float  # type: ignore[union-attr]
    )
    if is_float:
        tr.fail(node, f"{_name(d)} keys in kernels are strings, integers (of any width) or "
                      "bools, not floats", "convert the key: int(x), or scale it to an "
                      "integer first")  # fmt: skip
    return lists.as_item(tr, _keys(d), key, node, (_name(d), "keys", "key"))


def _store_value(tr: Translating, d: Obj, value: V, node: ast.AST) -> Value:
    if isinstance(value, Known) and is_number(value.value):
        pass
    elif not (isinstance(value, Value) and isinstance(value.type, T.Scalar)):
        tr.fail(node, f"a dict's values in kernels are numbers (int, float, bool), not "
                      f"{describe(value)}", "keep one dict per field, or a list the dict's "
                      "values index")  # fmt: skip
    return lists.as_item(tr, _values(d), value, node, ("dict", "values", "value"))


def _key_error(tr: Translating, ok: Value, key: V, node: ast.AST) -> None:
    """The thread raises `KeyError(key)` where `ok` does not hold: its message is the key
    as Python writes it (a number known only at run time is a payload word)."""
    fails = tr.b.un("not", ok)
    if strings.is_str(key):  # its characters, quoted, as the message (Python: repr(key))
        assert isinstance(key, Obj)
        sid = site(tr, KeyError, QUOTED_TEXT, node, None, text=True)
        set_state(tr, sid, fails, (strings.offset(key), strings.length(tr, key)))
    elif isinstance(key, Known):
        raise_builtin(tr, KeyError, fails, repr(key.value.item() if isinstance(
            key.value, np.generic) else key.value), node)  # fmt: skip
    elif isinstance(key, Value) and key.scalar.is_int and not key.scalar.is_bool:
        word = coerce(tr.b, key, payload_type(tr))
        raise_builtin(tr, KeyError, fails, (0,), node, (word, Known(0)))
    else:
        raise_builtin(tr, KeyError, fails, "the key is not in the dict", node)


# ------------------------------------------------------------------------------- the table
def find(tr: Translating, d: Obj, key: V, node: ast.AST) -> Value:
    """The position of `key` among the keys (they are distinct), or -1: one pass over them
    (a string compared by its length, then its characters)."""
    text = _text_keys(tr, d, key, node, store=False)
    if text is None:
        return i32(tr, -1)  # a string among numbers, or a number among strings
    ks = _keys(d)
    t = element_type(tr, ks, node)
    b, ar = tr.b, arena(tr)
    data = header(tr, ks, DATA)

    def test(j: Value, acc: list[Value]) -> list[Value]:
        item = ar.load(b, t, b.bin("add", data, j))
        if text:
            same = strings.equal(tr, lists.text_item(tr, item), strings.text_of(key), node)
        else:
            same = coerce(b, tr.compare(ast.Eq(), item, key, node), T.BOOL)
        return [b.select(same, j, acc[0])]

    (out,) = fold(tr, i32(tr, 0), length(tr, ks), [i32(tr, -1)], test)
    return out


def _item(tr: Translating, lst: Obj, t: T.Scalar, j: Value) -> Value:
    return arena(tr).load(tr.b, t, tr.b.bin("add", header(tr, lst, DATA), j))


def _drop(tr: Translating, lst: Obj, t: T.Scalar, i: Value) -> None:
    """Remove item `i` of `lst`: the later items move down one."""
    b, ar = tr.b, arena(tr)
    end = b.bin("sub", length(tr, lst), i32(tr, 1))
    data = header(tr, lst, DATA)

    def shift(j: Value) -> None:
        nxt = ar.load(b, t, b.bin("add", data, b.bin("add", j, i32(tr, 1))))
        ar.store(b, t, b.bin("add", data, j), nxt)

    lists.loop(tr, i, end, shift)
    set_header(tr, lst, LEN, end)


def _put(tr: Translating, d: Obj, k: V, v: Value | None, node: ast.AST) -> None:
    """Store key `k` (of the key type, or a string) with value `v` (None for a set): the
    value of an entry already there changes; a new key goes last, a string key as a copy of
    its characters after their count (a MemoryError where there is no room, and then the
    dict stays as it was)."""
    b, ar = tr.b, arena(tr)
    ks = _keys(d)
    kt = element_type(tr, ks, node)
    vs = _values(d) if v is not None else None
    vt = element_type(tr, vs, node) if vs is not None else None
    tr.at(node)
    i = find(tr, d, k, node)
    found = b.cmp("ge", i, i32(tr, 0))
    extra = b.select(found, i32(tr, 0), i32(tr, 1))
    what = f"a growing {_name(d)}"
    ok = lists.reserve(tr, ks, kt, extra, node, what)
    if vs is not None:
        ok = b.bin("and", ok, lists.reserve(tr, vs, vt, extra, node, what))  # type: ignore[arg-type]
        at = b.bin("max", i, i32(tr, 0))
        when(tr, found, lambda: ar.store(
            b, vt, b.bin("add", header(tr, vs, DATA), at), v))  # type: ignore[arg-type]  # fmt: skip
    text = None if isinstance(k, Value) else strings.text_of(k)
    if text is None:
        assert isinstance(k, Value)
        key = k
    else:  # a string: room for its copy, taken only for a new key
        n = strings.length(tr, text)
        words = b.select(b.bin("and", b.un("not", found), ok), b.bin("add", n, i32(tr, 1)),
                         i32(tr, 0))  # fmt: skip
        key, room = ar.alloc(b, T.INT32, words)
        lists.raise_unless(tr, MemoryError, room, ar.exhausted(T.INT32, f"a {_name(d)}'s "
                           "string key"), node)  # fmt: skip
        ok = b.bin("and", ok, room)

    def append() -> None:
        if text is not None:  # its length, then its characters
            ar.store(b, T.INT32, key, strings.length(tr, text))
            strings.copy(tr, text, key, i32(tr, 1))
        n = length(tr, ks)
        ar.store(b, kt, b.bin("add", header(tr, ks, DATA), n), key)
        set_header(tr, ks, LEN, b.bin("add", n, i32(tr, 1)))
        if vs is not None:
            ar.store(b, vt, b.bin("add", header(tr, vs, DATA), n), v)  # type: ignore[arg-type]
            set_header(tr, vs, LEN, b.bin("add", n, i32(tr, 1)))

    when(tr, b.bin("and", b.un("not", found), ok), append)


# ------------------------------------------------------------------------------- making them
def new_dict(tr: Translating, node: ast.AST) -> Obj:
    ks = lists.make(tr, [], node, "keys")
    vs = lists.make(tr, [], node, "values")
    return Obj(RDict, (("keys", ks), ("values", vs)))


def new_set(tr: Translating, node: ast.AST) -> Obj:
    return Obj(RSet, (("keys", lists.make(tr, [], node, "keys")),))


def display(tr: Translating, node: ast.Dict) -> Obj:
    """`{k: v, ...}`: the entries in order (a repeated key keeps its first place and its last
    value, as in Python)."""
    if any(k is None for k in node.keys):
        tr.fail(node, "**unpacking in a dict display is not supported in kernels",
                "copy it: e = d.copy(), then e[k] = v for each new entry")  # fmt: skip
    pairs = [(tr.expr(k), tr.expr(v)) for k, v in zip(node.keys, node.values)]  # type: ignore[arg-type]
    d = new_dict(tr, node)
    for (k, v), kn in zip(pairs, node.keys):
        at = kn or node
        _put(tr, d, _store_key(tr, d, k, at), _store_value(tr, d, v, at), at)
    return d


def set_display(tr: Translating, node: ast.Set) -> Obj:
    for e in node.elts:
        if isinstance(e, ast.Starred):
            tr.fail(e, "*unpacking in a set display is not supported in kernels",
                    "add the items one by one: s.add(x)")  # fmt: skip
    items = [tr.expr(e) for e in node.elts]
    s = new_set(tr, node)
    for x, e in zip(items, node.elts):
        _put(tr, s, _store_key(tr, s, x, e), None, e)
    return s


def _hidden_loop(tr: Translating, node: ast.AST, made: Obj, it: ast.expr,
                 body: Callable[[ast.expr, ast.expr], ast.stmt]) -> None:  # fmt: skip
    """`for $x in it: body($made, $x)`, translated as the user's own loops are (so that a
    MemoryError or a KeyError inside raises as anywhere else). `it` is the iterable's syntax
    (`range(n)` takes the range loop's path) or a hidden name bound already."""
    name, x = f"$dm{node.lineno}_{node.col_offset}", f"$dx{node.lineno}_{node.col_offset}"  # type: ignore[attr-defined]
    ref = ast.Name(id=name, ctx=ast.Load())
    loop = ast.For(target=ast.Name(id=x, ctx=ast.Store()), iter=it,
                   body=[body(ref, ast.Name(id=x, ctx=ast.Load()))], orelse=[])  # fmt: skip
    ast.copy_location(loop, node)
    ast.fix_missing_locations(loop)  # the hidden parts take the call's place
    saved = {n: tr.env[n] for n in (name, x) if n in tr.env}
    tr.env[name] = made
    try:
        tr.stmts([loop])
    finally:
        for n in (name, x):
            tr.env.pop(n, None)
        tr.env.update(saved)


def _call(obj: ast.expr, method: str, args: list[ast.expr]) -> ast.stmt:
    fn = ast.Attribute(value=obj, attr=method, ctx=ast.Load())
    return ast.Expr(value=ast.Call(func=fn, args=args, keywords=[]))


def set_of(tr: Translating, node: ast.Call) -> Obj:
    """`set(it)`: each item of `it` (any sequence a `for` walks) added in order."""
    s = new_set(tr, node)
    _hidden_loop(tr, node, s, node.args[0], lambda ref, x: _call(ref, "add", [x]))
    return s


def copy_of(tr: Translating, d: Obj, node: ast.AST) -> Obj:
    """A new dict or set with the entries of `d` (`d.copy()`, `dict(d)`)."""
    out = new_set(tr, node) if is_set(d) else new_dict(tr, node)
    if info_of(_keys(d)).text:  # the copies share the keys' characters (strings never change)
        info = info_of(_keys(out))
        info.dtype, info.text = T.INT32, True
        tr.ctx.list_hints[info.site] = lists.TEXT
    lists.extend(tr, _keys(out), [_keys(d)], node)
    if is_dict(d):
        lists.extend(tr, _values(out), [_values(d)], node)
    return out


def comprehension(tr: Translating, node: ast.DictComp | ast.SetComp) -> Obj:
    """`{k: v for ...}` / `{x for ...}`: the loops the comprehension stands for, storing
    into a fresh dict or set; its variables are its own (as in Python 3)."""
    name = f"$dc{node.lineno}_{node.col_offset}"
    made = new_dict(tr, node) if isinstance(node, ast.DictComp) else new_set(tr, node)
    ref = ast.Name(id=name, ctx=ast.Load())
    stmt: ast.stmt
    if isinstance(node, ast.DictComp):
        target = ast.Subscript(value=ref, slice=node.key, ctx=ast.Store())
        stmt = ast.copy_location(ast.Assign(targets=[target], value=node.value), node.key)
    else:
        stmt = ast.copy_location(_call(ref, "add", [node.elt]), node.elt)
    return lists.run_comprehension(tr, node.generators, stmt, name, made)


def dict_call(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    """`dict()`, `dict(d)` of a run-time dict (a copy), `dict(name=value, ...)` (string
    keys), or a copy with such entries stored after its own."""
    if len(args) > 1 or (args and not is_dict(args[0])):
        tr.fail(node, "dict() in a kernel takes no argument or a dict (a copy), and "
                      "name=value entries", "build it: d = {}, then d[k] = v, or a "
                      "comprehension {k: v for ...}")  # fmt: skip
    d = copy_of(tr, args[0], node) if args else new_dict(tr, node)  # type: ignore[arg-type]
    for name, v in kwargs.items():
        _put(tr, d, _store_key(tr, d, Known(name), node), _store_value(tr, d, v, node), node)
    return d


def set_call(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    """`set()` (`set(it)` is `set_of`, called by calls.py before `it` is evaluated)."""
    if kwargs or args:
        tr.fail(node, "set() takes at most one argument, and no keywords")
    return new_set(tr, node)


# ------------------------------------------------------------------------------- operations
def getitem(tr: Translating, d: Obj, key: V, node: ast.AST) -> Value:
    """`d[k]`: its value; a KeyError where `k` is missing."""
    if not is_dict(d):
        tr.fail(node, f"'{describe(d)[2:]}' object is not subscriptable",
                "test membership with `x in s`, or loop over it")  # fmt: skip
    key = _lookup_key(tr, d, key, node)
    vt = element_type(tr, _values(d), node)
    tr.at(node)
    i = find(tr, d, key, node)
    ok = tr.b.cmp("ge", i, i32(tr, 0))
    _key_error(tr, ok, key, node)
    return _item(tr, _values(d), vt, tr.b.bin("max", i, i32(tr, 0)))


def setitem(tr: Translating, d: Obj, key: V, value: V, node: ast.AST) -> None:
    """`d[k] = v`."""
    if not is_dict(d):
        tr.fail(node, f"'{describe(d)[2:]}' object does not support item assignment",
                "add to a set with s.add(x)")  # fmt: skip
    _put(tr, d, _store_key(tr, d, key, node), _store_value(tr, d, value, node), node)


def delitem(tr: Translating, d: Obj, key: V, node: ast.AST) -> None:
    """`del d[k]`: a KeyError where `k` is missing."""
    if not is_dict(d):
        tr.fail(node, f"'{describe(d)[2:]}' object doesn't support item deletion",
                "remove from a set with s.discard(x) or s.remove(x)")  # fmt: skip
    _remove(tr, d, _lookup_key(tr, d, key, node), node, raising=True)


def _remove(tr: Translating, d: Obj, key: V, node: ast.AST, raising: bool) -> Value:
    """Remove `key`'s entry where it is there (a KeyError where not, if `raising`); whether
    it was there, and the position it had (0 where it was not)."""
    ks = _keys(d)
    kt = element_type(tr, ks, node)
    vt = element_type(tr, _values(d), node) if is_dict(d) else None
    tr.at(node)
    i = find(tr, d, key, node)
    ok = tr.b.cmp("ge", i, i32(tr, 0))
    if raising:
        _key_error(tr, ok, key, node)

    def drop() -> None:
        _drop(tr, ks, kt, i)
        if vt is not None:
            _drop(tr, _values(d), vt, i)

    when(tr, ok, drop)
    return ok


def contains(tr: Translating, v: Obj, key: V, node: ast.AST) -> Value:
    """`k in d` (a dict, a set, `d.keys()`), or `x in d.values()`."""
    if v.cls is RItems:
        tr.fail(node, "`in` of d.items() is not supported in kernels",
                "test `k in d and d[k] == v`")  # fmt: skip
    d = _owner(v)
    if v.cls is RValues:
        from .list_ops import contains as list_contains

        return list_contains(tr, _values(d), key, node)
    key = _lookup_key(tr, d, key, node)
    tr.at(node)
    return tr.b.cmp("ge", find(tr, d, key, node), i32(tr, 0))


def size(tr: Translating, v: Obj) -> Value:
    return length(tr, _keys(_owner(v)))


def truth(tr: Translating, v: Obj) -> Value:
    return tr.b.cmp("gt", size(tr, v), i32(tr, 0))


def _fetch(tr: Translating, d: Obj, args: list[V], node: ast.AST, method: str) -> V:
    """`d.get(k, default)` and `d.pop(k[, default])`: the value of `k`, else the default
    (a KeyError where `pop` has none); `pop` removes the entry."""
    if not 1 <= len(args) <= 2:
        tr.fail(node, f"dict.{method}() takes a key and an optional default ({len(args)} given)")
    if method == "get" and len(args) == 1:
        tr.fail(node, "d.get(k) gives None for a missing key, and a kernel's value cannot be "
                      "None", "give a default: d.get(k, 0), or test `k in d` first")  # fmt: skip
    key = _lookup_key(tr, d, args[0], node)
    vs = _values(d)
    vt = element_type(tr, vs, node)
    b = tr.b
    tr.at(node)
    i = find(tr, d, key, node)
    found = b.cmp("ge", i, i32(tr, 0))
    value = _item(tr, vs, vt, b.bin("max", i, i32(tr, 0)))
    if method == "pop":
        _remove(tr, d, key, node, raising=len(args) == 1)
    if len(args) == 1:
        return value
    default = args[1]
    if isinstance(default, Known) and is_number(default.value):
        dt = known_type(default.value, vt, tr.ctx.fp64)
    elif isinstance(default, Value) and isinstance(default.type, T.Scalar):
        dt = default.type
    else:
        tr.fail(node, f"dict.{method}()'s default must be a number in a kernel (the dict's "
                      f"values are), not {describe(default)}")  # fmt: skip
    rt = vt if dt == vt else T.promote(T.compute_type(vt), T.compute_type(dt))
    return b.select(found, coerce(b, value, rt), coerce(b, default, rt))


# ------------------------------------------------------------------------------- methods
def _get(tr: Translating, d: Obj, args: list[V], node: ast.AST) -> V:
    return _fetch(tr, d, args, node, "get")


def _pop(tr: Translating, d: Obj, args: list[V], node: ast.AST) -> V:
    return _fetch(tr, d, args, node, "pop")


def _setdefault(tr: Translating, d: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) != 2:
        tr.fail(node, "dict.setdefault() takes a key and a default in a kernel",
                "d.setdefault(k, 0)")  # fmt: skip
    setitem(tr, d, args[0], _fetch(tr, d, args, node, "get"), node)
    return getitem(tr, d, args[0], node)


def _view(cls: type) -> Callable[[Translating, Obj, list[V], ast.AST], V]:
    def view(tr: Translating, d: Obj, args: list[V], node: ast.AST) -> V:
        if args:
            tr.fail(node, f"dict.{cls.__name__[1:].lower()}() takes no arguments")
        return Obj(cls, (("d", d),))

    return view


def _clear(tr: Translating, d: Obj, args: list[V], node: ast.AST) -> V:
    if args:
        tr.fail(node, f"{_name(d)}.clear() takes no arguments")
    tr.at(node)
    set_header(tr, _keys(d), LEN, i32(tr, 0))
    if is_dict(d):
        set_header(tr, _values(d), LEN, i32(tr, 0))
    return Known(None)


def _copy(tr: Translating, d: Obj, args: list[V], node: ast.AST) -> V:
    if args:
        tr.fail(node, f"{_name(d)}.copy() takes no arguments")
    return copy_of(tr, d, node)


def _update(tr: Translating, d: Obj, args: list[V], node: ast.AST) -> V:
    """`d.update(e)` of another run-time dict: each entry of `e` stored in order."""
    if len(args) != 1 or not is_dict(args[0]):
        tr.fail(node, "dict.update() takes one dict in a kernel",
                "store the entries one by one: d[k] = v")  # fmt: skip
    src = f"$du{node.lineno}_{node.col_offset}"  # type: ignore[attr-defined]
    tr.env[src] = args[0]

    def store(ref: ast.expr, x: ast.expr) -> ast.stmt:
        value = ast.Subscript(value=ast.Name(id=src, ctx=ast.Load()), slice=x, ctx=ast.Load())
        return ast.Assign(targets=[ast.Subscript(value=ref, slice=x, ctx=ast.Store())],
                          value=value)  # fmt: skip

    try:
        _hidden_loop(tr, node, d, ast.Name(id=src, ctx=ast.Load()), store)
    finally:
        tr.env.pop(src, None)
    return Known(None)


def _add(tr: Translating, s: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) != 1:
        tr.fail(node, f"set.add() takes exactly one argument ({len(args)} given)")
    _put(tr, s, _store_key(tr, s, args[0], node), None, node)
    return Known(None)


def _discard(tr: Translating, s: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) != 1:
        tr.fail(node, "set.discard() takes exactly one argument")
    _remove(tr, s, _lookup_key(tr, s, args[0], node), node, raising=False)
    return Known(None)


def _set_remove(tr: Translating, s: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) != 1:
        tr.fail(node, "set.remove() takes exactly one argument")
    _remove(tr, s, _lookup_key(tr, s, args[0], node), node, raising=True)
    return Known(None)


Op = Callable[[Translating, Obj, list[V], ast.AST], V]
DICT_METHODS: dict[str, Op] = {
    "get": _get, "pop": _pop, "setdefault": _setdefault, "keys": _view(RKeys),
    "values": _view(RValues), "items": _view(RItems), "clear": _clear, "copy": _copy,
    "update": _update,
}  # fmt: skip
SET_METHODS: dict[str, Op] = {
    "add": _add, "discard": _discard, "remove": _set_remove, "clear": _clear, "copy": _copy,
}  # fmt: skip


class Method:
    """A dict or set method (`d.get`), bound by `attribute` and run by `call`."""

    def __init__(self, name: str) -> None:
        self.name = name

    def call(self, tr: Translating, d: Obj, args: list[V], kwargs: dict[str, V],
             node: ast.AST) -> V:  # fmt: skip
        if kwargs:
            tr.fail(node, f"{_name(d)}.{self.name}() takes no keyword arguments")
        table = SET_METHODS if is_set(d) else DICT_METHODS
        return table[self.name](tr, d, args, node)


def attribute(tr: Translating, v: Obj, attr: str, node: ast.AST) -> V:
    if is_view(v):
        tr.fail(node, f"a dict view in a kernel has len(), `in` and iteration, not .{attr}")
    table = SET_METHODS if is_set(v) else DICT_METHODS
    if attr not in table:
        names = ", ".join(sorted(table))
        extra = "len(), `in` and iteration" if is_set(v) else "len(), d[k], `in`, del d[k] " \
                "and iteration"  # fmt: skip
        tr.fail(node, f"{_name(v)}s in kernels have {names}, {extra}, not .{attr}")
    return Bound(v, Method(attr))


# ------------------------------------------------------------------------------- printing
# what a dict-like value prints around its entries, and when it has none
_BRACKETS: dict[type, tuple[str, str, str]] = {
    RDict: ("{", "}", "{}"), RSet: ("{", "}", "set()"),
    RKeys: ("dict_keys([", "])", "dict_keys([])"),
    RValues: ("dict_values([", "])", "dict_values([])"),
    RItems: ("dict_items([", "])", "dict_items([])"),
}  # fmt: skip


def print_items(tr: Translating, v: Obj) -> None:
    """`print(d)`'s text, as Python writes it (`{1: 2.5, 'a': 4.0}`, `{1, 2}`, `set()`,
    `dict_keys([1, 2])`), by print ops: the brackets, the first entry, then each next one
    after ", "; a string key in quotes (`strings.print_repr`)."""
    b = tr.b
    d = _owner(v)
    ks = _keys(d)
    info = info_of(ks)
    kt = info.dtype
    vs = _values(d) if is_dict(d) else None
    vt = info_of(vs).dtype if vs is not None else None
    first, last, empty = _BRACKETS[v.cls]
    if kt is None or (vs is not None and vt is None):
        b.op("print", [], parts=(empty,))
        return
    n = length(tr, ks)
    pending: list[str | Field] = []
    values: list[Value] = []

    def flush() -> None:
        if pending:
            b.op("print", list(values), parts=tuple(pending))
        pending.clear()
        values.clear()

    def show(lst: Obj, t: T.Scalar, j: Value) -> None:
        if lst is ks and info.text:
            flush()
            strings.print_repr(tr, lists.text_item(tr, _item(tr, lst, t, j)))
            return
        values.append(_item(tr, lst, t, j))
        pending.append(Field(len(values) - 1, ""))

    def entry(j: Value, sep: str) -> None:
        pending.append(sep + ("(" if v.cls is RItems else ""))
        if v.cls is not RValues:
            show(ks, kt, j)  # type: ignore[arg-type]
        if vs is not None and v.cls in (RDict, RItems, RValues):
            if v.cls is not RValues:
                pending.append(": " if v.cls is RDict else ", ")
            show(vs, vt, j)  # type: ignore[arg-type]
        if v.cls is RItems:
            pending.append(")")
        flush()

    def body() -> None:
        b.op("print", [], parts=(first,))
        when(tr, b.cmp("gt", n, i32(tr, 0)), lambda: entry(i32(tr, 0), ""))
        lists.loop(tr, i32(tr, 1), n, lambda j: entry(j, ", "))
        b.op("print", [], parts=(last,))

    if is_set(v):
        def nothing() -> None:
            b.op("print", [], parts=(empty,))

        when(tr, b.cmp("eq", n, i32(tr, 0)), nothing)
        when(tr, b.cmp("gt", n, i32(tr, 0)), body)
    else:
        body()
