"""`enumerate`, `zip` and `reversed` over lists a thread builds (`append` in a loop) and
strings it builds (`"k" + str(v)`), nested and mixed with each other, in `for` loops, in list
comprehensions and generator expressions, and as the argument of `list`, `sorted`, `sum`,
`max` (each made a run-time list of its items first)."""

import numpy as np

import simt

from . import EXACT, Case


def grown(t, v):
    xs = []
    for j in range(v % 5 + 1):
        xs.append(j * 3 + t)
    return xs


def _walk(t, v):
    """The three results of `iterate_lists` for thread `t`, by Python's rules."""
    xs = grown(t, v)
    s = "k" + str(v)
    acc = 0
    for i, x in enumerate(xs, 1):
        acc += i * x
    for x in reversed(xs):
        acc = acc * 3 % 1000003 + x
    for x, c in zip(xs, s):
        acc += x * ord(c)
    for i, c in enumerate(reversed(s)):
        acc += i * ord(c)
    ys = [i * x for i, x in enumerate(xs)]
    zs = list(reversed(ys))
    ws = [x - ord(c) for x, c in zip(reversed(xs), s)]
    second = sum(ys) + zs[0] + len(ws) * 100 + sum(w for w in reversed(ws))
    second += sorted(reversed(xs), reverse=True)[0]
    third = max(ord(c) for c in reversed(s)) + [i for i, c in enumerate(s) if c == "k"][0]
    return acc, second, third


@simt.kernel
def iterate_lists(a, out):
    t = simt.grid(1)
    if t < len(a):
        v = a[t]
        xs = grown(t, v)
        s = "k" + str(v)
        acc = 0
        for i, x in enumerate(xs, 1):
            acc += i * x
        for x in reversed(xs):
            acc = acc * 3 % 1000003 + x
        for x, c in zip(xs, s):
            acc += x * ord(c)
        for i, c in enumerate(reversed(s)):
            acc += i * ord(c)
        ys = [i * x for i, x in enumerate(xs)]
        zs = list(reversed(ys))
        ws = [x - ord(c) for x, c in zip(reversed(xs), s)]
        second = sum(ys) + zs[0] + len(ws) * 100 + sum(w for w in reversed(ws))
        second += sorted(reversed(xs), reverse=True)[0]
        out[0, t] = acc
        out[1, t] = second
        out[2, t] = max(ord(c) for c in reversed(s)) + [i for i, c in enumerate(s) if c == "k"][0]


def _make():
    a = np.array([0, 7, -3, 12, 4, 25, -18, 9, 3, 101, 6, -1], np.int32)
    return a, np.zeros((3, len(a)), np.int32)


def _ref(a, out):
    return {1: np.array([_walk(t, v) for t, v in enumerate(a.tolist())], np.int32).T}


CASES = [Case("iterate_lists", iterate_lists, _make, 1, 16, _ref, EXACT)]
