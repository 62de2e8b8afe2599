"""Early return from the kernel and from a helper function (several returns, one value)."""

import numpy as np

import simt

from . import Case, blocks, close, rng, uniform


def classify(v, lo, hi):
    if v < lo:
        return -1.0
    if v > hi:
        return 1.0
    return (v - lo) / (hi - lo)


@simt.kernel
def early(a, out, n):
    i = simt.grid(1)
    if i >= n:
        return
    if a[i] > 1.4:
        out[i] = 100.0
        return
    out[i] = classify(a[i], 0.7, 1.2)


N = 900


def _make():
    g = rng(16)
    return uniform(g, N), np.full(N, -5.0, np.float32), N - 37


def _ref(a, out, n):
    a64 = a.astype(np.float64)
    mid = (a64 - np.float64(np.float32(0.7))) / np.float64(np.float32(1.2) - np.float32(0.7))
    r = np.where(a64 < np.float32(0.7), -1.0, np.where(a64 > np.float32(1.2), 1.0, mid))
    r = np.where(a64 > np.float32(1.4), 100.0, r)
    expect = out.astype(np.float64)
    expect[:n] = r[:n]
    return {1: expect}


CASES = [Case("early_return", early, _make, blocks(N, 128), 128, _ref, close(1e-6, 1e-6))]
