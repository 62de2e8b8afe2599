"""Matrix transpose through a shared tile padded by one column (no bank conflicts).

Source: Mark Harris, "An Efficient Matrix Transpose in CUDA C/C++" (NVIDIA developer blog,
2013; NVIDIA-developer-blog/code-samples `series/cuda-cpp/transpose/transpose.cu`, kernel
`transposeNoBankConflicts`): tiles of TILE_DIM x TILE_DIM = 32 x 32 with `tile[TILE_DIM][TILE_DIM
+ 1]`, blocks of 32 x 8 threads each copying BLOCK_ROWS = 8 rows per step of a `for j` loop.
Translated to simt's API only (2-D array indexing for `idata[(y+j)*width + x]`). Like the
blog's, the kernel assumes sizes that are multiples of 32.

Peer: NumPy copying the transposed view into a preallocated array (`np.copyto(out, a.T)`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import simt
from simt import block_idx, thread_idx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Job, Made, as_bench_functions, rng, uniform  # noqa: E402

TILE_DIM = 32
BLOCK_ROWS = 8


@simt.kernel
def transpose_no_bank_conflicts(odata, idata):
    tile = simt.shared.array((TILE_DIM, TILE_DIM + 1), np.float32)

    x = block_idx.x * TILE_DIM + thread_idx.x
    y = block_idx.y * TILE_DIM + thread_idx.y

    for j in range(0, TILE_DIM, BLOCK_ROWS):
        tile[thread_idx.y + j, thread_idx.x] = idata[y + j, x]

    simt.syncthreads()

    x = block_idx.y * TILE_DIM + thread_idx.x  # transpose block offset
    y = block_idx.x * TILE_DIM + thread_idx.y

    for j in range(0, TILE_DIM, BLOCK_ROWS):
        odata[y + j, x] = tile[thread_idx.x, thread_idx.y + j]


SIZES = {"full": {"n": 4096}, "test": {"n": 64}}


def _make(p: dict[str, int]) -> dict[str, np.ndarray]:
    return {"a": uniform(rng(5), (p["n"], p["n"]))}


def _ref(inp: dict[str, np.ndarray], p: dict[str, int]) -> np.ndarray:
    return inp["a"].T.astype(np.float64)


def _simt(inp: dict[str, np.ndarray], p: dict[str, int]) -> Made:
    n = p["n"]
    a = simt.to_device(inp["a"])
    out = simt.empty((n, n), np.float32)
    grid = (n // TILE_DIM, n // TILE_DIM)
    launch = transpose_no_bank_conflicts[grid, (TILE_DIM, BLOCK_ROWS)]

    def run() -> None:
        launch(out, a)
        simt.synchronize()

    return Made(run, out.numpy, [(transpose_no_bank_conflicts, grid, (TILE_DIM, BLOCK_ROWS),
                                  (out, a))])  # fmt: skip


def _peers(inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, object]:
    a = inp["a"]
    out = np.empty_like(a)
    return {"numpy": (lambda: np.copyto(out, a.T), lambda: out)}


JOBS = [Job("transpose", SIZES, _make, _ref, _simt, _peers)]  # type: ignore[arg-type]
globals().update(as_bench_functions(JOBS))
