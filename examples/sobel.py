"""PyGPU's published image examples, run by simt: scalarMul and Sobel edge detection.

    python examples/sobel.py [--backend cpu] [--out DIR]

The functions below are written as the PyGPU paper wrote them: per-pixel Python functions of
an `Image` and a `Position`, with the convolution built from `zip`, `ravel`, `transpose`, a
list comprehension and a plain Python helper (`offsets`). `simt.compile(edgeDetect,
kernel=sobelKernel)` runs all of that in CPython while compiling (the kernel matrix is known),
so the GPU program is nine weighted image reads per convolution, nothing else; the result is
checked against a float64 Sobel magnitude with nearest-edge borders, and the input and the
edges are written as PNG files.

The photograph is scikit-image's bundled `camera` (`pip install 'simt[image]'` brings
scikit-image and Pillow); without scikit-image a synthetic test pattern is used instead, and
without Pillow no PNG is written (both say so).
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
from numpy import ravel, transpose

import simt
from simt.image import Float, Image, Position


def scalarMul(c=Float, im=Image, p=Position):  # noqa: N802 - the paper's names
    return c * im(p)


def offsets(kernel):
    h, w = kernel.shape
    return [(x - w // 2, y - h // 2) for y in range(h) for x in range(w)]


def convolve(kernel, im, p):
    return sum([w * im(p + d) for w, d in zip(ravel(kernel), offsets(kernel))])


def edgeDetect(kernel, im=Image, p=Position):  # noqa: N802
    gx = convolve(kernel, im, p)
    gy = convolve(transpose(kernel), im, p)
    return math.sqrt(gx**2 + gy**2)


sobelKernel = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])


def photograph() -> tuple[np.ndarray, str]:
    """A grey float32 image in [0, 1]: scikit-image's `camera`, or a synthetic pattern."""
    try:
        from skimage import data
    except ImportError:
        y, x = np.mgrid[0:512, 0:512].astype(np.float32) / 512
        pattern = 0.5 + 0.5 * np.sin(12 * x * y) * (x * x + y * y < 0.8)
        return pattern.astype(np.float32), "a synthetic pattern (pip install scikit-image)"
    return data.camera().astype(np.float32) / 255, "scikit-image's camera photograph"


def sobel_reference(img: np.ndarray) -> np.ndarray:
    """The Sobel magnitude in float64 with nearest-edge borders, in plain NumPy."""
    a = np.pad(img.astype(np.float64), 1, mode="edge")
    gx = (a[:-2, 2:] + 2 * a[1:-1, 2:] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[1:-1, :-2] + a[2:, :-2])
    gy = (a[2:, :-2] + 2 * a[2:, 1:-1] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[:-2, 1:-1] + a[:-2, 2:])
    return np.hypot(gx, gy)


def save_png(img: np.ndarray, path: Path) -> bool:
    """Write a [0, max] float image as an 8-bit PNG; False when Pillow is missing."""
    try:
        from PIL import Image as PILImage
    except ImportError:
        return False
    scaled = np.clip(img / max(float(img.max()), 1e-12), 0, 1) * 255
    PILImage.fromarray(scaled.astype(np.uint8)).save(path)
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description="PyGPU's Sobel example on simt")
    ap.add_argument("--backend", default=None, help="cuda, webgpu, cpu or sim")
    ap.add_argument("--out", type=Path, default=Path("."), help="where the PNG files go")
    args = ap.parse_args()
    if args.backend:
        simt.use(args.backend)
    photo, what = photograph()
    print(f"input: {what}, {photo.shape[1]} x {photo.shape[0]}; backend {simt.backend()}")

    brighter = simt.compile(scalarMul)(1.5, photo)
    assert np.allclose(brighter, 1.5 * photo), "scalarMul differs from NumPy"

    sobel = simt.compile(edgeDetect, kernel=sobelKernel)
    t0 = time.perf_counter()
    edges = sobel(photo)
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    edges = sobel(photo)
    warm = time.perf_counter() - t0
    ref = sobel_reference(photo)
    err = float(np.abs(edges - ref).max() / ref.max())
    print(f"edges: first call {first * 1e3:.0f} ms (compiling), then {warm * 1e3:.2f} ms; "
          f"max error against float64 NumPy {err:.1e}")  # fmt: skip
    assert err < 1e-5, "the edges differ from the reference"

    args.out.mkdir(parents=True, exist_ok=True)
    if save_png(photo, args.out / "camera.png") and save_png(edges, args.out / "edges.png"):
        print(f"wrote {args.out / 'camera.png'} and {args.out / 'edges.png'}")
    else:
        print("Pillow is not installed: no PNG written (pip install pillow)")
    # What partial evaluation left of zip, ravel, transpose, offsets and the comprehension:
    ir = sobel.ir().splitlines()
    reads = [ln for ln in ir if " = load " in ln]
    print(f"\nthe compiled per-pixel program reads the image {len(reads)} times; its arithmetic:")
    print("\n".join(ln for ln in ir if "float32 = " in ln and " = load " not in ln))


if __name__ == "__main__":
    main()
