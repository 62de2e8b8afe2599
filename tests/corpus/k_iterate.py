"""Iterating run-time arrays as Numba-CUDA kernels do (written here, in the style of course
material and ray-tracing/geometry tools): `for v in row` over a row view, `for row in a` over
a 2-D array, `p1x, p1y = p[i]` (unpacking a row), `zip(index, strides)` (a strided offset, as
MiniTorch's index helpers compute it), `enumerate` with and without a start, `reversed` over
an array and over a range with run-time bounds."""

import numpy as np

import simt

from . import EXACT, Case, close, rng, uniform


@simt.kernel
def row_norms(a, out):
    i = simt.grid(1)
    if i < a.shape[0]:
        s = 0.0
        for v in a[i]:
            s += v * v
        out[i] = s


@simt.kernel
def segment_lengths(p, out):
    i = simt.grid(1)
    if i < p.shape[0] - 1:
        p1x, p1y = p[i]
        p2x, p2y = p[i + 1]
        out[i] = (p2x - p1x) ** 2 + (p2y - p1y) ** 2


def index_to_position(index, strides):
    pos = 0
    for ind, stride in zip(index, strides):
        pos += ind * stride
    return pos


@simt.kernel
def gather_strided(indices, strides, src, out):
    i = simt.grid(1)
    if i < indices.shape[0]:
        out[i] = src[index_to_position(indices[i], strides)]


@simt.kernel
def weighted_columns(a, out):
    # each thread walks the whole array: rows, then (position, value) pairs of each row
    i = simt.grid(1)
    if i < out.size:
        s = 0
        for row in a:
            for k, v in enumerate(row, 1):
                s += (k + i) * v
        out[i] = s


@simt.kernel
def horner_back(coeffs, xs, out):
    i = simt.grid(1)
    if i < xs.size:
        x = xs[i]
        acc = 0.0
        for c in reversed(coeffs):
            acc = acc * x + c
        out[i] = acc


@simt.kernel
def countdown(out, lo, hi):
    i = simt.grid(1)
    if i < out.size:
        s = 0
        for k, j in zip(reversed(range(lo, hi)), range(i, i + 1000)):
            s = s * 3 + k * j
        out[i] = s


def _make_norms():
    return uniform(rng(60), (77, 5)), np.zeros(77, np.float32)


def _ref_norms(a, out):
    return {1: (a.astype(np.float64) ** 2).sum(1).astype(np.float32)}


def _make_segments():
    return uniform(rng(61), (90, 2)), np.zeros(89, np.float32)


def _ref_segments(p, out):
    d = np.diff(p.astype(np.float64), axis=0)
    return {1: (d**2).sum(1).astype(np.float32)}


def _make_gather():
    r = rng(62)
    shape = (4, 5, 6)
    src = r.integers(-1000, 1000, int(np.prod(shape))).astype(np.int32)
    idx = np.stack([r.integers(0, n, 150) for n in shape], 1).astype(np.int32)
    strides = np.array([30, 6, 1], np.int32)
    return idx, strides, src, np.zeros(150, np.int32)


def _ref_gather(indices, strides, src, out):
    return {3: src[(indices * strides).sum(1)]}


def _make_weighted():
    return rng(63).integers(-9, 9, (6, 4)).astype(np.int32), np.zeros(40, np.int32)


def _ref_weighted(a, out):
    k = np.arange(1, a.shape[1] + 1)
    i = np.arange(out.size)[:, None, None]
    return {1: ((k + i) * a).sum((1, 2)).astype(np.int32)}


def _make_horner():
    return uniform(rng(64), (7,)), uniform(rng(65), (100,)), np.zeros(100, np.float32)


def _ref_horner(coeffs, xs, out):
    acc = np.zeros(xs.size)
    for c in coeffs[::-1]:
        acc = acc * xs + c
    return {2: acc.astype(np.float32)}


def _make_countdown():
    return np.zeros(50, np.int32), 3, 11


def _ref_countdown(out, lo, hi):
    res = []
    for i in range(out.size):
        s = 0
        for k, j in zip(reversed(range(lo, hi)), range(i, i + 1000)):
            s = (s * 3 + k * j) & 0xFFFFFFFF
        res.append(s)
    return {0: np.array(res, np.uint32).view(np.int32)}


CASES = [
    Case("iterate_row_view", row_norms, _make_norms, 3, 32, _ref_norms, tol=close(1e-5, 1e-6),
         strided="each thread walks its own row"),
    Case("iterate_unpack_rows", segment_lengths, _make_segments, 3, 32, _ref_segments,
         tol=close(1e-5, 1e-6), strided="each thread walks its own row"),
    Case("iterate_zip_strides", gather_strided, _make_gather, 5, 32, _ref_gather, tol=EXACT,
         strided="each thread walks its own row"),
    Case("iterate_rows_enumerate", weighted_columns, _make_weighted, 2, 32, _ref_weighted,
         tol=EXACT),
    Case("iterate_reversed_array", horner_back, _make_horner, 4, 32, _ref_horner,
         tol=close(1e-5, 1e-6)),
    Case("iterate_reversed_range_zip", countdown, _make_countdown, 2, 32, _ref_countdown,
         tol=EXACT),
]  # fmt: skip
