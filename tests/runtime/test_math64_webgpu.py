"""simt's float64 math functions for WGSL (backends/wgsl_math64.py: WGSL's own take float32
only) against CPython's `math` module, on webgpu: for each function a table of a few hundred
float64 inputs (random over the domain, near its boundaries, special values, huge and tiny
arguments) in one launch. The bounds are a little above the largest error measured on
lavapipe, which docs/semantics.md states ("Math functions on webgpu", the float64 column);
errors are in ulps of CPython's result (itself within about half an ulp of the exact value,
except `EXACT`'s), so 1.0 is "the neighbouring float64". Special values (NaN, infinities,
zeros, poles) must be CPython's exactly, or C's where CPython raises (log(0) is -inf)."""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import simt
from simt.builtins import MATH
from simt.runtime import registry

MAX = 1.7976931348623157e308
TINY = 2.2250738585072014e-308  # the smallest normal float64
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1e-310, -1e-310, TINY,
           -TINY, MAX, -MAX, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1e-300, -1e-300, 1e300, -1e300,
           1e-17, -1e-17, 1e-8, -1e-8, 0.1, 10.0, 100.0]  # fmt: skip


def _bits(g: np.random.Generator, n: int, positive: bool = False) -> list[float]:
    """Random bit patterns: every exponent (and NaNs, infinities)."""
    return g.integers(0, 2**63 if positive else 2**64, n, dtype=np.uint64).view(np.float64).tolist()


def _inputs(name: str) -> list[float]:
    g = np.random.default_rng(64)
    u = g.uniform
    x: list[float] = list(SPECIAL) + _bits(g, 100, positive=name.startswith("log"))
    if name in ("exp", "expm1"):
        x += u(-746, 710, 200).tolist() + u(-1, 1, 100).tolist() + u(-40, 40, 100).tolist()
        x += [709.782712893384, 709.7827128933841, -708.3964185322641, -708.4, -745.13321910194,
              -745.1332191019412, -744.0, -720.0, 0.34657359027997264, -0.34657359027997264]
    elif name == "exp2":
        x += u(-1080, 1030, 200).tolist() + u(-1, 1, 100).tolist()
        x += [1023.9999999, 1024.0, -1022.0, -1022.5, -1074.0, -1074.5, -1075.0, -1073.3, 52.5]
    elif name.startswith("log"):
        lo = -1.0 if name == "log1p" else 0.0
        x += u(lo, 3, 200).tolist() + (1 + u(-1e-6, 1e-6, 50)).tolist() + u(0, 1e6, 50).tolist()
        x += [0.7071067811865476, 1.414213562373095, 1.4142135623730951, 1e-320, 1e22, 1e-5,
              8.0, 1024.0, 2.0**-1074, 0.75, 1.25, -0.2928932188134524, 0.41421356237309503,
              0.4142135623730951, -0.9999999999, -1.0000001, 1e-320, -1e-320]  # fmt: skip
        x += (u(-1e-6, 1e-6, 50) if name == "log1p" else u(0, 1e-300, 50)).tolist()
    elif name == "cbrt":
        x += u(-10, 10, 200).tolist() + _bits(g, 100) + [8.0, -27.0, 1e-320, 3e-308, 1e308]
    elif name in ("sinh", "cosh", "tanh"):
        x += u(-30, 30, 200).tolist() + u(-1.1, 1.1, 150).tolist() + u(-1e-7, 1e-7, 20).tolist()
        x += [0.55, -0.55, 0.5499999999, 22.0, 21.99, 709.78, 710.0, 710.475, 710.48, -710.48]
    elif name == "asinh":
        x += u(-3, 3, 200).tolist() + u(-1e10, 1e10, 100).tolist() + [2.0, 268435457.0]
    elif name == "acosh":
        x += u(1, 3, 200).tolist() + (1 + u(0, 1e-8, 50)).tolist() + u(1, 1e10, 100).tolist()
        x += [2.0, 268435457.0, 0.9999999999]
    elif name == "atanh":
        x += u(-1, 1, 300).tolist() + [0.5, -0.5, 0.4999999999, 0.9999999999, -0.99999999999999]
    elif name in ("asin", "acos", "atan"):
        x += u(-1, 1, 250).tolist() + (1 - u(0, 1e-6, 30)).tolist() + u(-20, 20, 50).tolist()
        x += [k / 16 for k in range(-16, 17)] + [0.9999999999999999, -0.9999999999999999,
                                                 1.0000000000000002, 1e-17, 1e18, -1e20]
    elif name in ("erf", "erfc"):
        x += u(-6, 6, 250).tolist() + u(0.5, 27.5, 100).tolist() + u(-1e-5, 1e-5, 20).tolist()
        x += [0.5, 0.4999999999999999, 3.0, 2.9999999999999996, 6.0, 5.999, -1.0000001, 26.5,
              27.2, 27.3, -6.1]  # fmt: skip
    elif name in ("sin", "cos", "tan"):
        x += u(-10, 10, 150).tolist() + u(-1e6, 1e6, 100).tolist() + _bits(g, 100)
        # the doubles nearest k pi/2 (the reduction's cancellation), the hardest case of all
        # doubles (x mod pi/2 = 4.7e-19; Muller's table), either side of 1e6 (the switch to
        # the Payne-Hanek reduction), pi/4
        with decimal.localcontext() as c:
            c.prec = 60
            x += [float(k * _pi() / 2) for k in (1, 2, 3, 4, 7, 100, 1000, 10**5, 10**6, 10**9)]
        x += [6381956970095103 * 2.0**797, -6381956970095103 * 2.0**797, 999999.9999999999,
              1000000.0000000001, 0.7853981633974483, -0.7853981633974483, 1e22, 2.0**1000]
    return x


