"""Grid-stride loops: a small grid covers a large array with a run-time step, in 1-D and 2-D
(on `cpu` both run as vector loops over the lanes still in range, `spmd.grid_stride_whiles`)."""

import numpy as np

import simt
from simt import block_dim, grid_dim

from . import Case, close, rng, uniform


@simt.kernel
def saxpy(alpha, x, y):
    for i in range(simt.grid(1), len(x), block_dim.x * grid_dim.x):
        y[i] = alpha * x[i] + y[i]


N = 10_007


def _make():
    g = rng(15)
    return np.float32(1.75), uniform(g, N), uniform(g, N)


def _ref(alpha, x, y):
    return {2: np.float64(alpha) * x.astype(np.float64) + y}


@simt.kernel
def shift_rows(a, out, k):
    x0, y0 = simt.grid(2)
    for y in range(y0, a.shape[0], block_dim.y * grid_dim.y):
        for x in range(x0, a.shape[1], block_dim.x * grid_dim.x):
            out[y, x] = a[y, x] * k + y


H, W = 37, 101


def _make_2d():
    return uniform(rng(16), (H, W)), np.zeros((H, W), np.float32), np.float32(2.5)


def _ref_2d(a, out, k):
    return {1: a.astype(np.float64) * np.float64(k) + np.arange(H)[:, None]}


CASES = [
    Case("grid_stride_saxpy", saxpy, _make, 5, 64, _ref, close(1e-6)),
    Case("grid_stride_2d", shift_rows, _make_2d, (3, 2), (16, 8), _ref_2d, close(1e-6)),
]
