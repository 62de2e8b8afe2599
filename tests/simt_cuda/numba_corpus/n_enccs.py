"""Kernels in the style of the ENCCS GPU-programming lessons' Numba-CUDA episodes (and
similar HPC-centre workshops): naive and 2-D matrix kernels, a shared-memory tree reduction,
a heat-equation stencil in float64, pairwise distances, `local.array` scratch space and a
vote with `syncthreads_count`. Our own code after those kinds of exercises."""

import math

import numpy as np

from simt import cuda

from .case import EXACT, NCase, close, uniform


# 1. naive matrix product, one thread per output, float32 accumulation
@cuda.jit
def matmul_naive(A, B, C):
    i, j = cuda.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


# 2. tree reduction in shared memory, one partial sum per block (int32: exact everywhere)
RBLOCK = 64


@cuda.jit
def block_sum(a, partial):
    cache = cuda.shared.array(RBLOCK, dtype=np.int32)
    tid = cuda.threadIdx.x
    i = cuda.grid(1)
    v = 0
    if i < a.shape[0]:
        v = a[i]
    cache[tid] = v
    cuda.syncthreads()
    s = cuda.blockDim.x // 2
    while s > 0:
        if tid < s:
            cache[tid] += cache[tid + s]
        cuda.syncthreads()
        s //= 2
    if tid == 0:
        partial[cuda.blockIdx.x] = cache[0]


# 3. one explicit step of the 2-D heat equation, float64 (the lessons' stencil exercise)
@cuda.jit
def heat_step(u, out, alpha):
    i, j = cuda.grid(2)
    n, m = u.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
        out[i, j] = u[i, j] + alpha * lap
    elif i < n and j < m:
        out[i, j] = u[i, j]


# 4. pairwise distances between points (rows of a float32 array)
@cuda.jit
def distances(p, d):
    i, j = cuda.grid(2)
    if i < d.shape[0] and j < d.shape[1]:
        acc = np.float32(0.0)
        for k in range(p.shape[1]):
            diff = p[i, k] - p[j, k]
            acc += diff * diff
        d[i, j] = math.sqrt(acc)


# 5. per-thread scratch in local memory: each thread sorts its window of 5 (median filter)
WIN = 5


@cuda.jit
def median5(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        w = cuda.local.array(WIN, dtype=np.float32)
        for k in range(WIN):
            j = min(max(i + k - WIN // 2, 0), x.shape[0] - 1)
            w[k] = x[j]
        for a in range(WIN):
            for b in range(WIN - 1 - a):
                if w[b] > w[b + 1]:
                    t = w[b]
                    w[b] = w[b + 1]
                    w[b + 1] = t
        out[i] = w[WIN // 2]


# 6. block votes: how many, all, any threads of the block see a positive value
@cuda.jit
def block_votes(x, counts, alls, anys):
    i = cuda.grid(1)
    v = x[i]
    n = cuda.syncthreads_count(v > 0)
    a = cuda.syncthreads_and(v > -0.9)
    o = cuda.syncthreads_or(v > 0.9)
    if cuda.threadIdx.x == 0:
        counts[cuda.blockIdx.x] = n
        alls[cuda.blockIdx.x] = a
        anys[cuda.blockIdx.x] = o


def _ref_median(x, out):
    n = x.shape[0]
    idx = np.clip(np.arange(n)[:, None] + np.arange(WIN)[None, :] - WIN // 2, 0, n - 1)
    return {1: np.median(x[idx], axis=1).astype(np.float32)}


def _ref_heat(u, out, alpha):
    r = u.copy()
    r[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (
        u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
    )
    return {1: r}


def _ref_votes(x, counts, alls, anys):
    b = x.reshape(-1, 64)
    return {1: (b > 0).sum(1).astype(np.int32), 2: (b > -0.9).all(1).astype(np.int32),
            3: (b > 0.9).any(1).astype(np.int32)}  # fmt: skip


def _dist_ref(p, d):
    diff = p[:, None, :].astype(np.float64) - p[None, :, :]
    return {1: np.sqrt((diff**2).sum(-1)).astype(np.float32)}


CASES = [
    NCase("enccs_matmul_naive", "ENCCS lesson: naive matmul with cuda.grid(2)", matmul_naive,
          lambda: (uniform(11, (17, 23)), uniform(12, (23, 9)), np.zeros((17, 9), np.float32)),
          (3, 2), (8, 8), lambda A, B, C: {2: (A.astype(np.float64) @ B).astype(np.float32)},
          tol=close(1e-5, 1e-5)),
    NCase("enccs_block_sum", "ENCCS lesson: shared-memory tree reduction", block_sum,
          lambda: (np.arange(-300, 700, dtype=np.int32), np.zeros(16, np.int32)), 16, RBLOCK,
          lambda a, p: {1: np.pad(a, (0, 24)).reshape(16, 64).sum(1).astype(np.int32)}),
    NCase("enccs_heat_step", "ENCCS lesson: 2-D heat-equation stencil in float64", heat_step,
          lambda: (uniform(13, (30, 21), np.float64), np.zeros((30, 21)), 0.2), (4, 3),
          (8, 8), _ref_heat, tol=close(1e-14, 1e-15), features=frozenset({"fp64"})),
    NCase("enccs_distances", "ENCCS lesson: pairwise distances", distances,
          lambda: (uniform(14, (24, 3)), np.zeros((24, 24), np.float32)), (3, 3), (8, 8),
          _dist_ref, tol=close(1e-6, 1e-6)),
    NCase("enccs_median5", "HPC workshop: median filter with cuda.local.array", median5,
          lambda: (uniform(15, 300), np.zeros(300, np.float32)), 3, 128, _ref_median),
    NCase("enccs_block_votes", "HPC workshop: syncthreads_count/and/or", block_votes,
          lambda: (uniform(16, 256), np.zeros(4, np.int32), np.zeros(4, np.int32),
                   np.zeros(4, np.int32)), 4, 64, _ref_votes),
]  # fmt: skip
_ = EXACT
