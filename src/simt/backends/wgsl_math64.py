"""Float64 math functions for WGSL, which has none: WGSL's `exp`, `log`, `sin`, ... take 16- and
32-bit floats only (Vulkan's GLSL.std.450), and lavapipe computes them in float32 when given
float64 operands. With the `shader-f64` feature WGSL has float64 `+ - * /`, `sqrt`, `floor`,
`round`, `abs`, comparisons and bit casts; these helpers are written from those alone.

Not from WGSL's float64 `fma`, `frexp` or `ldexp` either: lavapipe's `fma` of float64 is a
multiply and an add (two roundings), its `frexp` of a subnormal is wrong, and NVIDIA's Vulkan
driver did not compile float64 `frexp`/`ldexp` (docs/backends.md). Exponents are read from
and built into the bits; exact products are Dekker's (a Veltkamp split into 26-bit halves,
`simt_twoprod_f64`), exact sums Knuth's two-sum, each intermediate passed through
`simt_exact_f64` so that no driver fuses or reassociates it away. NaN, infinity and sign tests
are made on the bits (drivers may fold `x != x`).

The algorithms (simt's own; the coefficients are computed here, at import, from exact
rational Taylor series and constants evaluated with `decimal`, not taken from a library):

- `exp`, `exp2`, `expm1`: x = k ln 2 + r with |r| <= ln 2 / 2 (ln 2 in two parts, the first
  of 42 bits so that k times it is exact; r kept as a sum of two doubles), e**r - 1 by its
  Taylor series to r**13 (the next term is below 2**-57), scaled by 2**k built from the bits
  in two factors (so that results near overflow and subnormal ones come out right).
- `log`, `log2`, `log10`, `log1p`: x = m 2**e with m in [sqrt(1/2), sqrt(2)) from the bits
  (a subnormal scaled first); log(m) = 2 atanh(s) with s = (m - 1) / (m + 1), the odd series
  2 s + 2 s**3 / 3 + s**5 R(s**2), its first two terms in double-double arithmetic and R
  (Taylor, to s**27) in double: log(m) to about 2**-66 relative, as a sum of two doubles, so
  that e ln 2 + log(m), log2 and log10 round once at the end (`pow` needs the extra bits).
- `pow`: Python's special cases first (as the float32 `simt_pow_f32`), then
  e**(y log|x|) with log|x| and the product y log|x| in double-double, the exponential
  taking the low part in its reduction: one rounding at the end, whatever y's size.
- `cbrt`: a first root from the bits (the biased exponent divided by 3), four Newton steps,
  one last correction by the residual x - y**3 computed exactly (Dekker products).
- `sinh` and `tanh`: their Taylor series near 0 (to x**19 below 1; tanh's, from Bernoulli
  numbers computed here, to x**37 below 0.55), else from `expm1`/`exp` by the identities
  sinh = (E + E / (E + 1)) / 2 with E = e**|x| - 1 and tanh = 1 - 2 / (e**2|x| + 1);
  `cosh` = 1 + E**2 / (2 (E + 1)) near 0, (e**x + e**-x) / 2 above; from 22 on both are
  e**(|x| - ln 2), ln 2 in two parts (no overflow before the result's).
- `asinh`, `acosh`, `atanh`: their logarithmic forms, rewritten so that nothing cancels
  (`log1p` near 0, log(2x) + ... for large x, log(x) + ln 2 beyond 2**28).
- `sin`, `cos`, `tan`: x = k pi/2 + r with |r| <= pi/4, r as a sum of two doubles: below 1e6
  Cody-Waite (pi/2 in four parts, the first three of 33 bits so that k times each is exact,
  each subtraction an exact two-sum); above, Payne-Hanek: the 53-bit significand times a
  224-bit window of 2/pi's bits (a table of 32-bit words computed here from pi by Machin's
  formula in integer arithmetic), in 32-bit limbs, whose two integer bits are k mod 4 and
  whose next 128 bits are the fraction; right for every finite x (Muller's hardest case,
  x mod pi/2 = 4.7e-19, included). Then the Taylor series of sin and cos on r (to r**19),
  cos's 1 - r**2/2 exactly; tan is their quotient in double-double.
- `atan`, `atan2`, `asin`, `acos`: one core, the angle of a point (d, n) with n, d >= 0:
  atan(n / d) (or pi/2 - atan(d / n)) with the quotient t in double-double, then
  atan(t) = atan(c) + atan(u) with c the nearest eighth (atan(k/8) a table in two parts,
  computed here by Euler's series) and u = (t - c) / (1 + t c), |u| <= 1/16, by its Taylor
  series; asin and acos take the point (sqrt(1 - x**2), x), 1 - x**2 exact as a pair
  (Dekker's square) and its root corrected by the residual. atan2 has C's special cases and
  scales both operands by 2**-+600 when the larger is beyond 2**+-500.
- `remainder`: exact, as the float32 one: |x| mod 2|y| by `simt_fmod_f64`, then IEEE's
  rounding of the quotient to even by at most two subtractions.
- `erf`, `erfc`: erf's Taylor series for |x| <= 1 (to x**37, the first product exact), and
  erfc(x) = e**(-x**2) g(x) for x >= 1/2, with x**2 exact as a pair: g(x) = e**(x**2) erfc(x)
  by its Taylor series at 0.75, 1.25, ..., 2.75 below 3 (coefficients from g(a), computed by
  erf's series in 60 digits, and the recurrence that g' = 2 x g - 2/sqrt(pi) gives), by
  erfc's continued fraction (40 terms, evaluated backwards) above; erf = 1 - erfc beyond 1,
  erfc = 1 - erf or 2 - erfc(-x) below 1/2.
- `lgamma`, `gamma`: one core, `simt_lgammadd_f64`, log|gamma(x)| as a sum of two doubles
  and its sign. From 8 on Stirling's series (Bernoulli numbers computed here, to x**-29),
  (x - 1/2) log x - x in double-double; below, lgamma(2 + z) = (1 - gamma) z + sum of
  (-1)**k (zeta(k) - 1) z**k / k for |z| <= 0.6 (zeta(k) - 1 and Euler's constant by the
  Euler-Maclaurin sum in 60 digits; relative accuracy at the zeros 1 and 2), x shifted
  there by the recurrence, the product of the factors in double-double and its log taken
  once; below 0 the reflection gamma(x) gamma(-x) = -pi / (x sin(pi x)), sin(pi d) for the
  exact d = x - round(x) from sin's or cos's Taylor series. `gamma` is e**lgamma with the
  low part (one rounding); poles and infinities are C's (as float32's).
"""

from __future__ import annotations

import decimal
from fractions import Fraction
from math import comb, factorial

_NAN = "bitcast<f64>(0x7ff8000000000000lu)"
_INF = "bitcast<f64>(0x7ff0000000000000lu)"
_X = "simt_exact_f64"  # x, unfused and not reassociated (wgsl_helpers)


def _lit(v: float | Fraction) -> str:
    """The WGSL float64 literal nearest `v`."""
    f = float(v)
    return f"{f!r}lf" if f >= 0 else f"(-{-f!r}lf)"


def _const(expr: str) -> Fraction:
    with decimal.localcontext() as c:
        c.prec = 45
        d = decimal.Decimal
        value = {
            "ln2": d(2).ln(),
            "log2e": 1 / d(2).ln(),
            "log10e": 1 / d(10).ln(),
            "log10_2": d(2).log10(),
        }[expr]
        return Fraction(value)


def _split(v: Fraction, bits: int = 42) -> tuple[str, str]:
    """(hi, lo) literals: hi is `v` rounded to `bits` significant bits (so that hi times an
    integer below 2**(53 - bits) is exact), lo the double nearest v - hi."""
    e = v.numerator.bit_length() - v.denominator.bit_length()
    scale = Fraction(2) ** (bits - 1 - e)
    hi = Fraction(round(v * scale)) / scale
    return _lit(hi), _lit(v - hi)


def _horner(var: str, coeffs: list[Fraction]) -> str:
    """c0 + var * (c1 + var * (...)) as WGSL text."""
    text = _lit(coeffs[-1])
    for c in reversed(coeffs[:-1]):
        text = f"{_lit(c)} + {var} * ({text})"
    return text


