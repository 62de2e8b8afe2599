"""float64 math functions: on webgpu simt's own WGSL functions (backends/wgsl_math64.py;
WGSL's take float32 only), elsewhere the C library's, all within a few ulp of CPython's.
The arguments (one row a function, made on the host so that no backend's fused multiply-add
changes them) span each function's range: exp up to nearly overflow and into the
subnormals, logs of tiny and huge values, log1p and expm1 near 0, sinh and cosh up to
1e304, pow of positive bases from 1e-300 to 1e300 (exponents in [-1, 1]), and of negative
integral bases with integral exponents (`**` too), sin, cos and tan of small arguments,
of arguments up to 1e6 (the reduction by pi/2 in parts) and up to 1e300, asin and acos
on (-1, 1), atan and atan2 of values from 1e-20 to 1e20 (atan2 in every quadrant),
remainder of those by values from 1 to 1e6 (exact everywhere), erf on [-3, 3] and erfc on
[-20, 20], gamma on [-9.9, 30] away from its poles and lgamma on [0.01, 0.7] and [3, 1000]
(away from its zeros, where CPython's is thousands of ulp off relatively). Within
3 ulp of the reference (CPython's, NumPy's cbrt: CPython's is up to 2.5 ulp off here,
glibc's sinh and tanh 1.2), 5 for erfc (CPython's is up to 2.4 off the exact value, simt's
2.2), 12 for gamma and lgamma (CPython's are up to 5 off the exact value, glibc's tgamma up
to 9, simt's on webgpu 1 and 2)."""

import math

import numpy as np

import simt

from . import Case, blocks, rng, ulp


@simt.kernel(fp64=True)
def math64(x, out, erfs, gams):
    i = simt.grid(1)
    if i < x.shape[1]:
        out[0, i] = math.exp(x[0, i])
        out[1, i] = math.exp2(x[1, i])
        out[2, i] = math.expm1(x[2, i])
        out[3, i] = math.log(x[3, i])
        out[4, i] = math.log2(x[4, i])
        out[5, i] = math.log10(x[5, i])
        out[6, i] = math.log1p(x[6, i])
        out[7, i] = math.cbrt(x[7, i])
        out[8, i] = math.sinh(x[8, i])
        out[9, i] = math.cosh(x[9, i])
        out[10, i] = math.tanh(x[10, i])
        out[11, i] = math.asinh(x[11, i])
        out[12, i] = math.acosh(x[12, i])
        out[13, i] = math.atanh(x[13, i])
        out[14, i] = math.pow(x[14, i], x[15, i])
        out[15, i] = x[16, i] ** x[17, i]
        out[16, i] = math.sin(x[18, i])
        out[17, i] = math.cos(x[19, i])
        out[18, i] = math.tan(x[20, i])
        out[19, i] = math.asin(x[21, i])
        out[20, i] = math.acos(x[21, i])
        out[21, i] = math.atan(x[22, i])
        out[22, i] = math.atan2(x[22, i], x[19, i])
        out[23, i] = math.remainder(x[22, i], x[12, i])
        erfs[0, i] = math.erf(x[2, i])
        erfs[1, i] = math.erfc(x[10, i])
        gams[0, i] = math.gamma(x[23, i])
        gams[1, i] = math.lgamma(x[24, i])


N = 512
FNS = [math.exp, math.exp2, math.expm1, math.log, math.log2, math.log10, math.log1p,
       np.cbrt, math.sinh, math.cosh, math.tanh, math.asinh, math.acosh, math.atanh]  # fmt: skip


def _make():
    g = rng(64)
    v = g.uniform(-1.0, 1.0, N)
    v[:6] = [0.0, 1e-12, -1e-12, 1.0, -1.0, 0.5]
    a = np.abs(v)
    w = g.uniform(-1.0, 1.0, N)
    x = np.array([v * 720.0 - 20.0, v * 1048.0 - 25.0, v * 3.0, a * 1e300 + 1e-300,
                  a + 0.5, a * 1e-290 + 1e-305, v * 0.99, v * 1e300, v * 700.0, v * 700.0,
                  v * 20.0, v * 1e6, a * 1e6 + 1.0, v * 0.999,
                  10.0 ** (v * 300.0), w, -np.ceil(a * 5.0) - 1.0,
                  np.round(w * 30.0), v * 10.0, w * 1e6,
                  np.sign(v) * 10.0 ** (a * 300.0), w * 0.9999,
                  v * 10.0 ** (w * 20.0), np.round(v * 20.0 + 10.0) + 0.1 + 0.8 * a,
                  np.where(w < 0, 0.01 + a * 0.69, 3.0 + a * 997.0)])  # fmt: skip
    x[14, -8:] = [3.0, 0.5, 7.0, 1e-300, 2.5, 1e300, 1.0, 1e150]
    x[15, -8:] = [2.0, 3.0, -1.0, 0.0, 7.0, -3.0, 0.5, 1.0]
    two = (np.zeros((2, N), np.float64), np.zeros((2, N), np.float64))
    return x, np.zeros((len(FNS) + 10, N), np.float64), *two


def _ref(x, out, erfs, gams):
    ref = [[float(f(v)) for v in row] for f, row in zip(FNS, x.tolist())]
    for b, e in ((x[14], x[15]), (x[16], x[17])):
        ref.append([math.pow(p, q) for p, q in zip(b.tolist(), e.tolist())])
    for f, row in zip((math.sin, math.cos, math.tan, math.asin, math.acos, math.atan),
                      x[[18, 19, 20, 21, 21, 22]].tolist()):  # fmt: skip
        ref.append([f(v) for v in row])
    ref.append([math.atan2(p, q) for p, q in zip(x[22].tolist(), x[19].tolist())])
    ref.append([math.remainder(p, q) for p, q in zip(x[22].tolist(), x[12].tolist())])
    erfs = [[math.erf(v) for v in x[2].tolist()], [math.erfc(v) for v in x[10].tolist()]]
    gams = [[math.gamma(v) for v in x[23].tolist()], [math.lgamma(v) for v in x[24].tolist()]]
    return {1: np.array(ref), 2: np.array(erfs), 3: np.array(gams)}


CASES = [
    Case(
        "math64_transcendentals",
        math64,
        _make,
        blocks(N, 128),
        128,
        _ref,
        ulp(3),
        features=frozenset({"fp64"}),
        tols={2: ulp(5), 3: ulp(12)},
    )
]
