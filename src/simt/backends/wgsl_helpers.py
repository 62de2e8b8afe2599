"""The WGSL functions generated shaders may call, emitted only when used.

WGSL has Python's semantics for none of `//`, `%` and `**`, and its integer division by zero
returns the dividend (Vulkan) or 0 (OpenGL) depending on the driver, so each lives here as a
small function: Python floor division and remainder (`x // 0 == x % 0 == 0`, as NumPy), integer
powers by repeated squaring, and float powers with Python's and C's special cases (a negative
base with an integral exponent, zeros, infinities). `helper(name)` returns a helper's text;
names are `simt_<op>_<type>`.
"""

from __future__ import annotations

from .wgsl_math import HELPERS as MATH_HELPERS
from .wgsl_math64 import HELPERS as MATH64_HELPERS

# (WGSL type, literal suffix) of the integer types the helpers are written for.
_SIGNED = {"i32": "i", "i64": "li"}  # unsigned: u32 "u" and u64 "lu" (`_unsigned`)
_FLOATS = {"f32": "f", "f64": "lf"}


def _signed(t: str, s: str) -> dict[str, str]:
    return {
        f"simt_floordiv_{t}": f"""\
fn simt_floordiv_{t}(a: {t}, b: {t}) -> {t} {{
    if (b == 0{s}) {{ return 0{s}; }}
    if (b == -1{s}) {{ return 0{s} - a; }}  // MIN // -1 wraps, as int arithmetic does
    let q = a / b;
    // the remainder as a - q * b: OpenGL leaves `%` of negative operands undefined
    if (a - q * b != 0{s} && ((a < 0{s}) != (b < 0{s}))) {{ return q - 1{s}; }}
    return q;
}}""",
        f"simt_mod_{t}": f"""\
fn simt_mod_{t}(a: {t}, b: {t}) -> {t} {{
    if (b == 0{s} || b == -1{s}) {{ return 0{s}; }}
    let r = a - (a / b) * b;
    if (r != 0{s} && ((r < 0{s}) != (b < 0{s}))) {{ return r + b; }}
    return r;
}}""",
        f"simt_pow_{t}": f"""\
fn simt_pow_{t}(a: {t}, b: {t}) -> {t} {{
    if (b < 0{s}) {{
        if (a == 1{s}) {{ return 1{s}; }}
        if (a == -1{s}) {{ return select(1{s}, -1{s}, (b & 1{s}) != 0{s}); }}
        return 0{s};
    }}
    var r = 1{s};
    var x = a;
    var e = b;
    loop {{
        if (e == 0{s}) {{ break; }}
        if ((e & 1{s}) != 0{s}) {{ r = r * x; }}
        x = x * x;
        e = e >> 1u;
    }}
    return r;
}}""",
    }


def _unsigned(t: str, s: str) -> dict[str, str]:
    return {
        f"simt_floordiv_{t}": f"""\
fn simt_floordiv_{t}(a: {t}, b: {t}) -> {t} {{
    if (b == 0{s}) {{ return 0{s}; }}
    return a / b;
}}""",
        f"simt_mod_{t}": f"""\
fn simt_mod_{t}(a: {t}, b: {t}) -> {t} {{
    if (b == 0{s}) {{ return 0{s}; }}
    return a % b;
}}""",
        f"simt_pow_{t}": f"""\
fn simt_pow_{t}(a: {t}, b: {t}) -> {t} {{
    var r = 1{s};
    var x = a;
    var e = b;
    loop {{
        if (e == 0{s}) {{ break; }}
        if ((e & 1{s}) != 0{s}) {{ r = r * x; }}
        x = x * x;
        e = e >> 1u;
    }}
    return r;
}}""",
    }


