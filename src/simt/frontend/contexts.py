"""`with`: context managers, lowered on the exceptions' per-thread state (raising.py).

`with m as x: body` runs as Python runs it:

    x = m.__enter__()
    body                                  # as a `try` body: what it raises is seen below
    if the body raised e:   if not m.__exit__(type(e), e, None): raise e again
    else (also after return, break, continue in the body):   m.__exit__(None, None, None)

A kind of context manager is a `ContextManager` (its `enter` and `exit`, each translating a
call). `manager` finds it: first the hooks in `KINDS` (a part that adds a kind of object
kernels use, such as files, appends one: `KINDS.append(hook)`, a hook returning None for
values it does not know), then objects whose class defines `__enter__` and `__exit__` in
Python, which are inlined like other methods. Objects are values (docs/language.md): what
`__enter__` changes of `self` is kept only through what it returns, so `__exit__` is called
on the `as` variable's object when it is one of the manager's class (`with Timer() as t:`),
else on the manager.
"""

from __future__ import annotations

import ast
import contextlib
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from ..ir import Value
from . import raising
from .context import Translating
from .values import Known, Obj, V


@dataclass
class ContextManager:
    """How a `with` enters and leaves one kind of manager. `enter()` translates the entry
    and gives the `as` value; `exit(exc_type, exc)` translates the exit (known None, None on
    the normal path; the exception's class and the caught value where the body raised) and
    gives what `__exit__` returned (true: the exception is suppressed)."""

    enter: Callable[[], V]
    exit: Callable[[V, V], V]


Hook = Callable[[Translating, V, ast.AST], "ContextManager | None"]
#: the class of what a @contextlib.contextmanager function returns (CPython's, not public)
_GENERATOR_CM: type | tuple[type, ...] = getattr(contextlib, "_GeneratorContextManager", ())
#: hooks for kinds of managers that are not Python classes inlined by the front end
KINDS: list[Hook] = []


def manager(tr: Translating, m: V, node: ast.AST, target: ast.expr | None) -> ContextManager:
    """The `ContextManager` of value `m` (the `with` item's expression at `node`)."""
    for hook in KINDS:
        cm = hook(tr, m, node)
        if cm is not None:
            return cm
    if isinstance(m, Known) and isinstance(m.value, _GENERATOR_CM):
        _refuse(tr, m, node)  # (its __enter__ is Python, but it runs a generator)
    enter, leave = tr.method_of(m, "__enter__"), tr.method_of(m, "__exit__")
    if enter is None or leave is None:
        _refuse(tr, m, node)

    def do_enter() -> V:
        return tr.call_method(enter, [], node)

    def do_exit(exc_type: V, exc: V) -> V:
        self_ = m
        if isinstance(target, ast.Name) and isinstance(m, Obj):
            now = tr.env.get(target.id)
            if isinstance(now, Obj) and now.cls is m.cls:
                self_ = now
        bound = tr.method_of(self_, "__exit__")
        assert bound is not None
        return tr.call_method(bound, [exc_type, exc, Known(None)], node)

    return ContextManager(do_enter, do_exit)


def stmt_with(tr: Translating, node: ast.With) -> None:
    _items(tr, node, 0)


def _items(tr: Translating, node: ast.With, k: int) -> None:
    """`with a, b: body` is `with a: with b: body`."""
    if k == len(node.items):
        tr.stmts(node.body)
        return
    item = node.items[k]
    tr.at(item.context_expr)
    cm = manager(tr, tr.expr(item.context_expr), item.context_expr, item.optional_vars)
    value = cm.enter()
    if item.optional_vars is not None:
        tr.assign(item.optional_vars, value, item.context_expr)
    if raising.may_raise(tr):  # __enter__ (or `open`) raised: the body and __exit__ do not
        # run, and that path left the statement list (what the body assigns is not "maybe
        # undefined" after the `with`, as after any statement that may raise)
        tr.branch(tr.b.un("not", raising.flag(tr)),  # type: ignore[arg-type]
                  lambda: _body_and_exit(tr, node, k, cm), tr.left)  # fmt: skip
        return
    _body_and_exit(tr, node, k, cm)


