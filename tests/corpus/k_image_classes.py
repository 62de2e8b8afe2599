"""simt.image's classes inside an ordinary kernel: an Image of a colour array sampled at
Positions with the three edge modes, Color arithmetic, `dot`, and `len`/indexing of a user
object (Color's __len__ and __getitem__)."""

import numpy as np

import simt
from simt.image import Image, Position, dot

from . import Case, blocks, close, rng, uniform


@simt.kernel
def shade(img, out):
    x, y = simt.grid(2)
    h = img.shape[0]
    w = img.shape[1]
    if y < h and x < w:
        im = Image(img, "clamp", 3)
        p = Position(x, y)
        c = (im(p + (-1, 0)) + 2 * im(p) + im(p + (1, 0))) / 4
        out[0, y, x] = dot(c, (0.25, 0.5, 0.25))
        out[1, y, x] = c[len(c) - 1]
        out[2, y, x] = Image(img, "wrap", 3)(p - (0, 1))[0]
        out[3, y, x] = Image(img, "zero", 3)(p + Position(2, 0))[1]


H, W = 13, 21


def _make():
    return uniform(rng(31), (H, W, 3)), np.zeros((4, H, W), np.float32)


def _ref(img, out):
    v = img.astype(np.float64)
    pad = np.pad(v, ((0, 0), (1, 1), (0, 0)), mode="edge")
    c = (pad[:, :-2] + 2 * pad[:, 1:-1] + pad[:, 2:]) / 4
    zero = np.zeros((H, W))
    zero[:, :-2] = v[:, 2:, 1]
    return {1: np.stack([c @ [0.25, 0.5, 0.25], c[:, :, 2], np.roll(v[:, :, 0], 1, axis=0), zero])}


CASES = [
    Case("image_classes", shade, _make, (blocks(W, 8), blocks(H, 8)), (8, 8), _ref,
         close(1e-5, 1e-6), strided="H x W x 3 colour pixels: a thread's loads stride by 3"),
]  # fmt: skip
