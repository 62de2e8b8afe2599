"""Fixtures of the benchtool tests: a fixed device profile, and a fresh profile/tuning state."""

from __future__ import annotations

import pytest

from simt.benchtool import advise, autotune, profile
from simt.benchtool.profile import Profile


@pytest.fixture
def prof() -> Profile:
    """A made-up 8-wide, 2-core device (numbers chosen for round predictions)."""
    return Profile(
        "cpu",
        "test-device",
        group_width=8,
        units=2,
        copy_bandwidth=10e9,
        peak_flops=20e9,
        launch_overhead=10e-6,
        far_rate=100e6,
        loop_rate=50e6,
        line_bytes=64,
        shared_bytes=48 * 1024,
        calibrated=True,
    )


@pytest.fixture(autouse=True)
def _fresh_state(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """Each test sees an empty cache folder and no remembered profile, tuning or warning."""
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(profile, "_loaded", {})
    monkeypatch.setattr(autotune, "_memory", {})
    monkeypatch.setattr(advise, "_warned", set())
