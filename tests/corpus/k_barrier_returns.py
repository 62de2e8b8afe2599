"""Barriers in the control flow Numba-CUDA compiles (written here, in the style of course
material and Numba's documentation kernels): a thread-dependent early `return` at the top of a
tiled kernel followed by `syncthreads()`; `syncthreads()` inside the `if i < a.size:` guard
that every thread of the launch takes; threads that `return` inside a reduction loop while
the others keep synchronising; a tiled matrix product whose edge blocks return whole. Threads
that returned leave the block's barrier count (as on NVIDIA hardware); `sim` runs the kernels
as written, the other backends through `passes.barriers.lift`."""

import numpy as np

import simt
from simt import block_idx, thread_idx

from . import EXACT, Case, close, rng, uniform

TPB = 32
TILE = 8


@simt.kernel
def neighbour_sums(x, out, n):
    i = simt.grid(1)
    if i >= n:
        return
    tile = simt.shared.array(TPB, simt.float32)
    t = thread_idx.x
    acc = 0.0
    for k in range(3):
        tile[t] = x[i] * (k + 1)
        simt.syncthreads()
        if t + 1 < TPB and i + 1 < n:
            acc += tile[t + 1]
        else:
            acc += tile[t]
        simt.syncthreads()
    out[i] = acc


@simt.kernel
def reverse_in_blocks(a, out):
    i = simt.grid(1)
    buf = simt.shared.array(TPB, simt.int32)
    if i < a.size:
        buf[thread_idx.x] = a[i]
        simt.syncthreads()
        out[i] = buf[TPB - 1 - thread_idx.x]


@simt.kernel
def halving_sum(a, partial):
    sh = simt.shared.array(TPB, simt.float32)
    t = thread_idx.x
    sh[t] = a[block_idx.x * TPB + t]
    simt.syncthreads()
    s = TPB // 2
    while s > 0:
        if t >= s:
            return  # the upper half is done: it leaves, the others go on synchronising
        sh[t] += sh[t + s]
        simt.syncthreads()
        s //= 2
    if t == 0:
        partial[block_idx.x] = sh[0]


@simt.kernel
def tiled_matmul(A, B, C):
    x, y = simt.grid(2)
    if x >= C.shape[0] or y >= C.shape[1]:
        return
    sA = simt.shared.array((TILE, TILE), simt.float32)
    sB = simt.shared.array((TILE, TILE), simt.float32)
    tx = thread_idx.x
    ty = thread_idx.y
    acc = 0.0
    for k in range(A.shape[1] // TILE):
        sA[tx, ty] = A[x, ty + k * TILE]
        sB[tx, ty] = B[tx + k * TILE, y]
        simt.syncthreads()
        for j in range(TILE):
            acc += sA[tx, j] * sB[j, ty]
        simt.syncthreads()
    C[x, y] = acc


def _make_neighbours():
    return uniform(rng(70), (100,)), np.zeros(100, np.float32), 77


def _ref_neighbours(x, out, n):
    ref = out.astype(np.float64)
    for i in range(n):
        t = i % TPB
        ref[i] = 6.0 * (x[i + 1] if (t + 1 < TPB and i + 1 < n) else x[i])
    return {1: ref.astype(np.float32)}


def _make_reverse():
    return rng(71).integers(-1000, 1000, 4 * TPB).astype(np.int32), np.zeros(4 * TPB, np.int32)


def _ref_reverse(a, out):
    return {1: a.reshape(-1, TPB)[:, ::-1].ravel()}


def _make_halving():
    return uniform(rng(72), (5 * TPB,)), np.zeros(5, np.float32)


def _ref_halving(a, partial):
    return {1: a.reshape(-1, TPB).astype(np.float64).sum(1).astype(np.float32)}


def _make_matmul():
    r = rng(73)
    return uniform(r, (24, 16)), uniform(r, (16, 16)), np.zeros((24, 16), np.float32)


def _ref_matmul(A, B, C):
    return {2: (A.astype(np.float64) @ B).astype(np.float32)}


CASES = [
    Case("barrier_after_early_return", neighbour_sums, _make_neighbours, 4, TPB,
         _ref_neighbours, tol=close(1e-6, 1e-6)),
    Case("barrier_in_guard_all_take", reverse_in_blocks, _make_reverse, 4, TPB, _ref_reverse,
         tol=EXACT),
    Case("barrier_return_in_loop", halving_sum, _make_halving, 5, TPB, _ref_halving,
         tol=close(1e-5, 1e-5)),
    Case("barrier_tiled_matmul_return", tiled_matmul, _make_matmul, (4, 3), (TILE, TILE),
         _ref_matmul, tol=close(1e-5, 1e-5),
         strided="x = grid(2)[0] picks the row: thread_idx.x strides"),
]  # fmt: skip
