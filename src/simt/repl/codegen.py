"""The Python source of the kernel one input compiles to.

The user's statements are kept as typed (re-indented), so that a CompileError's caret points
into the input itself; around them, the kernel loads the per-thread variables the input reads
from their state arrays and stores the ones it assigns into fresh arrays:

    def _simt_in3(_i_x, _o_x, _o__simt_echo, outbuf):
        _simt_tid = _simt_int(_simt_grid(1))  # int64, or int32 where the device has no int64
        if _simt_tid < 1000:                  # only when the launch has spare threads
            tid = threadIdx = _simt_tid
            x = _i_x[_simt_tid]
            x = x + tid                       # the user's lines
            _simt_echo = x * 2                # a bare expression, echoed
            _o_x[_simt_tid] = x
            _o__simt_echo[_simt_tid] = _simt_echo

The thread's own slot is indexed by `_simt_tid`, a name of ours: an input may assign `tid`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .analysis import HOST_STMTS, SCOPES

ECHO = "_simt_echo"
TID = "_simt_tid"  # the thread's index, where its loads, checkpoints and stores go
_PREFIX = f"{ECHO} = "


@dataclass
class Body:
    """The user's statements as they go into the kernel, and how to map positions back."""

    lines: list[str]
    exact: bool  # the lines are the user's own (positions map back); else unparsed text
    shifts: dict[int, int] = field(default_factory=dict)  # 1-based user line -> columns added
    # rebuilt text: the input's line of each line of it, and the input's (line, column) of
    # each node's (line, column) in it
    origin: dict[int, int] = field(default_factory=dict)
    columns: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    # lines of ours put between the statements (`checkpoints`), 1-based, ascending
    inserted: list[int] = field(default_factory=list)
    # the names each top-level statement assigns (with checkpoints: statement k is followed by
    # the checkpoint `_simt_cp(_simt_tid, k)`; the last one's is where the input's stores are)
    assigns: list[list[str]] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)  # each top-level statement's first line
    # the statements before the first one that could raise (`x = 3`, `pass`: nothing to
    # compute), counted from the first
    plain: int = 0

    def position(self, line: int, col: int | None) -> tuple[int, int | None] | None:
        """The input's (line, column) of the 1-based `line` and 0-based `col` of these lines
        (the column None where unknown); None for a line that is not the input's."""
        if self.inserted:
            if line in self.inserted:
                return None
            line -= sum(1 for k in self.inserted if k < line)
        if self.exact:
            if not 1 <= line <= len(self.lines) - len(self.inserted):
                return None
            return line, None if col is None else max(0, col - self.shifts.get(line, 0))
        if col is not None and (line, col) in self.columns:
            return self.columns[(line, col)]
        if line in self.origin:
            return self.origin[line], None
        return None


def _span(stmt: ast.stmt) -> tuple[int, int]:
    first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
    return first, stmt.end_lineno or stmt.lineno


def print_name(i: int) -> str:
    """The variable a converted top-level `print(...)` assigns its arguments to."""
    return f"_simt_print{i}"


def body(
    text: str, tree: ast.Module, echo: bool, prints: tuple[int, ...] = (), exact: bool = True
) -> Body:
    """The input without its hoisted statements (they ran on the host), with its last bare
    expression assigned to `_simt_echo` when `echo`, and the top-level statements `prints`
    (indices of `print(...)` calls) turned into tuples of their arguments: the host formats
    them for one thread of each distinct row instead of every thread printing. With
    `exact` False the text is rebuilt from `tree` (a rewritten input)."""
    lines = text.split("\n")
    spans = [_span(s) for s in tree.body]
    out = list(lines)

    def alone(i: int) -> bool:
        a, b = spans[i]
        return all(j == i or spans[j][1] < a or spans[j][0] > b for j in range(len(spans)))

    for i, stmt in enumerate(tree.body):
        if exact and isinstance(stmt, HOST_STMTS):
            if not alone(i) or stmt.col_offset != 0:
                exact = False
                break
            a, b = spans[i]
            for k in range(a - 1, b):
                out[k] = "pass"
    if exact and any(not alone(i) for i in range(len(spans))):
        exact = False  # statements sharing a line: one a line, so that each has its checkpoint
    shifts: dict[int, int] = {}
    if exact and echo:
        last = tree.body[-1]
        if last.col_offset != 0 or not alone(len(tree.body) - 1):
            exact = False
        else:
            out[last.lineno - 1] = _PREFIX + out[last.lineno - 1]
            shifts[last.lineno] = len(_PREFIX)
    for j, i in enumerate(prints):
        call = tree.body[i].value  # type: ignore[attr-defined]
        a, ln, end = call.col_offset, call.lineno - 1, call.end_col_offset
        if not exact or not alone(i) or not out[ln][a:].startswith("print("):
            exact = False
            break
        head = f"{print_name(j)} = ("
        el = call.end_lineno - 1
        close = end - 1  # the closing parenthesis
        if el == ln:  # the line grew by what replaced `print(`
            close += len(head) - len("print(")
        out[ln] = out[ln][:a] + head + out[ln][a + len("print(") :]
        out[el] = out[el][:close] + ("," if call.args else "") + out[el][close:]
        shifts[ln + 1] = shifts.get(ln + 1, 0) + len(head) - len("print(")
    if exact:
        return Body(out, True, shifts)
    # Statements sharing a line (`import math; x = math.sqrt(tid)`): rebuild the text.
    stmts: list[ast.stmt] = [ast.Pass() if isinstance(s, HOST_STMTS) else s for s in tree.body]
    if echo:
        last = tree.body[-1]
        assert isinstance(last, ast.Expr)
        stmts[-1] = ast.Assign([ast.Name(ECHO, ast.Store())], last.value, lineno=last.lineno)
    for j, i in enumerate(prints):
        call = tree.body[i].value  # type: ignore[attr-defined]
        args = ast.Tuple(list(call.args), ast.Load())
        stmts[i] = ast.Assign([ast.Name(print_name(j), ast.Store())], args, lineno=call.lineno)
    mod = ast.fix_missing_locations(ast.Module(stmts, []))
    src = ast.unparse(mod)
    origin, columns = _origins(mod, src)
    return Body(src.split("\n"), False, origin=origin, columns=columns)


