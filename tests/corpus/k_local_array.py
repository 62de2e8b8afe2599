"""Per-thread local arrays: each thread gathers a window, sorts it (insertion sort with a
`while` whose condition differs per thread) and writes its median and range."""

import numpy as np

import simt

from . import Case, blocks, rng, uniform

WIN = 7


@simt.kernel
def median_filter(a, out):
    i = simt.grid(1)
    n = len(a)
    if i < n:
        win = simt.local.array(WIN, simt.float32)
        for k in range(WIN):
            win[k] = a[min(max(i + k - WIN // 2, 0), n - 1)]
        for k in range(1, WIN):
            v = win[k]
            j = k - 1
            while j >= 0 and win[j] > v:
                win[j + 1] = win[j]
                j -= 1
            win[j + 1] = v
        out[0, i] = win[WIN // 2]
        out[1, i] = win[WIN - 1] - win[0]


N = 600


def _make():
    g = rng(20)
    return uniform(g, N), np.zeros((2, N), np.float32)


def _ref(a, out):
    idx = np.clip(np.arange(N)[:, None] + np.arange(WIN)[None, :] - WIN // 2, 0, N - 1)
    w = np.sort(a[idx], axis=1)
    return {1: np.stack([w[:, WIN // 2], w[:, -1] - w[:, 0]])}


CASES = [Case("local_array_sort", median_filter, _make, blocks(N, 64), 64, _ref)]