LN2_HI, LN2_LO = _split(_const("ln2"))
LN2 = _lit(_const("ln2"))
LN2_DL = _lit(_const("ln2") - Fraction(float(_const("ln2"))))
LOG2E = _lit(_const("log2e"))
IL2_HI, IL2_LO = _split(_const("log2e"), 26)
IL10_HI, IL10_LO = _split(_const("log10e"), 26)
LG2_HI, LG2_LO = _split(_const("log10_2"))
TWO3_HI, TWO3_LO = _split(Fraction(2, 3), 26)
# e**r - 1 - r = r**2 (1/2! + r/3! + ... + r**11/13!)
_EXP_P = _horner("r", [Fraction(1, factorial(n)) for n in range(2, 14)])
# 2 atanh(s) = 2 s + 2 s**3 / 3 + s**5 R(s**2): R(z) = sum of 2 z**j / (2 j + 5), j < 12
_LOG_R = _horner("z", [Fraction(2, 2 * j + 5) for j in range(12)])

HELPERS: dict[str, str] = {
    # Knuth's two-sum: (s, e) with s = a + b rounded and a + b = s + e exactly
    "simt_twosum_f64": f"""\
fn simt_twosum_f64(a: f64, b: f64) -> vec2<f64> {{
    let s = {_X}(a + b);
    let bb = {_X}(s - a);
    return vec2<f64>(s, {_X}(a - {_X}(s - bb)) + {_X}(b - bb));
}}""",
    # Dekker's product: (p, e) with p = a * b rounded and a * b = p + e exactly (no overflow)
    "simt_twoprod_f64": f"""\
fn simt_twoprod_f64(a: f64, b: f64) -> vec2<f64> {{
    let c = {_X}(134217729.0lf * a);
    let ah = {_X}(c - {_X}(c - a));
    let al = {_X}(a - ah);
    let d = {_X}(134217729.0lf * b);
    let bh = {_X}(d - {_X}(d - b));
    let bl = {_X}(b - bh);
    let p = {_X}(a * b);
    let e = {_X}({_X}({_X}(ah * bh - p) + ah * bl) + al * bh) + al * bl;
    return vec2<f64>(p, e);
}}""",
    # v * 2**k for v near 1 and k in [-1080, 1030]: two factors made of the bits, each a
    # normal float64, so that only the last product rounds (to inf, or a subnormal)
    "simt_scale_f64": """\
fn simt_scale_f64(v: f64, k: i32) -> f64 {
    let k1 = k / 2;
    let f1 = bitcast<f64>(u64(k1 + 1023) << 52u);
    let f2 = bitcast<f64>(u64(k - k1 + 1023) << 52u);
    return (v * f1) * f2;
}""",
    # e**(r + rl) - 1 for |r| <= 0.35 and |rl| <= 2**-50 |r|, as r + t (unrounded: the
    # callers add r last)
    "simt_expm1r_f64": f"""\
fn simt_expm1r_f64(r: f64, rl: f64) -> vec2<f64> {{
    let p = {_EXP_P};
    return vec2<f64>(r, {_X}(r * r * p + rl * (1.0lf + r)));
}}""",
    # 1 + s for s = e**r - 1 as r + t: 1 + r exactly as hi + lo, then one rounding
    "simt_exp1s_f64": f"""\
fn simt_exp1s_f64(s: vec2<f64>) -> f64 {{
    let hi = {_X}(1.0lf + s.x);
    return hi + ({_X}(s.x - {_X}(hi - 1.0lf)) + s.y);
}}""",
    # (k, r, rl): x + xl = k ln 2 + r + rl, k = round(x / ln 2), for finite |x| <= 760
    "simt_expk_f64": f"""\
fn simt_expk_f64(x: f64, xl: f64) -> vec3<f64> {{
    let k = round(x * {LOG2E});
    let hi = {_X}(x - k * {LN2_HI});  // exact: k has 11 bits, ln2's first part 42
    let r = simt_twosum_f64(hi, xl - k * {LN2_LO});
    return vec3<f64>(k, r.x, r.y);
}}""",
    # e**(x + xl), for any x (not NaN) and |xl| <= 2**-50 |x|
    "simt_expdd_f64": f"""\
fn simt_expdd_f64(x: f64, xl: f64) -> f64 {{
    if (x > 709.79lf) {{ return {_INF}; }}
    if (x < -745.2lf) {{ return 0.0lf; }}
    let kr = simt_expk_f64(x, xl);
    return simt_scale_f64(simt_exp1s_f64(simt_expm1r_f64(kr.y, kr.z)), i32(kr.x));
}}""",
    "simt_exp_f64": """\
fn simt_exp_f64(x: f64) -> f64 {
    if ((bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) { return x; }
    return simt_expdd_f64(x, 0.0lf);
}""",
    # 2**x: x = k + r exactly, 2**r = e**(r ln 2) with r ln 2 as a sum of two doubles
    "simt_exp2_f64": f"""\
fn simt_exp2_f64(x: f64) -> f64 {{
    if ((bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) {{ return x; }}
    if (x > 1025.0lf) {{ return {_INF}; }}
    if (x < -1080.0lf) {{ return 0.0lf; }}
    let k = round(x);
    let r = {_X}(x - k);
    let t = simt_twoprod_f64(r, {LN2});
    let s = simt_expm1r_f64(t.x, t.y + r * {LN2_DL});
    return simt_scale_f64(simt_exp1s_f64(s), i32(k));
}}""",
    # e**x - 1 = 2**k (1 + s) - 1 = (2**k - 1) + 2**k s, 2**k - 1 exact for |k| <= 53
    "simt_expm1_f64": f"""\
fn simt_expm1_f64(x: f64) -> f64 {{
    if ((bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) {{ return x; }}
    if (x == 0.0lf) {{ return x; }}
    if (x > 709.79lf) {{ return {_INF}; }}
    if (x < -40.0lf) {{ return -1.0lf; }}
    let kr = simt_expk_f64(x, 0.0lf);
    let k = i32(kr.x);
    let s = simt_expm1r_f64(kr.y, kr.z);
    if (k == 0) {{ return s.x + s.y; }}
    if (k > 53 || k < -53) {{ return simt_scale_f64(simt_exp1s_f64(s), k) - 1.0lf; }}
    let two = bitcast<f64>(u64(k + 1023) << 52u);
    let t = simt_twosum_f64(two - 1.0lf, two * s.x);
    return t.x + (t.y + two * s.y);
}}""",
    # log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1], as (hi, lo): 2 atanh(s) with
    # s = f / (2 + f), the series's first two terms in double-double
    "simt_log1pdd_f64": f"""\
fn simt_log1pdd_f64(f: f64) -> vec2<f64> {{
    let u = simt_twosum_f64(2.0lf, f);
    let sh = f / u.x;
    let p = simt_twoprod_f64(sh, u.x);
    let sl = ({_X}({_X}(f - p.x) - p.y) - sh * u.y) / u.x;
    let q = simt_twoprod_f64(sh, sh);
    let zl = q.y + 2.0lf * sh * sl;
    let c = simt_twoprod_f64(q.x, sh);
    let cl = c.y + q.x * sl + zl * sh;
    let d = simt_twoprod_f64(c.x, {TWO3_HI});
    let dl = d.y + c.x * {TWO3_LO} + cl * {TWO3_HI};
    let z = q.x;
    let tail = sh * z * z * ({_LOG_R});
    let a = simt_twosum_f64(2.0lf * sh, d.x);
    let lo = a.y + (2.0lf * sl + (dl + tail));
    let hi = {_X}(a.x + lo);
    return vec2<f64>(hi, {_X}(lo - {_X}(hi - a.x)));
}}""",
    # (e, log(m) as hi + lo) with x = m 2**e, m in [sqrt(1/2), sqrt(2)); x > 0 and finite
    "simt_logparts_f64": """\
fn simt_logparts_f64(x: f64) -> vec3<f64> {
    var y = x;
    var e = -1023;
    if ((bitcast<u64>(x) & 0x7ff0000000000000lu) == 0lu) {  // subnormal: times 2**54
        y = x * 18014398509481984.0lf;
        e = e - 54;
    }
    let b = bitcast<u64>(y);
    e = e + i32(b >> 52u);
    var m = bitcast<f64>((b & 0x000ffffffffffffflu) | 0x3ff0000000000000lu);
    if (m > 1.4142135623730951lf) {
        m = m * 0.5lf;
        e = e + 1;
    }
    let l = simt_log1pdd_f64(m - 1.0lf);
    return vec3<f64>(f64(e), l.x, l.y);
}""",
    # log of 0 (-inf), negatives and NaN (NaN) and +inf; the caller tested the bits (b):
    # b >= 0x7ff0... is +inf, a NaN or negative, b == 0 is +0
    "simt_logspecial_f64": f"""\
fn simt_logspecial_f64(x: f64) -> f64 {{
    let b = bitcast<u64>(x);
    if ((b & 0x7ffffffffffffffflu) == 0lu) {{ return -{_INF}; }}
    if (b == 0x7ff0000000000000lu) {{ return x; }}
    return {_NAN};
}}""",
    # log(x) as hi + lo: e ln 2 (its first part times e exact) + log(m)
    "simt_logdd_f64": f"""\
fn simt_logdd_f64(x: f64) -> vec2<f64> {{
    let p = simt_logparts_f64(x);
    let t = simt_twosum_f64(p.x * {LN2_HI}, p.y);
    let lo = t.y + (p.z + p.x * {LN2_LO});
    let hi = {_X}(t.x + lo);
    return vec2<f64>(hi, {_X}(lo - {_X}(hi - t.x)));
}}""",
    "simt_log_f64": """\
fn simt_log_f64(x: f64) -> f64 {
    let b = bitcast<u64>(x);
    if (b >= 0x7ff0000000000000lu || b == 0lu) { return simt_logspecial_f64(x); }
    return simt_logdd_f64(x).x;
}""",
    "simt_log2_f64": f"""\
fn simt_log2_f64(x: f64) -> f64 {{
    let b = bitcast<u64>(x);
    if (b >= 0x7ff0000000000000lu || b == 0lu) {{ return simt_logspecial_f64(x); }}
    let p = simt_logparts_f64(x);
    let q = simt_twoprod_f64(p.y, {IL2_HI});
    let t = simt_twosum_f64(p.x, q.x);
    return t.x + (t.y + (q.y + (p.y * {IL2_LO} + p.z * {LOG2E})));
}}""",
    "simt_log10_f64": f"""\
fn simt_log10_f64(x: f64) -> f64 {{
    let b = bitcast<u64>(x);
    if (b >= 0x7ff0000000000000lu || b == 0lu) {{ return simt_logspecial_f64(x); }}
    let p = simt_logparts_f64(x);
    let q = simt_twoprod_f64(p.y, {IL10_HI});
    let t = simt_twosum_f64(p.x * {LG2_HI}, q.x);
    let lo = q.y + (p.y * {IL10_LO} + p.z * {_lit(_const("log10e"))} + p.x * {LG2_LO});
    return t.x + (t.y + lo);
}}""",
    # log(1 + x): directly on f = x where 1 + x is in [sqrt(1/2), sqrt(2)); elsewhere
    # log(u) for u = 1 + x rounded, plus its rounding error c over u
    "simt_log1p_f64": f"""\
fn simt_log1p_f64(x: f64) -> f64 {{
    if (x >= -0.2928932188134524lf && x <= 0.41421356237309503lf) {{
        if (abs(x) < 5.551115123125783e-17lf) {{ return x; }}  // 0, subnormals: x
        return simt_log1pdd_f64(x).x;
    }}
    let b = bitcast<u64>(x);
    if (b >= 0x7ff0000000000000lu && b < 0x8000000000000000lu) {{ return x; }}  // inf, NaN
    if (x == -1.0lf) {{ return -{_INF}; }}
    if (!(x > -1.0lf) || b > 0xfff0000000000000lu) {{ return {_NAN}; }}
    let u = simt_twosum_f64(1.0lf, x);
    let p = simt_logparts_f64(u.x);
    let t = simt_twosum_f64(p.x * {LN2_HI}, p.y);
    return t.x + (t.y + (p.z + p.x * {LN2_LO} + u.y / u.x));
}}""",
}


