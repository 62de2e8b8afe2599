"""Hillis–Steele inclusive prefix scan in one block: read, barrier, write, barrier per step."""

import numpy as np

import simt
from simt import block_dim, thread_idx

from . import Case, rng

N = 256


@simt.kernel
def scan(a, out):
    buf = simt.shared.array(N, np.int32)
    tid = thread_idx.x
    buf[tid] = a[tid]
    simt.syncthreads()
    offset = 1
    while offset < block_dim.x:
        v = buf[tid]
        if tid >= offset:
            v += buf[tid - offset]
        simt.syncthreads()
        buf[tid] = v
        simt.syncthreads()
        offset *= 2
    out[tid] = buf[tid]


def _make():
    g = rng(8)
    return g.integers(-100, 100, N, dtype=np.int32) | 1, np.zeros(N, np.int32)


def _ref(a, out):
    return {1: np.cumsum(a, dtype=np.int32)}


CASES = [Case("scan_hillis_steele", scan, _make, 1, N, _ref)]
