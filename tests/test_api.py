"""The user API of the contract: launch forms, device arrays, backend choice."""

from typing import Any

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.runtime import registry

PRESENT = [n for n in ("sim", "cpu", "webgpu") if registry.probe(n)[0]]


@simt.kernel
def vector_add(a, b, c):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(c):
        c[i] = a[i] + b[i]


@simt.kernel
def scale(a: simt.In, out: simt.Out, s):
    i = simt.grid(1)
    if i < len(out):
        out[i] = a[i] * s


@pytest.fixture(params=PRESENT)
def backend(request):
    simt.use(request.param)
    yield request.param
    simt.use("sim")


def _inputs(n=1000):
    g = np.random.default_rng(1)
    return g.random(n, dtype=np.float32) + 0.5, g.random(n, dtype=np.float32) + 0.5


def test_the_four_launch_forms(backend):
    a, b = _inputs()
    for launch in (
        lambda c: vector_add[4, 256](a, b, c),
        lambda c: vector_add[simt.Dim(4), simt.Dim(256)](a, b, c),
        lambda c: simt.launch(vector_add, 4, 256, a, b, c),
        lambda c: vector_add.config(4, 256)(a, b, c),
    ):
        c = np.full_like(a, np.nan)
        launch(c)
        np.testing.assert_array_equal(c, a + b)


def test_device_arrays_stay_on_the_device(backend):
    a, b = _inputs()
    da, db = simt.to_device(a), simt.to_device(b)
    dc = simt.empty(a.shape, np.float32)
    vector_add[4, 256](da, db, dc)
    vector_add[4, 256](dc, db, dc)  # reads its own output: still on the device
    simt.synchronize()
    np.testing.assert_allclose(dc.numpy(), a + 2 * b, rtol=1e-6)
    assert dc.shape == a.shape and dc.dtype == np.float32
    z = simt.zeros((3, 4), np.int32)
    assert (z.numpy() == 0).all() and z.shape == (3, 4)


def test_to_device_copies(backend):
    a, _ = _inputs(8)
    d = simt.to_device(a)
    a[:] = 0
    assert (d.numpy() != 0).all()


def test_in_out_annotations(backend):
    a, _ = _inputs()
    out = np.zeros_like(a)
    scale[4, 256](a, out, 2.0)
    np.testing.assert_allclose(out, a * 2, rtol=1e-6)


def test_strided_numpy_views(backend):
    base = np.arange(64, dtype=np.float32).reshape(8, 8)
    a = base[:, 1]  # a column: stride 8
    b = np.ones(8, np.float32)
    c = np.zeros((8, 8), np.float32)[2]
    vector_add[1, 32](a, b, c)
    np.testing.assert_array_equal(c, base[:, 1] + 1)


def test_unknown_backend_is_a_clear_error():
    with pytest.raises(simt.BackendUnavailable, match="unknown backend 'metal'"):
        simt.use("metal")


def test_device_array_from_another_backend_is_refused():
    if "cpu" not in PRESENT:
        pytest.skip("needs two backends")
    simt.use("sim")
    d = simt.to_device(np.ones(4, np.float32))
    simt.use("cpu")
    try:
        with pytest.raises(simt.LaunchError, match="lives on backend 'sim'"):
            vector_add[1, 4](d, d, d)
    finally:
        simt.use("sim")


@pytest.mark.parametrize(
    ("grid", "block", "message"),
    [
        ((1, 1), (1025, 1), "more than the 1024"),
        (1, (1, 1, 65), "block z size 65"),
        ((1, 65536), 1, "over the limits"),
        (2**22, 1024, "thread indices are int32"),  # 2**32 threads along x
    ],
)
def test_launch_shapes_over_the_limits(grid, block, message) -> None:
    """Shapes no GPU runs, and more than 2**31 threads along x (simt's thread indices and
    `block_dim.x * grid_dim.x` are int32), are a LaunchError before anything runs."""
    from simt.kernel import check_launch

    with pytest.raises(simt.LaunchError, match=message):
        check_launch(simt.Dim.of(grid, "grid"), simt.Dim.of(block, "block"))


def test_using_chooses_a_backend_for_a_block_and_restores_the_one_before() -> None:
    simt.use("sim")
    with simt.using("cpu") as name:
        assert name == "cpu" and simt.backend() == "cpu"
        with simt.using("sim"):  # nests
            assert simt.backend() == "sim"
        assert simt.backend() == "cpu"
    assert simt.backend() == "sim"
    with pytest.raises(ZeroDivisionError), simt.using("cpu"):
        1 / 0  # noqa: B018 - the block raises: the backend before comes back all the same
    assert simt.backend() == "sim"
    with pytest.raises(simt.BackendUnavailable, match="metal"), simt.using("metal"):
        pass
    assert simt.backend() == "sim"


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda: simt.zeros(-1), r"simt.zeros: shape -1 has a negative size"),
        (lambda: simt.empty((2, -3)), r"simt.empty: shape \(2, -3\) has a negative size"),
        (lambda: simt.zeros("a"), r"shape 'a' is not an int or a tuple of ints"),
        (lambda: simt.zeros(4, object), r"simt.zeros: dtype object is not one kernels take"),
        (lambda: simt.empty(4, str), r"simt.empty: dtype str is not one kernels take"),
        (lambda: simt.to_device(np.array([object()])), r"simt.to_device: dtype object"),
    ],
)
@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_device_array_makers_refuse_bad_shapes_and_dtypes(make: Any, message: str,
                                                          backend: str) -> None:
    """Issue 26: `simt.zeros(-1)` was NumPy's ValueError, `simt.zeros(4, object)` accepted."""
    simt.use(backend)
    with pytest.raises(simt.LaunchError, match=message):
        make()


def test_device_arrays_of_every_kernel_dtype_and_big_endian_data() -> None:
    simt.use("sim")
    for dt in ("bool", "int8", "uint16", "float16", "float64", "complex64"):
        assert simt.zeros((2, 3), dt).numpy().dtype == np.dtype(dt)
    a = simt.to_device(np.arange(3, dtype=">f4"))
    assert a.numpy().tolist() == [0.0, 1.0, 2.0] and a.dtype.isnative


def test_a_bad_backend_name_is_said_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 26: `SIMT_BACKEND=nosuch` nested its message inside itself."""
    with pytest.raises(simt.BackendUnavailable) as e:
        simt.use("nosuch")
    assert str(e.value) == "unknown backend 'nosuch': choose one of cuda, webgpu, cpu, sim"
    monkeypatch.setenv("SIMT_BACKEND", "nosuch")
    with pytest.raises(simt.BackendUnavailable) as e:
        registry.default_name()
    assert str(e.value).startswith("SIMT_BACKEND='nosuch' names no backend: set it to one of")
    assert str(e.value).count("nosuch") == 1
