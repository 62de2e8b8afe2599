"""Device profiles: what `simt calibrate` measures once per device, stored as JSON.

A profile holds copy bandwidth (bytes read + written per second by a simt copy kernel), peak
float32 throughput (a compiled kernel of independent FMA chains), launch overhead (an empty
launch and a synchronise), the rate of "far" accesses (each thread walking down a column,
every step a new page: the pattern the memory system cannot stream), the SIMD group or warp
width and the number of cores or multiprocessors. Files live in
`simt.cache.cache_dir()/profiles/<backend>-<device>.json`. Without one, `nominal` values stand
in and say so (`calibrated` is False). Measuring is `calibrate.py`'s; this module is the data
(it imports no other part of the benchtool).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .. import cache
from ..runtime import registry


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
    op_rate: float = 0.0  # group operations/s of mixed arithmetic (0: from peak_flops)
    gather_rate: float = 0.0  # lane-by-lane accesses/s beyond their operations (0: free)
    cache_bytes: int = 0  # last-level cache (L3 of a CPU, L2 of a GPU)
    tile_lanes: int = 0  # lanes run together, sharing the lines they fetch (0: group_width)
    cache_far_rate: float = 0.0  # far accesses/s (cache lines) into an array the cache holds
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
            f"{self.units} units x {self.group_width}-wide groups, "
            f"{self.op_rate * self.group_width / 1e9:.1f} G thread-ops/s, far accesses "
            f"{self.far_rate / 1e6:.0f} M/s, lane-by-lane {self.gather_rate / 1e9:.2f} G/s, "
            f"divergent-loop overhead {self.loop_rate / 1e6:.0f} M/s, "
            f"far in-cache {self.cache_far_rate / 1e6:.0f} M/s "
            f"({self.cache_bytes >> 20} MiB cache), "
            f"{self.line_bytes}-byte lines",
        ]
        return out


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")[:80] or "device"


def describe_device(backend: str) -> tuple[str, int, int, int]:
    """(device name, group width, units, max block) of `backend`'s device, as its runtime
    says (`Runtime.device_facts`)."""
    f = registry.get(backend).device_facts()
    return f.device, f.group_width, f.units, f.max_block


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
        facts = registry.get(backend).device_facts()
        nom = registry.runtime_class(backend).nominal
        prof = Profile(
            backend,
            device,
            width,
            units,
            copy_bandwidth=nom.copy_bandwidth,
            peak_flops=nom.peak_flops,
            launch_overhead=nom.launch_overhead,
            far_rate=nom.far_rate,
            loop_rate=nom.loop_rate,
            op_rate=nom.op_rate,
            gather_rate=nom.gather_rate,
            line_bytes=nom.line_bytes,
            max_block=max_block,
            cache_bytes=facts.cache_bytes,
            tile_lanes=facts.tile_lanes or width,
        )
        prof.cache_far_rate = prof.far_rate * 2
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
