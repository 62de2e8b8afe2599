"""The math functions kernels may call, declared once: name, arity, spelling per backend, doc.

The front end reads this table to type `math.f(...)` calls; each renderer reads its own column
to spell them; `docs/language.md` lists them. A spelling is a template over the operands
(`{0}`, `{1}`) and the C type suffix: in `cuda` and `c` columns, `{f}` is `f` for float32 and
empty for float64 (`sqrt{f}({0})` is `sqrtf(x)` or `sqrt(x)`). `llvm` names an LLVM intrinsic
(`llvm.sqrt`, to be suffixed with `.f32`/`.f64`) or, when None, the C library function given by
the `c` column. `wgsl` is None where WGSL has no spelling: a `CompileError` on that backend.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MathFn:
    """One math function: how to type it and how each backend spells it."""

    name: str
    nargs: int
    c: str  # C library spelling (CUDA C++ and the CPU backend's libm calls)
    numpy: str  # NumPy spelling for the sim backend
    wgsl: str | None
    llvm: str | None = None
    result: str = "float"  # "float": the operands' float type; "bool"
    doc: str = ""


def _f(
    name: str,
    doc: str,
    nargs: int = 1,
    wgsl: str | None = "",
    llvm: str | None = None,
    c: str = "",
    numpy: str = "",
) -> MathFn:
    args = ", ".join(f"{{{i}}}" for i in range(nargs))
    return MathFn(
        name=name,
        nargs=nargs,
        c=c or f"{name}{{f}}({args})",
        numpy=numpy or f"np.{name}({args})",
        wgsl=(f"{name}({args})" if wgsl == "" else wgsl),
        llvm=llvm,
        doc=doc,
    )


MATH: dict[str, MathFn] = {
    fn.name: fn
    for fn in [
        _f("sqrt", "square root", llvm="llvm.sqrt"),
        _f("exp", "e to the x", llvm="llvm.exp"),
        _f("exp2", "2 to the x", llvm="llvm.exp2"),
        _f("expm1", "exp(x) - 1, accurate near 0", wgsl=None),
        _f("log", "natural logarithm", llvm="llvm.log"),
        _f("log2", "base-2 logarithm", llvm="llvm.log2"),
        _f(
            "log10", "base-10 logarithm", llvm="llvm.log10", wgsl="(log({0}) * 0.43429448190325176)"
        ),
        _f("log1p", "log(1 + x), accurate near 0", wgsl=None),
        _f("sin", "sine", llvm="llvm.sin"),
        _f("cos", "cosine", llvm="llvm.cos"),
        _f("tan", "tangent"),
        _f("asin", "arc sine", numpy="np.arcsin({0})"),
        _f("acos", "arc cosine", numpy="np.arccos({0})"),
        _f("atan", "arc tangent", numpy="np.arctan({0})"),
        _f("atan2", "arc tangent of y/x, by quadrant", nargs=2, numpy="np.arctan2({0}, {1})"),
        _f("sinh", "hyperbolic sine"),
        _f("cosh", "hyperbolic cosine"),
        _f("tanh", "hyperbolic tangent"),
        _f("asinh", "inverse hyperbolic sine", numpy="np.arcsinh({0})"),
        _f("acosh", "inverse hyperbolic cosine", numpy="np.arccosh({0})"),
        _f("atanh", "inverse hyperbolic tangent", numpy="np.arctanh({0})"),
        _f("pow", "x to the y", nargs=2, llvm="llvm.pow", numpy="np.power({0}, {1})"),
        _f("hypot", "sqrt(x*x + y*y) without overflow", nargs=2, wgsl="length(vec2({0}, {1}))"),
        _f("fabs", "absolute value", llvm="llvm.fabs", wgsl="abs({0})", numpy="np.abs({0})"),
        _f("floor", "largest integer not above x, as a float", llvm="llvm.floor"),
        _f("ceil", "smallest integer not below x, as a float", llvm="llvm.ceil"),
        _f("trunc", "x rounded toward zero, as a float", llvm="llvm.trunc"),
        _f(
            "rint",
            "x rounded to nearest, ties to even, as a float",
            llvm="llvm.rint",
            wgsl="round({0})",
        ),
        _f(
            "copysign",
            "magnitude of x with the sign of y",
            nargs=2,
            llvm="llvm.copysign",
            wgsl="select(abs({0}), -abs({0}), {1} < 0.0)",
        ),
        _f(
            "fmod",
            "C remainder of x / y (sign of x)",
            nargs=2,
            wgsl="({0} - {1} * trunc({0} / {1}))",
        ),
        _f("erf", "error function", wgsl=None, numpy="_erf({0})"),
        _f(
            "degrees",
            "radians to degrees",
            c="({0} * ({t})57.29577951308232)",
            numpy="np.degrees({0})",
        ),
        _f(
            "radians",
            "degrees to radians",
            c="({0} * ({t})0.017453292519943295)",
            numpy="np.radians({0})",
        ),
        MathFn(
            "isnan",
            1,
            "isnan({0})",
            "np.isnan({0})",
            "({0} != {0})",
            None,
            "bool",
            "x is not a number",
        ),
        MathFn(
            "isinf",
            1,
            "isinf({0})",
            "np.isinf({0})",
            None,
            None,
            "bool",
            "x is plus or minus infinity",
        ),
        MathFn(
            "isfinite",
            1,
            "isfinite({0})",
            "np.isfinite({0})",
            None,
            None,
            "bool",
            "x is neither infinite nor NaN",
        ),
    ]
}
# `math.floor`, `math.ceil` and `math.trunc` of a float return an int in Python, and do in
# kernels too (int32, as `int()`); the `floor`/`ceil`/`trunc` rows above are the float forms
# that the front end emits before that cast.
