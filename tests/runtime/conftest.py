"""Fixtures for runtime tests: one WebGPU device for the whole test session, and a count of
the launches that took the ordinary path (`ordinary`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import simt
from simt.runtime import registry


@pytest.fixture(scope="session")
def webgpu_runtime() -> Any:
    """The process's WebGPU runtime (adapter and device are opened once, about a second);
    skipped with the probe's reason where wgpu or an adapter is missing."""
    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"webgpu not present: {why}")
    return registry.get("webgpu")


@pytest.fixture
def on_webgpu(webgpu_runtime: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Launches in the test run on webgpu; the backend other tests see is restored after."""
    simt.use("webgpu")
    yield webgpu_runtime


@pytest.fixture
def ordinary(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item for each launch that took the ordinary path (`Kernel.launch`), not a native
    fast path."""
    from simt.kernel import Kernel

    calls: list[int] = []
    real = Kernel.launch

    def counted(self: Kernel, *a: object) -> None:
        calls.append(1)
        real(self, *a)  # type: ignore[arg-type]

    monkeypatch.setattr(Kernel, "launch", counted)
    return calls
