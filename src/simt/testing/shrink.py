"""Delta debugging: reduce a failing generated kernel to the few lines that still fail.

`shrink(program, still_fails)` repeatedly tries smaller variants of the program's module and
keeps a variant whenever `still_fails` says it fails the same way. The reductions:

- helpers nothing calls any more removed;
- each statement of the kernel and its helpers removed (a block left empty gets `pass`),
  except the writes of shared and local arrays and the barriers (a read of uninitialised
  memory has no defined value);
- an `if` replaced by its body or by its `else` branch (`if True: x` becomes `x`);
- a loop replaced by one pass of its body (`for k in range(a, b): x` becomes `k = a; x`);
- each binary operation, `abs`/`min`/`max` call or conditional expression replaced by one
  of its operands, except the generator's guards (index and magnitude caps, nonzero
  divisors, range checks before conversions, loop steps, store indices): without them a
  variant could read out of bounds, convert an out-of-range float or write one slot from
  many threads, whose answers the semantics leave unspecified;
- never the generator's one out-of-bounds access (the `oob` option) or its index.

It stops when no single step is kept (1-minimal in the sense of Zeller's ddmin, by single
steps). A variant is only tried when it is still a kernel the generator could have written
(`well_formed`): valid Python, every helper ending in a `return` on every path, every name
read assigned on every path before it. Otherwise a kernel failing one way could shrink into a
kernel that is rejected for a good reason (a helper left returning `None`, a variable read
before it is assigned), which is a different failure, not a smaller copy of the bug.
"""

from __future__ import annotations

import ast
import builtins
import copy
import re
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


def _loop_entry(loop: ast.For) -> ast.stmt | None:
    """`k = start` for `for k in range(...)`: the loop variable's value in the first pass."""
    it = loop.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"):
        return None
    if not it.args or any(isinstance(a, ast.Starred) for a in it.args):
        return None
    start = ast.Constant(0) if len(it.args) == 1 else copy.deepcopy(it.args[0])
    return ast.Assign(targets=[copy.deepcopy(loop.target)], value=start, lineno=0)


def _reduced_statement(stmt: ast.stmt, mode: int) -> list[ast.stmt] | None:
    """Mode 0: nothing (the statement removed); 1: an `if`'s body or a loop's body once;
    2: an `if`'s `else` branch."""
    if mode == 0:
        return None if isinstance(stmt, ast.Pass) else []
    if isinstance(stmt, ast.If):
        return stmt.body if mode == 1 else (stmt.orelse if stmt.orelse else None)
    if mode != 1:
        return None
    if isinstance(stmt, ast.While):
        return stmt.body
    if isinstance(stmt, ast.For):
        entry = _loop_entry(stmt)
        return None if entry is None else [entry, *stmt.body]
    return None


def _scratch_arrays(tree: ast.Module) -> set[str]:
    """Names of the shared and local arrays (`x = simt.shared.array(...)`) still read."""
    out, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if ast.unparse(node.value.func) in ("simt.shared.array", "simt.local.array"):
                out |= set(_targets(node.targets[0]))
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            if isinstance(node.value, ast.Name):
                read.add(node.value.id)
    return out & read


def _initialises(stmt: ast.stmt, scratch: set[str]) -> bool:
    """Whether `stmt` writes a shared or local array or waits at a barrier: removing it would
    leave a read of uninitialised memory (or a race), whose value the semantics leave open."""
    for node in ast.walk(stmt):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id in scratch
        ):
            return True
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "simt.syncthreads":
            return True
    return False


# the generator's out-of-bounds access (its `oob` option): the names it reads into and loops
# with, and the indices of its out-of-bounds stores (`uo[i * NSLOT_uo + NSLOT_uo] = ...`)
_OOB_NAMES = {"qoob", "koob"}
_OOB_STORE = re.compile(r"^[fiu]o\[(i \* NSLOT_(\w+) \+ NSLOT_\2|t - 2)\] = ")


