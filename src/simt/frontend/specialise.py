"""The front end's entry: a Python function plus argument types and known values -> IR."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import types as T
from ..complexnum import Complex
from ..errors import CompileError
from ..ir import Block, Builder, Function, Param, Value
from . import checkpoint, raising, tables
from .context import Context, NeedsKnown
from .source import get_source
from .translate import RET, Translator
from .values import CArray, Known, Obj, V

ROUNDS = 4  # translations of a kernel whose lists' item types are settled one round after another


@dataclass(frozen=True)
class ComplexArray:
    """A complex64/complex128 array argument: the kernel receives `parts`, the float array
    of its real and imaginary parts (one more axis, of length 2, last)."""

    parts: T.ArrayType


@dataclass(frozen=True)
class ComplexScalar:
    """A complex scalar argument: the kernel receives its real and imaginary parts, two
    run-time scalars of type `part` (float32 or float64)."""

    part: T.Scalar


@dataclass(frozen=True)
class WeakScalar:
    """A Python float argument (NEP 50's weak scalar): a run-time scalar of type `scalar`
    that, next to a typed float of another type, takes that type."""

    scalar: T.Scalar


# What the front end is told about each parameter: a known value, or the type of a run-time
# argument (a scalar type, a weak scalar, an array type, a complex array, a complex scalar).
ArgSpec = Known | T.Scalar | WeakScalar | T.ArrayType | ComplexArray | ComplexScalar


def translate(
    pyfunc: Any,
    specs: dict[str, ArgSpec],
    fp64: bool = False,
    debug: bool = False,
    name: str | None = None,
    explain: bool = False,
    dynamic_shared: int | None = None,
    heap: int | None = None,
    division: str = "numpy",
    int64: bool = False,
    raise_at: Any = None,
    raise_after: bool = False,
    payload32: bool = False,
) -> Function:
    """Translate `pyfunc` for the given parameter specs into a verified-shape IR function.

    Parameters with a `Known` spec are folded in; the others become the function's params, in
    signature order. With `explain`, an assignment of a constant or of another variable's
    value (which makes no op) gets a `note` op, so that `kernel.explain` shows it. `int64`:
    Numba's typing of integers (Python ints int64, integer results 64 bits wide).
    """
    return translate_with_names(
        pyfunc, specs, fp64, debug, name, explain, dynamic_shared, heap, division, int64,
        raise_at, raise_after, payload32,
    )[0]


def _attempt(
    pyfunc: Any, src: Any, specs: dict[str, ArgSpec], make_context: Callable[[Builder], Context]
) -> tuple[Block, list[Param], Context, Translator, Param | None]:
    """One translation of the body with a fresh `make_context(builder)`; the caller repeats
    it when a list's item type was guessed wrong (`Context.list_retry`)."""
    sig = inspect.signature(pyfunc)
    cp = checkpoint.start(pyfunc)
    body = Block()
    b = Builder(body)
    ctx = make_context(b)
    env: dict[str, V] = {}
    params: list[Param] = []
    for i, pname in enumerate(sig.parameters):
        spec = specs.get(pname)
        if spec is None:
            raise CompileError(f"{pyfunc.__name__}(): no value for parameter `{pname}`")
        if isinstance(spec, Known):
            env[pname] = spec
            continue
        if isinstance(spec, ComplexArray):
            v = Value(spec.parts, pname)
            params.append(Param(pname, i, v))
            env[pname] = CArray(v)
            continue
        if isinstance(spec, ComplexScalar):
            re, im = Value(spec.part, f"{pname}__re"), Value(spec.part, f"{pname}__im")
            params.append(Param(f"{pname}__re", i, re, "real"))
            params.append(Param(f"{pname}__im", i, im, "imag"))
            env[pname] = Obj(Complex, (("re", re), ("im", im)))
            continue
        if isinstance(spec, WeakScalar):
            v = Value(spec.scalar, pname)
            ctx.weak.add(v.id)
        else:
            v = Value(spec, pname)
        params.append(Param(pname, i, v))
        env[pname] = v
    env[RET] = Known(False)
    ctx.inline_stack.append(None)  # the kernel itself: `return value` is an error here
    tr = Translator(ctx, src, pyfunc, env)
    checkpoint.begin(cp, tr)
    try:
        tr.stmts(src.tree.body)
    except NeedsKnown as e:  # not caught by a loop that could unroll: the user's error
        raise CompileError(e.message, e.filename, e.line, e.col, e.source_line, e.hint) from None
    failures = raising.epilogue(tr)
    body.ops[0:0] = tables.prepend(ctx.tables)  # constant tables, read anywhere below
    if ctx.arena is not None:  # the arena's hidden parameters and each thread's region
        body.ops[0:0] = ctx.arena.prologue.ops
        params += ctx.arena.hidden_params()
    if failures is not None:
        params.append(failures)
    return body, params, ctx, tr, failures


def translate_with_names(
    pyfunc: Any,
    specs: dict[str, ArgSpec],
    fp64: bool = False,
    debug: bool = False,
    name: str | None = None,
    explain: bool = False,
    dynamic_shared: int | None = None,
    heap: int | None = None,
    division: str = "numpy",
    int64: bool = False,
    raise_at: Any = None,
    raise_after: bool = False,
    payload32: bool = False,
) -> tuple[Function, dict[str, V]]:
    """`translate`, and the names the function's body leaves bound at its end (typed values,
    known values, tuples, objects): what the REPL keeps of an input between lines.
    `dynamic_shared`: the launch's bytes of dynamic shared memory; `heap`: the bytes of
    per-thread arena per element type (`frontend.arena`) the kernel's lists may use.
    `division`: "numpy" (integer `//` and `%` by zero give 0) or "python" (division by zero
    raises ZeroDivisionError). `raise_at`: the accesses whose failed bounds check raises
    IndexError outside a `try` as well (`Context.raise_at`; `pipeline.build` gives those the
    bounds pass cannot prove); `raise_after`: a thread raising uncaught runs on without
    effects (`Context.raise_after`); `payload32`: int32 payload words (`Context.payload32`).

    A kernel in which an exception can reach its end uncaught gets one more parameter after
    the others, `raising.FAILURES` (index -1: no argument of the user's): the launch's failure
    buffer, and `fn.attrs["raise_sites"]` lists its raise sites (`raising.Site`)."""
    src = get_source(pyfunc)
    if division not in ("numpy", "python"):
        raise CompileError(f'division={division!r}: give "numpy" (the default) or "python"')
    hints: dict[Any, Any] = {}

    def make_context(b: Builder) -> Context:
        return Context(
            b, fp64=fp64, debug=debug, explain=explain, dynamic_shared=dynamic_shared, heap=heap,
            division=division, int64=int64, raise_at=raise_at,
            raise_after=raise_after, payload32=payload32,
            list_hints=hints,
        )

    # again when a list was read before its item type was known, or a later item widened
    # it: each round fixes every list it met, so a few rounds settle (a chain of lists each
    # widened by the one it reads may need more: refused, with what settles it at once)
    for _ in range(ROUNDS):
        body, params, ctx, tr, failures = _attempt(pyfunc, src, specs, make_context)
        if not ctx.list_retry:
            break
        hints = ctx.list_hints
    else:
        loc = next(iter(ctx.list_retry.values()))
        raise CompileError(
            f"the item type of this list is not settled after {ROUNDS} translations of the "
            "kernel (a chain of lists, each widened by the items of the one before)",
            loc.filename if loc else src.filename,
            loc.line if loc else None,
            loc.col if loc else None,
            loc.source_line if loc else None,
            hint="give its first item the widest type its items take: simt.int64(0) rather "
            "than 0, 0.0 rather than 0",
        )
    fn = Function(name or pyfunc.__name__, params, body, src.filename, fp64, debug)
    if ctx.arena is not None:
        fn.attrs["heap"] = ctx.arena.heap
        # each arena array's thread region start, by value id (`passes.forward`: a word of
        # the region no store reached since the launch zeroed it reads 0)
        fn.attrs["arena_bases"] = tuple(
            (ctx.arena.params[t].id, v.id) for t, v in ctx.arena.bases.items()
        )
    if failures is not None:
        fn.attrs["raise_sites"] = tuple(ctx.sites)
        # the failure buffer's int32 words: what a launch (or the cost model) passes for it
        fn.attrs["failure_words"] = raising.buffer_words(
            len(ctx.sites), any(s.text for s in ctx.sites)
        )
        # a runtime that reads the buffer itself (`Runtime.keeps_failures`) decodes it with
        # this: `decode(words, raise_sites, grid, block)`, the grouped KernelError or None
        fn.attrs["decode_failures"] = raising.decode
    # which parameters are complex (the IR sees their float parts), for messages: the
    # argument's name -> "complex64 array", "complex128 number", ...
    complex_params = {}
    for pname, spec in specs.items():
        if isinstance(spec, ComplexArray):
            part, what = spec.parts.dtype, "array"
        elif isinstance(spec, ComplexScalar):
            part, what = spec.part, "number"
        else:
            continue
        complex_params[pname] = f"complex{128 if part == T.FLOAT64 else 64} {what}"
    if complex_params:
        fn.attrs["complex_params"] = complex_params
    if ctx.file_records:  # threads write files: the launch lands their records
        fn.attrs["file_records"] = True
    if ctx.file_reads:  # threads read files: the launch stages them (`simt.filereads`)
        fn.attrs["file_reads"] = tuple(ctx.file_reads)
    return fn, tr.env
