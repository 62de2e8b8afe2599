"""The cpu runtime's fast launch (`runtime/cpu_fast.py`): a cached launch runs through one
native call, and anything its table does not guarantee takes the ordinary path, with the
ordinary path's checks and errors."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.errors import KernelError, LaunchError


@pytest.fixture(autouse=True)
def _cpu() -> object:
    with simt.using("cpu"):
        yield


def AXPY(a, x, y, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(out):
        out[i] = a * x[i] + y[i]


def SCALED(x, out, k, flag):
    i = thread_idx.x
    if i < len(out):
        out[i] = x[i] * k if flag else x[i]


axpy = simt.kernel(AXPY)


def ROWS(m, out):
    i = thread_idx.x
    if i < m.shape[0]:
        s = 0.0
        for j in range(m.shape[1]):
            s += m[i, j]
        out[i] = s


rows = simt.kernel(ROWS)


@simt.kernel
def unchecked_index(x, idx, out):
    i = thread_idx.x
    out[i] = x[idx[i]]


def _vec(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random(n).astype(np.float32)


def test_a_cached_launch_skips_the_ordinary_path_and_computes_the_same(ordinary: list[int]) -> None:
    axpy = simt.kernel(AXPY)
    x, y, out = _vec(16), _vec(16, 1), np.zeros(16, np.float32)
    for k in range(5):
        x[:] = _vec(16, 10 + k)
        axpy[1, 16](2.0, x, y, out)
        np.testing.assert_allclose(out, 2.0 * x.astype(np.float64) + y, rtol=1e-6)
    assert len(ordinary) == 1  # only the first launch went the ordinary way


def test_new_shapes_and_data_are_read_at_every_launch(ordinary: list[int]) -> None:
    axpy = simt.kernel(AXPY)
    for n in (16, 5, 32, 1):
        x, y, out = _vec(n, n), _vec(n, n + 1), np.full(n, -1, np.float32)
        axpy[1, 32](0.5, x, y, out)
        np.testing.assert_allclose(out, 0.5 * x.astype(np.float64) + y, rtol=1e-6)
    assert len(ordinary) == 1
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.zeros(3, np.float32)
    rows[1, 8](m, out)
    m2 = np.arange(20, dtype=np.float32).reshape(5, 4)
    out2 = np.zeros(5, np.float32)
    rows[1, 8](m2, out2)
    np.testing.assert_array_equal(out2, m2.sum(axis=1))


def test_scalars_of_each_kind(ordinary: list[int]) -> None:
    scaled = simt.kernel(SCALED)
    x = _vec(8)
    out = np.zeros(8, np.float32)
    for k, flag in ((3, True), (4, False), (-2, True)):
        scaled[1, 8](x, out, k, flag)
        np.testing.assert_allclose(out, x * k if flag else x, rtol=1e-6)
    assert len(ordinary) == 1
    scaled[1, 8](x, out, 2**40, True)  # an int64 now: a new specialisation, the ordinary way
    np.testing.assert_allclose(out, x * float(2**40), rtol=1e-6)
    scaled[1, 8](x, out, 2.5, True)
    np.testing.assert_allclose(out, x * 2.5, rtol=1e-6)
    assert len(ordinary) == 3


def test_other_types_take_the_ordinary_path_with_its_errors(ordinary: list[int]) -> None:
    axpy = simt.kernel(AXPY)  # a new kernel: no launcher of an earlier test
    x, y, out = _vec(16), _vec(16, 1), np.zeros(16, np.float32)
    axpy[1, 16](2.0, x, y, out)
    axpy[1, 16](2.0, x, y, out)
    assert len(ordinary) == 1
    # another dtype: compiled anew, then fast again
    xd, yd, outd = x.astype(np.float64), y.astype(np.float64), np.zeros(16)
    axpy[1, 16](2.0, xd, yd, outd)
    np.testing.assert_allclose(outd, 2.0 * xd + yd)
    assert len(ordinary) == 2
    with pytest.raises(LaunchError, match="read-only array"):
        ro = np.zeros(16, np.float32)
        ro.flags.writeable = False
        axpy[1, 16](2.0, x, y, ro)
    with pytest.raises(LaunchError, match="missing"):
        axpy[1, 16](2.0, x, y)
    with pytest.raises(LaunchError, match="dtype"):
        axpy[1, 16](2.0, x, y, np.zeros(16, np.str_))
    with pytest.raises(LaunchError, match="0-d array"):
        axpy[1, 16](2.0, x, y, np.zeros((), np.float32))
    axpy[1, 16](2.0, x, y, out)
    np.testing.assert_allclose(out, 2.0 * x.astype(np.float64) + y, rtol=1e-6)


def test_strided_arrays_get_the_variant_made_for_them() -> None:
    base = _vec(64)
    out = np.zeros(16, np.float32)
    y = np.zeros(16, np.float32)
    axpy[1, 16](1.0, base[:16], y, out)  # contiguous: the fast path is made for this
    axpy[1, 16](1.0, base[::4], y, out)  # strided: not the contiguous variant
    np.testing.assert_array_equal(out, base[::4])
    axpy[1, 16](1.0, base[1:17], y, out)
    np.testing.assert_array_equal(out, base[1:17])


def test_a_failure_in_a_cached_launch_is_the_same_error() -> None:
    x = _vec(8)
    out = np.zeros(8, np.float32)
    good = np.arange(8, dtype=np.int32)
    unchecked_index[1, 8](x, good, out)
    unchecked_index[1, 8](x, good, out)  # cached now
    bad = good.copy()
    bad[5] = 8
    messages = []
    for _ in range(2):
        with pytest.raises(KernelError) as e:
            unchecked_index[1, 8](x, bad, out)
        messages.append(str(e.value))
    # thread 5's IndexError, the others finished (a cached launch reads the failure buffer)
    assert "x[idx[i]]" in messages[0] and messages[0].endswith("\n7 threads finished")
    assert "(first: thread 5: index 8 is out of bounds of `x` with size 8)" in messages[0]
    assert messages[0] == messages[1]
    unchecked_index[1, 8](x, good, out)  # and the entry is usable again
    np.testing.assert_array_equal(out, x)


def test_launches_from_several_threads() -> None:
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            for k in range(200):
                x, y = _vec(16, seed * 1000 + k), _vec(16, 1)
                out = np.zeros(16, np.float32)
                axpy[1, 16](3.0, x, y, out)
                np.testing.assert_allclose(out, 3.0 * x.astype(np.float64) + y, rtol=1e-6)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_another_backend_is_not_given_the_cpu_fast_path() -> None:
    x, y, out = _vec(16), _vec(16, 1), np.zeros(16, np.float32)
    axpy[1, 16](2.0, x, y, out)
    axpy[1, 16](2.0, x, y, out)
    with simt.using("sim"):
        out2 = np.zeros(16, np.float32)
        axpy[1, 16](2.0, x, y, out2)
    np.testing.assert_array_equal(out, out2)


def test_kernels_with_hidden_arrays_keep_the_ordinary_path() -> None:
    """An assert (the failure buffer) or a list (the arena) is a hidden array made per launch:
    no fast path, and every launch reports its own threads' failures."""

    @simt.kernel
    def nonneg(x, out):
        i = thread_idx.x
        assert x[i] >= 0.0
        out[i] = x[i]

    out = np.zeros(8, np.float32)
    for _ in range(2):
        nonneg[1, 8](np.ones(8, np.float32), out)
        bad = np.ones(8, np.float32)
        bad[3] = -1.0
        with pytest.raises(KernelError, match="AssertionError"):
            nonneg[1, 8](bad, out)