def _bernoulli(n: int) -> list[Fraction]:
    """B_0 .. B_n (B_1 = -1/2), exactly: sum over k <= m of C(m + 1, k) B_k = 0."""
    b = [Fraction(1)]
    for m in range(1, n + 1):
        total = sum((Fraction(comb(m + 1, k)) * b[k] for k in range(m)), Fraction(0))
        b.append(-total / (m + 1))
    return b


# sinh x = x + x z (1/3! + z/5! + ... + z**8/19!), z = x**2
_SINH_P = _horner("z", [Fraction(1, factorial(2 * n + 1)) for n in range(1, 10)])
# tanh x = x + x z (sum over n >= 2 of 2**2n (2**2n - 1) B_2n z**(n-2) / (2n)!), to x**37
_B = _bernoulli(38)
_TANH_P = _horner("z", [Fraction(2 ** (2 * n) * (2 ** (2 * n) - 1)) * _B[2 * n]
                        / factorial(2 * n) for n in range(2, 20)])  # fmt: skip

# float64 pow, cbrt and the hyperbolic functions, from the above
HELPERS.update({
    # Python's pow (the special cases of simt_pow_f32, wgsl_helpers), |a|**b as
    # e**(b log|a|) with log|a| and the product in double-double: b log|a| to about 2**-64
    # relative, so that e**(...) rounds once
    "simt_pow_f64": f"""\
fn simt_pow_f64(a: f64, b: f64) -> f64 {{
    if (b == 0.0lf || a == 1.0lf) {{ return 1.0lf; }}
    let ua = bitcast<u64>(a) & 0x7ffffffffffffffflu;
    let ub = bitcast<u64>(b) & 0x7ffffffffffffffflu;
    if (ua > 0x7ff0000000000000lu || ub > 0x7ff0000000000000lu) {{ return {_NAN}; }}
    if (b == 1.0lf) {{ return a; }}
    let neg = (bitcast<u64>(a) & 0x8000000000000000lu) != 0lu;
    let integral = trunc(b) == b;  // infinities too
    let odd = integral && ub < 0x4340000000000000lu && trunc(b * 0.5lf) != b * 0.5lf;
    var r: f64;
    if (ua == 0lu) {{
        r = select(0.0lf, {_INF}, b < 0.0lf);
    }} else if (ua == 0x7ff0000000000000lu) {{
        r = select(0.0lf, {_INF}, b > 0.0lf);
    }} else if (neg && !integral) {{
        return {_NAN};
    }} else if (ub == 0x7ff0000000000000lu) {{
        if (ua == 0x3ff0000000000000lu) {{ return 1.0lf; }}  // pow(-1, +-inf)
        r = select(0.0lf, {_INF}, (ua > 0x3ff0000000000000lu) == (b > 0.0lf));
    }} else if (b == 2.0lf) {{
        r = a * a;
    }} else {{
        let l = simt_logdd_f64(abs(a));
        let p = simt_twoprod_f64(b, l.x);
        r = simt_expdd_f64(p.x, p.y + b * l.y);
    }}
    return select(r, -r, neg && odd);
}}""",
    # a first cube root from the bits (the exponent divided by 3), four Newton steps, then one
    # correction with the residual a - y**3 in double-double
    "simt_cbrt_f64": f"""\
fn simt_cbrt_f64(x: f64) -> f64 {{
    let ux = bitcast<u64>(x) & 0x7ffffffffffffffflu;
    if (ux == 0lu || ux >= 0x7ff0000000000000lu) {{ return x; }}
    var a = bitcast<f64>(ux);
    var back = 1.0lf;
    // far from 1 (subnormals too): scaled by 2**+-324, the root by 2**+-108, so that the
    // residual's products neither overflow nor underflow
    if (ux < 0x07b0000000000000lu) {{
        a = a * {_lit(Fraction(2) ** 324)};
        back = {_lit(Fraction(2) ** -108)};
    }} else if (ux > 0x7830000000000000lu) {{
        a = a * {_lit(Fraction(2) ** -324)};
        back = {_lit(Fraction(2) ** 108)};
    }}
    var y = bitcast<f64>(bitcast<u64>(a) / 3lu + 0x2aa0000000000000lu);
    y = (2.0lf * y + a / (y * y)) * {_lit(Fraction(1, 3))};
    y = (2.0lf * y + a / (y * y)) * {_lit(Fraction(1, 3))};
    y = (2.0lf * y + a / (y * y)) * {_lit(Fraction(1, 3))};
    y = (2.0lf * y + a / (y * y)) * {_lit(Fraction(1, 3))};
    let y2 = simt_twoprod_f64(y, y);
    let y3 = simt_twoprod_f64(y2.x, y);
    let res = {_X}({_X}(a - y3.x) - y3.y) - y2.y * y;
    y = (y + res / (3.0lf * y2.x)) * back;
    return select(y, -y, x < 0.0lf);
}}""",
    # e**a / 2 for a >= 22 (e**-a is below 2**-63 of it): e**(a - ln 2), ln 2 in two parts
    "simt_exphalf_f64": f"""\
fn simt_exphalf_f64(a: f64) -> f64 {{
    return simt_expdd_f64({_X}(a - {LN2_HI}), -{LN2_LO});
}}""",
    # sinh: its Taylor series (to x**19) below 1, (E + E / (E + 1)) / 2 with E = expm1(|x|)
    # up to 22
    "simt_sinh_f64": f"""\
fn simt_sinh_f64(x: f64) -> f64 {{
    let a = abs(x);
    if (!(a >= 3.725290298461914e-09lf)) {{ return x; }}  // tiny, 0 or NaN: x
    if (a < 1.0lf) {{
        let z = x * x;
        return x + x * z * ({_SINH_P});
    }}
    var r: f64;
    if (a < 22.0lf) {{
        let e = simt_expm1_f64(a);
        r = 0.5lf * (e + e / (e + 1.0lf));
    }} else {{
        r = simt_exphalf_f64(a);
    }}
    return select(r, -r, x < 0.0lf);
}}""",
    # cosh: 1 + E**2 / (2 (E + 1)) near 0, (e + 1 / e) / 2 up to 22
    "simt_cosh_f64": """\
fn simt_cosh_f64(x: f64) -> f64 {
    let a = abs(x);
    if ((bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) { return x; }
    if (a < 0.5lf) {
        let e = simt_expm1_f64(a);
        return 1.0lf + (e * e) / (2.0lf * (e + 1.0lf));
    }
    if (a < 22.0lf) {
        let e = simt_exp_f64(a);
        return 0.5lf * e + 0.5lf / e;
    }
    return simt_exphalf_f64(a);
}""",
    # tanh: its Taylor series (to x**37) below 0.55, 1 - 2 / (e**(2 |x|) + 1) up to 22
    "simt_tanh_f64": f"""\
fn simt_tanh_f64(x: f64) -> f64 {{
    let a = abs(x);
    if (!(a >= 3.725290298461914e-09lf)) {{ return x; }}  // tiny, 0 or NaN: x
    if (a < 0.55lf) {{
        let z = x * x;
        return x + x * z * ({_TANH_P});
    }}
    var r = 1.0lf;
    if (a < 22.0lf) {{ r = 1.0lf - 2.0lf / (simt_exp_f64(2.0lf * a) + 1.0lf); }}
    return select(r, -r, x < 0.0lf);
}}""",
    # asinh: log1p(a + a**2 / (1 + sqrt(1 + a**2))) to 2, log(2 a + 1 / (a + sqrt(a**2 + 1)))
    # to 2**28, log(a) + ln 2 above
    "simt_asinh_f64": f"""\
fn simt_asinh_f64(x: f64) -> f64 {{
    let a = abs(x);
    if (!(a >= 3.725290298461914e-09lf) || a == {_INF}) {{ return x; }}  // tiny, 0, NaN, inf
    var r: f64;
    if (a > 268435456.0lf) {{
        let l = simt_logdd_f64(a);
        r = l.x + ({LN2} + l.y);
    }} else if (a > 2.0lf) {{
        r = simt_log_f64(2.0lf * a + 1.0lf / (a + sqrt(a * a + 1.0lf)));
    }} else {{
        let a2 = a * a;
        r = simt_log1p_f64(a + a2 / (1.0lf + sqrt(1.0lf + a2)));
    }}
    return select(r, -r, x < 0.0lf);
}}""",
    # acosh: log1p(t + sqrt(2 t + t**2)) with t = x - 1 to 2, log(2 x - 1 / (x + sqrt(x**2 -
    # 1))) to 2**28, log(x) + ln 2 above
    "simt_acosh_f64": f"""\
fn simt_acosh_f64(x: f64) -> f64 {{
    if (!(x >= 1.0lf)) {{ return {_NAN}; }}  // NaN too
    if (x > 268435456.0lf) {{
        if (x == {_INF}) {{ return x; }}
        let l = simt_logdd_f64(x);
        return l.x + ({LN2} + l.y);
    }}
    if (x > 2.0lf) {{ return simt_log_f64(2.0lf * x - 1.0lf / (x + sqrt(x * x - 1.0lf))); }}
    let t = x - 1.0lf;
    return simt_log1p_f64(t + sqrt(2.0lf * t + t * t));
}}""",
    # atanh: log1p(2 a + 2 a**2 / (1 - a)) / 2 below 1/2, log1p(2 a / (1 - a)) / 2 above
    "simt_atanh_f64": f"""\
fn simt_atanh_f64(x: f64) -> f64 {{
    let a = abs(x);
    if (!(a >= 3.725290298461914e-09lf)) {{ return x; }}  // tiny, 0 or NaN: x
    if (a >= 1.0lf) {{ return select({_NAN}, select({_INF}, -{_INF}, x < 0.0lf), a == 1.0lf); }}
    var r: f64;
    if (a < 0.5lf) {{
        r = 0.5lf * simt_log1p_f64(2.0lf * a + 2.0lf * a * a / (1.0lf - a));
    }} else {{
        r = 0.5lf * simt_log1p_f64(2.0lf * a / (1.0lf - a));
    }}
    return select(r, -r, x < 0.0lf);
}}""",
})  # fmt: skip


