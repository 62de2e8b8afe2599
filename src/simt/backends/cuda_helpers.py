"""The device functions generated CUDA C++ may call, emitted only when used.

NVRTC has no include path, so everything beyond CUDA's built-in device functions is declared
here: Python's floor division and remainder, integer powers, float atomics that CUDA lacks,
print records and the error report. Each entry is `name -> C++ text`; the helpers an entry
calls are read from its text and emitted before it (`clike.CRenderer.helper_order`).
"""

from __future__ import annotations

from .cuda_layout import ERR_FLAG

# (C type, suffix, unsigned C type) of the signed integer types.
_SIGNED = (("int", "i32", "unsigned int"), ("long long", "i64", "unsigned long long"))
_FLOATS = (("float", "f32", "f"), ("double", "f64", ""))


def _int_divmod() -> dict[str, str]:
    out: dict[str, str] = {}
    for t, s, u in _SIGNED:
        # Python floor semantics; x // 0 == x % 0 == 0 (as NumPy); MIN // -1 wraps.
        out[f"simt_floordiv_{s}"] = f"""\
__device__ __forceinline__ {t} simt_floordiv_{s}({t} a, {t} b) {{
    if (b == 0) return 0;
    if (b == -1) return ({t})(({u})0 - ({u})a);
    {t} q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}}"""
        out[f"simt_mod_{s}"] = f"""\
__device__ __forceinline__ {t} simt_mod_{s}({t} a, {t} b) {{
    if (b == 0 || b == -1) return 0;
    {t} r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}}"""
        out[f"simt_pow_{s}"] = f"""\
__device__ __forceinline__ {t} simt_pow_{s}({t} a, {t} b) {{
    if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
    {u} r = 1, x = ({u})a;
    while (b) {{ if (b & 1) r *= x; x *= x; b >>= 1; }}
    return ({t})r;
}}"""
    for t, s in (("unsigned long long", "u64"),):
        out[f"simt_floordiv_{s}"] = (
            f"__device__ __forceinline__ {t} simt_floordiv_{s}({t} a, {t} b) "
            "{ return b == 0 ? 0 : a / b; }"
        )
        out[f"simt_mod_{s}"] = (
            f"__device__ __forceinline__ {t} simt_mod_{s}({t} a, {t} b) "
            "{ return b == 0 ? 0 : a % b; }"
        )
        out[f"simt_pow_{s}"] = (
            f"__device__ __forceinline__ {t} simt_pow_{s}({t} a, {t} b) "
            "{ " + t + " r = 1; while (b) { if (b & 1) r *= a; a *= a; b >>= 1; } return r; }"
        )
    out["simt_floordiv_u32"] = """\
__device__ __forceinline__ unsigned int simt_floordiv_u32(unsigned int a, unsigned int b) {
    return b == 0u ? 0u : a / b;
}"""
    out["simt_mod_u32"] = """\
__device__ __forceinline__ unsigned int simt_mod_u32(unsigned int a, unsigned int b) {
    return b == 0u ? 0u : a % b;
}"""
    out["simt_pow_u32"] = """\
__device__ __forceinline__ unsigned int simt_pow_u32(unsigned int a, unsigned int b) {
    unsigned int r = 1u;
    while (b) { if (b & 1u) r *= a; a *= a; b >>= 1; }
    return r;
}"""
    return out


def _float_divmod() -> dict[str, str]:
    # NumPy's npy_divmod: the remainder takes the divisor's sign, the quotient is snapped to
    # the nearest integer, and division by zero gives what IEEE division gives.
    out: dict[str, str] = {}
    for t, s, f in _FLOATS:
        out[f"simt_mod_{s}"] = f"""\
__device__ __forceinline__ {t} simt_mod_{s}({t} a, {t} b) {{
    {t} m = fmod{f}(a, b);
    if (b == ({t})0) return m;
    if (m != ({t})0) {{ if ((b < ({t})0) != (m < ({t})0)) m += b; }}
    else m = copysign{f}(({t})0, b);
    return m;
}}"""
        out[f"simt_floordiv_{s}"] = f"""\
__device__ __forceinline__ {t} simt_floordiv_{s}({t} a, {t} b) {{
    {t} m = fmod{f}(a, b);
    if (b == ({t})0) return a / b;
    {t} d = (a - m) / b;
    if (m != ({t})0 && ((b < ({t})0) != (m < ({t})0))) d -= ({t})1;
    if (d == ({t})0) return copysign{f}(({t})0, a / b);
    {t} q = floor{f}(d);
    if (d - q > ({t})0.5) q += ({t})1;
    return q;
}}"""
    return out


