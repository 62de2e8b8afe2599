"""Every backend checks a launch against its limits before compiling or running it, and says
the limit (issue #15, item 7: 2**41 threads were a MemoryError on sim and a hang on cpu)."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt.runtime import registry


@simt.kernel
def first(out):
    i = simt.grid(1)
    if i == 0:
        out[0] = 1


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_a_launch_past_the_backend_limit_is_a_launch_error(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"{backend} not present: {why}")
    monkeypatch.setattr(registry, "_current", registry._current)
    simt.use(backend)
    limit = registry.get(backend).max_threads
    with pytest.raises(simt.LaunchError, match=rf"more than the {limit} threads .* {backend}"):
        first[(2**20, 2048), 1024](np.zeros(1, np.int32))  # 2**41 threads
