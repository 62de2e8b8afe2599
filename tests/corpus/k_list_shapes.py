"""List displays whose variable takes several lists: `a if c else b` of two displays (known
items, and run-time items), an `if`/`else` assigning lists of different lengths (a run-time
list, as Python's), a display reassigned in a run-time loop; each is printed as Python prints
a list (`[1, 2]`, not `(1, 2)`) and read (`len`, indexing)."""

import numpy as np

import simt

from . import EXACT, Case


def _shapes(t, v):
    """The lists the kernel makes for thread `t`, by Python's rules."""
    xs = [1, 2] if v > 0 else [3, 4]
    if v % 2 == 0:
        ys = [v, t]
    else:
        ys = [t, v, 5]
    zs = [t, 0]
    for k in range(v % 4):
        zs = [k, t]
    ws = [v, 1] if v > 2 else [1, v, v]
    return xs, ys, zs, ws


@simt.kernel
def list_shapes(a, out):
    t = simt.grid(1)
    if t < len(a):
        v = a[t]
        xs = [1, 2] if v > 0 else [3, 4]
        if v % 2 == 0:
            ys = [v, t]
        else:
            ys = [t, v, 5]
        zs = [t, 0]
        for k in range(v % 4):
            zs = [k, t]
        ws = [v, 1] if v > 2 else [1, v, v]
        out[t] = len(xs) * 1000 + len(ys) * 100 + len(ws) * 10 + zs[0] + xs[1] + ys[-1]
        print(t, xs, ys, zs, ws, [v, t] if v < 0 else [t, v])


def _make():
    return np.array([3, -2, 0, 7, 6, 1, -5, 4, 2, 9], np.int32), np.zeros(10, np.int32)


def _ref(a, out):
    res = []
    for t, v in enumerate(a.tolist()):
        xs, ys, zs, ws = _shapes(t, v)
        res.append(len(xs) * 1000 + len(ys) * 100 + len(ws) * 10 + zs[0] + xs[1] + ys[-1])
    return {1: np.array(res, np.int32)}


def _stdout(a, out):
    lines = []
    for t, v in enumerate(a.tolist()):
        xs, ys, zs, ws = _shapes(t, v)
        lines.append(f"{t} {xs} {ys} {zs} {ws} {[v, t] if v < 0 else [t, v]}\n")
    return "".join(lines)


CASES = [Case("list_shapes", list_shapes, _make, 1, 16, _ref, EXACT, stdout=_stdout)]
