"""Checkpoints: what a thread's variables hold after a statement, for the REPL.

The REPL compiles each input into a kernel that stores the variables it assigned at its end;
a thread that raises never gets there. Python keeps the assignments of the statements that
ran before the one that raised, so the REPL puts a call `_simt_cp(_simt_tid, k)` after each
top-level statement `k` of the input (`repl.codegen.checkpoints`), bound to a `Checkpoint`:

- translated for the probe (`store` False), the call records the values the names of
  statement `k` hold there (`seen`: UNDEF where a name is not defined on every path), without
  reading them as the user's code would (which refuses a name that may be undefined),
  afresh in each translation (`start`: a retry's values are not the last one's);
- translated for the launch (`store` True), it stores the names the REPL chose into their
  output arrays (`_o_<name>[_simt_tid] = name`) and the thread's progress, `k + 1`, into the
  array `done` names: a thread that raises later keeps them. As any store, these run only
  where the thread is not raising (`raising.guard_effect`, or the rest of the statement list
  under `if not exited`).
"""

from __future__ import annotations

import ast
from typing import Any

from .context import Translating
from .merge import leaf_values
from .values import UNDEF, Known, V


class Checkpoint:
    """The object `_simt_cp` names in a REPL kernel's namespace (see the module's text)."""

    def __init__(
        self, names: dict[int, list[str]], store: bool, prefix: str = "_o_", done: str = ""
    ) -> None:
        self.names = names  # statement -> the names recorded (probe) or stored there
        self.store = store
        self.prefix = prefix  # the output array of name `x` is `prefix + x`
        self.done = done  # the name whose output array gets each thread's progress
        self.seen: dict[tuple[int, str], V] = {}

    def __call__(self, *args: Any) -> None:
        raise RuntimeError("a REPL checkpoint runs only in the kernel of an input")


def start(pyfunc: Any) -> None:
    """A translation of `pyfunc` begins (`specialise`: each try of its retries): the
    checkpoints its namespace holds have seen nothing of it yet, so what an earlier one saw
    (a statement it reached and this one does not) is not taken for this one's."""
    for v in getattr(pyfunc, "__globals__", {}).values():
        if isinstance(v, Checkpoint):
            v.seen.clear()


def translate_checkpoint(tr: Translating, cp: Checkpoint, node: ast.Call) -> V:
    """Translate `cp(_simt_tid, k)`."""
    tid, at = node.args
    assert isinstance(at, ast.Constant) and isinstance(at.value, int)
    k = at.value
    for name in cp.names.get(k, ()):
        v = tr.env.get(name, UNDEF)
        if v is not UNDEF and tr.ctx.partial and any(
            id(x) in tr.ctx.partial for x in leaf_values(v)
        ):
            v = UNDEF  # assigned on some paths only
        if not cp.store:
            cp.seen[(k, name)] = v
        elif v is not UNDEF:
            _store(tr, cp.prefix + name, tid, ast.Name(name, ast.Load()), node)
    if cp.store and cp.done:
        _store(tr, cp.prefix + cp.done, tid, ast.Constant(k + 1), node)
    return Known(None)


def _store(tr: Translating, array: str, tid: ast.expr, value: ast.expr, node: ast.AST) -> None:
    target = ast.Subscript(ast.Name(array, ast.Load()), tid, ast.Store())
    stmt = ast.fix_missing_locations(ast.copy_location(ast.Assign([target], value), node))
    for n in ast.walk(stmt):
        ast.copy_location(n, node)
    tr.stmts([stmt])
