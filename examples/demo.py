"""simt's first demo: a vector add, a Mandelbrot set and a shared-memory reduction, run on the
default backend (the CPU without a GPU) and checked against NumPy."""

import time

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx


@simt.kernel
def vector_add(a, b, c):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(c):
        c[i] = a[i] + b[i]


@simt.kernel
def mandelbrot(out, max_iter):
    x, y = simt.grid(2)
    h, w = out.shape
    if x < w and y < h:
        c_re = x / w * 3.0 - 2.0
        c_im = y / h * 2.4 - 1.2
        z_re = 0.0
        z_im = 0.0
        n = 0
        while n < max_iter and z_re * z_re + z_im * z_im <= 4.0:
            z_re, z_im = z_re * z_re - z_im * z_im + c_re, 2.0 * z_re * z_im + c_im
            n += 1
        out[y, x] = n


BLOCK = 256


@simt.kernel
def block_sum(a, partial):
    tile = simt.shared.array(BLOCK, simt.float32)
    i = simt.grid(1)
    t = thread_idx.x
    tile[t] = a[i] if i < len(a) else 0.0
    simt.syncthreads()
    step = BLOCK // 2
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        simt.syncthreads()
        step //= 2
    if t == 0:
        partial[block_idx.x] = tile[0]


def main() -> None:
    rt = simt.backend()
    print(f"simt demo on the {rt!r} backend (python -m simt info lists the others)")

    n = 1 << 20
    a = np.random.rand(n).astype(np.float32)
    b = np.random.rand(n).astype(np.float32)
    c = np.empty_like(a)
    t0 = time.perf_counter()
    vector_add[(n + 255) // 256, 256](a, b, c)
    print(
        f"vector_add of {n} floats: {'ok' if np.array_equal(c, a + b) else 'WRONG'} "
        f"({(time.perf_counter() - t0) * 1e3:.0f} ms with compilation)"
    )

    img = np.zeros((24, 64), np.int32)
    mandelbrot[(4, 3), (16, 8)](img, 40)
    for row in img[::2]:
        print("  " + "".join(" .:-=+*#%@"[min(v, 39) // 4] for v in row))

    partial = np.zeros((n + BLOCK - 1) // BLOCK, np.float32)
    block_sum[len(partial), BLOCK](a, partial)
    total, ref = float(partial.sum(dtype=np.float64)), float(a.sum(dtype=np.float64))
    print(
        f"block_sum: {total:.3f} vs NumPy {ref:.3f}: "
        f"{'ok' if abs(total - ref) < 1e-4 * ref else 'WRONG'}"
    )


if __name__ == "__main__":
    main()
