"""Kernels in the style of GPU-Puzzles (Sasha Rush's Numba-CUDA exercises): map, zip,
guards, 2-D maps, broadcasting, blocks, shared memory, pooling, dot product, 1-D convolution,
prefix sum, axis sum and a tiled matmul. Our own solutions, written after the puzzles'
statements; small sizes, as the puzzles use."""

import numpy as np

from simt import cuda

from .case import NCase, close

TPB = 8


@cuda.jit
def p_map(out, a):
    local_i = cuda.threadIdx.x
    out[local_i] = a[local_i] + 10


@cuda.jit
def p_zip(out, a, b):
    local_i = cuda.threadIdx.x
    out[local_i] = a[local_i] + b[local_i]


@cuda.jit
def p_guard(out, a, size):
    local_i = cuda.threadIdx.x
    if local_i < size:
        out[local_i] = a[local_i] + 10


@cuda.jit
def p_map2d(out, a, size):
    local_i = cuda.threadIdx.x
    local_j = cuda.threadIdx.y
    if local_i < size and local_j < size:
        out[local_i, local_j] = a[local_i, local_j] + 10


@cuda.jit
def p_broadcast(out, a, b, size):
    local_i = cuda.threadIdx.x
    local_j = cuda.threadIdx.y
    if local_i < size and local_j < size:
        out[local_i, local_j] = a[local_i, 0] + b[0, local_j]


@cuda.jit
def p_blocks(out, a, size):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < size:
        out[i] = a[i] + 10


@cuda.jit
def p_blocks2d(out, a, size):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    j = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    if i < size and j < size:
        out[i, j] = a[i, j] + 10


@cuda.jit
def p_shared(out, a, size):
    shared = cuda.shared.array(TPB, np.float32)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    local_i = cuda.threadIdx.x
    if i < size:
        shared[local_i] = a[i]
    cuda.syncthreads()
    if i < size:
        out[i] = shared[local_i] + 10


@cuda.jit
def p_pooling(out, a, size):
    shared = cuda.shared.array(TPB, np.float32)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    local_i = cuda.threadIdx.x
    if i < size:
        shared[local_i] = a[i]
    cuda.syncthreads()
    if i < size:
        acc = shared[local_i]
        if local_i >= 1:
            acc += shared[local_i - 1]
        if local_i >= 2:
            acc += shared[local_i - 2]
        out[i] = acc


@cuda.jit
def p_dot(out, a, b, size):
    shared = cuda.shared.array(TPB, np.float32)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    local_i = cuda.threadIdx.x
    shared[local_i] = 0
    if i < size:
        shared[local_i] = a[i] * b[i]
    cuda.syncthreads()
    step = 1
    while step < TPB:
        if local_i % (2 * step) == 0:
            shared[local_i] += shared[local_i + step]
        step *= 2
        cuda.syncthreads()
    if local_i == 0:
        out[0] = shared[0]


MAX_CONV = 4
CONV_SHARED = TPB + MAX_CONV


@cuda.jit
def p_conv1d(out, a, b, a_size, b_size):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    local_i = cuda.threadIdx.x
    sa = cuda.shared.array(CONV_SHARED, np.float32)
    sb = cuda.shared.array(MAX_CONV, np.float32)
    sa[local_i] = a[i] if i < a_size else 0.0
    if local_i < MAX_CONV:
        tail = i + TPB
        sa[local_i + TPB] = a[tail] if tail < a_size else 0.0
        sb[local_i] = b[local_i] if local_i < b_size else 0.0
    cuda.syncthreads()
    if i < a_size:
        acc = np.float32(0.0)
        for k in range(b_size):
            acc += sa[local_i + k] * sb[k]
        out[i] = acc


@cuda.jit
def p_prefix_sum(out, a, size):
    cache = cuda.shared.array(TPB, np.float32)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    local_i = cuda.threadIdx.x
    cache[local_i] = a[i] if i < size else 0.0
    cuda.syncthreads()
    offset = 1
    while offset < TPB:
        v = cache[local_i - offset] if local_i >= offset else 0.0
        cuda.syncthreads()
        cache[local_i] += v
        cuda.syncthreads()
        offset *= 2
    if local_i == TPB - 1:
        out[cuda.blockIdx.x] = cache[local_i]


@cuda.jit
def p_axis_sum(out, a, size):
    cache = cuda.shared.array(TPB, np.float32)
    local_i = cuda.threadIdx.x
    batch = cuda.blockIdx.y
    cache[local_i] = a[batch, local_i] if local_i < size else 0.0
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if local_i < step:
            cache[local_i] += cache[local_i + step]
        cuda.syncthreads()
        step //= 2
    if local_i == 0:
        out[batch, 0] = cache[0]


