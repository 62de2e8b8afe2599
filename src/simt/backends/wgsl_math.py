"""Float32 math functions for WGSL where the built-in ones are too inexact.

WGSL only bounds the error of `atan`, `asin`, `log`, `tanh`, ... loosely (`atan2` may be off by
4096 ulp, `log` near 1 by an absolute 2**-21), and software adapters use that freedom: on
lavapipe `tanh(1e-3)` is wrong in its fourth digit. These are the Cephes single-precision
algorithms (range reduction, then a minimax polynomial), good to a few ulp, built on `exp`,
`sqrt` and `frexp`, which drivers compute well. `MATH_F32` maps a `math` function name to
(helper name, the helpers it needs first); `HELPERS` holds their WGSL text.
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
    "simt_logparts_f32": """\
fn simt_logparts_f32(x: f32) -> vec2<f32> {
    let fe = frexp(x);
    var m = fe.fract;
    var e = f32(fe.exp);
    if (m < 0.707106781186547f) {
        m = m + m;
        e = e - 1.0f;
    }
    let f = m - 1.0f;
    let z = f * f;
    let y = ((((((((7.0376836292e-2f * f - 1.1514610310e-1f) * f + 1.1676998740e-1f) * f
        - 1.2420140846e-1f) * f + 1.4249322787e-1f) * f - 1.6668057665e-1f) * f
        + 2.0000714765e-1f) * f - 2.4999993993e-1f) * f + 3.3333331174e-1f) * f * z;
    return vec2<f32>(f + (y - 0.5f * z), e);
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

_LOG = ("simt_logspecial_f32", "simt_logparts_f32", "simt_log_f32")
# math function -> (helper, the helpers it needs, emitted first)
MATH_F32: dict[str, tuple[str, tuple[str, ...]]] = {
    "atan": ("simt_atan_f32", ()),
    "atan2": ("simt_atan2_f32", ("simt_atan_f32",)),
    "asin": ("simt_asin_f32", ()),
    "acos": ("simt_acos_f32", ("simt_asin_f32",)),
    "log": ("simt_log_f32", _LOG[:2]),
    "log2": ("simt_log2_f32", _LOG[:2]),
    "log10": ("simt_log10_f32", _LOG[:2]),
    "tanh": ("simt_tanh_f32", ()),
    "sinh": ("simt_sinh_f32", ()),
    "asinh": ("simt_asinh_f32", _LOG),
    "acosh": ("simt_acosh_f32", _LOG),
    "atanh": ("simt_atanh_f32", _LOG),
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
    # not infinite and not NaN: a comparison drivers cannot fold away, unlike `x - x == 0`
    "simt_finite_f32": """\
fn simt_finite_f32(x: f32) -> bool { return abs(x) <= 3.4028234663852886e38f; }""",
    "simt_finite_f64": """\
fn simt_finite_f64(x: f64) -> bool { return abs(x) <= 1.7976931348623157e308lf; }""",
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
