"""Control flow: if/elif/else, conditional expressions, chained comparisons, and/or/not,
`range` with negative and run-time steps, `continue`, `break` out of a nested loop, a
`while` with a per-thread trip count (Collatz)."""

import numpy as np

import simt

from . import Case, blocks, rng

ROWS = 6


@simt.kernel
def control(a, step, out):
    i = simt.grid(1)
    if i >= len(a):
        return
    v = a[i]
    # if / elif / else and chained comparisons
    if v < 10:
        c = 1
    elif 10 <= v < 50:
        c = 2
    elif not (v % 2 == 0 or v > 90):
        c = 3
    else:
        c = 4
    out[0, i] = c
    # a conditional expression and and/or on comparisons
    out[1, i] = (v * 2 if v % 3 == 0 and v > 5 else -v) + (1 if v < 3 or v > 97 else 0)
    # negative step
    s = 0
    for k in range(v, 0, -3):
        s += k
    out[2, i] = s
    # a run-time step and continue
    t = 0
    for k in range(0, v, step):
        if k % 5 == 0:
            continue
        t += k
    out[3, i] = t
    # break out of the inner loop of a nested pair
    hits = 0
    for p in range(1, 8):
        for q in range(1, 8):
            if p * q > v:
                break
            hits += 1
    out[4, i] = hits
    # Collatz: a while loop whose trip count differs per thread
    n = v
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    out[5, i] = steps


N = 500


def _make():
    g = rng(25)
    return g.integers(1, 100, N, dtype=np.int32), 3, np.zeros((ROWS, N), np.int32)


def _ref(a, step, out):
    ref = np.zeros((ROWS, N), np.int32)
    for i, v in enumerate(a.tolist()):
        if v < 10:
            c = 1
        elif 10 <= v < 50:
            c = 2
        elif not (v % 2 == 0 or v > 90):
            c = 3
        else:
            c = 4
        ref[0, i] = c
        ref[1, i] = (v * 2 if v % 3 == 0 and v > 5 else -v) + (1 if v < 3 or v > 97 else 0)
        ref[2, i] = sum(range(v, 0, -3))
        ref[3, i] = sum(k for k in range(0, v, step) if k % 5 != 0)
        ref[4, i] = sum(
            1
            for p in range(1, 8)
            for q in range(1, 8)
            if p * q <= v and all(p * r <= v for r in range(1, q))
        )
        n, steps = v, 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        ref[5, i] = steps
    return {2: ref}


CASES = [Case("control_flow", control, _make, blocks(N, 64), 64, _ref)]
