"""Float32 math functions for WGSL where WGSL has none or the built-in ones are too inexact.

WGSL only bounds the error of `atan`, `asin`, `log`, `tanh`, ... loosely (`atan2` may be off by
4096 ulp, `log` near 1 by an absolute 2**-21), and software adapters use that freedom: on
lavapipe `tanh(1e-3)` is wrong in its fourth digit. WGSL has no `erf`, `erfc`, `expm1`,
`log1p`, `gamma`, `lgamma`, `remainder`, `isinf` or `isfinite` at all.

The helpers follow the Cephes single-precision algorithms' shape (range reduction, then a
polynomial on a short interval), good to a few ulp (docs/semantics.md has the measured
bounds). The `atan`/`asin`/`log`/`tanh`/... coefficients are Cephes's; those of `exp`, `erf`,
`erfc`, `expm1`, `gamma` and `lgamma` are simt's own near-minimax fits (weighted least squares
on Chebyshev nodes against CPython's float64 `math` functions, then float32 Horner). NaN,
infinity and sign tests are made on the bits: drivers may assume finite floats and fold
`x != x` away. A row of `builtins.MATH` names its helper in its `wgsl` spelling; the renderer
emits with each helper the helpers its text calls. `HELPERS` holds the text.
"""

from __future__ import annotations

_PI = "3.14159265358979f"
_PIO2 = "1.5707963267949f"
_NAN = "bitcast<f32>(0x7fc00000u)"
_INF = "bitcast<f32>(0x7f800000u)"

