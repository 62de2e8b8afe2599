"""Functions defined in a kernel: a `lambda` bound to a name and one passed as a key, a
nested `def` with a default (evaluated at the definition) reading a variable of the kernel
assigned after it (read at the call), and a nested `def` appending to the caller's list;
`sort(key=)`, `sorted(key=, reverse=True)`, `min(key=)` and `max(key=)` over numbers and
over strings (`key=len`, `key=str.lower`), by tuples (`key=lambda w: (len(w), w)`, a def
returning tuples), `reverse=` decided per thread; `map` over two lists and `filter`. The
reference is the same helper run by Python on the host."""

import numpy as np

import simt

from . import EXACT, Case, rng


def keyed(seed, n):
    near = lambda v: abs(v - 5)  # noqa: E731
    offset = 1

    def scaled(v, by=2):
        return v * by + offset  # `offset` as it is when called: 3

    offset = 3
    xs = []

    def push(v):
        xs.append(v)

    for k in range(n):
        push((k * 7 + seed * 3) % 13 - 4)
    xs.sort(key=near)
    ys = sorted(xs, key=lambda v: v % 3, reverse=True)
    words = ["pear", "Fig", "apple", "kiwi", "fig", "Date"]
    ws = []
    for k in range(2 + seed % 5):
        ws.append(words[k])
    ws = sorted(ws, key=str.lower)
    ws.sort(key=len)
    vs = sorted(ws, key=lambda w: (len(w) % 3, w), reverse=seed % 2 == 1)

    def parity(v):
        if v < 0:
            return (2, -v)
        return (v % 2, v)

    zs = sorted(xs, key=parity)
    s = 0
    for k in range(len(xs)):
        s = (s * 7 + scaled(xs[k]) * 3 + ys[k] + zs[k] * 5) % 1000003
    for k in range(len(vs)):
        s = (s * 5 + len(vs[k]) + ord(vs[k][0])) % 1000003
    low = min(xs, key=near) if xs else 99
    high = max(xs, key=lambda v: v * v) if xs else -99
    high += 1000 * (min(xs, key=parity) if xs else -99)
    kept = sum(map(lambda v, w: v * w, xs, ys)) + len(list(filter(lambda v: v > 0, xs)))
    return s, low, high, len(ws[0]) * 10 + len(ws[-1]), len(max(words, key=len)) + kept * 10


@simt.kernel(heap=4096)  # str.lower makes a string per key
def local_functions(seeds, out):
    t = simt.grid(1)
    if t < len(seeds):
        r = keyed(seeds[t], seeds[t] % 9)
        for k in range(5):
            out[k, t] = r[k]  # thread t's results down column t: coalesced stores


def _make():
    return rng(66).integers(0, 50, 70).astype(np.int32), np.zeros((5, 70), np.int32)


def _ref(seeds, out):
    r = np.array([keyed(int(s), int(s) % 9) for s in seeds], np.int64)
    return {1: r.T.astype(np.int32)}


CASES = [Case("local_functions", local_functions, _make, 2, 64, _ref, tol=EXACT)]
