"""The benchtool's clock: samples of a callable, timed the way the device needs it timed
(`simt.bench`, in `bench.py`, the autotuner and calibration are built on it; it imports no
other part of the benchtool).

Warm-up runs first (they compile), then at least `repeat` timed runs and more until `min_time`
seconds have been spent. Each sample is device-correct: on `cpu` and `sim` the host clock
around the call and a `simt.synchronize()`; on `webgpu` the same, where `synchronize` is a
completed buffer readback; on `cuda` a pair of timing events recorded on the runtime's stream
around the call (`device_timer`), falling back to the host clock around a synchronised call
where events are unavailable.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class BenchResult:
    """Timing statistics of one benchmark (seconds), with the cost model's counts when the
    benchmark was a kernel launch: bytes moved, flops, the predicted time and its bound."""

    name: str
    backend: str
    samples: list[float]
    warmup: int
    cost: Any = None  # a simt.benchtool.cost.Cost, when known
    peak_bandwidth: float | None = None  # bytes/s of the device profile
    peak_flops: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        """Mean of the samples (s)."""
        return statistics.fmean(self.samples)

    @property
    def std(self) -> float:
        """Sample standard deviation (s); 0 for a single sample."""
        return statistics.stdev(self.samples) if len(self.samples) > 1 else 0.0

    @property
    def median(self) -> float:
        """Median sample (s)."""
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        """Fastest sample (s)."""
        return min(self.samples)

    @property
    def max(self) -> float:
        """Slowest sample (s)."""
        return max(self.samples)

    @property
    def bytes(self) -> float | None:
        """Bytes read and written by one run, from the cost model."""
        return None if self.cost is None else float(self.cost.bytes_moved)

    @property
    def flops(self) -> float | None:
        """Floating-point operations of one run, from the cost model."""
        return None if self.cost is None else float(self.cost.flops)

    @property
    def gbps(self) -> float | None:
        """Achieved GB/s (bytes moved over the median time)."""
        b = self.bytes
        return None if b is None or self.median <= 0 else b / self.median / 1e9

    @property
    def gflops(self) -> float | None:
        """Achieved GFLOP/s over the median time."""
        f = self.flops
        return None if f is None or self.median <= 0 else f / self.median / 1e9

    @property
    def predicted(self) -> float | None:
        """The cost model's predicted time (s)."""
        return None if self.cost is None else float(self.cost.time)

    @property
    def fraction_of_peak(self) -> float | None:
        """The fraction of the device's measured peak reached, for the resource that bounds
        the kernel (bandwidth when memory-bound, FLOP/s when compute-bound)."""
        if self.cost is None:
            return None
        if self.cost.bound == "compute" and self.peak_flops and self.gflops is not None:
            return self.gflops * 1e9 / self.peak_flops
        if self.peak_bandwidth and self.gbps is not None:
            return self.gbps * 1e9 / self.peak_bandwidth
        return None

    def as_dict(self) -> dict[str, Any]:
        """The raw numbers, for JSON."""
        d = {k: v for k, v in asdict(self).items() if k != "cost"}
        for k in (
            "mean",
            "std",
            "median",
            "min",
            "max",
            "bytes",
            "flops",
            "gbps",
            "gflops",
            "predicted",
            "fraction_of_peak",
        ):
            d[k] = getattr(self, k)
        if self.cost is not None:
            d["cost"] = self.cost.as_dict()
        return d

    def __str__(self) -> str:
        ms = 1e3
        text = (
            f"{self.name} on {self.backend}: {self.median * ms:.3f} ms median "
            f"(mean {self.mean * ms:.3f} ± {self.std * ms:.3f}, min {self.min * ms:.3f}, "
            f"n={len(self.samples)})"
        )
        if self.gbps is not None:
            text += f", {self.gbps:.2f} GB/s, {self.gflops:.2f} GFLOP/s"
        if self.predicted is not None:
            text += f"; predicted {self.predicted * ms:.3f} ms ({self.cost.bound}-bound)"
        return text


def device_timer(rt: Any) -> Callable[[Callable[[], Any]], float] | None:
    """A function timing `run()` on runtime `rt`'s device itself (CUDA events), or None where
    it has none (the host clock around a synchronised call is used): `Runtime.device_timer`."""
    timer = getattr(rt, "device_timer", None)
    return timer() if timer is not None else None


def sample(
    run: Callable[[], Any],
    sync: Callable[[], None],
    warmup: int,
    repeat: int,
    min_time: float,
    max_time: float | None = None,
    min_samples: int = 3,
    timer: Callable[[Callable[[], Any]], float] | None = None,
) -> list[float]:
    """Times of `run()` + `sync()`: `warmup` untimed calls, then `repeat` samples and more until
    `min_time` seconds are spent (stopping early, with at least `min_samples`, past
    `max_time`)."""
    for _ in range(max(0, warmup)):
        run()
        sync()
    samples: list[float] = []
    spent = 0.0
    clock = time.perf_counter
    while len(samples) < max(1, repeat) or spent < min_time:
        if timer is not None:
            dt = timer(run)
            sync()  # reports what the launch raised; the events already waited
        else:
            t0 = clock()
            run()
            sync()
            dt = clock() - t0
        samples.append(dt)
        spent += dt
        if max_time is not None and len(samples) >= min_samples and spent > max_time:
            break
        if len(samples) >= 100_000:
            break
    return samples
