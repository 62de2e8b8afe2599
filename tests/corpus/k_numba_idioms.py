"""Numba-CUDA idioms met while porting programs from the field (trial of 2026-11-26), as
`cuda.jit` kernels: each case runs the simt kernel under the `cuda.jit` (Numba typing:
Python ints int64, float literals float64) on every backend against its reference, and goes
through the corpus's IR, cost-model and NVRTC checks. Our own code, after reading public
programs: a tuple argument unpacked for the sizes, a block-stride row sum into a float64
shared array, a 3 x 3 determinant in a 2-D local array, a namedtuple of parameters, a
`while True` Collatz count with `break`, a nearest-neighbour distance starting from
`math.inf`, a bool argument choosing a branch, a shared array declared in a device function,
a kernel made by a closure over a scale factor, weights from a global NumPy array, xorshift32
and FNV-1a hashes with `np.uint32` wrapping (compared with `numba.njit` while writing them),
`enumerate` and `zip` over rows, `cmath` on complex128, and a row slice summed into int64.
The corpus of whole programs is tests/simt_cuda/numba_corpus/n_field.py."""

import cmath
import math
from collections import namedtuple

import numpy as np

from simt import cuda

from . import Case, close, rng


@cuda.jit
def tuple_sizes(out, dims):
    nx, ny = dims
    i, j = cuda.grid(2)
    if i < nx and j < ny:
        out[i, j] = i * ny + j


@cuda.jit
def block_stride_rows(x, out):
    row = cuda.blockIdx.x
    acc = cuda.shared.array(64, np.float64)
    s = 0.0
    for j in range(cuda.threadIdx.x, x.shape[1], cuda.blockDim.x):
        s += x[row, j]
    acc[cuda.threadIdx.x] = s
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        t = 0.0
        for k in range(cuda.blockDim.x):
            t += acc[k]
        out[row] = t


