"""Numba's integer typing (issue 25 item 2): in a `cuda.jit` kernel Python ints are int64 and
every integer operator's result is 64 bits wide, so index arithmetic, literals, range loop
variables, `len()` and `int()` go past 2**31 without wrapping, as in Numba (where int32 would
wrap, as simt's own `@simt.kernel` does). Our own kernels in the style of course code that
computes offsets into large virtual images and sums of squares; the references are Python's
exact integers, which is also what Numba's simulator computes."""

import numpy as np

from simt import cuda

from .case import NCase


@cuda.jit
def big_offsets(out, width):
    """Offsets into a virtual image wider than 2**31 pixels in all: row * width + col."""
    i = cuda.grid(1)
    if i < out.shape[0]:
        row = i * 977
        out[i, 0] = row * width + cuda.threadIdx.x          # a Python int argument: int64
        out[i, 1] = i * 1000003 * 977                       # literals: int64
        out[i, 2] = cuda.threadIdx.x * cuda.blockDim.x * 100000000  # int32 * int32: int64
        out[i, 3] = 1 << (i % 8 + 30)                       # shifts past bit 31
        out[i, 4] = -(i * 3000000000) // 7 + (i * 3000000000) % 7  # floor semantics, int64


def _offsets_ref(out, width):
    r = np.zeros_like(out)
    for i in range(out.shape[0]):
        t, bd = i % 64, 64
        r[i] = (i * 977 * width + t, i * 1000003 * 977, t * bd * 100000000, 1 << (i % 8 + 30),
                -(i * 3000000000) // 7 + (i * 3000000000) % 7)
    return {0: r}


@cuda.jit
def range_squares(out):
    """Sums of squares over a window of a range that starts past 46341 (whose square is past
    2**31): the loop variable and the accumulator are int64."""
    i = cuda.grid(1)
    if i < out.size:
        s = 0
        for k in range(i * 40000, i * 40000 + 10):
            s += k * k
        out[i] = s


def _squares_ref(out):
    return {0: np.array([sum(k * k for k in range(i * 40000, i * 40000 + 10))
                         for i in range(out.size)], np.int64)}


@cuda.jit
def sizes_and_ints(a, out):
    """`len()` squared and `int()` of a float times a large scale: int64 in Numba."""
    i = cuda.grid(1)
    n = len(a)
    if i < out.shape[0]:
        out[i, 0] = n * n * (i + 1)
        out[i, 1] = int(a[i] * 1e6) * 1000
        out[i, 2] = a.shape[0] * a.size


def _sizes_ref(a, out):
    n = len(a)
    r = np.zeros_like(out)
    for i in range(out.shape[0]):
        r[i] = (n * n * (i + 1), int(a[i] * 1e6) * 1000, n * n)
    return {1: r}


@cuda.jit
def atomic_big_counts(n, total):
    """A grid-wide total of per-thread products that passes 2**31, added atomically into an
    int64 counter (course code counting with large weights)."""
    i = cuda.grid(1)
    if i < n:
        cuda.atomic.add(total, 0, i * 100000)


@cuda.jit
def list_widened(ia, out):
    """A per-thread list of an int32 array's items, then wider ones: Numba types a list by
    unifying all its items (`-t` and `t * 3000000000` are int64 under its typing), so the list
    is int64 and no item wraps. (Lists run in Numba's simulator, not on its CUDA target.)"""
    t = cuda.threadIdx.x
    xs = []
    for v in ia:
        xs.append(v)
    xs.append(-t)
    xs.append(t * 3000000000)
    s = 0
    for x in xs:
        s += int(x)  # (Numba's simulator keeps NumPy's int32 items: int() makes them Python's)
    out[t, 0] = xs[-1]
    out[t, 1] = s
    out[t, 2] = len(xs)


def _list_widened_ref(ia, out):
    r = np.zeros_like(out)
    total = sum(int(v) for v in ia)
    for t in range(out.shape[0]):
        r[t] = (t * 3000000000, total - t + t * 3000000000, len(ia) + 2)
    return {1: r}


@cuda.jit
def list_int_then_float(ia, out):
    """Int32 items, then a float: Numba unifies the list to float64."""
    t = cuda.threadIdx.x
    xs = []
    for v in ia:
        xs.append(v + t)
    xs.append(0.5)
    s = 0.0
    for x in xs:
        s += x
    out[t] = s


def _list_float_ref(ia, out):
    n = len(ia)
    total = float(sum(int(v) for v in ia))
    return {1: np.array([total + n * t + 0.5 for t in range(out.size)])}


CASES = [
    NCase("int64_offsets", "course code: flat offsets into a large virtual image",
          big_offsets, lambda: (np.zeros((256, 5), np.int64), 3000000), 4, 64, _offsets_ref,
          features=frozenset({"int64"})),
    NCase("int64_range_squares", "labs: sums of squares over a range loop", range_squares,
          lambda: (np.zeros(128, np.int64),), 2, 64, _squares_ref,
          features=frozenset({"int64"})),
    NCase("int64_sizes_ints", "course code: len() and int() past 2**31", sizes_and_ints,
          lambda: (np.linspace(0.0, 900.0, 100000), np.zeros((64, 3), np.int64)), 1, 64,
          _sizes_ref, features=frozenset({"int64", "fp64"})),
    NCase("int64_atomic_total", "DLI course: an atomic total of large weights",
          atomic_big_counts, lambda: (100000, np.zeros(1, np.int64)), 391, 256,
          lambda n, t: {1: np.array([sum(range(n)) * 100000])},
          features=frozenset({"int64", "atomic64"})),
    NCase("int64_list_widened", "Numba's typing: a list unified over its items (int64)",
          list_widened, lambda: (np.array([7, 2**31 - 1, -5, 12], np.int32),
                                 np.zeros((32, 3), np.int64)), 1, 32, _list_widened_ref,
          features=frozenset({"int64"})),
    NCase("list_int_then_float", "Numba's typing: a list unified over its items (float64)",
          list_int_then_float, lambda: (np.array([7, 300, -5], np.int32),
                                        np.zeros(32, np.float64)), 1, 32, _list_float_ref,
          features=frozenset({"fp64"})),
]  # fmt: skip