HELPERS: dict[str, str] = {
    "simt_atan_f32": f"""\
fn simt_atan_f32(x: f32) -> f32 {{
    let a = abs(x);
    var y0 = 0.0f;
    var z = a;
    if (a > 2.414213562373095f) {{
        y0 = {_PIO2};
        z = -1.0f / a;
    }} else if (a > 0.4142135623730950f) {{
        y0 = 0.785398163397448f;
        z = (a - 1.0f) / (a + 1.0f);
    }}
    let zz = z * z;
    let p = (((8.05374449538e-2f * zz - 1.38776856032e-1f) * zz + 1.99777106478e-1f) * zz
        - 3.33329491539e-1f) * zz * z + z;
    let r = y0 + p;
    return select(r, -r, x < 0.0f);
}}""",
    "simt_atan2_f32": f"""\
fn simt_atan2_f32(y: f32, x: f32) -> f32 {{
    if (x != x || y != y) {{ return x + y; }}
    let x_neg = (bitcast<u32>(x) & 0x80000000u) != 0u;
    let y_neg = (bitcast<u32>(y) & 0x80000000u) != 0u;
    var r: f32;
    if (y == 0.0f) {{
        r = select(0.0f, {_PI}, x_neg);
    }} else if (x == 0.0f) {{
        r = {_PIO2};
    }} else if (abs(x) == {_INF}) {{
        if (abs(y) == {_INF}) {{
            r = select(0.785398163397448f, 2.35619449019234f, x_neg);
        }} else {{
            r = select(0.0f, {_PI}, x_neg);
        }}
    }} else if (abs(y) == {_INF}) {{
        r = {_PIO2};
    }} else {{
        r = simt_atan_f32(abs(y / x));
        if (x_neg) {{ r = {_PI} - r; }}
    }}
    return select(r, -r, y_neg);
}}""",
    "simt_asin_f32": f"""\
fn simt_asin_f32(x: f32) -> f32 {{
    let a = abs(x);
    if (a > 1.0f) {{ return {_NAN}; }}
    let big = a > 0.5f;
    var z = a * a;
    var s = a;
    if (big) {{
        z = 0.5f * (1.0f - a);
        s = sqrt(z);
    }}
    let p = ((((4.2163199048e-2f * z + 2.4181311049e-2f) * z + 4.5470025998e-2f) * z
        + 7.4953002686e-2f) * z + 1.6666752422e-1f) * z * s + s;
    let r = select(p, {_PIO2} - 2.0f * p, big);
    return select(r, -r, x < 0.0f);
}}""",
    "simt_acos_f32": f"""\
fn simt_acos_f32(x: f32) -> f32 {{
    if (x < -0.5f) {{ return {_PI} - 2.0f * simt_asin_f32(sqrt(0.5f * (1.0f + x))); }}
    if (x > 0.5f) {{ return 2.0f * simt_asin_f32(sqrt(0.5f * (1.0f - x))); }}
    return {_PIO2} - simt_asin_f32(x);
}}""",
    # ln(m) - the parts of log(x) = ln(m) + e ln 2 with x = m 2**e, m in [sqrt(1/2), sqrt(2)):
    # returns (ln(m), e); x must be positive and finite.
    # log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]
    "simt_log1pm_f32": """\
fn simt_log1pm_f32(f: f32) -> f32 {
    let z = f * f;
    let y = ((((((((7.0376836292e-2f * f - 1.1514610310e-1f) * f + 1.1676998740e-1f) * f
        - 1.2420140846e-1f) * f + 1.4249322787e-1f) * f - 1.6668057665e-1f) * f
        + 2.0000714765e-1f) * f - 2.4999993993e-1f) * f + 3.3333331174e-1f) * f * z;
    return f + (y - 0.5f * z);
}""",
    "simt_logparts_f32": """\
fn simt_logparts_f32(x: f32) -> vec2<f32> {
    // lavapipe's frexp of a subnormal is wrong: one is scaled by 2**23 first
    let tiny = x < 1.17549435e-38f;
    let fe = frexp(select(x, x * 8388608.0f, tiny));
    var m = fe.fract;
    var e = f32(fe.exp) - select(0.0f, 23.0f, tiny);
    if (m < 0.707106781186547f) {
        m = m + m;
        e = e - 1.0f;
    }
    return vec2<f32>(simt_log1pm_f32(m - 1.0f), e);
}""",
    "simt_logspecial_f32": f"""\
fn simt_logspecial_f32(x: f32) -> f32 {{
    // log of 0, negatives, NaN and +inf
    if (x == 0.0f) {{ return -{_INF}; }}
    if (x == {_INF}) {{ return x; }}
    return {_NAN};
}}""",
    "simt_log_f32": f"""\
fn simt_log_f32(x: f32) -> f32 {{
    if (!(x > 0.0f) || x == {_INF}) {{ return simt_logspecial_f32(x); }}
    let p = simt_logparts_f32(x);
    // e ln 2 in two parts, so that the large one is exact
    return (p.x - 2.12194440e-4f * p.y) + 0.693359375f * p.y;
}}""",
    "simt_log2_f32": f"""\
fn simt_log2_f32(x: f32) -> f32 {{
    if (!(x > 0.0f) || x == {_INF}) {{ return simt_logspecial_f32(x); }}
    let p = simt_logparts_f32(x);
    return p.x * 1.44269504088896f + p.y;
}}""",
    "simt_log10_f32": f"""\
fn simt_log10_f32(x: f32) -> f32 {{
    if (!(x > 0.0f) || x == {_INF}) {{ return simt_logspecial_f32(x); }}
    let p = simt_logparts_f32(x);
    return p.x * 0.434294481903252f + p.y * 0.301029995663981f;
}}""",
    "simt_tanh_f32": """\
fn simt_tanh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a >= 0.625f) {
        let r = select(1.0f - 2.0f / (exp(2.0f * a) + 1.0f), 1.0f, a > 9.0f);
        return select(r, -r, x < 0.0f);
    }
    let z = x * x;
    return ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z
        + 1.33314422036e-1f) * z - 3.33332819422e-1f) * z * x + x;
}""",
    "simt_sinh_f32": """\
fn simt_sinh_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a > 1.0f) {
        let e = exp(min(a, 89.0f) * 0.5f);
        let r = (0.5f * e) * e - 0.5f / (e * e);
        return select(r, -r, x < 0.0f);
    }
    let z = x * x;
    return ((2.03721912945e-4f * z + 8.33028376239e-3f) * z + 1.66667160211e-1f) * z * x + x;
}""",
    "simt_asinh_f32": """\
fn simt_asinh_f32(x: f32) -> f32 {
    let a = abs(x);
    var r: f32;
    if (a < 0.5f) {
        let z = x * x;
        return (((2.0122003309e-2f * z - 4.2699340972e-2f) * z + 7.4847586088e-2f) * z
            - 1.6666288134e-1f) * z * x + x;
    } else if (a > 1500.0f) {
        r = simt_log_f32(a) + 0.693147180559945f;
    } else {
        r = simt_log_f32(a + sqrt(a * a + 1.0f));
    }
    return select(r, -r, x < 0.0f);
}""",
    "simt_acosh_f32": f"""\
fn simt_acosh_f32(x: f32) -> f32 {{
    if (!(x >= 1.0f)) {{ return {_NAN}; }}
    if (x > 1500.0f) {{ return simt_log_f32(x) + 0.693147180559945f; }}
    let z = x - 1.0f;
    if (z < 0.5f) {{
        return ((((1.7596881071e-3f * z - 7.5272886713e-3f) * z + 2.6454905019e-2f) * z
            - 1.1784741703e-1f) * z + 1.4142135263f) * sqrt(z);
    }}
    return simt_log_f32(x + sqrt(z * (x + 1.0f)));
}}""",
    "simt_atanh_f32": f"""\
fn simt_atanh_f32(x: f32) -> f32 {{
    let a = abs(x);
    if (a >= 1.0f) {{ return select({_NAN}, select({_INF}, -{_INF}, x < 0.0f), a == 1.0f); }}
    if (a < 0.5f) {{
        let z = x * x;
        return ((((1.81740078349e-1f * z + 8.24370301058e-2f) * z + 1.46691431730e-1f) * z
            + 1.99782164500e-1f) * z + 3.33337300303e-1f) * z * x + x;
    }}
    return 0.5f * simt_log_f32((1.0f + x) / (1.0f - x));
}}""",
}


