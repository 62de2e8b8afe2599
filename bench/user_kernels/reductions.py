"""Sum of 2^24 floats by block tree reductions through shared memory, as CUDA teaches them.

Sources:

- `reduce_classic`: the form of the CUDA Programming Guide's and most courses' shared-memory
  reduction as issue #17 quotes it: each of 256 threads first sums 4 elements 256 apart
  behind `if i + k * 256 < len(a)` inside `for k in range(4)`, then the `while step > 0`
  tree with `syncthreads()`.
- `harris_reduce0` .. `harris_reduce4`: Mark Harris, "Optimizing Parallel Reduction in CUDA"
  (NVIDIA, 2007; the `reduction` sample of NVIDIA/cuda-samples, `reduction_kernel.cu`,
  kernels `reduce0`, `reduce2`, `reduce3`, `reduce4`): interleaved addressing with `%`,
  sequential addressing, first add during the global load, the last warp unrolled.
  Translated to simt's API only, with blocks of 256 threads. Harris's `reduce4` runs its last
  32 threads warp-synchronously through a `volatile` pointer, with no barrier; that is a data
  race under CUDA's memory model since Volta (the current sample uses cooperative-groups tile
  syncs) and simt has no warp barrier, so each unrolled step here keeps a `syncthreads()`.

Every kernel writes one partial sum per block; as in the sample's GPU-only mode, the same
kernel is launched again on the partial sums until one value is left.

Peers: NumPy's `a.sum()` (pairwise float32 sum), and with the peer kit its `c-tuned` and `c`
reductions.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Job, Made, as_bench_functions, kit_peer, rng, uniform  # noqa: E402

THREADS = 256


@simt.kernel
def reduce_classic(a, partial):
    sh = simt.shared.array(THREADS, np.float32)
    tid = thread_idx.x
    i = block_idx.x * (THREADS * 4) + tid
    acc = 0.0
    for k in range(4):
        if i + k * THREADS < len(a):
            acc += a[i + k * THREADS]
    sh[tid] = acc
    simt.syncthreads()
    step = THREADS // 2
    while step > 0:
        if tid < step:
            sh[tid] += sh[tid + step]
        simt.syncthreads()
        step //= 2
    if tid == 0:
        partial[block_idx.x] = sh[0]


@simt.kernel
def harris_reduce0(g_idata, g_odata):
    sdata = simt.shared.array(THREADS, np.float32)
    # load shared mem
    tid = thread_idx.x
    i = block_idx.x * block_dim.x + thread_idx.x
    x = 0.0
    if i < len(g_idata):
        x = g_idata[i]
    sdata[tid] = x
    simt.syncthreads()
    # do reduction in shared mem
    s = 1
    while s < block_dim.x:
        # modulo arithmetic is slow!
        if tid % (2 * s) == 0:
            sdata[tid] += sdata[tid + s]
        simt.syncthreads()
        s *= 2
    # write result for this block to global mem
    if tid == 0:
        g_odata[block_idx.x] = sdata[0]


@simt.kernel
def harris_reduce2(g_idata, g_odata):
    sdata = simt.shared.array(THREADS, np.float32)
    tid = thread_idx.x
    i = block_idx.x * block_dim.x + thread_idx.x
    x = 0.0
    if i < len(g_idata):
        x = g_idata[i]
    sdata[tid] = x
    simt.syncthreads()
    # do reduction in shared mem
    s = block_dim.x // 2
    while s > 0:
        if tid < s:
            sdata[tid] += sdata[tid + s]
        simt.syncthreads()
        s >>= 1
    if tid == 0:
        g_odata[block_idx.x] = sdata[0]


@simt.kernel
def harris_reduce3(g_idata, g_odata):
    sdata = simt.shared.array(THREADS, np.float32)
    # perform first level of reduction, reading from global memory, writing to shared memory
    n = len(g_idata)
    tid = thread_idx.x
    i = block_idx.x * (block_dim.x * 2) + thread_idx.x
    my_sum = 0.0
    if i < n:
        my_sum = g_idata[i]
    if i + block_dim.x < n:
        my_sum += g_idata[i + block_dim.x]
    sdata[tid] = my_sum
    simt.syncthreads()
    s = block_dim.x // 2
    while s > 0:
        if tid < s:
            my_sum = my_sum + sdata[tid + s]
            sdata[tid] = my_sum
        simt.syncthreads()
        s >>= 1
    if tid == 0:
        g_odata[block_idx.x] = my_sum


@simt.kernel
def harris_reduce4(g_idata, g_odata):
    sdata = simt.shared.array(THREADS, np.float32)
    n = len(g_idata)
    tid = thread_idx.x
    i = block_idx.x * (block_dim.x * 2) + thread_idx.x
    my_sum = 0.0
    if i < n:
        my_sum = g_idata[i]
    if i + block_dim.x < n:
        my_sum += g_idata[i + block_dim.x]
    sdata[tid] = my_sum
    simt.syncthreads()
    s = block_dim.x // 2
    while s > 32:
        if tid < s:
            my_sum = my_sum + sdata[tid + s]
            sdata[tid] = my_sum
        simt.syncthreads()
        s >>= 1
    # the last warp, unrolled (a barrier after each step: see the module doc)
    if tid < 32:
        my_sum = my_sum + sdata[tid + 32]
        sdata[tid] = my_sum
    simt.syncthreads()
    if tid < 16:
        my_sum = my_sum + sdata[tid + 16]
        sdata[tid] = my_sum
    simt.syncthreads()
    if tid < 8:
        my_sum = my_sum + sdata[tid + 8]
        sdata[tid] = my_sum
    simt.syncthreads()
    if tid < 4:
        my_sum = my_sum + sdata[tid + 4]
        sdata[tid] = my_sum
    simt.syncthreads()
    if tid < 2:
        my_sum = my_sum + sdata[tid + 2]
        sdata[tid] = my_sum
    simt.syncthreads()
    if tid < 1:
        my_sum = my_sum + sdata[tid + 1]
    if tid == 0:
        g_odata[block_idx.x] = my_sum


SIZES = {"full": {"n": 1 << 24}, "test": {"n": 70_001}}


def _make(p: dict[str, int]) -> dict[str, np.ndarray]:
    return {"a": uniform(rng(2), p["n"])}


def _ref(inp: dict[str, np.ndarray], p: dict[str, int]) -> float:
    return float(inp["a"].astype(np.float64).sum())


def device_sum(kernel: object, per_thread: int, a: object, n: int) -> tuple[object, list]:
    """Launches that sum `a` (n floats) with `kernel` to one value (each block reduces
    THREADS * per_thread elements, then the partial sums again, until one is left): the
    launch function and the list of (kernel, grid, block, args)."""
    steps = []
    src = a
    while True:
        blocks = (n + THREADS * per_thread - 1) // (THREADS * per_thread)
        dst = simt.empty((blocks,), np.float32)
        steps.append((kernel[blocks, THREADS], src, dst))  # type: ignore[index]
        if blocks == 1:
            break
        src, n = dst, blocks

    def run() -> None:
        for launch, x, y in steps:
            launch(x, y)

    launches = [(kernel, launch.grid, THREADS, (x, y)) for launch, x, y in steps]
    return run, launches


def _simt(kernel: object, per_thread: int) -> object:
    def made(inp: dict[str, np.ndarray], p: dict[str, int]) -> Made:
        a = simt.to_device(inp["a"])
        go, launches = device_sum(kernel, per_thread, a, p["n"])
        out = launches[-1][3][1]

        def run() -> None:
            go()  # type: ignore[operator]
            simt.synchronize()

        return Made(run, lambda: float(out.numpy()[0]), launches)

    return made


def _peers(inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, object]:
    a = inp["a"]
    box = [0.0]

    def run() -> None:
        box[0] = a.sum()

    peers: dict[str, object] = {"numpy": (run, lambda: box[0])}
    for name in ("c-tuned", "c"):
        made = kit_peer(name, "reduce", inp, p)
        if made is not None:
            peers[name] = made
    return peers


JOBS = [
    Job(name, SIZES, _make, _ref, _simt(k, per), _peers)  # type: ignore[arg-type]
    for name, k, per in (
        ("reduce_classic", reduce_classic, 4),
        ("harris_reduce0", harris_reduce0, 1),
        ("harris_reduce2", harris_reduce2, 1),
        ("harris_reduce3", harris_reduce3, 2),
        ("harris_reduce4", harris_reduce4, 2),
    )
]
globals().update(as_bench_functions(JOBS))
