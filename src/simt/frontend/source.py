"""Reading a function's source: the AST, the file, and the line of every node."""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ..errors import CompileError
from ..ir import Loc


@dataclass
class Source:
    """A function's parsed source and where it lives, for error messages and locations."""

    tree: ast.FunctionDef
    filename: str
    first_line: int  # line number in the file of the source's first line
    lines: list[str]  # the function's lines as they stand in the file
    indents: list[int]  # how far each line was dedented before parsing

    def loc(self, node: ast.AST) -> Loc:
        """The location of `node` in the user's file."""
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0)
        file_line = line + self.first_line - 1
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return Loc(self.filename, file_line, col + self._indent(line), text)

    def _indent(self, line: int) -> int:
        return self.indents[line - 1] if 0 < line <= len(self.indents) else 0


# The parsed sources of the functions compiled last, by code object: a kernel compiled again
# (a new specialisation, another backend) or a helper it calls is not read and parsed again.
# Bounded, least recently used first out: a process that makes thousands of kernels (the
# fuzzer, a long REPL session, a test run) would otherwise keep every function's syntax tree
# and code object for ever (~13 KB a kernel). Parsing one again costs well under a millisecond.
SOURCE_CACHE_SIZE = 256
_cache: OrderedDict[Any, Source] = OrderedDict()
_lock = threading.Lock()  # launches (and so compiles) may come from several threads


def get_source(fn: Any) -> Source:
    """Parse `fn`'s source (files, modules and notebook cells; not `exec` strings or the bare
    interactive prompt). The result is cached per code object (the last
    `SOURCE_CACHE_SIZE` functions)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        raise CompileError(f"{fn!r} is not a Python function, so it cannot be compiled")
    # Code objects compare equal across files (their filename is not compared): the same text
    # in two files (the REPL's probe and kernel) must not share one Source and its filename.
    key = (code, code.co_filename)
    with _lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    if fn.__name__ == "<lambda>":
        src = _lambda_source(fn, code)
        with _lock:
            _cache[key] = src
            while len(_cache) > SOURCE_CACHE_SIZE:
                _cache.popitem(last=False)
        return src
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        raise CompileError(
            f"cannot read the source of {fn.__name__}() (defined in {code.co_filename}): simt "
            "compiles a kernel from its source text",
            hint="define the function in a .py file, a module or a notebook cell, not in the "
            "interactive prompt or an exec() string",
        ) from None
    raw = [ln.rstrip("\n") for ln in lines]
    text = textwrap.dedent("".join(lines))
    try:
        module = ast.parse(text)
    except SyntaxError as e:  # e.g. a lambda on one line with other code
        raise CompileError(f"cannot parse the source of {fn.__name__}(): {e.msg}") from None
    tree = next((n for n in module.body if isinstance(n, ast.FunctionDef)), None)
    if tree is None:
        raise CompileError(
            f"{fn.__name__} is not defined with `def`: simt compiles functions written with "
            "`def` or `lambda`",
            code.co_filename,
            first,
            None,
            raw[0] if raw else None,
            hint="write it as `def name(params): return ...`",
        )
    dedented = text.splitlines()
    indents = [len(r) - len(d) if d.strip() else 0 for r, d in zip(raw, dedented)]
    src = Source(tree, code.co_filename, first, raw, indents)
    with _lock:
        _cache[key] = src
        while len(_cache) > SOURCE_CACHE_SIZE:
            _cache.popitem(last=False)
    return src


def _lambda_source(fn: Any, code: Any) -> Source:
    """The source of a lambda made in CPython (`KEY = lambda p: p[1]` at module level, or
    returned by a helper called at compile time) as a one-statement `def`: found in its
    file's syntax by its first line and parameters, and where several lambdas there have
    the same parameters, by the columns of its code (Python 3.11+)."""
    lines = [ln.rstrip("\n") for ln in linecache.getlines(code.co_filename)]
    try:
        module = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        module = None
    params = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
    found = [
        n for n in ast.walk(module) if isinstance(n, ast.Lambda) and n.lineno == code.co_firstlineno
        and tuple(a.arg for a in [*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs]) == params
    ] if module is not None else []  # fmt: skip
    if len(found) > 1 and hasattr(code, "co_positions"):
        # the body's instructions (the first, RESUME, spans nothing: column 0 to 0)
        spots = [(ln, col) for ln, _, col, end in code.co_positions()
                 if ln is not None and col is not None and (end or 0) > col]  # fmt: skip

        def holds(n: ast.Lambda) -> bool:
            end = (n.end_lineno or n.lineno, n.end_col_offset or 0)
            return all((n.lineno, n.col_offset) <= spot <= end for spot in spots)

        found = [n for n in found if holds(n)]
        found = [n for n in found if not any(m is not n and holds(m) and m in ast.walk(n)
                                             for m in found)]  # fmt: skip
    if len(found) != 1:
        raise CompileError(
            "cannot find the source of this lambda" + (
                f": {len(found)} lambdas on line {code.co_firstlineno} take the same "
                "parameters" if found else f" (defined in {code.co_filename})"),
            code.co_filename, code.co_firstlineno, None,
            lines[code.co_firstlineno - 1] if 0 < code.co_firstlineno <= len(lines) else None,
            hint="define it with `def`, or as the only lambda of its line",
        )  # fmt: skip
    lam = found[0]
    ret = ast.copy_location(ast.Return(lam.body), lam.body)
    tree = ast.copy_location(ast.FunctionDef(name="<lambda>", args=lam.args, body=[ret],
                                             decorator_list=[], returns=None), lam)  # fmt: skip
    return Source(tree, code.co_filename, 1, lines, [0] * len(lines))
