"""Monte Carlo integration of 1/x over [1, 2] (ln 2), as Numba's CUDA documentation shows it.

Source: Numba documentation, "CUDA Kernels: Examples: Monte Carlo Integration"
(numba/cuda/tests/doc_examples/test_montecarlo.py: `mc_integrator_kernel`, then
`sum_reduce`, a `@cuda.reduce`), https://numba.readthedocs.io/en/stable/cuda/examples.html .
Translated to simt's API only. simt has no device random generator, so the uniform samples
that Numba's `xoroshiro128p_uniform_float32(rng_states, gid)` draws in the kernel come in as an
array drawn on the host (the same one for every peer); `@cuda.reduce` becomes the sequential
addressing tree reduction of `reductions.py` (Harris's `reduce2`), launched until one value is
left. Block size 256.

Peer: the same integral vectorised with NumPy (`(1 / (s * (hi - lo) + lo)).sum() * factor`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import simt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Job, Made, as_bench_functions, rng  # noqa: E402
from reductions import device_sum, harris_reduce2  # noqa: E402

LOWER, UPPER = 1.0, 2.0


def func(x):  # type: ignore[no-untyped-def]
    return 1.0 / x


@simt.kernel
def mc_integrator_kernel(out, samples, lower_lim, upper_lim):
    """kernel to evaluate the function to be integrated at the sample values"""
    size = len(out)

    gid = simt.grid(1)
    if gid < size:
        # the sample between 0 and 1 of this thread
        samp = samples[gid]

        # normalize this sample to the limit range
        samp = samp * (upper_lim - lower_lim) + lower_lim

        # evaluate the function to be integrated at the normalized value of the sample
        y = func(samp)
        out[gid] = y


SIZES = {"full": {"n": 1 << 22}, "test": {"n": 5_000}}


def _make(p: dict[str, int]) -> dict[str, np.ndarray]:
    return {"s": rng(3).random(p["n"], dtype=np.float32)}


def _factor(n: int) -> float:
    return (UPPER - LOWER) / (n - 1)


def _ref(inp: dict[str, np.ndarray], p: dict[str, int]) -> float:
    s = inp["s"].astype(np.float64)
    return float((1.0 / (s * (UPPER - LOWER) + LOWER)).sum() * _factor(p["n"]))


def _simt(inp: dict[str, np.ndarray], p: dict[str, int]) -> Made:
    n = p["n"]
    s = simt.to_device(inp["s"])
    out = simt.empty((n,), np.float32)
    lo, hi = np.float32(LOWER), np.float32(UPPER)
    blocks = (n + 255) // 256
    launch = mc_integrator_kernel[blocks, 256]
    total, launches = device_sum(harris_reduce2, 1, out, n)
    res = launches[-1][3][1]

    def run() -> None:
        launch(out, s, lo, hi)
        total()  # type: ignore[operator]
        simt.synchronize()

    first = (mc_integrator_kernel, blocks, 256, (out, s, lo, hi))
    return Made(run, lambda: float(res.numpy()[0]) * _factor(n), [first, *launches])


def _peers(inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, object]:
    s = inp["s"]
    lo, hi = np.float32(LOWER), np.float32(UPPER)
    box = [0.0]

    def run() -> None:
        box[0] = float((1 / (s * (hi - lo) + lo)).sum()) * _factor(p["n"])

    return {"numpy": (run, lambda: box[0])}


JOBS = [Job("monte_carlo", SIZES, _make, _ref, _simt, _peers)]  # type: ignore[arg-type]
globals().update(as_bench_functions(JOBS))
