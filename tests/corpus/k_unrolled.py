"""`for` over known tuples, `zip` and `enumerate` (unrolled at compile time), a list
comprehension under `sum`, and globals read as constants."""

import numpy as np

import simt

from . import Case, blocks, close, rng, uniform

WEIGHTS = (0.25, 0.5, 0.25)
OFFSETS = (-1, 0, 1)
SCALES = [1.0, 2.0, 3.0, 4.0]


@simt.kernel
def stencil(a, out):
    i = simt.grid(1)
    n = len(a)
    if i < n:
        acc = 0.0
        for w, d in zip(WEIGHTS, OFFSETS):
            acc += w * a[min(max(i + d, 0), n - 1)]
        extra = 0.0
        for k, s in enumerate(SCALES):
            if k % 2 == 1:
                extra += s * a[i]
        tot = sum([s * a[i] for s in SCALES])
        out[0, i] = acc
        out[1, i] = extra
        out[2, i] = tot


N = 777


def _make():
    g = rng(17)
    return uniform(g, N), np.zeros((3, N), np.float32)


def _ref(a, out):
    a64 = a.astype(np.float64)
    p = np.concatenate([a64[:1], a64, a64[-1:]])
    acc = 0.25 * p[:-2] + 0.5 * p[1:-1] + 0.25 * p[2:]
    return {1: np.stack([acc, 6.0 * a64, 10.0 * a64])}


CASES = [Case("unrolled_zip_enumerate", stencil, _make, blocks(N, 128), 128, _ref, close(1e-6))]