def _pi_scaled(bits: int) -> int:
    """floor(pi * 2**bits), from Machin's formula pi = 16 atan(1/5) - 4 atan(1/239) in
    integer fixed point (64 guard bits)."""
    one = 1 << (bits + 64)

    def atan_inv(n: int) -> int:  # atan(1/n) * 2**(bits + 64), by its Taylor series
        total, term, k, n2 = 0, one // n, 1, n * n
        while term:
            total += term // k if (k // 2) % 2 == 0 else -(term // k)
            term //= n2
            k += 2
        return total

    return (16 * atan_inv(5) - 4 * atan_inv(239)) >> 64


_PI_BITS = 1400
_PI = _pi_scaled(_PI_BITS)
# 2/pi's fraction bits as 32-bit words, most significant first: 2/pi = 0.b1 b2 ... and word j
# holds b(32j + 1) .. b(32j + 32); 38 words reach past what the largest float64 needs
_TWO_OVER_PI = (2 << (2 * _PI_BITS)) // _PI  # 2/pi * 2**_PI_BITS
_WORDS = 38
_TWO_OVER_PI_WORDS = [
    (_TWO_OVER_PI >> (_PI_BITS - 32 * (j + 1))) & 0xFFFFFFFF for j in range(_WORDS)
]
PIO2 = Fraction(_PI, 2 << _PI_BITS)


def _parts(v: Fraction, n: int, bits: int) -> list[Fraction]:
    """`v` as n - 1 parts of `bits` significant bits each, then the double nearest the rest."""
    out = []
    for _ in range(n - 1):
        e = v.numerator.bit_length() - v.denominator.bit_length()
        scale = Fraction(2) ** (bits - 1 - e)
        hi = Fraction(int(v * scale)) / scale  # truncated: the rest keeps v's sign
        out.append(hi)
        v -= hi
    out.append(Fraction(float(v)))
    return out


_PIO2_PARTS = [_lit(p) for p in _parts(PIO2, 4, 33)]
PIO2_HI, PIO2_LO = _lit(PIO2), _lit(PIO2 - Fraction(float(PIO2)))
TWO_OVER_PI = _lit(Fraction(2) / (2 * PIO2))
# sin r = r + r z (-1/3! + z/5! - ... + z**8/19!), cos r = 1 - z/2 + z**2 (1/4! - ... + z**7/18!)
_SIN_P = _horner("z", [Fraction((-1) ** n, factorial(2 * n + 1)) for n in range(1, 10)])
_COS_P = _horner("z", [Fraction((-1) ** n, factorial(2 * n)) for n in range(2, 10)])
_TABLE = ", ".join(f"{w}u" for w in _TWO_OVER_PI_WORDS)

