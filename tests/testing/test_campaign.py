"""`simt.testing.campaign`: kernels checked by several worker processes at once."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from simt.testing import campaign
from simt.testing.differential import Finding


class FakeChild:
    """A worker that takes longer for the lower seeds, so answers arrive out of seed order,
    and counts how many kernels are being checked at one time."""

    lock = threading.Lock()
    busy = 0
    most = 0
    closed = 0

    def __init__(self, backends: tuple[str, ...], nvrtc: bool, hang_seconds: float) -> None:
        pass

    def check(self, seed: int, options: dict[str, Any], refused: list[Finding]) -> Any:
        with FakeChild.lock:
            FakeChild.busy += 1
            FakeChild.most = max(FakeChild.most, FakeChild.busy)
        time.sleep(0.02 * (6 - seed))
        with FakeChild.lock:
            FakeChild.busy -= 1
        if seed == 3:
            refused.append(Finding(seed, "cpu", "refused", "not here"))
        return [Finding(seed, "cpu", "wrong", "x")] if seed == 4 else [], [f"f{seed}"]

    def close(self) -> None:
        with FakeChild.lock:
            FakeChild.closed += 1


def test_workers_check_kernels_at_once_and_answer_in_seed_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(campaign, "Child", FakeChild)
    got = list(campaign.in_workers(range(6), {}, (), False, 10, workers=3))
    assert [features for _, features, _ in got] == [[f"f{k}"] for k in range(6)]
    assert [f.seed for found, _, _ in got for f in found] == [4]
    assert [f.seed for _, _, refused in got for f in refused] == [3]
    assert FakeChild.most == 3  # three kernels were checked at one time
    assert FakeChild.closed == 3  # and every worker was ended


def test_a_worker_failure_is_raised_in_the_callers_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken(FakeChild):
        def check(self, seed: int, options: dict[str, Any], refused: list[Finding]) -> Any:
            if seed == 2:
                raise OSError("the pipe broke")
            return [], []

    monkeypatch.setattr(campaign, "Child", Broken)
    with pytest.raises(OSError, match="the pipe broke"):
        list(campaign.in_workers(range(5), {}, (), False, 10, workers=2))
