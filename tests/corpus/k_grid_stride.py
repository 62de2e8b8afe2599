"""Grid-stride loop: a small grid covers a large array with a run-time step."""

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


CASES = [Case("grid_stride_saxpy", saxpy, _make, 5, 64, _ref, close(1e-6))]
