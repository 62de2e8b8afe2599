"""A user benchmark file for `simt bench`: a naive and a tiled transpose.

    simt bench bench/user_transpose.py --workloads none

Every function named `bench_*` returns `(launch, args, check)`; `simt bench` runs each launch
once, calls `check()`, then times it, predicts it and prints the advisor's notes (the naive
version's store is not contiguous in thread_idx.x, and the advisor says so).
"""

from __future__ import annotations

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx

N = 2048
TILE = 16


@simt.kernel
def transpose_naive(a, out):
    x = block_idx.x * block_dim.x + thread_idx.x
    y = block_idx.y * block_dim.y + thread_idx.y
    h, w = a.shape
    if x < w and y < h:
        out[x, y] = a[y, x]


@simt.kernel
def transpose_tiled(a, out):
    tile = simt.shared.array((TILE, TILE + 1), np.float32)  # type: ignore[attr-defined]
    h, w = a.shape
    x = block_idx.x * TILE + thread_idx.x
    y = block_idx.y * TILE + thread_idx.y
    if x < w and y < h:
        tile[thread_idx.y, thread_idx.x] = a[y, x]
    simt.syncthreads()
    x = block_idx.y * TILE + thread_idx.x
    y = block_idx.x * TILE + thread_idx.y
    if x < h and y < w:
        out[y, x] = tile[thread_idx.x, thread_idx.y]


_A = np.random.default_rng(8).random((N, N), dtype=np.float32) + np.float32(0.5)


def _case(kernel):  # type: ignore[no-untyped-def]
    a = simt.to_device(_A)
    out = simt.empty((N, N), np.float32)
    grid = (N // TILE, N // TILE)
    return kernel[grid, (TILE, TILE)], (a, out), lambda: bool(np.array_equal(out.numpy(), _A.T))


def bench_transpose_naive():  # type: ignore[no-untyped-def]
    """Reads rows, writes columns: every warp's store touches 16 or 32 lines."""
    return _case(transpose_naive)


def bench_transpose_tiled():  # type: ignore[no-untyped-def]
    """Through a shared tile: both the load and the store run along rows."""
    return _case(transpose_tiled)