def test_an_int64_parameter_given_small_ints(ordinary: list[int]) -> None:
    """Under Numba's typing every Python int is an int64 parameter: a small one stays on the
    fast path (the specialisation is keyed on fitting int32, not on the parameter's width)."""
    from simt import cuda

    @cuda.jit
    def shift(x, out, k):
        i = cuda.threadIdx.x
        if i < out.size:
            out[i] = x[i] + k

    x = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    for k in (1, 2, 3, -5):
        shift[1, 8](x, out, k)
        np.testing.assert_array_equal(out, x + k)
    assert len(ordinary) == 1
    shift[1, 8](x, out, 2**40)
    np.testing.assert_array_equal(out, x + np.float32(2**40))
    assert len(ordinary) == 2


def test_a_fast_launch_of_exact_shapes() -> None:
    """`Kernel.fast_launch(..., exact=True)` (index expressions' `run.quick`): a launch whose
    arrays have other shapes (same dtypes and dimensions) runs nothing and says so
    (OTHER_ARGUMENTS); with the shapes it was made for it runs. A launch of the kernel's
    ordinary fast path takes any shape."""
    from simt.runtime import cpu_fast

    rows = simt.kernel(ROWS, boundscheck=False)  # (no failure buffer: `fn` runs it)
    m, out = np.arange(12, dtype=np.float32).reshape(3, 4), np.zeros(3, np.float32)
    go = rows.config(1, 8)
    go(m, out)
    exact = rows.fast_launch(go.grid, go.block, (m, out), {}, exact=True)
    assert exact is not None and exact.words is None
    out[:] = 0
    assert exact.fn((m, out)) == cpu_fast.RAN
    np.testing.assert_array_equal(out, m.sum(1))
    other = np.ones((3, 5), np.float32)
    assert exact.fn((other, out)) == cpu_fast.OTHER_ARGUMENTS
    np.testing.assert_array_equal(out, m.sum(1))  # nothing ran
    assert exact.fn((m, np.zeros(4, np.float32))) == cpu_fast.OTHER_ARGUMENTS
    assert exact.fn((m, out)) == cpu_fast.RAN  # (the entry is free again)
    anyshape = rows.fast_launch(go.grid, go.block, (m, out), {})
    assert anyshape.fn((other, out)) == cpu_fast.RAN
    np.testing.assert_array_equal(out, other.sum(1))


