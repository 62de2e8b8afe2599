"""Array views: rows `a[i]`, `a[i, :]`, columns `a[:, j]`, interiors `a[1:-1, 1:-1]`, strided and
reversed slices with known and run-time bounds, views passed to helpers and sliced again,
`len` and `.shape` of views, an atomic through a view."""

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx

from . import Case, close, rng, uniform


def row_total(row):
    s = 0.0
    for j in range(len(row)):
        s += row[j]
    return s


@simt.kernel
def row_col_sums(a, rows, cols):
    i = block_idx.x * block_dim.x + thread_idx.x
    h, w = a.shape
    if i < h:
        rows[i] = row_total(a[i]) + row_total(a[i, :]) * 0.5
    if i < w:
        cols[i] = row_total(a[:, i])


@simt.kernel
def laplace_interior(a, out):
    x, y = simt.grid(2)
    inner = out[1:-1, 1:-1]
    h, w = inner.shape
    if y < h and x < w:
        up, mid, down = a[y], a[y + 1], a[y + 2]  # row views
        inner[y, x] = up[x + 1] + down[x + 1] + mid[x] + mid[x + 2] - 4.0 * mid[x + 1]


@simt.kernel
def strided(a, out, lo, hi, count):
    i = block_idx.x * block_dim.x + thread_idx.x
    every2 = a[lo:hi:2]
    back = a[::-1]
    tail = a[lo:][::3]  # a view of a view
    if i < len(every2):
        out[i] = every2[i] + back[i] * 100.0 + tail[-1]
    if i < len(a):
        simt.atomic.add(count[1:], 0, 1)


W, H, N = 37, 21, 50


def _make_rc():
    g = rng(31)
    return (
        uniform(g, (H, W), lo=-2.0, hi=2.0),
        np.zeros(H, np.float32),
        np.zeros(W, np.float32),
    )


def _ref_rc(a, rows, cols):
    a64 = a.astype(np.float64)
    return {1: (a64.sum(1) * 1.5).astype(np.float32), 2: a64.sum(0).astype(np.float32)}


def _make_lap():
    g = rng(32)
    return uniform(g, (H, W), lo=-1.0, hi=1.0), np.zeros((H, W), np.float32)


def _ref_lap(a, out):
    a64 = a.astype(np.float64)
    o = np.zeros((H, W), np.float64)
    o[1:-1, 1:-1] = (
        a64[:-2, 1:-1] + a64[2:, 1:-1] + a64[1:-1, :-2] + a64[1:-1, 2:] - 4 * a64[1:-1, 1:-1]
    )
    return {1: o.astype(np.float32)}


def _make_strided():
    g = rng(33)
    return uniform(g, (N,)), np.zeros(N, np.float32), 3, -4, np.zeros(3, np.int32)


def _ref_strided(a, out, lo, hi, count):
    v = a[lo:hi:2].astype(np.float64)
    o = np.zeros(N, np.float64)
    o[: len(v)] = v + a[::-1][: len(v)].astype(np.float64) * 100.0 + float(a[lo:][::3][-1])
    c = count.copy()
    c[1] += N
    return {1: o.astype(np.float32), 4: c}


CASES = [
    Case("views_rows_cols", row_col_sums, _make_rc, 1, 64, _ref_rc, tol=close(1e-5, 1e-5),
         strided="a row per thread; a stride-2 view"),
    Case("views_interior", laplace_interior, _make_lap, (3, 2), (16, 16), _ref_lap,
         tol=close(1e-5, 1e-5)),
    Case("views_strided", strided, _make_strided, 1, 64, _ref_strided, tol=close(1e-6, 1e-4),
         strided="a row per thread; a stride-2 view"),
]  # fmt: skip
