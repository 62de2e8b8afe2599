"""Device profiles: what `simt calibrate` measures once per device, stored as JSON.

A profile holds copy bandwidth (bytes read + written per second by a simt copy kernel), peak
float32 throughput (a compiled kernel of independent FMA chains), launch overhead (an empty
launch and a synchronise), the rate of "far" accesses (each thread walking down a column,
every step a new page: the pattern the memory system cannot stream), the SIMD group or warp
width and the number of cores or multiprocessors. Files live in
`simt.cache.cache_dir()/profiles/<backend>-<device>.json`. Without one, `nominal` values stand
in and say so (`calibrated` is False).
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import cache

LINE_BYTES = {"cpu": 64, "sim": 64, "cuda": 32, "webgpu": 32}  # cache line / memory sector


@dataclass
class Profile:
    """One device's measured capabilities (rates per second, times in seconds)."""

    backend: str
    device: str
    group_width: int  # threads a SIMD group or warp executes together
    units: int  # cores (cpu) or multiprocessors (cuda)
    copy_bandwidth: float  # bytes/s, read + written
    peak_flops: float  # float32 flop/s (an FMA is 2)
    launch_overhead: float  # s per launch + synchronise
    far_rate: float  # far (page-stride) group accesses per second
    loop_rate: float = 0.0  # group-iterations/s of a divergent while loop (0: not measured)
    line_bytes: int = 64
    max_block: int = 1024
    shared_bytes: int = 48 * 1024
    calibrated: bool = False
    measured_at: str = ""
    notes: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The profile as JSON-ready data."""
        return asdict(self)

    def lines(self) -> list[str]:
        """Human-readable lines for `simt info`."""
        state = (
            f"calibrated {self.measured_at}"
            if self.calibrated
            else ("nominal (run `simt calibrate` to measure)")
        )
        out = [
            f"profile: {state}",
            f"copy bandwidth {self.copy_bandwidth / 1e9:.1f} GB/s, peak float32 "
            f"{self.peak_flops / 1e9:.1f} GFLOP/s, launch {self.launch_overhead * 1e6:.1f} us",
            f"{self.units} units x {self.group_width}-wide groups, far accesses "
            f"{self.far_rate / 1e6:.0f} M/s, {self.line_bytes}-byte lines",
        ]
        return out


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:80] or "device"


def describe_device(backend: str) -> tuple[str, int, int, int]:
    """(device name, group width, units, max block) for `backend`, from what the runtime says."""
    from ..runtime import registry

    rt = registry.get(backend)
    info = rt.info()
    if backend == "cpu":
        bits = int(re.match(r"\d+", info.get("vector width", "128")).group())  # type: ignore[union-attr]
        return (
            f"{info.get('target cpu', 'cpu')}-{info.get('threads', '1')}t",
            max(1, bits // 32),
            int(info.get("threads", "1")),
            1024,
        )
    if backend == "cuda":
        sms = 0
        try:
            dev = rt.device  # type: ignore[attr-defined]
            sms = int(dev.properties.multiprocessor_count)
        except Exception:  # noqa: BLE001 - older cuda.core: a nominal count
            sms = 80
        return (info.get("device", "cuda"), 32, sms or 80, 1024)
    if backend == "webgpu":
        return (info.get("adapter", "webgpu"), 32, 8, 256)
    return ("numpy", 32, 1, 1024)


_NOMINAL = {  # rough values for an uncalibrated device (per unit where it scales)
    "cpu": dict(
        copy_bandwidth=15e9, peak_flops=40e9, launch_overhead=20e-6, far_rate=80e6, loop_rate=0.0
    ),
    "sim": dict(
        copy_bandwidth=3e9, peak_flops=1e9, launch_overhead=300e-6, far_rate=50e6, loop_rate=0.0
    ),
    "cuda": dict(
        copy_bandwidth=1.5e12, peak_flops=30e12, launch_overhead=8e-6, far_rate=5e9, loop_rate=0.0
    ),
    "webgpu": dict(
        copy_bandwidth=100e9, peak_flops=2e12, launch_overhead=100e-6, far_rate=1e9, loop_rate=0.0
    ),
}


def profile_path(backend: str, device: str) -> Path:
    """Where the profile of `device` on `backend` is stored."""
    return cache.cache_dir() / "profiles" / f"{backend}-{_safe(device)}.json"


_loaded: dict[str, Profile] = {}


def load_profile(backend: str) -> Profile:
    """The stored profile of the current device of `backend`, else nominal values."""
    hit = _loaded.get(backend)
    if hit is not None:
        return hit
    device, width, units, max_block = describe_device(backend)
    path = profile_path(backend, device)
    prof: Profile | None = None
    try:
        data = json.loads(path.read_text())
        prof = Profile(**data)
    except (OSError, ValueError, TypeError):
        prof = None
    if prof is None:
        prof = Profile(
            backend,
            device,
            width,
            units,
            line_bytes=LINE_BYTES.get(backend, 64),
            max_block=max_block,
            **_NOMINAL.get(backend, _NOMINAL["cpu"]),  # type: ignore[arg-type]
        )
    _loaded[backend] = prof
    return prof


def save_profile(prof: Profile) -> Path:
    """Store `prof` (atomically) and make it the one later predictions use."""
    path = profile_path(prof.backend, prof.device)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(prof.as_dict(), indent=1))
    os.replace(tmp, path)
    _loaded[prof.backend] = prof
    return path


def profile_lines(backend: str) -> list[str]:
    """The lines `python -m simt info` shows for `backend`'s device profile (never raises)."""
    try:
        return load_profile(backend).lines()
    except Exception as e:  # noqa: BLE001 - info is a courtesy
        return [f"profile: unavailable ({type(e).__name__}: {e})"]


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
        for _ in range(n):
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

    @simt.kernel
    def column_walk(a, out):
        j = block_idx.x * block_dim.x + thread_idx.x
        if j < a.shape[1]:
            s = 0.0
            for i in range(a.shape[0]):
                s += a[i, j]
            out[j] = s

    @simt.kernel
    def escape_loop(out, limit):
        i = block_idx.x * block_dim.x + thread_idx.x
        if i < len(out):
            x = (i % 97) * 0.01
            it = 0
            while it < limit and x < 1000.0:
                x = x * 1.01 + 0.5
                it += 1
            out[i] = x

    return {
        "copy": copy,
        "fma": fma_chains,
        "empty": empty_kernel,
        "walk": column_walk,
        "loop": escape_loop,
    }