CHECKPOINT = "_simt_cp"


def checkpoints(b: Body) -> Body:
    """`b` with a line `_simt_cp(_simt_tid, k)` after each top-level statement `k`: where a thread
    that finished statement `k` records what its variables hold (`frontend.checkpoint`), so
    that one raising in a later statement keeps them, as Python keeps the assignments that
    ran before the statement that raised. The last one is where the input's stores are: the
    types its names have there, on the path of a thread that raised nowhere, are the types
    the REPL keeps (after a statement that may raise, the front end's own view at the end
    merges them with the raising threads' path: `x = 0.5; y = xs[i]; x = 1` would be a
    float)."""
    tree = ast.parse("\n".join(b.lines))
    stmts = tree.body
    lines = list(b.lines)
    inserted: list[int] = []
    for k in range(len(stmts) - 1, -1, -1):
        end = stmts[k].end_lineno or stmts[k].lineno
        lines.insert(end, f"{CHECKPOINT}({TID}, {k})")
    for k in range(len(stmts)):  # the inserted lines' numbers, once all are in
        inserted.append((stmts[k].end_lineno or stmts[k].lineno) + 1 + k)
    assigns = [_assigned(s) for s in stmts]
    starts = [s.lineno + k for k, s in enumerate(stmts)]
    plain = next((k for k, s in enumerate(stmts) if not _cannot_raise(s)), len(stmts))
    return Body(lines, b.exact, dict(b.shifts), dict(b.origin), dict(b.columns), inserted,
                assigns, starts, plain)  # fmt: skip


def _cannot_raise(stmt: ast.stmt) -> bool:
    """`pass`, or a constant given to plain names (`k = 3`, `a = b = 1.5`)."""
    if isinstance(stmt, ast.Pass):
        return True
    return isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) and all(
        isinstance(t, ast.Name) for t in stmt.targets)


def _assigned(stmt: ast.stmt) -> list[str]:
    """The names `stmt` binds at its own level (not in nested functions or comprehensions)."""
    out: list[str] = []
    todo: list[ast.AST] = [stmt]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in out:
            out.append(n.id)
        if n is stmt or not isinstance(n, SCOPES):
            todo.extend(ast.iter_child_nodes(n))
    return out


def _origins(
    mod: ast.Module, src: str
) -> tuple[dict[int, int], dict[tuple[int, int], tuple[int, int]]]:
    """Where the lines and nodes of `src`, the text `ast.unparse` wrote for `mod`, came from
    in the input (`mod`'s own positions): `src` parsed again has `mod`'s nodes in the same
    order, so the two walks pair them up."""
    origin: dict[int, int] = {}
    columns: dict[tuple[int, int], tuple[int, int]] = {}
    try:
        again = ast.parse(src)
    except SyntaxError:
        return origin, columns
    for a, b in zip(ast.walk(mod), ast.walk(again), strict=False):
        if type(a) is not type(b):
            break  # not the same tree any more: what is mapped so far stays
        la, lb = getattr(a, "lineno", None), getattr(b, "lineno", None)
        if la is None or lb is None:
            continue
        if isinstance(a, ast.stmt):
            origin.setdefault(lb, la)
        else:
            columns.setdefault((lb, getattr(b, "col_offset", 0)), (la, getattr(a, "col_offset", 0)))
    for a, b in zip(ast.walk(mod), ast.walk(again), strict=False):  # lines of expressions only
        la, lb = getattr(a, "lineno", None), getattr(b, "lineno", None)
        if type(a) is not type(b):
            break
        if la is not None and lb is not None:
            origin.setdefault(lb, la)
    return origin, columns


@dataclass
class Kernel:
    """Generated kernel source and the numbers to map its positions back to the input."""

    source: str
    header: int  # lines before the input's first line
    indent: int  # columns the input's lines were shifted right


def kernel_source(
    name: str,
    b: Body,
    loads: list[str],
    stores: list[tuple[str, str]],
    bound: list[str],
    guard: int | None,
    extra: tuple[str, ...] = (),
) -> Kernel:
    """`def name(...)`: loads of `loads` from `_i_<name>`, the body, then for each
    (name, expression) in `stores` a store of the expression into `_o_<name>`; `bound`
    buffers are parameters under their own names; `guard` is the thread count when the
    launch has spare threads."""
    params = [f"_i_{n}" for n in loads] + [f"_o_{n}" for n, _ in stores] + bound
    head = [f"def {name}({', '.join(params)}):", f"    {TID} = _simt_int(_simt_grid(1))"]
    ind = "    "
    if guard is not None:
        head.append(f"    if {TID} < {guard}:")
        ind = "        "
    head.append(f"{ind}tid = threadIdx = {TID}")
    head.extend(f"{ind}{n} = _i_{n}[{TID}]" for n in loads)
    head.extend(ind + e for e in extra)
    lines = [ind + ln if ln.strip() else "" for ln in b.lines]
    tail = [f"{ind}_o_{n}[{TID}] = {e}" for n, e in stores]
    if not any(ln.strip() for ln in lines) and not tail:
        tail = [ind + "pass"]
    return Kernel("\n".join(head + lines + tail) + "\n", len(head), len(ind))
