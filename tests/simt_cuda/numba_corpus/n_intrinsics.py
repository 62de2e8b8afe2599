"""Kernels exercising numba.cuda's intrinsics the way tutorials and test suites of Numba-CUDA
show them: every atomic with its return value, bit functions, `selp`/`fma`/`cbrt`, half
precision, lane ids and warp size, memory fences. Our own code; each result deterministic."""

import numpy as np

from simt import cuda

from .case import NCase, close


@cuda.jit
def atomic_returns(slots, olds, vals):
    """Each thread owns slot i: every atomic's returned old value is deterministic."""
    i = cuda.grid(1)
    if i < vals.shape[0]:
        v = vals[i]
        olds[i, 0] = cuda.atomic.add(slots, (i, 0), v)
        olds[i, 1] = cuda.atomic.sub(slots, (i, 1), v)
        olds[i, 2] = cuda.atomic.max(slots, (i, 2), v)
        olds[i, 3] = cuda.atomic.min(slots, (i, 3), v)
        olds[i, 4] = cuda.atomic.exch(slots, (i, 4), v)
        olds[i, 5] = cuda.atomic.cas(slots, (i, 5), 7, v)
        olds[i, 6] = cuda.atomic.and_(slots, (i, 6), v)
        olds[i, 7] = cuda.atomic.or_(slots, (i, 7), v)
        olds[i, 8] = cuda.atomic.xor(slots, (i, 8), v)


@cuda.jit
def atomic_shared_counters(vals, out):
    """Many threads on a few counters: the final values are deterministic."""
    i = cuda.grid(1)
    if i < vals.shape[0]:
        v = vals[i]
        cuda.atomic.add(out, 0, v)
        cuda.atomic.max(out, 1, v)
        cuda.atomic.min(out, 2, v)
        cuda.atomic.and_(out, 3, v | 0x100)
        cuda.atomic.or_(out, 4, v)
        cuda.atomic.xor(out, 5, v)


@cuda.jit
def atomic_inc_dec(counters, olds):
    i = cuda.grid(1)
    if i < olds.shape[0]:
        olds[i, 0] = cuda.atomic.inc(counters, i, np.uint32(5))
        olds[i, 1] = cuda.atomic.dec(counters, olds.shape[0] + i, np.uint32(5))
        cuda.atomic.inc(counters, 2 * olds.shape[0], np.uint32(6))  # wraps: 0..6, 0..
        cuda.atomic.dec(counters, 2 * olds.shape[0] + 1, np.uint32(6))


@cuda.jit
def atomic_nan(out, vals):
    i = cuda.grid(1)
    if i < vals.shape[0]:
        cuda.atomic.nanmax(out, 0, vals[i])
        cuda.atomic.nanmin(out, 1, vals[i])


