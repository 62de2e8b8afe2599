"""Strings built per thread at run time: `str(v)` of ints (negative, the most negative, zero),
f-strings assigned to variables, `+`, `+=` in a run-time loop, `s * n`, `upper`/`lower`,
`startswith`/`endswith`, `==`/`!=`, indexing a character, `",".join` of a tuple, a variable
given different strings on the two paths of an `if`, and the strings printed. The reference is
the same helper run by Python on the host."""

import numpy as np

import simt

from . import EXACT, Case, rng


def describe(t, v):
    s = "x=" + str(v)
    f = f"t{t}:{v}!"
    loud = s.upper() + "|" + f.lower()
    acc = ""
    for j in range(t % 6):
        acc += str(j * 7)
    word = "neg" if v < 0 else "pos"
    if t % 3 == 0:
        word = word * 2
    joined = ",".join((s, word, str(t % 2 == 0)))
    return (
        len(s) + 100 * len(f),
        len(loud) + 100 * len(acc),
        len(joined),
        (1 if s == "x=" + str(v) else 0) + (2 if s != f else 0) + (4 if s.startswith("x=-") else 0)
        + (8 if f.endswith("!") else 0) + (16 if s[-1] == "7" else 0)
        + (32 if acc.endswith("21") else 0) + (64 if word == "pospos" else 0),
    )


@simt.kernel
def strings_per_thread(a, out):
    t = simt.grid(1)
    if t < len(a):
        r = describe(t, a[t])
        for k in range(4):
            out[k, t] = r[k]


def _make():
    a = rng(12).integers(-(2**31), 2**31 - 1, 70, dtype=np.int64).astype(np.int32)
    a[:4] = [0, -(2**31), 2**31 - 1, 7]
    return a, np.zeros((4, 70), np.int32)


def _ref(a, out):
    r = np.array([describe(t, int(v)) for t, v in enumerate(a)], np.int64)
    return {1: r.T.astype(np.int32)}


@simt.kernel
def strings_printed(a):
    t = simt.grid(1)
    s = f"{t}:" + str(a[t])
    if a[t] % 2 == 0:
        s += "!"
    print(s, s.upper(), "-" * (t % 3) + "|")


def _make_printed():
    return (np.arange(8, dtype=np.int32) * 37 - 100,)


def _stdout_printed(a):
    lines = []
    for t in range(8):
        s = f"{t}:" + str(int(a[t])) + ("!" if int(a[t]) % 2 == 0 else "")
        lines.append(f"{s} {s.upper()} {'-' * (t % 3)}|\n")
    return "".join(lines)


CASES = [
    Case("strings_per_thread", strings_per_thread, _make, 2, 64, _ref, tol=EXACT),
    Case("strings_printed", strings_printed, _make_printed, 1, 8, lambda a: {}, tol=EXACT,
         stdout=_stdout_printed),
]
