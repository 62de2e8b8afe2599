"""Loops that run at run time: `for` over a range with run-time bounds, and `while`.

The variables a loop body assigns that exist before the loop are carried: they become the
loop's block arguments and results. Their types are found by translating the body, looking at
what it yields, widening (an int counter that becomes a float sum) and translating again until
nothing changes. A `break` or `return` inside turns a range loop into a `while` whose
condition also tests the flag.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import types as T
from ..ir import Block, Value, walk
from . import lists, raising, strings
from .context import Translating
from .merge import merge_type
from .scalars import coerce, known_type
from .values import UNDEF, Known, Obj, Tup, V, is_number

BRK, CNT, RET, RETVAL = "$brk", "$cnt", "$ret", "$retval"
# the flags a loop's condition tests (the others carried are values: the return value, the
# raise site and its payload)
TESTED = (BRK, RET, raising.RAISED)


class _Raises(Exception):
    """The body may raise: translate the loop again, carrying the exception state."""


def _retrying(loop: Callable[..., None]) -> Callable[..., None]:
    """Translate a loop without the exception state first; if its body turns out to be able
    to raise (a raise, an assert, a helper that does, an access inside `try`), translate it
    again carrying `$raised` and testing it in the loop's condition."""

    def run(tr: Translating, *args: Any) -> None:
        saved, mark, loc = dict(tr.env), len(tr.b.block.ops), tr.b.loc
        try:
            loop(tr, *args, exc=False)
        except _Raises:
            tr.env = saved
            del tr.b.block.ops[mark:]
            tr.b.loc = loc
            for name in raising.STATE:
                tr.env.setdefault(name, Known(False) if name == raising.RAISED else Known(0))
            loop(tr, *args, exc=True)

    return run


def _check_raises(tr: Translating, exc: bool) -> None:
    if not exc and raising.may_raise(tr):
        raise _Raises()


def assigned_names(body: list[ast.stmt]) -> set[str]:
    """Names stored to anywhere in `body` (comprehension variables excluded)."""
    out: set[str] = set()
    skip: set[int] = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
                for g in node.generators:
                    for n in ast.walk(g.target):
                        skip.add(id(n))
            if (
                isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Store)
                and id(node) not in skip
            ):
                out.add(node.id)
    return out


def _contains(body: list[ast.stmt], kind: type, into_loops: bool) -> bool:
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, kind):
            return True
        if not into_loops and isinstance(node, (ast.For, ast.While)):
            todo.extend(node.orelse)
            continue
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False


# T.Scalar, a list of shapes (a tuple), an `_ObjShape` (an object carried field by field:
# a complex number), or None (not carried)
Shape = Any


@dataclass(frozen=True)
class _ObjShape:
    cls: type
    fields: tuple[tuple[str, Shape], ...]


class _ListShape(list):  # type: ignore[type-arg]
    """The shape of a list display's items (printed as a list after the loop)."""


class _MixedShape(list):  # type: ignore[type-arg]
    """The shape of a tuple on some trips and a list display on others (`Tup.mixed`)."""


def _is_list_display(v: V) -> bool:
    return (isinstance(v, Tup) and v.is_list) or (
        isinstance(v, Known) and isinstance(v.value, list)
    )


@dataclass(frozen=True)
class _Fixed:
    """A run-time list's `ListInfo` (a field known at compile time, the same on every trip
    of a loop that reassigns the list): not carried, given back as it is."""

    value: Known


def _same_fixed(a: _Fixed, b: _Fixed) -> _Fixed | None:
    """One known field for both, or None. Two lists' infos agree when their item types do;
    a list still without a type (`ys = []` before the loop) takes the other's."""
    x, y = a.value.value, b.value.value
    return a if x is y or lists.unify_infos(x, y) else None


def _complex_cls() -> type:
    from ..complexnum import Complex

    return Complex


