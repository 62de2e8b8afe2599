"""A 256-bin histogram with shared-memory atomics: per-block histograms, then one pass that
adds them up.

Source: Nikolay Sakharnykh, "GPU Pro Tip: Fast Histograms Using Shared Atomics on Maxwell"
(NVIDIA developer blog, 2015; kernels `histogram_smem_atomics` and `histogram_final_accum`):
each block zeroes a shared histogram, `atomicAdd`s every element of its grid-stride slice
into it, then writes it out as one partial histogram; a second kernel sums the partials per
bin. Translated to simt's API only, for one channel of float values in [0, 1) (the blog's
`(unsigned int)(in.x * 256)` bin of one colour channel) over a 1-D array; blocks of 256, a
grid of 256 blocks.

Peer: `np.bincount` of the same bins (it needs the bins as an integer array: that conversion
is part of the peer's time, as it is part of the kernel's).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import simt
from simt import block_dim, block_idx, grid_dim, thread_idx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Job, Made, as_bench_functions, rng  # noqa: E402

NUM_BINS = 256
BLOCKS = 256
THREADS = 256


@simt.kernel
def histogram_smem_atomics(data, out):
    # linear thread index within the block, threads in the block
    t = thread_idx.x
    nt = block_dim.x
    # initialize temporary accumulation array in shared memory
    smem = simt.shared.array(NUM_BINS, np.int32)
    for i in range(t, NUM_BINS, nt):
        smem[i] = 0
    simt.syncthreads()
    # process pixels: updates our block's partial histogram in shared memory
    for i in range(block_idx.x * nt + t, len(data), nt * grid_dim.x):
        r = int(data[i] * 256)
        simt.atomic.add(smem, r, 1)
    simt.syncthreads()
    # write partial histogram into the global memory
    for i in range(t, NUM_BINS, nt):
        out[block_idx.x, i] = smem[i]


@simt.kernel
def histogram_final_accum(partials, n, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < NUM_BINS:
        total = 0
        for j in range(n):
            total += partials[j, i]
        out[i] = total


SIZES = {"full": {"n": 1 << 24}, "test": {"n": 20_000}}


def _make(p: dict[str, int]) -> dict[str, np.ndarray]:
    return {"x": rng(6).random(p["n"], dtype=np.float32)}


def _ref(inp: dict[str, np.ndarray], p: dict[str, int]) -> np.ndarray:
    bins = (inp["x"].astype(np.float64) * 256).astype(np.int64)
    return np.bincount(bins, minlength=NUM_BINS).astype(np.float64)


def _simt(inp: dict[str, np.ndarray], p: dict[str, int]) -> Made:
    x = simt.to_device(inp["x"])
    partials = simt.empty((BLOCKS, NUM_BINS), np.int32)
    out = simt.empty((NUM_BINS,), np.int32)
    first = histogram_smem_atomics[BLOCKS, THREADS]
    final = histogram_final_accum[1, NUM_BINS]

    def run() -> None:
        first(x, partials)
        final(partials, BLOCKS, out)
        simt.synchronize()

    launches = [
        (histogram_smem_atomics, BLOCKS, THREADS, (x, partials)),
        (histogram_final_accum, 1, NUM_BINS, (partials, BLOCKS, out)),
    ]
    return Made(run, out.numpy, launches)


def _peers(inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, object]:
    x = inp["x"]
    box = [np.zeros(NUM_BINS)]

    def run() -> None:
        box[0] = np.bincount((x * np.float32(256)).astype(np.int32), minlength=NUM_BINS)

    return {"numpy": (run, lambda: box[0])}


JOBS = [Job("histogram", SIZES, _make, _ref, _simt, _peers, tol=1e-12)]  # type: ignore[arg-type]
globals().update(as_bench_functions(JOBS))
