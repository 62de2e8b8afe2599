"""Matrix multiplication as Numba's CUDA documentation teaches it: the naive kernel (one
thread per element of C, a `k` loop over global memory) and the tiled one (16 x 16 tiles of
`A` and `B` in shared memory, two `syncthreads()` per tile).

Source: Numba documentation, "CUDA Kernels: Examples: Matrix multiplication"
(numba/cuda/tests/doc_examples/test_matmul.py, kernels `matmul` and `fast_matmul`),
https://numba.readthedocs.io/en/stable/cuda/examples.html . Translated to simt's API only:
`cuda.grid(2)` -> `simt.grid(2)`, `cuda.shared.array` -> `simt.shared.array`,
`cuda.syncthreads` -> `simt.syncthreads`; the same block shape (TPB x TPB = 16 x 16), the same
loop forms and guards. Numba's naive kernel indexes rows with `x` (`i, j = cuda.grid(2)`,
`C[i, j]`), and so does this one.

Peers: NumPy's `a @ b` (BLAS sgemm, the ceiling) and, with the peer kit, its `c-tuned` naive
matmul (threads mapped to SIMD lanes by hand).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import simt

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Job, Made, as_bench_functions, kit_peer, rng, uniform  # noqa: E402

TPB = 16


@simt.kernel
def matmul(A, B, C):
    """Perform square matrix multiplication of C = A * B."""
    i, j = simt.grid(2)
    if i < C.shape[0] and j < C.shape[1]:
        tmp = 0.0
        for k in range(A.shape[1]):
            tmp += A[i, k] * B[k, j]
        C[i, j] = tmp


@simt.kernel
def fast_matmul(A, B, C):
    # Define an array in the shared memory
    # The size and type of the arrays must be known at compile time
    sA = simt.shared.array(shape=(TPB, TPB), dtype=simt.float32)
    sB = simt.shared.array(shape=(TPB, TPB), dtype=simt.float32)

    x, y = simt.grid(2)

    tx = simt.thread_idx.x
    ty = simt.thread_idx.y
    bpg = simt.grid_dim.x  # blocks per grid

    # Each thread computes one element in the result matrix.
    # The dot product is chunked into dot products of TPB-long vectors.
    tmp = simt.float32(0.0)
    for i in range(bpg):
        # Preload data into shared memory
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]

        # Wait until all threads finish preloading
        simt.syncthreads()

        # Computes partial product on the shared memory
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]

        # Wait until all threads finish computing
        simt.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


SIZES = {"full": {"n": 1024}, "test": {"n": 40}}


def _make(p: dict[str, int]) -> dict[str, np.ndarray]:
    g = rng(1)
    return {"a": uniform(g, (p["n"], p["n"])), "b": uniform(g, (p["n"], p["n"]))}


def _ref(inp: dict[str, np.ndarray], p: dict[str, int]) -> np.ndarray:
    return inp["a"].astype(np.float64) @ inp["b"].astype(np.float64)


def _simt(kernel: object) -> object:
    def made(inp: dict[str, np.ndarray], p: dict[str, int]) -> Made:
        n = p["n"]
        a, b = simt.to_device(inp["a"]), simt.to_device(inp["b"])
        c = simt.empty((n, n), np.float32)
        blocks = (n + TPB - 1) // TPB
        launch = kernel[(blocks, blocks), (TPB, TPB)]  # type: ignore[index]

        def run() -> None:
            launch(a, b, c)
            simt.synchronize()

        return Made(run, c.numpy, [(kernel, (blocks, blocks), (TPB, TPB), (a, b, c))])

    return made


def _peers(inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, object]:
    a, b = inp["a"], inp["b"]
    out = np.empty_like(a)
    peers: dict[str, object] = {"numpy": (lambda: np.matmul(a, b, out=out), lambda: out)}
    made = kit_peer("c-tuned", "matmul", inp, p)
    if made is not None:
        peers["c-tuned"] = made
    return peers


JOBS = [
    Job("matmul_tiled", SIZES, _make, _ref, _simt(fast_matmul), _peers),  # type: ignore[arg-type]
    Job("matmul_naive", SIZES, _make, _ref, _simt(matmul), _peers),  # type: ignore[arg-type]
]
globals().update(as_bench_functions(JOBS))
