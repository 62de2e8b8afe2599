"""print: several arguments, `sep`, `end`, f-strings with format specs, bools, float32's
shortest form; output is thread-major (all of thread 0's lines, then thread 1's, ...)."""

import numpy as np

import simt
from simt import block_idx, thread_idx

from . import Case, rng, uniform


@simt.kernel
def hello(a):
    i = simt.grid(1)
    if i < len(a):
        print("thread", i, "value", a[i])
        if i % 2 == 0:
            print(f"{i:03d}: {a[i]:.3f}|{i < 5}", end=";\n")
        print(i, a[i] * 2.0, sep=",")


@simt.kernel
def where_am_i(n):
    print(f"b=({block_idx.x},{block_idx.y}) t=({thread_idx.x},{thread_idx.y})", n)


N = 10


def _make():
    g = rng(14)
    return (uniform(g, N),)


def _ref(a):
    return {}


def _hello_text(a):
    lines = []
    for i in range(N):
        lines.append(f"thread {i} value {str(a[i])}\n")  # float32: shortest form
        if i % 2 == 0:
            lines.append(f"{i:03d}: {a[i]:.3f}|{i < 5};\n")
        lines.append(f"{i},{str(a[i] * np.float32(2.0))}\n")
    return "".join(lines)


@simt.kernel
def wide_ints(u, s):
    i = simt.grid(1)
    if i < len(u):
        print(u[i], s[i], u[i] >> simt.uint64(1))


WIDE_U = np.array([2**63 + 5, 2**64 - 1, 0, 2**32], np.uint64)
WIDE_S = np.array([-(2**63), 2**40 + 3, -1, 2**31], np.int64)


def _wide_text(u, s):
    return "".join(f"{int(a)} {int(b)} {int(a) >> 1}\n" for a, b in zip(u, s))


GRID2, BLOCK2 = (2, 2), (3, 2)


def _where_text(n):
    lines = []
    # thread-major: block linear id (x fastest), then thread linear id (x fastest)
    for by in range(GRID2[1]):
        for bx in range(GRID2[0]):
            for ty in range(BLOCK2[1]):
                for tx in range(BLOCK2[0]):
                    lines.append(f"b=({bx},{by}) t=({tx},{ty}) {n}\n")
    return "".join(lines)


CASES = [
    Case("print_thread_major", hello, _make, 3, 4, _ref, stdout=_hello_text),
    Case(
        "print_2d_order", where_am_i, lambda: (7,), GRID2, BLOCK2, lambda n: {}, stdout=_where_text
    ),
    # 64-bit integers print whole: a uint64 was an internal error on cpu (LLVM IR), refused by
    # NVRTC and printed as its low word on cuda
    Case("print_wide_ints", wide_ints, lambda: (WIDE_U.copy(), WIDE_S.copy()), 1, 4,
         lambda u, s: {}, stdout=_wide_text, features=frozenset({"uint64", "int64"})),
]
