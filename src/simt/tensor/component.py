"""`Component`: an index expression or a graph of them, with the combinators, binding by call,
and the ways to run and inspect it (`exec`, `source`, `ir`, `bench`, `tune`)."""

from __future__ import annotations

import sys
from typing import Any

from ..errors import CompileError, LaunchError, SimtError, for_user, is_simt_frame, user_facing
from ..extras import entry
from ..foreign import is_dask
from ..runtime import registry
from . import graph as G
from .parse import parse


def _caller() -> tuple[str, int] | None:
    """The user's file and line that made a component (frames inside simt skipped)."""
    f = sys._getframe(1)
    while f is not None and is_simt_frame(f.f_code.co_filename):
        f = f.f_back  # type: ignore[assignment]
    return (f.f_code.co_filename, f.f_lineno) if f is not None else None


class Component:
    """An index expression, or several combined; call `.exec(*inputs)` (or `()`) to run it."""

    def __init__(
        self,
        graph: G.Graph,
        bindings: tuple[Any, ...] | None = None,
        where: tuple[str, int] | None = None,
        code: str | None = None,
    ) -> None:
        self.graph = graph
        # how the component was written, in Python (for `text`): kept as combinators apply
        self.code = code or ("I" if not graph.nodes else f'i("{graph.nodes[0].expr}")')
        self.bindings: tuple[Any, ...] = bindings or (None,) * graph.n_inputs
        self.where = where
        self.tuning: Any = None  # what `tune` chose, on a tuned component
        self._all_free = all(b is None for b in self.bindings)
        self._launches: dict[Any, Any] = {}  # `exec`'s, by input signature (`run.signature`)
        self._quick: Any = None  # the last call's, where `run.quick` can run them

    # ------------------------------------------------------------------ construction
    @classmethod
    @user_facing
    def parse(cls, expr: str, where: tuple[str, int] | None = None) -> Component:
        """The component of one index expression (with its schedule)."""
        try:
            e = parse(expr, where)
        except CompileError as err:
            if where is not None and isinstance(expr, str):
                col = err.col
                err = CompileError(err.message, where[0], where[1], None, None, err.hint)
                # keep the expression and its caret below the file and line
                raise _with_expression(err, expr, col) from None
            raise err.with_traceback(None) from None
        return cls(G.Graph.leaf(e), where=where)

    def _other(self, other: Any, op: str) -> Component:
        if isinstance(other, Component):
            return other
        if isinstance(other, str):
            return Component.parse(other, self.where)
        raise CompileError(
            f"`{op}` combines components: got {type(other).__name__} ({other!r:.40}); write "
            "i('...') around an expression"
        )

    def _free(self) -> list[int]:
        return [k for k, v in enumerate(self.bindings) if v is None]

    def __rshift__(self, other: Any) -> Component:
        """Chain: this component's outputs feed `other`'s free inputs."""
        o = self._other(other, ">>")
        free = o._free()
        paired = min(len(self.graph.outputs), len(free))
        rest = tuple(b for k, b in enumerate(o.bindings) if k not in free[:paired])
        g = G.chain(self.graph, o.graph, free)
        return Component(g, self.bindings + rest, self.where, f"({self.code} >> {o.code})")

    def __rrshift__(self, other: Any) -> Component:
        return self._other(other, ">>") >> self

    def __lshift__(self, other: Any) -> Component:
        """Compose: `other`'s outputs feed this component's free inputs."""
        o = self._other(other, "<<")
        free = self._free()
        paired = min(len(free), len(o.graph.outputs))
        rest = tuple(b for k, b in enumerate(self.bindings) if k not in free[:paired])
        g = G.compose(self.graph, o.graph, free)
        return Component(g, o.bindings + rest, self.where, f"({self.code} << {o.code})")

    def __and__(self, other: Any) -> Component:
        """Fan-out: both read the same (free) inputs; outputs side by side."""
        o = self._other(other, "&")
        mine, theirs = self._free(), o._free()
        paired = min(len(mine), len(theirs))
        rest = tuple(b for k, b in enumerate(o.bindings) if k not in theirs[:paired])
        g = G.fanout(self.graph, o.graph, mine, theirs)
        return Component(g, self.bindings + rest, self.where, f"({self.code} & {o.code})")

    def __rand__(self, other: Any) -> Component:
        return self._other(other, "&") & self

    def __or__(self, other: Any) -> Component:
        """Pair: side by side, inputs and outputs concatenated."""
        o = self._other(other, "|")
        g = G.pair(self.graph, o.graph)
        return Component(g, self.bindings + o.bindings, self.where, f"({self.code} | {o.code})")

    def __ror__(self, other: Any) -> Component:
        return self._other(other, "|") | self

    def __invert__(self) -> Component:
        """Swap: the first two outputs exchanged."""
        return Component(G.swap(self.graph), self.bindings, self.where, f"~{self.code}")

    @user_facing
    def bind(self, *values: Any) -> Component:
        """This component with its free inputs given, left to right (None skips one)."""
        free = self._free()
        if len(values) > len(free):
            raise LaunchError(
                f"too many inputs bound: {len(values)} given, the component has "
                f"{len(free)} free input(s)"
            )
        bindings = list(self.bindings)
        for k, v in zip(free, values):
            if v is not None:
                bindings[k] = v
        shown = ", ".join("None" if v is None else "..." for v in values)
        return Component(self.graph, tuple(bindings), self.where, f"{self.code}({shown})")

    @user_facing
    def __call__(self, *args: Any, into: Any = None) -> Any:
        """`c()` runs; `c(x)` binds x to the first free input; `c(f)` composes with component
        f (f's outputs feed c's inputs); `None` leaves an input free."""
        try:
            if not args:
                return self.exec(into=into)
            if into is not None:
                raise LaunchError("into= is given with the empty call that runs: c(into=out)")
            result = self
            pending: list[Any] = []
            for a in args:
                if isinstance(a, Component):
                    if pending:
                        result, pending = result.bind(*pending), []
                    result = result << a
                else:
                    pending.append(a)
            return result.bind(*pending) if pending else result
        except SimtError as e:
            raise e.with_traceback(None) from None

    # ------------------------------------------------------------------ running
    def _inputs(self, values: tuple[Any, ...]) -> list[Any]:
        free = self._free()
        if len(values) != len(free):
            bound = len(self.bindings) - len(free)
            extra = f" ({bound} already bound)" if bound else ""
            raise LaunchError(f"the component takes {len(free)} input(s){extra}, got {len(values)}")
        merged = list(self.bindings)
        for k, v in zip(free, values):
            if v is None:
                raise LaunchError(f"input {k} is None; give an array or a number")
            merged[k] = v
        return merged

    def exec(self, *inputs: Any, into: Any = None) -> Any:
        """Run on the current backend: NumPy in, NumPy out (device arrays stay on the
        device); several outputs come back as a tuple. `into=` writes the result(s) there
        (NumPy or simt device arrays).

        A call whose inputs are NumPy arrays of the dtypes and shapes of an earlier call
        reuses that call's launches (`run.Launches`: kernels, launch shapes, buffer shapes),
        so it only allocates the outputs and launches."""
        run = _RUN
        if self._all_free and run is not None:
            lp = self._quick  # the last call's launches, run by exact-shape fast launches
            if (lp is not None and into is None and len(inputs) == lp.n_in
                    and lp.runtime is registry.current()):  # fmt: skip
                out = run.quick(lp, inputs)
                if out is not None:
                    return out
                if not lp.quick:  # dropped by this call: not kept for the next, whichever
                    self._quick = None  # way this one goes (`_exec`, or an error)
            key = run.key(inputs)  # (as `signature`'s, which let the stored ones in)
            lp = None if key is None else self._launches.get(key)
            if lp is not None and lp.runtime is registry.current() and lp.runtime.host_memory:
                try:
                    outs = run.run(lp, inputs, quick=True)
                    self._quick = lp if lp.quick else None
                    return run.finish(outs, into)
                except SimtError:
                    pass  # said by the ordinary path below, with where the component was made
        try:
            return self._exec_planned(inputs, into)
        except SimtError as e:
            for_user(e)
            if sys.version_info < (3, 11):  # a bare raise reuses the caught traceback there
                raise e.with_traceback(e.__traceback__) from None
            raise  # a bare raise adds no frame of its own

    def _exec_planned(self, inputs: tuple[Any, ...], into: Any) -> Any:
        """`exec`, planning the launches of a new input signature (and keeping them)."""
        run = _run()
        try:
            values = inputs if self._all_free else self._inputs(inputs)
            key = run.signature(values)
            if key is not None:
                lp = self._launches.get(key)
                rt = registry.current()
                if lp is None or lp.runtime is not rt:
                    if len(values) != len(self.bindings):
                        self._inputs(inputs)  # raises why
                    inp = run.prepare_inputs(values, rt)
                    lp = run.launches(self.graph, inp, rt)
                    if len(self._launches) >= 16:
                        self._launches.clear()
                    self._launches[key] = lp
                if not rt.host_memory:
                    return run.finish(run.run(lp, run.prepare_inputs(values, rt).arrays), into)
                outs = run.run(lp, values, quick=self._all_free)
                self._quick = lp if lp.quick else None
                return run.finish(outs, into)
            return self._exec(values, into)
        except SimtError as e:
            raise _located(e, self.where) from None

    def _exec(self, values: tuple[Any, ...] | list[Any], into: Any) -> Any:
        run = _run()
        if self._all_free:
            values = self._inputs(tuple(values))
        if any(is_dask(v) for v in values):  # a lazy dask graph (simt.dask)
            return entry("dask", "tensor_exec")(self.graph, values, into)
        return run.execute(self.graph, values, into)

    @user_facing
    def source(self, backend: str, *inputs: Any) -> str:
        """The source text of every kernel for `backend` ("cuda", "webgpu", "cpu", "sim" or
        "ir"), each headed by what it computes. Needs no device."""
        from .run import sources

        try:
            return sources(self.graph, self._inputs(inputs), backend)
        except SimtError as e:
            raise _located(e, self.where) from None

    @user_facing
    def ir(self, *inputs: Any) -> str:
        """The optimised simt IR of every kernel, as text."""
        return self.source("ir", *inputs)

    @user_facing
    def bench(self, *inputs: Any, warmups: int = 10, runs: int = 100) -> Any:
        """Time `exec` on these inputs: a `BenchResult` that prints as "1.92±0.05 ms,
        warmups = 10, runs = 100"."""
        from .tune import bench

        try:
            return bench(self, inputs, warmups, runs)
        except SimtError as e:
            raise _located(e, self.where) from None

    @user_facing
    def tune(self, *inputs: Any, budget: float = 8.0, verbose: bool = False) -> Component:
        """Search schedules for these inputs (ranked by the cost model, the best few measured)
        and return the component with the winner; `.text()` shows it in expression syntax.
        Cached per input shapes and device. See docs/tensor.md."""
        from .tune import tune, with_schedules

        try:
            found = tune(self, self._inputs(inputs), budget, verbose)
        except SimtError as e:
            raise _located(e, self.where) from None
        graph = with_schedules(self.graph, found.schedules)
        code = self.code
        for n in sorted(found.schedules):  # each re-scheduled expression shown in its new form
            old, new = self.graph.nodes[n].expr, graph.nodes[n].expr
            code = code.replace(f'i("{old}")', f'i("{new}")', 1)
        tuned = Component(graph, self.bindings, self.where, code)
        tuned.tuning = found
        if verbose:
            print(f"tuned{' (cached)' if found.cached else ''}: {tuned.text()}")
        return tuned

    # ------------------------------------------------------------------ display
    def text(self) -> str:
        """The component in the Python that builds it (`i("...") >> i("...")`, with the
        combinators as written; bound values show as `...`), with every expression's current
        schedule: what `tune` prints, ready to paste back."""
        code = self.code
        return code[1:-1] if code.startswith("(") and code.endswith(")") else code

    def expressions(self) -> list[str]:
        """Every expression of the component (with schedules), in the order they run."""
        return [str(n.expr) for n in self.graph.nodes]

    def __repr__(self) -> str:
        body = " ; ".join(self.expressions()) or "I"
        n_in, n_out = self.graph.n_inputs, len(self.graph.outputs)
        return f"<simt.tensor component {body}: {n_in} in, {n_out} out>"

    def __str__(self) -> str:
        if len(self.graph.nodes) == 1 and self.graph.outputs == (("node", 0),):
            return f'i("{self.graph.nodes[0].expr}")'
        return repr(self)


