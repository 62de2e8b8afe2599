"""simt.autotune picks the fastest candidate, caches it per device/kernel/shapes, and
kernel.autolaunch uses the choice."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

import simt
from simt.benchtool import autotune as at
from simt.benchtool import timing

from .test_cost import vadd


def _fake_sample(fastest: int, seen: list[Any]):  # type: ignore[no-untyped-def]
    """A `timing.sample` whose times depend only on the block size: `fastest` wins."""

    def fake(run, sync, warmup, repeat, min_time, max_time=None, min_samples=3):  # type: ignore[no-untyped-def]
        launcher = run.__defaults__[0]
        seen.append(launcher.block.x)
        run()
        sync()
        return [1.0 if launcher.block.x == fastest else 2.0 + launcher.block.x * 1e-3]

    return fake


def test_picks_the_fastest_and_caches(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    simt.use("sim")
    seen: list[int] = []
    monkeypatch.setattr(timing, "sample", _fake_sample(128, seen))
    n = 1000
    a, b, c = np.ones(n, np.float32), np.ones(n, np.float32), np.zeros(n, np.float32)
    t = simt.autotune(vadd, a, b, c, blocks=[64, 128, 256])
    assert t.block == (128,) and t.grid() == (8,) and not t.cached
    assert sorted(seen) == [64, 128, 256]
    assert np.all(c == 2.0)
    again = simt.autotune(vadd, a, b, c, blocks=[64, 128, 256])
    assert again.cached and again.block == (128,) and sorted(seen) == [64, 128, 256]
    stored = json.loads((tmp_path / "cache" / "autotune.json").read_text())
    assert [v["block"] for v in stored.values()] == [[128]]
    # a fresh process: the memory is gone, the disk remembers
    monkeypatch.setattr(at, "_memory", {})
    assert simt.autotune(vadd, a, b, c, blocks=[64, 128, 256]).cached
    # other shapes are another entry
    m = 3000
    d = np.ones(m, np.float32)
    assert not simt.autotune(vadd, d, d, d.copy(), blocks=[64, 128, 256]).cached


def test_autolaunch_uses_the_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    simt.use("sim")
    seen: list[int] = []
    monkeypatch.setattr(timing, "sample", _fake_sample(64, seen))
    n = 5000
    a, b, c = np.ones(n, np.float32), np.full(n, 3.0, np.float32), np.zeros(n, np.float32)
    vadd.autolaunch(n)(a, b, c)
    assert np.all(c == 4.0)
    assert 64 in seen and len(seen) == len(at.DEFAULT_1D)
    vadd.autolaunch(n)(a, b, c)  # tuned already: no more timing
    assert len(seen) == len(at.DEFAULT_1D)


def test_tile_values_are_tuned_too(monkeypatch: pytest.MonkeyPatch) -> None:
    simt.use("sim")

    @simt.kernel(static=("unroll",))
    def scale(a, unroll):
        i = simt.grid(1)
        if i < len(a):
            a[i] = a[i] * unroll

    a = np.ones(512, np.float32)
    t = simt.autotune(scale, a, blocks=[128], params={"unroll": [1, 2]}, repeat=1)
    assert t.block == (128,) and t.params["unroll"] in (1, 2) and len(t.times) == 2


def test_bad_extent_is_a_launch_error() -> None:
    with pytest.raises(simt.LaunchError):
        simt.autotune(vadd, 1.0, 2.0, 3.0)