def _type_of(v: V, current: Shape, fp64: bool) -> Shape:
    """The carried shape of `v`: its scalar type, a list of them for a tuple, or the shapes
    of an object's fields (a complex number)."""
    if isinstance(v, Known) and isinstance(v.value, complex):
        v = Obj(_complex_cls(), (("re", Known(v.value.real)), ("im", Known(v.value.imag))))
    if isinstance(v, Obj):
        now = current if isinstance(current, _ObjShape) and current.cls is v.cls else None
        fs = []
        for k, x in v.fields:
            if isinstance(x, Known) and lists.is_info(x.value):
                fs.append((k, _Fixed(x)))
                continue
            prev = dict(now.fields).get(k) if now is not None else None
            fs.append((k, _type_of(x, prev, fp64)))
        return None if any(x is None for _, x in fs) else _ObjShape(v.cls, tuple(fs))
    items = _tuple_items(v)
    if items is not None:
        cur = current if isinstance(current, list) and len(current) == len(items) else None
        shapes = [_type_of(x, cur[k] if cur else None, fp64) for k, x in enumerate(items)]
        if any(x is None for x in shapes):
            return None
        if isinstance(v, Tup) and v.mixed:
            return _MixedShape(shapes)
        return _ListShape(shapes) if _is_list_display(v) else shapes
    if isinstance(v, Value):
        return v.type if isinstance(v.type, T.Scalar) else None
    if isinstance(v, Known) and is_number(v.value):
        sc = current if isinstance(current, T.Scalar) else None
        return known_type(v.value, sc, fp64)
    return None


def _tuple_items(v: V) -> list[V] | None:
    if isinstance(v, Tup):
        return list(v.items)
    if isinstance(v, Known) and isinstance(v.value, (tuple, list)):
        return [Known(x) for x in v.value]
    return None


def _merge_shape(a: Shape, b: Shape) -> Shape:
    if isinstance(a, _Fixed) or isinstance(b, _Fixed):
        if isinstance(a, _Fixed) and isinstance(b, _Fixed):
            return _same_fixed(a, b)
        return None
    if isinstance(a, _ObjShape) or isinstance(b, _ObjShape):
        # a number and a complex number: complex (the number is its real part)
        if isinstance(a, T.Scalar) and b.cls is _complex_cls():
            a = _ObjShape(b.cls, (("re", a), ("im", a)))
        if isinstance(b, T.Scalar) and a.cls is _complex_cls():
            b = _ObjShape(a.cls, (("re", b), ("im", b)))
        if not (isinstance(a, _ObjShape) and isinstance(b, _ObjShape) and a.cls is b.cls):
            return None
        fb = dict(b.fields)
        fs = tuple((k, _merge_shape(x, fb.get(k))) for k, x in a.fields)
        return None if any(x is None for _, x in fs) else _ObjShape(a.cls, fs)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        merged = [_merge_shape(x, y) for x, y in zip(a, b)]
        if isinstance(a, _MixedShape) or isinstance(b, _MixedShape) or (
            isinstance(a, _ListShape) != isinstance(b, _ListShape)
        ):
            return _MixedShape(merged)
        both = isinstance(a, _ListShape) and isinstance(b, _ListShape)
        return _ListShape(merged) if both else merged
    if isinstance(a, T.Scalar) and isinstance(b, T.Scalar):
        return merge_type(a, b)
    return None


def _leaves(shape: Shape) -> list[T.Scalar]:
    if isinstance(shape, _Fixed):
        return []
    if isinstance(shape, _ObjShape):
        return [t for _, s in shape.fields for t in _leaves(s)]
    if isinstance(shape, list):
        return [t for s in shape for t in _leaves(s)]
    return [shape] if shape is not None else []


def _user_name(n: str) -> str:
    return "the function's return value" if n == RETVAL else f"`{n}`"