_RUN: Any = None


def _run() -> Any:
    """`simt.tensor.run` (imported at the first `exec`: it imports the kernel machinery)."""
    global _RUN
    if _RUN is None:
        from . import run

        _RUN = run
    return _RUN


def _with_expression(err: CompileError, expr: str, col: int | None) -> CompileError:
    """err (which names the user's file and line) with the expression and a caret under it."""
    lines = [err.message if err.filename is None else f"{err.filename}:{err.line}: {err.message}"]
    lines.append("    " + expr)
    if col is not None:
        lines.append("    " + " " * col + "^")
    if err.hint:
        lines.append("  " + err.hint)
    out = CompileError.__new__(CompileError)
    Exception.__init__(out, "\n".join(lines))
    out.message, out.filename, out.line, out.col = err.message, err.filename, err.line, col
    out.source_line, out.hint = expr, err.hint
    return out


def _located(e: SimtError, where: tuple[str, int] | None) -> SimtError:
    """e with the file and line where the component was written in front."""
    text = str(e)
    if where is None or text.startswith(where[0]):
        return e.with_traceback(None)
    out = type(e).__new__(type(e))
    Exception.__init__(out, f"{where[0]}:{where[1]}: component made here: {text}")
    for k, v in vars(e).items():
        setattr(out, k, v)
    return out.with_traceback(None)
