"""An index out of bounds outside any `try` is an IndexError of its thread (issue 23): that
thread stops where it raised (its earlier stores stay, none of its later stores or atomics
happen), every other thread finishes, and the launch raises one KernelError grouping the
threads that raised by line, with the first one's index and the array's extent. Checked on
every backend: a stencil reading past the end of its input, a row loop one past the end of
each row (every thread raises, in a loop), a shared array smaller than the block, and a
loop that only ends by failing (a search walking past the end) in a kernel whose threads
meet at a barrier and in one compiled with `debug=True`: the threads that raised stop there
(they are counted out of the barrier), so the launch ends instead of looping for ever. And a
kernel with twenty accesses in a row that stop a failing thread (threads that meet, a
`while`): each may raise, so each nests the rest of the kernel one level deeper, up to a
depth past which every statement gets a test of its own (llvmpipe miscompiled 80 levels).
And nbody's tile loop (`tile * block_dim.x + t` with `tile` a counter of the loop's
iterations): in bounds when the length is a multiple of the block, where the bounds pass tests
it once per block (the number of the loop's last iteration times the block), and past the end
in the last tile when it is not. There that test fails and the checked copy runs; with every
access proven or tested per block, the kernel keeps the backends' own check (the launch
stops with the first failing thread's access, not an IndexError per thread). And a guard on
a product that may wrap (`i * 2 < len(a)` before `a[i * 2]`): in bounds, and one past the
end with `<=`."""

import math

import numpy as np

import simt

from . import EXACT, Case, close, rng, uniform


@simt.kernel
def window(a, out, hits):
    i = simt.grid(1)
    if i < len(out):
        out[i] = -1.0
        s = a[i] + a[i + 2]  # `a` is as long as `out`: the last two threads read past it
        out[i] = s
        simt.atomic.add(hits, 0, 1)


N = 300


def _make_window():
    return uniform(rng(61), N), np.zeros(N, np.float32), np.zeros(1, np.int32)


def _ref_window(a, out, hits):
    want = np.full(N, -1.0, np.float32)
    want[: N - 2] = a[: N - 2] + a[2:]
    return {1: want, 2: np.array([N - 2], np.int32)}


def _error(threads, line_text, first, finished):
    def check(e):
        head = str(e).split("\n")[0]
        if not head.startswith(f"{threads:,} thread{'s' if threads != 1 else ''} raised "
                               "IndexError at "):  # fmt: skip
            return f"expected {threads} threads raising IndexError, got {head!r}"
        if first not in head:
            return f"expected {first!r} in {head!r}"
        if line_text not in str(e) or not head.split(" at ")[1].startswith(__file__):
            return f"expected the user's line {line_text!r}"
        if e.finished != finished or [c[0] for c in e.counts] != ["IndexError"]:
            return f"expected {finished} threads finished, got {e.finished} ({e.counts})"
        return None

    return check


@simt.kernel
def row_sums(m, out):
    y = simt.grid(1)
    if y < out.shape[0]:
        s = 0.0
        for k in range(m.shape[1] + 1):  # `<=` where `<` was meant
            s += m[y, k]
            out[y] = s


def _make_rows():
    return uniform(rng(62), (20, 7)), np.zeros(20, np.float32)


def _ref_rows(m, out):
    # float32 running sums, as the kernel adds them: the last one stored before the raise
    acc = np.zeros(20, np.float32)
    for k in range(7):
        acc = (acc + m[:, k]).astype(np.float32)
    return {1: acc}


@simt.kernel
def tile(a, out):
    s = simt.shared.array(32, simt.float32)
    t = simt.thread_idx.x
    i = simt.grid(1)
    s[t] = a[i]  # 48 threads a block, 32 elements
    out[i] = s[t] * 2.0


def _make_tile():
    return uniform(rng(63), 96), np.zeros(96, np.float32)


def _ref_tile(a, out):
    want = np.zeros(96, np.float32)
    for b in range(2):
        want[b * 48 : b * 48 + 32] = a[b * 48 : b * 48 + 32] * 2.0
    return {1: want}


FIVES = (4, 9, 20)  # where `a` holds a 5: past a[20] a search walks off the end