def _float(t: str, s: str) -> dict[str, str]:
    # NumPy's npy_divmod: the remainder takes the divisor's sign and the quotient is snapped
    # to the nearest integer; division by zero gives what IEEE division gives.
    out = {
        f"simt_mod_{t}": f"""\
fn simt_mod_{t}(a: {t}, b: {t}) -> {t} {{
    var m = simt_fmod_{t}(a, b);
    if (b == 0.0{s}) {{ return m; }}
    if (m != 0.0{s}) {{
        if ((b < 0.0{s}) != (m < 0.0{s})) {{ m = m + b; }}
    }} else {{
        m = select(0.0{s}, -0.0{s}, b < 0.0{s});
    }}
    return m;
}}""",
        f"simt_floordiv_{t}": f"""\
fn simt_floordiv_{t}(a: {t}, b: {t}) -> {t} {{
    if (b == 0.0{s}) {{ return a / b; }}
    let m = simt_fmod_{t}(a, b);
    var d = (a - m) / b;
    if (m != 0.0{s} && ((b < 0.0{s}) != (m < 0.0{s}))) {{ d = d - 1.0{s}; }}
    if (d == 0.0{s}) {{ return select(0.0{s}, -0.0{s}, (a < 0.0{s}) != (b < 0.0{s})); }}
    var q = floor(d);
    if (d - q > 0.5{s}) {{ q = q + 1.0{s}; }}
    return q;
}}""",
    }
    # C's fmod, exact: WGSL's `%` is `a - b * trunc(a / b)`, which loses every digit once
    # |a / b| passes 2**24. Non-finite operands are tested on the bits: drivers may assume
    # finite floats and fold `x != x` away.
    u = "u32" if t == "f32" else "u64"
    inf = "0x7f800000u" if t == "f32" else "0x7ff0000000000000lu"
    nan = "0x7fc00000u" if t == "f32" else "0x7ff8000000000000lu"
    zero = "0u" if t == "f32" else "0lu"
    out[f"simt_fmod_{t}"] = f"""\
fn simt_fmod_{t}(a: {t}, b: {t}) -> {t} {{
    let ea = bitcast<{u}>(a) & {inf};
    let eb = bitcast<{u}>(b) & {inf};
    let nb = (bitcast<{u}>(b) & ~{inf}) != {zero};
    if (b == 0.0{s} || ea == {inf} || (eb == {inf} && nb)) {{ return bitcast<{t}>({nan}); }}
    if (eb == {inf}) {{ return a; }}
    let m = abs(b);
    var r = abs(a);
    loop {{
        if (r < m) {{ break; }}
        // the largest m * 2**k not above r: r - t is exact (t <= r < 2 t)
        var t = ldexp(m, i32(frexp(r).exp) - i32(frexp(m).exp));
        if (t > r) {{ t = t * 0.5{s}; }}
        r = r - t;
    }}
    return select(r, -r, a < 0.0{s});
}}"""
    if t == "f64":
        out["simt_fmod_f64"] = _FMOD_F64
    if t == "f32":
        # Python's (and C's) pow: WGSL's is undefined for a negative base and for a zero base
        # with a non-positive exponent, and gives NaN for pow(1, inf) on drivers that compute
        # it as exp2(y * log2(x)). A negative base with an integral exponent is |x|**y with
        # the sign of an odd exponent; with any other finite exponent, NaN (Python raises).
        # NaN and infinity are tested on the bits (see simt_fmod).
        out["simt_pow_f32"] = """\
fn simt_pow_f32(a: f32, b: f32) -> f32 {
    if (b == 0.0f || a == 1.0f) { return 1.0f; }
    let ua = bitcast<u32>(a) & 0x7fffffffu;
    let ub = bitcast<u32>(b) & 0x7fffffffu;
    if (ua > 0x7f800000u || ub > 0x7f800000u) { return bitcast<f32>(0x7fc00000u); }
    let neg = (bitcast<u32>(a) & 0x80000000u) != 0u;
    let integral = trunc(b) == b;  // infinities too
    let odd = integral && ub < 0x4b800000u && trunc(b * 0.5f) != b * 0.5f;  // |b| < 2**24
    var r: f32;
    if (ua == 0u) {
        r = select(0.0f, bitcast<f32>(0x7f800000u), b < 0.0f);
    } else if (ua == 0x7f800000u) {
        r = select(0.0f, bitcast<f32>(0x7f800000u), b > 0.0f);
    } else if (neg && !integral) {
        return bitcast<f32>(0x7fc00000u);
    } else if (ub == 0x7f800000u) {
        if (ua == 0x3f800000u) { return 1.0f; }  // pow(-1, +-inf)
        r = select(0.0f, bitcast<f32>(0x7f800000u), (ua > 0x3f800000u) == (b > 0.0f));
    } else if (integral && ub < 0x42800000u) {
        // |b| < 64: repeated squaring, a few roundings (WGSL's pow is exp2(b * log2(a)) on
        // drivers, off by up to |b log2(a)| ulp: pow(1e30, 1) was 15 ulp off on lavapipe)
        var n = u32(abs(b));
        var x = abs(a);
        var p = 1.0f;
        if ((n & 1u) != 0u) { p = p * x; }
        x = x * x;
        n = n >> 1u;
        if ((n & 1u) != 0u) { p = p * x; }
        x = x * x;
        n = n >> 1u;
        if ((n & 1u) != 0u) { p = p * x; }
        x = x * x;
        n = n >> 1u;
        if ((n & 1u) != 0u) { p = p * x; }
        x = x * x;
        n = n >> 1u;
        if ((n & 1u) != 0u) { p = p * x; }
        x = x * x;
        n = n >> 1u;
        if ((n & 1u) != 0u) { p = p * x; }
        r = select(p, 1.0f / p, b < 0.0f);
    } else if (ua < 0x00800000u) {  // a subnormal base: lavapipe's log2 of one is wrong
        r = pow(abs(a) * 16777216.0f, b) * pow(5.9604644775390625e-8f, b);
    } else {
        r = pow(abs(a), b);
    }
    return select(r, -r, neg && odd);
}"""
    return out


