"""Sobel magnitude with clamped borders, through a helper function that clamps the index."""

import math

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx

from . import Case, blocks, norm, rng, uniform


def px(img, y, x):
    h, w = img.shape
    return img[min(max(y, 0), h - 1), min(max(x, 0), w - 1)]


@simt.kernel
def sobel(img, out):
    x = block_idx.x * block_dim.x + thread_idx.x
    y = block_idx.y * block_dim.y + thread_idx.y
    if y < img.shape[0] and x < img.shape[1]:
        gx = (px(img, y - 1, x + 1) + 2.0 * px(img, y, x + 1) + px(img, y + 1, x + 1)) - (
            px(img, y - 1, x - 1) + 2.0 * px(img, y, x - 1) + px(img, y + 1, x - 1)
        )
        gy = (px(img, y + 1, x - 1) + 2.0 * px(img, y + 1, x) + px(img, y + 1, x + 1)) - (
            px(img, y - 1, x - 1) + 2.0 * px(img, y - 1, x) + px(img, y - 1, x + 1)
        )
        out[y, x] = math.sqrt(gx * gx + gy * gy)


H, W = 45, 70


def _make():
    g = rng(6)
    return uniform(g, (H, W)), np.zeros((H, W), np.float32)


def _ref(img, out):
    p = np.pad(img.astype(np.float64), 1, mode="edge")

    def s(dy, dx):
        return p[1 + dy : 1 + dy + H, 1 + dx : 1 + dx + W]

    gx = (s(-1, 1) + 2 * s(0, 1) + s(1, 1)) - (s(-1, -1) + 2 * s(0, -1) + s(1, -1))
    gy = (s(1, -1) + 2 * s(1, 0) + s(1, 1)) - (s(-1, -1) + 2 * s(-1, 0) + s(-1, 1))
    return {1: np.sqrt(gx * gx + gy * gy)}


CASES = [Case("sobel", sobel, _make, (blocks(W, 16), blocks(H, 16)), (16, 16), _ref, norm(1e-5))]