# sin, cos, tan: x = k pi/2 + r with |r| <= pi/4 as a sum of two doubles, then Taylor series
HELPERS.update({
    # (r, rl, k mod 4) for finite x: Cody-Waite with pi/2 in four parts below 1e6 (the first
    # three times k exact, each step an exact two-sum), Payne-Hanek above (`simt_pio2big_f64`)
    "simt_pio2_f64": f"""\
fn simt_pio2_f64(x: f64) -> vec3<f64> {{
    if (abs(x) <= 0.7853981633974483lf) {{ return vec3<f64>(x, 0.0lf, 0.0lf); }}
    if (!(abs(x) < 1e6lf)) {{ return simt_pio2big_f64(x); }}
    let k = round(x * {TWO_OVER_PI});
    let t = {_X}(x - k * {_PIO2_PARTS[0]});
    let a = simt_twosum_f64(t, -(k * {_PIO2_PARTS[1]}));
    let b = simt_twosum_f64(a.x, -(k * {_PIO2_PARTS[2]}));
    let lo = (a.y + b.y) - k * {_PIO2_PARTS[3]};
    let r = {_X}(b.x + lo);
    let q = k - 4.0lf * floor(k * 0.25lf);
    return vec3<f64>(r, {_X}(lo - {_X}(r - b.x)), q);
}}""",
    # Payne-Hanek: |x| = M 2**E (M of 53 bits) times 224 bits of 2/pi from the word where the
    # bits that matter start (those worth 4 or more drop out), in 32-bit limbs: the two
    # integer bits of the product are k mod 4, the next 128 its fraction f; f > 1/2 is taken
    # as f - 1 (k + 1), then r = f pi/2 in double-double
    "simt_pio2big_f64": f"""\
fn simt_pio2big_f64(x: f64) -> vec3<f64> {{
    var t = array<u32, {_WORDS}>({_TABLE});
    let b = bitcast<u64>(x);
    let e = i32((b >> 52u) & 0x7fflu) - 1075;
    let m = (b & 0x000ffffffffffffflu) | 0x0010000000000000lu;
    let m0 = m & 0xfffffffflu;
    let m1 = m >> 32u;
    let j0 = max((e - 2) / 32, 0);
    // p = m * (words j0 .. j0 + 6), little-endian 32-bit limbs
    var p: array<u32, 10>;
    var carry = 0lu;
    for (var i = 0; i < 7; i = i + 1) {{
        let w = u64(t[j0 + 6 - i]);
        let lo = w * m0 + (carry & 0xfffffffflu);
        let hi = w * m1 + (carry >> 32u) + (lo >> 32u);
        p[i] = u32(lo & 0xfffffffflu);
        carry = hi;
    }}
    p[7] = u32(carry & 0xfffffffflu);
    p[8] = u32(carry >> 32u);
    p[9] = 0u;
    // the binary point of p: bit sh
    let sh = 224 + 32 * j0 - e;
    var f: array<u32, 5>;  // f[0]: the bits from sh (k), f[1..4]: the fraction, high first
    for (var i = 0; i < 5; i = i + 1) {{
        let pos = sh - 32 * i;
        let limb = pos / 32;
        let off = u32(pos % 32);
        var v = p[limb] >> off;
        if (off != 0u) {{ v = v | (p[limb + 1] << (32u - off)); }}
        f[i] = v;
    }}
    var k = f[0] & 3u;
    var neg = false;
    if ((f[1] & 0x80000000u) != 0u) {{  // f >= 1/2: f - 1, the 128 bits negated
        k = (k + 1u) & 3u;
        neg = true;
        var c = 1u;
        for (var i = 4; i >= 1; i = i - 1) {{
            let v = ~f[i] + c;
            c = select(0u, 1u, c == 1u && v == 0u);
            f[i] = v;
        }}
    }}
    let w3 = f64(f[4]) * {_lit(Fraction(1, 2**128))} + f64(f[3]) * {_lit(Fraction(1, 2**96))};
    let u = simt_twosum_f64(f64(f[2]) * {_lit(Fraction(1, 2**64))}, w3);
    let v = simt_twosum_f64(f64(f[1]) * {_lit(Fraction(1, 2**32))}, u.x);
    let fh = {_X}(v.x + (v.y + u.y));
    let fl = {_X}((v.y + u.y) - {_X}(fh - v.x));
    let pr = simt_twoprod_f64(fh, {PIO2_HI});
    var rh = pr.x;
    var rl = pr.y + (fh * {PIO2_LO} + fl * {PIO2_HI});
    if (neg) {{ rh = -rh; rl = -rl; }}
    var q = f64(k);
    if (x < 0.0lf) {{
        rh = -rh;
        rl = -rl;
        q = f64((4u - k) & 3u);
    }}
    let r = {_X}(rh + rl);
    return vec3<f64>(r, {_X}(rl - {_X}(r - rh)), q);
}}""",
    # sin(r + rl) and cos(r + rl) for |r| <= pi/4 as unrounded pairs (sin: r + a, cos:
    # w + b with w = 1 - r**2/2 rounded): Taylor series, cos's 1 - r**2/2 exactly
    "simt_sincosr_f64": f"""\
fn simt_sincosr_f64(r: f64, rl: f64) -> vec4<f64> {{
    let zz = simt_twoprod_f64(r, r);
    let z = zz.x;
    let a = r * z * ({_SIN_P}) + rl * (1.0lf - 0.5lf * z);
    let hz = 0.5lf * z;
    let w = {_X}(1.0lf - hz);
    let b = ({_X}({_X}(1.0lf - w) - hz) - 0.5lf * zz.y) + (z * z * ({_COS_P}) - r * rl);
    return vec4<f64>(r, {_X}(a), w, {_X}(b));  // (rounded: not fused into the sums)
}}""",
    # sin x and cos x: +-sin r or +-cos r by the quadrant k mod 4
    "simt_sin_f64": f"""\
fn simt_sin_f64(x: f64) -> f64 {{
    if ((bitcast<u64>(x) & 0x7ff0000000000000lu) == 0x7ff0000000000000lu) {{ return {_NAN}; }}
    if (x == 0.0lf) {{ return x; }}
    let r = simt_pio2_f64(x);
    let sc = simt_sincosr_f64(r.x, r.y);
    let q = i32(r.z);
    let v = select(sc.x + sc.y, sc.z + sc.w, (q & 1) == 1);
    return select(v, -v, q >= 2);
}}""",
    "simt_cos_f64": f"""\
fn simt_cos_f64(x: f64) -> f64 {{
    if ((bitcast<u64>(x) & 0x7ff0000000000000lu) == 0x7ff0000000000000lu) {{ return {_NAN}; }}
    let r = simt_pio2_f64(x);
    let sc = simt_sincosr_f64(r.x, r.y);
    let q = i32(r.z);
    let v = select(sc.z + sc.w, sc.x + sc.y, (q & 1) == 1);
    return select(v, -v, q == 1 || q == 2);
}}""",
    # tan = sin / cos (-cos / sin in the odd quadrants), the quotient of the two pairs
    # corrected by its exact residual
    "simt_tan_f64": f"""\
fn simt_tan_f64(x: f64) -> f64 {{
    if ((bitcast<u64>(x) & 0x7ff0000000000000lu) == 0x7ff0000000000000lu) {{ return {_NAN}; }}
    if (x == 0.0lf) {{ return x; }}
    let r = simt_pio2_f64(x);
    let sc = simt_sincosr_f64(r.x, r.y);
    let odd = (i32(r.z) & 1) == 1;
    let n0 = select(sc.x, -sc.z, odd);
    let n1 = select(sc.y, -sc.w, odd);
    let d0 = select(sc.z, sc.x, odd);
    let d1 = select(sc.w, sc.y, odd);
    // the pairs made exact sums of a double and a part below its last bit
    let nh = {_X}(n0 + n1);
    let nl = n1 - {_X}(nh - n0);
    let dh = {_X}(d0 + d1);
    let dl = d1 - {_X}(dh - d0);
    let q = nh / dh;
    let p = simt_twoprod_f64(q, dh);
    return q + ((({_X}(nh - p.x) - p.y) + nl) - q * dl) / dh;
}}""",
})  # fmt: skip


