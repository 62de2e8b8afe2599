"""Numba-CUDA kernels written the way the public material writes them where that needs the
language of issue 25 item 3: the tiled matmul of Numba's documentation with its early
`return` before the barriers, `syncthreads()` inside the `if i < n:` guard, a reduction whose
threads leave as the stride halves (university labs), MiniTorch's index helpers iterating
`zip(index, strides)` over run-time arrays, `for v in row` over a row view, and unpacking a
point's row (`x, y = p[i]`, n-body labs). Our own code after those kinds of programs."""

import math

import numpy as np

from simt import cuda

from .case import NCase, close, uniform

TPB = 8


@cuda.jit
def docs_fast_matmul(A, B, C):
    """Square matrices whose side is a multiple of TPB, as in Numba's documentation (there no
    thread is past the edge; the early return is what kept such kernels from compiling)."""
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    bpg = cuda.gridDim.x
    if x >= C.shape[0] or y >= C.shape[1]:
        return
    tmp = np.float32(0.0)
    for i in range(bpg):
        sA[tx, ty] = A[x, ty + i * TPB]
        sB[tx, ty] = B[tx + i * TPB, y]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[tx, j] * sB[j, ty]
        cuda.syncthreads()
    C[x, y] = tmp


@cuda.jit
def guarded_block_reverse(a, out):
    i = cuda.grid(1)
    buf = cuda.shared.array(64, np.float32)
    if i < a.size:  # every thread of the launch takes it: the size is a multiple of 64
        buf[cuda.threadIdx.x] = a[i]
        cuda.syncthreads()
        out[i] = buf[63 - cuda.threadIdx.x]


@cuda.jit
def leaving_reduction(a, partial):
    sh = cuda.shared.array(64, np.float32)
    t = cuda.threadIdx.x
    sh[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    s = 32
    while s > 0:
        if t >= s:
            return
        sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = sh[0]


@cuda.jit(device=True)
def position(index, strides):
    pos = 0
    for ind, stride in zip(index, strides):
        pos += ind * stride
    return pos


@cuda.jit
def strided_gather(out, a, shape, strides):
    """MiniTorch's index_to_position: zip over the index and the strides (run-time arrays)."""
    index = cuda.local.array(2, np.int32)
    i = cuda.grid(1)
    if i < out.size:
        index[0] = i // shape[1]
        index[1] = i % shape[1]
        out[i] = a[position(index, strides)]


@cuda.jit
def row_sums(m, out):
    i = cuda.grid(1)
    if i < m.shape[0]:
        acc = np.float32(0.0)
        for v in m[i]:
            acc += v
        out[i] = acc


@cuda.jit
def nearest_distance(p, out):
    i = cuda.grid(1)
    if i < p.shape[0]:
        xi, yi = p[i]
        best = np.float32(1e30)
        for j, q in enumerate(p):
            if j != i:
                xj, yj = q
                d = math.sqrt((xi - xj) ** 2 + (yi - yj) ** 2)
                best = min(best, d)
        out[i] = best


def _mm_make():
    n = 16
    return uniform(61, (n, n)), uniform(62, (n, n)), np.zeros((n, n), np.float32)


def _gather_make():
    base = uniform(63, (6, 5))
    t = base.T  # shape (5, 6), strides (1, 5) over base's memory
    return (np.zeros(30, np.float32), base.ravel(), np.array(t.shape, np.int32),
            np.array([1, 5], np.int32))  # fmt: skip


def _nearest_ref(p, out):
    d = np.sqrt(((p[:, None, :].astype(np.float64) - p[None, :, :]) ** 2).sum(-1))
    np.fill_diagonal(d, np.inf)
    return {1: d.min(1).astype(np.float32)}


CASES = [
    NCase("lang_docs_fast_matmul_return", "Numba docs: fast_matmul, early return before "
          "the barriers", docs_fast_matmul, _mm_make, (2, 2), (TPB, TPB),
          lambda A, B, C: {2: (A.astype(np.float64) @ B).astype(np.float32)},
          tol=close(1e-5, 1e-5)),
    NCase("lang_guarded_barrier", "university lab: syncthreads inside the bounds guard",
          guarded_block_reverse, lambda: (uniform(64, 192), np.zeros(192, np.float32)), 3, 64,
          lambda a, out: {1: a.reshape(3, 64)[:, ::-1].ravel().copy()}),
    NCase("lang_leaving_reduction", "university lab: threads return as the stride halves",
          leaving_reduction, lambda: (uniform(65, 256), np.zeros(4, np.float32)), 4, 64,
          lambda a, p: {1: a.reshape(4, 64).astype(np.float64).sum(1).astype(np.float32)},
          tol=close(1e-6, 1e-6)),
    NCase("lang_minitorch_zip_strides", "MiniTorch: index_to_position with zip over arrays",
          strided_gather, _gather_make, 1, 32,
          lambda out, a, shape, strides: {0: a.reshape(6, 5).T.ravel().copy()}),
    NCase("lang_for_v_in_row", "ENCCS lesson: for v in a row of a matrix", row_sums,
          lambda: (uniform(66, (20, 7)), np.zeros(20, np.float32)), 1, 32,
          lambda m, out: {1: m.astype(np.float64).sum(1).astype(np.float32)},
          tol=close(1e-6, 1e-6)),
    NCase("lang_unpack_rows", "n-body lab: unpacking rows, enumerate over an array",
          nearest_distance, lambda: (uniform(67, (40, 2)), np.zeros(40, np.float32)), 2, 32,
          _nearest_ref, tol=close(1e-6, 1e-6)),
]  # fmt: skip
