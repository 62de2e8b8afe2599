"""Constant tables: NumPy arrays (and tuples of numbers) known at compile time, indexed by
run-time values — a uint8 gamma lookup on an image, a float64 weight matrix (a float32 table)
read by row and by a loop whose trip count is a run-time value, a table read in both branches
of an `if` and in a loop that unrolls around a thread-dependent index, `simt.const.array_like`
(Numba's spelling) of a bool and an int table, a tuple of numbers, an int64 table whose values
need 64 bits and a float64 table in an `fp64` kernel."""

import numpy as np

import simt
from simt import cuda

from . import EXACT, Case, close, rng

GAMMA = np.array([round(255 * (i / 255) ** 0.45) for i in range(256)], np.uint8)
WEIGHTS = np.linspace(-1.0, 2.0, 20).reshape(4, 5)  # float64: a float32 table
ODD = np.array([i % 2 == 1 for i in range(16)])  # bool
STEPS = np.array([1, -2, 3, -4, 5, -6, 7], np.int64)  # fits 32 bits: an int32 table
PRIMES = (2, 3, 5, 7, 11, 13, 17, 19)  # a tuple of numbers is a table too
BIG = np.array([2**40 + 1, -(2**35), 7], np.int64)  # needs int64
PRECISE = np.array([1 / 3, 2 / 3, 1e-300], np.float64)


def _fn(x):
    return x


@simt.kernel
def gamma(img, out):
    x, y = simt.grid(2)
    if y < img.shape[0] and x < img.shape[1]:
        out[y, x] = GAMMA[img[y, x]]


@simt.kernel
def weights(idx, n, out):
    i = simt.grid(1)
    if i < len(out):
        r = idx[i] % 4
        row = WEIGHTS[r]  # a view of the table's row
        acc = 0.0
        for k in range(n):  # run-time trip count: a run-time index
            acc += row[k % 5] * (k + 1)
        if i % 2 == 0:
            acc += WEIGHTS[r, i % 5]
        else:
            acc -= WEIGHTS[(r + 1) % 4, 4 - i % 5]
        for j in range(3):  # unrolls (j is known), the index still varies by thread
            acc += WEIGHTS[(i + j) % 4, j]
        out[i] = acc


@simt.kernel
def lookups(idx, out):
    i = simt.grid(1)
    if i < len(out):
        odd = simt.const.array_like(ODD)
        steps = cuda.const.array_like(STEPS)
        j = idx[i]
        v = steps[j % 7] * PRIMES[j % 8]
        if odd[j % 16]:
            v += 1000
        out[i] = v + _fn(PRIMES)[(j + 1) % 8]


@simt.kernel
def big_ints(idx, out):
    i = simt.grid(1)
    if i < len(out):
        out[i] = BIG[idx[i] % 3] * 3


@simt.kernel(fp64=True)
def precise(idx, out):
    i = simt.grid(1)
    if i < len(out):
        out[i] = PRECISE[idx[i] % 3] * 3.0


def _make_gamma():
    return rng(3).integers(0, 256, (19, 23)).astype(np.uint8), np.zeros((19, 23), np.uint8)


def _ref_gamma(img, out):
    return {1: GAMMA[img]}


def _make_idx(n, dtype=np.int32):
    def make():
        return rng(n).integers(0, 1000, n).astype(np.int32), np.zeros(n, dtype)

    return make


def _make_weights():
    idx, out = _make_idx(77, np.float32)()
    return idx, 9, out


def _ref_weights(idx, n, out):
    w = WEIGHTS.astype(np.float32).astype(np.float64)
    i = np.arange(len(out))
    r = idx % 4
    acc = sum(w[r, k % 5] * (k + 1) for k in range(n))
    acc = acc + np.where(i % 2 == 0, w[r, i % 5], -w[(r + 1) % 4, 4 - i % 5])
    acc = acc + sum(w[(i + j) % 4, j] for j in range(3))
    return {2: acc.astype(np.float32)}


def _ref_lookups(idx, out):
    primes = np.array(PRIMES)
    v = STEPS[idx % 7] * primes[idx % 8] + np.where(ODD[idx % 16], 1000, 0)
    return {1: (v + primes[(idx + 1) % 8]).astype(np.int32)}


def _ref_big(idx, out):
    return {1: BIG[idx % 3] * 3}


def _ref_precise(idx, out):
    return {1: PRECISE[idx % 3] * 3.0}


def _has_table(text: str) -> str | None:
    return None if "const " in text and "alloc" in text else "no constant table in the IR"


CASES = [
    Case("const_table_gamma", gamma, _make_gamma, (2, 2), (16, 16), _ref_gamma, tol=EXACT,
         ir_check=_has_table),
    Case("const_table_weights", weights, _make_weights, 3, 32, _ref_weights,
         tol=close(1e-5, 1e-5), ir_check=_has_table),
    Case("const_table_lookups", lookups, _make_idx(90), 3, 32, _ref_lookups, tol=EXACT,
         ir_check=_has_table),
    Case("const_table_int64", big_ints, _make_idx(40, np.int64), 2, 32, _ref_big, tol=EXACT,
         features=frozenset({"int64"})),
    Case("const_table_fp64", precise, _make_idx(40, np.float64), 2, 32, _ref_precise,
         tol=EXACT, features=frozenset({"fp64"})),
]  # fmt: skip