def _pairs() -> tuple[list[float], list[float]]:
    """pow's (base, exponent) table: random over [0, 10) x [-50, 50) and large exponents of
    bases near 1 (results near overflow and underflow), every special value against a few
    exponents, negative integral bases with integral exponents."""
    g = np.random.default_rng(65)
    u = g.uniform
    xs = u(0, 10, 200).tolist() + u(0.5, 2, 100).tolist() + _bits(g, 50, positive=True)
    ys = u(-50, 50, 200).tolist() + u(-1000, 1000, 100).tolist() + u(-2, 2, 50).tolist()
    ints = (-g.integers(1, 10, 60)).astype(float).tolist()
    xs += ints
    ys += g.integers(-30, 30, 60).astype(float).tolist()
    exps = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, math.inf, -math.inf,
            math.nan, 1e300, 1023.0, -1074.0]  # fmt: skip
    for x in SPECIAL:
        xs += [x] * len(exps)
        ys += exps
    return xs, ys


# function -> the largest error allowed, in ulps of CPython's result (docs/semantics.md)
# (cbrt, sinh, tanh, sin, cos, tan: of the exact value, `EXACT`)
BOUNDS = {"exp": 1.0, "exp2": 1.0, "expm1": 1.0, "log": 1.0, "log2": 1.0, "log10": 1.0,
          "log1p": 1.0, "cbrt": 1.0, "sinh": 1.0, "cosh": 1.0, "tanh": 1.0, "asinh": 1.0,
          "acosh": 1.0, "atanh": 1.0, "pow": 1.0, "sin": 1.0, "cos": 1.0, "tan": 1.0,
          "asin": 1.0, "acos": 1.0, "atan": 1.0, "atan2": 1.0, "remainder": 0.0, "erf": 1.0,
          "erfc": 4.0}  # fmt: skip (erfc: 3 measured; CPython's is itself up to 2.4 off)
ONE = sorted(set(BOUNDS) - {"pow", "atan2", "remainder"})


def _exact_cbrt(d: decimal.Decimal) -> decimal.Decimal:
    return (abs(d).ln() / 3).exp().copy_sign(d)


def _exact_sinh(d: decimal.Decimal) -> decimal.Decimal:
    return (d.exp() - (-d).exp()) / 2


def _exact_tanh(d: decimal.Decimal) -> decimal.Decimal:
    return 1 - 2 / ((2 * d).exp() + 1) if d > 0 else 2 / ((-2 * d).exp() + 1) - 1


_PI: list[decimal.Decimal] = []


def _pi() -> decimal.Decimal:
    """pi to 430 digits (the decimal module documentation's recipe), once."""
    if not _PI:
        with decimal.localcontext() as c:
            c.prec = 432
            three = decimal.Decimal(3)
            lasts, t, s, n, na, d, da = decimal.Decimal(0), three, three, 1, 0, 0, 24
            while s != lasts:
                lasts = s
                n, na = n + na, na + 8
                d, da = d + da, da + 32
                t = (t * n) / d
                s += t
            _PI.append(s)
    return +_PI[0]