def _int_math() -> dict[str, str]:
    """`math.isqrt` and `math.gcd` on each WGSL integer type (no generics in WGSL)."""
    out: dict[str, str] = {}
    for t, k in (("i32", "i"), ("u32", "u"), ("i64", "li")):
        neg = f"    if (n < 0{k}) {{ return -1{k}; }}\n" if t != "u32" else ""
        mag = "select(a, -a, a < 0{k})" if t != "u32" else "a"
        # floor(sqrt(n)), corrected where the float32 square root rounded; -1 for n < 0
        out[f"simt_isqrt_{t}"] = f"""\
fn simt_isqrt_{t}(n: {t}) -> {t} {{
{neg}    var r = {t}(sqrt(f32(n)));
    while (r > 0{k} && r > n / r) {{ r = r - 1{k}; }}
    while (r + 1{k} <= n / (r + 1{k})) {{ r = r + 1{k}; }}
    return r;
}}"""
        out[f"simt_gcd_{t}"] = f"""\
fn simt_gcd_{t}(a0: {t}, b0: {t}) -> {t} {{
    var a = {mag.replace("a", "a0").replace("{k}", k)};
    var b = {mag.replace("a", "b0").replace("{k}", k)};
    while (b != 0{k}) {{ let r = a % b; a = b; b = r; }}
    return a;
}}"""
    return out


HELPERS.update(_int_math())
HELPERS.update({
    # not infinite and not NaN, infinite, NaN: bit tests on float32 (nothing a driver that
    # assumes finite floats may fold away); comparisons on float64 (not `x - x == 0`)
    "simt_finite_f32": """\
fn simt_finite_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u; }""",
    "simt_isinf_f32": """\
fn simt_isinf_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }""",
    "simt_isnan_f32": """\
fn simt_isnan_f32(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }""",
    "simt_finite_f64": """\
fn simt_finite_f64(x: f64) -> bool { return abs(x) <= 1.7976931348623157e308lf; }""",
    "simt_isinf_f64": """\
fn simt_isinf_f64(x: f64) -> bool { return abs(x) > 1.7976931348623157e308lf; }""",
    # a cube root from exp2/log2, refined by one Newton step (float32 has no cbrt in WGSL)
    "simt_cbrt_f32": """\
fn simt_cbrt_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a == 0.0f || !(a <= 3.4028234663852886e38f)) { return x; }
    var y = exp2(log2(a) / 3.0f);
    y = (2.0f * y + a / (y * y)) / 3.0f;
    return select(y, -y, x < 0.0f);
}""",
})  # fmt: skip


