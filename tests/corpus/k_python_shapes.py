"""Python per thread, small corners (#27): `repr` of run-time numbers, an `assert` whose
message is a string built at run time (caught, so every thread finishes), and `list(...)` of
a list display of tuples printed as Python prints it. The same helper runs in the kernel and
on the host."""

import numpy as np

import simt

from . import EXACT, Case


def shaped(t, v):
    xs = [v, v + 1]
    pairs = list(enumerate(xs))
    try:
        assert v % 3 != 0, "v=" + repr(v) + " at " + repr(t) + " " + repr(v > 10)
        n = 1
    except AssertionError as e:
        n = len(str(e))
    return n, pairs


@simt.kernel(heap=4096)
def python_shapes(a, out):
    t = simt.grid(1)
    if t < len(a):
        n, pairs = shaped(t, a[t])
        out[t] = n
        if t % 2 == 0:
            print(repr(t), pairs, repr(a[t] < 0))


def _make():
    return np.array([3, 5, -9, 12, 0, 7, 30, -2, 9, 4, 11, 6], np.int32), np.zeros(12, np.int32)


def _ref(a, out):
    return {1: np.array([shaped(t, v)[0] for t, v in enumerate(a.tolist())], np.int32)}


def _stdout(a, out):
    return "".join(f"{t!r} {shaped(t, v)[1]} {v < 0!r}\n"
                   for t, v in enumerate(a.tolist()) if t % 2 == 0)  # fmt: skip


CASES = [
    Case("python_shapes", python_shapes, _make, 1, 16, _ref, tol=EXACT, stdout=_stdout),
]