@cuda.jit
def p_matmul(out, a, b, size):
    a_sh = cuda.shared.array((TPB, TPB), np.float32)
    b_sh = cuda.shared.array((TPB, TPB), np.float32)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    j = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
    local_i = cuda.threadIdx.x
    local_j = cuda.threadIdx.y
    acc = np.float32(0.0)
    for t in range(0, size, TPB):
        a_sh[local_i, local_j] = a[i, t + local_j] if i < size and t + local_j < size else 0.0
        b_sh[local_i, local_j] = b[t + local_i, j] if j < size and t + local_i < size else 0.0
        cuda.syncthreads()
        for k in range(TPB):
            acc += a_sh[local_i, k] * b_sh[k, local_j]
        cuda.syncthreads()
    if i < size and j < size:
        out[i, j] = acc


def _ar(n, dtype=np.float32):
    return np.arange(n, dtype=dtype)


def _sq(n):
    return np.arange(n * n, dtype=np.float32).reshape(n, n)


def _pool_ref(out, a, size):
    r = a.copy()
    r[1:] += a[:-1]
    r[2:] += a[:-2]
    for start in range(0, size, TPB):  # the window does not reach across a block
        r[start] = a[start]
        if start + 1 < size:
            r[start + 1] = a[start] + a[start + 1]
    return {0: r}


def _conv_ref(out, a, b, na, nb):
    ap = np.concatenate([a, np.zeros(nb, np.float32)])
    return {0: np.array([sum(ap[i + k] * b[k] for k in range(nb)) for i in range(na)],
                        np.float32)}  # fmt: skip


def _prefix_ref(out, a, size):
    padded = np.pad(a, (0, (-size) % TPB))
    return {0: padded.reshape(-1, TPB).sum(1).astype(np.float32)}


CASES = [
    NCase("puzzle_map", "GPU-Puzzles 1: map", p_map, lambda: (np.zeros(4, np.float32), _ar(4)),
          1, 4, lambda out, a: {0: a + 10}),
    NCase("puzzle_zip", "GPU-Puzzles 2: zip", p_zip,
          lambda: (np.zeros(4, np.float32), _ar(4), _ar(4) * 3), 1, 4,
          lambda out, a, b: {0: a + b}),
    NCase("puzzle_guard", "GPU-Puzzles 3: guard", p_guard,
          lambda: (np.zeros(4, np.float32), _ar(4), 4), 1, 8, lambda out, a, s: {0: a + 10}),
    NCase("puzzle_map2d", "GPU-Puzzles 4: map 2-D", p_map2d,
          lambda: (np.zeros((2, 2), np.float32), _sq(2), 2), 1, (3, 3),
          lambda out, a, s: {0: a + 10}),
    NCase("puzzle_broadcast", "GPU-Puzzles 5: broadcast", p_broadcast,
          lambda: (np.zeros((2, 2), np.float32), _ar(2).reshape(2, 1), _ar(2).reshape(1, 2), 2),
          1, (3, 3), lambda out, a, b, s: {0: a + b}),
    NCase("puzzle_blocks", "GPU-Puzzles 6: blocks", p_blocks,
          lambda: (np.zeros(9, np.float32), _ar(9), 9), 3, 4, lambda out, a, s: {0: a + 10}),
    NCase("puzzle_blocks2d", "GPU-Puzzles 7: blocks 2-D", p_blocks2d,
          lambda: (np.zeros((5, 5), np.float32), _sq(5), 5), (2, 2), (3, 3),
          lambda out, a, s: {0: a + 10}),
    NCase("puzzle_shared", "GPU-Puzzles 8: shared", p_shared,
          lambda: (np.zeros(12, np.float32), _ar(12), 12), 2, TPB,
          lambda out, a, s: {0: a + 10}),
    NCase("puzzle_pooling", "GPU-Puzzles 9: pooling", p_pooling,
          lambda: (np.zeros(8, np.float32), _ar(8), 8), 1, TPB, _pool_ref),
    NCase("puzzle_dot", "GPU-Puzzles 10: dot product", p_dot,
          lambda: (np.zeros(1, np.float32), _ar(8), _ar(8), 8), 1, TPB,
          lambda out, a, b, s: {0: np.array([a @ b], np.float32)}),
    NCase("puzzle_conv1d", "GPU-Puzzles 11: 1-D convolution", p_conv1d,
          lambda: (np.zeros(15, np.float32), _ar(15), _ar(4), 15, 4), 2, TPB, _conv_ref),
    NCase("puzzle_prefix_sum", "GPU-Puzzles 12: prefix sum (block totals)", p_prefix_sum,
          lambda: (np.zeros(2, np.float32), _ar(15), 15), 2, TPB, _prefix_ref),
    NCase("puzzle_axis_sum", "GPU-Puzzles 13: axis sum", p_axis_sum,
          lambda: (np.zeros((4, 1), np.float32), _ar(24).reshape(4, 6), 6), (1, 4), (TPB, 1),
          lambda out, a, s: {0: a.sum(1, keepdims=True)}),
    NCase("puzzle_matmul", "GPU-Puzzles 14: tiled matmul", p_matmul,
          lambda: (np.zeros((10, 10), np.float32), _sq(10) / 10, _sq(10).T.copy() / 10, 10),
          (2, 2), (TPB, TPB), lambda out, a, b, s: {0: (a.astype(np.float64) @ b)
                                                    .astype(np.float32)},
          tol=close(1e-6, 1e-5)),
]  # fmt: skip
