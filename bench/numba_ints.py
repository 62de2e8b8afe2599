"""What Numba's int64 typing costs `simt.cuda.jit` kernels: each kernel timed with Python ints
int64 (Numba's rule, the default) and with simt's int32 rule (forced), per backend.

    PYTHONPATH=src python bench/numba_ints.py                    # cpu and webgpu, table
    PYTHONPATH=src python bench/numba_ints.py --backends cpu --rounds 9

The kernels are the common shapes of course code: an element-wise saxpy over 4M floats, a
5-point stencil on a 2048 x 2048 grid (2-D `cuda.grid`, index arithmetic per access), a
shared-memory tiled matmul (256 x 256) and a grid-stride histogram. The ratio is int64 time /
int32 time (1.00: no cost). Times are medians of `--rounds` warm launches with the data on the
device (`cuda.to_device`), synchronised, the two rules' launches interleaved.

Measured under load (a 2-core machine shared with seven other engineers' builds and tests,
load average 13-16, 2026-11-26 08:45 UTC; re-measure on an idle machine): between two runs of
`--rounds 31` the same cpu ratio moved by up to 40% (saxpy 1.07 then 0.80, stencil 1.40 then
0.83, tiled matmul 1.00 and 0.99), so at this load only one cost is clear: the histogram,
whose bin is `int(x * n) % n` (a 64-bit floor modulo per element), is 1.2x-2.9x slower on cpu
in int64. webgpu (lavapipe, `--rounds 9`): 0.89-1.07 for all four.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import simt
from simt import cuda


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def stencil(u, v):
    j, i = cuda.grid(2)  # x along a row: consecutive threads read consecutive elements
    n, m = u.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) - u[i, j]


TPB = 16


@cuda.jit
def matmul(a, b, c):
    sa = cuda.shared.array((TPB, TPB), np.float32)
    sb = cuda.shared.array((TPB, TPB), np.float32)
    x, y = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = 0.0
    for t in range(a.shape[1] // TPB):
        sa[ty, tx] = a[y, t * TPB + tx]
        sb[ty, tx] = b[t * TPB + ty, x]
        cuda.syncthreads()
        for k in range(TPB):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[y, x] = acc


@cuda.jit
def histogram(data, bins):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, data.shape[0], stride):
        cuda.atomic.add(bins, int(data[i] * bins.shape[0]) % bins.shape[0], 1)


def cases() -> list[tuple[str, Any, tuple[Any, Any], Callable[[], tuple[Any, ...]]]]:
    rng = np.random.default_rng(1)
    n = 1 << 22
    x, y = rng.random(n, np.float32), rng.random(n, np.float32)
    u = rng.random((2048, 2048), np.float32)
    a, b = rng.random((256, 256), np.float32), rng.random((256, 256), np.float32)
    d = rng.random(1 << 20, np.float32)
    return [
        ("saxpy 4M", saxpy, (n // 256, 256),
         lambda: (np.float32(2.0), cuda.to_device(x), cuda.to_device(y),
                  cuda.device_array(n, np.float32))),
        ("stencil 2048^2", stencil, ((128, 128), (16, 16)),
         lambda: (cuda.to_device(u), cuda.device_array_like(u))),
        ("matmul 256 tiled", matmul, ((16, 16), (TPB, TPB)),
         lambda: (cuda.to_device(a), cuda.to_device(b), cuda.device_array((256, 256), np.float32))),
        ("histogram 1M", histogram, (64, 256),
         lambda: (cuda.to_device(d), cuda.to_device(np.zeros(64, np.int32)))),
    ]  # fmt: skip


def timed(launches: list[Any], args: tuple[Any, ...], rounds: int) -> list[float]:
    """The median seconds of each launcher, their rounds interleaved (a shared machine's
    slow moments fall on both alike)."""
    for launch in launches:
        launch(*args)
        simt.synchronize()
    times: list[list[float]] = [[] for _ in launches]
    for _ in range(rounds):
        for t, launch in zip(times, launches):
            t0 = time.perf_counter()
            launch(*args)
            simt.synchronize()
            t.append(time.perf_counter() - t0)
    return [statistics.median(t) for t in times]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backends", nargs="+", default=["cpu", "webgpu"])
    ap.add_argument("--rounds", type=int, default=7)
    opts = ap.parse_args()
    print(f"{'backend':8} {'kernel':18} {'int32 ms':>9} {'int64 ms':>9} {'ratio':>6}")
    ratios = []
    for be in opts.backends:
        try:
            simt.use(be)
        except simt.BackendUnavailable as e:
            print(f"{be}: unavailable ({e})")
            continue
        for name, k, cfg, make in cases():
            args = make()
            wide, narrow = cuda.jit(k.py_func), cuda.jit(k.py_func)
            # simt's int32 rule, forced on this one kernel (a device without int64 gets it)
            narrow.kernel(0).numba_ints = lambda rt: False  # type: ignore[method-assign]
            t32, t64 = (x * 1e3 for x in timed([narrow[cfg], wide[cfg]], args, opts.rounds))
            ratios.append(t64 / t32)
            print(f"{be:8} {name:18} {t32:9.3f} {t64:9.3f} {ratios[-1]:6.2f}")
    if ratios:
        print(f"geometric mean int64/int32: {math.exp(statistics.mean(map(math.log, ratios))):.2f}")


if __name__ == "__main__":
    main()