class _Carried:
    """The carried variables of one loop and their current shapes (scalar types, or lists
    of them for tuples: a helper's tuple result returned from inside a loop, say)."""

    def __init__(self, tr: Translating, names: list[str], node: ast.AST) -> None:
        self.names = names
        self.node = node
        self.types: dict[str, Shape] = {}
        for n in names:
            v = tr.env.get(n, UNDEF)
            if isinstance(v, Value) and isinstance(v.type, T.ArrayType):
                tr.fail(
                    node,
                    f"the array variable `{n}` is reassigned inside a loop that runs at run time",
                    "use separate names, or index one array",
                )
            if isinstance(v, Known) and isinstance(v.value, str):
                # a string the loop reassigns lives in the arena (frontend/strings.py)
                v = tr.env[n] = strings.materialise(tr, v.value, node)
            if (isinstance(v, Known) and not is_number(v.value) and v.value is not None) and (
                _type_of(v, None, tr.ctx.fp64) is None
            ):
                tr.fail(
                    node,
                    f"{_user_name(n)} holds a value known at compile time and is reassigned "
                    "inside a loop that runs at run time",
                    "give each item its own variable, or assign numbers",
                )
            self.types[n] = _type_of(v, None, tr.ctx.fp64)

    def bind(self, tr: Translating, block: Block) -> None:
        """Add block arguments for the typed names and bind them (others to UNDEF)."""
        for n in self.names:
            tr.env[n] = self._build(self.types[n], lambda t, n=n: self._arg(block, t, n))  # type: ignore[misc]

    @staticmethod
    def _arg(block: Block, t: T.Scalar, n: str) -> Value:
        a = Value(t, n if not n.startswith("$") else "")
        block.args.append(a)
        return a

    def _build(self, shape: Shape, leaf: Callable[[T.Scalar], Value]) -> V:
        if shape is None:
            return UNDEF
        if isinstance(shape, _Fixed):
            return shape.value
        if isinstance(shape, _ObjShape):
            return Obj(shape.cls, tuple((k, self._build(s, leaf)) for k, s in shape.fields))
        if isinstance(shape, list):
            return Tup(tuple(self._build(s, leaf) for s in shape),
                       is_list=isinstance(shape, _ListShape),
                       mixed=isinstance(shape, _MixedShape))  # fmt: skip
        return leaf(shape)

    def values(self, tr: Translating, block: Block) -> list[Value]:
        """The current values of the typed names, coerced, appended to `block`."""
        out: list[Value] = []
        with tr.b.at(block):
            for n in self.names:
                self._flatten(tr, tr.env.get(n, UNDEF), self.types[n], out)
        return out

    def _flatten(self, tr: Translating, v: V, shape: Shape, out: list[Value]) -> None:
        if shape is None or isinstance(shape, _Fixed):
            return
        if isinstance(shape, _ObjShape):
            if isinstance(v, Known) and isinstance(v.value, complex):
                v = Obj(shape.cls, (("re", Known(v.value.real)), ("im", Known(v.value.imag))))
            elif not isinstance(v, Obj) and v is not UNDEF and shape.cls is _complex_cls():
                v = Obj(shape.cls, (("re", v), ("im", Known(0.0))))  # a real number
            if v is not UNDEF and not (isinstance(v, Obj) and v.cls is shape.cls):
                tr.fail(
                    self.node,
                    f"a variable is a {shape.cls.__name__} in this loop and something else "
                    "before or in it",
                    "keep one kind of value in a variable a run-time loop reassigns",
                )
            for field, sub in shape.fields:
                x = v.get(field) if isinstance(v, Obj) and v.has(field) else UNDEF
                self._flatten(tr, x, sub, out)
            return
        if isinstance(shape, list):
            items = _tuple_items(v) if v is not UNDEF else None
            for k, s in enumerate(shape):
                self._flatten(tr, items[k] if items and k < len(items) else UNDEF, s, out)
        elif v is UNDEF or (isinstance(v, Known) and v.value is None):
            out.append(tr.b.const(False if shape.is_bool else 0, shape))
        else:
            out.append(coerce(tr.b, tr.scalar(v, self.node), shape))

    def widen(self, tr: Translating, env: dict[str, V]) -> bool:
        """Widen the types to what the body produced; True if anything changed."""
        changed = False
        for n in self.names:
            cur = self.types[n]
            v = env.get(n, UNDEF)
            yt = _type_of(v, cur, tr.ctx.fp64)
            if yt is None and not (v is UNDEF and cur is not None and not n.startswith("$")):
                continue
            # a variable typed before the loop and UNDEF at the body's end: the body's paths
            # gave it different shapes (an `if` merged a 1-tuple with a 2-tuple); carrying the
            # old shape would silently read zeros after the loop
            new = None if yt is None else yt if cur is None else _merge_shape(cur, yt)
            if new is None:
                tr.fail(
                    self.node,
                    f"{_user_name(n)} changes between a number and a tuple (or tuples of "
                    "different lengths) inside a loop that runs at run time",
                    "give each variable one shape",
                )
            if new != cur or type(new) is not type(cur):
                self.types[n] = new
                changed = True
        return changed

    def typed_names(self) -> list[str]:
        return [n for n in self.names if self.types[n] is not None]

    def flat_types(self) -> list[T.Scalar]:
        """The scalar types of every carried value, in the order `values` gives them."""
        return [t for n in self.names for t in _leaves(self.types[n])]

    def rebuild(self, n: str, results: list[Value]) -> V:
        """Name `n`'s value after the loop, taking its results from the front of `results`."""
        return self._build(self.types[n], lambda t: results.pop(0))


