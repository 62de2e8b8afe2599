"""2-D and 3-D indexing with `simt.grid(2)` / `simt.grid(3)`, `a.shape`, `a.size`, and launch
shapes that do not divide the data."""

import numpy as np

import simt

from . import Case, blocks, close, rng, uniform


@simt.kernel
def scale2d(a, out):
    x, y = simt.grid(2)
    if y < a.shape[0] and x < a.shape[1]:
        out[y, x] = a[y, x] * 2.0 + y - x


@simt.kernel
def index3d(a, out):
    x, y, z = simt.grid(3)
    d, h, w = a.shape
    if x < w and y < h and z < d:
        out[z, y, x] = a[z, y, x] + (z * h + y) * w + x + a.size


H2, W2 = 33, 50
D3, H3, W3 = 5, 9, 13


def _make2():
    g = rng(18)
    return uniform(g, (H2, W2)), np.zeros((H2, W2), np.float32)


def _ref2(a, out):
    y, x = np.indices((H2, W2))
    return {1: a.astype(np.float64) * 2.0 + y - x}


def _make3():
    g = rng(19)
    return uniform(g, (D3, H3, W3)), np.zeros((D3, H3, W3), np.float32)


def _ref3(a, out):
    z, y, x = np.indices((D3, H3, W3))
    return {1: a.astype(np.float64) + (z * H3 + y) * W3 + x + a.size}


CASES = [
    Case(
        "grid2d",
        scale2d,
        _make2,
        (blocks(W2, 16), blocks(H2, 8)),
        (16, 8),
        _ref2,
        close(1e-6, 2e-5),
    ),
    Case(
        "grid3d",
        index3d,
        _make3,
        (blocks(W3, 4), blocks(H3, 4), blocks(D3, 2)),
        (4, 4, 2),
        _ref3,
        close(1e-6),
    ),
]