def _atan_exact(x: Fraction, digits: int = 50) -> Fraction:
    """atan(x) for 0 <= x <= 1 by Euler's series: the sum over n of
    2**2n (n!)**2 / (2n + 1)! x**(2n+1) / (1 + x**2)**(n+1), terms at most half the last."""
    with decimal.localcontext() as c:
        c.prec = digits + 10
        d = decimal.Decimal
        xd = d(x.numerator) / d(x.denominator)
        y = xd * xd / (1 + xd * xd)
        term = xd / (1 + xd * xd)
        total = term
        n = 0
        while abs(term) > d(10) ** -(digits + 5):
            n += 1
            term = term * y * (2 * n) / (2 * n + 1)
            total += term
        return Fraction(total)


_ATAN_C = [_atan_exact(Fraction(k, 8)) for k in range(9)]
_ATAN_HI = ", ".join(_lit(v) for v in _ATAN_C)
_ATAN_LO = ", ".join(_lit(v - Fraction(float(v))) for v in _ATAN_C)
# atan u = u + u z (-1/3 + z/5 - ... - z**6/15), z = u**2, |u| <= 1/16
_ATAN_P = _horner("z", [Fraction((-1) ** n, 2 * n + 1) for n in range(1, 8)])
PI_HI, PI_LO = _lit(2 * PIO2), _lit(2 * PIO2 - Fraction(float(2 * PIO2)))

# atan, atan2, asin, acos: one core, the angle of a quotient of two pairs in double-double
HELPERS.update({
    # atan(t + tl) for 0 <= t <= 1, as (hi, lo): atan(c) + atan(u) with c = k/8 the nearest
    # eighth (atan(c) a table in two parts), u = (t - c) / (1 + t c) in double-double,
    # |u| <= 1/16, and atan(u)'s Taylor series to u**15
    "simt_atandd_f64": f"""\
fn simt_atandd_f64(t: f64, tl: f64) -> vec2<f64> {{
    var ah = array<f64, 9>({_ATAN_HI});
    var al = array<f64, 9>({_ATAN_LO});
    let k = i32(round(t * 8.0lf));
    let c = f64(k) * 0.125lf;
    let nh = {_X}(t - c);
    let p = simt_twoprod_f64(t, c);
    let s = simt_twosum_f64(1.0lf, p.x);
    let dl = (s.y + p.y) + tl * c;
    let uh = nh / s.x;
    let q = simt_twoprod_f64(uh, s.x);
    let ul = ((({_X}(nh - q.x) - q.y) + tl) - uh * dl) / s.x;
    let z = uh * uh;
    let v = simt_twosum_f64(ah[k], uh);
    let lo = v.y + (al[k] + (uh * z * ({_ATAN_P}) + ul * (1.0lf - z)));
    let hi = {_X}(v.x + lo);
    return vec2<f64>(hi, {_X}(lo - {_X}(hi - v.x)));
}}""",
    # the angle in [0, pi/2] of (d + dl, n + nl) for n, d >= 0, not both 0, nothing above
    # 2**990 (Dekker's split): atan(n / d), or pi/2 - atan(d / n) where n > d, the quotient
    # in double-double
    "simt_angle_f64": f"""\
fn simt_angle_f64(n: f64, nl: f64, d: f64, dl: f64) -> vec2<f64> {{
    let swap = n > d;
    let a = select(n, d, swap);
    let al = select(nl, dl, swap);
    let b = select(d, n, swap);
    let bl = select(dl, nl, swap);
    let t = a / b;
    let p = simt_twoprod_f64(t, b);
    let tl = ((({_X}(a - p.x) - p.y) + al) - t * bl) / b;
    let r = simt_atandd_f64(t, tl);
    if (!swap) {{ return r; }}
    let s = simt_twosum_f64({PIO2_HI}, -r.x);
    let lo = s.y + ({PIO2_LO} - r.y);
    let hi = {_X}(s.x + lo);
    return vec2<f64>(hi, {_X}(lo - {_X}(hi - s.x)));
}}""",
    "simt_atan_f64": f"""\
fn simt_atan_f64(x: f64) -> f64 {{
    let a = abs(x);
    if (!(a >= 3.725290298461914e-09lf)) {{ return x; }}  // tiny, 0 or NaN: x
    var r = {PIO2_HI};
    if (a < 1.152921504606847e18lf) {{ r = simt_angle_f64(a, 0.0lf, 1.0lf, 0.0lf).x; }}
    return select(r, -r, x < 0.0lf);
}}""",
    # C's atan2 (Python's): signed zeros and infinities by the quadrant; else the angle of
    # (|x|, |y|), both scaled by 2**-+600 first where the larger is above 2**500 or below
    # 2**-500, then pi - it for negative x
    "simt_atan2_f64": f"""\
fn simt_atan2_f64(y: f64, x: f64) -> f64 {{
    let ux = bitcast<u64>(x) & 0x7ffffffffffffffflu;
    let uy = bitcast<u64>(y) & 0x7ffffffffffffffflu;
    if (ux > 0x7ff0000000000000lu || uy > 0x7ff0000000000000lu) {{ return {_NAN}; }}
    let x_neg = (bitcast<u64>(x) & 0x8000000000000000lu) != 0lu;
    let y_neg = (bitcast<u64>(y) & 0x8000000000000000lu) != 0lu;
    var r: f64;
    if (uy == 0lu) {{
        r = select(0.0lf, {PI_HI}, x_neg);
    }} else if (ux == 0lu) {{
        r = {PIO2_HI};
    }} else if (ux == 0x7ff0000000000000lu) {{
        if (uy == 0x7ff0000000000000lu) {{
            r = select({_lit(PIO2 / 2)}, {_lit(3 * PIO2 / 2)}, x_neg);
        }} else {{
            r = select(0.0lf, {PI_HI}, x_neg);
        }}
    }} else if (uy == 0x7ff0000000000000lu) {{
        r = {PIO2_HI};
    }} else {{
        var a = abs(y);
        var b = abs(x);
        let m = max(a, b);
        if (m > {_lit(Fraction(2) ** 500)}) {{
            a = a * {_lit(Fraction(2) ** -600)};
            b = b * {_lit(Fraction(2) ** -600)};
        }} else if (m < {_lit(Fraction(2) ** -500)}) {{
            a = a * {_lit(Fraction(2) ** 600)};
            b = b * {_lit(Fraction(2) ** 600)};
        }}
        let t = simt_angle_f64(a, 0.0lf, b, 0.0lf);
        if (x_neg) {{
            let s = simt_twosum_f64({PI_HI}, -t.x);
            r = s.x + (s.y + ({PI_LO} - t.y));
        }} else {{
            r = t.x;
        }}
    }}
    return select(r, -r, y_neg);
}}""",
    # sqrt(1 - x**2) for |x| <= 1 as (hi, lo): 1 - x**2 exactly as a pair (Dekker's x**2),
    # its square root corrected by the residual
    "simt_cosasin_f64": f"""\
fn simt_cosasin_f64(x: f64) -> vec2<f64> {{
    let p = simt_twoprod_f64(x, x);
    let s = simt_twosum_f64(1.0lf, -p.x);
    let wh = {_X}(s.x + (s.y - p.y));
    let wl = (s.y - p.y) - {_X}(wh - s.x);
    let h = sqrt(wh);
    let q = simt_twoprod_f64(h, h);
    return vec2<f64>(h, ((({_X}(wh - q.x) - q.y) + wl) / (2.0lf * h)));
}}""",
    # asin x = the angle of (sqrt(1 - x**2), |x|), acos x that of (|x|, sqrt(1 - x**2)) (pi
    # less it for negative x); NaN beyond [-1, 1]
    "simt_asin_f64": f"""\
fn simt_asin_f64(x: f64) -> f64 {{
    let a = abs(x);
    if (!(a >= 3.725290298461914e-09lf)) {{ return x; }}  // tiny, 0 or NaN: x
    if (a > 1.0lf) {{ return {_NAN}; }}
    let c = simt_cosasin_f64(a);
    var r = {PIO2_HI};
    if (c.x != 0.0lf) {{ r = simt_angle_f64(a, 0.0lf, c.x, c.y).x; }}
    return select(r, -r, x < 0.0lf);
}}""",
    "simt_acos_f64": f"""\
fn simt_acos_f64(x: f64) -> f64 {{
    let a = abs(x);
    if ((bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) {{ return x; }}
    if (a > 1.0lf) {{ return {_NAN}; }}
    if (a == 1.0lf) {{ return select(0.0lf, {PI_HI}, x < 0.0lf); }}
    if (a < 1e-17lf) {{ return {PIO2_HI}; }}
    let c = simt_cosasin_f64(a);
    let t = simt_angle_f64(c.x, c.y, a, 0.0lf);
    if (x > 0.0lf) {{ return t.x; }}
    let s = simt_twosum_f64({PI_HI}, -t.x);
    return s.x + (s.y + ({PI_LO} - t.y));
}}""",
})  # fmt: skip

