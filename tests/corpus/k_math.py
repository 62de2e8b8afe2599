"""The math module on float32 (and `**`), compared with float64 NumPy to float32 accuracy."""

import math

import numpy as np

import simt

from . import Case, blocks, close, rng, uniform

ROWS = 14


@simt.kernel
def mathfns(x, y, out):
    i = simt.grid(1)
    if i < len(x):
        v = x[i]
        w = y[i]
        out[0, i] = math.sqrt(v)
        out[1, i] = math.exp(-v)
        out[2, i] = math.log(v)
        out[3, i] = math.sin(w)
        out[4, i] = math.cos(w)
        out[5, i] = math.tanh(w)
        out[6, i] = math.atan2(w, v)
        out[7, i] = math.pow(v, 1.5)
        out[8, i] = v**w
        out[9, i] = w**2 + v**3
        out[10, i] = math.floor(w * 3.0) + math.ceil(v)
        out[11, i] = math.fabs(w) + abs(w)
        out[12, i] = math.hypot(v, w) + math.log2(v) + 2.0**w  # (math.exp2 is Python 3.11+)
        out[13, i] = min(v, w, 0.9) + max(v, w) + math.pi


N = 800


def _make():
    g = rng(24)
    return (
        uniform(g, N, lo=0.1, hi=4.0),
        uniform(g, N, lo=-3.0, hi=3.0),
        np.zeros((ROWS, N), np.float32),
    )


def _ref(x, y, out):
    v = x.astype(np.float64)
    w = y.astype(np.float64)
    w3 = np.floor(y * np.float32(3.0)).astype(np.float64)
    return {
        2: np.stack(
            [
                np.sqrt(v),
                np.exp(-v),
                np.log(v),
                np.sin(w),
                np.cos(w),
                np.tanh(w),
                np.arctan2(w, v),
                v**1.5,
                v**w,
                w**2 + v**3,
                w3 + np.ceil(v),
                2 * np.abs(w),
                np.hypot(v, w) + np.log2(v) + np.exp2(w),
                np.minimum(np.minimum(v, w), np.float32(0.9))
                + np.maximum(v, w)
                + np.float32(math.pi),
            ]
        )
    }


CASES = [Case("math_float32", mathfns, _make, blocks(N, 128), 128, _ref, close(5e-6, 5e-6))]
