"""The math functions kernels may call, declared once: one row a function.

A row (`MathFn`) carries behaviour, not only text: the reference callable that computes the
function elementwise on NumPy values (the `sim` backend calls it, constant folding and the cost
model evaluate it), how many operands it takes and of what kind, how each backend spells it,
what WGSL can do with it, its cost weight and its doc. Everything else is derived from the table:
the `math.f` and NumPy names the front end accepts, the `sim` namespace (`SIM_NAMES`), the
folder's evaluator, WGSL's float32-only list, the cost model's weights, the C library symbols
the CPU backend links. Adding a builtin is one row here plus its corpus case
(`tests/corpus/k_math_rows.py`); a backend with no spelling for it refuses it with a
`CompileError` (or defines a helper of that name in its own helper table).

Spellings are templates over the operands (`{0}`, `{1}`, ...); the row carries every
backend's, and each renderer reads only its own (no backend keeps a list of its own):

- `c` is CUDA C++: `{f}` is `f` for float32 and empty otherwise (`sqrt{f}({0})` is `sqrtf(x)`
  or `sqrt(x)`), `{t}` the C type of the first operand. A `simt_*` name in it is a helper of
  `backends/cuda_helpers.py`, emitted when used. `c_fast` is CUDA's fast intrinsic for float32
  operands (`__expf({0})`), used only when a kernel asks for fast math.
- `wgsl` is WGSL, None where WGSL has no spelling (a `CompileError` there); `{s}` is the WGSL
  type of the first operand (`i32`, `f32`, ...). A `simt_*` name in it is a helper of
  `backends/wgsl_helpers.py` / `backends/wgsl_math.py` (the float32 functions WGSL lacks or
  computes too inexactly), emitted with the helpers it calls. `wgsl_f64` is the spelling on
  float64 operands where it differs (a helper of `backends/wgsl_math64.py`: WGSL's
  transcendental functions take float32 only); `wgsl_f32_only` marks a row that has no
  float64 spelling, refused on float64.
- `llvm` is the CPU's: `llvm.NAME` an LLVM intrinsic (suffixed `.f32`/`.f64` by the renderer);
  `simt.math.NAME` a helper function of `backends/llvm_helpers.py`; anything else one LLVM
  instruction (`{t}` the operand's LLVM type, `{k[v]}` the float constant v in that type). When
  None, the CPU backend calls the C math library's `libm` function (`{libm}f` for float32).
  `llvm_f32` names the straight-line float32 kernel of `backends/llvm_math.py` that LLVM
  vectorises with the thread loop, used for float32 operands instead of `llvm`/`libm`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

TRANSCENDENTAL_WEIGHT = 10  # the cost of a math call in simple operations (cheap ones are 1)


@dataclass(frozen=True)
class MathFn:
    """One math function: what it computes, how to type it, how each backend spells it."""

    name: str
    ref: Callable[..., Any]  # elementwise reference on NumPy values, result in the operand dtype
    doc: str
    # the kind of each operand: "float", "int" (the int operands' promoted type) or "int32"
    args: tuple[str, ...] = ("float",)
    result: str = "float"  # "float" (the float operands' type), "int" (the int operands'), "bool"
    c: str = ""
    c_fast: str = ""  # CUDA's fast intrinsic for float32 operands under fast math ("" none)
    wgsl: str | None = ""
    llvm: str | None = None
    llvm_f32: str | None = None  # the CPU's vectorisable float32 kernel (backends/llvm_math)
    libm: str | None = None  # C math library function (float64 name) the CPU backend calls
    # constant last operands with which LLVM folds the `llvm` spelling into an instruction or
    # two (pow(x, 2.0) is x * x, pow(x, -1.0) 1 / x): there `llvm` is written, not `llvm_f32`
    llvm_folds: tuple[float, ...] = ()
    wgsl_f32_only: bool = False  # WGSL computes it in float32 only: refused on float64
    # WGSL's spelling on float64 operands where it differs from `wgsl` (a helper of
    # backends/wgsl_math64.py; a row with one is not `wgsl_f32_only`)
    wgsl_f64: str | None = None
    weight: int = TRANSCENDENTAL_WEIGHT
    numpy: Callable[..., Any] | None = None  # the NumPy function kernels may call for it
    public: bool = True  # kernels may call it (False: a part of a tuple-valued row)
    parts: tuple[str, ...] = ()  # a tuple-valued function: the rows giving each element
    keywords: tuple[tuple[str, float], ...] = ()  # keyword operands after `args`, with defaults

    @property
    def nargs(self) -> int:
        """Positional operands in a call (keyword operands come after them in the IR op)."""
        return len(self.args)

    @property
    def operand_kinds(self) -> tuple[str, ...]:
        """The kind of each operand of the IR `math` op (keyword operands are floats)."""
        return self.args + ("float",) * len(self.keywords)


def elementwise(fn: Callable[..., float]) -> Callable[..., Any]:
    """A reference over NumPy values from a scalar function of CPython's `math` module.

    The result has the first operand's dtype (float32 in, float32 out), as NumPy's ufuncs do.
    A domain error (`math.gamma(0)`) gives NaN, as the C library does, never an exception:
    kernels run on every value a launch produces."""

    def one(*xs: Any) -> Any:
        try:
            return fn(*(int(x) if isinstance(x, np.integer) else float(x) for x in xs))
        except (ValueError, ZeroDivisionError):
            return math.nan
        except OverflowError:
            return math.inf

    def ref(*xs: Any) -> Any:
        t = np.result_type(*(np.asarray(x).dtype for x in xs))
        r = np.frompyfunc(one, len(xs), 1)(*xs)
        if isinstance(r, np.ndarray):
            return r.astype(t)
        return t.type(r)

    ref.__name__ = getattr(fn, "__name__", "ref")
    ref.__doc__ = f"{ref.__name__} elementwise over NumPy values"
    return ref


def _isqrt(n: Any) -> Any:
    """math.isqrt elementwise; -1 for a negative n (Python raises; a kernel cannot)."""
    a = np.asarray(n)
    r = np.frompyfunc(lambda v: math.isqrt(int(v)) if v >= 0 else -1, 1, 1)(a)
    return r.astype(a.dtype) if isinstance(r, np.ndarray) else a.dtype.type(r)


def _isclose(a: Any, b: Any, rel_tol: Any, abs_tol: Any) -> Any:
    """math.isclose elementwise: equal, or both finite and within the tolerances."""
    with np.errstate(all="ignore"):
        d = np.abs(a - b)
        near = d <= np.maximum(rel_tol * np.maximum(np.abs(a), np.abs(b)), abs_tol)
        return (a == b) | (near & ~np.isinf(a) & ~np.isinf(b))


def _c_gamma(x: float) -> float:
    """math.gamma, but C's tgamma where Python raises at zero: +-inf (NaN at the negative
    integers, as Python's error becomes), so that every backend and the reference agree; and
    -inf where it overflows just below zero (Python's OverflowError would be +inf)."""
    if x == 0:
        return math.copysign(math.inf, x)
    try:
        return math.gamma(x)
    except OverflowError:
        return math.copysign(math.inf, x)


def _c_lgamma(x: float) -> float:
    """math.lgamma, but C's +inf at its poles (0 and the negative integers), where Python
    raises."""
    if x <= 0 and float(x).is_integer():
        return math.inf
    return math.lgamma(x)


_c_gamma.__name__, _c_lgamma.__name__ = "gamma", "lgamma"


def _modf_fraction(x: Any) -> Any:
    return np.modf(x)[0]


def _modf_integer(x: Any) -> Any:
    return np.modf(x)[1]


def _frexp_mantissa(x: Any) -> Any:
    return np.frexp(x)[0]


def _frexp_exponent(x: Any) -> Any:
    return np.frexp(x)[1].astype(np.int32)


def _f(
    name: str,
    ref: Callable[..., Any],
    doc: str,
    nargs: int = 1,
    *,
    numpy: bool = True,
    wgsl: str | None = "",
    c: str = "",
    libm: str | None = "",
    **kw: Any,
) -> MathFn:
    """A float function of `nargs` float operands, spelled `name(...)` unless told otherwise."""
    args = ", ".join(f"{{{i}}}" for i in range(nargs))
    return MathFn(
        name=name,
        ref=ref,
        doc=doc,
        args=("float",) * nargs,
        c=c or f"{name}{{f}}({args})",
        wgsl=(f"{name}({args})" if wgsl == "" else wgsl),
        libm=(name if libm == "" else libm),
        numpy=ref if numpy and isinstance(ref, np.ufunc) else None,
        **kw,
    )


_ROWS: list[MathFn] = [
    _f("sqrt", np.sqrt, "square root", llvm="llvm.sqrt", weight=1),
    _f("cbrt", np.cbrt, "cube root", wgsl="simt_cbrt_f32({0})", wgsl_f64="simt_cbrt_f64({0})"),
    _f("exp", np.exp, "e to the x", llvm="llvm.exp", llvm_f32="simt.vm.exp.f32",
       c_fast="__expf({0})", wgsl_f64="simt_exp_f64({0})"),
    _f("exp2", np.exp2, "2 to the x", llvm="llvm.exp2", c_fast="exp2f({0})",
       wgsl_f64="simt_exp2_f64({0})"),
    _f("expm1", np.expm1, "exp(x) - 1, accurate near 0", wgsl="simt_expm1_f32({0})",
       wgsl_f64="simt_expm1_f64({0})"),
    _f("log", np.log, "natural logarithm", llvm="llvm.log", llvm_f32="simt.vm.log.f32",
       c_fast="__logf({0})", wgsl="simt_log_f32({0})", wgsl_f64="simt_log_f64({0})"),
    _f("log2", np.log2, "base-2 logarithm", llvm="llvm.log2", c_fast="__log2f({0})",
       wgsl="simt_log2_f32({0})", wgsl_f64="simt_log2_f64({0})"),
    _f("log10", np.log10, "base-10 logarithm", llvm="llvm.log10", c_fast="__log10f({0})",
       wgsl="simt_log10_f32({0})", wgsl_f64="simt_log10_f64({0})"),
    _f("log1p", np.log1p, "log(1 + x), accurate near 0", wgsl="simt_log1p_f32({0})",
       wgsl_f64="simt_log1p_f64({0})"),
    _f("sin", np.sin, "sine", llvm="llvm.sin", llvm_f32="simt.vm.sin.f32", c_fast="__sinf({0})",
       wgsl_f64="simt_sin_f64({0})"),
    _f("cos", np.cos, "cosine", llvm="llvm.cos", llvm_f32="simt.vm.cos.f32",
       c_fast="__cosf({0})", wgsl_f64="simt_cos_f64({0})"),
    _f("tan", np.tan, "tangent", c_fast="__tanf({0})", wgsl_f64="simt_tan_f64({0})"),
    _f("asin", np.arcsin, "arc sine", wgsl="simt_asin_f32({0})", wgsl_f64="simt_asin_f64({0})"),
    _f("acos", np.arccos, "arc cosine", wgsl="simt_acos_f32({0})", wgsl_f64="simt_acos_f64({0})"),
    _f("atan", np.arctan, "arc tangent", wgsl="simt_atan_f32({0})", wgsl_f64="simt_atan_f64({0})"),
    _f("atan2", np.arctan2, "arc tangent of y/x, by quadrant", nargs=2,
       wgsl="simt_atan2_f32({0}, {1})", wgsl_f64="simt_atan2_f64({0}, {1})"),
    _f("sinh", np.sinh, "hyperbolic sine", wgsl="simt_sinh_f32({0})",
       wgsl_f64="simt_sinh_f64({0})"),
    _f("cosh", np.cosh, "hyperbolic cosine", wgsl_f64="simt_cosh_f64({0})"),
    _f("tanh", np.tanh, "hyperbolic tangent", llvm_f32="simt.vm.tanh.f32",
       wgsl="simt_tanh_f32({0})", wgsl_f64="simt_tanh_f64({0})"),
    _f("asinh", np.arcsinh, "inverse hyperbolic sine", wgsl="simt_asinh_f32({0})",
       wgsl_f64="simt_asinh_f64({0})"),
    _f("acosh", np.arccosh, "inverse hyperbolic cosine", wgsl="simt_acosh_f32({0})",
       wgsl_f64="simt_acosh_f64({0})"),
    _f("atanh", np.arctanh, "inverse hyperbolic tangent", wgsl="simt_atanh_f32({0})",
       wgsl_f64="simt_atanh_f64({0})"),
    _f("pow", np.power, "x to the y", nargs=2, llvm="llvm.pow", llvm_f32="simt.vm.pow.f32",
       llvm_folds=(0.0, 1.0, 2.0, -1.0, 0.5),  # what LLVM 22 folds (measured)
       c_fast="__powf({0}, {1})", wgsl="simt_pow_f32({0}, {1})",
       wgsl_f64="simt_pow_f64({0}, {1})"),
    _f("hypot", np.hypot, "sqrt(x*x + y*y) without overflow", nargs=2,
       wgsl="length(vec2({0}, {1}))"),
    _f("fabs", np.abs, "absolute value", llvm="llvm.fabs", wgsl="abs({0})", numpy=False,
       weight=1),
    _f("floor", np.floor, "largest integer not above x, as a float", llvm="llvm.floor",
       weight=1),
    _f("ceil", np.ceil, "smallest integer not below x, as a float", llvm="llvm.ceil", weight=1),
    _f("trunc", np.trunc, "x rounded toward zero, as a float", llvm="llvm.trunc", weight=1),
    _f("rint", np.rint, "x rounded to nearest, ties to even, as a float", llvm="llvm.rint",
       wgsl="round({0})", weight=1),
    _f("copysign", np.copysign, "magnitude of x with the sign of y", nargs=2,
       llvm="llvm.copysign", weight=1,  # the sign bit: -0.0 (and a NaN's) counts
       wgsl="select(abs({0}), -abs({0}), (bitcast<u32>(f32({1})) >> 31u) == 1u)"),
    _f("fmod", np.fmod, "C remainder of x / y (sign of x)", nargs=2,  # exact, as `%`'s helper
       wgsl="simt_fmod_f32({0}, {1})", wgsl_f64="simt_fmod_f64({0}, {1})"),
    _f("remainder", elementwise(math.remainder),
       "IEEE 754 remainder of x / y (quotient rounded to nearest, ties to even)", nargs=2,
       wgsl="simt_remainder_f32({0}, {1})", wgsl_f64="simt_remainder_f64({0}, {1})"),
    _f("erf", elementwise(math.erf), "error function", llvm_f32="simt.vm.erf.f32",
       wgsl="simt_erf_f32({0})", wgsl_f64="simt_erf_f64({0})"),
    _f("erfc", elementwise(math.erfc), "1 - erf(x), accurate for large x",
       wgsl="simt_erfc_f32({0})", wgsl_f64="simt_erfc_f64({0})"),
    _f("gamma", elementwise(_c_gamma), "the gamma function", c="tgamma{f}({0})",
       libm="tgamma", wgsl="simt_gamma_f32({0})", wgsl_f64="simt_gamma_f64({0})"),
    _f("lgamma", elementwise(_c_lgamma), "natural logarithm of |gamma(x)|",
       wgsl="simt_lgamma_f32({0})", wgsl_f64="simt_lgamma_f64({0})"),
    _f("degrees", np.degrees, "radians to degrees", c="({0} * ({t})57.29577951308232)",
       llvm="fmul {t} {0}, {k[57.29577951308232]}", libm=None, weight=1),
    _f("radians", np.radians, "degrees to radians", c="({0} * ({t})0.017453292519943295)",
       llvm="fmul {t} {0}, {k[0.017453292519943295]}", libm=None, weight=1),
    MathFn("ldexp", np.ldexp, "x * 2**i", args=("float", "int32"), c="ldexp{f}({0}, {1})",
           libm="ldexp",
           wgsl="ldexp({0}, {1})", numpy=np.ldexp, weight=1),
    MathFn("frexp", np.frexp, "(m, e) with x == m * 2**e and 0.5 <= |m| < 1 (or m == 0)",
           parts=("frexp_mantissa", "frexp_exponent"), numpy=np.frexp),
    MathFn("frexp_mantissa", _frexp_mantissa, "the m of frexp(x)", public=False,
           c="simt_frexp_mantissa({0})", libm="frexp", llvm="simt.math.frexp_mantissa",
           wgsl="frexp({0}).fract", weight=1),
    MathFn("frexp_exponent", _frexp_exponent, "the e of frexp(x) (int32)", public=False,
           result="int", c="simt_frexp_exponent({0})", libm="frexp",
           llvm="simt.math.frexp_exponent", wgsl="frexp({0}).exp", weight=1),
    MathFn("modf", np.modf, "(fractional part, integer part) of x, both floats with x's sign",
           parts=("modf_fraction", "modf_integer"), numpy=np.modf),
    MathFn("modf_fraction", _modf_fraction, "the fractional part of modf(x)", public=False,
           c="copysign{f}(isinf({0}) ? ({t})0 : {0} - trunc{f}({0}), {0})",
           llvm="simt.math.modf_fraction", wgsl="modf({0}).fract", weight=1),
    MathFn("modf_integer", _modf_integer, "the integer part of modf(x)", public=False,
           c="trunc{f}({0})", wgsl="modf({0}).whole", llvm="llvm.trunc", weight=1),
    MathFn("isqrt", _isqrt, "largest integer whose square is at most n (-1 for n < 0)",
           args=("int",), result="int", c="simt_isqrt({0})", llvm="simt.math.isqrt",
           wgsl="simt_isqrt_{s}({0})", weight=4),
    MathFn("gcd", np.gcd, "greatest common divisor (0 when both are 0), never negative",
           args=("int", "int"), result="int", c="simt_gcd({0}, {1})", llvm="simt.math.gcd",
           wgsl="simt_gcd_{s}({0}, {1})", numpy=np.gcd),
    MathFn("isclose", _isclose,
           "a == b, or both finite and |a-b| <= max(rel_tol * max(|a|, |b|), abs_tol)",
           args=("float", "float"), keywords=(("rel_tol", 1e-09), ("abs_tol", 0.0)),
           result="bool", weight=4, llvm="simt.math.isclose",
           c="({0} == {1} || (!isinf({0}) && !isinf({1}) && fabs{f}({0} - {1}) <= "
           "fmax{f}({2} * fmax{f}(fabs{f}({0}), fabs{f}({1})), {3})))",
           wgsl="(({0} == {1}) || (simt_finite_{s}({0}) && simt_finite_{s}({1}) && "
           "abs({0} - {1}) <= max({2} * max(abs({0}), abs({1})), {3})))"),
    MathFn("isnan", np.isnan, "x is not a number", result="bool", c="isnan({0})",
           llvm="fcmp uno {t} {0}, {0}", numpy=np.isnan, weight=1,  # (bit tests: a driver
           wgsl="(!simt_finite_{s}({0}) && !simt_isinf_{s}({0}))"),  # assuming no NaN folds x != x)
    MathFn("isinf", np.isinf, "x is plus or minus infinity", result="bool", c="isinf({0})",
           llvm="simt.math.isinf", wgsl="simt_isinf_{s}({0})", numpy=np.isinf, weight=1),
    MathFn("isfinite", np.isfinite, "x is neither infinite nor NaN", result="bool",
           c="isfinite({0})", llvm="simt.math.isfinite", wgsl="simt_finite_{s}({0})",
           numpy=np.isfinite, weight=1),
]  # fmt: skip

MATH: dict[str, MathFn] = {fn.name: fn for fn in _ROWS}
# `math.floor`, `math.ceil` and `math.trunc` of a float return an int in Python, and do in
# kernels too (int32, as `int()`); the `floor`/`ceil`/`trunc` rows above are the float forms
# that the front end emits before that cast (NumPy's `np.floor` keeps the float).
TO_INT = frozenset({"floor", "ceil", "trunc"})


def sim_name(name: str) -> str:
    """The name the `sim` backend's programs call row `name` by."""
    return f"_math_{name}"


# What the `sim` runtime binds in the namespace its programs run in.
SIM_NAMES: dict[str, Callable[..., Any]] = {
    sim_name(fn.name): fn.ref for fn in _ROWS if not fn.parts
}
# The operations WGSL computes in float32 only (refused on float64 rather than inexact).
WGSL_F32_ONLY: frozenset[str] = frozenset(fn.name for fn in _ROWS if fn.wgsl_f32_only)
# The C math library functions the CPU backend's code may call (LLVM lowers some intrinsics
# to them too), float64 and float32 names.
LIBM_NAMES: frozenset[str] = frozenset(
    n for fn in _ROWS if fn.libm for n in (fn.libm, fn.libm + "f")
)


def weight(name: str) -> int:
    """The cost of `name` in simple operations (the cost model's unit)."""
    fn = MATH.get(name)
    return fn.weight if fn is not None else TRANSCENDENTAL_WEIGHT


__all__ = ["MATH", "MathFn", "SIM_NAMES", "WGSL_F32_ONLY", "LIBM_NAMES",
           "TO_INT", "elementwise", "sim_name", "weight"]  # fmt: skip