# remainder: exact, as the float32 one (wgsl_math.py): |x| mod 2|y| exactly
# (`simt_fmod_f64`, wgsl_helpers), then at most two subtractions of |y| for IEEE's rounding
# of the quotient to nearest, ties to even
HELPERS.update({
    "simt_remainder_f64": f"""\
fn simt_remainder_f64(x: f64, y: f64) -> f64 {{
    let ux = bitcast<u64>(x) & 0x7fffffffffffffffLU;
    let uy = bitcast<u64>(y) & 0x7fffffffffffffffLU;
    if (ux >= 0x7ff0000000000000lu || uy > 0x7ff0000000000000lu || uy == 0lu) {{
        return {_NAN};
    }}
    if (uy == 0x7ff0000000000000lu) {{ return x; }}
    let p = abs(y);
    var r = abs(x);
    if (p <= 8.98846567431158e307lf) {{ r = abs(simt_fmod_f64(r, p + p)); }}
    if (p < 4.450147717014403e-308lf) {{
        if (r + r > p) {{
            r = r - p;
            if (r + r >= p) {{ r = r - p; }}
        }}
    }} else {{
        let h = 0.5lf * p;
        if (r > h) {{
            r = r - p;
            if (r >= h) {{ r = r - p; }}
        }}
    }}
    return select(r, -r, (bitcast<u64>(x) & 0x8000000000000000lu) != 0lu);
}}""".replace("LU", "lu"),
})  # fmt: skip


def _erf_tables() -> tuple[Fraction, Fraction, list[Fraction]]:
    """(2/sqrt(pi), 1/sqrt(pi), the Taylor coefficients of g(x) = e**(x**2) erfc(x) at
    0.75, 1.25, ..., 2.75 to degree 18): g(a) from erf's series in 60 digits, the rest by
    the recurrence g' = 2 x g - 2/sqrt(pi), (k + 1) c[k+1] = 2 a c[k] + 2 c[k-1]."""
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        d = decimal.Decimal
        sqpi = (2 * d(PIO2.numerator) / d(PIO2.denominator)).sqrt()
        table = []
        for j in range(5):
            a = d(3 + 2 * j) / 4
            s, term, n = d(0), a, 0
            while True:
                t = term / (2 * n + 1)
                s += t
                if abs(t) < d(10) ** -58 and n > 5:
                    break
                n += 1
                term = -term * a * a / n
            g0 = (a * a).exp() * (1 - 2 / sqpi * s)
            c = [g0, 2 * a * g0 - 2 / sqpi]
            for k in range(1, 18):
                c.append((2 * a * c[k] + 2 * c[k - 1]) / (k + 1))
            table += c
        return Fraction(2 / sqpi), Fraction(1 / sqpi), [Fraction(v) for v in table]


_TWO_SQPI, _INV_SQPI, _G = _erf_tables()
# erf x = x (2/sqrt(pi) + z Q(z)), z = x**2: Q's coefficients 2/sqrt(pi) (-1)**n / (n! (2n + 1))
_ERF_Q = _horner("z", [_TWO_SQPI * Fraction((-1) ** n, factorial(n) * (2 * n + 1))
                       for n in range(1, 19)])  # fmt: skip
_ERF_C0L = _lit(_TWO_SQPI - Fraction(float(_TWO_SQPI)))
_G_TABLE = ", ".join(_lit(v) for v in _G)

# erf, erfc: erf's Taylor series near 0; erfc = e**(-x**2) g(x) above 1/2
HELPERS.update({
    # erf(x) for |x| <= 1 as (hi, lo): x (2/sqrt(pi) + z Q(z)), its Taylor series to x**37,
    # the first product exact (Dekker)
    "simt_erfsmall_f64": f"""\
fn simt_erfsmall_f64(x: f64) -> vec2<f64> {{
    let z = x * x;
    let p = simt_twoprod_f64(x, {_lit(_TWO_SQPI)});
    let lo = {_X}(p.y + (x * {_ERF_C0L} + x * z * ({_ERF_Q})));
    let hi = {_X}(p.x + lo);
    return vec2<f64>(hi, {_X}(lo - {_X}(hi - p.x)));
}}""",
    # erfc(a) for a >= 0.5: e**(-a**2) g(a), a**2 exact as a pair; g by its Taylor series at
    # the nearest of 0.75, 1.25, ..., 2.75 (to degree 18) below 3, by erfc's continued
    # fraction (40 terms, evaluated backwards) above
    "simt_erfcpos_f64": f"""\
fn simt_erfcpos_f64(a: f64) -> f64 {{
    if (a > 27.3lf) {{ return 0.0lf; }}
    var g: f64;
    if (a < 3.0lf) {{
        var c = array<f64, {len(_G)}>({_G_TABLE});
        let j = min(i32(floor((a - 0.5lf) * 2.0lf)), 4);
        let t = a - (0.75lf + 0.5lf * f64(j));
        g = c[j * 19 + 18];
        for (var k = 17; k >= 0; k = k - 1) {{ g = g * t + c[j * 19 + k]; }}
    }} else {{
        var v = a;
        for (var k = 40; k >= 1; k = k - 1) {{ v = a + (0.5lf * f64(k)) / v; }}
        g = {_lit(_INV_SQPI)} / v;
    }}
    let s = simt_twoprod_f64(a, a);
    return simt_expdd_f64(-s.x, -s.y) * g;
}}""",
    "simt_erf_f64": """\
fn simt_erf_f64(x: f64) -> f64 {
    let a = abs(x);
    if (!(a > 0.0lf)) { return x; }  // 0, NaN
    if (a <= 1.0lf) { return simt_erfsmall_f64(x).x; }
    var r = 1.0lf;
    if (a < 6.0lf) { r = 1.0lf - simt_erfcpos_f64(a); }
    return select(r, -r, x < 0.0lf);
}""",
    "simt_erfc_f64": """\
fn simt_erfc_f64(x: f64) -> f64 {
    if ((bitcast<u64>(x) & 0x7ffffffffffffffflu) > 0x7ff0000000000000lu) { return x; }
    if (x < 0.5lf && x > -1.0lf) {
        let e = simt_erfsmall_f64(x);
        let s = simt_twosum_f64(1.0lf, -e.x);
        return s.x + (s.y - e.y);
    }
    if (x >= 0.5lf) { return simt_erfcpos_f64(x); }
    if (x < -6.0lf) { return 2.0lf; }
    return 2.0lf - simt_erfcpos_f64(-x);
}""",
})  # fmt: skip


def _gamma_tables() -> tuple[Fraction, list[Fraction]]:
    """(Euler's gamma, zeta(k) - 1 for k = 2 .. 40), by the Euler-Maclaurin sum from N = 30
    on (the Bernoulli numbers `_B`), in 60 digits."""
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        d = decimal.Decimal
        n = 30
        bern = [d(b.numerator) / d(b.denominator) for b in _B]
        euler = sum((1 / d(k) for k in range(1, n)), d(0)) - d(n).ln() + 1 / d(2 * n)
        euler += sum((bern[2 * j] / (2 * j * d(n) ** (2 * j)) for j in range(1, 16)), d(0))
        zetas = []
        for k in range(2, 41):
            z = sum((d(m) ** -k for m in range(2, n)), d(0))
            z += d(n) ** (1 - k) / (k - 1) + d(n) ** -k / 2
            rising = d(k)  # k (k + 1) ... (k + 2j - 2)
            for j in range(1, 16):
                z += bern[2 * j] / factorial(2 * j) * rising * d(n) ** (-k - 2 * j + 1)
                rising *= (k + 2 * j - 1) * (k + 2 * j)
            zetas.append(Fraction(z))
        return Fraction(euler), zetas


