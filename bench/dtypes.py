"""The element types users bring, beside their float32 forms: a uint8 Sobel on an RGB image as
Pillow gives it, and Mandelbrot written with complex numbers (`z = z * z + c`).

    PYTHONPATH=src python bench/dtypes.py                  # cpu backend, 2048 x 2048
    PYTHONPATH=src python bench/dtypes.py --backend sim --size 256

Each pair is one kernel body on two element types: the uint8 Sobel reads H x W x 3 uint8
pixels (grey = mean of the channels, in int32/float32 arithmetic) and writes uint8 edges; its
float32 form reads and writes float32 arrays of the same values. The complex Mandelbrot
carries `z` as a complex number; the real form carries its two parts by hand. Every result is
checked against a float64 NumPy reference before timing (uint8: within one level; Mandelbrot:
iteration counts equal but for a few boundary pixels where float32 rounding differs). Times:
warm medians, the variants taking turns; the ratio is typed form / float32 form.

Measured (cpu backend, `--size 2048 --rounds 3`, a 2-core container shared with five other
jobs, load average about 2.5, 2026-11-25 08:50 UTC):

    workload                            typed ms  float32 ms   ratio
    Sobel 2048x2048 RGB, uint8 vs float32     21.26       27.11    0.78
    Mandelbrot 1024x1024, complex vs real      4.13        4.12    1.00

(bench/RESULTS.md has later measurements, with the Mandelbrot pair taken from
examples/complex_mandelbrot.py.)

The uint8 Sobel reads a quarter of the bytes of the float32 one (pixels widen in registers);
the complex Mandelbrot is the real one's float arithmetic once `simt.complexnum` is inlined.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import simt
from simt.benchtool.timing import sample


def _example(name: str) -> Any:
    """The module examples/`name`.py: the benchmark times the example's own kernels."""
    path = Path(__file__).resolve().parent.parent / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"simt_example_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_mandelbrot = _example("complex_mandelbrot")
mandel_complex = _mandelbrot.mandelbrot  # z = z * z + c
mandel_real = _mandelbrot.mandelbrot_real  # the same with the parts split by hand


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
        out[y, x] = min((gx * gx + gy * gy) ** 0.5 * 0.25, 255.0)


def sobel_reference(img: np.ndarray) -> np.ndarray:
    """float64 Sobel magnitude of the channel mean, nearest-edge borders, / 4, clipped."""
    g = img.astype(np.float64).mean(axis=2)
    p = np.pad(g, 1, mode="edge")
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    return np.minimum(np.hypot(gx, gy) * 0.25, 255.0)


def mandel_reference(h: int, w: int, x0: float, y0: float, dx: float, dy: float,
                     iters: int) -> np.ndarray:  # fmt: skip
    c = (x0 + np.arange(w) * dx)[None, :] + 1j * (y0 + np.arange(h) * dy)[:, None]
    z = np.zeros_like(c)
    n = np.zeros(c.shape, np.int32)
    for _ in range(iters):
        act = np.abs(z) < 2
        z = np.where(act, z * z + c, z)
        n += act
    return n


def photo(size: int) -> np.ndarray:
    """An RGB test picture, as Pillow gives a decoded PNG (`np.asarray(Image.open(p))`)."""
    try:
        import io

        from PIL import Image
    except ImportError:
        Image = None  # type: ignore[assignment]  # noqa: N806
    y, x = np.mgrid[0:size, 0:size] / size
    rgb = np.stack([np.sin(9 * x) * 0.5 + 0.5, (x * y) % 0.3 / 0.3, (x + y > 1) * 1.0], -1)
    arr = (rgb * 255).astype(np.uint8)
    if Image is None:
        return arr
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    buf.seek(0)
    return np.asarray(Image.open(buf))


def check_sobel(out: np.ndarray, ref: np.ndarray, integer: bool) -> None:
    want = np.floor(ref) if integer else ref
    err = np.abs(out.astype(np.float64) - want).max()
    limit = 1.0 if integer else 1e-3 * 255
    if err > limit:
        raise SystemExit(f"Sobel result wrong: max |error| {err} > {limit}")


def check_mandel(out: np.ndarray, ref: np.ndarray) -> None:
    bad = int((out != ref).sum())
    if bad > max(8, out.size // 500):  # float32 pixels on the set's boundary may differ
        raise SystemExit(f"Mandelbrot wrong at {bad} pixels")


def turns(runs: list[Callable[[], Any]], rounds: int) -> list[float]:
    """Warm median ms of each run; the runs take turns so that a shared machine weighs on all
    alike."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for run, ts in zip(runs, times):
            ts += sample(run, simt.synchronize, warmup=1, repeat=3, min_time=0.0)
    return [statistics.median(ts) * 1e3 for ts in times]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args(argv)
    simt.use(a.backend)
    n = a.size
    img8 = photo(n)
    img32 = img8.astype(np.float32)
    out8, out32 = np.zeros((n, n), np.uint8), np.zeros((n, n), np.float32)
    grid = ((n + 15) // 16, (n + 15) // 16)
    s8 = sobel_rgb.config(grid, (16, 16))
    s8(img8, out8)
    s8(img32, out32)
    ref = sobel_reference(img8)
    check_sobel(out8, ref, integer=True)
    check_sobel(out32, ref, integer=False)
    h, w = n // 2, n // 2
    view = (-2.2, -1.2, 3.2 / w, 2.4 / h, a.iters)
    mc, mr = np.zeros((h, w), np.int32), np.zeros((h, w), np.int32)
    mgrid = ((w + 15) // 16, (h + 15) // 16)
    mandel_complex.config(mgrid, (16, 16))(mc, *view)
    mandel_real.config(mgrid, (16, 16))(mr, *view)
    mref = mandel_reference(h, w, *view)
    check_mandel(mc, mref)
    check_mandel(mr, mref)
    t = turns(
        [
            lambda: s8(img8, out8),
            lambda: s8(img32, out32),
            lambda: mandel_complex.config(mgrid, (16, 16))(mc, *view),
            lambda: mandel_real.config(mgrid, (16, 16))(mr, *view),
        ],
        a.rounds,
    )
    print(f"backend {a.backend}; results checked against float64 NumPy references")
    print(f"{'workload':<34}{'typed ms':>10}{'float32 ms':>12}{'ratio':>8}")
    print(f"{f'Sobel {n}x{n} RGB, uint8 vs float32':<34}{t[0]:>10.2f}{t[1]:>12.2f}"
          f"{t[0] / t[1]:>8.2f}")  # fmt: skip
    print(f"{f'Mandelbrot {h}x{w}, complex vs real':<34}{t[2]:>10.2f}{t[3]:>12.2f}"
          f"{t[2] / t[3]:>8.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
