"""Atomic max on a float32 array that the same kernel also reads and writes plainly (a peak
kept next to a scale and a flag in one small array, as monitoring code does). On webgpu such
an array is stored as atomic u32 words (float32 atomics are compare-exchange loops on the
bits), so its plain loads and stores must convert too: they rendered invalid WGSL before."""

import numpy as np

import simt

from . import Case, blocks, close, rng, uniform

N = 3000


@simt.kernel
def peak_and_flag(a, stats, scaled):
    i = simt.grid(1)
    if i < len(a):
        simt.atomic.max(stats, 0, a[i])
        scaled[i] = a[i] * stats[1]  # a plain load of the array atomics use
        if i == 0:
            stats[2] = -1.5  # a plain store into it


def _make():
    return uniform(rng(31), N), np.array([0.0, 3.25, 0.0], np.float32), np.zeros(N, np.float32)


def _ref(a, stats, scaled):
    return {
        1: np.array([max(0.0, float(a.max())), 3.25, -1.5]),
        2: a.astype(np.float64) * 3.25,
    }


CASES = [
    Case(
        "atomic_max_float32_plain_access",
        peak_and_flag,
        _make,
        blocks(N, 256),
        256,
        _ref,
        close(1e-6),
        features=frozenset({"atomic_float"}),
    )
]
