"""The pipeline from a Python function to a backend's source text, one stage after another:
front end (typed IR), passes (optimised IR), renderer (source text)."""

from __future__ import annotations

import importlib
from typing import Any

from .errors import BackendUnavailable
from .frontend.specialise import ArgSpec, translate
from .ir import Function, verify

# backend name -> module with a `render(fn) -> str` function (no device needed)
RENDERERS = {
    "sim": "simt.backends.sim",
    "cpu": "simt.backends.llvm",
    "cuda": "simt.backends.cuda",
    "webgpu": "simt.backends.wgsl",
}


def build(
    pyfunc: Any, specs: dict[str, ArgSpec], fp64: bool, debug: bool, optimise: bool = True
) -> Function:
    """Front end, checks and optimisation passes: the IR every backend starts from. Without
    `optimise` the IR is the front end's own, branch for branch (`kernel.explain` shows it)."""
    return finish(translate(pyfunc, specs, fp64=fp64, debug=debug), optimise)


def finish(fn: Function, optimise: bool = True) -> Function:
    """Checks and optimisation passes for IR from any front end (Python functions, index
    expressions): the IR every backend starts from."""
    verify(fn)
    try:
        if not optimise:
            raise ImportError

        from .passes.optimize import optimize
    except ImportError:  # the passes are optional for correctness
        pass
    else:
        fn = optimize(fn)
        verify(fn)
    try:
        from .passes.uniformity import check_barriers
    except ImportError:
        pass
    else:
        check_barriers(fn)
    return fn


def render(backend: str, fn: Function) -> str:
    """The source text `backend` compiles for `fn`."""
    if backend == "ir":
        from .ir import format_function

        return format_function(fn)
    if backend != "sim" and not fn.debug:
        from .passes.view_checks import strip_view_checks

        fn = strip_view_checks(fn)  # as a launch on that backend compiles it
    mod = RENDERERS.get(backend)
    if mod is None:
        raise BackendUnavailable(
            f"unknown backend {backend!r}: choose one of {', '.join(RENDERERS)}"
        )
    try:
        module = importlib.import_module(mod)
    except ImportError as e:
        raise BackendUnavailable(f"the {backend} renderer is not available: {e}") from None
    return module.render(fn)  # type: ignore[no-any-return]