def _float_atomics() -> dict[str, str]:
    out: dict[str, str] = {}
    for t, s, it, to_i, to_f in (
        ("float", "f32", "int", "__float_as_int", "__int_as_float"),
        ("double", "f64", "unsigned long long", "__double_as_longlong", "__longlong_as_double"),
    ):
        for name, cmp in (("min", "<"), ("max", ">")):
            out[f"simt_atomic_{name}_{s}"] = f"""\
__device__ __forceinline__ {t} simt_atomic_{name}_{s}({t}* p, {t} v) {{
    {it}* q = ({it}*)p;
    {it} old = *q, seen;
    do {{
        seen = old;
        if (!(v {cmp} {to_f}(seen))) break;
        old = atomicCAS(q, seen, ({it}){to_i}(v));
    }} while (old != seen);
    return {to_f}(old);
}}"""
    return out


_TID = """\
__device__ __forceinline__ unsigned long long simt_tid() {
    unsigned long long b = ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y)
        * gridDim.x + blockIdx.x;
    unsigned int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    return b * (blockDim.x * blockDim.y * blockDim.z) + t;
}"""

# The error report: the smallest (thread << 20 | site) wins, so the host names the failing
# thread with the lowest launch-wide id, as `sim` does; the buffer starts as all ones.
# The failure flag (`cuda_layout.ERR_FLAG`): a plain store into mapped host memory that the
# host reads after its synchronisation; the record itself stays in device memory (atomics).
_FLAG = f"""\
__device__ __forceinline__ void simt_flag(unsigned long long* err) {{
    unsigned long long f = err[{ERR_FLAG}];
    if (f != 0ULL && f != ~0ULL) *(volatile unsigned int*)f = 1u;
}}"""

_FAIL = """\
__device__ __noinline__ void simt_fail(unsigned long long* err, unsigned int site) {
    atomicMin(err, (simt_tid() << 20) | site);
    simt_flag(err);
}"""

# A failing array access: reported as `simt_fail` does, and its index and the array's extents
# kept in the record after the error word (`cuda.ERR_RECORD`: lock, key, dimensions, 4
# indices, 4 extents), for the failure with the smallest key, under a spin lock (threads of
# one warp make progress independently from sm_70 on; simt compiles for sm_80 and later).
_FAIL_AT = """\
__device__ __noinline__ void simt_fail_at(unsigned long long* err, unsigned int site, int nd,
        long long i0, long long i1, long long i2, long long i3,
        long long s0, long long s1, long long s2, long long s3) {
    unsigned long long key = (simt_tid() << 20) | site;
    atomicMin(err, key);
    simt_flag(err);
    volatile unsigned long long* rec = err + 1;
    if (key > rec[1]) return;
    while (atomicCAS(err + 1, 0ULL, 1ULL) != 0ULL) { }
    __threadfence();
    if (key < rec[1]) {
        rec[1] = key; rec[2] = (unsigned long long)nd;
        rec[3] = (unsigned long long)i0; rec[4] = (unsigned long long)i1;
        rec[5] = (unsigned long long)i2; rec[6] = (unsigned long long)i3;
        rec[7] = (unsigned long long)s0; rec[8] = (unsigned long long)s1;
        rec[9] = (unsigned long long)s2; rec[10] = (unsigned long long)s3;
    }
    __threadfence();
    atomicExch(err + 1, 0ULL);
}"""

