"""Kernels spelled as for Numba-CUDA, with only the import and decorator lines changed
(`from numba import cuda` -> `import simt as cuda`, `@cuda.jit` -> `@cuda.kernel`): the
shared-memory tiled matrix product of Numba's documentation (its shape, written here, not
copied: NVIDIA/numba-cuda numba_cuda/numba/cuda/tests/doc_examples/test_matmul.py), with a
row view of the shared tile, and a grid-stride loop with `cuda.gridsize(1)`. The body uses
`cuda.threadIdx`, `cuda.gridDim`, `cuda.grid`, `cuda.shared.array(shape=..., dtype=...)`,
`cuda.syncthreads()` and `float32(...)` as Numba spells them."""

import numpy as np

import simt as cuda  # Numba: from numba import cuda
from simt import float32  # Numba: from numba.cuda import float32

from . import EXACT, Case, close, rng, uniform

TPB = 16


@cuda.kernel  # Numba: @cuda.jit
def tiled_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tiles = cuda.gridDim.x
    acc = float32(0.0)
    for t in range(tiles):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and tx + t * TPB < A.shape[1]:
            sA[ty, tx] = A[y, tx + t * TPB]
        if x < B.shape[1] and ty + t * TPB < B.shape[0]:
            sB[ty, tx] = B[ty + t * TPB, x]
        cuda.syncthreads()
        row = sA[ty]  # a row view of the shared tile
        for k in range(TPB):
            acc += row[k] * sB[k, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = acc


@cuda.kernel  # Numba: @cuda.jit
def stride_add(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]


def _make_mm():
    g = rng(61)
    return uniform(g, (21, 37)), uniform(g, (37, 19)), np.zeros((21, 19), np.float32)


def _ref_mm(A, B, C):
    return {2: (A.astype(np.float64) @ B).astype(np.float32)}


def _make_add():
    x = rng(62).integers(-1000, 1000, 3001).astype(np.int32)
    return x, x[::-1].copy(), np.zeros_like(x)


def _ref_add(x, y, out):
    return {2: x + y}


CASES = [
    Case("numba_tiled_matmul", tiled_matmul, _make_mm, (3, 3), (TPB, TPB), _ref_mm,
         tol=close(1e-5, 1e-5)),
    Case("numba_gridsize_loop", stride_add, _make_add, 4, 64, _ref_add, tol=EXACT),
]  # fmt: skip