def _out_of_bounds(stmt: ast.stmt) -> bool:
    """Whether `stmt` holds the kernel's one out-of-bounds access (a read into `qoob`, the
    `koob` loop, an out-of-bounds store): shrinking it away would leave a kernel that no longer
    goes out of bounds, which fails the expectation for a different reason (no KernelError at
    all) than the bug being shrunk. Statements that only use the value read stay shrinkable."""
    for x in ast.walk(stmt):
        if isinstance(x, ast.For) and ast.unparse(x.target) in _OOB_NAMES:
            return True
        if isinstance(x, ast.Assign):
            if _OOB_STORE.match(ast.unparse(x)):
                return True
            if ast.unparse(x.targets[0]) in _OOB_NAMES and any(
                isinstance(s, ast.Subscript) for s in ast.walk(x.value)
            ):
                return True
    return False


def _with_statement(source: str, n: int, mode: int) -> str | None:
    tree = ast.parse(source)
    slots = _statement_slots(tree)
    if n >= len(slots):
        return None
    body, k = slots[n]
    if _initialises(body[k], _scratch_arrays(tree)) or _out_of_bounds(body[k]):
        return None
    new = _reduced_statement(body[k], mode)
    if new is None:
        return None
    body[k : k + 1] = new
    if not body:
        body.append(ast.Pass())
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


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


# calls whose result has their argument's type: replacing one by an argument keeps the kernel
# typed as it was (`int(x)` by `x` would not, nor a helper call, which gives a tuple)
_SAME_TYPE_CALLS = {"abs", "min", "max", "math.fabs"}


def _guards(fn: ast.FunctionDef) -> set[int]:
    """ids of the nodes that keep a generated kernel well-defined, never replaced: index and
    magnitude caps (`x % 64`, `v % 1000000.0`), nonzero divisors (`abs(a) + 0.5`), range
    guards of conversions (`int(f) if abs(f) < 1e9 else 3`), loop steps, store indices."""
    out: set[int] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.BinOp) and isinstance(node.right, ast.Constant):
            if isinstance(node.op, ast.Mod) or (
                isinstance(node.op, ast.Add)
                and isinstance(node.left, ast.Call)
                and ast.unparse(node.left.func) == "abs"
            ):
                out.add(id(node))
        elif isinstance(node, ast.IfExp):
            if any(isinstance(c, ast.Call) and ast.unparse(c.func) == "abs"
                   for c in ast.walk(node.test)):  # fmt: skip
                out.add(id(node))
        elif isinstance(node, ast.Call):
            if ast.unparse(node.func) == "range" and len(node.args) == 3:
                out |= {id(x) for x in ast.walk(node.args[2])}
            if ast.unparse(node.func) not in _SAME_TYPE_CALLS:
                out.add(id(node))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            out |= {id(x) for x in ast.walk(node.slice)}
        if isinstance(node, ast.stmt) and _out_of_bounds(node):
            out |= {id(x) for x in ast.walk(node)}  # its index stays out of bounds
    return out


class _Replace(ast.NodeTransformer):
    def __init__(self, target: int, choice: int, guards: set[int]) -> None:
        self.target, self.choice, self.seen, self.done = target, choice, -1, False
        self.guards = guards

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, _SIMPLER) and not self.done and id(node) not in self.guards:
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
    guards = {g for fn in fns for g in _guards(fn)}
    r = _Replace(n, choice, guards)
    for fn in fns:
        r.visit(fn)
    if not r.done:
        return None
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


# ---------------------------------------------------------------------- well-formedness
_ANY = None  # the names "defined" after a statement that never falls through


def _reads(node: ast.AST) -> Iterator[str]:
    """The names `node` reads; a lambda's own parameters are not reads of the function's
    variables (its defaults are)."""
    if isinstance(node, ast.Lambda):
        a = node.args
        own = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
        for d in [*a.defaults, *(d for d in a.kw_defaults if d is not None)]:
            yield from _reads(d)
        yield from (n for n in _reads(node.body) if n not in own)
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
        yield node.id
    for child in ast.iter_child_nodes(node):
        yield from _reads(child)


def _targets(node: ast.expr) -> Iterator[str]:
    for x in ast.walk(node):
        if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store):
            yield x.id


class _Undefined(Exception):
    pass


