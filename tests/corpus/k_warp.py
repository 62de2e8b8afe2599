"""Warp functions as Numba-CUDA kernels use them (written here, in the style of NVIDIA's
reduction and scan material and Numba's warp tests): a warp sum by `shfl_down_sync`, a block
sum of warp sums through shared memory (the second warp stage under `if warp == 0:`), an
inclusive warp scan by `shfl_up_sync`, a butterfly maximum by `shfl_xor_sync`, a broadcast by
`shfl_sync`, and the votes (`ballot_sync`, `all_sync`, `any_sync`, `activemask`) inside a
branch and after threads returned. Warps are 32 threads of a block in linear order; `sim`
and CUDA run the functions themselves, cpu and webgpu through shared memory
(`passes.warps`)."""

import numpy as np

import simt
from simt import laneid, thread_idx, warpsize

from . import EXACT, Case, close, rng, uniform

FULL = 0xFFFFFFFF
TPB = 128


def warp_reduce(v):
    off = warpsize // 2
    while off > 0:
        v += simt.shfl_down_sync(FULL, v, off)
        off //= 2
    return v


@simt.kernel
def block_sums(a, out):
    sh = simt.shared.array(TPB // 32, simt.float32)
    i = simt.grid(1)
    t = thread_idx.x
    v = warp_reduce(a[i])
    if laneid == 0:
        sh[t // warpsize] = v
    simt.syncthreads()
    if t // warpsize == 0:
        w = sh[laneid] if laneid < TPB // 32 else 0.0
        w = warp_reduce(w)
        if laneid == 0:
            out[simt.blockIdx.x] = w


@simt.kernel
def scan_max_broadcast(a, scan, top, first):
    i = simt.grid(1)
    v = a[i]
    s = v
    d = 1
    while d < 32:
        x = simt.shfl_up_sync(FULL, s, d)
        if laneid >= d:
            s += x
        d *= 2
    scan[i] = s
    m = v
    for k in (16, 8, 4, 2, 1):
        m = max(m, simt.shfl_xor_sync(FULL, m, k))
    top[i] = m
    first[i] = simt.shfl_sync(FULL, v * 2, 0)


@simt.kernel
def votes(a, out, n):
    i = simt.grid(1)
    if i >= n:
        return  # these lanes leave: activemask no longer names them
    p = a[i] > 0
    out[i, 0] = simt.ballot_sync(FULL, p)
    out[i, 1] = simt.all_sync(FULL, p)
    out[i, 2] = simt.any_sync(FULL, p)
    out[i, 3] = simt.activemask()
    # a vote inside a branch names exactly the lanes that take it (CUDA: every lane a mask
    # names must make the call; a constant mask here is an illegal instruction on an H100)
    thirds = simt.ballot_sync(FULL, i % 3 == 0)
    if i % 3 == 0:
        out[i, 4] = simt.activemask()
        out[i, 5] = simt.ballot_sync(thirds, p) & 0x0F0F0F0F
    simt.syncwarp()
    out[i, 6] = laneid


def _make_sums():
    return uniform(rng(80), (4 * TPB,)), np.zeros(4, np.float32)


def _ref_sums(a, out):
    return {1: a.reshape(-1, TPB).astype(np.float64).sum(1).astype(np.float32)}


def _make_scan():
    a = rng(81).integers(-50, 50, 3 * TPB).astype(np.int32)
    return a, np.zeros_like(a), np.zeros_like(a), np.zeros_like(a)


def _ref_scan(a, scan, top, first):
    w = a.reshape(-1, 32)
    return {1: np.cumsum(w, 1, dtype=np.int32).ravel(),
            2: np.repeat(w.max(1), 32),
            3: np.repeat(w[:, 0] * 2, 32)}  # fmt: skip


def _make_votes():
    a = rng(82).integers(-3, 3, 2 * TPB).astype(np.int32)
    a[32:64] = 1  # one warp where every predicate holds
    return a, np.zeros((2 * TPB, 7), np.uint32), 2 * TPB - 45


def _bits(flags: np.ndarray) -> int:
    return int(sum(1 << k for k, f in enumerate(flags) if f))


def _ref_votes(a, out, n):
    ref = out.copy()
    for w in range(0, len(a), 32):
        lanes = [i for i in range(w, w + 32) if i < n]
        if not lanes:
            continue
        p = np.array([a[i] > 0 for i in lanes])
        act = _bits(np.ones(len(lanes), bool))
        thirds = [i for i in lanes if i % 3 == 0]
        for i in lanes:
            ref[i, :4] = [_bits(p), p.all(), p.any(), act]
            if i % 3 == 0:
                ref[i, 4] = sum(1 << (j - w) for j in thirds)
                ref[i, 5] = sum(1 << (j - w) for j in thirds if a[j] > 0) & 0x0F0F0F0F
            ref[i, 6] = i - w
    return {1: ref}


CASES = [
    Case("warp_block_sums", block_sums, _make_sums, 4, TPB, _ref_sums, tol=close(1e-5, 1e-5)),
    Case("warp_scan_max_broadcast", scan_max_broadcast, _make_scan, 3, TPB, _ref_scan,
         tol=EXACT),
    Case("warp_votes_after_return", votes, _make_votes, 2, TPB, _ref_votes, tol=EXACT,
         strided="a row of results per thread"),
]  # fmt: skip