@cuda.jit
def local_determinant(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        m = cuda.local.array(shape=(3, 3), dtype=np.float64)
        for r in range(3):
            for c in range(3):
                m[r, c] = x[i] * (r + 1) + c * c
        det = (m[0, 0] * (m[1, 1] * m[2, 2] - m[1, 2] * m[2, 1])
               - m[0, 1] * (m[1, 0] * m[2, 2] - m[1, 2] * m[2, 0])
               + m[0, 2] * (m[1, 0] * m[2, 1] - m[1, 1] * m[2, 0]))  # fmt: skip
        out[i] = det + math.pi * m[2, 2]


Params = namedtuple("Params", ["scale", "offset"])


@cuda.jit
def affine_params(x, out, p):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * p.scale + p.offset


@cuda.jit
def collatz_steps(out):
    i = cuda.grid(1)
    if i < out.size:
        n = i + 1
        steps = 0
        while True:
            if n == 1:
                break
            if n % 2 == 0:
                n //= 2
            else:
                n = 3 * n + 1
            steps += 1
        out[i] = steps


@cuda.jit
def nearest_distance(x, out, negate):
    i = cuda.grid(1)
    if i < x.size:
        best = math.inf
        for j in range(x.size):
            if j != i:
                d = abs(x[i] - x[j])
                if d < best:
                    best = d
        out[i] = -best if negate else best


@cuda.jit(device=True)
def reverse_block(a, out):
    s = cuda.shared.array(32, np.float32)
    t = cuda.threadIdx.x
    s[t] = a[t]
    cuda.syncthreads()
    out[t] = s[31 - t]


@cuda.jit
def shared_in_device_function(a, out):
    reverse_block(a, out)


def make_scaler(factor):
    @cuda.jit
    def scale(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * factor

    return scale


scale_by_three = make_scaler(3.0)
WEIGHTS = np.array([0.25, 0.5, 0.25])


@cuda.jit
def global_weights(x, out):
    i = cuda.grid(1)
    if 0 < i < x.size - 1:
        acc = 0.0
        for k in range(3):
            acc += WEIGHTS[k] * x[i + k - 1]
        out[i] = acc


@cuda.jit(device=True)
def xorshift32(seed, n):
    x = np.uint32(seed)
    acc = np.uint32(0)
    for _ in range(n):
        x = np.uint32(x ^ np.uint32(x << 13))
        x = np.uint32(x ^ (x >> 17))
        x = np.uint32(x ^ np.uint32(x << 5))
        acc = np.uint32(acc + x)
    return acc


@cuda.jit(device=True)
def fnv1a(v):
    h = 2166136261
    for k in range(4):
        h = (h ^ ((v >> (8 * k)) & 0xFF)) * 16777619
        h = h & 0xFFFFFFFF
    return h


@cuda.jit
def hashes(seeds, out, out2):
    i = cuda.grid(1)
    if i < seeds.size:
        out[i] = xorshift32(seeds[i], 10)
        out2[i] = fnv1a(seeds[i])


@cuda.jit
def enumerate_zip_rows(a, b, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        s = 0.0
        for k, v in enumerate(a[i]):
            s += k * v
        for x, y in zip(a[i], b[i]):
            s += x * y
        out[i] = s


@cuda.jit
def complex_math(z, out):
    i = cuda.grid(1)
    if i < z.size:
        w = cmath.exp(z[i]) + cmath.sqrt(z[i])
        out[i] = w * z[i].conjugate() + abs(z[i])


@cuda.jit
def row_slice_sums(a, out):
    i = cuda.grid(1)
    if i < a.shape[0]:
        acc = 0
        for v in a[i, 1:4]:
            acc += v
        out[i] = acc


def _xorshift_ref(seed: int, n: int) -> int:
    x, acc = int(seed), 0
    for _ in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        acc = (acc + x) & 0xFFFFFFFF
    return acc


def _fnv_ref(v: int) -> int:
    h = 2166136261
    for k in range(4):
        h = ((h ^ ((v >> (8 * k)) & 0xFF)) * 16777619) & 0xFFFFFFFF
    return h


def _collatz(n: int) -> int:
    s = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        s += 1
    return s


def _det_ref(x, out):
    ref = []
    for v in x:
        m = np.array([[v * (r + 1) + c * c for c in range(3)] for r in range(3)])
        ref.append(np.linalg.det(m) + math.pi * m[2, 2])
    return {1: np.array(ref)}


def _nearest_ref(x, out, negate):
    d = np.abs(x[:, None] - x[None, :])
    np.fill_diagonal(d, np.inf)
    return {1: -d.min(axis=1) if negate else d.min(axis=1)}


def _seeds():
    return (rng(701).integers(1, 2**31, 64).astype(np.uint32), np.zeros(64, np.uint32),
            np.zeros(64, np.int64))  # fmt: skip


def _complex_args():
    g = rng(702)
    return (g.standard_normal(16) + 1j * g.standard_normal(16), np.zeros(16, np.complex128))


def _complex_ref(z, out):
    return {1: (np.exp(z) + np.sqrt(z)) * np.conj(z) + np.abs(z)}


F64 = frozenset({"fp64"})
I64 = frozenset({"int64"})

CASES = [
    Case("numba_tuple_sizes", tuple_sizes.kernel(), lambda: (np.zeros((5, 7), np.int64), (5, 7)),
         (1, 1), (8, 8), lambda out, dims: {0: np.arange(35).reshape(5, 7)}, features=I64),
    Case("numba_block_stride_rows", block_stride_rows.kernel(),
         lambda: (rng(703).random((4, 300)), np.zeros(4)), 4, 64,
         lambda x, out: {1: x.sum(axis=1)}, tol=close(1e-12), features=F64),
    Case("numba_local_determinant", local_determinant.kernel(),
         lambda: (rng(704).random(50), np.zeros(50)), 1, 64, _det_ref, tol=close(1e-9, 1e-9),
         features=F64),
    Case("numba_namedtuple_params", affine_params.kernel(),
         lambda: (rng(705).random(20).astype(np.float32), np.zeros(20, np.float32),
                  Params(2.0, 1.0)),
         1, 32, lambda x, out, p: {1: x * np.float32(2) + np.float32(1)}, tol=close(1e-6)),
    Case("numba_collatz_while_true", collatz_steps.kernel(), lambda: (np.zeros(30, np.int32),),
         1, 32, lambda out: {0: np.array([_collatz(i + 1) for i in range(30)], np.int32)},
         features=I64),
    Case("numba_nearest_from_inf", nearest_distance.kernel(),
         lambda: (rng(706).random(40), np.zeros(40), True), 1, 64, _nearest_ref,
         features=F64),
    Case("numba_shared_in_device_function", shared_in_device_function.kernel(),
         lambda: (rng(707).random(32).astype(np.float32), np.zeros(32, np.float32)), 1, 32,
         lambda a, out: {1: a[::-1].copy()}),
    Case("numba_closure_scale", scale_by_three.kernel(),
         lambda: (rng(708).random(40).astype(np.float32), np.zeros(40, np.float32)), 1, 64,
         lambda x, out: {1: x * np.float32(3)}, tol=close(1e-6)),
    Case("numba_global_weights", global_weights.kernel(),
         lambda: (rng(709).random(50), np.zeros(50)), 1, 64,
         lambda x, out: {1: np.concatenate([[0.0], 0.25 * x[:-2] + 0.5 * x[1:-1]
                                            + 0.25 * x[2:], [0.0]])},
         tol=close(1e-12), features=F64),
    Case("numba_uint32_hashes", hashes.kernel(), _seeds, 1, 64,
         lambda s, o, o2: {1: np.array([_xorshift_ref(v, 10) for v in s], np.uint32),
                           2: np.array([_fnv_ref(int(v)) for v in s], np.int64)},
         features=I64),
    Case("numba_enumerate_zip", enumerate_zip_rows.kernel(),
         lambda: (rng(710).random((6, 4)), rng(711).random((6, 4)), np.zeros(6)), 1, 8,
         lambda a, b, out: {2: (a * np.arange(4)).sum(1) + (a * b).sum(1)}, tol=close(1e-12),
         features=F64),
    Case("numba_cmath", complex_math.kernel(), _complex_args, 1, 16, _complex_ref,
         tol=close(1e-12, 1e-12), features=F64),
    Case("numba_row_slice_sums", row_slice_sums.kernel(),
         lambda: (rng(712).integers(0, 9, (5, 6)).astype(np.int32), np.zeros(5, np.int64)),
         1, 8, lambda a, out: {1: a[:, 1:4].sum(axis=1).astype(np.int64)}, features=I64),
]  # fmt: skip

