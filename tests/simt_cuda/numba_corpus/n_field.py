"""Numba-CUDA programs as people have them in the field, beyond the course material the other
files follow: the examples of Numba's documentation (click-stream sessionization, the
shared-memory array sum), programs from public repositories and blog posts (a bitonic sort
driven from the host, an int8 box filter, RGB-to-grey conversions, a row softmax, k-means
cluster assignment, a Julia set), and the classic textbook kernels people port (CUDA by
Example's dot product, GPU Gems' scans, a warp-shuffle reduction, a Jacobi relaxation).
Our own transcriptions, written after reading those programs (none is copied); each names the
kind of source it follows. Sizes are small so that Numba's simulator runs them quickly."""

import math

import numpy as np

from simt import cuda

from .case import NCase, close, l1, rng, uniform

# ----------------------------------------------------------- Numba docs: sessionization
# (the documentation's example splits the boundary and the labelling passes with a grid
# sync; a program without cooperative groups launches twice, as here)
SESSION_TIMEOUT = np.int64(3600)


@cuda.jit
def session_boundaries(user_id, timestamp, results):
    gid = cuda.grid(1)
    size = len(user_id)
    if gid >= size:
        return
    is_first_datapoint = gid == 0
    if not is_first_datapoint:
        new_user = user_id[gid] != user_id[gid - 1]
        timed_out = timestamp[gid] - timestamp[gid - 1] > SESSION_TIMEOUT
        is_sess_boundary = new_user or timed_out
    else:
        is_sess_boundary = True
    if is_sess_boundary:
        results[gid] = gid
    else:
        results[gid] = -1


@cuda.jit
def session_labels(results):
    gid = cuda.grid(1)
    size = len(results)
    if gid >= size:
        return
    if results[gid] == gid:
        look_ahead = 1
        while gid + look_ahead < size and results[gid + look_ahead] == -1:
            results[gid + look_ahead] = gid
            look_ahead += 1


def _make_sessions():
    r = rng(101)
    users = np.sort(r.integers(0, 12, 500)).astype(np.int32)
    stamps = np.cumsum(r.integers(0, 2400, 500)).astype(np.int64)
    return users, stamps, np.zeros(500, np.int64)


def _ref_sessions(users, stamps, results):
    out = np.empty(len(users), np.int64)
    for k in range(len(users)):
        if k == 0 or users[k] != users[k - 1] or stamps[k] - stamps[k - 1] > SESSION_TIMEOUT:
            out[k] = k
        else:
            out[k] = out[k - 1]
    return {2: out}


def _launch_sessions(kernel, args):
    users, stamps, results = args
    d_results = cuda.to_device(results)
    blocks = (len(users) + 127) // 128
    kernel[blocks, 128](cuda.to_device(users), cuda.to_device(stamps), d_results)
    session_labels[blocks, 128](d_results)
    results[:] = d_results.copy_to_host()


# ----------------------------------------------------------- Numba docs: array sum
# (one block of `NELEM` threads sums an int64 array through an int32 shared array whose
# size is a module global, the documentation's interleaved-pairs reduction)
NELEM = 512


@cuda.jit
def docs_array_sum(data):
    tid = cuda.threadIdx.x
    size = len(data)
    if tid < size:
        i = cuda.grid(1)
        shr = cuda.shared.array(NELEM, np.int32)
        shr[tid] = data[i]
        cuda.syncthreads()
        s = 1
        while s < cuda.blockDim.x:
            if tid % (2 * s) == 0:
                shr[tid] += shr[tid + s]
            s *= 2
            cuda.syncthreads()
        if tid == 0:
            data[tid] = shr[tid]


def _launch_array_sum(kernel, args):
    d = cuda.to_device(args[0])
    kernel[1, len(args[0])](d)
    args[0][:] = d.copy_to_host()


def _ref_array_sum(data):
    out = data.copy()
    out[0] = data.sum()
    return {0: out}


