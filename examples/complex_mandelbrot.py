"""Mandelbrot as Python users write it, with complex numbers: `z = z * z + c`.

    python examples/complex_mandelbrot.py [--backend cpu] [--out mandelbrot.png]

`complex(...)`, `z * z + c` and `abs(z)` compile to float arithmetic on the real and imaginary
parts (docs/semantics.md), so the kernel costs what the hand-split real form costs; both run
here, their counts are compared, and the times printed side by side.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import simt


@simt.kernel
def mandelbrot(out, x0, y0, dx, dy, iters):
    px, py = simt.grid(2)
    h, w = out.shape
    if py < h and px < w:
        c = complex(x0 + px * dx, y0 + py * dy)
        z = 0j
        n = 0
        while n < iters and abs(z) < 2.0:
            z = z * z + c
            n += 1
        out[py, px] = n


@simt.kernel
def mandelbrot_real(out, x0, y0, dx, dy, iters):
    px, py = simt.grid(2)
    h, w = out.shape
    if py < h and px < w:
        cr, ci = x0 + px * dx, y0 + py * dy
        zr, zi = 0.0, 0.0
        n = 0
        while n < iters and (zr * zr + zi * zi) ** 0.5 < 2.0:
            zr, zi = zr * zr - zi * zi + cr, zr * zi + zi * zr + ci
            n += 1
        out[py, px] = n


def best_ms(run, repeat: int = 5) -> float:  # type: ignore[no-untyped-def]
    run()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        run()
        simt.synchronize()
        ts.append(time.perf_counter() - t)
    return min(ts) * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default=None)
    ap.add_argument("--width", type=int, default=1024)
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    if a.backend:
        simt.use(a.backend)
    w, h = a.width, a.width * 3 // 4
    view = (-2.2, -1.2, 3.2 / w, 2.4 / h, a.iters)
    counts = np.zeros((h, w), np.int32)
    real = np.zeros((h, w), np.int32)
    grid = ((w + 15) // 16, (h + 15) // 16)
    run_c = lambda: mandelbrot[grid, (16, 16)](counts, *view)  # noqa: E731
    run_r = lambda: mandelbrot_real[grid, (16, 16)](real, *view)  # noqa: E731
    tc, tr = best_ms(run_c), best_ms(run_r)
    same = int((counts == real).sum())
    print(
        f"{w} x {h}, {a.iters} iterations on {simt.backend()}: complex {tc:.2f} ms, "
        f"real {tr:.2f} ms (ratio {tc / tr:.2f}); {same} of {counts.size} counts equal"
    )
    if a.out:
        from PIL import Image

        img = (255 * (counts / a.iters) ** 0.5).astype(np.uint8)
        Image.fromarray(img).save(a.out)
        print(f"saved {a.out}")


if __name__ == "__main__":
    main()
