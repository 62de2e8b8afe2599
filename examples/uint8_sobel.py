"""Sobel edges of an RGB photograph, on the uint8 pixels Pillow gives (no float32 copy).

    python examples/uint8_sobel.py [PHOTO.png] [--backend cpu] [--out edges.png]

`np.asarray(Image.open(path))` is an H x W x 3 (or x 4) uint8 array; the kernel reads it as
it is (each uint8 pixel computes in int32/float32, docs/semantics.md) and writes a uint8 H x W
edge image, which Pillow saves. Without a photo a synthetic picture is made (and saved first,
so the run starts from a PNG as a user's would). The result is checked against a float64
NumPy Sobel of the channel mean.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

import simt


@simt.kernel
def sobel_rgb(img, out):
    x, y = simt.grid(2)
    h, w = out.shape
    if y < h and x < w:
        gx = 0.0
        gy = 0.0
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                wx = dx * (2 - dy * dy)
                wy = dy * (2 - dx * dx)
                if wx != 0 or wy != 0:
                    yy = min(max(y + dy, 0), h - 1)
                    xx = min(max(x + dx, 0), w - 1)
                    v = (img[yy, xx, 0] + img[yy, xx, 1] + img[yy, xx, 2]) * (1.0 / 3.0)
                    gx += wx * v
                    gy += wy * v
        out[y, x] = min((gx * gx + gy * gy) ** 0.5 * 0.25, 255.0)  # stored as uint8


def main() -> None:
    try:
        from PIL import Image
    except ImportError:
        sys.exit("this example needs Pillow: pip install pillow")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("photo", nargs="?")
    ap.add_argument("--backend", default=None)
    ap.add_argument("--out", default="edges.png")
    a = ap.parse_args()
    if a.backend:
        simt.use(a.backend)
    path = a.photo
    if path is None:
        y, x = np.mgrid[0:480, 0:640] / 480
        rgb = np.stack([np.sin(9 * x) * 0.5 + 0.5, (x * y) % 0.3 / 0.3, (x + y > 1) * 1.0], -1)
        path = str(Path(tempfile.gettempdir()) / "simt_synthetic.png")
        Image.fromarray((rgb * 255).astype(np.uint8)).save(path)
        print(f"no photo given: a synthetic picture, saved as {path}")
    img = np.asarray(Image.open(path))  # uint8, H x W x 3 (or 4), as Pillow gives it
    if img.ndim != 3 or img.dtype != np.uint8:
        sys.exit(f"{path} is not an RGB(A) 8-bit image ({img.dtype}, shape {img.shape})")
    h, w = img.shape[:2]
    edges = np.zeros((h, w), np.uint8)
    sobel_rgb[((w + 15) // 16, (h + 15) // 16), (16, 16)](img, edges)
    g = img[..., :3].astype(np.float64).mean(axis=2)
    p = np.pad(g, 1, mode="edge")
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    ref = np.floor(np.minimum(np.hypot(gx, gy) * 0.25, 255))
    err = np.abs(edges - ref).max()
    print(f"{w} x {h} uint8 RGB -> uint8 edges on {simt.backend()}; max |error| {err:g} level(s)")
    if err > 1:
        sys.exit("the edges differ from the float64 reference")
    Image.fromarray(edges).save(a.out)
    print(f"saved {a.out}")


if __name__ == "__main__":
    main()
