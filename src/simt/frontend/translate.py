"""The AST visitor: Python statements and expressions to typed IR, with partial evaluation.

Every expression evaluates either to a known value (computed here, in CPython) or to a typed
IR value (an op appended to the current block). Statements update an environment that maps
each variable to such a value; control flow with a run-time condition translates each path
with a copy of the environment and merges the two (`merge.py`), so the IR is SSA from the
start. `return`, `break` and `continue` set flag variables; the statements after one that may
have exited are guarded by an `if` on those flags (see `stmts`).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import operator
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from .. import lang
from .. import types as T
from ..errors import CompileError
from ..ir import Block, Op, Value
from . import (
    calls,
    contexts,
    dicts,
    files,
    iteration,
    known,
    list_ops,
    lists,
    local_functions,
    loops,
    raising,
    str_format,
    strings,
    tables,
    views,
)
from .context import Context, NeedsKnown, fail
from .merge import leaf_values, merge_into
from .scalars import (
    coerce,
    const_value,
    known_type,
    materialise,
    merge_scalar,
    narrow,
    numba_int,
)
from .source import Source, get_source
from .values import (
    UNDEF,
    Bound,
    CArray,
    Known,
    Obj,
    Tup,
    V,
    View,
    is_function,
    is_number,
    kind_of,
    range_parts,
    scalar_type,
)  # fmt: skip

RET, RETVAL, BRK, CNT = "$ret", "$retval", "$brk", "$cnt"
LEFT = "$left"  # a path that surely left its statement list (merge.py reads it)
MAX_REST_NESTING = 16  # rests of statement lists nested under `if not exited` (`stmts`)
_SIMT_DIR = str(Path(__file__).resolve().parents[1])


def _in_simt(filename: str) -> bool:
    """Whether `filename` is one of simt's own modules (not the user's code)."""
    try:
        return str(Path(filename).resolve()).startswith(_SIMT_DIR + os.sep)
    except (OSError, ValueError):
        return False


# the exit flags: after a statement that may have set one, the rest of its list is skipped
# (`$raised`: the thread is raising an exception, raising.py)
FLAGS = (RET, BRK, CNT, raising.RAISED)

_BIN = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor",
    ast.LShift: "shl", ast.RShift: "shr",
}  # fmt: skip
_DUNDER = {
    "add": "add", "sub": "sub", "mul": "mul", "div": "truediv", "floordiv": "floordiv",
    "mod": "mod", "pow": "pow", "and": "and", "or": "or", "xor": "xor", "matmul": "matmul",
}  # fmt: skip
_CMP = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
_ORDER = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_PYCMP: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}  # fmt: skip

_UNSUPPORTED_STMT = {
    ast.ClassDef: ("class definitions", "define classes outside the kernel"),
    ast.AsyncFunctionDef: ("async functions", "kernels are synchronous"),
    ast.Import: ("import", "import at module level; the kernel sees module globals"),
    ast.ImportFrom: ("import", "import at module level; the kernel sees module globals"),
    ast.Global: ("global", "write results into an array argument"),
    ast.Nonlocal: ("nonlocal", "write results into an array argument"),
    ast.Delete: ("del", "just stop using the variable (del d[k] removes a dict's entry)"),
    ast.Match: ("match statements", "use if/elif/else"),
}
if hasattr(ast, "TryStar"):  # Python 3.11+
    _UNSUPPORTED_STMT[getattr(ast, "TryStar")] = (  # noqa: B009 - older typesheds lack it
        "try/except* (exception groups)",
        "use try/except: a thread raises one exception at a time",
    )
_UNSUPPORTED_EXPR = {
    ast.Yield: ("generators", "write results into an array argument"),
    ast.YieldFrom: ("generators", "write results into an array argument"),
    ast.Await: ("await", "kernels are synchronous"),
    ast.NamedExpr: ("the walrus operator", "assign in a separate statement"),
    ast.Starred: ("*unpacking", "pass the items one by one"),
    ast.Slice: ("slices", "index one element at a time (a[i], a[i, j])"),
}


_SCALAR_CALLS = frozenset({"abs", "min", "max", "len", "int", "float", "bool", "round"})


def _paths(a: V, b: V, where: str) -> tuple[str, bool]:
    """What two paths hold, for `Translator.refuse_apart`: "a different function on each
    path{where}", or "a list on one path{where} and a number on the other"; and whether a
    function is one of them."""
    ka, kb = kind_of(a), kind_of(b)
    functions = is_function(a) or is_function(b)
    na, nb = (len(v.items) if isinstance(v, Tup) else len(v.value)
              if isinstance(v, Known) and isinstance(v.value, tuple) else None
              for v in (a, b))  # fmt: skip
    if na is not None and nb is not None and na != nb:
        return f"a tuple of {na} items on one path{where} and one of {nb} on the other", False
    if ka == kb:
        return f"a different {ka.split(' ', 1)[1]} on each path{where}", functions
    return f"{ka} on one path{where} and {kb} on the other", functions


def _may_bind_object(node: ast.stmt, env: dict[str, V]) -> bool:
    """Whether `node` may bind a name to an array, a view, a list, a string or another object
    that cannot leave an `if` it was made in (merge.py keeps numbers only): the flat form of
    `Translator.stmts` nests the rest after such a statement instead of guarding it alone.
    Read from the text and the arrays in `env`: a name bound to anything but arithmetic on
    numbers, elements of arrays (an index per dimension), math functions and simt's scalar
    conversions counts."""
    if isinstance(node, ast.FunctionDef):
        return True  # a nested def: its defaults' values are held by the function
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        targets, value = [node.target], node.value
    else:
        return False  # stores, calls, augmented and compound statements: their names stay
    if not any(isinstance(n, ast.Name) for t in targets for n in ast.walk(t)):
        return False
    for n in ast.walk(value):
        if isinstance(n, ast.Lambda):
            return True  # its defaults' values are held by the function (local_functions.py)
        if isinstance(n, ast.Subscript):
            base = env.get(n.value.id) if isinstance(n.value, ast.Name) else None
            nidx = len(n.slice.elts) if isinstance(n.slice, ast.Tuple) else 1
            if not (isinstance(base, Value) and isinstance(base.type, T.ArrayType)
                    and base.type.ndim == nidx):  # fmt: skip
                return True  # a view, a list's item, a string's character, a tuple's
        elif isinstance(n, ast.Attribute):
            if not (isinstance(n.value, ast.Name) and n.value.id not in env):
                return True  # (a module's or a launch register's: `math.pi`, `thread_idx.x`)
        elif isinstance(n, ast.Call):
            f = n.func
            scalar = (isinstance(f, ast.Name) and f.id in _SCALAR_CALLS) or (
                isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                and (f.value.id == "math" or (f.value.id == "simt" and f.attr != "grid"))
            )  # fmt: skip
            if not scalar:
                return True
        elif isinstance(n, (ast.Slice, ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set,
                            ast.SetComp, ast.GeneratorExp, ast.JoinedStr, ast.Tuple)):  # fmt: skip
            return True
        elif isinstance(n, ast.Constant) and isinstance(n.value, (str, bytes)):
            return True
        elif isinstance(n, ast.Name) and not isinstance(env.get(n.id), (Value, Known, type(None))):
            return True  # a list, a string, a tuple, an object held by a name
    return False


class Translator:
    """Translates one function body (the kernel, or a function inlined into it)."""

    def __init__(self, ctx: Context, src: Source, pyfunc: Any, env: dict[str, V]) -> None:
        self.ctx = ctx
        self.b = ctx.builder
        self.src = src
        self.library = False  # simt's own code inlined into the user's (complexnum.py)
        self.pyfunc = pyfunc
        self.env = env
        self.globals: dict[str, Any] = getattr(pyfunc, "__globals__", {})
        self.closure: dict[str, Any] = {}
        # Python's rule: a name assigned anywhere in a function is local to all of it.
        self.locals = set(getattr(getattr(pyfunc, "__code__", None), "co_varnames", ()))
        # names the function changes as lists: a display assigned to one is a run-time list
        self.list_names = lists.mutated_names(src.tree.body)
        code = getattr(pyfunc, "__code__", None)
        if code is not None and pyfunc.__closure__:
            for name, cell in zip(code.co_freevars, pyfunc.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass

    # ---------------------------------------------------------------- helpers
    def fail(self, node: ast.AST, message: str, hint: str | None = None) -> NoReturn:
        fail(self.src, node, message, hint)

    def at(self, node: ast.AST) -> None:
        """Stamp the location of `node` on the ops created next (simt's own methods, such as
        complex arithmetic, keep their caller's: the user's line)."""
        if not self.library:
            self.b.loc = self.src.loc(node)

    def const(self, v: Any, t: T.Scalar) -> Value:
        return self.b.const(const_value(v, t), t)

    def typed(self, v: V, node: ast.AST) -> Value:
        """`v` as a typed scalar value; known numbers take their literal type."""
        if isinstance(v, Known):
            if not is_number(v.value):
                self.fail(node, f"a {type(v.value).__name__} cannot be used as a number here")
            return materialise(self.b, v, self.ctx.fp64, self.ctx.int64)
        if isinstance(v, Value) and isinstance(v.type, T.Scalar):
            return v
        self.fail(node, "expected a number here, not an array or a tuple")

    def to_bool(self, v: V, node: ast.AST) -> V:
        if isinstance(v, Known):
            try:
                return Known(bool(v.value))
            except Exception:  # noqa: BLE001 - e.g. the truth value of a NumPy array
                self.fail(node, f"the truth value of {type(v.value).__name__} is ambiguous")
        if isinstance(v, Tup):
            return Known(len(v.items) > 0)
        if lists.is_list(v):
            return lists.truth(self, v)  # type: ignore[arg-type]
        if dicts.is_dict_like(v):
            return dicts.truth(self, v)  # type: ignore[arg-type]
        if strings.is_str(v):
            return self.b.cmp("gt", strings.length(self, v), self.const(0, T.INT32))  # type: ignore[arg-type]
        if isinstance(v, Value) and isinstance(v.type, T.ArrayType):
            self.fail(node, "an array has no truth value in a kernel", "compare an element")
        assert isinstance(v, Value)
        return coerce(self.b, v, T.BOOL)

    def lookup(self, name: str, node: ast.AST) -> V:
        if name in self.env:
            v = self.env[name]
            if v is UNDEF and name in self.ctx.apart:
                self.refuse_apart(node, f"`{name}`", *self.ctx.apart[name])
            if v is UNDEF or (
                self.ctx.partial and any(id(x) in self.ctx.partial for x in leaf_values(v))
            ):
                self.fail(
                    node,
                    f"`{name}` may be undefined here: it is not assigned on every path that "
                    "reaches this line (or only inside a loop that runs at run time)",
                    f"assign `{name}` before the if/loop",
                )
            return v
        if name in self.locals and (name in self.globals or name in self.closure):
            self.fail(
                node,
                f"`{name}` is assigned in this function, so it is a local variable, but it is "
                "read here before any assignment (the global of the same name is not used)",
                f"assign `{name}` first, or give the local variable another name",
            )
        if name in self.closure:
            return Known(self.closure[name])
        if name in self.globals:
            return Known(self.globals[name])
        if hasattr(builtins, name):
            return Known(getattr(builtins, name))
        self.fail(node, f"name `{name}` is not defined")

    # ---------------------------------------------------------------- statements
    def exit_state(self) -> str:
        """'none', 'maybe' or 'always': whether a return/break/continue may have run.

        A thread that may be raising where nothing can catch it (`Context.raise_after`) does
        not make the rest of the statement list conditional: it runs on without effects (its
        stores, atomics and prints test the flag, `raising.guard_effect`; every loop tests it
        in its condition), so that a kernel with many checked accesses does not nest a level
        per access."""
        state = "none"
        for f in FLAGS:
            v = self.env.get(f)
            if v is None or v is UNDEF:
                continue
            if isinstance(v, Known):
                if v.value:
                    return "always"
            elif not (f == raising.RAISED and self.ctx.raise_after and self.ctx.try_depth == 0):
                state = "maybe"
        return state

    def stmts(self, body: list[ast.stmt]) -> None:
        """Translate a statement list; after a statement that may have exited, the rest of the
        list runs under `if not exited`. Past `MAX_REST_NESTING` such rests (a kernel with
        many accesses that stop a raising thread: `raising`), each following statement runs
        under an `if not exited` of its own instead, so that the code does not nest deeper
        with every access (Mesa's llvmpipe Vulkan driver silently miscompiles shaders that
        nest about 80 deep, its functions inlined); except after a statement that may bind
        an object (`_may_bind_object`), where the rest nests as before."""
        i, alone = 0, False
        while i < len(body):
            node = body[i]
            if alone:  # the flat form: this statement under an `if not exited` of its own
                self.at(node)
                cond = self.not_exited()
                self.branch(cond, lambda node=node: self.stmt_not_exited(node), self.left)  # type: ignore[misc]
            else:
                self.stmt(node)
            i += 1
            state = self.exit_state()
            if state == "always":
                return
            if state == "none" and i < len(body) and self.raising_into_try(body[i]):
                state = "maybe"
            alone = False
            if state != "maybe" or i == len(body):
                continue
            if self.ctx.rest_depth >= MAX_REST_NESTING and not _may_bind_object(body[i], self.env):
                alone = True
                continue
            rest = body[i:]
            self.at(rest[0])
            cond = self.not_exited()
            self.ctx.rest_depth += 1
            try:
                self.branch(cond, lambda rest=rest: self.stmts_not_exited(rest), self.left)  # type: ignore[misc]
            finally:
                self.ctx.rest_depth -= 1
            return

    def raising_into_try(self, following: ast.stmt) -> bool:
        """Whether a thread that may be raising and runs on without effects (`exit_state`)
        would reach a `try` or `with` in the `following` statement: its handlers would take
        the exception for one of their own, so the rest runs under `if not exited` from that
        statement on. (Tested one statement ahead, not over the whole rest: a `try` late in a
        kernel nests the statements before it under one `if` instead of one per access.)"""
        f = self.env.get(raising.RAISED)
        return isinstance(f, Value) and any(
            isinstance(n, (ast.Try, ast.With)) for n in ast.walk(following)
        )

    def left(self) -> None:
        """Mark the path being translated as one that left the statement list (a return,
        break, continue or raise ran): variables it lacks are not partial (merge.py)."""
        self.env[LEFT] = Known(True)

    def stmts_not_exited(self, body: list[ast.stmt]) -> None:
        """`stmts` on a path where no return/break/continue has run: the flags are False."""
        self.clear_flags()
        self.stmts(body)

    def stmt_not_exited(self, node: ast.stmt) -> None:
        """`stmt` on a path where no return/break/continue has run (the flat form of
        `stmts`): the flags are False."""
        self.clear_flags()
        self.stmt(node)

    def flag_names(self) -> tuple[str, ...]:
        """The exit flags' names (return, break, continue, raising)."""
        return FLAGS

    def clear_flags(self) -> None:
        for f in FLAGS:
            if isinstance(self.env.get(f), Value):
                self.env[f] = Known(False)

    def not_exited(self) -> Value:
        """A bool value: no return/break/continue has run."""
        acc: Value | None = None
        for f in FLAGS:
            v = self.env.get(f)
            if isinstance(v, Value):
                nv = self.b.un("not", v)
                acc = nv if acc is None else self.b.bin("and", acc, nv)
        assert acc is not None
        return acc

    def stmt(self, node: ast.stmt) -> None:
        self.at(node)
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is not None:
            method(node)
            return
        what, hint = _UNSUPPORTED_STMT.get(type(node), (type(node).__name__, None))
        self.fail(node, f"{what}: not supported in kernels", hint)

    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_FunctionDef(self, node: ast.FunctionDef) -> None:
        """A nested `def`: the name is bound to the function (local_functions.py)."""
        self.env[node.name] = local_functions.define(self, node)

    def stmt_Delete(self, node: ast.Delete) -> None:
        """`del d[k]` of a run-time dict (a KeyError where `k` is missing); other `del`s are
        refused."""
        for target in node.targets:
            base = self.expr(target.value) if isinstance(target, ast.Subscript) else None
            if not (
                isinstance(target, ast.Subscript)
                and dicts.is_dict_like(base)
                and not isinstance(target.slice, ast.Slice)
            ):
                what, hint = _UNSUPPORTED_STMT[ast.Delete]
                self.fail(node, f"{what}: not supported in kernels", hint)
            before = raising.flag(self)
            key = self.expr(target.slice)

            def delete(d: Any = base, k: V = key, at: ast.AST = target) -> None:
                dicts.delitem(self, d, k, at)

            self.unless_raised(before, delete)

    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        value = self.expr(node.value)
        if (
            isinstance(node.value, (ast.Name, ast.Attribute))
            and isinstance(value, Known)
            and callable(value.value)
        ):  # `cuda.syncthreads` without its call: Python does nothing, and neither would we
            text = ast.unparse(node.value)
            self.fail(
                node.value,
                f"`{text}` names a function without calling it, so it does nothing",
                f"call it: {text}()",
            )

    def stmt_Assign(self, node: ast.Assign) -> None:
        block, start = self.b.block, len(self.b.block.ops)
        before = raising.flag(self)
        if self.makes_list(node.targets, node.value):
            value: V = lists.from_display(self, node.value)
        else:
            value = self.expr(node.value)
        if self.ctx.explain:
            self.note_assignment(node.targets, value, block.ops[start:])

        def bind() -> None:
            for target in node.targets:
                self.assign(target, value, node.value)

        self.unless_raised(before, bind)

    def unless_raised(self, before: V, bind: Callable[[], None]) -> None:
        """Bind a statement's result unless evaluating it raised (Python then assigns
        nothing): inside a `try`, where the thread goes on to a handler that may read the
        variable, under `if not raising` where the statement may have raised."""
        after = raising.flag(self)
        if after is before or (isinstance(after, Value) and self.ctx.try_depth == 0):
            bind()
        elif isinstance(after, Known):
            if not after.value:
                bind()
        else:
            self.branch(self.b.un("not", after), bind, self.left)  # type: ignore[arg-type]

    def makes_list(self, targets: list[ast.expr], value: ast.expr) -> bool:
        """Whether `targets = value` makes a run-time list: a list display assigned to a
        name this function changes as a list (`lists.mutated_names`)."""
        return (
            len(targets) == 1
            and isinstance(targets[0], ast.Name)
            and targets[0].id in self.list_names
            and lists.is_display(value)
        )

    def note_assignment(self, targets: list[ast.expr], value: V, made: list[Op]) -> None:
        """For `kernel.explain`: a `note` op for each name assigned a constant (`s = 0.0`) or
        a value made before this statement (`b = a`): no op of the statement shows it."""
        fresh = {r.id for op in made for r in op.results}
        for target in targets:
            if not isinstance(target, ast.Name):
                continue
            if isinstance(value, Known) and isinstance(
                value.value, (bool, int, float, complex, np.number, np.bool_)
            ):
                v = value.value.item() if isinstance(value.value, np.generic) else value.value
                self.b.op("note", [], [], name=target.id, value=v)
            elif isinstance(value, Value) and value.id not in fresh:
                self.b.op("note", [value], [], name=target.id)  # a number, or an array's name

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            return
        if self.makes_list([node.target], node.value):
            self.assign(node.target, lists.from_display(self, node.value), node.value)
            return
        value = self.expr(node.value)
        ann = self.expr(node.annotation)
        t = calls.dtype_arg(ann)
        if t is not None and not isinstance(value, Tup):
            value = coerce(self.b, self.scalar(value, node.value), t)
        self.assign(node.target, value, node.value)

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        op = _BIN.get(type(node.op))
        if op is None:
            self.fail(node, f"{type(node.op).__name__} is not supported in kernels")
        before = raising.flag(self)
        if isinstance(node.target, ast.Name):
            name = node.target.id
            cur = self.lookup(name, node.target)
            if lists.is_list(cur) and op == "add":  # xs += [v]: extends the list in place
                lists.extend(self, cur, [self.expr(node.value)], node)  # type: ignore[arg-type]
                return
            new_v = self.binop(op, cur, self.expr(node.value), node)
            self.unless_raised(before, lambda: self.env.__setitem__(name, new_v))
        elif isinstance(node.target, ast.Subscript):
            base = self.expr(node.target.value)
            if lists.is_list(base):
                key = self.expr(node.target.slice)
                cur = lists.getitem(self, base, key, node.target)  # type: ignore[arg-type]
                new = self.binop(op, cur, self.expr(node.value), node)
                self.unless_raised(before, lambda: lists.setitem(self, base, key, new, node))  # type: ignore[arg-type]
                return
            if dicts.is_dict_like(base):  # d[k] += v: a KeyError where k is missing
                key = self.expr(node.target.slice)
                cur = dicts.getitem(self, base, key, node.target)  # type: ignore[arg-type]
                new = self.binop(op, cur, self.expr(node.value), node)
                self.unless_raised(before, lambda: dicts.setitem(self, base, key, new, node))  # type: ignore[arg-type]
                return
            if isinstance(base, CArray):
                cur_c = views.complex_subscript(self, base, node.target)
                new_c = self.binop(op, cur_c, self.expr(node.value), node)
                views.complex_store(self, base, node.target, new_c)
                return
            arr, idx = views.target(self, base, node.target)
            cur = self.load(arr, idx)
            new = self.binop(op, cur, self.expr(node.value), node)
            self.store(arr, idx, new, node)
        else:
            self.fail(node, "this augmented assignment target is not supported")

    def assign(self, target: ast.expr, value: V, node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, Value) and not value.hint:
                value.hint = target.id
            self.env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = self.unpack(value, len(target.elts), target)
            for t, v in zip(target.elts, items):
                self.assign(t, v, node)
        elif isinstance(target, ast.Subscript):
            arr = self.expr(target.value)
            if isinstance(arr, CArray):
                views.complex_store(self, arr, target, value)
                return
            if lists.is_list(arr):
                lists.setitem(self, arr, self.expr(target.slice), value, target)  # type: ignore[arg-type]
                return
            if dicts.is_dict_like(arr):
                dicts.setitem(self, arr, self.expr(target.slice), value, target)  # type: ignore[arg-type]
                return
            if isinstance(arr, Known):
                self.fail(
                    target,
                    f"cannot assign into a {type(arr.value).__name__} known at compile time",
                    "write into an array argument or a simt.local.array",
                )
            views.assign(self, arr, target, value, node)
        elif isinstance(target, ast.Attribute):
            base = self.expr(target.value)
            if isinstance(target.value, ast.Name) and isinstance(base, Obj):
                self.env[target.value.id] = base.with_field(target.attr, value)
            else:
                self.fail(
                    target,
                    "only attributes of objects built in the kernel (`self.x = ...`"
                    " in their methods) can be assigned to",
                )
        else:
            self.fail(target, "this assignment target is not supported in kernels")

    def unpack(self, value: V, n: int, node: ast.AST) -> list[V]:
        if isinstance(value, Tup):
            items = list(value.items)
        elif isinstance(value, Known) and isinstance(value.value, (tuple, list, np.ndarray)):
            items = [Known(x) for x in value.value]
        elif isinstance(value, Known):
            try:
                items = [Known(x) for x in value.value]
            except TypeError:
                self.fail(node, f"cannot unpack a {type(value.value).__name__}")
        elif iteration.is_sequence(value):
            items = iteration.unpack(self, value, n, node)
        else:
            self.fail(node, "cannot unpack a single value; expected a tuple")
        if len(items) != n:
            self.fail(node, f"expected {n} values to unpack, got {len(items)}")
        return items

    def load(self, arr: Value, idx: list[Value], inner: int = 0) -> Value:
        """`arr[idx]`, in the compute type of its element type (an 8- or 16-bit element is
        loaded as itself and converted at once: no other op sees those types). `inner`: the
        last indices are simt's own, in bounds (a complex element's part)."""
        t = arr.array.dtype
        ok = raising.check_index(self, arr, idx[: len(idx) - inner])  # an IndexError
        if ok is not None:
            v = raising.guarded_value(
                self, ok, lambda: self.b.op("load", [arr, *idx], [t], inbounds=True).result, t
            )  # (checked by `ok`)
        else:
            v = self.b.op("load", [arr, *idx], [t]).result
        return v if not t.is_storage else self.b.cast(v, T.compute_type(t))

    def store(
        self, arr: Value, idx: list[Value], value: V, node: ast.AST, inner: int = 0
    ) -> None:
        t = arr.array.dtype
        if isinstance(value, Known) and not is_number(value.value):
            self.fail(node, f"cannot store a {type(value.value).__name__} into a {t} array")
        if not isinstance(value, Known) and not (
            isinstance(value, Value) and isinstance(value.type, T.Scalar)
        ):
            complex_ = isinstance(value, Obj) and value.cls.__name__ == "Complex"
            self.fail(
                node,
                f"can only store a number into a {t} array element, not {kind_of(value)}",
                "store z.real, z.imag or abs(z), or write into a complex array"
                if complex_
                else None,
            )
        v = narrow(self.b, value, t) if t.is_storage else coerce(self.b, value, t)
        # (a storage type is converted in its compute type, then narrowed: ints wrap)
        ok = raising.check_index(self, arr, idx[: len(idx) - inner], node)  # an IndexError

        def emit() -> None:
            if ok is None:
                self.b.op("store", [arr, *idx, v])
                return
            tb, eb = Block(), Block()
            with self.b.at(tb):
                self.b.op("store", [arr, *idx, v], inbounds=True)  # (checked by `ok`)
                self.b.op("yield", [])
            with self.b.at(eb):
                self.b.op("yield", [])
            self.b.op("if", [ok], [], [tb, eb])

        raising.guard_effect(self, emit)  # not by a thread that is raising

    def stmt_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            if not self.ctx.inline_stack or self.ctx.inline_stack[-1] is None:
                self.fail(node, "a kernel returns nothing", "write results into an array argument")
            self.env[RETVAL] = self.expr(node.value)
        elif self.ctx.inline_stack and self.ctx.inline_stack[-1] is not None:
            self.env[RETVAL] = Known(None)
        if not self.ctx.inline_stack or self.ctx.inline_stack[-1] is None:
            # the thread leaves the kernel: it no longer counts at the block's barriers (sim
            # keeps count; `pipeline.finish` drops the op from kernels without barriers)
            self.b.op("exit", [])
        self.env[RET] = Known(True)

    def stmt_Break(self, node: ast.Break) -> None:
        if BRK not in self.env:
            self.fail(node, "`break` outside a loop")
        self.env[BRK] = Known(True)

    def stmt_Continue(self, node: ast.Continue) -> None:
        if CNT not in self.env:
            self.fail(node, "`continue` outside a loop")
        self.env[CNT] = Known(True)

    def stmt_Assert(self, node: ast.Assert) -> None:
        cond = self.to_bool(self.expr(node.test), node.test)
        if isinstance(cond, Known) and cond.value:
            return
        text = _literal_text(node.msg)
        if node.msg is not None and text is None:
            self._assert_message_where_it_fails(cond, node)
            return
        self.at(node)
        fails = None if isinstance(cond, Known) else self.b.un("not", cond)  # type: ignore[arg-type]
        raising.raise_builtin(self, AssertionError, fails, text or "", node)

    def _assert_message_where_it_fails(self, cond: V, node: ast.Assert) -> None:
        """`assert test, msg` where `msg` is not written out as text (`"bad " + str(x)`, a
        name): `msg` is translated inside the branch where the test fails, so it is evaluated
        there only, as in Python (no heap taken, no error raised, no effect where the test
        holds); where it fails the thread raises AssertionError(str(msg)), the message its own,
        as `raise AssertionError(msg)` does."""
        msg = node.msg
        assert msg is not None

        def fail() -> None:
            self.at(msg)
            m = self.expr(msg)
            if isinstance(m, Known):
                self.at(node)
                raising.raise_builtin(self, AssertionError, None, str(m.value), node)
                return
            if not strings.is_text(m):
                m = strings.value_of(str_format.str_of(self, m, msg))
            raising.raise_text(self, strings.exception(self, AssertionError, [m], {}, msg), node)

        if isinstance(cond, Known):  # fails for sure
            fail()
            return
        assert isinstance(cond, Value)
        self.branch(self.b.un("not", cond), fail, lambda: None)

    def stmt_Raise(self, node: ast.Raise) -> None:
        raising.stmt_raise(self, node)

    def stmt_Try(self, node: ast.Try) -> None:
        raising.stmt_try(self, node)

    def stmt_With(self, node: ast.With) -> None:
        contexts.stmt_with(self, node)

    def stmt_If(self, node: ast.If) -> None:
        cond = self.to_bool(self.expr(node.test), node.test)
        if isinstance(cond, Known):
            self.stmts(node.body if cond.value else node.orelse)
            return
        assert isinstance(cond, Value)
        self.branch(cond, lambda: self.stmts(node.body), lambda: self.stmts(node.orelse))

    def branch(self, cond: Value, then: Callable[[], None], orelse: Callable[[], None]) -> None:
        """An `if` op on a run-time condition: each path translated with its own copy of the
        environment, the variables they leave different merged into the op's results."""
        before, where = dict(self.env), self.b.loc
        tb, eb = Block(), Block()
        with self.b.at(tb):
            then()
        env_t = self.env
        self.env = dict(before)
        with self.b.at(eb):
            orelse()
        env_e = self.env
        env_t, env_e = self.unify_strings((tb, env_t), (eb, env_e))
        for n in env_t.keys() & env_e.keys():
            if lists.is_list(env_t[n]) and lists.is_list(env_e[n]):
                lists.unify_paths(self, n, env_t[n], env_e[n])  # type: ignore[arg-type]
        self.env = merge_into(self.b, cond, tb, eb, env_t, env_e, self.ctx.fp64, self.ctx.partial)
        for n, v in self.env.items():
            vt, ve = env_t.get(n, UNDEF), env_e.get(n, UNDEF)
            if v is UNDEF and vt is not UNDEF and ve is not UNDEF:
                line = f" of the `if` at line {where.line}" if where and n[0] != "$" else ""
                self.ctx.apart[n] = _paths(vt, ve, line)
            else:
                self.ctx.apart.pop(n, None)

    def refuse_apart(self, node: ast.AST, what: str, paths: str, functions: bool) -> NoReturn:
        """Refuse reading `what` (a variable, or an `if`/`else` expression) that holds
        different kinds of value on the paths of a run-time `if` (`paths` says which, and
        `functions` whether a function is one, as `ctx.apart` does): one run-time value
        cannot stand for both."""
        if functions:
            self.fail(node, f"{what} is {paths}, chosen at run time: a kernel calls only "
                      "a function it knows when it compiles",
                      "call each function on its own path (`f(x) if c else g(x)`), or use "
                      "one function that decides inside (`lambda v: v + 1 if c else v * 2`)")
        self.fail(node, f"{what} is {paths}, chosen at run time: one run-time value cannot "
                  "hold both", "use the value on each path, or give it values of one kind "
                  "and shape on both")  # fmt: skip

    def unify_strings(
        self, *arms: tuple[Block, dict[str, V]]
    ) -> tuple[dict[str, V], ...]:
        """A variable holding different strings on the two paths of an `if` (a run-time one,
        or two known ones) holds a run-time string on both: each known one is written into
        the arena at the end of its path."""
        (tb, env_t), (eb, env_e) = arms
        out = [env_t, env_e]
        for n in dict.fromkeys([*env_t, *env_e]):
            vt, ve = env_t.get(n), env_e.get(n)
            if not (strings.is_text(vt) and strings.is_text(ve)) or vt == ve:
                continue
            for k, (block, env) in enumerate(arms):
                v = env[n]
                if isinstance(v, Known):
                    self.env = env
                    with self.b.at(block):
                        made = strings.materialise(self, v.value, None)
                    out[k] = self.env
                    out[k][n] = made
        return out[0], out[1]

    # loops -----------------------------------------------------------------
    def stmt_For(self, node: ast.For) -> None:
        if node.orelse:
            self.fail(node, "`for ... else` is not supported in kernels")
        it = node.iter
        if (
            isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name)
            and self._is_builtin(it.func, "range")
        ):
            if it.keywords or not 1 <= len(it.args) <= 3:
                self.fail(it, "range() takes 1 to 3 positional arguments")
            bounds = [self.expr(a) for a in it.args]
            if all(isinstance(x, Known) for x in bounds):
                rng = range(*[self.known_int(x, a) for x, a in zip(bounds, it.args)])
                saved, mark = dict(self.env), len(self.b.block.ops)
                unrollable = len(rng) <= self.ctx.max_unroll
                if unrollable:
                    self.ctx.unrolling.append((_stored_names(node), len(self.ctx.inline_stack)))
                try:
                    self.runtime_range(node, bounds)
                    return
                except NeedsKnown:
                    if not unrollable:
                        raise
                finally:
                    if unrollable:
                        self.ctx.unrolling.pop()
                self.env = saved  # forget the attempt: unroll with the index known
                del self.b.block.ops[mark:]
                self.unrolled(node, [Known(i) for i in rng])
                return
            self.runtime_range(node, bounds)
            return
        if files.enumerated(self, node) or iteration.sequence_call(self, node):
            return
        iterable = self.expr(it)
        if files.is_reader(iterable):
            files.over(self, node, iterable)  # type: ignore[arg-type]
            return
        if dicts.is_dict_like(iterable):
            iteration.over_dict(self, node, iterable)  # type: ignore[arg-type]
            return
        if iteration.is_sequence(iterable):
            iteration.over(self, node, iterable)
            return
        if isinstance(iterable, Tup):
            self.unrolled(node, list(iterable.items))
            return
        if isinstance(iterable, Known):
            try:
                items = list(iterable.value)
            except TypeError:
                self.fail(it, f"cannot iterate over a {type(iterable.value).__name__}")
            if len(items) > self.ctx.max_unroll:
                self.fail(
                    it,
                    f"a loop over {len(items)} known items is too long to unroll",
                    "iterate with range() over an array argument instead",
                )
            self.unrolled(node, [Known(x) for x in items])
            return
        self.fail(
            it,
            f"a kernel cannot loop over {kind_of(iterable)}: it loops over range(...), arrays "
            "and their rows, zip/enumerate/reversed of those, or values known at compile time",
        )

    def _is_builtin(self, node: ast.Name, name: str) -> bool:
        try:
            v = self.lookup(node.id, node)
        except CompileError:
            return False
        return isinstance(v, Known) and v.value is getattr(builtins, name)

    def known_int(self, v: V, node: ast.AST) -> int:
        if isinstance(v, Known) and isinstance(v.value, (int, np.integer)):
            return int(v.value)
        self.fail(node, "expected an integer known at compile time")

    def unrolled(self, node: ast.For, items: list[V]) -> None:
        """A loop over known items: the body is translated once per item."""
        saved = {f: self.env.get(f) for f in (BRK, CNT)}
        self.env[BRK] = Known(False)

        def run(k: int) -> None:
            while k < len(items):
                self.env[CNT] = Known(False)
                self.assign(node.target, items[k], node)
                self.stmts(node.body)
                self.env.pop(CNT, None)
                k += 1
                state = self.exit_state()
                if state == "always":
                    return
                if state == "maybe" and k < len(items):
                    cond = self.not_exited()

                    def rest(k: int = k) -> None:
                        self.clear_flags()
                        run(k)

                    self.branch(cond, rest, lambda: None)
                    return

        run(0)
        self._restore_flags(saved)

    def _restore_flags(self, saved: dict[str, V | None]) -> None:
        for f, v in saved.items():
            if v is None:
                self.env.pop(f, None)
            else:
                self.env[f] = v

    def runtime_range(self, node: ast.For, bounds: list[V]) -> None:
        if not isinstance(node.target, ast.Name):
            self.fail(node.target, "the variable of a range() loop must be a plain name")
        start, stop, step = range_parts(bounds)
        for v, a in zip(bounds, node.iter.args):  # type: ignore[attr-defined]
            known_int = isinstance(v, Known) and isinstance(v.value, (int, np.integer))
            if not known_int and not (
                isinstance(v, Value) and isinstance(v.type, T.Scalar) and v.type.is_int
            ):
                self.fail(
                    a,
                    "range() bounds must be integers",
                    "`/` always gives a float in Python: use `//` for an integer quotient, "
                    "or int(...)"
                    if isinstance(a, ast.BinOp) and isinstance(a.op, ast.Div)
                    else "convert it with int(...)",
                )
        typed_types = [v.type for v in (start, stop, step) if isinstance(v, Value)]
        t = T.INT64 if self.ctx.int64 else T.INT32  # Numba's range variables are int64
        for tt in typed_types:
            assert isinstance(tt, T.Scalar)
            t = T.promote(t, tt)
        for v in (start, stop, step):
            if isinstance(v, Known) and not -(2**31) <= int(v.value) < 2**31:
                t = T.INT64
        if isinstance(step, Known):
            if int(step.value) == 0:
                self.fail(node.iter, "range() step must not be zero")
            sign = 1 if int(step.value) > 0 else -1
        else:
            sign = 0

        loops.range_loop(self, node, start, stop, step, t, sign)

    def stmt_While(self, node: ast.While) -> None:
        if node.orelse:
            self.fail(node, "`while ... else` is not supported in kernels")

        loops.while_loop(self, node)

    # ---------------------------------------------------------------- expressions
    def expr(self, node: ast.expr) -> V:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            what, hint = _UNSUPPORTED_EXPR.get(type(node), (type(node).__name__, None))
            self.fail(node, f"{what}: not supported in kernels", hint)
        saved = self.b.loc
        self.at(node)
        try:
            return method(node)  # type: ignore[no-any-return]
        finally:
            self.b.loc = saved

    def scalar(self, v: V, node: ast.AST) -> V:
        """Check `v` is a number (known or typed scalar)."""
        if isinstance(v, Known):
            if not is_number(v.value):
                self.fail(node, f"expected a number, got a {type(v.value).__name__}")
            return v
        if isinstance(v, Value) and isinstance(v.type, T.Scalar):
            return v
        if isinstance(v, Tup):
            self.fail(node, "expected a number, got a tuple")
        if isinstance(v, Obj):
            self.fail(node, f"expected a number, got {dicts.describe(v)}")
        self.fail(node, f"expected a number, got {kind_of(v)}", "index it: a[i]")

    def expr_Constant(self, node: ast.Constant) -> V:
        return Known(node.value)

    def expr_Name(self, node: ast.Name) -> V:
        v = self.lookup(node.id, node)
        if isinstance(v, Known) and isinstance(v.value, lang.KernelValue):
            return self.inline(v.value.impl, [], {}, node)  # `from simt import laneid`
        return v

    def expr_Lambda(self, node: ast.Lambda) -> V:
        return local_functions.define(self, node)

    def expr_Tuple(self, node: ast.Tuple) -> V:
        return self.sequence([self.expr(e) for e in node.elts], tuple)

    def expr_List(self, node: ast.List) -> V:
        return self.sequence([self.expr(e) for e in node.elts], list)

    def sequence(self, items: list[V], kind: type) -> V:
        if all(isinstance(x, Known) for x in items):
            return Known(kind(x.value for x in items))  # type: ignore[union-attr]
        return Tup(tuple(items), kind is list)

    def run_time_comprehension(self, node: ast.ListComp | ast.GeneratorExp) -> bool:
        """Whether the comprehension walks a run-time sequence (a loop, not unrolled)."""
        return lists.run_time_comprehension(self, node) or any(
            iteration.run_time_call(self, g.iter) for g in node.generators
        )

    def expr_ListComp(self, node: ast.ListComp) -> V:
        if self.run_time_comprehension(node):
            return lists.comprehension(self, node)
        return self._comprehension(node, list)

    def expr_Dict(self, node: ast.Dict) -> V:
        return dicts.display(self, node)

    def expr_Set(self, node: ast.Set) -> V:
        return dicts.set_display(self, node)

    def expr_DictComp(self, node: ast.DictComp) -> V:
        return dicts.comprehension(self, node)

    def expr_SetComp(self, node: ast.SetComp) -> V:
        return dicts.comprehension(self, node)

    def expr_GeneratorExp(self, node: ast.GeneratorExp) -> V:
        if self.run_time_comprehension(node):
            # sum/min/max/sorted/list(v for v in xs) take it as a list (`expr_Call`); one
            # bound to a name, or given to another call, is not a value a kernel keeps
            inner = ast.unparse(node)[1:-1]
            self.fail(
                node,
                f"a generator expression over a sequence known only at run time "
                f"(`{ast.unparse(node.generators[0].iter)}`) is not a value a kernel can keep "
                "or pass on: it runs where sum(), min(), max(), sorted() or list() takes it",
                f"give it to that call directly: sum({inner}); or make a list, which is "
                f"kept: [{inner}]",
            )
        return self._comprehension(node, tuple)

    def _comprehension(self, node: ast.ListComp | ast.GeneratorExp, kind: type) -> V:
        """Unroll a comprehension over known iterables into a (known or typed) tuple."""
        out: list[V] = []
        saved = dict(self.env)

        def gen(k: int) -> None:
            if k == len(node.generators):
                out.append(self.expr(node.elt))
                return
            g = node.generators[k]
            if g.is_async:
                self.fail(g, "async comprehensions are not supported")
            it = self.expr(g.iter)
            if isinstance(it, Tup):
                items = list(it.items)
            elif isinstance(it, Known):
                try:
                    items = [Known(x) for x in it.value]
                except TypeError:
                    self.fail(g.iter, f"cannot iterate over a {type(it.value).__name__}")
            else:
                self.fail(
                    g.iter,
                    "a comprehension in a kernel must loop over values known at compile time",
                    "use a for loop over range() instead",
                )
            for item in items:
                self.assign(g.target, item, g)
                ok = True
                for cond in g.ifs:
                    c = self.to_bool(self.expr(cond), cond)
                    if not isinstance(c, Known):
                        self.fail(cond, "a comprehension's condition must be known at compile time")
                    ok = ok and bool(c.value)
                if ok:
                    gen(k + 1)

        gen(0)
        self.env = saved
        return self.sequence(out, kind)

    def expr_JoinedStr(self, node: ast.JoinedStr) -> V:
        parts = calls.fstring_parts(self, node, built=True)
        if all(isinstance(p, str) for p in parts):
            return Known("".join(parts))  # type: ignore[arg-type]
        return strings.value_of(str_format.from_parts(self, parts, node))

    def expr_Attribute(self, node: ast.Attribute) -> V:
        base = self.expr(node.value)
        return calls.attribute(self, base, node.attr, node)

    def expr_Subscript(self, node: ast.Subscript) -> V:
        base = self.expr(node.value)
        if isinstance(base, CArray):
            return views.complex_subscript(self, base, node)
        if isinstance(base, View) or (
            isinstance(base, Value) and isinstance(base.type, T.ArrayType)
        ):
            got = views.subscript(self, base, node)
            if isinstance(got, View):
                return got
            arr, idx = got
            return self.load(arr, idx)
        if isinstance(base, Known) and not _has_slice(node.slice):
            table = tables.as_array(base.value)
            if table is not None:
                return self.table_item(base, table, node)
        if lists.is_list(base) and isinstance(node.slice, ast.Slice):
            return list_ops.getslice(self, base, node.slice, node)  # type: ignore[arg-type]
        if strings.is_text(base) and isinstance(node.slice, ast.Slice):
            return strings.getslice(self, strings.text_of(base), node.slice, node)
        if isinstance(base, (Tup, Known)) and isinstance(node.slice, ast.Slice):
            return self.known_slice(base, node.slice)
        key = self.expr(node.slice)
        if strings.is_str(base):
            return strings.char_at(self, base, key, node)  # type: ignore[arg-type]
        if lists.is_list(base):
            return lists.getitem(self, base, key, node)  # type: ignore[arg-type]
        if dicts.is_dict_like(base):
            return dicts.getitem(self, base, key, node)  # type: ignore[arg-type]
        if isinstance(base, Tup):
            if not self._loop_dependent(node.slice) and isinstance(key, Value) and all(
                isinstance(x, Value) and isinstance(x.type, T.Scalar)
                or isinstance(x, Known) and is_number(x.value) for x in base.items
            ):  # numbers: the one picked at run time (a select of each)
                what = "list" if base.is_list else "tuple"
                i = self.sequence_index(key, len(base.items), what, node)
                return self.pick(base.items, i, node)
            if not isinstance(key, Known) or not isinstance(key.value, (int, np.integer)):
                raise NeedsKnown(
                    *_needs_known_args(
                        self,
                        node.slice,
                        "a tuple can only be indexed by an integer known at compile time",
                    )
                )
            try:
                return base.items[int(key.value)]
            except IndexError:
                self.fail(node, "tuple index out of range")
        if isinstance(base, Known):
            if isinstance(key, Known):
                try:
                    return Known(base.value[key.value])
                except Exception as e:  # noqa: BLE001 - the user's object raised
                    self.fail(node, f"indexing failed at compile time: {type(e).__name__}: {e}")
            if (
                isinstance(base.value, (list, tuple)) and base.value
                and all(isinstance(x, str) for x in base.value)
                and isinstance(key, Value) and not self._loop_dependent(node.slice)
            ):  # strings (`["a", "bc"][t % 2]`): a run-time list of them, read at run time
                words = lists.make(self, [Known(x) for x in base.value], node)
                return lists.getitem(self, words, key, node)
            raise NeedsKnown(
                *_needs_known_args(
                    self,
                    node,
                    f"a {type(base.value).__name__} known at compile "
                    "time cannot be indexed by a run-time value",
                )
            )
        if isinstance(base, Obj):
            m = self.method_of(base, "__getitem__")
            if m is not None:
                return self.call_method(m, [key], node)
        self.fail(node, "only arrays, tuples and objects with __getitem__ can be indexed")

    def known_slice(self, base: Tup | Known, sl: ast.Slice) -> V:
        """`t[a:b:c]` of a tuple, or of a list whose length is known at compile time (a
        comprehension over a known range, a list display: read-only, its items unrolled), by
        bounds known at compile time: the items Python's slice picks, as a tuple."""
        bounds: list[Any] = []
        for part in (sl.lower, sl.upper, sl.step):
            v = Known(None) if part is None else self.expr(part)
            if not isinstance(v, Known) or not (
                v.value is None or isinstance(v.value, (int, np.integer))
            ):
                if isinstance(base, Tup) or isinstance(base.value, (tuple, list)):
                    self.fail(
                        part or sl,
                        "a tuple (or a list of a length known at compile time) can only be "
                        "sliced by integers known at compile time",
                        "build a run-time list instead (append in a loop over range(n)) and "
                        "slice that, or index one item at a time",
                    )
                what = {bytes: "a bytes string", str: "a string", np.ndarray: "a NumPy array"}
                self.fail(
                    part or sl,
                    f"{what.get(type(base.value), 'a ' + type(base.value).__name__)} known "
                    "at compile time can only be sliced by integers known at compile time",
                    "pass it as an array argument (np.frombuffer(b, np.uint8) for bytes): an "
                    "argument's slices are views made at run time; or index it one item at "
                    "a time",
                )
            bounds.append(None if v.value is None else int(v.value))
        if bounds[2] == 0:
            self.fail(sl, "slice step cannot be zero")
        if isinstance(base, Known):
            try:
                return Known(base.value[slice(*bounds)])
            except Exception as e:  # noqa: BLE001 - the user's object raised
                self.fail(sl, f"slicing failed at compile time: {type(e).__name__}: {e}")
        return self.sequence(list(base.items[slice(*bounds)]), tuple)

    def table_item(self, base: Known, arr: np.ndarray, node: ast.Subscript) -> V:
        """`TABLE[...]` of an array known at compile time: folded when every index is known,
        else a load from the array's constant table (`tables.py`), or a view of it."""
        items = views.elements(self, node.slice)
        if all(isinstance(i, Known) for i in items):
            key = tuple(i.value for i in items) if len(items) > 1 else items[0].value
            try:
                return Known(base.value[key])
            except Exception as e:  # noqa: BLE001 - the user's object raised
                self.fail(node, f"indexing failed at compile time: {type(e).__name__}: {e}")
        if self._loop_dependent(node.slice):  # a range loop around may unroll: then known
            raise NeedsKnown(
                *_needs_known_args(self, node, "a table indexed by a loop's index")
            )
        hint = node.value.id if isinstance(node.value, ast.Name) else "table"
        if isinstance(base.value, (tuple, list)) and len(items) == 1:
            # a Python tuple or list: negative indices count from the end, and one outside
            # raises Python's IndexError
            what = "tuple" if isinstance(base.value, tuple) else "list"
            items = [self.sequence_index(items[0], len(base.value), what, node)]
        tbl = tables.table(self, arr, node, hint)
        got = views.subscript_items(self, tbl, items, node)
        if isinstance(got, View):
            return got
        checked = isinstance(base.value, (tuple, list)) and arr.ndim == 1  # (just above)
        return self.load(*got, inner=1 if checked else 0)

    def pick(self, items: tuple[Any, ...], i: Value, node: ast.AST) -> Value:
        """`items[i]` of numbers, at a run-time `i` inside: their common type."""
        t: T.Scalar | None = None
        for x in items:
            if isinstance(x, Value):
                t = x.scalar if t is None else T.promote(t, x.scalar)
        assert t is not None
        for x in items:
            if isinstance(x, Known):
                t = T.promote(t, known_type(x.value, t, self.ctx.fp64))
        out = coerce(self.b, items[0], t)
        for k, x in enumerate(items[1:], 1):
            hit = self.b.cmp("eq", i, self.b.const(k, T.INT32))
            out = self.b.select(hit, coerce(self.b, x, t), out)
        return out

    def sequence_index(self, key: V, n: int, what: str, node: ast.AST) -> Value:
        """A run-time index into a tuple or list of `n` items, as Python reads it: negative
        counts from the end; outside, the thread raises IndexError ("tuple index out of
        range") and the index is 0."""
        if not (isinstance(key, Value) and isinstance(key.type, T.Scalar) and key.type.is_int):
            self.fail(node, f"{what} indices must be integers")
        b = self.b
        t = T.INT64 if key.scalar.bits == 64 or key.scalar == T.UINT32 else T.INT32
        i = coerce(b, key, t)
        size = b.const(n, t)
        zero = b.const(0, t)
        i = b.select(b.cmp("lt", i, zero), b.bin("add", i, size), i)
        ok = b.bin("and", b.cmp("ge", i, zero), b.cmp("lt", i, size))
        lists.raise_unless(self, IndexError, ok, f"{what} index out of range", node)
        return coerce(b, b.select(ok, i, zero), T.INT32)

    def _loop_dependent(self, index: ast.expr) -> bool:
        """Whether `index` may depend on the index of a range loop being tried as a run-time
        loop (`Context.unrolling`): it reads a name such a loop assigns, or it stands in a
        helper inlined inside one (whose names say nothing). An index that depends on no
        such loop stays run-time after unrolling: unrolling would only copy the body."""
        if not self.ctx.unrolling:
            return False
        depth = len(self.ctx.inline_stack)
        if any(at < depth for _, at in self.ctx.unrolling):
            return True
        read = {n.id for n in ast.walk(index) if isinstance(n, ast.Name)}
        return any(read & names for names, _ in self.ctx.unrolling)

    def indices(self, arr: V, node: ast.Subscript) -> list[Value]:
        """The index values of `arr[...]`, one per dimension, as integers."""
        if not (isinstance(arr, Value) and isinstance(arr.type, T.ArrayType)):
            self.fail(node.value, "only arrays can be indexed and assigned to")
        assert isinstance(arr, Value)
        sl = node.slice
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        vals: list[V] = []
        for e in elts:
            if isinstance(e, ast.Slice):
                self.fail(
                    e,
                    "slices are not supported in kernels",
                    "index one element at a time (a[i], a[i, j])",
                )
            vals.append(self.expr(e))
        return self.index_values(arr, vals, node)

    def index_values(self, arr: Value, given: list[V], node: ast.AST) -> list[Value]:
        """Index values for `arr` from expression values (a tuple counts as several)."""
        at = arr.array
        vals: list[V] = []
        for v in given:
            if isinstance(v, Tup):
                vals.extend(v.items)
            elif isinstance(v, Known) and isinstance(v.value, tuple):
                vals.extend(Known(x) for x in v.value)
            else:
                vals.append(v)
        if len(vals) != at.ndim:
            self.fail(
                node,
                f"this array has {at.ndim} dimension(s) but {len(vals)} index(es) were given",
                "give one index per dimension: a[i, j]",
            )
        out: list[Value] = []
        for k, v in enumerate(vals):
            if isinstance(v, Known):
                if not isinstance(v.value, (int, np.integer, bool, np.bool_)):
                    self.fail(node, "array indices must be integers")
                i = int(v.value)
                if i < 0:  # a known negative index counts from the end, as in Python
                    if at.shape is not None:
                        out.append(self.const(at.shape[k] + i, at.index))
                    else:
                        n = self.b.op("shape", [arr], [at.index], dim=k).result
                        out.append(self.b.bin("add", n, self.const(i, at.index)))
                    continue
                out.append(self.const(i, at.index if i < 2**31 else T.INT64))
                continue
            if not isinstance(v, Value) or not isinstance(v.type, T.Scalar):
                self.fail(node, "array indices must be integers")
            assert isinstance(v, Value)
            if v.scalar.is_float:
                self.fail(node, "array indices must be integers, not floats", "use int(...)")
            out.append(coerce(self.b, v, T.INT32) if v.scalar.is_bool else v)
        return out

    def expr_UnaryOp(self, node: ast.UnaryOp) -> V:
        v = self.expr(node.operand)
        if isinstance(node.op, ast.Not):
            c = self.to_bool(v, node.operand)
            return Known(not c.value) if isinstance(c, Known) else self.b.un("not", c)  # type: ignore[arg-type]
        if isinstance(node.op, ast.USub):
            m = self.method_of(v, "__neg__")
            if m is not None:
                return self.call_method(m, [], node)
        if (
            isinstance(v, Known)
            and isinstance(v.value, complex)
            and not isinstance(node.op, ast.Invert)
        ):
            return Known(-v.value if isinstance(node.op, ast.USub) else v.value)
        v = self.scalar(v, node.operand)
        if isinstance(v, Known):
            fn: dict[type, Callable[[Any], Any]] = {
                ast.USub: operator.neg,
                ast.UAdd: operator.pos,
                ast.Invert: operator.invert,
            }
            return Known(fn[type(node.op)](v.value))
        assert isinstance(v, Value)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.USub):
            if v.scalar.is_bool:
                v = coerce(self.b, v, T.INT32)
            return self.b.un("neg", self.numba_widened(v))
        if v.scalar.is_float or v.scalar.is_bool:
            self.fail(node, f"~ needs an integer, not {v.scalar}", "use `not` for booleans")
        return self.b.un("invert", self.numba_widened(v))

    def numba_widened(self, v: Value) -> Value:
        """An integer operand of a unary operator, as 64 bits under Numba's typing (`-x` and
        `~x` of an int32 are int64 there, of a uint32 uint64)."""
        if not self.ctx.int64 or not v.scalar.is_int:
            return v
        return coerce(self.b, v, numba_int("neg", v.scalar, v.scalar))

    def numba_types(self, a: V, b: V, ta: T.Scalar, tb: T.Scalar) -> tuple[T.Scalar, T.Scalar]:
        """The operand types Numba's typing sees: a Python int is int64, not the other
        operand's type (so `x & 3` of a uint32 is int64, as in Numba)."""
        fp, i64 = self.ctx.fp64, self.ctx.int64
        na = ta if not isinstance(a, Known) else T.literal_type(a.value, fp, i64)
        nb = tb if not isinstance(b, Known) else T.literal_type(b.value, fp, i64)
        return na, nb

    def expr_BinOp(self, node: ast.BinOp) -> V:
        op = _BIN.get(type(node.op))
        a, b = self.expr(node.left), self.expr(node.right)
        if op == "mul" and lists.repeats(node, a, b):  # [0] * n, n known at run time only
            return lists.repeat(self, *lists.repeat_parts(node, a, b), node)
        if op is None:
            if isinstance(a, Known) and isinstance(b, Known):
                return self.known_binop("matmul", a, b, node)
            m = self.method_of(a, "__matmul__")
            if m is not None:
                return self.call_method(m, [b], node)
            self.fail(node, "the @ operator is not supported in kernels")
        return self.binop(op, a, b, node)

    def known_binop(self, op: str, a: Known, b: Known, node: ast.AST) -> V:
        try:
            return Known(known.binop(op, a.value, b.value, self.ctx.fp64))
        except Exception as e:  # noqa: BLE001 - evaluated in CPython; report what it said
            self.fail(node, f"evaluating this at compile time failed: {type(e).__name__}: {e}")

    def binop(self, op: str, a: V, b: V, node: ast.AST) -> V:
        """`a op b` with the number rules of docs/semantics.md."""
        if isinstance(a, Known) and isinstance(b, Known):
            return self.known_binop(op, a, b, node)
        if strings.is_text(a) or strings.is_text(b):  # one is a string, one is not known
            return self.string_binop(op, a, b, node)
        a, b = self._complex_known(a, b, node)
        if op == "pow" and (_is_complex(a) or _is_complex(b)):
            if not (
                _is_complex(a)
                and isinstance(b, Known)
                and isinstance(b.value, (int, np.integer))
                and not isinstance(b.value, bool)
            ):
                self.fail(
                    node,
                    "** on a complex number needs an integer exponent known at compile time",
                    "for other powers write cmath.exp(p * cmath.log(z))",
                )
            b = Known(int(b.value))  # type: ignore[union-attr]
        dunder = _DUNDER.get(op)
        if dunder is not None:
            m = self.method_of(a, f"__{dunder}__")
            if m is not None:
                return self.call_method(m, [b], node)
            m = self.method_of(b, f"__r{dunder}__")
            if m is not None:
                return self.call_method(m, [a], node)
        if op == "add" and (lists.is_list(a) or lists.is_list(b)):
            return list_ops.concat(self, a, b, node)
        if isinstance(a, (Tup, Known)) and isinstance(b, (Tup, Known)) and op in ("add", "mul"):
            if isinstance(a, Tup) or isinstance(b, Tup):
                return self._tuple_op(op, a, b, node)
        a, b = self.scalar(a, node), self.scalar(b, node)
        ta, tb = self.weak_types(a, b, *_operand_types(a, b, self.ctx.fp64))
        if op in ("and", "or", "xor") and ta.is_bool and tb.is_bool:
            t = T.BOOL
        else:
            t = T.promote(ta, tb)
        if op in ("and", "or", "xor", "shl", "shr") and t.is_float:
            self.fail(node, f"bitwise operators need integers, not {t}")
        if op == "div" and not t.is_float:
            t = T.float_type(self.ctx.fp64)
        elif self.ctx.int64 and t.is_int:  # Numba's typing: integer results are 64 bits
            na, nb = self.numba_types(a, b, ta, tb)
            if na.is_int or na.is_bool:
                t = numba_int(op, na, nb)
        if op == "pow":
            return self.power(a, b, t, node)
        if op in ("div", "floordiv", "mod") and self.ctx.division == "python":
            divisor = coerce(self.b, b, t)
            raising.check_divisor(self, op, divisor, node)
            return self.b.bin(op, coerce(self.b, a, t), divisor)
        return self.b.bin(op, coerce(self.b, a, t), coerce(self.b, b, t))

    def weak_types(
        self, a: V, b: V, ta: T.Scalar, tb: T.Scalar
    ) -> tuple[T.Scalar, T.Scalar]:
        """A weak float (a Python float argument, NEP 50) next to a typed float of another
        type takes that type: float32 data stays float32, float64 data keeps the argument's
        float64 value."""
        weak = self.ctx.weak
        if not weak:
            return ta, tb
        wa = isinstance(a, Value) and a.id in weak
        wb = isinstance(b, Value) and b.id in weak
        if wa and not wb and ta.is_float and tb.is_float:
            return tb, tb
        if wb and not wa and ta.is_float and tb.is_float:
            return ta, ta
        return ta, tb

    def _complex_known(self, a: V, b: V, node: ast.AST) -> tuple[V, V]:
        """A known complex number next to a run-time value, as a `Complex` (1j * x)."""
        from ..complexnum import Complex

        def wrap(v: V) -> V:
            if isinstance(v, Known) and isinstance(v.value, complex):
                return self.construct(Complex, [Known(v.value.real), Known(v.value.imag)], {}, node)
            return v

        if isinstance(a, Known) and isinstance(a.value, complex) and not isinstance(b, Known):
            return wrap(a), b
        if isinstance(b, Known) and isinstance(b.value, complex) and not isinstance(a, Known):
            return a, wrap(b)
        return a, b

    def power(self, a: V, b: V, t: T.Scalar, node: ast.AST) -> V:
        if isinstance(b, Known) and isinstance(b.value, (int, np.integer)):
            n = int(b.value)
            if 0 <= n <= 8:  # a small known exponent: multiplications, exact and fast
                base = coerce(self.b, a, t)
                if n == 0:
                    return self.const(1, t)
                acc = base
                for _ in range(n - 1):
                    acc = self.b.bin("mul", acc, base)
                return acc
            if n < 0 and t.is_int:
                t = T.float_type(self.ctx.fp64)
        if isinstance(b, Known) and isinstance(b.value, float) and b.value == 0.5:
            x = coerce(self.b, a, t if t.is_float else T.float_type(self.ctx.fp64))
            return self.b.op("math", [x], [x.type], fn="sqrt").result
        return self.b.bin("pow", coerce(self.b, a, t), coerce(self.b, b, t))

    def _tuple_op(self, op: str, a: V, b: V, node: ast.AST) -> V:
        def items(v: V) -> list[V]:
            if isinstance(v, Tup):
                return list(v.items)
            assert isinstance(v, Known)
            if isinstance(v.value, (tuple, list)):
                return [Known(x) for x in v.value]
            self.fail(node, "this operator needs two tuples (or a tuple and an int for *)")

        def listed(v: V) -> bool:
            return isinstance(v, Tup) and v.is_list or isinstance(v, Known) and \
                isinstance(v.value, list)  # fmt: skip

        if op == "add":
            if any(isinstance(v, Tup) and v.mixed for v in (a, b)):
                self.fail(
                    node,
                    "+ of a value that is a tuple on one path and a list on another: Python "
                    "joins a tuple only to a tuple and a list only to a list (a TypeError "
                    "otherwise), and a kernel does not keep which one a thread has",
                    "make it the same kind on every path: both tuples (a, b) or both lists "
                    "[a, b]",
                )
            return Tup(tuple(items(a) + items(b)), listed(a))
        seq, n = (a, b) if isinstance(a, Tup) else (b, a)
        if not isinstance(n, Known) or not isinstance(n.value, int):
            self.fail(node, "a tuple can only be repeated a known number of times")
        mixed = isinstance(seq, Tup) and seq.mixed  # repeated, each thread's kind stays
        return Tup(tuple(items(seq) * int(n.value)), listed(seq), mixed)  # type: ignore[union-attr]

    def expr_BoolOp(self, node: ast.BoolOp) -> V:
        """`and`/`or`, short-circuiting as in Python: the right side of `i < n and a[i] > 0`
        runs only where the left side allows, so guarded reads stay in bounds."""
        is_and = isinstance(node.op, ast.And)
        acc = self.to_bool(self.expr(node.values[0]), node.values[0])
        for rhs in node.values[1:]:
            if isinstance(acc, Known):
                if bool(acc.value) != is_and:  # False and ..., True or ...: decided
                    return acc
                acc = self.to_bool(self.expr(rhs), rhs)
                continue
            assert isinstance(acc, Value)
            acc = self.short_circuit(acc, rhs, is_and)
        return acc

    def short_circuit(self, left: Value, rhs: ast.expr, is_and: bool) -> Value:
        """`left and rhs` / `left or rhs` with `rhs` evaluated only when needed."""
        if _is_pure(rhs):  # nothing to guard: plain logic, friendlier to vectorisers
            r = self.to_bool(self.expr(rhs), rhs)
            if isinstance(r, Known):
                if r.value:
                    return left if is_and else self.const(True, T.BOOL)
                return self.const(False, T.BOOL) if is_and else left
            return self.b.bin("and" if is_and else "or", left, r)  # type: ignore[arg-type]
        tb, eb = Block(), Block()
        saved = {n: self.env.get(n) for n in raising.STATE}
        with self.b.at(tb if is_and else eb):
            r = coerce(self.b, self.to_bool(self.expr(rhs), rhs), T.BOOL)
            # `rhs` may raise (`a[i]` inside `try`): the thread's exception state leaves the
            # branch as its results (it was defined inside it only: an IRError)
            changed = [n for n in raising.STATE if self.env.get(n) is not saved[n]]
            state = [raising.state_value(self, n, self.env.get(n)) for n in changed]
            self.b.op("yield", [r, *state])
        with self.b.at(eb if is_and else tb):
            r = self.const(not is_and, T.BOOL)
            state = [raising.state_value(self, n, saved[n]) for n in changed]
            self.b.op("yield", [r, *state])
        op = self.b.op("if", [left], [T.BOOL, *(v.type for v in state)], [tb, eb])
        for n, v in zip(changed, op.results[1:]):
            self.env[n] = v
        return op.results[0]

    def expr_Compare(self, node: ast.Compare) -> V:
        left = self.expr(node.left)
        result: V | None = None
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node)
            c = self.compare(op, left, right, node)
            if result is None:
                result = c
            else:
                result = self.binop("and", self.to_bool(result, node), self.to_bool(c, node), node)
            left = right
        assert result is not None
        return result

    def string_binop(self, op: str, a: V, b: V, node: ast.AST) -> V:
        """`s + t` and `s * n` / `n * s` with a string built at run time."""
        if op == "add" and strings.is_text(a) and strings.is_text(b):
            text = strings.concat(self, strings.text_of(a), strings.text_of(b), node)
            return strings.value_of(text)
        if op == "mul":
            s, n = (a, b) if strings.is_text(a) else (b, a)
            if not strings.is_text(n):
                return strings.value_of(strings.repeat(self, strings.text_of(s), n, node))
        other = b if strings.is_text(a) else a
        kind = getattr(other.cls, "__simt_kind__", None) if isinstance(other, Obj) else None
        what = f"{kind[0]} (it has {kind[1]})" if kind else "this value"
        self.fail(node, f"`{op}` of a string and {what}: strings take + (another string; "
                        "str(v) makes one of a number) and * (an int)")  # fmt: skip

    def membership(self, op: ast.In | ast.NotIn, a: V, b: V, node: ast.AST) -> V:
        """`a in b` / `a not in b` with a run-time side: `b` a run-time list, or a tuple
        (compared item by item, as Python's `==`)."""
        if lists.is_list(b):
            found: V = list_ops.contains(self, b, a, node)  # type: ignore[arg-type]
        elif dicts.is_dict_like(b):
            found = dicts.contains(self, b, a, node)  # type: ignore[arg-type]
        elif strings.is_text(b):
            found = strings.contains(self, a, b, node)
        elif isinstance(b, Tup) or (isinstance(b, Known) and isinstance(b.value, (tuple, list))):
            items = list(b.items) if isinstance(b, Tup) else [Known(x) for x in b.value]  # type: ignore[union-attr]
            found = Known(False)
            for x in items:
                same = self.to_bool(self.compare(ast.Eq(), a, x, node), node)
                found = self.binop("or", self.to_bool(found, node), same, node)
        else:
            what = "a run-time list or a tuple" if isinstance(b, Value) else "this value"
            self.fail(node, "`in` needs a list, a tuple, a dict or a set on its right in a "
                            f"kernel, not {what}")  # fmt: skip
        if isinstance(op, ast.NotIn):
            found = self.to_bool(found, node)
            if isinstance(found, Known):
                return Known(not found.value)
            return self.b.un("not", found)  # type: ignore[arg-type]
        return found

    def compare(self, op: ast.cmpop, a: V, b: V, node: ast.AST) -> V:
        if isinstance(a, Known) and isinstance(b, Known):
            try:
                return Known(_PYCMP[type(op)](a.value, b.value))
            except Exception as e:  # noqa: BLE001
                self.fail(node, f"comparing at compile time failed: {type(e).__name__}: {e}")
        if isinstance(op, (ast.In, ast.NotIn)):
            return self.membership(op, a, b, node)
        if (strings.is_str(a) or strings.is_str(b)) and isinstance(op, (ast.Eq, ast.NotEq)):
            if not (strings.is_text(a) and strings.is_text(b)):
                return Known(isinstance(op, ast.NotEq))  # a string never equals a number
            same = strings.equal(self, strings.text_of(a), strings.text_of(b), node)
            return self.b.un("not", same) if isinstance(op, ast.NotEq) else same
        if (strings.is_str(a) or strings.is_str(b)) and type(op) in _ORDER:
            if not (strings.is_text(a) and strings.is_text(b)):
                self.fail(node, f"'{_ORDER[type(op)]}' between a string and a number "
                          "(Python's TypeError)", "str(v) makes a string of a number, "
                          "int(s) or float(s) a number of a string")  # fmt: skip
            return strings.order(self, _CMP[type(op)], strings.text_of(a), strings.text_of(b),
                                 node)  # fmt: skip
        if dicts.is_dict_like(a) or dicts.is_dict_like(b):
            self.fail(node, "comparing dicts or sets is not supported in kernels",
                      "compare len(d), and the entries in a loop")  # fmt: skip
        name = _CMP.get(type(op))
        if name is None:
            self.fail(node, f"`{type(op).__name__}` works only on values known at compile time")
        if any(_is_complex(v) or (isinstance(v, Known) and isinstance(v.value, complex))
               for v in (a, b)):  # fmt: skip
            a, b = self._complex_known(a, b, node)
            if name not in ("eq", "ne"):
                self.fail(node, "complex numbers have no order: compare them with == or !=",
                          "compare abs(z), or z.real and z.imag")  # fmt: skip
            for x, y in ((a, b), (b, a)):  # z == w, and x == z with x a real number
                m = self.method_of(x, f"__{name}__")
                if m is not None:
                    return self.call_method(m, [y], node)
        a, b = self.scalar(a, node), self.scalar(b, node)
        decided = _outside_range(op, a, b)
        if decided is not None:
            return decided
        ta, tb = self.weak_types(a, b, *_operand_types(a, b, self.ctx.fp64))
        t = ta if ta == tb else T.promote(ta, tb)
        if self.ctx.int64 and t.is_int:  # Numba compares mixed integers as int64 (a Python
            na, nb = self.numba_types(a, b, ta, tb)  # int too: `u < -1` is False there)
            if na != nb:
                t = numba_int("cmp", na, nb)
        return self.b.cmp(name, coerce(self.b, a, t), coerce(self.b, b, t))

    def expr_IfExp(self, node: ast.IfExp) -> V:
        cond = self.to_bool(self.expr(node.test), node.test)
        if isinstance(cond, Known):
            return self.expr(node.body if cond.value else node.orelse)
        assert isinstance(cond, Value)
        if _is_pure(node.body) and _is_pure(node.orelse):
            a, b = self.expr(node.body), self.expr(node.orelse)
            if isinstance(a, Known) and isinstance(b, Known) and a == b:
                return a
            if is_function(a) or is_function(b):
                self.refuse_apart(node, "this `if`/`else` expression", *_paths(a, b, ""))
            if not any(_is_complex(v) or isinstance(v, Tup) or strings.is_text(v) or (
                       isinstance(v, Known) and isinstance(v.value, (complex, tuple, list)))
                       for v in (a, b)):  # fmt: skip
                a, b = self.scalar(a, node.body), self.scalar(b, node.orelse)
                t = merge_scalar(a, b, fp=self.ctx.fp64)
                return self.b.select(cond, coerce(self.b, a, t), coerce(self.b, b, t))
            # complex numbers, tuples: merged as an `if` statement's variables are
        key = "$ifexp"
        self.branch(cond, lambda: self._set(key, node.body), lambda: self._set(key, node.orelse))
        v = self.env.pop(key)
        if v is UNDEF and key in self.ctx.apart:
            self.refuse_apart(node, "this `if`/`else` expression", *self.ctx.apart.pop(key))
        return v

    def _set(self, key: str, node: ast.expr) -> None:
        self.env[key] = self.expr(node)

    def expr_Call(self, node: ast.Call) -> V:
        if (len(node.args) == 1 and isinstance(node.func, ast.Name)
                and node.func.id in ("list", "sorted", "sum", "min", "max")
                and self._is_builtin(node.func, node.func.id)):  # fmt: skip
            # list(reversed(xs)), sorted(zip(...)), sum(v for v in xs) over a run-time
            # sequence: the items a loop over it takes, as a run-time list (a generator
            # expression elsewhere, a generator of its own, stays refused)
            arg = node.args[0]
            made: ast.ListComp | None = None
            if isinstance(arg, ast.GeneratorExp) and self.run_time_comprehension(arg):
                made = ast.copy_location(ast.ListComp(arg.elt, arg.generators), arg)
            elif iteration.run_time_call(self, arg):
                made = _listed(arg)
            if made is not None:
                node = ast.copy_location(ast.Call(node.func, [made], node.keywords), node)
        return calls.call(self, node)

    # ---------------------------------------------------------------- inlining
    def method_of(self, v: V, name: str) -> Bound | None:
        """The Python method `name` of an object built in the kernel, or of a known instance
        of a user class, when the call must be translated (an argument is a run-time value)."""
        if isinstance(v, Obj):
            f = getattr(v.cls, name, None)
            return Bound(v, f) if inspect.isfunction(f) else None
        if (
            isinstance(v, Known)
            and not is_number(v.value)
            and not isinstance(v.value, (tuple, list, str, np.ndarray, type(None)))
        ):
            f = getattr(type(v.value), name, None)
            return Bound(v, f) if inspect.isfunction(f) else None
        return None

    def call_method(
        self, m: Bound, args: list[V], node: ast.AST, kwargs: dict[str, V] | None = None
    ) -> V:
        return self.inline(m.func, [m.obj, *args], kwargs or {}, node)

    def construct(self, cls: type, args: list[V], kwargs: dict[str, V], node: ast.AST) -> V:
        """`cls(...)` with run-time arguments: an object value built by inlining __init__."""
        init = getattr(cls, "__init__", None)
        if not inspect.isfunction(init):
            self.fail(
                node,
                f"{cls.__name__}(...) cannot be built from run-time values in a "
                "kernel (its __init__ is not Python code)",
            )
        return self.inline(init, [Obj(cls)], kwargs, node, return_self=True, args_rest=args)

    def call_local(self, f: local_functions.LocalFunction, args: list[V],
                   kwargs: dict[str, V], node: ast.AST) -> V:  # fmt: skip
        """A call of a function defined in a kernel: its body translated here, reading the
        defining function's variables as they are now (Python's late binding) and binding
        its own names in a scope of its own."""
        if f in self.ctx.inline_stack:
            self.fail(node, f"{f.name}() calls itself: recursion is not supported in kernels",
                      "rewrite it as a loop")  # fmt: skip
        env = local_functions.visible(f.definer.env)
        for name, v in local_functions.bind(self, f, args, kwargs, node).items():
            env[name] = self.sequence(list(v), tuple) if isinstance(v, tuple) else v
        env[RET] = Known(False)
        env[RETVAL] = UNDEF
        outer = raising.enter_call(self, env)
        sub = Translator(self.ctx, f.definer.src, f.definer.pyfunc, env)
        sub.library = f.definer.library
        self.ctx.inline_stack.append(f)
        saved_loc = self.b.loc
        try:
            sub.stmts(local_functions.body(f))
        finally:
            self.ctx.inline_stack.pop()
            self.b.loc = saved_loc
            raising.leave_call(self, outer, sub.env)
        result = sub.env.get(RETVAL, UNDEF)
        return Known(None) if result is UNDEF else result

    def inline(
        self,
        fn: Any,
        args: list[V],
        kwargs: dict[str, V],
        node: ast.AST,
        return_self: bool = False,
        args_rest: list[V] | None = None,
    ) -> V:
        """Translate a call of a plain Python function by translating its body here."""
        if args_rest is not None:
            args = [*args, *args_rest]
        if fn in self.ctx.inline_stack:
            self.fail(
                node,
                f"{fn.__name__}() calls itself: recursion is not supported in kernels",
                "rewrite it as a loop",
            )
        try:
            src = get_source(fn)
        except CompileError as e:  # a lambda, a function without source: said at the call
            where = f" (defined at {e.filename}:{e.line})" if e.line is not None else ""
            name = ast.unparse(node.func) if isinstance(node, ast.Call) else fn.__name__
            self.fail(node, f"{name}(){where} cannot be compiled: {e.message}", e.hint)
        sig = inspect.signature(fn)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            self.fail(node, f"bad call of {fn.__name__}(): {e}")
        bound.apply_defaults()
        env: dict[str, V] = {}
        for name, v in bound.arguments.items():
            p = sig.parameters[name]
            if p.kind in (p.VAR_POSITIONAL,):
                env[name] = self.sequence(list(v), tuple)
            elif p.kind == p.VAR_KEYWORD:
                self.fail(node, f"{fn.__name__}() takes **kwargs: not supported in kernels")
            else:
                env[name] = (
                    v if isinstance(v, (Known, Value, Tup, Obj, Bound, View, CArray)) else Known(v)
                )
        env[RET] = Known(False)
        env[RETVAL] = UNDEF
        outer = raising.enter_call(self, env)  # the callee starts not raising (raising.py)
        sub = Translator(self.ctx, src, fn, env)
        sub.library = self.library or (_in_simt(src.filename) and not _in_simt(self.src.filename))
        self.ctx.inline_stack.append(fn)
        saved_loc, saved_int64 = self.b.loc, self.ctx.int64
        if sub.library:  # simt's own code keeps simt's int32 rule under Numba's typing
            self.ctx.int64 = False
        try:
            sub.stmts(src.tree.body)
        except CompileError as e:
            if not sub.library or self.library:
                raise
            # an error inside simt's own method is the caller's: located at the call
            loc = self.src.loc(node)
            raise type(e)(
                e.message, loc.filename, loc.line, loc.col, loc.source_line, e.hint
            ) from None
        finally:
            self.ctx.inline_stack.pop()
            self.b.loc, self.ctx.int64 = saved_loc, saved_int64
            raising.leave_call(self, outer, sub.env)
        if return_self:
            first = next(iter(sig.parameters))
            return sub.env[first]
        result = sub.env.get(RETVAL, UNDEF)
        return Known(None) if result is UNDEF else result


