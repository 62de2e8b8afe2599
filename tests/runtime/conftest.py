"""Fixtures for runtime tests: one WebGPU device for the whole test session and kernels
nothing compiled before (`fresh_kernel`); the count of launches that took the ordinary path
(`ordinary`) is the root conftest's."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
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


_FRESH = """
import simt

@simt.kernel
def k(a):
    i = simt.grid(1)
    if i < len(a):
        a[i] = a[i] * {n} + 1.0
"""


@pytest.fixture
def fresh_kernel(tmp_path: Path) -> Callable[[int], Any]:
    """`fresh_kernel(n)`: a kernel of a file of its own, `a[i] = a[i] * n + 1.0` for float
    arrays `a`, that nothing compiled before (its code names `n`)."""

    def make(n: int) -> Any:
        path = tmp_path / f"fresh_{n}.py"
        path.write_text(_FRESH.format(n=n))
        ns: dict[str, Any] = {}
        exec(compile(path.read_text(), str(path), "exec"), ns)  # noqa: S102 - its own file
        return ns["k"]

    return make