@simt.kernel
def find_then_share(a, out):
    s = simt.shared.array(32, simt.int32)
    t = simt.thread_idx.x
    k = t
    while a[k] != 5:  # threads 21 to 31 of each block walk off the end of `a`
        k += 1
    s[t] = k
    simt.syncthreads()  # the threads that raised are counted out
    if t < 20:
        out[simt.grid(1)] = s[t + 1]  # a neighbour that found a 5


@simt.kernel(debug=True)
def find_debug(a, out):
    t = simt.thread_idx.x
    k = t
    while a[k] != 5:  # threads 21 to 31 of each block walk off the end of `a`
        k += 1
    out[simt.grid(1)] = k


def _make_find():
    a = np.zeros(40, np.int32)
    a[list(FIVES)] = 5
    return a, np.full(64, -1, np.int32)


def _next_five(k):
    return min(f for f in FIVES if f >= k)


def _ref_share(a, out):
    want = np.full(64, -1, np.int32)
    for b in range(2):
        for t in range(20):
            want[b * 32 + t] = _next_five(t + 1)
    return {1: want}


def _ref_debug(a, out):
    want = np.full(64, -1, np.int32)
    for b in range(2):
        for t in range(21):
            want[b * 32 + t] = _next_five(t)
    return {1: want}


@simt.kernel
def deep_stops(a, idx, out, rows):
    t = simt.thread_idx.x
    i = simt.grid(1)
    s = simt.shared.array(32, simt.float32)
    s[t] = 1.0
    simt.syncthreads()
    n = 0
    while n < idx[i] % 4:  # a `while` in a kernel whose threads meet: raising threads stop
        n += 1
    j = idx[i]  # thread 5 of each block: 1000, past the end of `a`
    o = i * 20
    out[o + 0] = a[j] + n
    out[o + 1] = a[j + 1]
    out[o + 2] = a[j + 2]
    out[o + 3] = a[j + 3]
    out[o + 4] = a[j + 4]
    out[o + 5] = a[j + 5]
    out[o + 6] = a[j + 6]
    out[o + 7] = a[j + 7]
    out[o + 8] = a[j + 8]
    out[o + 9] = a[j + 9]
    out[o + 10] = a[j + 10]
    out[o + 11] = a[j + 11]
    out[o + 12] = a[j + 12]
    out[o + 13] = a[j + 13]
    out[o + 14] = a[j + 14]
    out[o + 15] = a[j + 15]
    out[o + 16] = a[j + 16]
    out[o + 17] = a[j + 17]
    out[o + 18] = a[j + 18]
    out[o + 19] = math.pow(abs(a[j]) + 0.5, a[j + 1] % 3.0) + s[t]
    row = rows[i]  # a view, bound past that depth: an array cannot leave an `if`
    row[1] = a[j + 2]
    w = row[1] * 2.0
    row[0] = w


def _make_deep():
    idx = rng(64).integers(0, 64, 64).astype(np.int32)
    idx[[5, 37]] = 1000
    return (uniform(rng(65), 84), idx, np.full(64 * 20, -1.0, np.float32),
            np.zeros((64, 2), np.float32))


def _ref_deep(a, idx, out, rows):
    want = np.full((64, 20), -1.0, np.float64)
    rw = np.zeros((64, 2), np.float64)
    a64 = a.astype(np.float64)
    for i in range(64):
        j = int(idx[i])
        if j >= len(a):
            continue  # raised at its first access: nothing written
        want[i, 0] = a64[j] + j % 4
        want[i, 1:19] = a64[j + 1 : j + 19]
        want[i, 19] = math.pow(abs(a64[j]) + 0.5, a64[j + 1] % 3.0) + 1.0
        rw[i] = [2.0 * a64[j + 2], a64[j + 2]]
    return {2: want.ravel(), 3: rw}


@simt.kernel
def tile_counter(x, out):
    sh = simt.shared.array(32, simt.float32)
    t = simt.thread_idx.x
    acc = simt.float32(0.0)
    tile = 0
    for _ in range(0, len(x), 32):
        sh[t] = x[tile * simt.block_dim.x + t]
        simt.syncthreads()
        for j in range(simt.block_dim.x):
            acc += sh[j]
        simt.syncthreads()
        tile += 1
    out[simt.block_idx.x * simt.block_dim.x + t] = acc