def _fixpoint(
    tr: Translating,
    node: ast.AST,
    carried: _Carried,
    translate: Callable[[], tuple[list[Block], dict[str, V]]],
) -> list[Block]:
    """Translate the loop's regions until the carried types stop changing."""
    saved = dict(tr.env)
    for _ in range(5):
        blocks, env = translate()
        tr.env = dict(saved)
        if not carried.widen(tr, env):
            return blocks
    tr.fail(
        node,
        "the types of the variables this loop changes do not settle",
        "give each variable one type, e.g. start a float sum at 0.0",
    )


@_retrying
def range_loop(
    tr: Translating,
    node: ast.For,
    start: V,
    stop: V,
    step: V,
    t: T.Scalar,
    sign: int,
    exc: bool = False,
) -> None:
    """`for target in range(start, stop, step)` at run time (`exc`: carrying the exception
    state, `_retrying`)."""
    assert isinstance(node.target, ast.Name)
    target = node.target.id
    has_brk = _contains(node.body, ast.Break, into_loops=False)
    has_ret = _contains(node.body, ast.Return, into_loops=True)
    flags = [BRK] if has_brk else []
    if has_ret:
        flags += [RET, RETVAL] if RETVAL in tr.env else [RET]
    if exc:
        flags += list(raising.STATE)
    names = sorted(n for n in assigned_names(node.body) if n in tr.env and n != target)
    outer = {f: tr.env.get(f) for f in (BRK, CNT)}
    lo, hi, st = (coerce(tr.b, v, t) for v in (start, stop, step))
    if has_brk:
        tr.env[BRK] = Known(False)
    carried = _Carried(tr, names + flags, node)

    def cond_value(iv: Value) -> Value:
        b = tr.b
        if sign > 0:
            return b.cmp("lt", iv, hi)
        if sign < 0:
            return b.cmp("gt", iv, hi)
        up = b.cmp("gt", st, b.const(0, t))
        return b.select(up, b.cmp("lt", iv, hi), b.cmp("gt", iv, hi))

    def body(block: Block, iv: Value) -> dict[str, V]:
        tr.env[target] = iv
        tr.env[CNT] = Known(False)
        if not has_brk:
            tr.env[BRK] = Known(False)
        with tr.b.at(block):
            if exc and not runs_on and isinstance(tr.env.get(raising.RAISED), Value):
                # a thread that raised in an earlier trip skips the rest of its trips (it
                # stops: `Context.raise_after` False); one that runs on without effects
                # runs them so
                tr.at(node.body[0])
                tr.branch(tr.b.un("not", tr.env[raising.RAISED]),  # type: ignore[arg-type]
                          lambda: _not_raising(tr, node.body), tr.left)  # fmt: skip
            else:
                tr.stmts(node.body)
        _check_raises(tr, exc)
        return dict(tr.env)

    # a loop whose only carried flags are the exception state's stays a `for` (its trips
    # counted, its variable's range known to the bounds pass), the state carried as values
    runs_on = tr.ctx.raise_after and tr.ctx.try_depth == 0  # (as `exit_state` has it)
    if not flags or not (has_brk or has_ret):

        def translate_for() -> tuple[list[Block], dict[str, V]]:
            blk = Block()
            iv = Value(t, target)
            blk.args.append(iv)
            carried.bind(tr, blk)
            env = body(blk, iv)
            tr.env = env
            blk.ops.append(_yield(tr, carried, blk))
            return [blk], env

        (blk,) = _fixpoint(tr, node, carried, translate_for)
        tr.at(node)  # the loop op is located at its `for` line (kernel.explain shows it)
        inits = carried.values(tr, tr.b.block)
        op = tr.b.op(
            "for",
            [lo, hi, st, *inits],
            carried.flat_types(),
            [blk],
            sign=sign,
        )
    else:
        iv_name = "$iv"

        def translate_while() -> tuple[list[Block], dict[str, V]]:
            cblk, bblk = Block(), Block()
            ivc = Value(t, target)
            cblk.args.append(ivc)
            carried.bind(tr, cblk)
            tr.b.loc = None  # the loop's own test and step: no line of the user's to show
            with tr.b.at(cblk):  # (kernel.explain shows the loop as it shows a `for` op)
                c = cond_value(ivc)
                for f in flags:
                    if f in TESTED and isinstance(tr.env.get(f), Value):
                        c = tr.b.bin("and", c, tr.b.un("not", tr.env[f]))  # type: ignore[arg-type]
                tr.b.op("condition", [c])
            ivb = Value(t, target)
            bblk.args.append(ivb)
            carried.bind(tr, bblk)
            env = body(bblk, ivb)
            tr.env = env
            tr.b.loc = None
            with tr.b.at(bblk):
                env[iv_name] = tr.b.bin("add", ivb, st)
            term = _yield(tr, carried, bblk, first=env[iv_name])  # type: ignore[arg-type]
            bblk.ops.append(term)
            return [cblk, bblk], env

        cblk, bblk = _fixpoint(tr, node, carried, translate_while)
        tr.at(node)  # the loop op is located at its `for` line (kernel.explain shows it)
        inits = carried.values(tr, tr.b.block)
        types = [t, *carried.flat_types()]
        op = tr.b.op("while", [lo, *inits], types, [cblk, bblk],  # type: ignore[arg-type]
                     range_loop=True)  # (its first value is the loop's variable: explain)
    _bind_results(tr, carried, op.results[(0 if op.opcode == "for" else 1) :], outer, target)
    _forget_locals(tr, node.body)


