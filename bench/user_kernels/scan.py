"""Exclusive prefix sum of 2^22 int32 values: Hillis-Steele scans of 1024-element blocks in
double-buffered shared memory, then the block sums scanned the same way, then added back.

Source: Mark Harris, Shubhabrata Sengupta, John D. Owens, "Parallel Prefix Sum (Scan) with
CUDA", GPU Gems 3, chapter 39 (NVIDIA, 2007): Example 39-1, the naive (Hillis-Steele)
double-buffered scan (`temp[pout*n+thid]`, `pout = 1 - pout` each step; written here with the
published erratum applied, `temp[pout*n+thid] = temp[pin*n+thid] + temp[pin*n+thid-offset]`),
and section 39.2.4's scan of large arrays (per-block scans writing their totals, a scan of
the totals, a uniform add). Translated to simt's API only; blocks of 1024 threads, one element
per thread.

Peer: NumPy's `cumsum` into a preallocated array, shifted by one (exclusive).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Job, Made, as_bench_functions, rng  # noqa: E402

N = 1024  # elements per block: one per thread


@simt.kernel
def scan_block(g_odata, g_idata, sums):
    temp = simt.shared.array(2 * N, np.int32)  # double buffer
    thid = thread_idx.x
    base = block_idx.x * N
    n = len(g_idata)
    pout = 0
    pin = 1
    # Load input into shared memory.
    # This is exclusive scan, so shift right by one and set first element to 0
    x = 0
    if thid > 0 and base + thid - 1 < n:
        x = g_idata[base + thid - 1]
    temp[pout * N + thid] = x
    simt.syncthreads()
    offset = 1
    while offset < N:
        pout = 1 - pout  # swap double buffer indices
        pin = 1 - pout
        if thid >= offset:
            temp[pout * N + thid] = temp[pin * N + thid] + temp[pin * N + thid - offset]
        else:
            temp[pout * N + thid] = temp[pin * N + thid]
        simt.syncthreads()
        offset *= 2
    if base + thid < n:
        g_odata[base + thid] = temp[pout * N + thid]  # write output
    if thid == N - 1:  # the block's total, for the scan of the block sums
        last = 0
        if base + thid < n:
            last = g_idata[base + thid]
        sums[block_idx.x] = temp[pout * N + thid] + last


@simt.kernel
def add_block_sums(data, incr):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(data):
        data[i] += incr[block_idx.x]


SIZES = {"full": {"n": 1 << 22}, "test": {"n": 5_000}}


def _make(p: dict[str, int]) -> dict[str, np.ndarray]:
    return {"a": rng(9).integers(0, 10, p["n"], dtype=np.int32)}


def _ref(inp: dict[str, np.ndarray], p: dict[str, int]) -> np.ndarray:
    a = inp["a"].astype(np.int64)
    return np.concatenate([[0], np.cumsum(a)[:-1]]).astype(np.float64)


def device_scan(data: object, n: int) -> tuple[object, list]:
    """Launches that scan `data` (n int32) into a new array, recursively (section 39.2.4)."""
    blocks = (n + N - 1) // N
    out = simt.empty((n,), np.int32)
    sums = simt.empty((blocks,), np.int32)
    steps: list = [(scan_block, blocks, N, (out, data, sums))]
    if blocks > 1:
        _, inner = device_scan(sums, blocks)
        incr = inner[0][3][0]  # the scanned block sums (the inner levels add into it in place)
        steps += inner
        steps.append((add_block_sums, blocks, N, (out, incr)))

    def run() -> None:
        for k, g, b, args in steps:
            k[g, b](*args)

    return run, steps


def _simt(inp: dict[str, np.ndarray], p: dict[str, int]) -> Made:
    a = simt.to_device(inp["a"])
    go, steps = device_scan(a, p["n"])
    out = steps[0][3][0]

    def run() -> None:
        go()  # type: ignore[operator]
        simt.synchronize()

    return Made(run, out.numpy, steps)


def _peers(inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, object]:
    a = inp["a"]
    out = np.zeros_like(a)

    def run() -> None:
        np.cumsum(a[:-1], out=out[1:])

    return {"numpy": (run, lambda: out)}


JOBS = [Job("scan", SIZES, _make, _ref, _simt, _peers, tol=1e-12)]  # type: ignore[arg-type]
globals().update(as_bench_functions(JOBS))