_EULER, _ZETA1 = _gamma_tables()
# lgamma(2 + z) = (1 - gamma) z + sum over k >= 2 of (-1)**k (zeta(k) - 1) z**k / k, |z| <= 0.6
_LG1_HI = _lit(1 - _EULER)
_LG1_LO = _lit(1 - _EULER - Fraction(float(1 - _EULER)))
_LG_P = _horner("z", [Fraction((-1) ** k, k) * _ZETA1[k - 2] for k in range(2, 41)])
# Stirling: lgamma(x) = (x - 1/2) log x - x + log(2 pi) / 2 + sum of B_2k / (2k (2k-1) x**(2k-1))
_ST_P = _horner("z", [_B[2 * k] / (2 * k * (2 * k - 1)) for k in range(1, 16)])


def _pi_logs() -> tuple[Fraction, Fraction]:
    """(log(2 pi) / 2, log(pi)), in 60 digits."""
    with decimal.localcontext() as ctx:
        ctx.prec = 60
        pi = 2 * decimal.Decimal(PIO2.numerator) / decimal.Decimal(PIO2.denominator)
        return Fraction((2 * pi).ln() / 2), Fraction(pi.ln())


_HL2PI, _LNPI = _pi_logs()
PI_HI, PI_LO = _lit(2 * PIO2), _lit(2 * PIO2 - Fraction(float(2 * PIO2)))

# gamma, lgamma: one core, log|gamma(x)| as (hi, lo, sign) (`simt_lgammadd_f64`)
HELPERS.update({
    # (hi, lo) + (c, cl), renormalised
    "simt_ddadd_f64": f"""\
fn simt_ddadd_f64(a: vec2<f64>, b: vec2<f64>) -> vec2<f64> {{
    let s = simt_twosum_f64(a.x, b.x);
    let lo = s.y + (a.y + b.y);
    let hi = {_X}(s.x + lo);
    return vec2<f64>(hi, {_X}(lo - {_X}(hi - s.x)));
}}""",
    # log|gamma(x)| as (hi, lo) for finite x > 0: lgamma(2 + z) by its series in zeta(k) - 1
    # for |z| <= 0.6 (x in [0.4, 8) shifted there by the recurrence, the product of the
    # factors in double-double and its log taken once), Stirling's series from 8 on
    "simt_lgpos_f64": f"""\
fn simt_lgpos_f64(x: f64) -> vec2<f64> {{
    if (x >= 8.0lf) {{
        let l = simt_logdd_f64(x);
        if (x > 1e17lf) {{  // x (log x - 1): the rest is below 2**-60 of it
            let t = simt_twosum_f64(l.x, -1.0lf);
            return vec2<f64>(x * (t.x + (t.y + l.y)), 0.0lf);
        }}
        let a = x - 0.5lf;  // exact
        let m = simt_twoprod_f64(a, l.x);
        let w = 1.0lf / x;
        let z = w * w;
        let s = simt_twosum_f64(m.x, -x);
        let c = simt_twosum_f64(s.x, {_lit(_HL2PI)});
        let st = {_lit(_HL2PI - Fraction(float(_HL2PI)))} + w * ({_ST_P});
        let lo = c.y + (s.y + (m.y + a * l.y) + st);
        let hi = {_X}(c.x + lo);
        return vec2<f64>(hi, {_X}(lo - {_X}(hi - c.x)));
    }}
    var z = x - 2.0lf;
    var f = vec2<f64>(0.0lf, 0.0lf);  // log of the recurrence's factor, added
    if (x < 0.4lf) {{  // lgamma(x) = lgamma(x + 2) - log x - log(1 + x)
        z = x;
        f = simt_ddadd_f64(simt_logdd_f64(x), simt_log1pdd_f64(x));
        f = -f;
    }} else if (x < 1.4lf) {{  // lgamma(x) = lgamma(x + 1) - log x
        z = x - 1.0lf;
        f = -simt_logdd_f64(x);
    }} else if (x >= 2.5lf) {{  // lgamma(x) = lgamma(x - n) + log((x - 1) ... (x - n))
        let n = floor(x - 1.5lf);
        var p = vec2<f64>(x - 1.0lf, 0.0lf);
        for (var k = 2; k <= i32(n); k = k + 1) {{
            let xk = x - f64(k);  // exact
            let q = simt_twoprod_f64(p.x, xk);
            let lo = q.y + p.y * xk;
            let hi = {_X}(q.x + lo);
            p = vec2<f64>(hi, {_X}(lo - {_X}(hi - q.x)));
        }}
        z = x - 1.0lf - n;
        z = z - 1.0lf;
        f = simt_ddadd_f64(simt_logdd_f64(p.x), vec2<f64>(p.y / p.x, 0.0lf));
    }}
    let t = simt_twoprod_f64(z, {_LG1_HI});
    let r = vec2<f64>(t.x, t.y + (z * {_LG1_LO} + z * z * ({_LG_P})));
    return simt_ddadd_f64(r, f);
}}""",
    # (hi, lo, sign) of log|gamma(x)| for finite x, not 0 or a negative integer; below 0 by
    # the reflection gamma(x) gamma(-x) = -pi / (x sin(pi x)), sin(pi d) (d = x - round(x),
    # exact) from the Taylor series of sin and cos
    "simt_lgammadd_f64": f"""\
fn simt_lgammadd_f64(x: f64) -> vec3<f64> {{
    if (x > 0.0lf) {{
        let l = simt_lgpos_f64(x);
        return vec3<f64>(l.x, l.y, 1.0lf);
    }}
    let k = round(x);
    let d = x - k;
    let sg = select(1.0lf, -1.0lf, (d < 0.0lf) != (k - 2.0lf * floor(k * 0.5lf) != 0.0lf));
    if (x > -1e-20lf) {{
        let l = simt_logdd_f64(-x);
        return vec3<f64>(-l.x, -l.y, -1.0lf);
    }}
    let a = abs(d);
    var s: f64;
    var sl: f64;
    if (a <= 0.25lf) {{
        let r = simt_twoprod_f64(a, {PI_HI});
        let sc = simt_sincosr_f64(r.x, r.y + a * {PI_LO});
        s = {_X}(sc.x + sc.y);
        sl = {_X}(sc.y - {_X}(s - sc.x));
    }} else {{
        let b = 0.5lf - a;  // exact
        let r = simt_twoprod_f64(b, {PI_HI});
        let sc = simt_sincosr_f64(r.x, r.y + b * {PI_LO});
        s = {_X}(sc.z + sc.w);
        sl = {_X}(sc.w - {_X}(s - sc.z));
    }}
    // log pi - log|x| - log(s + sl) - lgamma(-x)
    let lx = simt_logdd_f64(-x);
    let ls = simt_logdd_f64(s);
    var v = simt_ddadd_f64(lx, vec2<f64>(ls.x, ls.y + sl / s));
    v = simt_ddadd_f64(v, simt_lgpos_f64(-x));
    v = simt_ddadd_f64(vec2<f64>({_lit(_LNPI)}, {_lit(_LNPI - Fraction(float(_LNPI)))}), -v);
    return vec3<f64>(v.x, v.y, sg);
}}""",
    # C's lgamma: +inf at the poles (0, the negative integers) and at +-inf
    "simt_lgamma_f64": f"""\
fn simt_lgamma_f64(x: f64) -> f64 {{
    let b = bitcast<u64>(x) & 0x7ffffffffffffffflu;
    if (b > 0x7ff0000000000000lu) {{ return x; }}
    if (b == 0x7ff0000000000000lu || (x <= 0.0lf && floor(x) == x)) {{ return {_INF}; }}
    return simt_lgammadd_f64(x).x;
}}""",
    # C's tgamma: +-inf at +-0, NaN at the negative integers and -inf; e**lgamma with its
    # low part, so that one rounding (the exponential's) decides
    "simt_gamma_f64": f"""\
fn simt_gamma_f64(x: f64) -> f64 {{
    let b = bitcast<u64>(x) & 0x7ffffffffffffffflu;
    if (b >= 0x7ff0000000000000lu) {{  // NaN, +inf: x; -inf: NaN
        return select({_NAN}, x, x > 0.0lf || b > 0x7ff0000000000000lu);
    }}
    if (x == 0.0lf) {{ return 1.0lf / x; }}
    if (x < 0.0lf && floor(x) == x) {{ return {_NAN}; }}
    if (x > 171.7lf) {{ return {_INF}; }}
    let l = simt_lgammadd_f64(x);
    return l.z * simt_expdd_f64(l.x, l.y);
}}""",
})  # fmt: skip
