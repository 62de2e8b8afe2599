"""The pipeline from a Python function to a backend's source text, one stage after another:
front end (typed IR), checks and passes (optimised IR), the runtime's renderer (source text)."""

from __future__ import annotations

from typing import Any

from .frontend.specialise import ArgSpec, translate
from .ir import Function, format_function, verify, walk
from .passes.barriers import lift as lift_barriers
from .passes.barriers import strip_exits
from .passes.optimize import optimize
from .passes.uniformity import check_barriers
from .passes.view_checks import strip_view_checks
from .runtime import registry


def build(
    pyfunc: Any,
    specs: dict[str, ArgSpec],
    fp64: bool,
    debug: bool,
    optimise: bool = True,
    explain: bool = False,
) -> Function:
    """Front end, checks and optimisation passes: the IR every backend starts from. Without
    `optimise` the IR is the front end's own, branch for branch; `explain` adds `note` ops
    for assignments that make no op (both for `kernel.explain`, on sim only)."""
    fn = translate(pyfunc, specs, fp64=fp64, debug=debug, explain=explain)
    return finish(fn, optimise)


def finish(fn: Function, optimise: bool = True) -> Function:
    """Checks and optimisation passes for IR from any front end (Python functions, index
    expressions): the IR every backend starts from. The barrier check runs here, once, for
    every backend (a barrier in a `while` condition is a `CompileError`); `exit` markers stay
    only in kernels with barriers."""
    verify(fn)
    if optimise:
        fn = optimize(fn)
        verify(fn)
    check_barriers(fn)
    if not any(op.opcode == "barrier" for op in walk(fn.body)):
        fn = strip_exits(fn)  # only barriers care which threads returned
    return fn


def render(backend: str, fn: Function) -> str:
    """The source text `backend` compiles for `fn` (its runtime's `source`: no device), or
    the IR's text for "ir"."""
    if backend == "ir":
        return format_function(fn)
    rt = registry.runtime_class(backend)  # BackendUnavailable names the backends there are
    if backend != "sim" and not fn.debug:
        fn = strip_view_checks(fn)  # as a launch on that backend compiles it
    if not rt.lockstep:
        fn = lift_barriers(fn)
    return rt.source(fn)