def _best(run: Any, sync: Any, reps: int) -> float:
    from .timing import sample

    return min(sample(run, sync, 1, reps, 0.0, max_time=2.0))


def calibrate(backend: str, quick: bool = False, log: Any = None) -> Profile:
    """Measure the current device of `backend` and store its profile (see the module doc)."""
    import simt
    from simt.runtime import registry

    say = log or (lambda _m: None)
    simt.use(backend)
    rt = registry.get(backend)
    sync = rt.synchronize
    k = _kernels()
    device, width, units, max_block = describe_device(backend)
    scale = 16 if quick or backend == "sim" else 1
    reps = 5 if quick else 10

    n = (1 << 24) // scale  # 64 MiB each way: beyond every CPU's last-level cache
    a = simt.to_device(np.random.default_rng(1).random(n, dtype=np.float32) + 0.5)
    b = simt.empty((n,), np.float32)
    g = (n + 255) // 256
    t = _best(lambda: k["copy"][g, 256](a, b), sync, reps)
    copy_bw = 2 * 4 * n / t
    say(f"copy bandwidth: {copy_bw / 1e9:.2f} GB/s")

    threads = (1 << 20) // scale if backend != "cuda" else 1 << 22
    iters = 256 if backend != "sim" else 8
    out = simt.empty((threads,), np.float32)
    tg = (threads + 255) // 256
    t = _best(lambda: k["fma"][tg, 256](out, iters, np.float32(0.5)), sync, reps)
    peak = 2 * 8 * iters * threads / t
    say(f"peak float32: {peak / 1e9:.2f} GFLOP/s")

    tiny = simt.empty((32,), np.float32)
    from .timing import sample

    lat = sorted(
        sample(
            lambda: k["empty"][1, 32](tiny), sync, 5, 200 // (4 if quick else 1), 0.0, max_time=1.0
        )
    )
    launch = lat[len(lat) // 2]
    say(f"launch overhead: {launch * 1e6:.1f} us")

    rows, cols = 64, (1 << 18) // scale  # row stride >= 64 KiB: every step a new page
    m = simt.to_device(np.ones((rows, cols), np.float32))
    mo = simt.empty((cols,), np.float32)
    t = _best(lambda: k["walk"][(cols + 255) // 256, 256](m, mo), sync, reps)
    far = rows * cols / width / t
    say(f"far accesses: {far / 1e6:.1f} M group accesses/s")

    lo = simt.empty((threads,), np.float32)
    lim = 64 if backend != "sim" else 8
    t = _best(lambda: k["loop"][tg, 256](lo, lim), sync, reps)
    loop_rate = lim * threads / width / t  # x never reaches 1000 within 64 steps: all run
    say(f"divergent loop: {loop_rate / 1e6:.1f} M group-iterations/s")

    prof = Profile(
        backend,
        device,
        width,
        units,
        copy_bw,
        peak,
        launch,
        far,
        loop_rate,
        LINE_BYTES.get(backend, 64),
        max_block,
        calibrated=True,
        measured_at=time.strftime("%Y-%m-%d %H:%M:%S"),
        notes={"quick": quick},
    )
    save_profile(prof)
    return prof
