"""One thread per column sums all rows: the CPU backend's SPMD showcase (W1 in small)."""

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx

from . import Case, blocks, close, rng, uniform


@simt.kernel
def colsum(a, out):
    j = block_idx.x * block_dim.x + thread_idx.x
    if j < a.shape[1]:
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i, j]
        out[j] = s


def _make():
    g = rng(2)
    return uniform(g, (64, 1000)), np.zeros(1000, np.float32)


def _ref(a, out):
    return {1: a.sum(axis=0, dtype=np.float64)}


CASES = [Case("colsum", colsum, _make, blocks(1000, 256), 256, _ref, close(1e-5))]
