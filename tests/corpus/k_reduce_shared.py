"""Block tree reduction through shared memory and barriers; partial sums summed on the host.

Each thread first accumulates a grid-stride slice, then the block halves its active threads
each step (a `while` with a uniform condition around a barrier).
"""

import numpy as np

import simt
from simt import block_dim, block_idx, grid_dim, thread_idx

from . import Case, close, rng, uniform

THREADS = 128  # a global read at compile time: the shared array's size


@simt.kernel
def block_sum(a, partial):
    sh = simt.shared.array(THREADS, np.float32)
    tid = thread_idx.x
    acc = 0.0
    i = block_idx.x * block_dim.x + tid
    while i < len(a):
        acc += a[i]
        i += block_dim.x * grid_dim.x
    sh[tid] = acc
    simt.syncthreads()
    s = block_dim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        simt.syncthreads()
        s //= 2
    if tid == 0:
        partial[block_idx.x] = sh[0]


GRID = 12
N = 30_001


def _make():
    g = rng(3)
    return uniform(g, N), np.zeros(GRID, np.float32)


def _ref(a, partial):
    a64 = a.astype(np.float64)
    stride = GRID * THREADS
    idx = np.arange(N)
    expect = np.zeros(GRID)
    np.add.at(expect, (idx % stride) // THREADS, a64)
    # the host sums the partial sums: the total must match too (checked through the partials)
    assert abs(expect.sum() - a64.sum()) < 1e-6 * a64.sum()
    return {1: expect}


CASES = [Case("reduce_shared", block_sum, _make, GRID, THREADS, _ref, close(1e-5))]
