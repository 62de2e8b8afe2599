"""Helpers returning tuples with early returns, from an `if` and from inside a run-time loop
(issue #15, item 9), and a helper reading thread_idx called with known arguments."""

import numpy as np

import simt
from simt import thread_idx

from . import Case, blocks, close, rng, uniform


def order(a, b):
    if a > b:
        return a, b
    return b, a + 1.0


def first_above(a, n):
    for k in range(n):
        if a * 4.0 > k:
            return a, k
    return a + 1.0, -1


def lane_pair(c):
    return thread_idx.x % c, c


@simt.kernel
def tuple_returns(x, out, n):
    i = simt.grid(1)
    if i >= len(out):
        return
    p, q = order(x[i], 0.5)
    r, s = first_above(x[i], n)
    lane, c = lane_pair(4)
    out[i] = p * 10.0 + q + r * 100.0 + s * 1000.0 + lane * 10000.0 + c


N = 200


def _make():
    g = rng(23)
    return uniform(g, N), np.zeros(N, np.float32), 3


def _ref(x, out, n):
    x = x.astype(np.float64)
    p = np.maximum(x, 0.5)
    q = np.where(x > 0.5, 0.5, x + 1.0)
    ks = np.array([next((k for k in range(n) if v * 4.0 > k), -1) for v in x], np.float64)
    r = np.where(ks >= 0, x, x + 1.0)
    lane = np.arange(len(x)) % 64 % 4
    return {1: p * 10.0 + q + r * 100.0 + ks * 1000.0 + lane * 10000.0 + 4}


CASES = [
    Case("tuple_early_return", tuple_returns, _make, blocks(N, 64), 64, _ref, close(1e-6, 1e-5))
]
