"""State shared by the translation of one kernel and of every function inlined into it."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

from .. import types as T
from ..errors import CompileError
from ..ir import Builder, Loc, Value
from .source import Source
from .values import Bound, V


class NeedsKnown(CompileError):
    """A construct needed a compile-time value and got a run-time one.

    Raised, for instance, when a known list is indexed by a loop variable: the loop translator
    catches it and unrolls the loop when its bounds are known, so the index becomes known.
    """


@dataclass
class Context:
    """Options and state of one specialisation."""

    builder: Builder
    fp64: bool = False
    # Numba's typing of integers (`simt.cuda.jit`): Python ints are int64 and every integer
    # operator's result is 64 bits wide (scalars.numba_int)
    int64: bool = False
    debug: bool = False
    explain: bool = False  # `kernel.explain`: assignments that make no op get a `note` op
    inline_stack: list[Any] = field(default_factory=list)  # functions being inlined (recursion)
    max_unroll: int = 4096
    # bytes of dynamic shared memory the launch gives (`shared.array(0, dtype)`, Numba's
    # fourth launch argument); None: the kernel has none
    dynamic_shared: int | None = None
    # scalar parameters that are weak (NEP 50: a Python float argument), by value id: next to
    # a typed float they take its type instead of promoting it
    weak: set[int] = field(default_factory=set)
    # values merged from a path where their variable was not assigned (merge.py), by id; the
    # values are kept so that no id is reused while the specialisation is translated
    partial: dict[int, Any] = field(default_factory=dict)
    # variables a run-time `if` left holding different kinds of value on its two paths (two
    # functions, a list and a number), which merge.py cannot make one value of: name -> what
    # each path held and whether a function is one of them, said where the variable is read
    # (`Translator.refuse_apart`)
    apart: dict[str, tuple[str, bool]] = field(default_factory=dict)
    # the REPL's checkpoint object of the kernel being translated (`checkpoint.begin`): a place
    # that raises stores what the statement changed so far (`checkpoint.at_raise`)
    checkpoint: Any = None
    # bytes of per-thread arena per element type (`@simt.kernel(heap=N)`; None: the default)
    # and the arena itself (`frontend.arena.Arena`), made by the first growable value
    heap: int | None = None
    arena: Any = None
    # exceptions (raising.py): the raise sites so far (site k is sites[k - 1]) and their
    # numbers by (class, message, place); how many `try` bodies enclose the code translated
    # now; the caught states of the `except` blocks being translated (a bare `raise`)
    sites: list[Any] = field(default_factory=list)
    site_ids: dict[Any, int] = field(default_factory=dict)
    # every use of a site, in translation order (`raising.site_mark` / `sites_since`): what a
    # `try` body can raise is the sites used while translating it — not the sites made then,
    # since a loop translated again or a helper inlined twice reuses its sites
    site_log: list[int] = field(default_factory=list)
    try_depth: int = 0
    # how many statement lists' rests enclose the code translated now, each under `if not
    # exited` (`Translator.stmts`); past `MAX_REST_NESTING` each statement gets its own
    # (one that may bind an array or another object still nests the rest)
    rest_depth: int = 0
    # accesses checked here as a raised IndexError outside a `try` too (`raising.check_index`):
    # None none, True every one, else the set of their places (`raising.place_of`)
    raise_at: Any = None
    # a thread raising where nothing catches it runs on without effects instead of skipping
    # the rest of each statement list (`Translator.exit_state`); not in kernels with barriers
    # or warp functions, where a thread that stopped must not take part
    raise_after: bool = False
    # the payload words of the exception state are int32 (`raising.payload_type`): the kernel
    # has no 64-bit integers of its own (`pipeline.build`)
    payload32: bool = False
    handling: list[dict[str, Any]] = field(default_factory=list)
    # the callers' raising flags around the call being inlined (raising.enter_call)
    raising_outer: list[Any] = field(default_factory=list)
    # "numpy": integer `//` and `%` by zero give 0; "python": `/`, `//`, `%` by zero raise
    # ZeroDivisionError (the kernel option `division`)
    division: str = "numpy"
    # constant tables made so far (`tables.py`): id of the known array -> (the array, the
    # table's value, its elements); their ops go to the top of the kernel at the end
    tables: dict[int, tuple[Any, Value, tuple[Any, ...]]] = field(default_factory=dict)
    # range loops with known bounds being tried as run-time loops, innermost last: the names
    # each loop assigns (its target and every name stored in its body) and the inlining
    # depth it stands at. A known array indexed there by a run-time value that may depend on
    # a loop (it reads one of those names, or sits in a helper called from the loop) asks
    # for the loop to be unrolled (its items fold) before it becomes a table
    unrolling: list[tuple[frozenset[str], int]] = field(default_factory=list)
    # files opened for writing so far (their handles, `filewrites`), and whether the kernel
    # prints file records (the launch then lands them in files)
    files: int = 0
    file_records: bool = False
    # the glob patterns of the files opened for reading, with their places (`filereads`):
    # the launch stages the files they match
    file_reads: list[tuple[str, str]] = field(default_factory=list)
    # a list's item type by the place that made it, from an earlier translation: a list read
    # (in a loop) before the line that fixes its type takes it from here; `list_retry` says
    # this translation typed lists wrong and must be done again: where each was made, by
    # the place's key (frontend/lists.py)
    list_hints: dict[Any, Any] = field(default_factory=dict)
    list_retry: dict[Any, Loc | None] = field(default_factory=dict)


def fail(
    src: Source,
    node: ast.AST,
    message: str,
    hint: str | None = None,
    cls: type[CompileError] = CompileError,
) -> NoReturn:
    """Raise a CompileError located at `node` in `src`."""
    loc = src.loc(node)
    raise cls(message, loc.filename, loc.line, loc.col, loc.source_line, hint)


class Translating(Protocol):
    """What the handler modules (`calls.py`, `loops.py`, `views.py`, `iteration.py`) may ask of the
    translator they are given: the contract between the AST visitor (`translate.Translator`,
    which satisfies it) and its handlers, so that no handler imports the visitor."""

    ctx: Context
    b: Builder
    env: dict[str, V]
    src: Source
    pyfunc: Any  # the Python function translated (its globals and closure)
    library: bool  # simt's own code inlined into the user's

    def fail(self, node: ast.AST, message: str, hint: str | None = None) -> NoReturn: ...
    def at(self, node: ast.AST) -> None: ...
    def const(self, v: Any, t: T.Scalar) -> Value: ...
    def scalar(self, v: V, node: ast.AST) -> V: ...
    def compare(self, op: ast.cmpop, a: V, b: V, node: ast.AST) -> V: ...
    def expr(self, node: ast.expr) -> V: ...
    def stmts(self, body: list[ast.stmt]) -> None: ...
    def stmts_not_exited(self, body: list[ast.stmt]) -> None: ...
    def exit_state(self) -> str: ...
    def not_exited(self) -> Value: ...
    def clear_flags(self) -> None: ...

    def left(self) -> None: ...
    def flag_names(self) -> tuple[str, ...]: ...
    def branch(
        self, cond: Value, then: Callable[[], None], orelse: Callable[[], None]
    ) -> None: ...
    def stmt_For(self, node: ast.For) -> None: ...  # noqa: N802 - the visitor's method name
    def lookup(self, name: str, node: ast.AST) -> V: ...
    def method_of(self, v: V, name: str) -> Bound | None: ...
    def call_method(
        self, m: Bound, args: list[V], node: ast.AST, kwargs: dict[str, V] | None = None
    ) -> V: ...
    def call_local(self, f: Any, args: list[V], kwargs: dict[str, V], node: ast.AST) -> V: ...
    def inline(
        self,
        fn: Any,
        args: list[V],
        kwargs: dict[str, V],
        node: ast.AST,
        return_self: bool = False,
        args_rest: list[V] | None = None,
    ) -> V: ...
    def sequence(self, items: list[V], kind: type) -> V: ...
    def construct(self, cls: type, args: list[V], kwargs: dict[str, V], node: ast.AST) -> V: ...
    def binop(self, op: str, a: V, b: V, node: ast.AST) -> V: ...
    def to_bool(self, v: V, node: ast.AST) -> V: ...
    def unpack(self, value: V, n: int, node: ast.AST) -> list[V]: ...
    def assign(self, target: ast.expr, value: V, node: ast.AST) -> None: ...
    def load(self, arr: Value, idx: list[Value], inner: int = 0) -> Value: ...
    def store(
        self, arr: Value, idx: list[Value], value: V, node: ast.AST, inner: int = 0
    ) -> None: ...
    def index_values(self, arr: Value, given: list[V], node: ast.AST) -> list[Value]: ...
