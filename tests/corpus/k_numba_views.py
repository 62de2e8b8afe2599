"""Array views as Numba-CUDA kernels slice them, in their idioms (written here, not copied):
two column views of one array written through with `-=` (the kernel of numba issue 9324,
https://github.com/numba/numba/issues/9324, kept as a regression test in Numba-CUDA's
suites), partial indexing of a 3-D array (`arr[i, j]` is the row along the last axis, as
Numba-CUDA's incomplete-slice tests use it), a grid-stride loop over stride-2 views, and a
reversed tail with a run-time start. The documentation examples in NVIDIA/numba-cuda
numba_cuda/numba/cuda/tests/doc_examples/ that were read (test_matmul, test_laplace,
test_reduction, test_sessionize, test_cg, test_ufunc) index arrays element by element and
do not slice inside kernels; their forms are other corpus cases (k_matmul, k_reduce_shared,
k_grid_stride)."""

import numpy as np

import simt
from simt import block_dim, grid_dim

from . import EXACT, Case, close, rng, uniform


@simt.kernel
def shift_column(array):
    i = simt.grid(1)
    col0 = array[:, 0]
    col1 = array[:, 1]
    if i < array.shape[0]:
        col1[i] -= 0.5
        col1[i] = col0[i] + col1[i]


def row_sum(row):
    s = 0
    for k in range(len(row)):
        s += row[k]
    return s


@simt.kernel
def last_axis_sums(arr, out):
    i, j = simt.grid(2)
    if i < arr.shape[0] and j < arr.shape[1]:
        out[i, j] = row_sum(arr[i, j])


@simt.kernel
def pair_differences(x, out):
    start = simt.grid(1)
    stride = block_dim.x * grid_dim.x
    even = x[::2]
    odd = x[1::2]
    for i in range(start, odd.shape[0], stride):
        out[i] = even[i] - odd[i]


@simt.kernel
def reversed_tail(x, out, lo):
    i = simt.grid(1)
    back = x[lo:][::-1]
    if i < len(back):
        out[i] = back[i]


def _make_cols():
    return (uniform(rng(41), (100, 3)),)


def _ref_cols(array):
    r = array.astype(np.float64)
    r[:, 1] = r[:, 0] + r[:, 1] - 0.5
    return {0: r.astype(np.float32)}


def _make_3d():
    return rng(42).integers(-50, 50, (5, 7, 9)).astype(np.int32), np.zeros((5, 7), np.int32)


def _ref_3d(arr, out):
    return {1: arr.sum(-1, dtype=np.int32)}


def _make_pairs():
    return uniform(rng(43), (1001,)), np.zeros(500, np.float32)


def _ref_pairs(x, out):
    return {1: (x[:-1:2].astype(np.float64) - x[1::2]).astype(np.float32)}


def _make_tail():
    return rng(44).integers(0, 1000, 300).astype(np.int32), np.zeros(293, np.int32), 7


def _ref_tail(x, out, lo):
    return {1: x[lo:][::-1].copy()}


CASES = [
    Case("numba_column_views", shift_column, _make_cols, 4, 32, _ref_cols, tol=close(1e-6, 1e-6),
         strided="Numba-style views: a column or a row per thread, stride 2, a reversed tail"),
    Case("numba_last_axis_rows", last_axis_sums, _make_3d, (1, 1), (8, 8), _ref_3d, tol=EXACT,
         strided="Numba-style views: a column or a row per thread, stride 2, a reversed tail"),
    Case("numba_strided_pairs", pair_differences, _make_pairs, 2, 64, _ref_pairs,
         tol=close(1e-6, 1e-6),
         strided="Numba-style views: a column or a row per thread, stride 2, a reversed tail"),
    Case("numba_reversed_tail", reversed_tail, _make_tail, 3, 128, _ref_tail, tol=EXACT,
         strided="Numba-style views: a column or a row per thread, stride 2, a reversed tail"),
]  # fmt: skip
