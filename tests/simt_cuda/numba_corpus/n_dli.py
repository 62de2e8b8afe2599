"""Kernels in the style of NVIDIA's DLI course "Fundamentals of Accelerated Computing with
CUDA Python" (its notebooks' exercises: element-wise kernels, grid-stride loops, device
functions, host-device copies, atomics, streams, shared-memory transpose and matmul). Our own
code, written after that material's kinds of programs."""

import math

import numpy as np

from simt import cuda

from .case import EXACT, NCase, close, rng, uniform


# 1. the first kernel: one thread per element, with a bounds check
@cuda.jit
def add_kernel(x, y, out):
    idx = cuda.grid(1)
    if idx < out.size:
        out[idx] = x[idx] + y[idx]


# 2. the same with a grid-stride loop, launched with device arrays and copied back
@cuda.jit
def add_stride(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]


def _launch_device_arrays(kernel, args):
    x, y, out = args
    d_x = cuda.to_device(x)
    d_y = cuda.to_device(y)
    d_out = cuda.device_array_like(out)
    kernel[4, 64](d_x, d_y, d_out)
    cuda.synchronize()
    d_out.copy_to_host(out)


# 3. a device function called from a kernel (the course's hypotenuse exercise)
@cuda.jit(device=True)
def hypot_device(a, b):
    return math.sqrt(a * a + b * b)


@cuda.jit
def hypot_kernel(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = hypot_device(a[i], b[i])


# 4. float64 "pulses": a Gaussian of the index; the index arithmetic is float64 (Numba typing)
@cuda.jit
def make_pulses(out, period, amplitude):
    i = cuda.grid(1)
    if i < out.shape[0]:
        phase = (i % period) / period
        out[i] = amplitude * math.exp(-((phase - 0.5) ** 2) / 0.02)


# 5. a histogram with global atomics
@cuda.jit
def histogram(x, xmin, xmax, hist):
    nbins = hist.shape[0]
    bin_width = (xmax - xmin) / nbins
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        b = int((x[i] - xmin) / bin_width)
        if b >= 0 and b < nbins:
            cuda.atomic.add(hist, b, 1)


# 6. transpose through a padded shared tile (avoids bank conflicts in the course's version)
TILE = 16


@cuda.jit
def tile_transpose(a, out):
    tile = cuda.shared.array((TILE, TILE + 1), dtype=np.float32)
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    if y < a.shape[0] and x < a.shape[1]:
        tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]
    cuda.syncthreads()
    tx = cuda.blockIdx.y * TILE + cuda.threadIdx.x
    ty = cuda.blockIdx.x * TILE + cuda.threadIdx.y
    if ty < out.shape[0] and tx < out.shape[1]:
        out[ty, tx] = tile[cuda.threadIdx.x, cuda.threadIdx.y]


# 7. the same element-wise kernel over four streams, timed with events
@cuda.jit
def scale_kernel(x, factor, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] * factor


def _launch_streams(kernel, args):
    x, out = args
    chunk = x.shape[0] // 4
    start, end = cuda.event(), cuda.event()
    start.record()
    for k in range(4):
        s = cuda.stream()
        part = slice(k * chunk, (k + 1) * chunk)
        d_x = cuda.to_device(x[part], stream=s)
        d_out = cuda.device_array(chunk, dtype=np.float32, stream=s)
        kernel[2, 64, s](d_x, np.float32(1.5), d_out)
        d_out.copy_to_host(out[part], stream=s)
        s.synchronize()
    end.record()
    end.synchronize()
    # a time in milliseconds; Numba's own run on an H100 (2026-11-26) gave a negative one here,
    # so only that it is a number is checked
    assert isinstance(start.elapsed_time(end), float)


# 8. a tiled matrix product in shared memory, float32 throughout
TPB = 8