def _outside_range(op: ast.cmpop, a: V, b: V) -> Known | None:
    """A typed integer compared with a known integer its type cannot hold (`i < 2**70`): the
    answer is the same for every value of the type, so it is known (wrapping the literal to
    the type would give a wrong one)."""
    for typed, k, left in ((a, b, True), (b, a, False)):
        if not (isinstance(typed, Value) and isinstance(k, Known)):
            continue
        t = typed.type
        if not (isinstance(t, T.Scalar) and t.is_int and isinstance(k.value, (int, np.integer))):
            continue
        if isinstance(k.value, (bool, np.bool_)):
            continue
        lo = -(1 << (t.bits - 1)) if t.kind == "i" else 0
        hi = (1 << (t.bits - 1)) - 1 if t.kind == "i" else (1 << t.bits) - 1
        if lo <= int(k.value) <= hi:
            continue
        pair = (lo, int(k.value)) if left else (int(k.value), lo)
        return Known(bool(_PYCMP[type(op)](*pair)))
    return None


def _literal_text(msg: ast.expr | None) -> str | None:
    """The text of an `assert` message written out in the source (a constant, or an f-string
    with no fields), decided from the tree: translating it costs nothing and does nothing, so
    it may be known outside the branch where the test fails. None for any other message."""
    if isinstance(msg, ast.Constant):
        return str(msg.value)
    if isinstance(msg, ast.JoinedStr) and all(isinstance(v, ast.Constant) for v in msg.values):
        return "".join(str(v.value) for v in msg.values)  # type: ignore[attr-defined]
    return None


