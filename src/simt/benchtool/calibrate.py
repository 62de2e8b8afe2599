"""`simt calibrate`: measure a device with microkernels and store its profile (the rates
`profile.py` describes), each rate in the cost model's own units."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..runtime import registry
from ..runtime.base import Dim3
from .cost import count
from .profile import Profile, save_profile
from .timing import device_timer, sample


# ------------------------------------------------------------------------ calibration kernels
def _kernels() -> dict[str, Any]:
    """The calibration kernels (made on first use: importing this module compiles nothing)."""
    import simt
    from simt import block_dim, block_idx, thread_idx

    @simt.kernel
    def copy(a, b):
        i = block_idx.x * block_dim.x + thread_idx.x
        if i < len(b):
            b[i] = a[i]

    @simt.kernel
    def fma_chains(out, n, s):
        i = block_idx.x * block_dim.x + thread_idx.x
        v = s * (i % 13)  # varying by thread: a uniform chain would be computed once
        x0 = v + 1.0
        x1 = v + 2.0
        x2 = v + 3.0
        x3 = v + 4.0
        x4 = v + 5.0
        x5 = v + 6.0
        x6 = v + 7.0
        x7 = v + 8.0
        for _step in range(n):
            x0 = x0 * 0.999 + 0.001
            x1 = x1 * 0.999 + 0.001
            x2 = x2 * 0.999 + 0.001
            x3 = x3 * 0.999 + 0.001
            x4 = x4 * 0.999 + 0.001
            x5 = x5 * 0.999 + 0.001
            x6 = x6 * 0.999 + 0.001
            x7 = x7 * 0.999 + 0.001
        if i < len(out):
            out[i] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7

    @simt.kernel
    def empty_kernel(out):
        i = thread_idx.x
        if i < 0:
            out[i] = 0.0

    from .workloads import colsum as column_walk  # W1's kernel: a thread per column

    @simt.kernel
    def cached_walk(a, out):
        j = block_idx.x * block_dim.x + thread_idx.x
        r = block_idx.y
        if j < a.shape[1]:
            s = 0.0
            for i in range(a.shape[0]):
                s += a[i, j]
            out[r, j] = s

    @simt.kernel
    def escape_loop(out, limit):
        i = block_idx.x * block_dim.x + thread_idx.x
        if i < len(out):
            x = (i % 97) * 0.01
            it = 0
            # each lane stops at its own count (limit - 0..3): trips differ inside a group
            while it < limit - i % 4 and x < 1000.0:
                x = x * 1.01 + 0.5
                it += 1
            out[i] = x

    @simt.kernel
    def mixed(out, n):
        i = block_idx.x * block_dim.x + thread_idx.x
        x = (i % 13) * 0.01 + 0.3
        y = 0.5
        k = 0
        for _step in range(n):
            x = 3.7 * x * (1.0 - x)
            y = y * 0.5 + x * 0.25
            k += 1 if x > 0.5 else 2
            k = min(k, 1000000)
        if i < len(out):
            out[i] = x + y + k

    @simt.kernel
    def clamp_gather(a, out, reps):
        i = block_idx.x * block_dim.x + thread_idx.x
        n = len(a)
        s = 0.0
        for k in range(reps):
            s += a[min(i + k, n - 1) ^ 1]  # neighbours swapped: not affine, not contiguous
        if i < len(out):
            out[i] = s

    return {
        "gather": clamp_gather,
        "mixed": mixed,
        "copy": copy,
        "fma": fma_chains,
        "empty": empty_kernel,
        "walk": column_walk,
        "loop": escape_loop,
        "cwalk": cached_walk,
    }


def _best(run: Any, sync: Any, reps: int) -> float:
    timer = device_timer(registry.current())
    return min(sample(run, sync, 1, reps, 0.0, max_time=3.0, timer=timer))


def _counts(kernel: Any, grid: Any, block: Any, args: tuple[Any, ...], prof: Profile) -> Any:
    """The cost model's counts for a calibration launch: rates are measured in the model's
    own units, so a prediction divides like by like."""
    fn, values = kernel.specialised_ir(*args)
    return count(
        fn,
        Dim3.of(grid, "grid"),
        Dim3.of(block, "block"),
        values,
        prof.group_width,
        prof.line_bytes,
        prof.tile_lanes,
    )


def calibrate(backend: str, quick: bool = False, log: Any = None) -> Profile:
    """Measure the current device of `backend` and store its profile (see the module doc).

    Each rate is the cost model's count for a microkernel over its best time (the minimum of
    several runs, the least disturbed by other processes): bytes for the copy, group
    operations for a mixed-arithmetic loop, far accesses for a column walk, group-iterations
    for a divergent while loop. Peak float32 (independent FMA chains) is reported as
    measured, for the "% of peak" of `simt bench`."""
    import simt

    say = log or (lambda _m: None)
    simt.use(backend)
    rt = registry.get(backend)
    sync = rt.synchronize
    k = _kernels()
    facts = rt.device_facts()
    nom = rt.nominal
    width = facts.group_width
    prof = Profile(
        backend,
        facts.device,
        width,
        facts.units,
        1.0,
        1.0,
        0.0,
        1.0,
        line_bytes=nom.line_bytes,
        max_block=facts.max_block,
    )
    prof.tile_lanes = facts.tile_lanes or width
    scale = max(nom.size_scale, 16 if quick else 1)
    reps = 5 if quick else 15

    n = (1 << 24) * nom.stream_boost // scale  # 64 MiB each way: beyond every CPU's cache
    a = simt.to_device(np.random.default_rng(1).random(n, dtype=np.float32) + 0.5)
    b = simt.empty((n,), np.float32)
    g = (n + 255) // 256
    t = _best(lambda: k["copy"][g, 256](a, b), sync, reps)
    c = _counts(k["copy"], g, 256, (np.empty(n, np.float32), np.empty(n, np.float32)), prof)
    prof.copy_bandwidth = c.dram_bytes / t
    say(f"copy bandwidth: {prof.copy_bandwidth / 1e9:.2f} GB/s")

    threads = 1 << 22 if nom.many_threads else (1 << 20) // scale
    iters = nom.fma_iters
    out = simt.empty((threads,), np.float32)
    tg = (threads + 255) // 256
    t = _best(lambda: k["fma"][tg, 256](out, iters, np.float32(0.5)), sync, reps)
    prof.peak_flops = 2 * 8 * iters * threads / t
    say(f"peak float32 (FMA chains): {prof.peak_flops / 1e9:.2f} GFLOP/s")

    t = _best(lambda: k["mixed"][tg, 256](out, iters), sync, reps)
    c = _counts(k["mixed"], tg, 256, (np.empty(threads, np.float32), iters), prof)
    prof.op_rate = c.group_ops / t
    say(f"mixed arithmetic: {prof.op_rate * width / 1e9:.2f} G thread-ops/s")

    # in cache: the access is measured, not the memory (a GPU needs more threads in flight)
    small = (1 << 22) if nom.many_threads else (1 << 16) // (4 if scale > 1 else 1)
    ga = simt.to_device(np.ones(small, np.float32))
    go = simt.empty((small,), np.float32)
    sg = (small + 255) // 256
    t = _best(lambda: k["gather"][sg, 256](ga, go, 64), sync, reps)
    c = _counts(
        k["gather"], sg, 256, (np.empty(small, np.float32), np.empty(small, np.float32), 64), prof
    )
    rest = max(t - c.group_ops / prof.op_rate, 0.1 * t)
    prof.gather_rate = max(c.scalar_accesses, 1.0) / rest
    say(f"lane-by-lane accesses: {prof.gather_rate / 1e9:.2f} G/s")

    tiny = simt.empty((32,), np.float32)
    lat = sorted(
        sample(
            lambda: k["empty"][1, 32](tiny), sync, 5, 200 // (4 if quick else 1), 0.0, max_time=1.0
        )
    )
    prof.launch_overhead = lat[len(lat) // 2]
    say(f"launch overhead: {prof.launch_overhead * 1e6:.1f} us")

    rows, cols = 128, (1 << 17) // scale  # row stride >= 32 KiB: every step a new page
    m = simt.to_device(np.ones((rows, cols), np.float32))
    mo = simt.empty((cols,), np.float32)
    wg = (cols + 255) // 256
    t = _best(lambda: k["walk"][wg, 256](m, mo), sync, reps)
    c = _counts(
        k["walk"], wg, 256, (np.empty((rows, cols), np.float32), np.empty(cols, np.float32)), prof
    )
    prof.far_rate = max(c.far_accesses, 1.0) / t
    say(f"far accesses (column walk): {prof.far_rate / 1e6:.1f} M lines/s")

    prof.cache_bytes = facts.cache_bytes
    if prof.cache_bytes >= 1 << 20:
        # the same walk over an array a quarter of the cache, read by many block rows
        rows = 256
        ccols = max(1024, prof.cache_bytes // 4 // 4 // rows)
        copies = 256 if nom.many_threads else 8
        cm = simt.to_device(np.ones((rows, ccols), np.float32))
        co = simt.empty((copies, ccols), np.float32)
        cg = ((ccols + 255) // 256, copies)
        t = _best(lambda: k["cwalk"][cg, 256](cm, co), sync, reps)
        c = _counts(
            k["cwalk"],
            cg,
            256,
            (np.empty((rows, ccols), np.float32), np.empty((copies, ccols), np.float32)),
            prof,
        )
        prof.cache_far_rate = max(c.far_accesses, 1.0) / t
        say(
            f"far accesses in cache ({prof.cache_bytes >> 20} MiB): "
            f"{prof.cache_far_rate / 1e6:.1f} M lines/s"
        )

    lo = simt.empty((threads,), np.float32)
    lim = 8 if nom.size_scale > 1 else 64  # (a slow device runs fewer trips)
    t = _best(lambda: k["loop"][tg, 256](lo, lim), sync, reps)
    c = _counts(k["loop"], tg, 256, (np.empty(threads, np.float32), lim), prof)
    rest = max(t - c.group_ops / prof.op_rate, 0.1 * t)  # what the loop costs beyond its ops
    prof.loop_rate = max(c.loop_iterations, 1.0) / rest
    say(f"divergent loop: {prof.loop_rate / 1e6:.1f} M group-iterations/s")

    prof.calibrated = True
    prof.measured_at = time.strftime("%Y-%m-%d %H:%M:%S")
    prof.notes = {"quick": quick}
    save_profile(prof)
    return prof