def _make_tiles(n):
    return lambda: (uniform(rng(67), n), np.zeros(64, np.float32))


def _ref_tiles(x, out):
    acc = np.float32(0.0)  # every thread sums every tile in the same order
    for v in x:
        acc = np.float32(acc + v)
    return {1: np.full(64, acc, np.float32)}


def _tile_error(e):
    want = ("index out of bounds in array read of `x` (index 80, length 80) (block (0, 0, 0), "
            "thread (16, 0, 0))")  # fmt: skip
    text = str(e)
    if want not in text or "sh[t] = x[tile * simt.block_dim.x + t]" not in text:
        return f"expected {want!r} at the user's line"
    return None


def _tile_inputs_kept(before, after):
    # the launch stopped at a failing read: nothing is promised of `out`, `x` is untouched
    return None if np.array_equal(before[0], after[0]) else "the kernel changed `x`"


@simt.kernel
def every_other(a, out, below):
    i = simt.grid(1)
    j = i * 2
    if j < len(a) - below:  # `below` 0: in bounds (the guard bounds a[j] once `i * 2` cannot
        out[i] = a[j]  # wrap); -1: `j <= len(a)`, thread 500 reads a[1000]


def _make_every_other(below):
    return lambda: (uniform(rng(71), 1000), np.zeros(1024, np.float32), below)


def _ref_every_other(a, out, below):
    want = np.zeros(1024, np.float32)
    want[:500] = a[::2]
    return {1: want}


CASES = [
    Case("guarded_stride", every_other, _make_every_other(0), 4, 256, _ref_every_other, EXACT,
         strided="out[i] = a[2 * i]: every other element"),
    Case("oob_guarded_stride", every_other, _make_every_other(-1), 4, 256, _ref_every_other,
         EXACT, strided="out[i] = a[2 * i]: every other element", raises=_error(1, "out[i] = a[j]",
                              "(first: thread 500: index 1000 is out of bounds of `a` with "
                              "size 1000)", 1023)),
    Case("oob_window", window, _make_window, 3, 128, _ref_window, EXACT,
         raises=_error(2, "s = a[i] + a[i + 2]",
                       f"(first: thread {N - 2}: index {N} is out of bounds of `a` with size {N})",
                       384 - 2)),
    Case("oob_row_loop", row_sums, _make_rows, 1, 32, _ref_rows, EXACT,
         raises=_error(20, "s += m[y, k]",
                       "(first: thread 0: index 7 is out of bounds for axis 1 of `m` with "
                       "size 7)", 12), strided="a row of results per thread"),
    Case("oob_shared_tile", tile, _make_tile, 2, 48, _ref_tile, EXACT,
         raises=_error(32, "s[t] = a[i]",
                       "(first: thread 32: index 32 is out of bounds of `s` with size 32)", 64)),
    Case("oob_walk_barrier", find_then_share, _make_find, 2, 32, _ref_share, EXACT,
         raises=_error(22, "while a[k] != 5:",
                       "(first: thread 21: index 40 is out of bounds of `a` with size 40)", 42)),
    Case("oob_walk_debug", find_debug, _make_find, 2, 32, _ref_debug, EXACT,
         raises=_error(22, "while a[k] != 5:",
                       "(first: thread 21: index 40 is out of bounds of `a` with size 40)", 42)),
    Case("oob_deep_stops", deep_stops, _make_deep, 2, 32, _ref_deep, close(1e-5, 1e-6),
         raises=_error(2, "out[o + 0] = a[j] + n",
                       "(first: thread 5: index 1000 is out of bounds of `a` with size 84)", 62),
         strided="twenty results per thread"),
    Case("tile_counter", tile_counter, _make_tiles(96), 2, 32, _ref_tiles, close(1e-5, 1e-6)),
    Case("oob_tile_counter", tile_counter, _make_tiles(80), 2, 32,
         verify=_tile_inputs_kept, raises=_tile_error),
]  # fmt: skip
