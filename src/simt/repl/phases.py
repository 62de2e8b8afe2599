"""Files that threads write, read by their block after `syncthreads()` within one input.

Threads' file writes are records that land in host files when a launch ends, so within one
kernel no thread could read what another wrote. An input that opens a file for writing
before a `syncthreads()` at its top level is therefore run in phases, one launch each, cut at
those barriers: the end of a launch is a barrier for every thread (a stronger one than the
block's), the files written before it land, and the next phase reads them. Per-thread
variables, files and byte strings, bound buffers and shared arrays carry over from phase to
phase as they do from input to input. A barrier inside `for`/`while`/`if` cannot be cut
there; an input that writes files and reads them after such a barrier is refused by line.
"""

from __future__ import annotations

import ast

from .files import write_mode


def _is_barrier(node: ast.AST) -> bool:
    """`syncthreads()` or `simt.syncthreads()` (a call, anywhere)."""
    return (
        isinstance(node, ast.Call)
        and not node.args
        and ast.unparse(node.func) in ("syncthreads", "simt.syncthreads")
    )


def _opens(node: ast.AST) -> tuple[bool, bool]:
    """(whether `node` opens a file for writing, whether it opens or uses one for reading)."""
    writes = reads = False
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "open":
            if write_mode(n) is None:
                reads = True
            else:
                writes = True
    return writes, reads


class Refused(Exception):
    """The input cannot be cut where its files would need it (the message says where)."""


def cuts(tree: ast.Module, filename: str, file_objects: set[str]) -> list[int]:
    """Indices of the top-level `syncthreads()` statements to cut the input at: those with a
    file opened for writing in a statement before them. Empty when the input needs no cut.
    `Refused` when files written in the input are read (`open(path)`, or a file or byte
    string of an earlier input, named in `file_objects`) after a barrier nested in a
    compound statement."""
    out: list[int] = []
    written = False
    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.Expr) and _is_barrier(stmt.value):
            if written:
                out.append(i)
            continue
        w, _ = _opens(stmt)
        if written or w:
            nested = next((n for n in ast.walk(stmt) if _is_barrier(n)), None)
            assert nested is None or isinstance(nested, ast.Call)
            later = tree.body[i:]
            reads = any(_opens(s)[1] for s in later) or any(
                isinstance(n, ast.Name) and n.id in file_objects for s in later for n in ast.walk(s)
            )
            if nested is not None and reads:
                raise Refused(
                    f"{filename}:{nested.lineno}: files this input writes become visible to "
                    "other threads only at a syncthreads() statement at the top level of the "
                    "input (not inside for, while, if or with): move the barrier there, or "
                    "read the file in the next input"
                )
        written = written or w
    return out


def pieces(text: str, tree: ast.Module, at: list[int]) -> list[str]:
    """The input's text for each phase between the barriers `at`: the other phases' lines
    blanked, so that each phase's lines keep their numbers (errors point into the input);
    rebuilt from the syntax tree when statements share lines."""
    body = tree.body
    groups: list[list[ast.stmt]] = []
    start = 0
    for i in [*at, len(body)]:
        groups.append(body[start:i])
        start = i + 1
    lines = text.split("\n")
    own_lines = all(s.col_offset == 0 for s in body) and all(
        (a.end_lineno or a.lineno) < _first(b) for a, b in zip(body, body[1:], strict=False)
    )
    out = []
    for g in groups:
        if not g:
            continue
        if own_lines:
            keep = {k for s in g for k in range(_first(s), (s.end_lineno or s.lineno) + 1)}
            out.append("\n".join(ln if k + 1 in keep else "" for k, ln in enumerate(lines)))
        else:
            out.append(ast.unparse(ast.Module(g, [])))
    return out


def _first(stmt: ast.stmt) -> int:
    """The first line of a statement, its decorators included."""
    return min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
