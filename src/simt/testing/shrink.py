"""Delta debugging: reduce a failing generated kernel to the few lines that still fail.

`shrink(program, still_fails)` repeatedly tries smaller variants of the program's module —
each statement of the kernel and its helpers removed (a block left empty gets `pass`), each
binary operation, call or conditional expression replaced by one of its operands — and keeps
a variant whenever `still_fails` says it fails the same way. It stops when no single removal
or replacement is kept (a 1-minimal program in the sense of Zeller's ddmin, by single steps).
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator

from .generator import Program, from_source


def _functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [n for n in tree.body if isinstance(n, ast.FunctionDef)]


def _statement_slots(tree: ast.Module) -> list[tuple[list[ast.stmt], int]]:
    """(body list, index) of every statement inside the module's functions."""
    out: list[tuple[list[ast.stmt], int]] = []
    for fn in _functions(tree):
        for node in ast.walk(fn):
            for name in ("body", "orelse"):
                body = getattr(node, name, None)
                if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                    out.extend((body, k) for k in range(len(body)))
    return out


def _without_statement(source: str, n: int) -> str | None:
    tree = ast.parse(source)
    slots = _statement_slots(tree)
    if n >= len(slots):
        return None
    body, k = slots[n]
    if isinstance(body[k], ast.Pass):
        return None
    del body[k]
    if not body:
        body.append(ast.Pass())
    return ast.unparse(tree) + "\n"


_SIMPLER = (ast.BinOp, ast.IfExp, ast.Call, ast.BoolOp, ast.UnaryOp, ast.Compare)


def _operands(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.Call):
        return [a for a in node.args if not isinstance(a, ast.Starred)]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Compare):
        return [ast.Constant(True), ast.Constant(False)]
    return []


class _Replace(ast.NodeTransformer):
    def __init__(self, target: int, choice: int) -> None:
        self.target, self.choice, self.seen, self.done = target, choice, -1, False

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, _SIMPLER) and not self.done:
            self.seen += 1
            if self.seen == self.target:
                ops = _operands(node)  # type: ignore[arg-type]
                if self.choice < len(ops):
                    self.done = True
                    return copy.deepcopy(ops[self.choice])
        return super().generic_visit(node)


def _with_operand(source: str, n: int, choice: int) -> str | None:
    tree = ast.parse(source)
    fns = _functions(tree)
    r = _Replace(n, choice)
    for fn in fns:
        r.visit(fn)
    if not r.done:
        return None
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _candidates(source: str) -> Iterator[str]:
    tree = ast.parse(source)
    for n in range(len(_statement_slots(tree))):
        cand = _without_statement(source, n)
        if cand is not None:
            yield cand
    count = sum(isinstance(x, _SIMPLER) for fn in _functions(tree) for x in ast.walk(fn))
    for n in range(count):
        for choice in range(3):
            cand = _with_operand(source, n, choice)
            if cand is not None:
                yield cand


def shrink(
    program: Program, still_fails: Callable[[Program], bool], max_tries: int = 2000
) -> Program:
    """The smallest variant of `program` found for which `still_fails` holds."""
    best = program
    tries = 0
    progress = True
    while progress and tries < max_tries:
        progress = False
        for cand in _candidates(best.source):
            tries += 1
            if tries > max_tries:
                break
            try:
                p = from_source(cand)
            except (SyntaxError, ValueError, KeyError):
                continue
            if still_fails(p):
                best = p
                progress = True
                break  # restart from the smaller program
    return best
