"""Fixtures for index-expression tests: a `backend` fixture over the backends present here."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import simt
from simt.runtime import registry

RUN_BACKENDS = ("sim", "cpu", "webgpu")
_probes: dict[str, tuple[bool, str]] = {}


def _probe(name: str) -> tuple[bool, str]:
    if name not in _probes:
        _probes[name] = registry.probe(name)
    return _probes[name]


@pytest.fixture(params=RUN_BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each backend that can run here (skipped with its probe's reason otherwise), made current
    for the test and restored after."""
    ok, why = _probe(request.param)
    if not ok:
        pytest.skip(f"backend {request.param!r} not present: {why}")
    simt.use(request.param)
    yield request.param


@pytest.fixture
def host_backend(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """`sim`, the reference backend, made current for the test."""
    simt.use("sim")
    yield "sim"
