"""Dicts and sets per thread, kept in the per-thread arena (frontend/dicts.py): a histogram
`d[k] = d.get(k, 0) + 1` over a run-time loop, `d[k] += v`, `in` / `not in`, `del d[k]`,
`pop` with and without a default, iteration over keys, values and items in insertion order,
a dict comprehension, a set built by `add` and `set(range(n))`, `discard`/`remove`, a dict
changed by a helper it was passed to, a KeyError caught per thread and a MemoryError (a small
heap) caught with try/except. Each thread's dict has different keys and length; the reference
is the same helper run by Python on the host."""

import numpy as np

import simt

from . import EXACT, Case, close, rng, uniform


def digest(xs):
    s = 0
    for x in xs:
        s = (s * 7 + x) % 1000003
    return s


def bump(d, k):  # a helper that changes the caller's dict, as in Python
    d[k] = d.get(k, 0) + 100


def dict_ops(seed, n, v):
    d = {}
    for j in range(n):
        k = (j * 5 + seed) % 7
        d[k] = d.get(k, 0) + j
    if 3 in d:
        d[3] += 10
    bump(d, v)
    had = 1 if 6 not in d else 0
    if 2 in d:
        del d[2]
    gone = d.pop(4, -1)
    try:
        miss = d[seed % 9]
    except KeyError:
        miss = -2
    s = set()
    for x in d.values():
        s.add(x % 5)
    s.discard(0)
    try:
        s.remove(1)
        removed = 1
    except KeyError:
        removed = 0
    sq = {k: k * k for k in d if k % 2 == 1}
    r = set(range(seed % 4))
    r.add(9)
    pairs = 0
    for k, x in d.items():
        pairs = (pairs * 3 + k * 11 + x) % 100003
    return (
        len(d), digest(d), digest(d.values()), pairs, had, gone, miss, len(s), sum(s), removed,
        sum(sq.values()), len(r), 1 if 2 in r else 0, digest(sorted(s)),
    )


WIDTH = 14


@simt.kernel
def dict_reading(seeds, out, v):
    t = simt.grid(1)
    if t < len(seeds):
        r = dict_ops(seeds[t], seeds[t] % 13, v)
        for k in range(14):
            out[k, t] = r[k]  # thread t's results down column t: coalesced stores


def _make():
    seeds = rng(12).integers(0, 50, 90).astype(np.int32)
    return seeds, np.zeros((WIDTH, 90), np.int32), np.int32(5)


def _ref(seeds, out, v):
    r = np.array([dict_ops(int(s), int(s) % 13, int(v)) for s in seeds], np.int64)
    return {1: r.T.astype(np.int32)}


@simt.kernel(heap=256)
def float_values(a, out, n):
    t = simt.grid(1)
    if t < len(out):
        w = {}
        for j in range(n + t % 5):
            w[j % 4] = w.get(j % 4, 0.0) + a[t] * j
        total = 0.0
        for k, x in w.items():
            total += x * (k + 1)
        try:  # 256 bytes: each thread's int32 words run out before 64 keys and values
            big = {}
            for j in range(64):
                big[j] = j
        except MemoryError:
            total += 1000.0
        out[t] = total


def _float_make():
    return uniform(rng(13), 70), np.zeros(70, np.float32), np.int32(3)


def _float_ref(a, out, n):
    res = np.zeros(len(out), np.float64)
    for t in range(len(out)):
        w: dict[int, float] = {}
        for j in range(int(n) + t % 5):
            w[j % 4] = w.get(j % 4, 0.0) + float(a[t]) * j
        total = sum(x * (k + 1) for k, x in w.items())
        res[t] = total + 1000.0
    return {1: res}


CASES = [
    Case("dict_reading", dict_reading, _make, 2, 64, _ref, tol=EXACT),
    Case("dict_float_values", float_values, _float_make, 2, 64, _float_ref, tol=close(1e-5)),
]
