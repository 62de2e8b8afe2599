"""Kernels in the style of university GPU-programming labs that teach with Numba-CUDA: the
Mandelbrot set, Black-Scholes option pricing (float64, a device function for the normal CDF),
SAXPY with a signature string and `configure`, `forall`, image brightness on uint8 pixels,
a privatised shared-memory histogram, a 1-D stencil in dynamic shared memory, a filter with
`cuda.const.array_like` weights, and an n-body acceleration step. Our own code after the
exercises such labs set."""

import math

import numpy as np

from simt import cuda, float32, int32, void

from .case import NCase, close, l1, uniform


@cuda.jit(device=True)
def mandel(x, y, max_iters):
    c_re = x
    c_im = y
    z_re = np.float32(0.0)
    z_im = np.float32(0.0)
    for i in range(max_iters):
        z_re2 = z_re * z_re
        z_im2 = z_im * z_im
        if z_re2 + z_im2 >= 4:
            return i
        z_im = 2 * z_re * z_im + c_im
        z_re = z_re2 - z_im2 + c_re
    return max_iters


@cuda.jit
def mandel_kernel(min_x, max_x, min_y, max_y, image, iters):
    height, width = image.shape
    pixel_x = (max_x - min_x) / width
    pixel_y = (max_y - min_y) / height
    x, y = cuda.grid(2)
    if x < width and y < height:
        real = min_x + x * pixel_x
        imag = min_y + y * pixel_y
        image[y, x] = mandel(real, imag, iters)


@cuda.jit(device=True)
def cnd(d):
    A1 = 0.31938153
    A2 = -0.356563782
    A3 = 1.781477937
    A4 = -1.821255978
    A5 = 1.330274429
    RSQRT2PI = 0.39894228040143267793994605993438
    K = 1.0 / (1.0 + 0.2316419 * math.fabs(d))
    ret_val = RSQRT2PI * math.exp(-0.5 * d * d) * (
        K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5))))
    )
    if d > 0:
        ret_val = 1.0 - ret_val
    return ret_val


@cuda.jit
def black_scholes(call, put, S, X, T, R, V):
    i = cuda.grid(1)
    if i >= S.shape[0]:
        return
    sqrt_t = math.sqrt(T[i])
    d1 = (math.log(S[i] / X[i]) + (R + 0.5 * V * V) * T[i]) / (V * sqrt_t)
    d2 = d1 - V * sqrt_t
    cnd_d1 = cnd(d1)
    cnd_d2 = cnd(d2)
    exp_rt = math.exp(-1.0 * R * T[i])
    call[i] = S[i] * cnd_d1 - X[i] * exp_rt * cnd_d2
    put[i] = X[i] * exp_rt * (1.0 - cnd_d2) - S[i] * (1.0 - cnd_d1)


@cuda.jit("void(float32, float32[:], float32[:], float32[:])")
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = a * x[i] + y[i]


@cuda.jit(float32(float32, float32, float32), device=True)
def axpy_one(a, x, y):
    return a * x + y


@cuda.jit(void(float32, float32[:, ::1], float32[:, ::1], int32))
def axpy_rows(a, x, y, rows):
    i, j = cuda.grid(2)
    if i < rows and j < x.shape[1]:
        y[i, j] = axpy_one(a, x[i, j], y[i, j])


def _launch_configure(kernel, args):
    if hasattr(kernel, "configure"):  # Numba's compiled kernels and simt's
        kernel.configure(4, 128)(*args)
    else:  # Numba's simulator has no configure: the same launch, spelled with brackets
        kernel[4, 128](*args)