# C's fmod in float64 without WGSL's frexp and ldexp, which NVIDIA's Vulkan driver failed to
# compile in float64 (every shader with a float64 `%` was "NVVM compilation failed" and a
# lost device on the H100, 2026-11-26; frexp/ldexp of f64 were the only constructs those
# shaders had that the ones it compiled had not: docs/backends.md). t = m * 2**k, the
# largest not above r, has m's significand and r's exponent, or one less: it is made of the
# bits. A subnormal r (and m <= r) is scaled by 2**64 first, and the result back: exact; so
# is one that becomes subnormal in the loop (a subnormal m: `1.4 % 2e-310` was wrong, -1.2e-310).
_FMOD_F64 = """\
fn simt_fmod_f64(a: f64, b: f64) -> f64 {
    let ea = bitcast<u64>(a) & 0x7ff0000000000000lu;
    let eb = bitcast<u64>(b) & 0x7ff0000000000000lu;
    let nb = (bitcast<u64>(b) & ~0x7ff0000000000000lu) != 0lu;
    if (b == 0.0lf || ea == 0x7ff0000000000000lu || (eb == 0x7ff0000000000000lu && nb)) {
        return bitcast<f64>(0x7ff8000000000000lu);
    }
    if (eb == 0x7ff0000000000000lu) { return a; }
    var m = abs(b);
    var r = abs(a);
    var back = 1.0lf;
    if ((bitcast<u64>(r) & 0x7ff0000000000000lu) == 0lu) {
        r = r * 18446744073709551616.0lf;
        m = m * 18446744073709551616.0lf;
        back = 5.421010862427522e-20lf;  // 2**-64
    }
    // m's significand (of m * 2**64 where m is subnormal)
    let m_tiny = (bitcast<u64>(m) & 0x7ff0000000000000lu) == 0lu;
    let mn = select(m, m * 18446744073709551616.0lf, m_tiny);
    let sig = bitcast<u64>(mn) & 0x000ffffffffffffflu;
    loop {
        if (r < m) { break; }
        if ((bitcast<u64>(r) & 0x7ff0000000000000lu) == 0lu && back == 1.0lf) {
            // r became subnormal (m is): both times 2**64, as above
            r = r * 18446744073709551616.0lf;
            m = m * 18446744073709551616.0lf;
            back = 5.421010862427522e-20lf;
        }
        // the largest m * 2**k not above r: r - t is exact (t <= r < 2 t)
        var t = bitcast<f64>((bitcast<u64>(r) & 0x7ff0000000000000lu) | sig);
        if (t > r) { t = t * 0.5lf; }
        r = r - t;
    }
    r = r * back;
    return select(r, -r, a < 0.0lf);
}"""


