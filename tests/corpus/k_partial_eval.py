"""Partial evaluation: NumPy values computed at compile time (a global array, `np.ravel`,
`zip`), a helper specialised on a known exponent (its loop unrolled), `len` of a known tuple,
and a closure variable frozen at the first compile."""

import numpy as np

import simt

from . import Case, blocks, close, rng, uniform

COEFFS = np.array([0.5, -1.25, 2.0, 0.75], np.float32)  # a polynomial, highest power first
SOBEL_X = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])
TAPS = tuple((dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1))


def power(x, n):
    r = x * 0.0 + 1.0
    for _ in range(n):
        r *= x
    return r


def horner(x):
    acc = 0.0
    for c in COEFFS:
        acc = acc * x + c
    return acc


def make_kernel(scale):
    @simt.kernel
    def evaluate(img, out):
        x, y = simt.grid(2)
        h, w = img.shape
        if y < h and x < w:
            v = img[y, x]
            g = 0.0
            for k, (dy, dx) in zip(np.ravel(SOBEL_X), TAPS):
                if k != 0:
                    g += k * img[min(max(y + dy, 0), h - 1), min(max(x + dx, 0), w - 1)]
            out[0, y, x] = horner(v)
            out[1, y, x] = power(v, 3) + power(v, len(TAPS) - 7)
            out[2, y, x] = g * scale

    return evaluate


evaluate = make_kernel(2.5)
H, W = 20, 30


def _make():
    g = rng(27)
    return uniform(g, (H, W)), np.zeros((3, H, W), np.float32)


def _ref(img, out):
    v = img.astype(np.float64)
    p = np.pad(v, 1, mode="edge")
    g = sum(
        SOBEL_X[dy + 1, dx + 1] * p[1 + dy : 1 + dy + H, 1 + dx : 1 + dx + W]
        for dy in (-1, 0, 1)
        for dx in (-1, 0, 1)
    )
    poly = ((0.5 * v - 1.25) * v + 2.0) * v + 0.75
    return {1: np.stack([poly, v**3 + v**2, 2.5 * g])}


CASES = [
    Case(
        "partial_eval",
        evaluate,
        _make,
        (blocks(W, 8), blocks(H, 8)),
        (8, 8),
        _ref,
        close(1e-5, 1e-5),
    )  # fmt: skip
]
