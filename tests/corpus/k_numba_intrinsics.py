"""numba.cuda's intrinsics that simt builds in the front end (written in the kernel language
and inlined, or new atomics): `atomic.and_/or_/xor/inc/dec/nanmax/nanmin`, block votes
(`syncthreads_count/and/or`), bit functions (`popc/clz/ffs/brev`), `selp`, `laneid`, and a
dynamic shared array sized by the launch (`shared.array(0, dtype)`) — kernels spelled as for
Numba (`from simt import cuda`); the corpus runs the `simt.Kernel` each `cuda.jit` kernel
makes."""

import numpy as np

from simt import cuda

from . import EXACT, Case, rng


@cuda.jit
def numba_atomics(vals, words, counters, fmax):
    i = cuda.grid(1)
    if i < vals.shape[0]:
        v = vals[i]
        cuda.atomic.and_(words, 0, v | 0x10000)
        cuda.atomic.or_(words, 1, v)
        cuda.atomic.xor(words, 2, v)
        cuda.atomic.inc(counters, 0, np.uint32(9))
        cuda.atomic.dec(counters, 1, np.uint32(9))
        f = np.float32(v) if v % 5 != 0 else np.float32(np.nan)
        cuda.atomic.nanmax(fmax, 0, f)
        cuda.atomic.nanmin(fmax, 1, f)


@cuda.jit
def numba_votes_bits(x, out):
    i = cuda.grid(1)
    v = x[i]
    n = cuda.syncthreads_count(v > 100)
    a = cuda.syncthreads_and(v >= 0)
    o = cuda.syncthreads_or(v > 250)
    out[i, 0] = n * 4 + a * 2 + o
    out[i, 1] = cuda.popc(v) + 100 * cuda.clz(v)
    out[i, 2] = cuda.ffs(v) + 100 * cuda.selp(v > 128, 1, 0)
    out[i, 3] = cuda.brev(v) >> 20
    out[i, 4] = cuda.laneid


@cuda.jit
def numba_dynamic_shared(a, out):
    buf = cuda.shared.array(0, dtype=np.int32)
    t = cuda.threadIdx.x
    buf[t] = a[cuda.grid(1)]
    cuda.syncthreads()
    out[cuda.grid(1)] = buf[cuda.blockDim.x - 1 - t]


@cuda.jit
def numba_last_block_sum(x, partial, count, out):
    """Each block sums its part; the block that takes the last ticket adds the partials (the
    classic pattern `threadfence()` exists for: the partial is visible before the ticket)."""
    sh = cuda.shared.array(64, np.int32)
    t = cuda.threadIdx.x
    sh[t] = x[cuda.grid(1)]
    cuda.syncthreads()
    s = 32
    while s > 0:
        if t < s:
            sh[t] += sh[t + s]
        cuda.syncthreads()
        s //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = sh[0]
        cuda.threadfence()
        ticket = cuda.atomic.add(count, 0, 1)
        if ticket == cuda.gridDim.x - 1:
            cuda.threadfence_block()
            acc = 0
            for b in range(cuda.gridDim.x):
                acc += partial[b]
            out[0] = acc


N = 500


def _make_atomics():
    vals = rng(91).integers(0, 2**16, N).astype(np.int32)
    return (vals, np.array([-1, 0, 0], np.int32), np.array([0, 4], np.uint32),
            np.array([-np.inf, np.inf], np.float32))  # fmt: skip


def _ref_atomics(vals, words, counters, fmax):
    w = np.array([np.bitwise_and.reduce(vals | 0x10000), np.bitwise_or.reduce(vals),
                  np.bitwise_xor.reduce(vals)], np.int32)  # fmt: skip
    inc = N % 10
    d = 4
    for _ in range(N):
        d = 9 if d == 0 or d > 9 else d - 1
    kept = vals[vals % 5 != 0].astype(np.float32)
    return {1: w, 2: np.array([inc, d], np.uint32),
            3: np.array([kept.max(), kept.min()], np.float32)}  # fmt: skip


def _make_votes():
    return rng(92).integers(0, 256, 256).astype(np.uint32), np.zeros((256, 5), np.uint32)


def _ref_votes(x, out):
    r = np.zeros((256, 5), np.uint32)
    for b in range(4):
        blk = x[b * 64 : (b + 1) * 64]
        r[b * 64 : (b + 1) * 64, 0] = (blk > 100).sum() * 4 + 2 * (blk >= 0).all() + (
            blk > 250
        ).any()
    for i, v in enumerate(x):
        v = int(v)
        r[i, 1] = bin(v).count("1") + 100 * (32 - v.bit_length())
        r[i, 2] = (v & -v).bit_length() + 100 * (v > 128)
        r[i, 3] = int(format(v, "032b")[::-1], 2) >> 20
        r[i, 4] = (i % 64) % 32
    return {1: r}


def _make_dyn():
    return np.arange(192, dtype=np.int32) * 3, np.zeros(192, np.int32)


def _ref_dyn(a, out):
    return {1: a.reshape(3, 64)[:, ::-1].ravel().copy()}


def _make_last():
    x = rng(93).integers(-100, 100, 64 * 6).astype(np.int32)
    return x, np.zeros(6, np.int32), np.zeros(1, np.int32), np.zeros(1, np.int32)


def _ref_last(x, partial, count, out):
    return {1: x.reshape(6, 64).sum(1).astype(np.int32), 2: np.array([6], np.int32),
            3: np.array([x.sum()], np.int32)}  # fmt: skip


CASES = [
    Case("numba_atomics_bitwise_inc_nan", numba_atomics.kernel(), _make_atomics, 2, 256,
         _ref_atomics, tol=EXACT, features=frozenset({"atomic_float"})),
    Case("numba_votes_bits_lanes", numba_votes_bits.kernel(), _make_votes, 4, 64, _ref_votes,
         strided="a row of results per thread"),
    Case("numba_dynamic_shared", numba_dynamic_shared.kernel(64 * 4), _make_dyn, 3, 64,
         _ref_dyn),
    Case("numba_last_block_threadfence", numba_last_block_sum.kernel(), _make_last, 6, 64,
         _ref_last, ir_check=lambda text: None if "fence" in text else "no fence op"),
]  # fmt: skip
