"""simt.bench: statistics, warm-up and repeat counts, device-correct samples."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

import simt
from simt.benchtool.bench import bench
from simt.benchtool.timing import BenchResult, sample

from .test_cost import vadd


def test_statistics_of_known_samples() -> None:
    r = BenchResult("x", "sim", [0.004, 0.001, 0.003, 0.002], warmup=0)
    assert r.mean == pytest.approx(0.0025)
    assert r.median == pytest.approx(0.0025)
    assert r.min == 0.001 and r.max == 0.004
    assert r.std == pytest.approx(statistics.stdev([1, 2, 3, 4]) * 1e-3)
    assert r.gbps is None and r.predicted is None
    assert set(r.as_dict()) >= {"mean", "std", "median", "min", "max", "samples"}


def test_warmup_repeat_and_sync_per_sample() -> None:
    calls: list[str] = []
    out = sample(lambda: calls.append("run"), lambda: calls.append("sync"), 2, 5, 0.0)
    assert len(out) == 5
    assert calls == ["run", "sync"] * 7  # 2 warm-up + 5 timed, each waited for


def test_min_time_adds_samples() -> None:
    out = sample(lambda: None, lambda: None, 0, 1, min_time=0.002)
    assert len(out) > 1 and sum(out) >= 0.0


def test_max_time_stops_slow_cells_after_min_samples() -> None:
    import time

    out = sample(lambda: time.sleep(0.002), lambda: None, 0, 100, 0.0, max_time=0.001,
                 min_samples=2)  # fmt: skip
    assert len(out) == 2


def test_bench_a_callable() -> None:
    simt.use("sim")
    r = bench(lambda: sum(range(100)), warmup=1, repeat=4)
    assert len(r.samples) == 4 and r.cost is None and r.backend == "sim"


def test_bench_a_launch_carries_the_cost_model() -> None:
    simt.use("sim")
    n = 1024
    a, b, c = np.ones(n, np.float32), np.full(n, 2.0, np.float32), np.zeros(n, np.float32)
    r = simt.bench(vadd[4, 256], a, b, c, warmup=1, repeat=3)
    assert np.all(c == 3.0)
    assert r.bytes == 3 * 4 * n and r.flops == n
    assert r.gbps is not None and r.gbps > 0 and r.predicted is not None
    assert "GB/s" in str(r)


def test_bench_rejects_what_cannot_run() -> None:
    with pytest.raises(simt.LaunchError):
        bench(42)
