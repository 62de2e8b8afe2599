"""Atomics beyond add: min, max, sub, exch, cas (first claim wins), the old value add returns
(stream compaction), and a tuple index into a 2-D array."""

import numpy as np

import simt

from . import Case, blocks, rng

SLOTS = 16


@simt.kernel
def atomics(a, stats, hist2d, owner, won, kept, count):
    i = simt.grid(1)
    if i < len(a):
        v = a[i]
        simt.atomic.min(stats, 0, v)
        simt.atomic.max(stats, 1, v)
        simt.atomic.sub(stats, 2, 1)
        simt.atomic.add(hist2d, (v & 3, (v >> 2) & 3), 1)
        old = simt.atomic.cas(owner, i % SLOTS, -1, i)
        won[i] = 1 if old == -1 else 0
        if v > 100:
            pos = simt.atomic.add(count, 0, 1)
            kept[pos] = v
        simt.atomic.exch(stats, 3, 42)


N = 3000


def _make():
    g = rng(21)
    a = g.integers(-1000, 1000, N, dtype=np.int32) | 1
    stats = np.array([2**31 - 1, -(2**31), 0, 0], np.int32)
    return (
        a,
        stats,
        np.zeros((4, 4), np.int32),
        np.full(SLOTS, -1, np.int32),
        np.full(N, 7, np.int32),
        np.full(N, -1, np.int32),
        np.zeros(1, np.int32),
    )


def _verify(before, after):
    a = before[0]
    stats, hist2d, owner, won, kept, count = after[1:]
    exp_stats = np.array([a.min(), a.max(), -N, 42], np.int32)
    if not np.array_equal(stats, exp_stats):
        return f"min/max/sub/exch gave {stats}, expected {exp_stats}"
    h = np.zeros((4, 4), np.int32)
    np.add.at(h, (a & 3, (a >> 2) & 3), 1)
    if not np.array_equal(hist2d, h):
        return f"2-D atomic add (tuple index) gave\n{hist2d}\nexpected\n{h}"
    for s in range(SLOTS):
        threads = np.arange(s, N, SLOTS)
        winners = threads[won[threads] == 1]
        if len(winners) != 1 or owner[s] != winners[0]:
            return f"cas slot {s}: owner {owner[s]}, winners {winners.tolist()}"
    if not np.all((won == 0) | (won == 1)):
        return "won holds values other than 0 and 1"
    big = np.sort(a[a > 100])
    c = int(count[0])
    if c != len(big) or not np.array_equal(np.sort(kept[:c]), big) or np.any(kept[c:] != -1):
        return f"compaction kept {c} values, expected {len(big)} (or wrong values)"
    return None


CASES = [Case("atomics_minmax_cas", atomics, _make, blocks(N, 256), 256, verify=_verify)]
