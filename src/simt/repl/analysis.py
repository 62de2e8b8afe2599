"""What an input does, read from its syntax: the names it reads and assigns, the statements
that must run on the host, and whether it depends on the thread at all."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

# Statements that always run once in CPython, before the rest of an input.
HOST_STMTS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
SCOPES = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


@dataclass
class Shape:
    """The syntax of one input."""

    tree: ast.Module
    reads: set[str] = field(default_factory=set)  # names read anywhere (nested scopes too)
    writes: list[str] = field(default_factory=list)  # names bound at the input's own level
    hoisted: list[ast.stmt] = field(default_factory=list)  # imports, defs, classes
    echo: bool = False  # the last statement is a bare expression


def _walk_own_scope(node: ast.AST) -> list[ast.AST]:
    """The nodes under `node` outside nested functions, classes, lambdas and comprehensions."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(node))
    while todo:
        n = todo.pop()
        out.append(n)
        if not isinstance(n, SCOPES):
            todo.extend(ast.iter_child_nodes(n))
    return out


def shape(tree: ast.Module) -> Shape:
    """The names `tree` reads and writes, its hoisted statements, whether it echoes."""
    s = Shape(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            s.reads.add(n.id)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            s.reads.add(n.target.id)
    for stmt in tree.body:
        if isinstance(stmt, HOST_STMTS):
            s.hoisted.append(stmt)
            continue
        for n in [stmt, *_walk_own_scope(stmt)]:
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in s.writes:
                s.writes.append(n.id)
    s.echo = bool(tree.body) and isinstance(tree.body[-1], ast.Expr)
    return s


def depends_on_thread(s: Shape, thread_names: set[str]) -> bool:
    """Whether any statement outside the hoisted ones reads a per-thread name (`tid`, a
    per-thread variable, a bound buffer); if none does, the whole input runs on the host."""
    for stmt in s.tree.body:
        if isinstance(stmt, HOST_STMTS):
            continue
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and n.id in thread_names:
                return True
    return False


def is_print_call(stmt: ast.stmt) -> bool:
    """`print(...)` as a statement: echoing its None would print nothing anyway."""
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Name)
        and stmt.value.func.id == "print"
    )


_MAKERS = ("dict", "set")  # calls that make a dict or a set


def fast_prints(tree: ast.Module) -> tuple[int, ...]:
    """The top-level `print(a, b, ...)` statements whose rows the host can format (plain
    positional arguments, no f-strings), when the input has no other print: then what each
    thread prints is known as values, grouped without a print record per thread. An input
    that makes lists, dicts or sets has none (they are printed item by item, by records)."""
    makes = (ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set, ast.SetComp)
    if any(
        isinstance(n, makes)
        or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in _MAKERS)
        for n in ast.walk(tree)
    ):
        return ()
    found = []
    for i, stmt in enumerate(tree.body):
        if is_print_call(stmt):
            call = stmt.value  # type: ignore[attr-defined]
            if call.keywords or any(isinstance(a, (ast.Starred, ast.JoinedStr)) for a in call.args):
                return ()
            found.append(i)
    uses = sum(1 for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "print")
    return tuple(found) if uses == len(found) else ()
