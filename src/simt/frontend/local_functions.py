"""Functions defined inside a kernel: `lambda` and a nested `def`.

Such a function is a value known at compile time (`Known(LocalFunction)`); calling it
translates its body at the call, as a module-level helper is inlined (`Translator.inline`).
Python's closure rules hold: a default is evaluated where the function is defined, a free
name is read when the function is called (late binding: the defining function's variable as
it is at that moment), a name the body assigns is the body's own. The translator is
`translate.Translator.call_local`; this module defines, describes and binds.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from typing import Any

from .context import Translating
from .values import Known, V


@dataclass(frozen=True, eq=False)
class LocalFunction:
    """A `lambda` or nested `def` of a kernel: its syntax, the translator of the function it
    was defined in (whose variables it reads when called) and its defaults' values."""

    node: ast.Lambda | ast.FunctionDef
    definer: Translating
    signature: inspect.Signature  # defaults: the values (V) evaluated at the definition
    defined_in_kernel = True  # a function to `values.is_function` (and so to messages)

    @property
    def name(self) -> str:
        return "<lambda>" if isinstance(self.node, ast.Lambda) else self.node.name

    def __repr__(self) -> str:
        return f"<function {self.name} defined in a kernel>"


def define(tr: Translating, node: ast.Lambda | ast.FunctionDef) -> Known:
    """The function value of `node`, its defaults evaluated here (Python's rule)."""
    if isinstance(node, ast.FunctionDef):
        if node.decorator_list:
            tr.fail(node.decorator_list[0], "decorators of a function defined in a kernel are "
                    "not supported", "define the decorated function at module level")  # fmt: skip
    a = node.args
    if a.kwarg is not None:
        tr.fail(a.kwarg, "**kwargs in a function defined in a kernel is not supported",
                "name the keyword parameters")  # fmt: skip
    positional = [*a.posonlyargs, *a.args]
    defaults: list[V | None] = [None] * (len(positional) - len(a.defaults))
    defaults += [tr.expr(d) for d in a.defaults]
    params = [
        inspect.Parameter(p.arg, inspect.Parameter.POSITIONAL_ONLY if k < len(a.posonlyargs)
                          else inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          default=inspect.Parameter.empty if d is None else d)
        for k, (p, d) in enumerate(zip(positional, defaults))
    ]  # fmt: skip
    if a.vararg is not None:
        params.append(inspect.Parameter(a.vararg.arg, inspect.Parameter.VAR_POSITIONAL))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        params.append(inspect.Parameter(
            p.arg, inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if d is None else tr.expr(d)))  # fmt: skip
    return Known(LocalFunction(node, tr, inspect.Signature(params)))


def bind(tr: Translating, f: LocalFunction, args: list[V], kwargs: dict[str, V],
         node: ast.AST) -> dict[str, Any]:  # fmt: skip
    """Each parameter's value for a call (Python's TypeError for a call that does not fit, as
    a compile error at the call); `*args` as the list of its values."""
    try:
        bound = f.signature.bind(*args, **kwargs)
    except TypeError as e:
        tr.fail(node, f"bad call of {f.name}(): {e}")
    bound.apply_defaults()
    return dict(bound.arguments)


def visible(env: dict[str, V]) -> dict[str, V]:
    """The variables of a defining function's `env` that its local functions read (not the
    translator's own entries, `$ret` and the like)."""
    return {k: v for k, v in env.items() if k.isidentifier()}


def body(f: LocalFunction) -> list[ast.stmt]:
    """The statements a call runs: a lambda's expression becomes `return` of it."""
    if isinstance(f.node, ast.Lambda):
        ret = ast.Return(f.node.body)
        return [ast.copy_location(ret, f.node.body)]
    return f.node.body
