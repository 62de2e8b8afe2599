"""float64 math functions: on webgpu simt's own WGSL functions (backends/wgsl_math64.py;
WGSL's take float32 only), elsewhere the C library's, all within a few ulp of CPython's.
The arguments (one row a function, made on the host so that no backend's fused multiply-add
changes them) span each function's range: exp up to nearly overflow and into the
subnormals, logs of tiny and huge values, log1p and expm1 near 0."""

import math

import numpy as np

import simt

from . import Case, blocks, rng, ulp


@simt.kernel(fp64=True)
def math64(x, out):
    i = simt.grid(1)
    if i < x.shape[1]:
        out[0, i] = math.exp(x[0, i])
        out[1, i] = math.exp2(x[1, i])
        out[2, i] = math.expm1(x[2, i])
        out[3, i] = math.log(x[3, i])
        out[4, i] = math.log2(x[4, i])
        out[5, i] = math.log10(x[5, i])
        out[6, i] = math.log1p(x[6, i])


N = 512
FNS = [math.exp, math.exp2, math.expm1, math.log, math.log2, math.log10, math.log1p]


def _make():
    g = rng(64)
    v = g.uniform(-1.0, 1.0, N)
    v[:6] = [0.0, 1e-12, -1e-12, 1.0, -1.0, 0.5]
    a = np.abs(v)
    x = np.array([v * 720.0 - 20.0, v * 1048.0 - 25.0, v * 3.0, a * 1e300 + 1e-300,
                  a + 0.5, a * 1e-290 + 1e-305, v * 0.99])  # fmt: skip
    return x, np.zeros((len(FNS), N), np.float64)


def _ref(x, out):
    return {1: np.array([[f(v) for v in row] for f, row in zip(FNS, x.tolist())])}


CASES = [
    Case(
        "math64_transcendentals",
        math64,
        _make,
        blocks(N, 128),
        128,
        _ref,
        ulp(2),
        features=frozenset({"fp64"}),
    )
]