class _TestRaises(Exception):
    """A `while` loop's test may raise: translate it again as its body's first statement
    (`while_loop`)."""


def while_loop(tr: Translating, node: ast.While) -> None:
    """`while test:` at run time. A loop's results are the values its condition region
    receives, so an exception raised by the test itself (an IndexError of `while a[i] !=
    5:`, a helper that raises) could not leave the loop; such a loop is translated as
    `while True: if not test: break` followed by its body, which carries the exception out
    (and ends the loop in the thread that raised)."""
    saved, mark, loc = dict(tr.env), len(tr.b.block.ops), tr.b.loc
    try:
        _while_loop(tr, node)
    except _TestRaises:
        tr.env = saved
        del tr.b.block.ops[mark:]
        tr.b.loc = loc
        leave = ast.If(ast.UnaryOp(ast.Not(), node.test), [ast.Break()], [])
        inside = ast.While(ast.Constant(True), [leave, *node.body], [])
        for made in (leave, leave.test, leave.body[0], inside, inside.test):
            ast.copy_location(made, node.test if made is not inside else node)
        _while_loop(tr, inside)


@_retrying
def _while_loop(tr: Translating, node: ast.While, exc: bool = False) -> None:
    """`while test:` at run time (a test known to be false skips the loop; `exc`: carrying
    the exception state, `_retrying`)."""
    has_ret = _contains(node.body, ast.Return, into_loops=True)
    has_brk = _contains(node.body, ast.Break, into_loops=False)
    flags = [BRK] if has_brk else []  # a flag that can never be set is not carried
    if has_ret:
        flags += [RET, RETVAL] if RETVAL in tr.env else [RET]
    if exc:
        flags += list(raising.STATE)
    names = sorted(n for n in assigned_names(node.body) if n in tr.env)
    outer = {f: tr.env.get(f) for f in (BRK, CNT)}
    tr.env[BRK] = Known(False)
    carried = _Carried(tr, names + flags, node)
    has_exit = has_brk or has_ret or exc

    def translate() -> tuple[list[Block], dict[str, V]]:
        cblk, bblk = Block(), Block()
        carried.bind(tr, cblk)
        with tr.b.at(cblk):
            before = tr.env.get(raising.RAISED)
            test = tr.to_bool(tr.expr(node.test), node.test)
            if tr.env.get(raising.RAISED) is not before and not any(
                op.opcode == "barrier" for op in walk(cblk)
            ):  # (a barrier there is `check_barriers`' CompileError)
                raise _TestRaises()
            if isinstance(test, Known):
                if test.value and not has_exit:
                    tr.fail(
                        node,
                        "this `while` loop never ends: its condition is always true "
                        "and it has no break or return",
                    )
                c = tr.b.const(bool(test.value), T.BOOL)
            else:
                c = test  # type: ignore[assignment]
            for f in flags:
                if f in TESTED and isinstance(tr.env.get(f), Value):
                    c = tr.b.bin("and", c, tr.b.un("not", tr.env[f]))  # type: ignore[arg-type]
            tr.b.op("condition", [c])
        carried.bind(tr, bblk)
        tr.env[CNT] = Known(False)
        if not has_brk:
            tr.env[BRK] = Known(False)
        with tr.b.at(bblk):
            tr.stmts(node.body)
        _check_raises(tr, exc)
        env = dict(tr.env)
        bblk.ops.append(_yield(tr, carried, bblk))
        return [cblk, bblk], env

    cblk, bblk = _fixpoint(tr, node, carried, translate)
    tr.at(node)  # the loop op is located at its `while` line
    inits = carried.values(tr, tr.b.block)
    types = carried.flat_types()
    op = tr.b.op("while", inits, types, [cblk, bblk])  # type: ignore[arg-type]
    _bind_results(tr, carried, op.results, outer, None)
    _forget_locals(tr, node.body)


