"""bench/tensor.py measures both sides alike: a call that follows the other side's (simt after
NumPy's, NumPy after simt's) runs after the same pause, so neither reads what the other just
brought into cache while the other pays for waking up. Nothing is timed here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _tensor() -> Any:
    spec = importlib.util.spec_from_file_location("_bench_tensor", BENCH / "tensor.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_a_pause_before_every_change_of_side(monkeypatch: pytest.MonkeyPatch) -> None:
    mod = _tensor()
    ran: list[str] = []
    monkeypatch.setattr(mod, "settle", lambda: ran.append("settle"))
    variants = {name: (lambda name=name: ran.append(name)) for name in
                ("numpy", "simt", "simt tuned")}  # fmt: skip
    mod.interleave(variants, 4, set())
    calls = [r for r in ran if r != "settle"]
    assert sorted(set(calls)) == ["numpy", "simt", "simt tuned"]
    side = [c == "numpy" for c in calls]
    changes = sum(a != b for a, b in zip(side, side[1:]))
    assert ran.count("settle") == changes
    # each call to NumPy after simt's and each to simt after NumPy's came right after a pause
    for k, r in enumerate(ran[1:], 1):
        if r == "settle":
            continue
        before = next((x for x in reversed(ran[:k]) if x != "settle"), None)
        if before is not None and (before == "numpy") != (r == "numpy"):
            assert ran[k - 1] == "settle", ran
