"""Conversions: `int()` truncates toward zero, `round()` is half to even, `math.floor` and
`math.ceil` return ints, a store of a float into an int array truncates, float `//` and `%`
follow Python (floor, sign of the divisor), `bool()` and conditional expressions."""

import math

import numpy as np

import simt

from . import Case, blocks, close, rng

ROWS = 7


@simt.kernel
def conversions(x, y, iout, fout):
    i = simt.grid(1)
    if i < len(x):
        v = x[i]
        iout[0, i] = int(v)
        iout[1, i] = round(v)
        iout[2, i] = math.floor(v)
        iout[3, i] = math.ceil(v)
        iout[4, i] = v  # the store converts, truncating
        iout[5, i] = int(bool(v > 0.0)) + (3 if v < -1.0 else -3)
        iout[6, i] = int(v * 4.0) // 3
        fout[0, i] = v // y[i]
        fout[1, i] = v % y[i]
        fout[2, i] = round(v, 1)


N = 1000


def _make():
    g = rng(13)
    x = (g.integers(-40, 40, N) / 4.0).astype(np.float32)  # many exact halves: ties to even
    x[N // 2 :] = g.uniform(-9.0, 9.0, N - N // 2).astype(np.float32)
    x[x == 0] = 0.75
    y = g.uniform(0.5, 3.0, N).astype(np.float32) * g.choice(np.array([-1, 1], np.float32), N)
    return x, y, np.zeros((ROWS, N), np.int32), np.zeros((3, N), np.float32)


def _ref(x, y, iout, fout):
    ref = np.empty((ROWS, N), np.int32)
    ref[0] = np.trunc(x)
    ref[1] = np.rint(x)
    ref[2] = np.floor(x)
    ref[3] = np.ceil(x)
    ref[4] = np.trunc(x)
    ref[5] = (x > 0).astype(np.int32) + np.where(x < -1.0, 3, -3)
    ref[6] = np.trunc(x * np.float32(4.0)).astype(np.int32) // 3
    fref = np.stack([np.floor_divide(x, y), np.mod(x, y), np.round(x.astype(np.float64), 1)])
    return {2: ref, 3: fref}


CASES = [
    Case("conversions", conversions, _make, blocks(N, 128), 128, _ref, tols={3: close(1e-6, 1e-6)})
]