# A print value is stored as two 32-bit words: integers sign- or zero-extended to 64 bits,
# float32 as its bits in the low word, float64 as its bits.
_PUT = """\
__device__ __forceinline__ void simt_put(unsigned int* r, long long x) {
    r[0] = (unsigned int)x; r[1] = (unsigned int)((unsigned long long)x >> 32);
}
__device__ __forceinline__ void simt_put(unsigned int* r, int x) { simt_put(r, (long long)x); }
__device__ __forceinline__ void simt_put(unsigned int* r, unsigned int x) {
    r[0] = x; r[1] = 0u;
}
__device__ __forceinline__ void simt_put(unsigned int* r, unsigned long long x) {
    r[0] = (unsigned int)x; r[1] = (unsigned int)(x >> 32);
}
__device__ __forceinline__ void simt_put(unsigned int* r, bool x) { r[0] = x; r[1] = 0u; }
__device__ __forceinline__ void simt_put(unsigned int* r, float x) {
    r[0] = __float_as_uint(x); r[1] = 0u;
}
__device__ __forceinline__ void simt_put(unsigned int* r, double x) {
    simt_put(r, __double_as_longlong(x));
}"""

# The print buffer: word 0 counts words taken, word 1 counts records dropped for lack of
# room, records follow. One record: thread id (2 words), per-thread sequence number, print id,
# then two words per value; every record of a kernel has the same length.
_RECORD = """\
__device__ __forceinline__ unsigned int* simt_record(unsigned int* buf, unsigned int cap,
                                                     unsigned int size, unsigned int seq,
                                                     unsigned int id) {
    unsigned int at = atomicAdd(buf, size);
    if (at > cap - size || size > cap) { atomicAdd(buf + 1, 1u); return 0; }
    unsigned int* r = buf + 2 + at;
    unsigned long long t = simt_tid();
    r[0] = (unsigned int)t; r[1] = (unsigned int)(t >> 32); r[2] = seq; r[3] = id;
    return r;
}"""

# Math rows of `builtins.MATH` that CUDA has no single function for (overloaded by type).
_MATH = {
    "simt_frexp_mantissa": """\
__device__ __forceinline__ float simt_frexp_mantissa(float x) { int e; return frexpf(x, &e); }
__device__ __forceinline__ double simt_frexp_mantissa(double x) { int e; return frexp(x, &e); }""",
    "simt_frexp_exponent": """\
__device__ __forceinline__ int simt_frexp_exponent(float x) { int e; frexpf(x, &e); return e; }
__device__ __forceinline__ int simt_frexp_exponent(double x) { int e; frexp(x, &e); return e; }""",
    # floor(sqrt(n)) for n >= 0, corrected where the float square root rounded; -1 for n < 0
    "simt_isqrt": """\
template <typename T> __device__ __forceinline__ T simt_isqrt(T n) {
    if (n < 0) return -1;
    T r = (T)sqrt((double)n);
    while (r > 0 && r > n / r) r -= 1;
    while ((r + 1) <= n / (r + 1)) r += 1;
    return r;
}""",
    # Euclid on magnitudes: never negative, gcd(0, 0) == 0 (as math.gcd)
    "simt_gcd": """\
template <typename T> __device__ __forceinline__ T simt_gcd(T a, T b) {
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b != 0) { T t = a % b; a = b; b = t; }
    return a;
}""",
}

# float16 arrays hold the bits in `unsigned short`; PTX converts (no cuda_fp16.h needed)
_HALF = {
    "simt_h2f": """__device__ __forceinline__ float simt_h2f(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}""",
    "simt_f2h": """__device__ __forceinline__ unsigned short simt_f2h(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}""",
}

HELPERS: dict[str, str] = {
    **_MATH,
    **_HALF,
    **_int_divmod(),
    **_float_divmod(),
    **_float_atomics(),
    "simt_tid": _TID,
    "simt_flag": _FLAG,
    "simt_fail": _FAIL,
    "simt_fail_at": _FAIL_AT,
    "simt_put": _PUT,
    "simt_record": _RECORD,
}