# ----------------------------------------------------------- a repository's bitonic sort
@cuda.jit(device=True)
def compare_and_swap(data, a, b, ascending):
    if (data[a] > data[b]) == ascending:
        data[a], data[b] = data[b], data[a]


@cuda.jit
def bitonic_step(data, j, k):
    i = cuda.grid(1)
    ixj = i ^ j
    if ixj > i:
        if (i & k) == 0:
            compare_and_swap(data, i, ixj, True)
        else:
            compare_and_swap(data, i, ixj, False)


def _launch_bitonic(kernel, args):
    n = len(args[0])
    d = cuda.to_device(args[0])
    threads = 64
    blocks = (n + threads - 1) // threads
    k = 2
    while k <= n:
        j = k >> 1
        while j > 0:
            kernel[blocks, threads](d, j, k)
            j >>= 1
        k <<= 1
    args[0][:] = d.copy_to_host()


# ----------------------------------------------------------- a lab's int8 box filter
@cuda.jit
def smooth_int8(x, out):
    i, j = cuda.grid(2)
    n, m = x.shape
    if 1 <= i < n - 1 and 1 <= j < m - 1:
        out[i, j] = (x[i - 1, j - 1] + x[i - 1, j] + x[i - 1, j + 1] +
                     x[i, j - 1] + x[i, j] + x[i, j + 1] +
                     x[i + 1, j - 1] + x[i + 1, j] + x[i + 1, j + 1]) // 9  # fmt: skip


