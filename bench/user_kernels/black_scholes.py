"""Black-Scholes prices of 2^22 European call and put options.

Source: NVIDIA/cuda-samples `Samples/5_Domain_Specific/BlackScholes/BlackScholes_kernel.cuh`
(`cndGPU`, `BlackScholesBodyGPU`, `BlackScholesGPU`): the polynomial approximation of the
cumulative normal distribution (Abramowitz & Stegun 26.2.17), one option per thread, blocks
of 128, risk-free rate 0.02 and volatility 0.30, stock prices in [5, 30], strikes in [1, 100],
expiries in [0.25, 10] years. Translated to simt's API only: the sample's float2 pairs become
one option per thread, `__expf`/`__logf`/`__fdividef`/`rsqrtf` become `math.exp`, `math.log`,
`/` and `math.sqrt` (simt's math is the accurate one everywhere).

Peer: the vectorised NumPy/SciPy version (`scipy.special.ndtr` for the normal CDF when SciPy is
present, else the same polynomial with NumPy), float32, one temporary array per operation.
The reference is float64 with the exact normal CDF.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Job, Made, as_bench_functions, rng  # noqa: E402

RISKFREE = 0.02
VOLATILITY = 0.30
THREADS = 128


def cnd(d):  # type: ignore[no-untyped-def]
    A1 = 0.31938153
    A2 = -0.356563782
    A3 = 1.781477937
    A4 = -1.821255978
    A5 = 1.330274429
    RSQRT2PI = 0.39894228040143267793994605993438

    K = 1.0 / (1.0 + 0.2316419 * abs(d))
    c = RSQRT2PI * math.exp(-0.5 * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))))
    if d > 0:
        c = 1.0 - c
    return c


@simt.kernel
def black_scholes(call, put, stock_price, option_strike, option_years, riskfree, volatility):
    opt = block_dim.x * block_idx.x + thread_idx.x
    if opt < len(call):
        S = stock_price[opt]
        X = option_strike[opt]
        T = option_years[opt]
        R = riskfree
        V = volatility
        sqrtT = math.sqrt(T)
        d1 = (math.log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT)
        d2 = d1 - V * sqrtT
        cndd1 = cnd(d1)
        cndd2 = cnd(d2)
        # Calculate Call and Put simultaneously
        expRT = math.exp(-R * T)
        call[opt] = S * cndd1 - X * expRT * cndd2
        put[opt] = X * expRT * (1.0 - cndd2) - S * (1.0 - cndd1)


SIZES = {"full": {"n": 1 << 22}, "test": {"n": 3_000}}


def _make(p: dict[str, int]) -> dict[str, np.ndarray]:
    g = rng(7)
    n = p["n"]

    def between(lo: float, hi: float) -> np.ndarray:
        return (g.random(n) * (hi - lo) + lo).astype(np.float32)

    return {"s": between(5.0, 30.0), "x": between(1.0, 100.0), "t": between(0.25, 10.0)}


def _norm_cdf(d: np.ndarray) -> np.ndarray:
    try:
        from scipy.special import ndtr

        return ndtr(d)  # type: ignore[no-any-return]
    except ImportError:  # the polynomial of the sample, vectorised
        k = 1 / (1 + np.float32(0.2316419) * np.abs(d))
        poly = k * (
            0.31938153
            + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))
        )
        c = np.float32(0.3989422804014327) * np.exp(-0.5 * d * d) * poly
        return np.where(d > 0, 1 - c, c)  # type: ignore[no-any-return]


def _prices(s: np.ndarray, x: np.ndarray, t: np.ndarray, r: float, v: float) -> tuple:
    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t
    c1, c2 = _norm_cdf(d1), _norm_cdf(d2)
    exp_rt = np.exp(-r * t)
    return s * c1 - x * exp_rt * c2, x * exp_rt * (1 - c2) - s * (1 - c1)


def _ref(inp: dict[str, np.ndarray], p: dict[str, int]) -> np.ndarray:
    from math import erf

    def cdf(d: np.ndarray) -> np.ndarray:
        return 0.5 * (1 + np.vectorize(erf)(d / math.sqrt(2)))

    s, x, t = (inp[k].astype(np.float64) for k in "sxt")
    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / x) + (RISKFREE + 0.5 * VOLATILITY**2) * t) / (VOLATILITY * sqrt_t)
    d2 = d1 - VOLATILITY * sqrt_t
    e = np.exp(-RISKFREE * t)
    call = s * cdf(d1) - x * e * cdf(d2)
    put = x * e * (1 - cdf(d2)) - s * (1 - cdf(d1))
    return np.stack([call, put])


def _simt(inp: dict[str, np.ndarray], p: dict[str, int]) -> Made:
    n = p["n"]
    s, x, t = (simt.to_device(inp[k]) for k in "sxt")
    call, put = simt.empty((n,), np.float32), simt.empty((n,), np.float32)
    r, v = np.float32(RISKFREE), np.float32(VOLATILITY)
    blocks = (n + THREADS - 1) // THREADS
    launch = black_scholes[blocks, THREADS]
    args = (call, put, s, x, t, r, v)

    def run() -> None:
        launch(*args)
        simt.synchronize()

    return Made(run, lambda: np.stack([call.numpy(), put.numpy()]),
                [(black_scholes, blocks, THREADS, args)])  # fmt: skip


def _peers(inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, object]:
    s, x, t = inp["s"], inp["x"], inp["t"]
    box: list = [None]

    def run() -> None:
        box[0] = _prices(s, x, t, np.float32(RISKFREE), np.float32(VOLATILITY))

    return {"numpy+scipy": (run, lambda: np.stack(box[0]))}


# the polynomial CDF is within 7.5e-8 of the exact one (absolute): far inside 1e-4
JOBS = [Job("black_scholes", SIZES, _make, _ref, _simt, _peers)]  # type: ignore[arg-type]
globals().update(as_bench_functions(JOBS))
