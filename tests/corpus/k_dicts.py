"""Dicts and sets per thread, kept in the per-thread arena (frontend/dicts.py): a histogram
`d[k] = d.get(k, 0) + 1` over a run-time loop, `d[k] += v`, `in` / `not in`, `del d[k]`,
`pop` with and without a default, iteration over keys, values and items in insertion order,
a dict comprehension, a set built by `add` and `set(range(n))`, `discard`/`remove`, a dict
changed by a helper it was passed to, a KeyError caught per thread and a MemoryError (a small
heap) caught with try/except; string keys (`tally`) and sets of strings, printed as Python
prints them; a dict or set changing size while a `for` walks it (`walked`: Python's
RuntimeError), caught and shown by repr(e). Each thread's dict has different keys and
length; the reference is the same helper run by Python on the host."""

import contextlib
import io

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


def tally(t, v):
    """String keys: run-time strings counted (`d[w] = d.get(w, 0) + j`), looked up by known
    and run-time strings, iterated (the keys are strings again), deleted, popped, copied; a
    set of strings; dict(name=value); a missing run-time key's KeyError caught and shown as
    Python shows it (repr(e): `KeyError('w7')`). Prints the dict on a few threads."""
    counts = {}
    for j in range(t % 6 + 2):
        w = "w" + str((v * j + t) % 4)
        counts[w] = counts.get(w, 0) + j
    if "w1" in counts:
        counts["w1"] += 100
    names = {"zero": 0, "one": 1, "two": 2, "it's": 3}
    pick = names["one" if t % 2 else "two"] + names.get("four", 40) + names["it's"]
    walk = 0
    for w in counts:                                 # the keys, in insertion order
        walk = (walk * 7 + len(w) * 3 + counts[w] + (5 if w.endswith("3") else 0)) % 100003
    pairs = 0
    for w, c in counts.items():
        pairs = (pairs * 5 + (11 if w == "w2" else 1) * c) % 100003
    copy = counts.copy()
    copy["new" + str(t)] = 1
    w0 = "w" + str(t % 3)
    popped = counts.pop(w0, -1)
    if "w3" in counts:
        del counts["w3"]
    counts.setdefault("w" + str(t % 5), 77)
    seen = set()
    for j in range(t % 5 + 1):
        seen.add(str(j % 3))
    seen.discard("0")
    opts = dict(x=t, y=2)
    missing = 0
    try:
        missing = counts["w" + str(t % 9)]
    except KeyError as e:
        missing = -1
        if t % 7 == 0:
            print(t, repr(e), e)
    if t % 13 == 0:
        print(t, counts, {w0}, opts, names)
    return (
        len(counts), walk, pairs, pick, len(copy), popped, len(seen),
        (1 if "1" in seen else 0) + (2 if "w0" not in counts else 0), opts["x"] + opts["y"],
        missing, sum(counts.values()),
    )


TALLY_WIDTH = 11


@simt.kernel
def dict_string_keys(seeds, out):
    t = simt.grid(1)
    if t < len(seeds):
        r = tally(t, seeds[t])
        for k in range(11):
            out[k, t] = r[k]


def _make_tally():
    return rng(15).integers(0, 50, 40).astype(np.int32), np.zeros((TALLY_WIDTH, 40), np.int32)


def _host(fn, seeds):
    """The helper `fn` run by Python for each thread: its results and what it printed."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rows = [fn(t, int(s)) for t, s in enumerate(seeds)]
    return np.array(rows, np.int64).T.astype(np.int32), buf.getvalue()


def walked(t, v):
    """A dict and a set whose size a `for` over them changes: Python's RuntimeError at the
    next step (or at the end, after the last), caught per thread; a change followed by
    `break` is no error, nor is changing a value."""
    d = {1: v, 2: t, 3: 5}
    s = {t % 4, 7}
    mark = 0
    try:
        for k in d:
            mark += k
            if t % 4 == 1 and k == 2:
                d[10 + t] = 1                         # grows: raised at the next step
            if t % 4 == 2 and k == 3:
                del d[1]                              # on the last step: at the end
            if t % 4 == 3 and k == 1:
                d[20] = 2
                break                                 # no next step: no error
    except RuntimeError as e:
        mark += 100
        if t < 8:
            print(t, repr(e))
    try:
        for k, x in d.items():
            if t % 5 == 0:
                d[k] = x * 2                          # a value changed: no error
            mark = mark * 3 + x
    except RuntimeError:
        mark += 1000
    try:
        for x in s:
            if t % 3 == 0:
                s.add(x + 1)
    except RuntimeError as e:
        mark += 10000
        if t < 8:
            print(t, e)
    return (mark % 1000003, len(d), len(s))


@simt.kernel
def dict_changed_size(seeds, out):
    t = simt.grid(1)
    if t < len(seeds):
        r = walked(t, seeds[t])
        for k in range(3):
            out[k, t] = r[k]


def _make_walked():
    return rng(16).integers(0, 50, 24).astype(np.int32), np.zeros((3, 24), np.int32)


CASES = [
    Case("dict_reading", dict_reading, _make, 2, 64, _ref, tol=EXACT),
    Case("dict_float_values", float_values, _float_make, 2, 64, _float_ref, tol=close(1e-5)),
]
CASES += [
    Case("dict_string_keys", dict_string_keys, _make_tally, 2, 32,
         lambda seeds, out: {1: _host(tally, seeds)[0]}, tol=EXACT,
         stdout=lambda seeds, out: _host(tally, seeds)[1]),
    Case("dict_changed_size", dict_changed_size, _make_walked, 1, 24,
         lambda seeds, out: {1: _host(walked, seeds)[0]}, tol=EXACT,
         stdout=lambda seeds, out: _host(walked, seeds)[1]),
]