def _flow(body: list[ast.stmt], defined: set[str] | None, known: set[str]) -> set[str] | None:
    """The names assigned on every path through `body` (None: it never falls through);
    raises `_Undefined` at a read of a name not assigned on every path before it."""

    def need(node: ast.AST, have: set[str]) -> None:
        for name in _reads(node):
            if name not in have and name not in known:
                raise _Undefined(name)

    for stmt in body:
        if defined is None:
            return None  # unreachable code after return/break/continue: nothing to check
        if isinstance(stmt, ast.Assign):
            need(stmt.value, defined)
            for t in stmt.targets:
                need(t, defined)  # the index of a subscript target is a read
                defined = defined | set(_targets(t))
        elif isinstance(stmt, ast.AugAssign):
            need(stmt.value, defined)
            need(stmt.target, defined)
            if isinstance(stmt.target, ast.Name) and stmt.target.id not in defined | known:
                raise _Undefined(stmt.target.id)
        elif isinstance(stmt, ast.If):
            need(stmt.test, defined)
            a = _flow(stmt.body, set(defined), known)
            b = _flow(stmt.orelse, set(defined), known)
            defined = b if a is None else a if b is None else a & b
        elif isinstance(stmt, ast.For):
            need(stmt.iter, defined)
            _flow(stmt.body, defined | set(_targets(stmt.target)), known)
        elif isinstance(stmt, ast.While):
            need(stmt.test, defined)
            _flow(stmt.body, set(defined), known)
        elif isinstance(stmt, ast.Return):
            if stmt.value is not None:
                need(stmt.value, defined)
            defined = None
        elif isinstance(stmt, (ast.Break, ast.Continue)):
            defined = None
        elif isinstance(stmt, ast.FunctionDef):  # a nested def: its defaults are read here
            for d in [*stmt.args.defaults, *(d for d in stmt.args.kw_defaults if d)]:
                need(d, defined)
            defined = defined | {stmt.name}
        else:
            need(stmt, defined)
    return defined


def well_formed(source: str) -> bool:
    """Whether `source` is still a kernel module the generator could have written: valid
    Python, every helper returning a value on every path, no name read before it is assigned
    on every path."""
    try:
        tree = ast.parse(source)
        compile(tree, "<shrink>", "exec")  # `break` outside a loop and the like
    except SyntaxError:
        return False
    known = set(dir(builtins))
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            known |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                known |= set(_targets(t))
        elif isinstance(node, ast.FunctionDef):
            known.add(node.name)
    for fn in _functions(tree):
        params = {a.arg for a in fn.args.args}
        try:
            after = _flow(fn.body, params, known)
        except _Undefined:
            return False
        if fn.name != "kernel" and after is not None:
            return False  # a helper that can fall off its end returns None
    return True


def _without_unused_helpers(source: str) -> str | None:
    """The module without the helper functions nothing calls any more."""
    tree = ast.parse(source)
    called = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
    }
    keep = [
        n
        for n in tree.body
        if not (isinstance(n, ast.FunctionDef) and n.name != "kernel" and n.name not in called)
    ]
    if len(keep) == len(tree.body):
        return None
    tree.body = keep
    return ast.unparse(tree) + "\n"


def _candidates(source: str) -> Iterator[str]:
    tree = ast.parse(source)
    cand = _without_unused_helpers(source)
    if cand is not None:
        yield cand
    slots = len(_statement_slots(tree))
    for mode in (0, 1, 2):
        for n in range(slots):
            cand = _with_statement(source, n, mode)
            if cand is not None:
                yield cand
    fns = _functions(tree)
    guards = {g for fn in fns for g in _guards(fn)}
    count = sum(isinstance(x, _SIMPLER) and id(x) not in guards for fn in fns for x in ast.walk(fn))
    for n in range(count):
        for choice in range(3):
            cand = _with_operand(source, n, choice)
            if cand is not None:
                yield cand


def shrink(
    program: Program, still_fails: Callable[[Program], bool], max_tries: int = 2000
) -> Program:
    """The smallest well-formed variant of `program` found for which `still_fails` holds."""
    best = program
    tries = 0
    progress = True
    seen = {program.source}
    while progress and tries < max_tries:
        progress = False
        for cand in _candidates(best.source):
            if cand in seen or not well_formed(cand):
                continue
            seen.add(cand)
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
