"""Bounds errors in debug mode (checks on whatever `boundscheck` says) name the array, the index
the first failing thread used and the array's size per axis, the same on every backend (sim,
cpu, webgpu): its threads raise IndexError as those of any kernel do (#23). The same kernels
without debug mode: tests/runtime/test_bounds.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt
from simt.runtime import registry

BACKENDS = ["sim", "cpu", "webgpu"]


@simt.kernel(debug=True)
def local_write(out, n):
    i = simt.grid(1)
    a = simt.local.array(4, simt.int32)
    a[n] = i
    out[i] = a[0]


@simt.kernel(debug=True)
def matrix_write(m, n):
    i = simt.grid(1)
    m[i // 4, i % 4 + n] = 1.0


@simt.kernel(debug=True)
def shared_write(out):
    s = simt.shared.array(8, simt.float32)
    t = simt.thread_idx.x
    s[t] = 1.0
    simt.syncthreads()
    out[t] = s[0]


@simt.kernel(debug=True)
def wide_read(out, a):
    i = simt.grid(1)
    out[i] = a[simt.int64(i) - 3]


CASES: list[tuple[Any, Any, tuple[int, int], str]] = [
    (
        local_write,
        lambda: (np.zeros(8, np.int32), 5),
        (1, 8),
        "(first: thread 0: index 5 is out of bounds of `a` with size 4)",
    ),
    (
        matrix_write,
        lambda: (np.zeros((2, 4), np.float32), 1),
        (1, 8),
        "(first: thread 3: index 4 is out of bounds for axis 1 of `m` with size 4)",
    ),
    (
        shared_write,
        lambda: (np.zeros(16, np.float32),),
        (1, 16),
        "(first: thread 8: index 8 is out of bounds of `s` with size 8)",
    ),
    (
        wide_read,
        lambda: (np.zeros(8, np.float32), np.zeros(8, np.float32)),
        (1, 8),
        "(first: thread 0: index -3 is out of bounds of `a` with size 8)",
    ),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_bounds_error_names_index_and_shape(backend: str, case: int) -> None:
    if backend != "sim" and not registry.probe(backend)[0]:
        pytest.skip(f"{backend} not present")
    kernel, make, (grid, block), expected = CASES[case]
    with simt.using(backend):
        try:
            with pytest.raises(simt.KernelError) as e:
                kernel[grid, block](*make())
        except simt.CompileError as refused:  # webgpu without int64: refused by name
            assert backend == "webgpu" and "int64" in str(refused)
            return
    assert expected in str(e.value)
