"""Atomics on shared memory (the histogram of NVIDIA's "fast histograms using shared atomics"):
add, min, max and cas on per-block shared arrays, then the block's results added to global
memory with global atomics. On `cpu` a shared atomic is a plain read-modify-write (a block's
threads run on one CPU thread), which this case checks against the reference."""

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx

from . import Case, rng

BINS = 16
THREADS = 128
GRID = 9
N = 1000


@simt.kernel
def shared_atomics(data, hist, lo_hi, claims):
    h = simt.shared.array(BINS, np.int32)
    m = simt.shared.array(2, np.int32)
    flag = simt.shared.array(1, np.int32)
    t = thread_idx.x
    if t < BINS:
        h[t] = 0
    if t == 0:
        m[0] = 2147483647
        m[1] = -2147483648
        flag[0] = 0
    simt.syncthreads()
    i = block_idx.x * block_dim.x + t
    if i < len(data):
        v = data[i]
        simt.atomic.add(h, v % BINS, 1)
        simt.atomic.min(m, 0, v)
        simt.atomic.max(m, 1, v)
    old = simt.atomic.cas(flag, 0, 0, 7)  # exactly one thread of each block sees 0
    if old == 0:
        simt.atomic.add(claims, 0, 1)
    simt.syncthreads()
    if t < BINS:
        simt.atomic.add(hist, t, h[t])
    if t == 0:
        simt.atomic.min(lo_hi, 0, m[0])
        simt.atomic.max(lo_hi, 1, m[1])


def _make():
    data = rng(41).integers(-500, 500, N, dtype=np.int32)
    return (data, np.zeros(BINS, np.int32), np.array([2**31 - 1, -(2**31)], np.int32),
            np.zeros(1, np.int32))  # fmt: skip


def _ref(data, hist, lo_hi, claims):
    expect = np.bincount(np.mod(data, BINS), minlength=BINS).astype(np.int32)
    return {1: expect, 2: np.array([data.min(), data.max()], np.int32),
            3: np.array([GRID], np.int32)}  # fmt: skip


CASES = [Case("shared_atomics", shared_atomics, _make, GRID, THREADS, _ref)]
