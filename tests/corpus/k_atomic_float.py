"""Atomic add on float32: every block adds its threads' values into one of a few bins."""

import numpy as np

import simt

from . import Case, blocks, close, rng, uniform

BINS = 5


@simt.kernel
def float_bins(a, bins):
    i = simt.grid(1)
    if i < len(a):
        simt.atomic.add(bins, i % BINS, a[i])


N = 4000


def _make():
    g = rng(22)
    return uniform(g, N), np.zeros(BINS, np.float32)


def _ref(a, bins):
    r = np.zeros(BINS)
    np.add.at(r, np.arange(N) % BINS, a.astype(np.float64))
    return {1: r}


CASES = [
    Case(
        "atomic_add_float32",
        float_bins,
        _make,
        blocks(N, 256),
        256,
        _ref,
        close(1e-5),
        features=frozenset({"atomic_float"}),
    )
]
