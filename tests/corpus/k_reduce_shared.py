"""Block tree reduction through shared memory and barriers; partial sums summed on the host.

Each thread first accumulates a grid-stride slice, then the block halves its active threads
each step (a `while` with a uniform condition around a barrier). `interleaved_sum` is Mark
Harris's first reduction: a step doubling from 1, the threads whose id is a multiple of twice
the step adding their neighbour `tid + s` (in the tile by alignment: `passes/bounds/`), over a
last block the input only partly fills.
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


@simt.kernel
def interleaved_sum(a, partial):
    sh = simt.shared.array(THREADS, np.float32)
    tid = thread_idx.x
    i = block_idx.x * block_dim.x + tid
    x = 0.0
    if i < len(a):
        x = a[i]
    sh[tid] = x
    simt.syncthreads()
    s = 1
    while s < block_dim.x:
        if tid % (2 * s) == 0:
            sh[tid] += sh[tid + s]
        simt.syncthreads()
        s *= 2
    if tid == 0:
        partial[block_idx.x] = sh[0]


N_INTERLEAVED = GRID * THREADS - 50


def _make_interleaved():
    return uniform(rng(4), N_INTERLEAVED), np.zeros(GRID, np.float32)


def _ref_interleaved(a, partial):
    padded = np.zeros(GRID * THREADS)
    padded[:N_INTERLEAVED] = a
    return {1: padded.reshape(GRID, THREADS).sum(1)}


CASES = [
    Case("reduce_shared", block_sum, _make, GRID, THREADS, _ref, close(1e-5)),
    Case("reduce_interleaved", interleaved_sum, _make_interleaved, GRID, THREADS,
         _ref_interleaved, close(1e-5)),
]
