"""Reading, reordering and slicing per-thread lists: `sum`, `min`, `max`, `in` / `not in`,
`index`, `count`, `sorted`, `sort(reverse=True)`, `reverse`, `remove`, `copy`, slices
(`xs[a:b]`, `xs[::-1]`, `xs[-3:]`, `xs[6:1:-2]`) into new lists, and a ValueError from
`index` caught per thread. Each thread's list has its own length and items; the reference is
the same helper run by Python on the host."""

import numpy as np

import simt

from . import EXACT, Case, rng


def digest(xs):
    s = 0
    for x in xs:
        s = (s * 7 + x) % 1000003
    return s


def list_ops(seed, n, v):
    xs = []
    for k in range(n):
        xs.append((k * 7 + seed * 3) % 11 - 3)
    ys = sorted(xs)
    zs = xs[:]
    zs.sort(reverse=True)
    ws = xs.copy()
    ws.reverse()
    if v in ws:
        ws.remove(v)
    try:
        where = xs.index(v)
    except ValueError:
        where = -1
    low = min(xs) if xs else 99
    high = max(xs) if xs else -99
    return (
        sum(xs), low, high, 1 if v not in xs else 0, where, xs.count(v), digest(ys),
        digest(xs[1 : n - 1]), digest(xs[::-1]), digest(xs[-3:]), digest(xs[6:1:-2]),
        digest(zs), digest(ws), sum(xs[::2], 100),
    )


WIDTH = 14


@simt.kernel
def list_reading(seeds, out, v):
    t = simt.grid(1)
    if t < len(seeds):
        r = list_ops(seeds[t], seeds[t] % 12, v)
        for k in range(14):
            out[k, t] = r[k]  # thread t's results down column t: coalesced stores


def _make():
    seeds = rng(11).integers(0, 50, 90).astype(np.int32)
    return seeds, np.zeros((WIDTH, 90), np.int32), np.int32(2)


def _ref(seeds, out, v):
    r = np.array([list_ops(int(s), int(s) % 12, int(v)) for s in seeds], np.int64)
    return {1: r.T.astype(np.int32)}


CASES = [Case("list_reading", list_reading, _make, 2, 64, _ref, tol=EXACT)]
