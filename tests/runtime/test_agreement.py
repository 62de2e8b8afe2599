"""Every backend gives `sim`'s answer on the edge cases that once differed (issue #15).

Each case runs on `sim` (the reference) and on each other backend present; results must be
bit-identical (these cases round once per operation, so there is nothing to tolerate).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt
from simt.runtime import registry

OTHERS = ("cpu", "webgpu")


def _run(backend: str, kernel: Any, grid: int, block: int, args: tuple[Any, ...]) -> list[Any]:
    simt.use(backend)
    copies = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)
    kernel[grid, block](*copies)
    simt.synchronize()
    return [a for a in copies if isinstance(a, np.ndarray)]


def _agree(backend: str, kernel: Any, grid: int, block: int, *args: Any) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"{backend} not present: {why}")
    want = _run("sim", kernel, grid, block, args)
    got = _run(backend, kernel, grid, block, args)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w, err_msg=f"{backend} differs from sim")


@pytest.fixture(autouse=True)
def _keep_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """The backend comes back after the test (tests/conftest.py)."""


@simt.kernel
def count_range(out, start, stop, step):
    c = 0
    for _ in range(start, stop, step):
        c += 1
    out[0] = c


@pytest.mark.parametrize("backend", OTHERS)
def test_uint32_range_with_run_time_step_compares_unsigned(backend: str) -> None:
    # start >= 2**31 is above stop as uint32; a signed compare (cpu once) ran the loop
    out = np.full(1, -1, np.int32)
    _agree(backend, count_range, 1, 1, out, np.uint32(2**31 + 5), np.uint32(10), np.uint32(1))
    _agree(backend, count_range, 1, 1, out, np.uint32(3), np.uint32(2**31 + 7), np.uint32(2**30))


@simt.kernel
def add_in_python_order(a, b, out):
    i = simt.grid(1)
    out[i] = 100.0 + (a[i] + b[i])


@pytest.mark.parametrize("backend", OTHERS)
def test_float_additions_keep_python_order(backend: str) -> None:
    # (100 + a) + b rounds differently from 100 + (a + b) when a + b cancels exactly
    a = np.float32([3.0e-6, 1.0, 1e8, 0.3])
    b = np.float32([-3.0e-6 + 1e-12, -1.0 + 1e-7, -1e8, 0.7])
    _agree(backend, add_in_python_order, 1, 4, a, b, np.zeros(4, np.float32))


@simt.kernel
def float_mod_and_div(a, b, rem, quot, by_zero):
    i = simt.grid(1)
    rem[i] = a[i] % b[i]
    quot[i] = a[i] // b[i]
    by_zero[i] = a[i] / 0.0


@pytest.mark.parametrize("backend", OTHERS)
def test_float_mod_is_exact_and_division_by_zero_is_ieee(backend: str) -> None:
    a = np.float32([1e9, 3e8, -5.0, 7.0, -1e30, 0.0, 2.5e7, -3.0])
    b = np.float32([3.0, -7.0, 3.0, 0.0, 3.0e-3, -2.0, 0.1, 3.0])
    z = np.zeros(len(a), np.float32)
    _agree(backend, float_mod_and_div, 1, len(a), a, b, z, z, z)
