"""Device functions returning tuples, nested calls, unpacking and swaps."""

import math

import numpy as np

import simt

from . import EXACT, Case, blocks, close, rng, uniform


def divmod_sum(a, b):
    return a // b, a % b, a + b


def polar(x, y):
    return math.sqrt(x * x + y * y), math.atan2(y, x)


def ordered(x, y):
    if x > y:
        x, y = y, x
    return x, y


def stats(x, y):
    lo, hi = ordered(x, y)
    r, theta = polar(x, y)
    return (lo, hi), r + theta


@simt.kernel
def tuples(xi, yi, xf, yf, iout, fout):
    i = simt.grid(1)
    if i < len(xi):
        q, r, s = divmod_sum(xi[i], yi[i])
        iout[0, i] = q
        iout[1, i] = r
        iout[2, i] = s
        (lo, hi), m = stats(xf[i], yf[i])
        t = (lo, hi, m)
        a, b, c = t
        fout[0, i] = a
        fout[1, i] = b
        fout[2, i] = c


N = 1000


def _make():
    g = rng(10)
    xi = g.integers(-500, 500, N, dtype=np.int32)
    yi = g.integers(1, 40, N, dtype=np.int32) * g.choice(np.array([-1, 1], np.int32), N)
    xf = uniform(g, N, lo=-2.0, hi=2.0)
    yf = uniform(g, N, lo=-2.0, hi=2.0)
    return xi, yi, xf, yf, np.zeros((3, N), np.int32), np.zeros((3, N), np.float32)


def _ref(xi, yi, xf, yf, iout, fout):
    x64, y64 = xf.astype(np.float64), yf.astype(np.float64)
    ints = np.stack([xi // yi, xi % yi, xi + yi]).astype(np.int32)
    floats = np.stack(
        [np.minimum(x64, y64), np.maximum(x64, y64), np.hypot(x64, y64) + np.arctan2(y64, x64)]
    )
    return {4: ints, 5: floats}


CASES = [
    Case(
        "tuple_functions",
        tuples,
        _make,
        blocks(N, 128),
        128,
        _ref,
        close(1e-6, 1e-5),  # atan2 on GPUs: a few ulps of the operands
        tols={4: EXACT},
    )
]
