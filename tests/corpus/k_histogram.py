"""Histogram with atomics: every thread adds one to its value's bin (int32 counts, exact)."""

import numpy as np

import simt

from . import Case, blocks, rng

NBINS = 37


@simt.kernel
def histogram(data, hist):
    i = simt.grid(1)
    if i < len(data):
        simt.atomic.add(hist, data[i] % NBINS, 1)


N = 20_000


def _make():
    g = rng(4)
    return g.integers(-1000, 1000, N, dtype=np.int32), np.zeros(NBINS, np.int32)


def _ref(data, hist):
    return {1: np.bincount(np.mod(data, NBINS), minlength=NBINS).astype(np.int32)}


CASES = [Case("histogram", histogram, _make, blocks(N, 256), 256, _ref)]