@cuda.jit
def increment_forall(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


def _launch_forall(kernel, args):
    kernel.forall(args[0].size)(*args)


@cuda.jit
def brighten(img, out, gain):
    i, j = cuda.grid(2)
    if i < img.shape[0] and j < img.shape[1]:
        out[i, j] = min(255, img[i, j] * gain + 10.5)


NBINS = 16


@cuda.jit
def shared_histogram(x, hist):
    local_hist = cuda.shared.array(NBINS, np.int32)
    t = cuda.threadIdx.x
    if t < NBINS:
        local_hist[t] = 0
    cuda.syncthreads()
    start = cuda.grid(1)
    stride = cuda.blockDim.x * cuda.gridDim.x
    for i in range(start, x.shape[0], stride):
        cuda.atomic.add(local_hist, x[i] % NBINS, 1)
    cuda.syncthreads()
    if t < NBINS:
        cuda.atomic.add(hist, t, local_hist[t])


RADIUS = 2
F32 = np.dtype(np.float32)


@cuda.jit
def stencil_dynamic(x, out):
    buf = cuda.shared.array(0, dtype=F32)  # blockDim.x + 2 * RADIUS, from the launch
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    n = x.shape[0]
    buf[t + RADIUS] = x[i] if i < n else 0.0
    if t < RADIUS:
        left = i - RADIUS
        buf[t] = x[left] if left >= 0 else 0.0
        right = i + cuda.blockDim.x
        buf[t + cuda.blockDim.x + RADIUS] = x[right] if right < n else 0.0
    cuda.syncthreads()
    if i < n:
        acc = np.float32(0.0)
        for k in range(-RADIUS, RADIUS + 1):
            acc += buf[t + RADIUS + k]
        out[i] = acc


WEIGHTS = np.array([0.1, 0.2, 0.4, 0.2, 0.1], np.float32)


@cuda.jit
def const_filter(x, out):
    w = cuda.const.array_like(WEIGHTS)
    i = cuda.grid(1)
    n = x.shape[0]
    if i < n:
        acc = np.float32(0.0)
        for k in range(w.shape[0]):
            j = i + k - 2
            if 0 <= j < n:
                acc += w[k] * x[j]
        out[i] = acc


@cuda.jit
def nbody_accel(pos, acc, eps2):
    i = cuda.grid(1)
    if i < pos.shape[0]:
        ax = np.float32(0.0)
        ay = np.float32(0.0)
        for j in range(pos.shape[0]):
            dx = pos[j, 0] - pos[i, 0]
            dy = pos[j, 1] - pos[i, 1]
            r2 = dx * dx + dy * dy + eps2
            inv = np.float32(1.0) / (r2 * math.sqrt(r2))
            ax += dx * inv
            ay += dy * inv
        acc[i, 0] = ax
        acc[i, 1] = ay


def _mandel_ref(x0, x1, y0, y1, image, iters):
    h, w = image.shape
    out = np.zeros((h, w), image.dtype)
    px, py = (x1 - x0) / w, (y1 - y0) / h
    for yy in range(h):
        for xx in range(w):
            c = complex(x0 + xx * px, y0 + yy * py)
            z = 0j
            n = iters
            for k in range(iters):
                if z.real * z.real + z.imag * z.imag >= 4:
                    n = k
                    break
                z = z * z + c
            out[yy, xx] = n
    return {4: out}


def _cnd(d):
    a = (0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429)
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (a[0] + k * (a[1] + k * (a[2] + k * (a[3] + k * a[4]))))
    r = 0.39894228040143267793994605993438 * np.exp(-0.5 * d * d) * poly
    return np.where(d > 0, 1.0 - r, r)


def _bs_make():
    n = 300
    g = np.random.default_rng(31)
    return (np.zeros(n), np.zeros(n), g.uniform(5, 30, n), g.uniform(1, 100, n),
            g.uniform(0.25, 10, n), 0.02, 0.30)  # fmt: skip


def _bs_ref(call, put, S, X, T, R, V):
    st = np.sqrt(T)
    d1 = (np.log(S / X) + (R + 0.5 * V * V) * T) / (V * st)
    d2 = d1 - V * st
    e = np.exp(-R * T)
    c1, c2 = _cnd(d1), _cnd(d2)
    return {0: S * c1 - X * e * c2, 1: X * e * (1.0 - c2) - S * (1.0 - c1)}


def _hist_ref(x, hist):
    return {1: np.bincount(x % NBINS, minlength=NBINS).astype(np.int32)}


def _stencil_ref(x, out):
    p = np.pad(x.astype(np.float64), RADIUS)
    r = sum(p[k : k + x.size] for k in range(2 * RADIUS + 1))
    return {1: r.astype(np.float32)}


def _filter_ref(x, out):
    p = np.pad(x.astype(np.float64), 2)
    return {1: sum(WEIGHTS[k] * p[k : k + x.size] for k in range(5)).astype(np.float32)}


def _nbody_ref(pos, acc, eps2):
    d = pos[None, :, :].astype(np.float64) - pos[:, None, :]
    r2 = (d**2).sum(-1) + eps2
    return {1: (d / (r2 * np.sqrt(r2))[..., None]).sum(1).astype(np.float32)}


CASES = [
    NCase("lab_mandelbrot", "university lab: Mandelbrot with a device function",
          mandel_kernel,
          lambda: (np.float32(-2.0), np.float32(1.0), np.float32(-1.0), np.float32(1.0),
                   np.zeros((24, 36), np.int32), 40),
          (5, 3), (8, 8), _mandel_ref, tol=l1(0.02)),
    NCase("lab_black_scholes", "university lab: Black-Scholes in float64", black_scholes,
          _bs_make, 3, 128, _bs_ref, tol=close(1e-11, 1e-11), features=frozenset({"fp64"})),
    NCase("lab_saxpy_signature", "university lab: SAXPY, signature string and configure",
          saxpy, lambda: (np.float32(2.5), uniform(32, 500), uniform(33, 500),
                          np.zeros(500, np.float32)), 4, 128,
          lambda a, x, y, out: {3: a * x + y}, launch=_launch_configure),
    NCase("lab_axpy_typed_signature", "university lab: typed signatures, void(float32[:, ::1])",
          axpy_rows, lambda: (np.float32(-1.5), uniform(35, (6, 40)), uniform(36, (6, 40)), 5),
          (1, 3), (8, 16), lambda a, x, y, rows: {2: np.vstack([a * x[:rows] + y[:rows],
                                                                y[rows:]])}),
    NCase("lab_forall", "university lab: kernel.forall", increment_forall,
          lambda: (np.arange(1000, dtype=np.int32),), 1, 1,
          lambda a: {0: a + 1}, launch=_launch_forall),
    NCase("lab_brighten_uint8", "university lab: image brightness on uint8 pixels", brighten,
          lambda: (np.random.default_rng(34).integers(0, 256, (20, 30)).astype(np.uint8),
                   np.zeros((20, 30), np.uint8), 1.3), (3, 4), (8, 8),
          lambda img, out, g: {1: np.minimum(255, img * g + 10.5).astype(np.uint8)},
          features=frozenset({"fp64"})),
    NCase("lab_shared_histogram", "university lab: privatised shared-memory histogram",
          shared_histogram,
          lambda: (np.random.default_rng(35).integers(0, 1000, 5000).astype(np.int32),
                   np.zeros(NBINS, np.int32)), 4, 64, _hist_ref),
    NCase("lab_stencil_dynamic", "university lab: 1-D stencil in dynamic shared memory",
          stencil_dynamic, lambda: (uniform(36, 300), np.zeros(300, np.float32)), 5, 64,
          _stencil_ref, tol=close(1e-6, 1e-6), sharedmem=(64 + 2 * RADIUS) * 4),
    NCase("lab_const_filter", "university lab: weights in cuda.const.array_like", const_filter,
          lambda: (uniform(37, 200), np.zeros(200, np.float32)), 2, 128, _filter_ref,
          tol=close(1e-6, 1e-6)),
    NCase("lab_nbody", "university lab: n-body accelerations", nbody_accel,
          lambda: (uniform(38, (64, 2)), np.zeros((64, 2), np.float32), np.float32(0.01)), 1,
          64, _nbody_ref, tol=close(1e-4, 1e-3)),
]  # fmt: skip
