"""Lists that grow per thread, kept in the per-thread arena: `append` in a run-time loop,
`pop`, indexing with negative indices, iteration, a comprehension over a run-time range,
`insert`/`extend`, `[0] * n`, a list changed by a helper function it was passed to, and
lists of floats and ints side by side, an int64 item widening an int32 list and dict; an
IndexError and a MemoryError (a small heap) caught
with try/except, the list unchanged by the failed assignment and keeping what fitted. Each
thread's list has a different length."""

import numpy as np

import simt

from . import EXACT, Case, close, rng, uniform


def push_evens(xs, n):  # a helper that changes the caller's list, as in Python
    for j in range(n):
        if j % 2 == 0:
            xs.append(j)


@simt.kernel
def collatz_lists(start, out):
    t = simt.grid(1)
    if t < len(start):
        xs = []
        v = start[t]
        while v != 1 and len(xs) < 60:
            xs.append(v)
            v = v // 2 if v % 2 == 0 else 3 * v + 1
        total = 0
        for x in xs:
            total += x
        last = xs[-1] if len(xs) > 0 else 0
        out[t, 0] = len(xs)
        out[t, 1] = total
        out[t, 2] = last
        out[t, 3] = xs.pop() if xs else -1
        out[t, 4] = len(xs)


@simt.kernel
def float_lists(a, out, n):
    t = simt.grid(1)
    if t < len(out):
        ys = [a[t] * k for k in range(n + t % 3)]
        ys.insert(1, 100.0)
        ys.extend([0.5, 0.25])
        ys[0] = ys[-1] + 1.0
        ys[-2] += 2.0
        s = 0.0
        for k in range(len(ys)):
            s += ys[k] * (k + 1)
        ks = [0] * (t % 4)
        push_evens(ks, t % 7)
        out[t] = s + len(ks) * 1000.0 + ks[-1] if ks else s


@simt.kernel(heap=256)
def catching(a, out, n):
    t = simt.grid(1)
    if t < len(out):
        xs = [a[t], a[t] + 1, a[t] + 2]
        try:
            xs[t % 5] = -7  # t % 5 >= 3: IndexError, xs unchanged
        except IndexError:
            out[t, 0] = -1
        ys = []
        try:
            for j in range(n * (t % 4)):  # 0, 20, 40, 60 items: the last two run out
                ys.append(j * 3)
        except MemoryError:
            out[t, 1] = -2
        out[t, 2] = xs[0] * 100 + xs[1] * 10 + xs[2]
        out[t, 3] = len(ys) * 1000 + (ys[-1] if ys else -1)


def _make_catching():
    return rng(7).integers(0, 9, 70).astype(np.int32), np.zeros((70, 4), np.int32), np.int32(20)


def _ref_catching(a, out, n):
    r = np.zeros(out.shape, np.int64)
    room = 256 // 4 - 16 - 6 - 3  # bookkeeping, two list headers, the items of xs
    for t in range(len(out)):
        xs = [int(a[t]), int(a[t]) + 1, int(a[t]) + 2]
        if t % 5 < 3:
            xs[t % 5] = -7
        else:
            r[t, 0] = -1
        want = int(n) * (t % 4)
        if want > room:
            r[t, 1] = -2
        ys = [j * 3 for j in range(min(want, room))]
        r[t, 2] = xs[0] * 100 + xs[1] * 10 + xs[2]
        r[t, 3] = len(ys) * 1000 + (ys[-1] if ys else -1)
    return {1: r.astype(np.int32)}


@simt.kernel
def printing(a, n):
    t = simt.grid(1)
    xs = [a[t] * k for k in range(t % 4)]
    flags = [k < t for k in range(n)]
    print("thread", t, xs, flags, sep=" | ")


def _make_printing():
    return np.arange(8, dtype=np.int32) * 3, np.int32(3)


def _stdout_printing(a, n):
    lines = []
    for t in range(8):
        xs = [int(a[t]) * k for k in range(t % 4)]
        flags = [k < t for k in range(int(n))]
        lines.append(" | ".join(("thread", str(t), str(xs), str(flags))) + "\n")
    return "".join(lines)


def _make_collatz():
    return rng(5).integers(1, 200, 150).astype(np.int32), np.zeros((150, 5), np.int32)


def _ref_collatz(start, out):
    r = np.zeros((len(start), 5), np.int64)
    for t, v in enumerate(start):
        xs = []
        v = int(v)
        while v != 1 and len(xs) < 60:
            xs.append(v)
            v = v // 2 if v % 2 == 0 else 3 * v + 1
        r[t, :3] = len(xs), sum(xs), xs[-1] if xs else 0
        r[t, 3] = xs.pop() if xs else -1
        r[t, 4] = len(xs)
    return {1: r.astype(np.int32)}


def _make_float():
    return uniform(rng(6), (77,)), np.zeros(77, np.float32), np.int32(5)


def _ref_float(a, out, n):
    r = np.zeros(len(out), np.float64)
    for t in range(len(out)):
        ys = [float(np.float32(a[t]) * np.float32(k)) for k in range(int(n) + t % 3)]
        ys.insert(1, 100.0)
        ys.extend([0.5, 0.25])
        ys[0] = ys[-1] + 1.0
        ys[-2] += 2.0
        s = sum(y * (k + 1) for k, y in enumerate(ys))
        ks = [0] * (t % 4)
        for j in range(t % 7):
            if j % 2 == 0:
                ks.append(j)
        r[t] = s + len(ks) * 1000.0 + ks[-1] if ks else s
    return {1: r.astype(np.float32)}


@simt.kernel
def widening(a, out):
    t = simt.grid(1)
    if t < len(out):
        n = a[t]  # int64: the list and the dict's values become int64, as Python's ints
        xs = [1, t, n]
        xs.append(t * 2)
        d = {t: 1, 7: n}
        d[n] = 3
        out[t, 0] = xs[2] + xs[0] + xs[-1]
        out[t, 1] = d[7] + len(d) * 100 + d[n]


def _make_widening():
    return (np.arange(40, dtype=np.int64) * 3_000_000_007 - 5, np.zeros((40, 2), np.int64))


def _ref_widening(a, out):
    r = np.zeros(out.shape, np.int64)
    for t in range(len(out)):
        n = int(a[t])
        xs = [1, t, n, t * 2]
        d = {t: 1, 7: n}
        d[n] = 3
        r[t] = xs[2] + xs[0] + xs[-1], d[7] + len(d) * 100 + d[n]
    return {1: r}


CASES = [
    Case("lists_widening", widening, _make_widening, 1, 40, _ref_widening, tol=EXACT,
         features=frozenset({"int64"})),
    Case("lists_collatz", collatz_lists, _make_collatz, 2, 128, _ref_collatz, tol=EXACT,
         strided="a row of results per thread"),
    Case("lists_float", float_lists, _make_float, 2, 64, _ref_float, tol=close(1e-5, 1e-4)),
    Case("lists_catching", catching, _make_catching, 3, 32, _ref_catching, tol=EXACT,
         strided="a row of results per thread"),
    Case("lists_print", printing, _make_printing, 1, 8, lambda a, n: {}, tol=EXACT,
         stdout=_stdout_printing),
]
