"""Index expressions on dask arrays (`simt.dask.tensor`): `blockwise` with the expression's own
indices, chunked reductions combined in a tree with the expression's reducible op."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import dask  # noqa: E402
import simt  # noqa: E402
from simt.tensor import i  # noqa: E402

MATMUL = i("ik*kj~ijk") >> i("+ijk~ij")


@pytest.fixture(autouse=True)
def synchronous() -> Any:
    with dask.config.set(scheduler="synchronous"):
        yield


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


def _tasks(x: Any, prefix: str) -> int:
    return sum(1 for k in dict(x.__dask_graph__()) if str(k[0] if isinstance(k, tuple) else k)
               .startswith(prefix))  # fmt: skip


def test_matmul_with_a_chunked_contracted_axis() -> None:
    a, b = _rand(50, 70, seed=1), _rand(70, 30, seed=2)
    lazy = MATMUL.exec(da.from_array(a, chunks=(16, 20)), da.from_array(b, chunks=(20, 11)))
    assert isinstance(lazy, da.Array) and lazy.shape == (50, 30) and lazy.dtype == np.float32
    # one fused task per (i, j, k) block (4 x 3 x 4), no 3-D buffer; then the tree of sums
    assert _tasks(lazy, "simt-tensor-partial") == 4 * 3 * 4
    unaligned = MATMUL.exec(da.from_array(a, chunks=(16, 23)), da.from_array(b, chunks=19))
    np.testing.assert_allclose(unaligned.compute(), MATMUL.exec(a, b), rtol=2e-6, atol=2e-6)
    got = lazy.compute()
    single = MATMUL.exec(a, b)
    np.testing.assert_allclose(got, single, rtol=2e-6, atol=2e-6)  # float reassociation
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-5)


@pytest.mark.parametrize(
    ("expr", "reduce_axis"),
    [(">ij~i", 1), ("<ij~j", 0), ("*ij~i", 1), ("+ij~.", None)],
)
def test_reductions_over_chunked_axes(expr: str, reduce_axis: Any) -> None:
    x = 0.5 + _rand(41, 37, seed=3)
    c = i(expr)
    got = c.exec(da.from_array(x, chunks=(10, 8))).compute()
    np.testing.assert_allclose(got, c.exec(x), rtol=1e-5)


def test_logical_reductions_combine_with_their_own_op() -> None:
    x = (np.random.default_rng(4).random((50, 70)) > 0.03).astype(np.int32)
    d = da.from_array(x, chunks=(7, 9))
    for expr in ("&&ij~j", "||ij~i", "^^ij~i"):
        c = i(expr)
        np.testing.assert_array_equal(c.exec(d).compute(), c.exec(x))


def test_work_after_a_reduction_gets_the_whole_contracted_axis() -> None:
    a, b = _rand(30, 40, seed=5), _rand(40, 20, seed=6)
    c = MATMUL >> i("ij-.~ij") >> i(">ij~ij")  # relu(a @ b - 9): not a sum of partials
    got = c.exec(da.from_array(a, chunks=(7, 9)), da.from_array(b, chunks=(9, 6)), 9.0)
    np.testing.assert_array_equal(got.compute(), c.exec(a, b, 9.0))  # exactly, chunk by chunk


def test_elementwise_numpy_mixed_and_several_outputs() -> None:
    a = _rand(30, 40, seed=7)
    d = da.from_array(a, chunks=(7, 9))
    square = i("ij*ij~ij")
    np.testing.assert_array_equal(square.exec(d, a).compute(), square.exec(a, a))
    both = i("+ij~i") & i(">ij~j")
    s, m = both.exec(d)
    rs, rm = both.exec(a)
    np.testing.assert_allclose(s.compute(), rs, rtol=1e-5)
    np.testing.assert_array_equal(m.compute(), rm)


def test_bad_calls_are_clear() -> None:
    d = da.from_array(_rand(8, 8), chunks=4)
    with pytest.raises(simt.LaunchError, match="into="):
        i("+ij~i").exec(d, into=np.empty(8, np.float32))
    with pytest.raises(simt.LaunchError, match="same axis twice"):
        i("+ii~i").exec(d)
