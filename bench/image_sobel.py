"""Sobel edges through `simt.compile(edgeDetect, kernel=SOBEL)`, beside the tuned C Sobel.

    PYTHONPATH=src python bench/image_sobel.py                 # 2048 x 2048, cpu backend
    PYTHONPATH=src python bench/image_sobel.py --backend sim --size 256

The image function is the published PyGPU example as written (`examples/sobel.py` holds the
same): a convolution over `zip(ravel(kernel), offsets(kernel))` that partial evaluation
unrolls into nine weighted reads. It runs beside the hand-written GPU-style Sobel kernel of the
suite (W4), the same as a stencil with a guard on both axes and a 3x3 loop over the known
weights (`sobel_loop`), NumPy, and the C references of `../shared/peers` (`c`: one pixel per
loop iteration with OpenMP; `c-tuned`: rows vectorised), when that kit is present (the output says
so when it is not). Every result is checked against a float64 Sobel magnitude with
nearest-edge borders before anything is timed. Cells: warm median ms (first call); the
variants take turns, five calls each (the first left out), so that a noisy machine weighs on
all alike.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy import ravel, transpose

import simt
from simt.benchtool.suite import Kit
from simt.benchtool.timing import sample
from simt.benchtool.workloads import sobel as w4_sobel
from simt.benchtool.workloads import sobel_numpy
from simt.image import Image, Position

HERE = Path(__file__).resolve().parent

SOBEL = np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])


def offsets(kernel: np.ndarray) -> list[tuple[int, int]]:
    h, w = kernel.shape
    return [(x - w // 2, y - h // 2) for y in range(h) for x in range(w)]


def convolve(kernel: Any, im: Any, p: Any) -> Any:
    return sum([w * im(p + d) for w, d in zip(ravel(kernel), offsets(kernel))])


def edgeDetect(kernel: Any, im: Any = Image, p: Any = Position) -> Any:  # noqa: N802 - PyGPU's
    gx = convolve(kernel, im, p)
    gy = convolve(transpose(kernel), im, p)
    return math.sqrt(gx**2 + gy**2)


# The same convolution with the zero weights left out by the user (`0.0 * x` is not folded
# away: it is NaN for an infinite or NaN pixel), to show what those terms cost.
def convolveNZ(kernel: Any, im: Any, p: Any) -> Any:  # noqa: N802
    return sum([w * im(p + d) for w, d in zip(ravel(kernel), offsets(kernel)) if w != 0])


def edgeNZ(kernel: Any, im: Any = Image, p: Any = Position) -> Any:  # noqa: N802
    gx = convolveNZ(kernel, im, p)
    gy = convolveNZ(transpose(kernel), im, p)
    return math.sqrt(gx**2 + gy**2)


SOBEL_X = SOBEL.astype(np.float32)
SOBEL_Y = SOBEL_X.T.copy()


@simt.kernel
def sobel_loop(img, out):
    """The Sobel as a stencil is often written (issue 28 item 3): a guard on both axes, then a
    3x3 loop over known weights (the zero weights included) reading clamped neighbours."""
    x = simt.block_idx.x * simt.block_dim.x + simt.thread_idx.x
    y = simt.block_idx.y * simt.block_dim.y + simt.thread_idx.y
    h, w = img.shape
    if x < w and y < h:
        gx = 0.0
        gy = 0.0
        for dy in range(3):
            for dx in range(3):
                v = img[min(max(y + dy - 1, 0), h - 1), min(max(x + dx - 1, 0), w - 1)]
                gx += SOBEL_X[dy, dx] * v
                gy += SOBEL_Y[dy, dx] * v
        out[y, x] = math.sqrt(gx * gx + gy * gy)


def cpu_time(run: Callable[[], Any]) -> float:
    """The process's CPU seconds during `run()` (every thread of it, OpenMP's spinning ones
    too): with one thread each, what a call costs on a machine whose other processes take
    the cores away now and then."""
    t0 = time.process_time()
    run()
    return time.process_time() - t0


Timer = Callable[[Callable[[], Any]], float]


def round_robin(
    runs: list[Callable[[], Any]], rounds: int, calls: int = 5, timer: Timer | None = None
) -> list[float]:
    """Each run's warm median in ms. The runs take turns, `calls` calls each per round, so
    that all of them see the same states of a noisy machine; the first call of each turn is
    left out (OpenMP's threads spin on for a while after a C run, on the cores the next run
    needs). `timer` times one call (wall time without it)."""
    times: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for run, ts in zip(runs, times):
            ts += sample(run, simt.synchronize, warmup=1, repeat=calls - 1, min_time=0.0,
                         timer=timer)  # fmt: skip
    return [statistics.median(ts) * 1e3 for ts in times]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--kit", type=Path, default=HERE.parent.parent / "shared" / "peers")
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time by the process's CPU time, not wall time (with one thread each: "
        "SIMT_NUM_THREADS=1 OMP_NUM_THREADS=1; steadier under load)",
    )
    args = ap.parse_args(argv)
    simt.use(args.backend)
    rng = np.random.default_rng(0)
    img = rng.random((args.size, args.size), dtype=np.float32)
    ref = sobel_numpy(img, np.float64)
    out = np.empty_like(img)

    sobel = simt.compile(edgeDetect, kernel=SOBEL)
    nz = simt.compile(edgeNZ, kernel=SOBEL)
    h, w = img.shape
    runs: dict[str, tuple[Callable[[], Any], Callable[[], np.ndarray]]] = {
        "simt.compile(edgeDetect), new image": (lambda: sobel(img), lambda: sobel(img)),
        "simt.compile(edgeDetect), out=": (lambda: sobel(img, out=out), lambda: out),
        "the same, zero weights skipped": (lambda: nz(img, out=out), lambda: out),
        "simt W4 kernel (hand-written)": (
            lambda: w4_sobel[(-(-w // 16), -(-h // 16)), (16, 16)](img, out),
            lambda: out,
        ),
        "simt kernel, guards on both axes, 3x3 loop (16 x 16)": (
            lambda: sobel_loop[(-(-w // 16), -(-h // 16)), (16, 16)](img, out),
            lambda: out,
        ),
        "numpy": (lambda: sobel_numpy(img, np.float32), lambda: sobel_numpy(img, np.float32)),
    }
    kit = Kit(args.kit if args.kit.exists() else None)
    print(kit.status)
    for name in ("c", "c-tuned"):
        made = kit.make(name, "sobel", {"img": img}, {"h": h, "w": w})
        if made is not None:
            runs[name] = made
    clock = "CPU ms" if args.cpu else "ms"
    print(f"Sobel {h} x {w} float32 on {args.backend}: {clock}, median of {args.rounds} turns x "
          "4 warm calls (first call)\n")  # fmt: skip
    firsts = {}
    for name, (run, result) in runs.items():
        firsts[name] = sample(run, simt.synchronize, warmup=0, repeat=1, min_time=0.0)[0] * 1e3
        err = float(np.max(np.abs(result() - ref)) / np.max(np.abs(ref)))
        if not err < 1e-5:
            print(f"{name}: WRONG RESULT (max relative error {err:.2e})")
            return 1
    warm = round_robin([run for run, _ in runs.values()], args.rounds,
                       timer=cpu_time if args.cpu else None)  # fmt: skip
    rows = [(name, t, firsts[name]) for name, t in zip(runs, warm)]
    base = {n: t for n, t, _ in rows}
    peer = "c-tuned" if "c-tuned" in base else "numpy"
    print(f"| variant | ms | / {peer} |\n|---|---|---|")
    for name, warm, first in rows:
        print(f"| {name} | {warm:.3g} ({first:.3g}) | {warm / base[peer]:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
