"""A classic Numba-CUDA program, unchanged but for its import line, on every simt backend.

The program below is written the way Numba's documentation and courses write CUDA Python:
`@cuda.jit` kernels, a device function, `cuda.grid`, shared memory and `cuda.syncthreads()`,
`cuda.to_device` / `device_array_like` / `copy_to_host`, and `cuda.random`'s xoroshiro128+
generators. The one change for simt is the import:

    from numba import cuda                 # before
    from simt import cuda                  # after

    python examples/numba_port.py          # every backend present: cpu, sim, webgpu, cuda

Each backend runs the same program and checks its answers against NumPy (the Monte Carlo
estimate against the count NumPy gets from Numba's own random stream).
"""

from __future__ import annotations

import math
import sys

import numpy as np

from simt import cuda  # the only line that differs from the Numba program
from simt.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

# ----------------------------------------------------------------- the Numba program itself
TPB = 16


@cuda.jit
def increment_by_one(an_array):
    pos = cuda.grid(1)
    if pos < an_array.size:
        an_array[pos] += 1


@cuda.jit(device=True)
def clamp(x, lo, hi):
    return min(max(x, lo), hi)


@cuda.jit
def fast_matmul(A, B, C):
    sA = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    sB = cuda.shared.array(shape=(TPB, TPB), dtype=np.float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tiles = (A.shape[1] + TPB - 1) // TPB
    tmp = np.float32(0.0)
    for i in range(tiles):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and tx + i * TPB < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and ty + i * TPB < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = clamp(tmp, -100.0, 100.0)


@cuda.jit
def compute_pi(rng_states, iterations, out):
    thread_id = cuda.grid(1)
    inside = 0
    for i in range(iterations):
        x = xoroshiro128p_uniform_float32(rng_states, thread_id)
        y = xoroshiro128p_uniform_float32(rng_states, thread_id)
        if x**2 + y**2 <= 1.0:
            inside += 1
    out[thread_id] = 4.0 * inside / iterations


def program() -> dict[str, np.ndarray]:
    """The Numba program's host code: its results, by name."""
    data = np.arange(1000, dtype=np.int32)
    d_data = cuda.to_device(data)
    increment_by_one[(data.size + 255) // 256, 256](d_data)
    incremented = d_data.copy_to_host()

    rng = np.random.default_rng(0)
    A = rng.uniform(-1, 1, (50, 40)).astype(np.float32)
    B = rng.uniform(-1, 1, (40, 30)).astype(np.float32)
    d_A, d_B = cuda.to_device(A), cuda.to_device(B)
    d_C = cuda.device_array((50, 30), dtype=np.float32)
    blocks = (math.ceil(30 / TPB), math.ceil(50 / TPB))
    fast_matmul[blocks, (TPB, TPB)](d_A, d_B, d_C)
    C = d_C.copy_to_host()

    threads_per_block, blocks_pi = 64, 4
    rng_states = create_xoroshiro128p_states(threads_per_block * blocks_pi, seed=1)
    out = np.zeros(threads_per_block * blocks_pi, dtype=np.float32)
    compute_pi[blocks_pi, threads_per_block](rng_states, 500, out)
    cuda.synchronize()
    return {"incremented": incremented, "C": C, "pi": out, "A": A, "B": B, "data": data}


# ------------------------------------------------------------- checking it on every backend
def check(r: dict[str, np.ndarray]) -> list[str]:
    problems = []
    if not np.array_equal(r["incremented"], r["data"] + 1):
        problems.append("increment_by_one")
    if not np.allclose(r["C"], r["A"].astype(np.float64) @ r["B"], rtol=1e-5, atol=1e-5):
        problems.append("fast_matmul")
    if abs(float(r["pi"].mean()) - math.pi) > 0.05:
        problems.append(f"compute_pi gave {r['pi'].mean():.4f}")
    return problems


def main() -> int:
    import simt
    from simt.runtime import registry

    failed = 0
    for name in registry.RUNTIMES:
        ok, why = registry.probe(name)
        if not ok:
            print(f"{name:7} skipped: {why}")
            continue
        with simt.using(name):
            r = program()
        problems = check(r)
        failed += bool(problems)
        status = "ok" if not problems else "WRONG: " + ", ".join(problems)
        print(f"{name:7} {status}; pi ~ {r['pi'].mean():.4f}, C[0, :3] = {r['C'][0, :3]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
