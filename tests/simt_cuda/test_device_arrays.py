"""`simt.cuda`'s device arrays do on the host what Numba's `DeviceNDArray` does: read and
write one element (`d[i]`, `d[i, j] = v`), the whole array (`d[:] = host`), `reshape` and
`ravel` onto the same memory (a kernel's writes through the reshaped array are seen through
the first), and refuse a slice by name (Numba's is a view; simt's arrays are whole)."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import cuda


@cuda.jit
def add_position(a):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] += i * 10 + j


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_elements_whole_and_reshape(backend: str) -> None:
    simt.use(backend)
    d = cuda.to_device(np.arange(12, dtype=np.float32))
    assert d[3] == 3.0 and isinstance(d[3], np.float32)
    d[0] = 100
    grid = d.reshape(3, 4)
    assert grid.shape == (3, 4) and d.ravel().shape == (12,)
    add_position[(1, 1), (4, 4)](grid)
    expect = np.arange(12, dtype=np.float32)
    expect[0] = 100
    expect += (np.arange(3)[:, None] * 10 + np.arange(4)).ravel()
    np.testing.assert_array_equal(d.copy_to_host(), expect)  # the same memory
    assert grid[2, 3] == expect[11]
    d[:] = np.ones(12, np.float32)
    np.testing.assert_array_equal(grid.copy_to_host(), np.ones((3, 4), np.float32))
    e = cuda.device_array((2, 3), np.int32)
    e[...] = 7
    e[1, 2] = -1
    assert e[1, 2] == -1 and e[0, 0] == 7
    assert e.is_c_contiguous() and not e.is_f_contiguous()
    assert cuda.device_array_like(e)[...].shape == (2, 3)


def test_a_slice_is_refused_by_name() -> None:
    simt.use("sim")
    d = cuda.to_device(np.zeros((4, 4)))
    with pytest.raises(NotImplementedError, match=r"d\[2:5\].*copy_to_host\(\)\[2:5\]"):
        d[2:5]
    with pytest.raises(NotImplementedError, match=r"writing d\[::2, 1\]"):
        d[::2, 1] = 1.0
    np.testing.assert_array_equal(d.copy_to_host(), 0.0)  # nothing was written
