"""`simt.compile(f, **known)`: specialise a function on values known at compile time.

The known values are used by CPython while compiling (PyGPU's partial evaluation): a NumPy
matrix that only shapes the program, a list of offsets, a function to call, any object. What
comes back depends on `f`:

- an image function (a parameter of type `simt.image.Image` and one of type `Position`): an
  `ImageFunction`, called with whole images, returning a new image (`simt.imagefn`);
- any other function or `@simt.kernel`: a `Kernel` with those parameters bound, launched as
  `k[blocks, threads](other arguments)`.

Either way, a parameter that cannot be passed to the device (anything but arrays and numbers)
must be given here; a call that passes one instead is a CompileError naming it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .errors import CompileError, SimtError, user_facing
from .kernel import Kernel, check_not_lambda


@user_facing
def compile(f: Callable[..., Any], **known: Any) -> Any:  # noqa: A001 - the contract's name
    """Specialise `f` (a plain function or a `@simt.kernel`) on the `known` parameter values.

    Returns a callable over whole images for an image function, else a `Kernel`.
    """
    try:
        return _compile(f, known)
    except SimtError as e:
        raise e.with_traceback(None) from None  # the user's frames, not simt's


def _compile(f: Callable[..., Any], known: dict[str, Any]) -> Any:
    fp64: bool = False
    debug: bool | None = None
    static: tuple[str, ...] = ()
    boundscheck: bool | None = None
    if isinstance(f, Kernel):
        fp64, debug, static = f.fp64, f.debug, tuple(f.static)
        boundscheck = f.boundscheck
        known = {**f.known, **known}
        fn = f.pyfunc
    elif inspect.isfunction(f):
        check_not_lambda(f, "the function given to simt.compile")
        fn = f
    else:
        raise CompileError(
            f"simt.compile needs a Python function or a @simt.kernel, got {type(f).__name__}"
        )
    params = inspect.signature(fn).parameters
    # an option of simt.compile, unless the function has a parameter of that name
    normalize = (
        bool(known.pop("normalize"))
        if "normalize" in known and "normalize" not in params
        else False
    )
    # boundscheck=False (unsafe: accesses unchecked), the same way
    if "boundscheck" in known and "boundscheck" not in params:
        boundscheck = bool(known.pop("boundscheck"))
    for name in known:
        if name not in params:
            raise CompileError(
                f"simt.compile: {fn.__name__}() has no parameter named {name!r} "
                f"(it has {', '.join(params) or 'none'})"
            )
    from .imagefn import IMAGE, POSITION, ImageFunction, param_kinds

    kinds = param_kinds(fn, {}).values()  # what the parameters are, given or not
    if IMAGE in kinds and POSITION not in kinds:
        raise CompileError(
            f"{fn.__name__}() has an Image parameter but no Position parameter: an image "
            "function computes the pixel at a Position of its result",
            hint="add a `p: Position` parameter and read the image as `im(p)`; for a kernel "
            "over arrays, drop the Image annotation and launch it with [blocks, threads]",
        )
    if POSITION in kinds:
        if IMAGE not in kinds:
            raise CompileError(
                f"{fn.__name__}() has a Position parameter but no Image parameter: an image "
                "function computes a pixel of a result as large as its first image",
                hint="add an `im: Image` parameter, or write a @simt.kernel over an array",
            )
        return ImageFunction(
            fn, known, fp64=fp64, debug=debug, normalize=normalize, boundscheck=boundscheck
        )
    if normalize:
        raise CompileError(
            f"simt.compile({fn.__name__}, normalize=True): normalize= is an option of image "
            "functions (an Image and a Position parameter); a kernel reads its arrays as stored",
            hint="divide by 255.0 in the kernel, or write an image function",
        )
    return Kernel(
        fn, fp64=fp64, debug=debug, static=static, known=known, strict=True, boundscheck=boundscheck
    )