def _sin_cos(x: decimal.Decimal) -> tuple[decimal.Decimal, decimal.Decimal]:
    """sin x and cos x to about 60 digits: x less a multiple k of pi/2 (430 digits: exact
    enough for every double), Taylor series of the rest, the quadrant k mod 4."""
    with decimal.localcontext() as c:
        c.prec = 430
        half = _pi() / 2
        k = (x / half).to_integral_value()
        r = x - k * half
        q = int(k % 4)
    with decimal.localcontext() as c:
        c.prec = 70
        r = +r
        s, c_, term, n = r, decimal.Decimal(1), r, 1
        cterm = decimal.Decimal(1)
        while abs(term) > decimal.Decimal("1e-80") or abs(cterm) > decimal.Decimal("1e-80"):
            term = -term * r * r / ((2 * n) * (2 * n + 1))
            cterm = -cterm * r * r / ((2 * n - 1) * (2 * n))
            s, c_, n = s + term, c_ + cterm, n + 1
        return [(s, c_), (c_, -s), (-s, -c_), (-c_, s)][q]


def _exact_sin(d: decimal.Decimal) -> decimal.Decimal:
    return _sin_cos(d)[0]


def _exact_cos(d: decimal.Decimal) -> decimal.Decimal:
    return _sin_cos(d)[1]


def _exact_tan(d: decimal.Decimal) -> decimal.Decimal:
    s, c = _sin_cos(d)
    return s / c


# Where CPython's function is itself more than an ulp off (its cbrt by up to 2.5 ulp here,
# sinh and tanh by up to 1.2, cos and tan by 8 and 14 at Muller's hardest reduction: the C
# library's), the reference is the exact value (`decimal`, 60 digits) rounded to float64
EXACT = {"cbrt": _exact_cbrt, "sinh": _exact_sinh, "tanh": _exact_tanh, "sin": _exact_sin,
         "cos": _exact_cos, "tan": _exact_tan}  # fmt: skip
TRIG = ("sin", "cos", "tan")


def _python(f: Callable[..., float], *xs: float) -> float:
    """CPython's value (or the exact one: `EXACT`); C's where CPython raises (-inf at log's
    pole, NaN off its domain, +-inf where it overflows)."""
    exact = EXACT.get(f.__name__)
    x = xs[0]
    near = f.__name__ in TRIG + ("cbrt",) or 1e-5 < abs(x) < 30
    if exact is not None and math.isfinite(x) and x != 0 and near:
        with decimal.localcontext() as c:
            c.prec = 60
            return float(exact(decimal.Decimal(x)))
    try:
        return f(*xs)
    except ValueError:
        if f in (math.log, math.log2, math.log10) and xs[0] == 0.0:
            return -math.inf
        if f in (math.log1p, math.atanh) and abs(xs[0]) == 1.0:
            return math.copysign(math.inf, xs[0])
        if f is math.pow and xs[0] == 0.0:  # 0 ** negative: C's +-inf
            odd = xs[1].is_integer() and int(xs[1]) % 2 == 1
            return math.copysign(math.inf, xs[0]) if odd else math.inf
        return math.nan
    except OverflowError:
        if f is math.pow:
            odd = xs[1].is_integer() and int(xs[1]) % 2 == 1
            return -math.inf if xs[0] < 0 and odd else math.inf
        return math.copysign(math.inf, xs[0]) if f is math.sinh else math.inf


def _errors(name: str, args: list[tuple[float, ...]], got: list[float]) -> tuple[float, list]:
    """(the largest error in ulps, the inputs outside the bound or special values wrong)."""
    f = getattr(math, name)
    worst, bad = 0.0, []
    for xs, d in zip(args, got):
        want = _python(f, *xs)
        if math.isnan(want) or math.isinf(want) or math.isnan(d) or math.isinf(d) or want == 0:
            if not (d == want or (math.isnan(d) and math.isnan(want))):
                bad.append((xs, d, want))
            continue
        err = abs(d - want) / math.ulp(want)
        worst = max(worst, err)
        if err > BOUNDS[name]:
            bad.append((xs, d, want, err))
    return worst, bad


def _kernel1(f: Callable[[float], Any]) -> Any:
    @simt.kernel
    def one(x, out):
        i = simt.grid(1)
        if i < len(out):
            out[i] = f(x[i])

    return one


@pytest.fixture
def webgpu_f64() -> None:
    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"webgpu not present: {why}")
    if not registry.get("webgpu").has_float64():
        pytest.skip("the webgpu adapter has no shader-f64")


