"""Vector add, the contract's first example: one thread per element, a guard for the tail."""

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx

from . import Case, blocks, close, rng, uniform


@simt.kernel
def vector_add(a, b, c):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(c):
        c[i] = a[i] + b[i]


def _args(n: int):
    def make():
        g = rng(1)
        return uniform(g, n), uniform(g, n), np.zeros(n, np.float32) + 7.0

    return make


def _ref(a, b, c):
    return {2: a.astype(np.float64) + b}


CASES = [
    Case("vector_add", vector_add, _args(10_000), blocks(10_000, 256), 256, _ref, close(1e-7)),
    # a launch larger than the data, block shape given as simt.Dim
    Case("vector_add_dim", vector_add, _args(1000), simt.Dim(8), simt.Dim(128), _ref, close(1e-7)),
]