@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tmp = np.float32(0.0)
    for t in range((A.shape[1] + TPB - 1) // TPB):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and t * TPB + tx < A.shape[1]:
            sA[ty, tx] = A[y, t * TPB + tx]
        if x < B.shape[1] and t * TPB + ty < B.shape[0]:
            sB[ty, tx] = B[t * TPB + ty, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


# 9. the host API around one kernel: device selection, pinned input, mapped output, a stream
# that synchronises itself at the end of its block
@cuda.jit
def square_kernel(x, out):
    i = cuda.grid(1)
    if i < x.shape[0]:
        out[i] = x[i] * x[i]


def _launch_host_api(kernel, args):
    x, out = args
    assert cuda.is_available()
    cuda.select_device(0)
    assert len(cuda.gpus) >= 1
    cuda.detect()
    pinned = cuda.pinned_array(x.shape, dtype=np.float32)
    pinned[:] = x
    mapped = cuda.mapped_array(x.shape, dtype=np.float32)
    stream = cuda.stream()
    with stream.auto_synchronize():
        kernel[2, 128, stream](pinned, mapped)
    out[:] = mapped


def _pair(n, seed):
    return uniform(seed, n), uniform(seed + 100, n)


CASES = [
    NCase("dli_add", "DLI course: first element-wise kernel", add_kernel,
          lambda: (*_pair(1000, 1), np.zeros(1000, np.float32)), 8, 128,
          lambda x, y, out: {2: x + y}),
    NCase("dli_add_stride", "DLI course: grid-stride loop, device arrays", add_stride,
          lambda: (*_pair(3000, 2), np.zeros(3000, np.float32)), 4, 64,
          lambda x, y, out: {2: x + y}, launch=_launch_device_arrays),
    NCase("dli_hypot", "DLI course: device function", hypot_kernel,
          lambda: (*_pair(500, 3), np.zeros(500, np.float32)), 4, 128,
          lambda a, b, out: {2: np.hypot(a.astype(np.float64), b).astype(np.float32)},
          tol=close(2e-6, 1e-7)),
    NCase("dli_pulses", "DLI course: math in float64", make_pulses,
          lambda: (np.zeros(700, np.float64), 50, 2.5), 6, 128,
          lambda out, p, a: {0: a * np.exp(-(((np.arange(700) % p) / p - 0.5) ** 2) / 0.02)},
          tol=close(1e-13, 1e-15), features=frozenset({"fp64"})),
    NCase("dli_histogram", "DLI course: histogram with atomics", histogram,
          lambda: (uniform(5, 4000, np.float32, -3, 3), np.float32(-3.0), np.float32(3.0),
                   np.zeros(32, np.int32)), 4, 128,
          lambda x, lo, hi, h: {3: np.histogram(x, 32, (-3, 3))[0].astype(np.int32)},
          tol=close(0, 1.0), agree=close(0, 1.0)),
    NCase("dli_tile_transpose", "DLI course: shared-memory transpose", tile_transpose,
          lambda: (uniform(6, (40, 37)), np.zeros((37, 40), np.float32)), (3, 3), (TILE, TILE),
          lambda a, out: {1: a.T.copy()}),
    NCase("dli_streams", "DLI course: streams and events", scale_kernel,
          lambda: (uniform(7, 512), np.zeros(512, np.float32)), 2, 64,
          lambda x, out: {1: x * np.float32(1.5)}, launch=_launch_streams),
    NCase("dli_fast_matmul", "DLI course: shared-memory matmul", fast_matmul,
          lambda: (uniform(8, (20, 19)), uniform(9, (19, 13)), np.zeros((20, 13), np.float32)),
          (2, 3), (TPB, TPB),
          lambda A, B, C: {2: (A.astype(np.float64) @ B).astype(np.float32)},
          tol=close(1e-5, 1e-5)),
    NCase("dli_host_api", "DLI course: pinned and mapped memory, streams, devices",
          square_kernel, lambda: (uniform(10, 200), np.zeros(200, np.float32)), 2, 128,
          lambda x, out: {1: x * x}, launch=_launch_host_api),
]  # fmt: skip
_ = (EXACT, rng)