def _is_complex(v: V) -> bool:
    from ..complexnum import Complex

    return isinstance(v, Obj) and v.cls is Complex


def _operand_types(a: V, b: V, fp: bool) -> tuple[T.Scalar, T.Scalar]:
    """The types of a binary operation's operands, at least one typed: a known operand takes
    the type of the other (literals follow the typed side)."""
    ta, tb = scalar_type(a), scalar_type(b)
    if ta is None:
        ta = known_type(a.value, tb, fp)  # type: ignore[union-attr]
    if tb is None:
        tb = known_type(b.value, ta, fp)  # type: ignore[union-attr]
    return ta, tb


def _is_pure(node: ast.expr) -> bool:
    """No call, subscript or dict or set display inside (which allocates in the heap):
    evaluating it for every thread cannot fault."""
    impure = (ast.Call, ast.Subscript, ast.Dict, ast.Set, ast.DictComp, ast.SetComp)
    return not any(isinstance(n, impure) for n in ast.walk(node))


def _has_slice(sl: ast.expr) -> bool:
    """Whether a subscript has a slice among its items (`a[i, 1:3]`)."""
    return any(isinstance(e, ast.Slice) for e in (sl.elts if isinstance(sl, ast.Tuple) else [sl]))


def _listed(it: ast.expr) -> ast.ListComp:
    """`[x for x in it]`, with a name no Python name can spell."""
    x = f"$it{it.lineno}_{it.col_offset}"
    comp = ast.ListComp(
        elt=ast.Name(id=x, ctx=ast.Load()),
        generators=[ast.comprehension(target=ast.Name(id=x, ctx=ast.Store()), iter=it,
                                      ifs=[], is_async=0)],
    )  # fmt: skip
    ast.copy_location(comp, it)
    return ast.fix_missing_locations(comp)


def _stored_names(loop: ast.For) -> frozenset[str]:
    """The names a loop assigns: its target and every name stored in its body."""
    return frozenset(
        n.id for n in ast.walk(loop) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    )


def _needs_known_args(tr: Translator, node: ast.AST, msg: str) -> tuple[Any, ...]:
    loc = tr.src.loc(node)
    return (
        msg,
        loc.filename,
        loc.line,
        loc.col,
        loc.source_line,
        "index it with a value known at compile time, or pass the data as an array",
    )
