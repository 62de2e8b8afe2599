"""Naive matmul: a 2-D grid of 2-D blocks, one thread per C[i, j] with a k-loop."""

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx

from . import Case, blocks, close, rng, uniform


@simt.kernel
def matmul(a, b, c):
    row = block_idx.y * block_dim.y + thread_idx.y
    col = block_idx.x * block_dim.x + thread_idx.x
    if row < c.shape[0] and col < c.shape[1]:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[row, k] * b[k, col]
        c[row, col] = acc


M, K, N = 50, 37, 45


def _make():
    g = rng(7)
    return uniform(g, (M, K)), uniform(g, (K, N)), np.zeros((M, N), np.float32)


def _ref(a, b, c):
    return {2: a.astype(np.float64) @ b.astype(np.float64)}


CASES = [
    Case("matmul", matmul, _make, (blocks(N, 16), blocks(M, 16)), (16, 16), _ref, close(1e-5)),
    Case("matmul_8x4", matmul, _make, (blocks(N, 8), blocks(M, 4)), (8, 4), _ref, close(1e-5)),
]
