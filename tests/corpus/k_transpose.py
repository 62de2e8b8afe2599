"""2-D transpose through a shared tile padded by one column (no bank conflicts on a GPU)."""

import numpy as np

import simt
from simt import block_idx, thread_idx

from . import Case, blocks, rng, uniform

TILE = 16


@simt.kernel
def transpose(a, out):
    tile = simt.shared.array((TILE, TILE + 1), np.float32)
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


H, W = 45, 70


def _make():
    g = rng(9)
    return uniform(g, (H, W), lo=-5.0, hi=5.0), np.zeros((W, H), np.float32)


def _ref(a, out):
    return {1: a.T.copy()}


CASES = [
    Case(
        "transpose_tiled", transpose, _make, (blocks(W, TILE), blocks(H, TILE)), (TILE, TILE), _ref
    )
]