def _exact(t: str, s: str) -> dict[str, str]:
    # Drivers fuse `a * b + c` into one FMA (one rounding instead of two) and reassociate
    # `(x * 0.1) * 10` into `x` or `100 + (a + b)` into `(100 + a) + b` unless told not to, and
    # WGSL cannot tell them. An xor of the bits with a value only known at run time
    # (`simt_P.zero` is always 0) hides the intermediate result from those rewrites and costs
    # one instruction. (A select on it did not: Mesa moves float ops through selects.)
    u, zero = ("u32", "simt_P.zero") if t == "f32" else ("u64", "u64(simt_P.zero)")
    return {
        f"simt_exact_{t}": f"""\
fn simt_exact_{t}(x: {t}) -> {t} {{
    return bitcast<{t}>(bitcast<{u}>(x) ^ {zero});  // x, unfused
}}"""
    }


# float16 <-> float32 on the bits. WGSL's f16 type needs the `shader-f16` feature, and even
# with it the spec leaves an f32 -> f16 conversion's rounding (either neighbour) and overflow
# (an indeterminate value) to the driver; these give NumPy's answer on every adapter. A
# float16 value is held as the f32 of the same value (f16 is a subset of f32, subnormals
# included), so only the conversion from f32 rounds.
_HALF = {
    "simt_f16_value": """\
fn simt_f16_value(h: u32) -> f32 {
    let sign = (h & 0x8000u) << 16u;
    let e = (h >> 10u) & 0x1fu;
    let m = h & 0x3ffu;
    if (e == 0u) {  // zero or subnormal: m * 2**-24, exact in f32
        return bitcast<f32>(sign | bitcast<u32>(f32(m) * 5.9604644775390625e-8f));
    }
    if (e == 31u) { return bitcast<f32>(sign | 0x7f800000u | (m << 13u)); }  // inf, nan
    return bitcast<f32>(sign | ((e + 112u) << 23u) | (m << 13u));
}""",
    # NumPy's npy_floatbits_to_halfbits: round to nearest even, overflow to inf, small
    # values to subnormals or signed zero, NaN stays NaN.
    "simt_f16_bits": """\
fn simt_f16_bits(x: f32) -> u32 {
    let f = bitcast<u32>(x);
    let sign = (f >> 16u) & 0x8000u;
    let fe = f & 0x7f800000u;
    let fm = f & 0x007fffffu;
    if (fe >= 0x47800000u) {  // overflow, inf or nan
        if (fe == 0x7f800000u && fm != 0u) { return sign | 0x7c00u | max(fm >> 13u, 1u); }
        return sign | 0x7c00u;
    }
    if (fe <= 0x38000000u) {  // a subnormal half, or zero
        if (fe < 0x33000000u) { return sign; }
        let e = fe >> 23u;
        var m = (0x00800000u | fm) >> (113u - e);
        // halves round to even: the bits shifted out (up to 11) are in f's low bits
        if ((m & 0x3fffu) != 0x1000u || (f & 0x7ffu) != 0u) { m = m + 0x1000u; }
        return sign | (m >> 13u);
    }
    var m = fm;
    if ((m & 0x3fffu) != 0x1000u) { m = m + 0x1000u; }
    // a carry out of the significand moves into the exponent (to inf past 65504): right
    return sign | (((fe - 0x38000000u) >> 13u) + (m >> 13u));
}""",
}


HELPERS: dict[str, str] = {**_HALF}
for _t, _s in _SIGNED.items():
    HELPERS.update(_signed(_t, _s))
HELPERS.update(_unsigned("u32", "u"))
HELPERS.update(_unsigned("u64", "lu"))
for _t, _s in _FLOATS.items():
    HELPERS.update(_float(_t, _s))
    HELPERS.update(_exact(_t, _s))


HELPERS.update(MATH_HELPERS)
HELPERS.update(MATH64_HELPERS)


def helper(name: str) -> str:
    """The WGSL text of helper `name` (a KeyError for a name that is not one)."""
    return HELPERS[name]
