"""Kernels using `cuda.random`'s xoroshiro128+ generators as the DLI course and ENCCS lessons
do: a Monte Carlo estimate of pi (one generator per thread, uniform float32 draws), a
Gaussian random walk (normal float32), and float64 uniform and normal draws. Our own code;
the references replay Numba's stream with NumPy."""

import math

import numpy as np

from simt import cuda
from simt.cuda.random import (
    create_xoroshiro128p_states,
    xoroshiro128p_normal_float32,
    xoroshiro128p_normal_float64,
    xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64,
)

from .case import NCase, close, numba_states, to_unit64, xoroshiro_draws

THREADS = 64
SAMPLES = 50


@cuda.jit
def monte_carlo_pi(rng_states, iterations, hits):
    tid = cuda.grid(1)
    inside = 0
    for _ in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, tid)
        y = xoroshiro128p_uniform_float32(rng_states, tid)
        if x * x + y * y <= 1.0:
            inside += 1
    hits[tid] = inside


@cuda.jit
def random_walk(rng_states, steps, pos):
    tid = cuda.grid(1)
    p = np.float32(0.0)
    for _ in range(steps):
        p += xoroshiro128p_normal_float32(rng_states, tid)
    pos[tid] = p


@cuda.jit
def draws_float64(rng_states, out):
    tid = cuda.grid(1)
    out[tid, 0] = xoroshiro128p_uniform_float64(rng_states, tid)
    out[tid, 1] = xoroshiro128p_normal_float64(rng_states, tid)


def _with_states(seed):
    def launch(kernel, args):
        states = create_xoroshiro128p_states(THREADS, seed=seed)
        kernel[1, THREADS](states, *args)

    return launch


def _u32(seed, draws):
    return to_unit64(xoroshiro_draws(numba_states(THREADS, seed), draws)).astype(np.float32)


def _pi_ref(iterations, hits):
    u = _u32(51, 2 * iterations)
    x, y = u[:, 0::2], u[:, 1::2]
    return {1: (x * x + y * y <= np.float32(1.0)).sum(1).astype(np.int32)}


def _walk_ref(steps, pos):
    u = _u32(52, 2 * steps)
    u1, u2 = u[:, 0::2].astype(np.float64), u[:, 1::2].astype(np.float64)
    z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2 * math.pi * u2)
    return {1: z.sum(1).astype(np.float32)}


def _f64_ref(out):
    d = xoroshiro_draws(numba_states(THREADS, 53), 3)
    u1 = to_unit64(d[:, 1]).astype(np.float32).astype(np.float64)
    u2 = to_unit64(d[:, 2]).astype(np.float32).astype(np.float64)
    return {0: np.stack([to_unit64(d[:, 0]), np.sqrt(-2.0 * np.log(u1)) *
                         np.cos(2 * math.pi * u2)], 1)}  # fmt: skip


CASES = [
    NCase("random_monte_carlo_pi", "DLI course: Monte Carlo pi with xoroshiro128p",
          monte_carlo_pi, lambda: (SAMPLES, np.zeros(THREADS, np.int32)), 1, THREADS, _pi_ref,
          launch=_with_states(51)),
    NCase("random_walk_normal", "ENCCS lesson: Gaussian random walk", random_walk,
          lambda: (20, np.zeros(THREADS, np.float32)), 1, THREADS, _walk_ref,
          launch=_with_states(52), tol=close(1e-5, 1e-4)),
    NCase("random_float64", "Numba docs: float64 uniform and normal draws", draws_float64,
          lambda: (np.zeros((THREADS, 2)),), 1, THREADS, _f64_ref, launch=_with_states(53),
          tol=close(1e-6, 1e-6), features=frozenset({"fp64"})),
]  # fmt: skip