def _ref_smooth(x, out):
    w = x.astype(np.int64)
    s = sum(w[1 + a : w.shape[0] - 1 + a, 1 + b : w.shape[1] - 1 + b]
            for a in (-1, 0, 1) for b in (-1, 0, 1))  # fmt: skip
    r = out.copy()
    r[1:-1, 1:-1] = (s // 9).astype(np.int8)
    return {1: r}


# ----------------------------------------------------------- blog posts: RGB to grey
@cuda.jit
def rgb_to_gray(rgb, gray):
    x, y = cuda.grid(2)
    if x < rgb.shape[0] and y < rgb.shape[1]:
        r, g, b = rgb[x, y]
        gray[x, y] = 0.2989 * r + 0.5870 * g + 0.1140 * b


def _ref_gray(rgb, gray):
    f = rgb.astype(np.float64)
    return {1: (0.2989 * f[..., 0] + 0.5870 * f[..., 1] + 0.1140 * f[..., 2]).astype(np.float32)}


@cuda.jit
def gray_average(src, dst):
    tidx = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    g = np.uint8((src[tidx, 0] + src[tidx, 1] + src[tidx, 2]) / 3)
    dst[tidx, 0] = dst[tidx, 1] = dst[tidx, 2] = g


def _ref_gray_average(src, dst):
    g = (src.astype(np.int64).sum(axis=1) / 3).astype(np.uint8)
    return {1: np.repeat(g[:, None], 3, axis=1)}


# ----------------------------------------------------------- a course project: row softmax
@cuda.jit
def softmax_rows(inp, out):
    b_idx = cuda.blockIdx.x
    idx = cuda.threadIdx.x
    temp = cuda.shared.array(10, dtype=np.float32)
    temp[idx] = inp[b_idx, idx]
    cuda.syncthreads()
    sum_exp = 0.0
    for i in range(10):
        sum_exp += math.exp(temp[i])
    cuda.syncthreads()
    out[b_idx, idx] = math.exp(temp[idx]) / sum_exp


def _ref_softmax(inp, out):
    e = np.exp(inp.astype(np.float64))
    return {1: (e / e.sum(axis=1, keepdims=True)).astype(np.float32)}


# ----------------------------------------------------------- benchmark suites: k-means
@cuda.jit
def group_by_cluster(points, labels, centroids, num_centroids):
    idx = cuda.grid(1)
    if idx >= points.shape[0]:
        return
    minor_distance = -1
    for c in range(num_centroids):
        dx = points[idx, 0] - centroids[c, 0]
        dy = points[idx, 1] - centroids[c, 1]
        my_distance = np.sqrt(dx * dx + dy * dy)
        if minor_distance > my_distance or minor_distance == -1:
            minor_distance = my_distance
            labels[idx] = c


@cuda.jit
def cluster_sums(points, labels, sums, counts):
    idx = cuda.grid(1)
    if idx < points.shape[0]:
        c = labels[idx]
        cuda.atomic.add(sums, (c, 0), points[idx, 0])
        cuda.atomic.add(sums, (c, 1), points[idx, 1])
        cuda.atomic.add(counts, c, 1)


def _make_kmeans():
    return (uniform(111, (300, 2), np.float64, 0.0, 10.0), np.zeros(300, np.int32),
            uniform(112, (5, 2), np.float64, 0.0, 10.0), 5,
            np.zeros((5, 2), np.float64), np.zeros(5, np.int32))  # fmt: skip


def _launch_kmeans(kernel, args):
    points, labels, centroids, k, sums, counts = args
    kernel[(len(points) + 63) // 64, 64](points, labels, centroids, k)
    cluster_sums[(len(points) + 63) // 64, 64](points, labels, sums, counts)


def _ref_kmeans(points, labels, centroids, k, sums, counts):
    d = np.sqrt(((points[:, None, :] - centroids[None, :, :]) ** 2).sum(-1))
    lab = d.argmin(axis=1).astype(np.int32)
    s = np.zeros((k, 2))
    np.add.at(s, lab, points)
    return {1: lab, 4: s, 5: np.bincount(lab, minlength=k).astype(np.int32)}


# ----------------------------------------------------------- a tutorial's Julia set (complex)
JULIA_C = complex(-0.8, 0.156)


@cuda.jit
def julia(out, x0, y0, step, max_iter):
    row, col = cuda.grid(2)
    if row < out.shape[0] and col < out.shape[1]:
        z = complex(x0 + col * step, y0 + row * step)
        n = 0
        while abs(z) <= 2 and n < max_iter:
            z = z * z + JULIA_C
            n += 1
        out[row, col] = n


def _ref_julia(out, x0, y0, step, max_iter):
    rows, cols = np.indices(out.shape)
    z = (x0 + cols * step) + 1j * (y0 + rows * step)
    n = np.zeros(out.shape, np.int32)
    for _ in range(max_iter):
        live = np.abs(z) <= 2
        z = np.where(live, z * z + JULIA_C, z)
        n += live
    return {0: n}


# ----------------------------------------------------------- lecture notes: matrix-vector
@cuda.jit
def gemv(a, x, y):
    row = cuda.grid(1)
    if row < a.shape[0]:
        acc = 0.0
        for col in range(a.shape[1]):
            acc += a[row, col] * x[col]
        y[row] = acc


def _ref_gemv(a, x, y):
    return {2: (a * x[None, :]).astype(np.float64).sum(axis=1).astype(np.float32)}


# ----------------------------------------------------------- a solver tutorial: Jacobi steps
@cuda.jit
def jacobi_step(old, new):
    i, j = cuda.grid(2)
    n, m = old.shape
    if 0 < i < n - 1 and 0 < j < m - 1:
        new[i, j] = 0.25 * (old[i - 1, j] + old[i + 1, j] + old[i, j - 1] + old[i, j + 1])


def _make_jacobi():
    u = np.zeros((34, 34))
    u[0, :] = 1.0
    u[:, 0] = 0.5
    return (u,)


def _launch_jacobi(kernel, args):
    a = cuda.to_device(args[0])
    b = cuda.to_device(args[0])
    for _ in range(20):
        kernel[(3, 3), (16, 16)](a, b)
        a, b = b, a
    args[0][:] = a.copy_to_host()


def _ref_jacobi(u):
    a = u.copy()
    for _ in range(20):
        b = a.copy()
        b[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a = b
    return {0: a}


# ----------------------------------------------------------- GPU Gems: Hillis-Steele scan
SCAN_TPB = 128


@cuda.jit
def hillis_steele_scan(x, out):
    temp = cuda.shared.array((2, SCAN_TPB), dtype=np.int32)
    tid = cuda.threadIdx.x
    pout = 0
    pin = 1
    temp[pout, tid] = x[tid]
    cuda.syncthreads()
    offset = 1
    while offset < SCAN_TPB:
        pout = 1 - pout
        pin = 1 - pout
        if tid >= offset:
            temp[pout, tid] = temp[pin, tid] + temp[pin, tid - offset]
        else:
            temp[pout, tid] = temp[pin, tid]
        cuda.syncthreads()
        offset *= 2
    out[tid] = temp[pout, tid]


# ----------------------------------------------------------- GPU Gems: Blelloch scan
@cuda.jit
def blelloch_scan(x, out):
    temp = cuda.shared.array(SCAN_TPB, dtype=np.int32)
    tid = cuda.threadIdx.x
    n = SCAN_TPB
    temp[tid] = x[tid]
    offset = 1
    d = n >> 1
    while d > 0:
        cuda.syncthreads()
        if tid < d:
            ai = offset * (2 * tid + 1) - 1
            bi = offset * (2 * tid + 2) - 1
            temp[bi] += temp[ai]
        offset *= 2
        d >>= 1
    if tid == 0:
        temp[n - 1] = 0
    d = 1
    while d < n:
        offset >>= 1
        cuda.syncthreads()
        if tid < d:
            ai = offset * (2 * tid + 1) - 1
            bi = offset * (2 * tid + 2) - 1
            t = temp[ai]
            temp[ai] = temp[bi]
            temp[bi] += t
        d *= 2
    cuda.syncthreads()
    out[tid] = temp[tid]


def _make_scan():
    return rng(121).integers(-100, 100, SCAN_TPB).astype(np.int32), np.zeros(SCAN_TPB, np.int32)


# ----------------------------------------------------------- a blog post: warp-shuffle sum
@cuda.jit
def warp_shuffle_sum(x, out):
    i = cuda.grid(1)
    val = 0.0
    if i < x.shape[0]:
        val = x[i]
    offset = 16
    while offset > 0:
        val += cuda.shfl_down_sync(0xFFFFFFFF, val, offset)
        offset //= 2
    if cuda.laneid == 0:
        cuda.atomic.add(out, 0, val)


def _make_shfl():
    return rng(131).integers(-50, 50, 300).astype(np.float64), np.zeros(1)


# ----------------------------------------------------------- CUDA by Example: dot product
DOT_TPB = 64


@cuda.jit
def dot_shared(a, b, out):
    cache = cuda.shared.array(DOT_TPB, dtype=np.float32)
    tid = cuda.grid(1)
    cache_index = cuda.threadIdx.x
    temp = np.float32(0)
    while tid < a.shape[0]:
        temp += a[tid] * b[tid]
        tid += cuda.blockDim.x * cuda.gridDim.x
    cache[cache_index] = temp
    cuda.syncthreads()
    i = cuda.blockDim.x // 2
    while i != 0:
        if cache_index < i:
            cache[cache_index] += cache[cache_index + i]
        cuda.syncthreads()
        i //= 2
    if cache_index == 0:
        cuda.atomic.add(out, 0, cache[0])


def _make_dot():
    return uniform(141, 1000), uniform(142, 1000), np.zeros(1, np.float32)


# ----------------------------------------------------------- a lab: max and its position
@cuda.jit
def max_value(x, best):
    i = cuda.grid(1)
    if i < x.shape[0]:
        cuda.atomic.max(best, 0, x[i])


@cuda.jit
def first_position(x, best, where):
    i = cuda.grid(1)
    if i < x.shape[0] and x[i] == best[0]:
        cuda.atomic.min(where, 0, i)


def _make_argmax():
    return (rng(151).integers(-1000, 1000, 700).astype(np.int32), np.full(1, -(2**31), np.int32),
            np.full(1, 2**31 - 1, np.int32))  # fmt: skip


def _launch_argmax(kernel, args):
    x, best, where = args
    kernel[6, 128](x, best)
    first_position[6, 128](x, best, where)


def _ref_argmax(x, best, where):
    return {1: np.array([x.max()], np.int32), 2: np.array([x.argmax()], np.int32)}


# ----------------------------------------------------------- a course: 1-D heat equation
@cuda.jit
def heat_step(u, u_new, alpha):
    i = cuda.grid(1)
    n = u.shape[0]
    if i == 0 or i == n - 1:
        if i < n:
            u_new[i] = u[i]
    elif i < n:
        u_new[i] = u[i] + alpha * (u[i - 1] - 2 * u[i] + u[i + 1])


def _launch_heat(kernel, args):
    u = cuda.to_device(args[0])
    v = cuda.device_array_like(args[0])
    for _ in range(50):
        kernel[2, 64](u, v, 0.25)
        u, v = v, u
    args[0][:] = u.copy_to_host()


def _ref_heat(u0):
    u = u0.astype(np.float64)
    for _ in range(50):
        v = u.copy()
        v[1:-1] = u[1:-1] + 0.25 * (u[:-2] - 2 * u[1:-1] + u[2:])
        u = v
    return {0: u.astype(np.float32)}


# ----------------------------------------------------------- a lab: 2-D convolution, clamped
@cuda.jit
def convolve2d(image, mask, out):
    i, j = cuda.grid(2)
    rows, cols = image.shape
    if i >= rows or j >= cols:
        return
    r = mask.shape[0] // 2
    acc = 0.0
    for a in range(-r, r + 1):
        for b in range(-r, r + 1):
            ii = min(max(i + a, 0), rows - 1)
            jj = min(max(j + b, 0), cols - 1)
            acc += mask[a + r, b + r] * image[ii, jj]
    out[i, j] = acc


def _ref_conv(image, mask, out):
    r = mask.shape[0] // 2
    p = np.pad(image.astype(np.float64), r, mode="edge")
    acc = np.zeros(image.shape)
    for a in range(mask.shape[0]):
        for b in range(mask.shape[1]):
            acc += mask[a, b] * p[a : a + image.shape[0], b : b + image.shape[1]]
    return {2: acc.astype(np.float32)}


# ----------------------------------------------------------- docs: a 3-D grid-stride loop
@cuda.jit
def fill3d(a, out):
    x0, y0, z0 = cuda.grid(3)
    sx, sy, sz = cuda.gridsize(3)
    for x in range(x0, a.shape[0], sx):
        for y in range(y0, a.shape[1], sy):
            for z in range(z0, a.shape[2], sz):
                out[x, y, z] = 2 * a[x, y, z] + x * 100 + y * 10 + z


def _ref_fill3d(a, out):
    x, y, z = np.indices(a.shape)
    return {1: (2 * a + x * 100 + y * 10 + z).astype(np.int32)}


# ----------------------------------------------------------- a tutorial: threshold mask
@cuda.jit
def threshold_mask(x, t, mask, count):
    i = cuda.grid(1)
    if i < x.shape[0]:
        above = x[i] > t
        mask[i] = above
        if above:
            cuda.atomic.add(count, 0, 1)


def _ref_mask(x, t, mask, count):
    m = x > t
    return {2: m, 3: np.array([m.sum()], np.int32)}


# ----------------------------------------------------------- device functions returning tuples
@cuda.jit(device=True)
def to_polar(x, y):
    return math.hypot(x, y), math.atan2(y, x)


@cuda.jit(device=True)
def ordered(a, b):
    if a < b:
        return a, b
    return b, a


@cuda.jit
def polar_ranges(xy, out):
    i = cuda.grid(1)
    if i < xy.shape[0]:
        r, theta = to_polar(xy[i, 0], xy[i, 1])
        lo, hi = ordered(r, theta)
        out[i, 0] = lo
        out[i, 1] = hi


def _ref_polar(xy, out):
    r = np.hypot(xy[:, 0], xy[:, 1])
    t = np.arctan2(xy[:, 1], xy[:, 0])
    return {1: np.stack([np.minimum(r, t), np.maximum(r, t)], axis=1)}


# ----------------------------------------------------------- Horner over a global tuple
COEFFS = (0.5, -1.0, 2.0, 3.0)


@cuda.jit
def horner(x, y):
    i = cuda.grid(1)
    if i < x.size:
        acc = 0.0
        for c in COEFFS:
            acc = acc * x[i] + c
        y[i] = acc


def _ref_horner(x, y):
    acc = np.zeros(x.shape)
    for c in COEFFS:
        acc = acc * x + c
    return {1: acc}


# ----------------------------------------------------------- a 2-D histogram, tuple atomics
@cuda.jit
def histogram2d(xs, ys, hist):
    i = cuda.grid(1)
    if i < xs.shape[0]:
        bx = int(xs[i] * hist.shape[0])
        by = int(ys[i] * hist.shape[1])
        if 0 <= bx < hist.shape[0] and 0 <= by < hist.shape[1]:
            cuda.atomic.add(hist, (bx, by), 1)


def _ref_hist2d(xs, ys, hist):
    bx = (xs.astype(np.float64) * hist.shape[0]).astype(np.int64)
    by = (ys.astype(np.float64) * hist.shape[1]).astype(np.int64)
    h = np.zeros(hist.shape, np.int32)
    np.add.at(h, (bx, by), 1)
    return {2: h}


# ----------------------------------------------------------- a benchmark repository: CSR SpMV
@cuda.jit
def csr_spmv(rowptr, colidx, val, x, y):
    row = cuda.blockIdx.x
    acc = 0.0
    for j in range(rowptr[row], rowptr[row + 1]):
        acc += val[j] * x[colidx[j]]
    y[row] = acc


def _make_csr():
    r = rng(120)
    dense = r.uniform(-1, 1, (40, 30)) * (r.random((40, 30)) < 0.2)
    rowptr = np.concatenate([[0], np.cumsum((dense != 0).sum(axis=1))]).astype(np.int32)
    rows, cols = np.nonzero(dense)
    return (rowptr, cols.astype(np.int32), dense[rows, cols], uniform(121, 30, np.float64),
            np.zeros(40))  # fmt: skip


def _ref_csr(rowptr, colidx, val, x, y):
    out = np.zeros(len(rowptr) - 1)
    for r in range(len(out)):
        for j in range(rowptr[r], rowptr[r + 1]):
            out[r] += val[j] * x[colidx[j]]
    return {4: out}


# ----------------------------------------------------------- a public repository: Game of Life
LIFE_N = 24


@cuda.jit
def life_step(grid, new):
    x, y = cuda.grid(2)
    if x < LIFE_N and y < LIFE_N:
        neighbors = 0
        for i in range(x - 1, x + 2):
            for j in range(y - 1, y + 2):
                if i != x or j != y:
                    neighbors += grid[i % LIFE_N, j % LIFE_N]
        if grid[x, y] == 1 and neighbors not in [2, 3]:
            new[x, y] = 0
        elif grid[x, y] == 0 and neighbors == 3:
            new[x, y] = 1
        else:
            new[x, y] = grid[x, y]


def _launch_life(kernel, args):
    a = cuda.to_device(args[0])
    b = cuda.device_array_like(args[0])
    for _ in range(8):
        kernel[(2, 2), (16, 16)](a, b)
        a, b = b, a
    args[0][:] = a.copy_to_host()


def _ref_life(grid):
    g = grid.copy()
    for _ in range(8):
        n = sum(np.roll(np.roll(g, a, 0), b, 1)
                for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0))  # fmt: skip
        g = np.where((g == 1) & ((n == 2) | (n == 3)) | (g == 0) & (n == 3), 1, 0).astype(g.dtype)
    return {0: g}


# Numba's compiler widens int8/uint8 operands to int64 before adding (as simt does; the
# references follow it, and numba.njit, which types numbers as the CUDA target does, agrees);
# Numba's CUDA simulator adds them as NumPy int8/uint8 values, which wrap
SMALL_INTS_WHY = "Numba's simulator wraps int8/uint8 sums (NumPy scalars); its compiler does not"

CASES = [
    NCase("field_sessionize", "Numba docs (click-stream sessionization)", session_boundaries,
          _make_sessions, 4, 128, _ref_sessions, launch=_launch_sessions,
          features=frozenset({"int64"})),
    NCase("field_docs_array_sum", "Numba docs (shared-memory array sum)", docs_array_sum,
          lambda: (np.arange(NELEM, dtype=np.int64),), 1, NELEM, _ref_array_sum,
          launch=_launch_array_sum, features=frozenset({"int64"})),
    NCase("field_bitonic_sort", "a public repository (bitonic sort driven from the host)",
          bitonic_step, lambda: (uniform(102, 256),), 4, 64,
          lambda data: {0: np.sort(data)}, launch=_launch_bitonic),
    NCase("field_smooth_int8", "a university lab (int8 box filter)", smooth_int8,
          lambda: (rng(103).integers(-128, 128, (20, 24)).astype(np.int8),
                   np.zeros((20, 24), np.int8)),
          (2, 2), (16, 16), _ref_smooth, features=frozenset({"int64"}), numba=False,
          why=SMALL_INTS_WHY),
    NCase("field_rgb_to_gray", "blog posts (RGB to grey, unpacking a pixel)", rgb_to_gray,
          lambda: (rng(104).integers(0, 256, (20, 30, 3)).astype(np.uint8),
                   np.zeros((20, 30), np.float32)),
          (2, 2), (16, 16), _ref_gray, features=frozenset({"fp64"})),
    NCase("field_gray_average", "a public repository (grey by averaging, chained store)",
          gray_average, lambda: (rng(105).integers(0, 256, (256, 3)).astype(np.uint8),
                                 np.zeros((256, 3), np.uint8)),
          4, 64, _ref_gray_average, features=frozenset({"fp64"}), numba=False,
          why=SMALL_INTS_WHY),
    NCase("field_softmax_rows", "a course project (row softmax in shared memory)",
          softmax_rows, lambda: (uniform(106, (8, 10)), np.zeros((8, 10), np.float32)),
          8, 10, _ref_softmax, tol=close(1e-6, 1e-7), features=frozenset({"fp64"})),
    NCase("field_kmeans", "benchmark suites (k-means assignment and sums)", group_by_cluster,
          _make_kmeans, 5, 64, _ref_kmeans, tol=close(1e-12, 1e-12), launch=_launch_kmeans,
          features=frozenset({"fp64"})),
    NCase("field_julia", "a tutorial (Julia set, complex arithmetic)", julia,
          lambda: (np.zeros((24, 32), np.int32), -1.6, -1.2, 0.1, 60), (2, 2), (16, 16),
          _ref_julia, tol=l1(1e-3), features=frozenset({"fp64"})),
    NCase("field_gemv", "lecture notes (matrix-vector product)", gemv,
          lambda: (uniform(107, (50, 40)), uniform(108, 40), np.zeros(50, np.float32)),
          2, 32, _ref_gemv, tol=close(1e-5, 1e-6), features=frozenset({"fp64"})),
    NCase("field_jacobi", "a solver tutorial (Jacobi relaxation, host loop)", jacobi_step,
          _make_jacobi, (3, 3), (16, 16), _ref_jacobi, tol=close(1e-12, 1e-14),
          launch=_launch_jacobi, features=frozenset({"fp64"})),
    NCase("field_hillis_steele", "GPU Gems (Hillis-Steele scan, double buffer)",
          hillis_steele_scan, _make_scan, 1, SCAN_TPB,
          lambda x, out: {1: np.cumsum(x).astype(np.int32)}),
    NCase("field_blelloch", "GPU Gems (Blelloch exclusive scan)", blelloch_scan, _make_scan,
          1, SCAN_TPB, lambda x, out: {1: (np.cumsum(x) - x).astype(np.int32)}),
    NCase("field_warp_shuffle_sum", "a blog post (warp-shuffle reduction)", warp_shuffle_sum,
          _make_shfl, 10, 32, lambda x, out: {1: np.array([x.sum()])},
          features=frozenset({"fp64"}), numba=False,
          why="Numba's CUDA simulator has no shfl_down_sync (its compiler has)"),
    NCase("field_dot_shared", "CUDA by Example (dot product, shared cache)", dot_shared,
          _make_dot, 4, DOT_TPB,
          lambda a, b, out: {2: np.array([(a.astype(np.float64) * b).sum()], np.float32)},
          tol=close(1e-4, 1e-4)),
    NCase("field_argmax", "a lab (atomic max, then its first position)", max_value,
          _make_argmax, 6, 128, _ref_argmax, launch=_launch_argmax),
    NCase("field_heat_1d", "a course (1-D heat equation, 50 launches)", heat_step,
          lambda: (uniform(109, 100, np.float32, 0.0, 1.0),), 2, 64, _ref_heat,
          tol=close(1e-5, 1e-6), launch=_launch_heat),
    NCase("field_convolve2d", "a lab (2-D convolution, clamped edges)", convolve2d,
          lambda: (uniform(110, (20, 22)), uniform(113, (5, 5)), np.zeros((20, 22), np.float32)),
          (2, 2), (16, 16), _ref_conv, tol=close(1e-5, 1e-6), features=frozenset({"fp64"})),
    NCase("field_fill3d", "Numba docs (3-D grid and gridsize)", fill3d,
          lambda: (rng(114).integers(0, 9, (6, 7, 5)).astype(np.int32),
                   np.zeros((6, 7, 5), np.int32)),
          (2, 1, 1), (2, 4, 2), _ref_fill3d, features=frozenset({"int64"})),
    NCase("field_threshold_mask", "a tutorial (bool mask and a counter)", threshold_mask,
          lambda: (uniform(115, 500), 0.25, np.zeros(500, np.bool_), np.zeros(1, np.int32)),
          4, 128, _ref_mask),
    NCase("field_polar_tuples", "device functions returning tuples", polar_ranges,
          lambda: (uniform(116, (100, 2), np.float64), np.zeros((100, 2))), 2, 64,
          _ref_polar, tol=close(1e-14, 1e-15), features=frozenset({"fp64"})),
    NCase("field_horner_tuple", "Horner's rule over a global tuple", horner,
          lambda: (uniform(117, 200, np.float64), np.zeros(200)), 2, 128, _ref_horner,
          tol=close(1e-14, 1e-15), features=frozenset({"fp64"})),
    NCase("field_histogram2d", "a lab (2-D histogram, tuple-indexed atomics)", histogram2d,
          lambda: (uniform(118, 600, np.float32, 0.0, 1.0), uniform(119, 600, np.float32, 0.0, 1.0),
                   np.zeros((6, 5), np.int32)),
          5, 128, _ref_hist2d, features=frozenset({"int64"})),
    NCase("field_csr_spmv", "a benchmark repository (CSR sparse matrix-vector product)",
          csr_spmv, _make_csr, 40, 1, _ref_csr, tol=close(1e-12, 1e-14),
          features=frozenset({"fp64"})),
    NCase("field_game_of_life", "a public repository (Game of Life, `not in [2, 3]`)",
          life_step, lambda: (rng(122).integers(0, 2, (LIFE_N, LIFE_N)),), (2, 2), (16, 16),
          _ref_life, launch=_launch_life, features=frozenset({"int64"})),
]  # fmt: skip
