"""Session fixtures for runtime tests: one WebGPU device for the whole test session."""

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
