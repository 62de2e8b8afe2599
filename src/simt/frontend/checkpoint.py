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

A thread that raises inside statement `k` (in a loop, an `if`, a `try`) would lose what that
statement assigned before the raise: Python keeps it. So, translated for the launch, every
place that raises (`raising.set_state`, a bare `raise`, the end of a `finally` the exception
passes) first stores, where the thread starts raising there, the names of statement `k` that
it changed (`at_raise`: a value other than the one it held when the statement began, seen
at checkpoint `k - 1`; the kernel's header has a checkpoint -1 after its loads) and a
progress code above the statement count naming the statement, the names stored and those
whose value there cannot go into their array (`codes`): the REPL reads them after the
launch. Nothing of this runs on a thread that does not raise.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from .. import types as T
from ..ir import Block, Value
from .context import Translating
from .merge import leaf_values
from .scalars import coerce, narrow
from .values import UNDEF, Known, V

#: what a thread that raised inside statement `k` stored there: (k, the names stored, the
#: names not stored with what each was)
RaiseCode = tuple[int, tuple[str, ...], tuple[tuple[str, str], ...]]


class Checkpoint:
    """The object `_simt_cp` names in a REPL kernel's namespace (see the module's text)."""

    def __init__(
        self,
        names: dict[int, list[str]],
        store: bool,
        prefix: str = "_o_",
        done: str = "",
        raising: dict[int, list[str]] | None = None,
        fits: Callable[[str, V], str | None] | None = None,
        base: int = 0,
    ) -> None:
        self.names = names  # statement -> the names recorded (probe) or stored there
        self.store = store
        self.prefix = prefix  # the output array of name `x` is `prefix + x`
        self.done = done  # the name whose output array gets each thread's progress
        self.seen: dict[tuple[int, str], V] = {}
        # statement -> the names a thread raising inside it stores where it raises, and for
        # a name and its value there: None where it goes into the name's array unchanged,
        # else what it is (for a note)
        self.raising = raising or {}
        self.fits = fits
        self.base = base  # the progress code of `codes[0]` (above every statement's count)
        self.codes: list[RaiseCode] = []  # kept across translations: a code means one thing
        # the translation under way: its kernel-level translator, the statement being
        # translated and what its names held when it began
        self.top: Any = None
        self.current = 0
        self.before: dict[str, V] = {}

    def code(self, k: int, stored: tuple[str, ...], unfit: tuple[tuple[str, str], ...]) -> int:
        """The progress code of a thread raising inside statement `k` with these names."""
        key = (k, stored, unfit)
        if key not in self.codes:
            self.codes.append(key)
        return self.base + self.codes.index(key)

    def at_raise(self, tr: Translating, when: V) -> None:
        """`at_raise` (`raising` reaches it through `Context.checkpoint`)."""
        at_raise(tr, when)

    def decode(self, code: int) -> RaiseCode | None:
        """What progress `code` says (None: a statement count, not a raise)."""
        i = code - self.base
        return self.codes[i] if self.store and 0 <= i < len(self.codes) else None

    def __call__(self, *args: Any) -> None:
        raise RuntimeError("a REPL checkpoint runs only in the kernel of an input")


def start(pyfunc: Any) -> Checkpoint | None:
    """A translation of `pyfunc` begins (`specialise`: each try of its retries): the
    checkpoints its namespace holds have seen nothing of it yet, so what an earlier one saw
    (a statement it reached and this one does not) is not taken for this one's. Returns the
    one there is (`begin` gives it the translator)."""
    found = None
    for v in getattr(pyfunc, "__globals__", {}).values():
        if isinstance(v, Checkpoint):
            v.seen.clear()
            v.top, v.current, v.before = None, 0, {}
            found = v
    return found


def begin(cp: Checkpoint | None, tr: Translating) -> None:
    """`tr` translates the kernel's own body: the names `at_raise` stores are its."""
    if cp is not None:
        cp.top = tr
        tr.ctx.checkpoint = cp


def translate_checkpoint(tr: Translating, cp: Checkpoint, node: ast.Call) -> V:
    """Translate `cp(_simt_tid, k)`."""
    tid, at = node.args
    if isinstance(at, ast.UnaryOp):  # the header's `-1`
        k = -1
    else:
        assert isinstance(at, ast.Constant) and isinstance(at.value, int)
        k = at.value
    if cp.store and tr is cp.top:  # statement k + 1 begins
        cp.current = k + 1
        cp.before = {w: tr.env.get(w, UNDEF) for w in cp.raising.get(k + 1, ())}
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
    if cp.store and cp.done and k >= 0:
        _store(tr, cp.prefix + cp.done, tid, ast.Constant(k + 1), node)
    return Known(None)


def at_raise(tr: Translating, when: V) -> None:
    """Where `when` holds, the thread starts raising here (`raising.set_state`): store what
    the statement being translated changed so far and the progress code saying so (see the
    module's text). Nothing outside a REPL kernel's launch translation."""
    cp = tr.ctx.checkpoint
    if not isinstance(cp, Checkpoint) or not cp.store or cp.top is None:
        return
    if isinstance(when, Known) and not when.value:
        return
    top, k = cp.top, cp.current
    stores: list[tuple[str, V]] = []
    unfit: list[tuple[str, str]] = []
    for w in cp.raising.get(k, ()):
        v = top.env.get(w, UNDEF)
        if v is cp.before.get(w, UNDEF):
            continue  # not assigned in this statement so far: its array has it
        if v is not UNDEF and tr.ctx.partial and any(
            id(x) in tr.ctx.partial for x in leaf_values(v)
        ):
            v = UNDEF
        why = cp.fits(w, v) if cp.fits is not None else "no number"
        if why is None:
            stores.append((w, v))
        else:
            unfit.append((w, why))
    code = cp.code(k, tuple(w for w, _ in stores), tuple(unfit))
    tid = top.env.get("_simt_tid")
    arrays = [top.env.get(cp.prefix + w) for w, _ in stores]
    done = top.env.get(cp.prefix + cp.done)
    if not isinstance(tid, Value) or not isinstance(done, Value):
        return

    def emit() -> None:
        for arr, (_, v) in zip(arrays, stores, strict=True):
            assert isinstance(arr, Value) and isinstance(arr.type, T.ArrayType)
            _raw_store(tr, arr, tid, v)
        _raw_store(tr, done, tid, Known(code))

    if isinstance(when, Known):
        emit()
        return
    assert isinstance(when, Value)
    tb, eb = Block(), Block()
    with tr.b.at(tb):
        emit()
        tr.b.op("yield", [])
    with tr.b.at(eb):
        tr.b.op("yield", [])
    tr.b.op("if", [when], [], [tb, eb])


def _raw_store(tr: Translating, arr: Value, tid: Value, v: V) -> None:
    """`arr[tid] = v`, without a check of its own (the thread's own slot)."""
    at = arr.type
    assert isinstance(at, T.ArrayType) and isinstance(at.dtype, T.Scalar)
    t = at.dtype
    x = narrow(tr.b, v, t) if t.is_storage else coerce(tr.b, v, t)
    tr.b.op("store", [arr, tid, x])


def _store(tr: Translating, array: str, tid: ast.expr, value: ast.expr, node: ast.AST) -> None:
    target = ast.Subscript(ast.Name(array, ast.Load()), tid, ast.Store())
    stmt = ast.fix_missing_locations(ast.copy_location(ast.Assign([target], value), node))
    for n in ast.walk(stmt):
        ast.copy_location(n, node)
    tr.stmts([stmt])
