"""`simt.map_blocks`: a kernel per chunk of dask arrays (synchronous scheduler; cluster runs in
test_dask_cluster.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import dask  # noqa: E402
import simt  # noqa: E402
from simt.dask import chunk_offset  # noqa: E402


@pytest.fixture(autouse=True)
def synchronous() -> Any:
    with dask.config.set(scheduler="synchronous"):
        yield


@simt.kernel
def saxpy(a, x, y):  # type: ignore[no-untyped-def]
    i = simt.grid(1)
    if i < len(y):
        y[i] = a * x[i] + y[i]


@simt.kernel
def ramp(start, out):  # type: ignore[no-untyped-def]
    i = simt.grid(1)
    if i < len(out):
        out[i] = start + i


@simt.kernel
def blur3(x, y):  # type: ignore[no-untyped-def]
    i = simt.grid(1)
    n = len(x)
    if i < n:
        y[i] = (x[max(i - 1, 0)] + x[i] + x[min(i + 1, n - 1)]) / 3.0


@simt.kernel
def laplace(a, out, table):  # type: ignore[no-untyped-def]
    x, y = simt.grid(2)
    h, w = a.shape[0], a.shape[1]
    if y < h and x < w:
        s = a[max(y - 1, 0), x] + a[min(y + 1, h - 1), x] + a[y, max(x - 1, 0)]
        out[y, x] = s + a[y, min(x + 1, w - 1)] - 4.0 * a[y, x] + table[1]


@simt.kernel
def two_outputs(x, y, z):  # type: ignore[no-untyped-def]
    i = simt.grid(1)
    if i < len(x):
        y[i] = x[i]
        z[i] = 2.0 * x[i]


def _vec(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).random(n).astype(np.float32)


def test_saxpy_per_chunk_equals_one_launch_and_leaves_the_inputs_alone() -> None:
    x, y = _vec(1000, 0), _vec(1000, 1)
    keep = y.copy()
    lazy = simt.map_blocks(saxpy, 2.0, da.from_array(x, chunks=77), da.from_array(y, chunks=77),
                           block=64)  # fmt: skip
    assert isinstance(lazy, da.Array) and lazy.chunks == ((77,) * 12 + (76,),)
    ref = y.copy()
    saxpy[16, 64](np.float32(2.0), x, ref)
    np.testing.assert_array_equal(lazy.compute(), ref)
    np.testing.assert_array_equal(y, keep)  # dask's chunks of y were copied, not written


def test_chunk_offset_gives_the_global_position() -> None:
    z = da.zeros(1000, chunks=77, dtype=np.int32)
    got = simt.map_blocks(ramp, chunk_offset(0), z, block=64).compute()
    np.testing.assert_array_equal(got, np.arange(1000))


def test_halo_sees_the_neighbours() -> None:
    x = _vec(1000, 2)
    got = simt.map_blocks(blur3, da.from_array(x, chunks=77), da.zeros(1000, chunks=50),
                          block=64, halo=1)  # fmt: skip
    ref = np.empty_like(x)
    blur3[16, 64](x, ref)
    np.testing.assert_array_equal(got.compute(), ref)


def test_two_dimensional_chunks_and_a_numpy_table() -> None:
    a = np.random.default_rng(3).random((45, 61)).astype(np.float32)
    table = np.array([0.0, 0.25], np.float32)
    d = da.from_array(a, chunks=(10, 13))
    got = simt.map_blocks(laplace, d, da.zeros_like(d), table, block=(16, 8), halo=1)
    ref = np.empty_like(a)
    laplace[(4, 6), (16, 8)](a, ref, table)
    np.testing.assert_array_equal(got.compute(), ref)
    # halo by axis; without halo the chunk's own edge is clamped (a different result)
    got2 = simt.map_blocks(laplace, d, da.zeros_like(d), table, block=(16, 8), halo=(1, 1))
    np.testing.assert_array_equal(got2.compute(), ref)
    assert not np.array_equal(
        simt.map_blocks(laplace, d, da.zeros_like(d), table, block=(16, 8)).compute(), ref
    )


def test_the_output_is_named_when_several_are_written() -> None:
    x = da.from_array(_vec(100, 4), chunks=30)
    y, z = da.zeros(100, chunks=30), da.zeros(100, chunks=30)
    with pytest.raises(simt.LaunchError, match="out="):
        simt.map_blocks(two_outputs, x, y, z, block=32)
    got = simt.map_blocks(two_outputs, x, y, z, block=32, out="z").compute()
    np.testing.assert_array_equal(got, 2.0 * x.compute())
    got = simt.map_blocks(two_outputs, x, y, z, block=32, out=1).compute()
    np.testing.assert_array_equal(got, x.compute())
    with pytest.raises(simt.LaunchError, match="never writes"):
        simt.map_blocks(two_outputs, x, y, z, block=32, out="x")


def test_bad_calls_are_clear() -> None:
    x = da.zeros(100, chunks=30, dtype=np.float32)
    with pytest.raises(simt.LaunchError, match="no dask array"):
        simt.map_blocks(saxpy, 1.0, np.zeros(3), np.zeros(3), block=32)
    with pytest.raises(simt.LaunchError, match="needs 2 sizes"):
        simt.map_blocks(laplace, da.zeros((4, 4)), da.zeros((4, 4)), np.zeros(2), block=16)
    with pytest.raises(simt.LaunchError, match="writes none"):
        simt.map_blocks(_reads_only, x, block=32)
    with pytest.raises(simt.LaunchError, match="a @simt.kernel"):
        simt.map_blocks(len, x, block=32)
    with pytest.raises(simt.LaunchError, match="one shape"):
        simt.map_blocks(saxpy, 1.0, x, da.zeros(99, chunks=30), block=32)


@simt.kernel
def _reads_only(x):  # type: ignore[no-untyped-def]
    i = simt.grid(1)
    if i < len(x):
        assert x[i] >= 0.0


@simt.kernel
def saxpy_into(a, x, y, out):
    i = simt.grid(1)
    if i < len(out):
        out[i] = a * x[i] + y[i]


def test_a_written_parameter_left_out_is_allocated() -> None:
    """Issue 26: `simt.map_blocks(saxpy, 2.0, x, y, block=256)` for `saxpy(a, x, y, out)` was
    "missing out"; like dask.array.map_blocks (and CuPy's ElementwiseKernel) it makes the
    output: the first dask argument's shape, chunks and dtype, or dtype=/shape=/chunks=."""
    import dask.array as da

    x = da.arange(1000, chunks=300).astype(np.float32)
    y = da.ones(1000, chunks=300, dtype=np.float32)
    r = simt.map_blocks(saxpy_into, 2.0, x, y, block=256)
    assert r.dtype == np.float32 and r.chunks == x.chunks
    np.testing.assert_array_equal(r.compute(), 2 * np.arange(1000, dtype=np.float32) + 1)
    r = simt.map_blocks(saxpy_into, 2.0, x, y, block=256, dtype=np.float64)
    assert r.compute().dtype == np.float64
    ramp = simt.map_blocks(_ramp, chunk_offset(0), shape=10, chunks=4, dtype="int64", block=64)
    assert ramp.compute().tolist() == list(range(10))
    with pytest.raises(simt.LaunchError, match=r"is missing y \(a parameter the kernel reads"):
        simt.map_blocks(saxpy_into, 2.0, x, block=256)
    with pytest.raises(simt.LaunchError, match="pass shape= "):
        simt.map_blocks(_ramp, 0, block=64)


@simt.kernel
def _ramp(start, out):
    i = simt.grid(1)
    if i < len(out):
        out[i] = start + i