def _body_and_exit(tr: Translating, node: ast.With, k: int, cm: ContextManager) -> None:
    tr.clear_flags()
    mark = raising.site_mark(tr)
    tr.ctx.try_depth += 1
    try:
        _items(tr, node, k + 1)
    finally:
        tr.ctx.try_depth -= 1
    sites = raising.sites_since(tr, mark)
    tr.at(node)
    f = raising.flag(tr)

    def normal() -> None:  # after the body, a return, a break or a continue in it
        raising.always(tr, lambda: _ignore(cm.exit(Known(None), Known(None))))

    def raised() -> None:
        _exit_raising(tr, cm, sites, node)

    if isinstance(f, Known):
        (raised if f.value else normal)()
    else:
        assert isinstance(f, Value)
        tr.branch(f, raised, normal)
    if tr.ctx.try_depth == 0:
        raising.exit_if_raising(tr)


def _ignore(v: V) -> None:
    return None


def _exit_raising(tr: Translating, cm: ContextManager, sites: list[int], node: ast.AST) -> None:
    """`__exit__(type(e), e, None)` where the body raised: a true result suppresses `e`; an
    exception `__exit__` raises itself replaces it. Where the body may raise exceptions of
    several classes, `__exit__` runs once per class, under a test of the sites raising it, so
    that `exc_type` is the exception's own class (`exc_type is ValueError` works)."""
    groups = raising.by_class(tr, sites)
    if len(groups) == 1:
        _exit_class(tr, cm, sites, groups[0][0], node)
        return
    for cls, group in groups:
        # (a group's exit leaves the state raising none of the later groups' sites: a
        # suppressed exception clears it, a re-raised one is of this group)
        tr.branch(raising.raising_at(tr, group),
                  lambda cls=cls, group=group: _exit_class(tr, cm, group, cls, node),  # type: ignore[misc]
                  lambda: None)  # fmt: skip


def _exit_class(tr: Translating, cm: ContextManager, sites: list[int], cls: type,
                node: ast.AST) -> None:  # fmt: skip
    e = raising.caught_now(tr, sites)
    saved = {n: tr.env.get(n, Known(0)) for n in (raising.EXC, raising.EXA, raising.EXB)}
    tr.env[raising.RAISED] = Known(False)
    for n in saved:
        tr.env[n] = Known(0)
    result = cm.exit(Known(cls), e)
    suppress = tr.to_bool(result, node)
    own = raising.flag(tr)  # whether __exit__ raised its own exception
    if isinstance(suppress, Known) and suppress.value:
        return
    again = None if isinstance(suppress, Known) else tr.b.un("not", suppress)  # type: ignore[arg-type]
    raising.reraise(tr, saved, again, own)


def _refuse(tr: Translating, m: V, node: ast.AST) -> NoReturn:
    """A `with` whose manager simt cannot run: say why, and what to write instead."""
    if isinstance(m, Known) and isinstance(m.value, io.IOBase):
        m.value.close()  # (`open` ran while compiling: the file is not left open)
        tr.fail(
            node,
            "`with open(path, \"rb\")` in a kernel: a file opened in binary mode with a path "
            "known at compile time is read while compiling, and a kernel cannot hold the "
            "file itself",
            "read it before the kernel (DATA = open(path, \"rb\").read(), a global: bytes "
            "a kernel indexes at run time); `with open(path) as f:` reads text per thread "
            "and `with open(path, \"w\") as f:` writes (docs/language.md, Files)",
        )
    if isinstance(m, Known) and isinstance(m.value, _GENERATOR_CM):
        name = getattr(m.value, "func", None)
        name = getattr(name, "__name__", "it")
        tr.fail(
            node,
            f"`with {name}()`: {name} is a @contextlib.contextmanager generator, and "
            "generators do not run in kernels",
            f"write {name} as a class with __enter__(self) and __exit__(self, exc_type, exc, "
            "tb) methods, which a kernel's `with` inlines",
        )
    cls = type(m.value) if isinstance(m, Known) else getattr(m, "cls", None)
    what = getattr(cls, "__name__", "this value")
    if cls is not None and hasattr(cls, "__enter__") and hasattr(cls, "__exit__"):
        tr.fail(
            node,
            f"`with` on a {what}: its __enter__ and __exit__ are not written in Python (a "
            "built-in or compiled class), and a kernel inlines only Python methods",
            "use the `with` outside the kernel, or a class of your own whose __enter__ and "
            "__exit__ are Python",
        )
    tr.fail(
        node,
        f"`with` needs a context manager: {what} has no __enter__ and __exit__ written in "
        "Python",
        "give the class __enter__(self) and __exit__(self, exc_type, exc, tb) methods",
    )

