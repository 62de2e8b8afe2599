"""Ten Jacobi sweeps of the 2-D Laplace equation on a 2048 x 2048 grid, one launch a sweep.

Source: the `laplace2d` Jacobi iteration NVIDIA teaches in its OpenACC and CUDA courses
(NVIDIA/cuda-samples-adjacent "Jacobi iteration" labs; the same stencil as Numba's heat
equation example in its CUDA documentation, `solve_heat_equation`, whose `grid.sync()` between
steps becomes a launch boundary here): one thread per interior point,
`Anew[j, i] = 0.25 * (A[j, i+1] + A[j, i-1] + A[j-1, i] + A[j+1, i])`, blocks of 32 x 8,
the two buffers swapped between sweeps. Translated to simt's API only.

Peer: the same ten sweeps with NumPy slices into a preallocated buffer.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import simt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Job, Made, as_bench_functions, rng, uniform  # noqa: E402

SWEEPS = 10
BX, BY = 32, 8


@simt.kernel
def jacobi_sweep(A, Anew):
    i, j = simt.grid(2)
    m, n = A.shape
    if j >= 1 and j < m - 1 and i >= 1 and i < n - 1:
        Anew[j, i] = 0.25 * (A[j, i + 1] + A[j, i - 1] + A[j - 1, i] + A[j + 1, i])


SIZES = {"full": {"n": 2048}, "test": {"n": 45}}


def _make(p: dict[str, int]) -> dict[str, np.ndarray]:
    return {"a": uniform(rng(4), (p["n"], p["n"]))}


def _sweeps(a: np.ndarray, bufs: list[np.ndarray]) -> np.ndarray:
    """SWEEPS sweeps from `a` (left unchanged) through the two buffers (whose borders hold
    `a`'s): the first reads `a`, each next one the buffer the last one wrote."""
    x = a
    for k in range(SWEEPS):
        y = bufs[k % 2]
        y[1:-1, 1:-1] = 0.25 * (x[1:-1, 2:] + x[1:-1, :-2] + x[:-2, 1:-1] + x[2:, 1:-1])
        x = y
    return x


def _ref(inp: dict[str, np.ndarray], p: dict[str, int]) -> np.ndarray:
    a = inp["a"].astype(np.float64)
    return _sweeps(a, [a.copy(), a.copy()])


def _simt(inp: dict[str, np.ndarray], p: dict[str, int]) -> Made:
    n = p["n"]
    grid = ((n + BX - 1) // BX, (n + BY - 1) // BY)
    a = simt.to_device(inp["a"])
    bufs = [simt.to_device(inp["a"]), simt.to_device(inp["a"])]
    launch = jacobi_sweep[grid, (BX, BY)]

    def run() -> None:  # the same sweeps from the same grid every run (see `_sweeps`)
        x = a
        for k in range(SWEEPS):
            launch(x, bufs[k % 2])
            x = bufs[k % 2]
        simt.synchronize()

    return Made(run, bufs[(SWEEPS - 1) % 2].numpy, [(jacobi_sweep, grid, (BX, BY), (a, bufs[0]))])


def _peers(inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, object]:
    a = inp["a"]
    bufs = [a.copy(), a.copy()]
    return {"numpy": (lambda: _sweeps(a, bufs), lambda: bufs[(SWEEPS - 1) % 2])}


JOBS = [Job("jacobi", SIZES, _make, _ref, _simt, _peers)]  # type: ignore[arg-type]
globals().update(as_bench_functions(JOBS))