def _not_raising(tr: Translating, body: list[ast.stmt]) -> None:
    """`body` translated where the thread is not raising (the path of `if not raised`)."""
    tr.env[raising.RAISED] = Known(False)
    tr.stmts(body)


def _forget_locals(tr: Translating, body: list[ast.stmt]) -> None:
    """Names first assigned inside a run-time loop are not available after it."""
    for n in assigned_names(body):
        if n not in tr.env:
            tr.env[n] = UNDEF


def _yield(tr: Translating, carried: _Carried, blk: Block, first: Value | None = None):  # type: ignore[no-untyped-def]
    vals = carried.values(tr, blk)
    from ..ir import Op

    return Op("yield", ([first] if first is not None else []) + vals, [], {}, [], tr.b.loc)


def _bind_results(
    tr: Translating,
    carried: _Carried,
    results: list[Value],
    outer: dict[str, V | None],
    target: str | None,
) -> None:
    res = list(results)
    for n in carried.names:
        if carried.types[n] is None:
            continue
        r = carried.rebuild(n, res)
        if isinstance(r, Value) and not n.startswith("$"):
            r.hint = n
        tr.env[n] = r
    for f, v in outer.items():
        if v is None:
            tr.env.pop(f, None)
        else:
            tr.env[f] = v
    if target is not None:
        tr.env[target] = UNDEF
