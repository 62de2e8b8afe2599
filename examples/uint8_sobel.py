"""Sobel edges of an RGB photograph, on the uint8 pixels Pillow gives (no float32 copy).

    python examples/uint8_sobel.py [PHOTO.png] [--backend cpu] [--out edges.png]

`np.asarray(Image.open(path))` is an H x W x 3 (or x 4) uint8 array. The per-pixel function
is compiled with `normalize=True`: the kernel reads the uint8 pixels as values in [0, 1]
(level / 255, in the kernel: no float32 copy of the photo) and writes the uint8 H x W edge
image as round(v * 255), clamped (docs/language.md, "Image kernels"), which Pillow saves.
Without a photo a synthetic picture is made (and saved first, so the run starts from a PNG
as a user's would). The result is checked against a float64 NumPy Sobel of the channel mean.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

import simt
from simt.image import Image, Position

# the Sobel taps as (dx, dy, weight), known while compiling: six reads per direction
GX = [(dx, dy, dx * (2 - dy * dy)) for dy in (-1, 0, 1) for dx in (-1, 1)]
GY = [(dx, dy, dy * (2 - dx * dx)) for dy in (-1, 1) for dx in (-1, 0, 1)]


def grey(im: Image, p: Position) -> Any:
    c = im(p)
    return (c[0] + c[1] + c[2]) * (1.0 / 3.0)


def sobel_rgb(im: Image, p: Position) -> Any:
    gx = sum([w * grey(im, p + (dx, dy)) for dx, dy, w in GX])
    gy = sum([w * grey(im, p + (dx, dy)) for dx, dy, w in GY])
    return math.sqrt(gx * gx + gy * gy) * 0.25  # in [0, 1] for most photos; clamped on write


def main() -> None:
    try:
        from PIL import Image as PILImage
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
        PILImage.fromarray((rgb * 255).astype(np.uint8)).save(path)
        print(f"no photo given: a synthetic picture, saved as {path}")
    img = np.asarray(PILImage.open(path))  # uint8, H x W x 3 (or 4), as Pillow gives it
    if img.ndim != 3 or img.dtype != np.uint8:
        sys.exit(f"{path} is not an RGB(A) 8-bit image ({img.dtype}, shape {img.shape})")
    h, w = img.shape[:2]
    edges = simt.compile(sobel_rgb, normalize=True)(img)  # uint8 in, uint8 H x W out
    g = img[..., :3].astype(np.float64).mean(axis=2)
    p = np.pad(g, 1, mode="edge")
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    ref = np.floor(np.minimum(np.hypot(gx, gy) * 0.25, 255) + 0.5)  # levels, rounded
    err = np.abs(edges - ref).max()
    print(f"{w} x {h} uint8 RGB -> uint8 edges on {simt.backend()}; max |error| {err:g} level(s)")
    if err > 1:
        sys.exit("the edges differ from the float64 reference")
    PILImage.fromarray(edges).save(a.out)
    print(f"saved {a.out}")


if __name__ == "__main__":
    main()