@cuda.jit
def bit_functions(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        v = x[i]
        out[i, 0] = cuda.popc(v)
        out[i, 1] = cuda.clz(v)
        out[i, 2] = cuda.ffs(v)
        out[i, 3] = cuda.brev(v)


@cuda.jit
def bit_functions64(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        w = np.uint64(x[i]) << np.uint64(20)
        out[i, 0] = cuda.popc(w)
        out[i, 1] = cuda.clz(w)
        out[i, 2] = cuda.ffs(w)
        out[i, 3] = cuda.brev(w)


@cuda.jit
def select_fma_cbrt(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i, 0] = cuda.selp(a[i] > b[i], a[i], b[i])
        out[i, 1] = cuda.fma(a[i], b[i], np.float32(0.25))
        out[i, 2] = cuda.cbrt(b[i])


@cuda.jit
def half_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        out[i, 0] = cuda.fp16.hadd(a[i], b[i])
        out[i, 1] = cuda.fp16.hmul(a[i], b[i])
        out[i, 2] = cuda.fp16.hsub(a[i], b[i])
        out[i, 3] = cuda.fp16.hfma(a[i], b[i], a[i])
        out[i, 4] = cuda.fp16.hmax(cuda.fp16.hneg(a[i]), b[i])


@cuda.jit
def lanes_and_fences(out, flags):
    i = cuda.grid(1)
    out[i, 0] = cuda.laneid
    out[i, 1] = cuda.warpsize
    flags[i] = i
    cuda.threadfence_block()
    cuda.threadfence()
    cuda.threadfence_system()
    out[i, 2] = flags[i]


def _atomic_make():
    vals = np.random.default_rng(41).integers(0, 1000, 100).astype(np.int32)
    slots = np.tile(np.array([5, 5, 500, 500, 3, 7, 0x3F0, 0x00F, 0x0FF], np.int32), (100, 1))
    slots[::2, 5] = 8  # cas fails where the slot is not 7
    return slots, np.zeros((100, 9), np.int32), vals


def _atomic_ref(slots, olds, vals):
    s = slots.copy()
    v = vals
    new = np.stack([s[:, 0] + v, s[:, 1] - v, np.maximum(s[:, 2], v), np.minimum(s[:, 3], v),
                    v, np.where(s[:, 5] == 7, v, s[:, 5]), s[:, 6] & v, s[:, 7] | v,
                    s[:, 8] ^ v], 1).astype(np.int32)  # fmt: skip
    return {0: new, 1: slots.copy()}


def _shared_counters_ref(vals, out):
    r = out.copy()
    r[0] += vals.sum()
    r[1] = max(r[1], vals.max())
    r[2] = min(r[2], vals.min())
    r[3] &= np.bitwise_and.reduce(vals | 0x100)
    r[4] |= np.bitwise_or.reduce(vals)
    r[5] ^= np.bitwise_xor.reduce(vals)
    return {1: r}


def _inc_dec_make():
    n = 12
    c = np.zeros(2 * n + 2, np.uint32)
    c[:n] = np.arange(n) % 8
    c[n : 2 * n] = np.arange(n) % 8
    c[2 * n + 1] = 3
    return c, np.zeros((n, 2), np.uint32)


def _inc_dec_ref(c, olds):
    n = olds.shape[0]
    r = c.copy()
    inc_old, dec_old = c[:n].copy(), c[n : 2 * n].copy()
    r[:n] = np.where(inc_old >= 5, 0, inc_old + 1)
    r[n : 2 * n] = np.where((dec_old == 0) | (dec_old > 5), 5, dec_old - 1)
    r[2 * n] = n % 7
    d = 3
    for _ in range(n):
        d = 6 if d == 0 or d > 6 else d - 1
    r[2 * n + 1] = d
    return {0: r, 1: np.stack([inc_old, dec_old], 1)}


def _nan_make():
    v = np.random.default_rng(42).uniform(-5, 5, 64).astype(np.float32)
    v[::7] = np.nan
    return np.array([-np.inf, np.inf], np.float32), v


def _bits_make():
    x = np.random.default_rng(43).integers(0, 2**32, 200, dtype=np.uint64).astype(np.uint32)
    x[:4] = (0, 1, 2**31, 2**32 - 1)
    return x, np.zeros((200, 4), np.uint32)


def _bits_make64():
    x, _ = _bits_make()
    return x, np.zeros((200, 4), np.uint64)


def _host_bits(v, bits):
    v = int(v)
    clz = bits - v.bit_length()
    ffs = (v & -v).bit_length()
    return bin(v).count("1"), clz, ffs, int(format(v, f"0{bits}b")[::-1], 2)


def _bits_ref(x, out):
    return {1: np.array([_host_bits(v, 32) for v in x], np.uint32)}


def _bits_ref64(x, out):
    return {1: np.array([_host_bits((int(v) << 20) & (2**64 - 1), 64) for v in x], np.uint64)}


def _sfc_ref(a, b, out):
    r = np.stack([np.where(a > b, a, b), (a.astype(np.float64) * b + 0.25).astype(np.float32),
                  np.cbrt(b)], 1)  # fmt: skip
    return {2: r.astype(np.float32)}


def _half_make():
    g = np.random.default_rng(44)
    return (g.uniform(-4, 4, 50).astype(np.float16), g.uniform(-4, 4, 50).astype(np.float16),
            np.zeros((50, 5), np.float16))  # fmt: skip


def _half_ref(a, b, out):
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    r = np.stack([a32 + b32, a32 * b32, a32 - b32, a32 * b32 + a32, np.maximum(-a32, b32)], 1)
    return {2: r.astype(np.float16)}


def _lanes_ref(out, flags):
    n = out.shape[0]
    t = np.arange(n) % 64  # blocks of 64 threads
    return {0: np.stack([t % 32, np.full(n, 32), np.arange(n)], 1).astype(np.int32),
            1: np.arange(n, dtype=np.int32)}  # fmt: skip


CASES = [
    NCase("intrinsic_atomic_returns", "Numba docs: every atomic's returned old value",
          atomic_returns, _atomic_make, 1, 128, _atomic_ref),
    NCase("intrinsic_atomic_counters", "Numba docs: atomics racing on shared counters",
          atomic_shared_counters,
          lambda: (np.random.default_rng(45).integers(0, 2**20, 300).astype(np.int32),
                   np.array([0, -1, 2**30, -1, 0, 0], np.int32)), 3, 128,
          _shared_counters_ref),
    NCase("intrinsic_atomic_inc_dec", "Numba docs: atomic.inc and atomic.dec (uint32)",
          atomic_inc_dec, _inc_dec_make, 1, 32, _inc_dec_ref),
    NCase("intrinsic_atomic_nan", "Numba docs: atomic.nanmax and nanmin skip NaN", atomic_nan,
          _nan_make, 1, 64, lambda out, v: {0: np.array([np.nanmax(v), np.nanmin(v)],
                                                         np.float32)}),
    NCase("intrinsic_bits", "Numba docs: popc, clz, ffs, brev on 32-bit words",
          bit_functions, _bits_make, 2, 128, _bits_ref),
    NCase("intrinsic_bits64", "Numba docs: popc, clz, ffs, brev on 64-bit words",
          bit_functions64, _bits_make64, 2, 128, _bits_ref64, numba=False,
          why="Numba's simulator counts clz, ffs and brev of 64-bit words as if they were "
              "32-bit (its kernelapi formats them with '{:032b}'); compiled Numba does not"),
    NCase("intrinsic_selp_fma_cbrt", "Numba docs: selp, fma, cbrt", select_fma_cbrt,
          lambda: (np.random.default_rng(46).uniform(0.1, 9, 100).astype(np.float32),
                   np.random.default_rng(47).uniform(0.1, 9, 100).astype(np.float32),
                   np.zeros((100, 3), np.float32)), 1, 128, _sfc_ref, tol=close(3e-7, 0)),
    NCase("intrinsic_fp16", "Numba docs: cuda.fp16 half-precision arithmetic", half_ops,
          _half_make, 1, 64, _half_ref, tol=close(1e-3, 1e-3)),
    NCase("intrinsic_lanes_fences", "Numba docs: laneid, warpsize, threadfence",
          lanes_and_fences, lambda: (np.zeros((128, 3), np.int32), np.zeros(128, np.int32)), 2,
          64, _lanes_ref),
]  # fmt: skip