def test_numpy_scalars_of_their_parameters_type(ordinary: list[int]) -> None:
    """`np.float32(0.5)` and friends, as Numba's examples pass them, keep the fast path: their
    bytes are copied, and a new value is read at every launch."""
    scaled = simt.kernel(SCALED)
    x = _vec(8)
    out = np.zeros(8, np.float32)
    for k in (np.float32(3.5), np.float32(-0.25), np.float32(7.0)):
        scaled[1, 8](x, out, k, np.bool_(True))
        np.testing.assert_array_equal(out, x * k)
    assert len(ordinary) == 1
    scaled[1, 8](x, out, np.float32(2.0), np.bool_(False))
    np.testing.assert_array_equal(out, x)
    assert len(ordinary) == 1
    xd, outd = x.astype(np.float64), np.zeros(8)
    for k64 in (np.int64(-(2**40)), np.int64(3)):  # the int64 specialisation, both values
        scaled[1, 8](xd, outd, k64, True)
        np.testing.assert_array_equal(outd, xd * float(k64))
    assert len(ordinary) == 2
    scaled[1, 8](x, out, np.uint8(3), True)  # computed in int32: the ordinary path converts it
    scaled[1, 8](x, out, np.uint8(5), True)
    np.testing.assert_array_equal(out, x * np.float32(5))
    assert len(ordinary) == 4


def test_device_arrays_of_this_backend(ordinary: list[int]) -> None:
    """`simt.to_device` arrays (Numba's `cuda.to_device`) keep the fast path: their host
    buffers are read at every launch; a NumPy array in their place, or another backend's
    device array, takes the ordinary path with its errors."""
    axpy = simt.kernel(AXPY)
    y = simt.to_device(_vec(16, 1))
    out = simt.empty((16,), np.float32)
    for k in range(4):
        x = _vec(16, 20 + k)
        axpy[1, 16](np.float32(0.5), simt.to_device(x), y, out)
        np.testing.assert_allclose(out.numpy(), 0.5 * x + y.numpy(), rtol=1e-6)
    assert len(ordinary) == 1
    host_out = np.zeros(16, np.float32)
    axpy[1, 16](np.float32(0.5), simt.to_device(x), y, host_out)  # a NumPy array: its own path
    axpy[1, 16](np.float32(0.5), simt.to_device(x), y, host_out)
    np.testing.assert_allclose(host_out, 0.5 * x + y.numpy(), rtol=1e-6)
    assert len(ordinary) == 2
    for _ in range(3):  # the first kind again: one ordinary launch, then its own fast path
        axpy[1, 16](np.float32(0.5), simt.to_device(x), y, out)
    assert len(ordinary) == 3
    with simt.using("sim"):
        elsewhere = simt.empty((16,), np.float32)
    with pytest.raises(LaunchError, match="lives on backend 'sim'"):
        axpy[1, 16](np.float32(0.5), simt.to_device(x), y, elsewhere)
    with pytest.raises(LaunchError, match="missing"):
        axpy[1, 16](np.float32(0.5), simt.to_device(x), y)
