"""Loops over run-time sequences and unpacking of array rows.

`for v in a` over an array or a view (a row `a[i]`, a column `a[:, j]`), and `zip`,
`enumerate` and `reversed` over such sequences, run-time lists and strings and `range(...)`
with run-time bounds (in a `for` or a comprehension), are rewritten as the loop the translator
already knows, on the syntax tree:

    for v in zip(a, range(lo, hi)):        for k in range(n):        # n = min(len(a), len(r))
        body                         ->        v = (a[k], lo + k * 1)
                                               body

Each sequence is evaluated once, before the loop, and bound to a hidden name (`$s...`, which no
Python name can spell); each item is then computed by the ordinary subscript and arithmetic
paths, so rows of 2-D arrays are views, bounds are checked as any index is, and errors point at
the user's line. `p1x, p1y = p[0]` (unpacking an array row) takes the row's first items.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable

import numpy as np

from .. import types as T
from ..errors import CompileError
from ..ir import Value
from . import dicts
from .context import Translating
from .lists import is_list
from .strings import is_str
from .values import Known, Obj, V, View, range_parts

_SEQ_FNS = ("zip", "enumerate", "reversed")
Item = Callable[[ast.expr], ast.expr]


def is_sequence(v: V) -> bool:
    """Whether `v` is a run-time sequence a `for` can walk: an array, a view of one, a
    run-time list (`frontend.lists`) or string (`frontend.strings`: its characters)."""
    if is_list(v) or is_str(v):
        return True
    if isinstance(v, View):
        return v.ndim >= 1
    return isinstance(v, Value) and isinstance(v.type, T.ArrayType) and v.type.ndim >= 1


class _Loop:
    """The pieces of one rewritten loop: hidden names bound in the translator's environment,
    the length expressions of the sequences and the item expression."""

    def __init__(self, tr: Translating, node: ast.For) -> None:
        self.tr = tr
        self.node = node
        self.names: list[str] = []
        self.lengths: list[ast.expr] = []
        self.k = self._name("k")  # the loop index: items are computed from it
        # the dicts and sets walked: (a hidden name of one, of its size before the loop, the
        # message of Python's RuntimeError where the size changes)
        self.sized: list[tuple[ast.Name, ast.Name, str]] = []

    def _name(self, what: str) -> str:
        n = f"${what}{self.node.lineno}_{self.node.col_offset}_{len(self.names)}"
        self.names.append(n)
        return n

    def bind(self, what: str, value: V) -> ast.Name:
        """A hidden name for `value` (evaluated once, before the loop)."""
        n = self._name(what)
        self.tr.env[n] = value
        return self._ref(n)

    def _ref(self, n: str) -> ast.Name:
        return ast.copy_location(ast.Name(id=n, ctx=ast.Load()), self.node.iter)

    def index(self) -> ast.Name:
        return self._ref(self.k)

    # one sequence: (its length, a function from an index expression to its item) ---------
    def sequence(self, arg: ast.expr) -> tuple[ast.expr, Item]:
        """Bind the sequence `arg` evaluates to; return its length and its item function
        (from an index expression to the item's expression)."""
        tr = self.tr
        if isinstance(arg, ast.Call) and _builtin(tr, arg.func, "range"):
            return self.range_sequence(arg)
        if isinstance(arg, ast.Call):
            for name in _SEQ_FNS:
                if _builtin(tr, arg.func, name):
                    return getattr(self, name)(arg)
        v = tr.expr(arg)
        if dicts.is_dict_like(v):
            return self.dict_sequence(v, arg)  # type: ignore[arg-type]
        if not is_sequence(v):
            if isinstance(v, Known) and isinstance(v.value, range):
                r = v.value
                return self._range_parts(arg, Known(r.start), Known(r.stop), r.step)
            tr.fail(
                arg,
                "zip/enumerate/reversed at run time walk arrays, array views and range(...)",
                "give each sequence as an array, a row a[i], or range(...)",
            )
        seq = self.bind("s", v)
        length = self.call("len", [seq], arg)
        return length, lambda k: ast.copy_location(
            ast.Subscript(value=seq, slice=k, ctx=ast.Load()), arg
        )

    def dict_sequence(self, v: Obj, at: ast.expr) -> tuple[ast.expr, Item]:
        """A dict or set (its keys), or a view of a dict: its keys, its values, or (key,
        value) pairs, item k being the k-th entry in insertion order. Its size is taken now,
        to be checked at each step (`run`)."""
        whole = self.bind("d", v)
        size = self.bind("dn", self.tr.expr(self.call("len", [whole], at)))
        what = "Set" if dicts.is_set(v) else "dictionary"
        self.sized.append((whole, size, f"{what} changed size during iteration"))
        if v.cls is dicts.RItems:
            keys = self.bind("s", dicts.as_list(self.tr, Obj(dicts.RKeys, v.fields), at,
                                                walked=True))  # fmt: skip
            values = self.bind("s", dicts.as_list(self.tr, Obj(dicts.RValues, v.fields), at))
            length = self.call("len", [keys], at)

            def pair(k: ast.expr) -> ast.expr:
                items: list[ast.expr] = [
                    ast.copy_location(ast.Subscript(value=s, slice=k, ctx=ast.Load()), at)
                    for s in (keys, values)
                ]
                return ast.copy_location(ast.Tuple(elts=items, ctx=ast.Load()), at)

            return length, pair
        seq = self.bind("s", dicts.as_list(self.tr, v, at, walked=True))
        length = self.call("len", [seq], at)
        return length, lambda k: ast.copy_location(
            ast.Subscript(value=seq, slice=k, ctx=ast.Load()), at
        )

    def zip(self, it: ast.Call) -> tuple[ast.expr, Item]:
        if it.keywords or not it.args:
            self.tr.fail(it, "zip() at run time takes one or more sequences and no keywords")
        parts = [self.sequence(a) for a in it.args]
        length = parts[0][0]
        if len(parts) > 1:
            length = self.call("min", [p[0] for p in parts], it)
        return length, lambda k: ast.copy_location(
            ast.Tuple(elts=[p[1](k) for p in parts], ctx=ast.Load()), it
        )

    def enumerate(self, it: ast.Call) -> tuple[ast.expr, Item]:
        tr = self.tr
        args = list(it.args)
        for kw in it.keywords:
            if kw.arg != "start":
                tr.fail(it, f"enumerate() has no keyword {kw.arg!r}")
            args.append(kw.value)
        if not 1 <= len(args) <= 2:
            tr.fail(it, "enumerate() takes a sequence and an optional start")
        start: ast.expr = _const(0, it)
        if len(args) == 2:
            start = self.bind("start", tr.expr(args[1]))
        length, elem = self.sequence(args[0])
        return length, lambda k: ast.copy_location(
            ast.Tuple(elts=[_bin(k, ast.Add(), start, it), elem(k)], ctx=ast.Load()), it
        )

    def reversed(self, it: ast.Call) -> tuple[ast.expr, Item]:
        if it.keywords or len(it.args) != 1:
            self.tr.fail(it, "reversed() takes one sequence")
        length, elem = self.sequence(it.args[0])
        n = self.bind("len", self.tr.expr(length))
        # item k of the reversed sequence is item n - 1 - k of the sequence itself
        return n, lambda k: elem(_bin(_bin(n, ast.Sub(), _const(1, it), it), ast.Sub(), k, it))

    def range_sequence(self, call: ast.Call) -> tuple[ast.expr, Item]:
        tr = self.tr
        if call.keywords or not 1 <= len(call.args) <= 3:
            tr.fail(call, "range() takes 1 to 3 positional arguments")
        vals = [tr.expr(a) for a in call.args]
        start, stop, step = range_parts(vals)
        if not (
            isinstance(step, Known)
            and isinstance(step.value, (int, np.integer))
            and step.value != 0
        ):
            tr.fail(
                call,
                "a range() inside zip/enumerate/reversed needs a step known at compile time "
                "(and not 0)",
            )
        return self._range_parts(call, start, stop, int(step.value))

    def _range_parts(self, at: ast.expr, start: V, stop: V, step: int) -> tuple[ast.expr, Item]:
        lo, hi = self.bind("lo", start), self.bind("hi", stop)
        s = _const(step, at)
        # len(range(lo, hi, s)) = max(0, (hi - lo + s - 1) // s) for s > 0, and with the
        # signs turned round for s < 0
        if step > 0:
            span = _bin(_bin(hi, ast.Sub(), lo, at), ast.Add(), _const(step - 1, at), at)
            n = _bin(span, ast.FloorDiv(), s, at)
        else:
            span = _bin(_bin(lo, ast.Sub(), hi, at), ast.Add(), _const(-step - 1, at), at)
            n = _bin(span, ast.FloorDiv(), _const(-step, at), at)
        length = self.call("max", [_const(0, at), n], at)
        return length, lambda k: _bin(lo, ast.Add(), _bin(k, ast.Mult(), s, at), at)

    def _known(self, name: str, value: object) -> ast.Name:
        """A hidden name for a known value (a builtin the user may have shadowed)."""
        self.tr.env[f"${name}"] = Known(value)
        self.names.append(f"${name}")
        return self._ref(f"${name}")

    def call(self, fn: str, args: list[ast.expr], at: ast.AST) -> ast.expr:
        self.tr.env.setdefault(f"${fn}", Known(getattr(builtins, fn)))
        self.names.append(f"${fn}")
        return ast.copy_location(ast.Call(func=self._ref(f"${fn}"), args=args, keywords=[]), at)

    # the loop ------------------------------------------------------------------------------
    def run(self, length: ast.expr, item: ast.expr) -> None:
        """`for k in range(n): target = item; body`. Over a dict or a set, each step first
        raises Python's RuntimeError where its size is not the size it had before the loop,
        and so does the step after the last (Python's `next()` finding the end): the loop
        runs to n inclusive, that step only checking (a `break` of the body skips it, as in
        Python)."""
        tr, node = self.tr, self.node
        n = self.bind("n", tr.expr(length))
        steps: ast.expr = n
        head: list[ast.stmt] = []
        for whole, size, message in self.sized:
            error = ast.Call(func=self._known("RuntimeError", RuntimeError),
                             args=[_const(message, node)], keywords=[])  # fmt: skip
            changed = ast.Compare(left=self.call("len", [whole], node), ops=[ast.NotEq()],
                                  comparators=[size])  # fmt: skip
            head.append(ast.If(test=changed, body=[ast.Raise(exc=error)], orelse=[]))
        if head:
            steps = _bin(n, ast.Add(), _const(1, node), node)
            last = ast.Compare(left=self.index(), ops=[ast.Eq()], comparators=[n])
            head.append(ast.If(test=last, body=[ast.Break()], orelse=[]))
        loop = ast.For(
            target=ast.copy_location(ast.Name(id=self.k, ctx=ast.Store()), node.target),
            iter=ast.copy_location(
                ast.Call(func=self._ref("$range"), args=[steps], keywords=[]), node.iter
            ),
            body=[
                *head,
                ast.copy_location(ast.Assign(targets=[node.target], value=item), node.target),
                *node.body,
            ],  # fmt: skip
            orelse=[],
        )
        ast.copy_location(loop, node)
        ast.fix_missing_locations(loop)  # the checks take the `for` line
        tr.env["$range"] = Known(builtins.range)
        self.names.append("$range")
        try:
            tr.stmt_For(loop)
        finally:
            for name in self.names:
                tr.env.pop(name, None)


def _builtin(tr: Translating, func: ast.expr, name: str) -> bool:
    if not isinstance(func, ast.Name):
        return False
    if func.id == f"${name}":
        return True
    try:
        v = tr.lookup(func.id, func)
    except Exception:  # noqa: BLE001 - an unknown name is simply not that builtin
        return False
    return isinstance(v, Known) and v.value is getattr(builtins, name)


def _const(value: int | str, at: ast.AST) -> ast.expr:
    return ast.copy_location(ast.Constant(value=value), at)


def _bin(a: ast.expr, op: ast.operator, b: ast.expr, at: ast.AST) -> ast.expr:
    return ast.copy_location(ast.BinOp(left=a, op=op, right=b), at)


def sequence_call(tr: Translating, node: ast.For) -> bool:
    """Translate `for ... in zip/enumerate/reversed(...)` when a sequence in it is known only at
    run time (an array, a view, a range with run-time bounds); False when every argument is
    known at compile time (the caller unrolls the loop then)."""
    it = node.iter
    if not isinstance(it, ast.Call):
        return False
    if not any(_builtin(tr, it.func, f) for f in _SEQ_FNS) or not _has_run_time(tr, it):
        return False
    loop = _Loop(tr, node)
    length, item = loop.sequence(it)
    loop.run(length, item(loop.index()))
    return True


def run_time_call(tr: Translating, node: ast.expr) -> bool:
    """Whether `node` is `zip/enumerate/reversed(...)` of a run-time sequence (an array, a
    view, a run-time list or string, a range with run-time bounds): a loop over its items
    (`for`, a comprehension) walks it at run time."""
    return (
        isinstance(node, ast.Call)
        and any(_builtin(tr, node.func, f) for f in _SEQ_FNS)
        and _has_run_time(tr, node)
    )


def _has_run_time(tr: Translating, call: ast.Call) -> bool:
    """Whether an argument of `call` is a run-time sequence or a range with run-time bounds.
    Names, subscripts and attributes are evaluated to see (views cost no ops); calls are looked
    at, not evaluated (evaluating twice would repeat their ops)."""
    for a in [*call.args, *(k.value for k in call.keywords if k.arg != "start")]:
        if isinstance(a, ast.Call) and _builtin(tr, a.func, "range"):
            if any(not isinstance(x, ast.Constant) for x in a.args):
                return True
        elif isinstance(a, ast.Call) and any(_builtin(tr, a.func, f) for f in _SEQ_FNS):
            if _has_run_time(tr, a):
                return True
        elif _dict_view_call(a):
            try:
                if dicts.is_dict_like(tr.expr(a.func.value)):  # type: ignore[attr-defined]
                    return True
            except CompileError:
                continue
        elif isinstance(a, (ast.Name, ast.Subscript, ast.Attribute)):
            try:
                v = tr.expr(a)
                if is_sequence(v) or dicts.is_dict_like(v):
                    return True
            except CompileError:
                continue  # not a sequence either: the caller's path reports it
    return False


def _dict_view_call(a: ast.expr) -> bool:
    """`d.keys()`, `d.values()`, `d.items()` (making a view costs no ops: evaluated twice)."""
    return (
        isinstance(a, ast.Call)
        and isinstance(a.func, ast.Attribute)
        and a.func.attr in ("keys", "values", "items")
        and not a.args
        and not a.keywords
    )


def over_dict(tr: Translating, node: ast.For, v: Obj) -> None:
    """`for target in d` over a dict or a set (its keys) or a view of a dict: the entries in
    insertion order. The number of entries is read once, before the loop; where the body
    changes it, the next step raises RuntimeError, as Python's does (`_Loop.run`)."""
    loop = _Loop(tr, node)
    length, item = loop.dict_sequence(v, node.iter)
    loop.run(length, item(loop.index()))


def over(tr: Translating, node: ast.For, seq: V) -> None:
    """`for target in seq` over an array or a view (already evaluated): item k is `seq[k]`."""
    loop = _Loop(tr, node)
    ref = loop.bind("s", seq)
    length = loop.call("len", [ref], node.iter)
    item = ast.Subscript(value=ref, slice=loop.index(), ctx=ast.Load())
    ast.copy_location(item, node.iter)
    loop.run(length, item)


def unpack(tr: Translating, v: V, n: int, node: ast.AST) -> list[V]:
    """`x, y = row`: the first `n` items of an array or view (its length must be `n`: a
    longer row is an error, as in Python, where the length is known at compile time)."""
    assert is_sequence(v)
    if isinstance(v, View):
        extent = v.dims[0].extent
    else:
        assert isinstance(v, Value)
        shape = v.array.shape
        extent = None if shape is None else shape[0]  # type: ignore[assignment]
    if isinstance(extent, int) and extent != n:
        tr.fail(node, f"expected {n} values to unpack, got {extent}")
    if isinstance(extent, Value):
        # checked where views are (sim always, other backends in debug mode): Python raises
        # for a row of another length
        tr.at(node)
        ok = tr.b.cmp("eq", extent, tr.const(n, extent.scalar))
        tr.b.op("assert", [ok], msg=f"unpacking a row into {n} names needs {n} items",
                view_check=True)  # fmt: skip
    elif extent is None:
        assert isinstance(v, Value)
        tr.at(node)
        length = tr.b.op("shape", [v], [v.array.index], dim=0).result
        ok = tr.b.cmp("eq", length, tr.const(n, length.scalar))
        tr.b.op("assert", [ok], msg=f"unpacking a row into {n} names needs {n} items",
                view_check=True)  # fmt: skip
    out: list[V] = []
    for k in range(n):
        sub = ast.Subscript(
            value=ast.Name(id="$row", ctx=ast.Load()),
            slice=ast.Constant(value=k),
            ctx=ast.Load(),
        )
        ast.copy_location(sub, node)
        ast.fix_missing_locations(sub)
        tr.env["$row"] = v
        try:
            out.append(tr.expr(sub))
        finally:
            tr.env.pop("$row", None)
    return out
