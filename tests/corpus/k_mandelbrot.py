"""Mandelbrot (W3 in small): a `while` whose condition differs per thread, left by `break`."""

import numpy as np

import simt

from . import Case, l1


@simt.kernel
def mandelbrot(out, max_iter):
    col, row = simt.grid(2)
    h, w = out.shape
    if row < h and col < w:
        x0 = col / w * 0.13 - 0.62
        y0 = row / h * 0.13 - 0.65
        x = 0.0
        y = 0.0
        it = 0
        while x * x + y * y <= 4.0:
            if it >= max_iter:
                break
            xt = x * x - y * y + x0
            y = 2.0 * x * y + y0
            x = xt
            it += 1
        out[row, col] = it


H, W, MAX_ITER = 70, 90, 30


def _make():
    return np.full((H, W), -1, np.int32), MAX_ITER


def _ref(out, max_iter):
    X = np.arange(W, dtype=np.float64)[None, :]
    Y = np.arange(H, dtype=np.float64)[:, None]
    x0 = np.broadcast_to(X / W * 0.13 - 0.62, (H, W))
    y0 = np.broadcast_to(Y / H * 0.13 - 0.65, (H, W))
    x = np.zeros((H, W))
    y = np.zeros((H, W))
    cnt = np.zeros((H, W), np.int32)
    for _ in range(max_iter):
        act = x * x + y * y <= 4.0
        cnt += act
        xt = np.where(act, x * x - y * y + x0, x)
        y = np.where(act, 2.0 * x * y + y0, y)
        x = xt
    return {0: cnt}


CASES = [Case("mandelbrot", mandelbrot, _make, (6, 5), (16, 16), _ref, l1(2e-3))]