@pytest.mark.parametrize("name", ONE)
def test_float64_function_agrees_with_python(webgpu_f64: None, name: str) -> None:
    x = np.array(_inputs(name), np.float64)
    out = np.zeros(len(x))
    with simt.using("webgpu"):
        _kernel1(getattr(math, name))[(len(x) + 127) // 128, 128](x, out)
    worst, bad = _errors(name, [(v,) for v in x.tolist()], out.tolist())
    assert not bad, f"{name}: {len(bad)} wrong of {len(x)}, e.g. {bad[:5]}"
    assert worst <= BOUNDS[name]


def test_float64_pow_agrees_with_python(webgpu_f64: None) -> None:
    """math.pow and `**` of float64: Python's special cases (a negative base with an integral
    exponent, pow(1, nan) == pow(nan, 0) == 1, pow(-1, inf) == 1; C's +-inf at 0 ** negative
    where Python raises), e**(y log x) in double-double elsewhere."""
    xs, ys = _pairs()
    x, y = np.array(xs), np.array(ys)
    out, star = np.zeros(len(x)), np.zeros(len(x))

    @simt.kernel
    def two(x, y, out, star):
        i = simt.grid(1)
        if i < len(out):
            out[i] = math.pow(x[i], y[i])
            star[i] = x[i] ** y[i]

    with simt.using("webgpu"):
        two[(len(x) + 127) // 128, 128](x, y, out, star)
    assert out.tolist() == star.tolist() or np.array_equal(out, star, equal_nan=True)
    worst, bad = _errors("pow", list(zip(xs, ys)), out.tolist())
    assert not bad, f"pow: {len(bad)} wrong of {len(x)}, e.g. {bad[:5]}"
    assert worst <= BOUNDS["pow"]


def test_float64_atan2_agrees_with_python(webgpu_f64: None) -> None:
    """C's special cases (zeros and infinities by the quadrant: atan2(-0.0, -1.0) == -pi;
    the sign of a zero result is unspecified on webgpu) and the angle everywhere else,
    operands huge and tiny (scaled before the quotient) included."""
    g = np.random.default_rng(66)
    ys = g.uniform(-10, 10, 200).tolist() + _bits(g, 100)
    xs = g.uniform(-10, 10, 200).tolist() + _bits(g, 100)
    for v in SPECIAL:
        ys += [v] * len(SPECIAL)
        xs += SPECIAL
    y, x = np.array(ys), np.array(xs)
    out = np.zeros(len(x))

    @simt.kernel
    def two(y, x, out):
        i = simt.grid(1)
        if i < len(out):
            out[i] = math.atan2(y[i], x[i])

    with simt.using("webgpu"):
        two[(len(x) + 127) // 128, 128](y, x, out)
    worst, bad = _errors("atan2", list(zip(ys, xs)), out.tolist())
    assert not bad, f"atan2: {len(bad)} wrong of {len(x)}, e.g. {bad[:5]}"
    assert worst <= BOUNDS["atan2"]


def test_float64_remainder_is_exact(webgpu_f64: None) -> None:
    """IEEE's remainder, exact: |x| mod 2|y| exactly, then the quotient's rounding to even
    (ties: remainder(2.5, 1.0) == 0.5, remainder(3.5, 1.0) == -0.5); NaN for an infinite x
    or a zero y, x for an infinite y."""
    g = np.random.default_rng(67)
    xs = g.uniform(-50, 50, 200).tolist() + _bits(g, 100) + [2.5, 3.5, -2.5, 1e308, 5e-324]
    ys = [1.0, -1.0, 0.5, 3.0, 7.25, 1e-3, 1e-310, 5e-324, 1e300, 1.7976931348623157e308, 0.0,
          -0.0, math.inf, -math.inf, math.nan]  # fmt: skip
    a, b = (v.ravel() for v in np.meshgrid(np.array(xs + SPECIAL), np.array(ys)))
    out = np.zeros(len(a))

    @simt.kernel
    def two(x, y, out):
        i = simt.grid(1)
        if i < len(out):
            out[i] = math.remainder(x[i], y[i])

    with simt.using("webgpu"):
        two[(len(a) + 127) // 128, 128](a, b, out)
    worst, bad = _errors("remainder", list(zip(a.tolist(), b.tolist())), out.tolist())
    assert not bad, f"remainder: {len(bad)} wrong of {len(a)}, e.g. {bad[:5]}"
    assert worst == 0.0


def _bernoulli_even(n: int) -> list[Fraction]:
    """B_2, B_4, ..., B_2n exactly (sum over k <= m of C(m + 1, k) B_k = 0)."""
    b = [Fraction(1)]
    for m in range(1, 2 * n + 1):
        b.append(-sum((math.comb(m + 1, k) * b[k] for k in range(m)), Fraction(0)) / (m + 1))
    return b[2::2]


def _exact_lgamma(d: decimal.Decimal) -> tuple[decimal.Decimal, int]:
    """(log|gamma(d)|, its sign) to about 50 digits: Stirling's series (20 terms) from 40 on,
    the recurrence below, the reflection gamma(x) gamma(1 - x) = pi / sin(pi x) below 0."""
    with decimal.localcontext() as c:
        c.prec = 70
        if d < 0:
            with decimal.localcontext() as c2:
                c2.prec = 430
                s = _exact_sin(_pi() * d)
            lg, _ = _exact_lgamma(1 - d)
            return (+_pi()).ln() - abs(s).ln() - lg, 1 if s > 0 else -1
        y, prod = d, decimal.Decimal(1)
        while y < 40:
            prod *= y
            y += 1
        bern = _bernoulli_even(20)
        r = (y - decimal.Decimal("0.5")) * y.ln() - y + (2 * _pi()).ln() / 2
        for k, b in enumerate(bern, 1):
            term = decimal.Decimal(b.numerator) / b.denominator
            r += term / (2 * k * (2 * k - 1) * y ** (2 * k - 1))
        return r - prod.ln(), 1


def _gamma_inputs() -> list[float]:
    g = np.random.default_rng(68)
    u = g.uniform
    x = list(SPECIAL) + u(0, 8, 150).tolist() + u(8, 180, 80).tolist() + u(-20, 0, 100).tolist()
    x += (1 + u(-1e-3, 1e-3, 20)).tolist() + (2 + u(-1e-3, 1e-3, 20)).tolist() + _bits(g, 40)
    x += u(-190, -20, 30).tolist() + [float(k) for k in range(-5, 30)]
    x += [171.62, 171.63, 0.4, 1.4, 2.5, 8.0, 7.999999999, -0.5, -1.5, -2.4570247382208,
          -1e-21, -1e-19, -171.5, -180.5, -190.5, 1e17, 1e18, 2.5e305, 1e306, 0.39999999999,
          1.3999999999, 2.4999999999, 1 + 2.0**-52, 1 - 2.0**-53, 2 + 2.0**-51, 2 - 2.0**-52,
          -2.0**-1074, 2.0**-1074, 1e-300, 4.9999999999, -0.9999999999, -1.0000000001]
    return x


# gamma, lgamma: the largest error in ulps of the exact value (`_exact_lgamma`: CPython's own
# are several ulps off, and near lgamma's zeros at 1 and 2 thousands); lgamma of negative
# x in ulps of max(|lgamma|, 1) (absolute near its zeros there, as any reflection's)
GAMMA_BOUNDS = {"gamma": 1.5, "lgamma": 2.5}  # (1.0 and 2.0 measured on lavapipe)


@pytest.mark.parametrize("name", ["gamma", "lgamma"])
def test_float64_gamma_lgamma_agree_with_exact(webgpu_f64: None, name: str) -> None:
    """C's special values (gamma: +-inf at +-0, NaN at the negative integers and -inf;
    lgamma: +inf at its poles and both infinities), the exact value elsewhere."""
    x = np.array(_gamma_inputs(), np.float64)
    out = np.zeros(len(x))
    with simt.using("webgpu"):
        _kernel1(getattr(math, name))[(len(x) + 127) // 128, 128](x, out)
    ref = MATH[name].ref  # C's at the poles (sim's)
    worst, bad = 0.0, []
    for v, d in zip(x.tolist(), out.tolist()):
        special = float(ref(np.float64(v)))
        if not math.isfinite(special) or not math.isfinite(d) or v == 0:
            if not (d == special or (math.isnan(d) and math.isnan(special))):
                bad.append((v, d, special))
            continue
        with decimal.localcontext() as c:
            c.prec = 60
            lg, sign = _exact_lgamma(decimal.Decimal(v))
            want = float(lg) if name == "lgamma" else sign * float(lg.exp())
        if name == "lgamma" and v in (1.0, 2.0):
            want = 0.0  # (the reference is 1e-51 off)
        if want == 0 or not math.isfinite(want):
            if d != want:
                bad.append((v, d, want))
            continue
        unit = math.ulp(max(abs(want), 1.0) if name == "lgamma" and v < 0 else want)
        err = abs(d - want) / unit
        worst = max(worst, err)
        if err > GAMMA_BOUNDS[name]:
            bad.append((v, d, want, err))
    assert not bad, f"{name}: {len(bad)} wrong of {len(x)}, e.g. {bad[:5]}"
    assert worst <= GAMMA_BOUNDS[name], worst