# The functions WGSL lacks (float32). Polynomials: see the module's doc.
_UNROLLED_GAMMA_STEPS = "\n".join(
    ["    if (y >= 3.0f) { y = y - 1.0f; z = z * y; }"] * 33  # 35.5 down to [2, 3)
)
_UNROLLED_LGAMMA_STEPS = "\n".join(
    ["    if (y >= 2.5f) { y = y - 1.0f; z = z * y; }"] * 6  # 8 down to [1.5, 2.5)
)
HELPERS.update({
    # e**x: x = n ln 2 + r with |r| <= ln 2 / 2 (ln 2 in two parts, n * 0.693359375 exact),
    # e**r = 1 + r + r**2 p(r), scaled by 2**n. Not WGSL's exp: drivers compute it as
    # exp2(x * log2(e)), whose rounding costs |x| ulp.
    "simt_exp_f32": f"""\
fn simt_exp_f32(x: f32) -> f32 {{
    if (simt_isnan_f32(x)) {{ return x; }}
    if (x > 88.72284f) {{ return {_INF}; }}
    if (x < -103.97208f) {{ return 0.0f; }}
    let n = round(x * 1.44269504088896f);
    let r = simt_exact_f32(x - n * 0.693359375f) + n * 2.12194440e-4f;
    let p = (((((1.985650281e-04f * r + 1.393293154e-03f) * r + 8.333362221e-03f) * r
        + 4.166647553e-02f) * r + 1.666666653e-01f) * r + 5.000000010e-01f);
    let e = simt_exact_f32(1.0f + r) + r * r * p;
    // 2**n in two factors: n may be -150 (a subnormal result) or 128
    let h = i32(n) / 2;
    return ldexp(ldexp(e, h), i32(n) - h);
}}""",
    "simt_expm1_f32": """\
fn simt_expm1_f32(x: f32) -> f32 {
    if (x == 0.0f) { return x; }
    if (abs(x) < 0.5f) {
        let p = (((((1.987559214e-04f * x + 1.398199724e-03f) * x + 8.333452288e-03f) * x
            + 4.166579594e-02f) * x + 1.666666546e-01f) * x + 5.000000120e-01f);
        return x + x * x * p;
    }
    return simt_exp_f32(x) - 1.0f;
}""",
    "simt_log1p_f32": """\
fn simt_log1p_f32(x: f32) -> f32 {
    if (x >= -0.2928932f && x <= 0.4142135f) {
        if (x == 0.0f) { return x; }
        return simt_log1pm_f32(x);  // no rounding of 1 + x
    }
    let u = 1.0f + x;
    if (!(u > 0.0f) || simt_isinf_f32(u) || simt_isnan_f32(x)) { return simt_logspecial_f32(u); }
    // log(u), plus the rounding error of u (x - (u - 1), exact) over u
    let p = simt_logparts_f32(u);
    return ((p.x - 2.12194440e-4f * p.y) + 0.693359375f * p.y) + (x - (u - 1.0f)) / u;
}""",
    # exp(-x * x) with x * x's rounding error taken in: x = hi + lo with hi of 12 bits, so
    # hi * hi is exact and x * x = hi * hi + lo * (x + hi)
    "simt_expmx2_f32": """\
fn simt_expmx2_f32(x: f32) -> f32 {
    let hi = bitcast<f32>(bitcast<u32>(x) & 0xfffff000u);
    let lo = x - hi;
    return simt_exp_f32(-(hi * hi)) * simt_exp_f32(-(lo * (x + hi)));
}""",
    # erfc(a) for a >= 0.5: exp(-a**2) p(a - 1.25) below 2, exp(-a**2) / a q(1 / a**2) above
    "simt_erfcpos_f32": """\
fn simt_erfcpos_f32(a: f32) -> f32 {
    if (a < 2.0f) {
        let u = a - 1.25f;
        let p = ((((((((((6.163213134e-05f * u - 1.922529790e-04f) * u + 4.708503361e-04f) * u
            - 1.308945811e-03f) * u + 3.553374577e-03f) * u - 9.085785649e-03f) * u
            + 2.201143939e-02f) * u - 5.021785947e-02f) * u + 1.067955609e-01f) * u
            - 2.088218875e-01f) * u + 3.678229166e-01f);
        return simt_expmx2_f32(a) * p;
    }
    if (a > 10.1f) { return 0.0f; }
    let t = 1.0f / (a * a);
    let q = ((((((((2.961370306e+01f * t - 4.026011239e+01f) * t + 2.518004812e+01f) * t
        - 1.011130747e+01f) * t + 3.234225020e+00f) * t - 1.035956480e+00f) * t
        + 4.225414226e-01f) * t - 2.820865372e-01f) * t + 5.641895424e-01f);
    return simt_expmx2_f32(a) / a * q;
}""",
    # x p(x**2) below 1, 1 - erfc(|x|) above
    "simt_erf_f32": """\
fn simt_erf_f32(x: f32) -> f32 {
    let a = abs(x);
    if (a < 1.0f) {
        let z = x * x;
        return x * ((((((7.853847089e-05f * z - 8.010189305e-04f) * z + 5.188327194e-03f) * z
            - 2.685381168e-02f) * z + 1.128358514e-01f) * z - 3.761262582e-01f) * z
            + 1.128379166e+00f);
    }
    if (simt_isnan_f32(x)) { return x; }
    let r = 1.0f - simt_erfcpos_f32(a);
    return select(r, -r, x < 0.0f);
}""",
    "simt_erfc_f32": """\
fn simt_erfc_f32(x: f32) -> f32 {
    if (simt_isnan_f32(x)) { return x; }
    let a = abs(x);
    if (a < 0.5f) { return 1.0f - simt_erf_f32(x); }
    let r = simt_erfcpos_f32(a);
    return select(r, 2.0f - r, x < 0.0f);
}""",
    # sin(pi x) for finite x: x = n + r exactly, |r| <= 1/2, and the sign of n's parity.
    # Not WGSL's `sin`, whose accuracy is the driver's (NVIDIA's put lgamma near its poles
    # 4.9 ulp off, H100 2026-11-26): Taylor series, of sin(pi r) for |r| <= 1/4 (pi split in
    # two floats) and of cos(pi (1/2 - |r|)) above, both to t**13 with t <= pi/4: within
    # 1.6 ulp (WGSL's `sin` of the rounded pi r on lavapipe: 1.8)
    "simt_sinpi_f32": """\
fn simt_sinpi_f32(x: f32) -> f32 {
    let n = round(x);
    let r = x - n;
    let a = abs(r);
    let u = select(r, 0.5f - a, a > 0.25f);
    let t = 3.14159265358979f * u;
    let t2 = t * t;
    var s: f32;
    if (a > 0.25f) {
        s = 1.0f + t2 * ((((((-1.1470745597729725e-11f * t2 + 2.08767569878681e-09f) * t2
            - 2.755731922398589e-07f) * t2 + 2.48015873015873e-05f) * t2
            - 1.388888888888889e-03f) * t2 + 4.1666666666666664e-02f) * t2 - 0.5f);
        s = select(s, -s, r < 0.0f);
    } else {
        let p = (((((1.6059043836821613e-10f * t2 - 2.505210838544172e-08f) * t2
            + 2.7557319223985893e-06f) * t2 - 1.984126984126984e-04f) * t2
            + 8.333333333333333e-03f) * t2 - 1.6666666666666666e-01f) * t2;
        s = t + (u * -8.742278012618954e-08f + t * p);
    }
    return select(s, -s, n - 2.0f * floor(n * 0.5f) != 0.0f);
}""",
    # gamma(2 + u) for u in [0, 1]
    "simt_gammapoly_f32": """\
fn simt_gammapoly_f32(u: f32) -> f32 {
    return ((((((((7.977180036e-04f * u - 1.583551053e-03f) * u + 1.034048863e-02f) * u
        + 6.899641732e-05f) * u + 7.416292676e-02f) * u + 8.158969218e-02f) * u
        + 4.118393662e-01f) * u + 4.227843633e-01f) * u + 1.0f);
}""",
    # gamma(x) for finite x > 0: the polynomial on [2, 3), x shifted there by the recurrence
    # gamma(x + 1) = x gamma(x) (written out: no loop, which lavapipe would count)
    "simt_gammapos_f32": f"""\
fn simt_gammapos_f32(x: f32) -> f32 {{
    if (x > 35.5f) {{ return {_INF}; }}
    if (x < 1.0f) {{ return simt_gammapoly_f32(x) / (x * (x + 1.0f)); }}
    if (x < 2.0f) {{ return simt_gammapoly_f32(x - 1.0f) / x; }}
    var y = x;
    var z = 1.0f;
{_UNROLLED_GAMMA_STEPS}
    return simt_gammapoly_f32(y - 2.0f) * z;
}}""",
    # C's tgamma: +-inf at +-0, NaN at negative integers and -inf; reflection below -1
    "simt_gamma_f32": f"""\
fn simt_gamma_f32(x: f32) -> f32 {{
    if (simt_isnan_f32(x) || x == {_INF}) {{ return x; }}
    if (x == 0.0f) {{ return select({_INF}, -{_INF}, (bitcast<u32>(x) & 0x80000000u) != 0u); }}
    if (x > 0.0f) {{ return simt_gammapos_f32(x); }}
    if (x == floor(x)) {{ return {_NAN}; }}
    if (x > -1.0f) {{ return simt_gammapoly_f32(x + 1.0f) / (x * (x + 1.0f) * (x + 2.0f)); }}
    // reflection: gamma(x) gamma(1 - x) = pi / sin(pi x); below -30 with gamma(1 - x) as
    // (-x) (-x - 1) gamma(-x - 1), whose last factor does not overflow
    let y = 1.0f - x;
    if (x > -30.0f) {{ return {_PI} / (simt_sinpi_f32(x) * simt_gammapos_f32(y)); }}
    return {_PI} / (simt_sinpi_f32(x) * (y - 1.0f) * (y - 2.0f)) / simt_gammapos_f32(y - 2.0f);
}}""",
    # lgamma(1 + v) / v and lgamma(2 + u) / u for u, v in [-1/2, 1/2]: no cancellation at the
    # zeros of lgamma (1 and 2)
    "simt_lgammar_f32": """\
fn simt_lgammar_f32(v: f32) -> f32 {
    return ((((((((((((-1.578467792e-01f * v + 1.799357286e-01f) * v - 6.544920520e-02f) * v
        + 6.517773852e-02f) * v - 1.145491286e-01f) * v + 1.311273211e-01f) * v
        - 1.439193141e-01f) * v + 1.691311898e-01f) * v - 2.073823603e-01f) * v
        + 2.705944219e-01f) * v - 4.006858667e-01f) * v + 8.224669106e-01f) * v
        - 5.772156637e-01f);
}""",
    "simt_lgammaq_f32": """\
fn simt_lgammaq_f32(u: f32) -> f32 {
    return (((((((((1.223609408e-04f * u - 2.536190959e-04f) * u + 5.015184597e-04f) * u
        - 1.185959074e-03f) * u + 2.891732355e-03f) * u - 7.386158672e-03f) * u
        + 2.058073442e-02f) * u - 6.735228225e-02f) * u + 3.224670347e-01f) * u
        + 4.227843350e-01f);
}""",
    # lgamma(x) for finite x > 0; Stirling's series from 8 on
    "simt_lgammapos_f32": f"""\
fn simt_lgammapos_f32(x: f32) -> f32 {{
    if (x < 0.5f) {{ return x * simt_lgammar_f32(x) - simt_log_f32(x); }}
    if (x < 1.5f) {{ let v = x - 1.0f; return v * simt_lgammar_f32(v); }}
    if (x < 8.0f) {{
        var y = x;
        var z = 1.0f;
{_UNROLLED_LGAMMA_STEPS}
        let u = y - 2.0f;
        return simt_log_f32(z) + u * simt_lgammaq_f32(u);
    }}
    let t = 1.0f / x;
    let t2 = t * t;
    let c = t * (8.333333333e-02f - t2 * (2.777777778e-03f - t2 * 7.936507937e-04f));
    return (x - 0.5f) * (simt_log_f32(x) - 1.0f) + (4.189385332e-01f + c);
}}""",
    # C's lgamma: +inf at the poles (0 and negative integers) and at +-inf
    "simt_lgamma_f32": f"""\
fn simt_lgamma_f32(x: f32) -> f32 {{
    if (simt_isnan_f32(x)) {{ return x; }}
    if (simt_isinf_f32(x)) {{ return {_INF}; }}
    if (x > 0.0f) {{ return simt_lgammapos_f32(x); }}
    if (x == floor(x)) {{ return {_INF}; }}
    if (x > -0.5f) {{ return x * simt_lgammar_f32(x) - simt_log_f32(-x); }}
    // reflection: gamma(x) gamma(1 - x) = pi / sin(pi x)
    return simt_log_f32({_PI} / abs(simt_sinpi_f32(x))) - simt_lgammapos_f32(1.0f - x);
}}""",
    # IEEE remainder: x - n y with n = x / y rounded to nearest, ties to even (fdlibm's way:
    # |x| mod 2|y| exactly, then at most two subtractions of |y|)
    "simt_remainder_f32": f"""\
fn simt_remainder_f32(x: f32, y: f32) -> f32 {{
    if (simt_isnan_f32(x) || simt_isnan_f32(y) || simt_isinf_f32(x) || y == 0.0f) {{
        return {_NAN};
    }}
    if (simt_isinf_f32(y)) {{ return x; }}
    let p = abs(y);
    var r = abs(x);
    if (p <= 1.7014117e38f) {{ r = abs(simt_fmod_f32(r, p + p)); }}
    if (p < 2.3509887e-38f) {{
        if (r + r > p) {{
            r = r - p;
            if (r + r >= p) {{ r = r - p; }}
        }}
    }} else {{
        let h = 0.5f * p;
        if (r > h) {{
            r = r - p;
            if (r >= h) {{ r = r - p; }}
        }}
    }}
    return select(r, -r, (bitcast<u32>(x) & 0x80000000u) != 0u);
}}""",
})  # fmt: skip
