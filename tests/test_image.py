"""Image functions (`simt.compile` of a function of an Image and a Position), on every backend.

The published PyGPU examples are imported from `examples/sobel.py`, so they are tested exactly
as a user reads them there.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simt
from simt.array import DeviceArray
from simt.image import Color, Float, Image, Position, dot, length
from simt.runtime import nvrtc, registry

_spec = importlib.util.spec_from_file_location(
    "simt_example_sobel", Path(__file__).resolve().parents[1] / "examples" / "sobel.py"
)
assert _spec is not None and _spec.loader is not None
ex = importlib.util.module_from_spec(_spec)
sys.modules["simt_example_sobel"] = ex
_spec.loader.exec_module(ex)

BACKENDS = ("sim", "cpu", "webgpu")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    ok, why = registry.probe(request.param)
    if not ok:
        pytest.skip(f"backend {request.param!r} not present: {why}")
    simt.use(request.param)
    return str(request.param)


def _image(h: int = 37, w: int = 53, c: int | None = None, seed: int = 0) -> np.ndarray:
    shape = (h, w) if c is None else (h, w, c)
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


# ---------------------------------------------------------------------------- plain Python
def test_the_image_language_is_plain_python_on_the_host() -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    im = Image(a)
    assert im(Position(3, 1)) == a[1, 3]
    assert im(Position(-5, 9)) == a[2, 0]  # clamp to the nearest edge pixel
    assert Image(a, edge="wrap")(Position(-1, 3)) == a[0, 3]
    assert Image(a, edge="zero")(Position(4, 0)) == 0.0
    p = Position(1, 2) + (3, -1)
    assert (p.x, p.y) == (4, 1)
    q = p + Position(1, 1) - (2, 2)
    assert (q.x, q.y) == (3, 0)
    c = Color(1.0, 2.0, 2.0)
    assert (2 * c + 1)[2] == 5.0 and (c / 2).v == (0.5, 1.0, 1.0) and (-c)[0] == -1.0
    assert dot(c, c) == 9.0 and length(c) == 3.0
    assert (im.width, im.height, im.channels) == (4, 3, 1)
    assert Image(np.zeros((2, 2, 3)))(Position(0, 0)).v == (0.0, 0.0, 0.0)


# ---------------------------------------------------------------------------- the examples
def test_scalar_mul_both_spellings(backend: str) -> None:
    def scalar_mul_annotated(c: Float, im: Image, p: Position) -> Any:
        return c * im(p)

    a = _image()
    for f in (ex.scalarMul, scalar_mul_annotated):
        out = simt.compile(f)(1.5, a)
        assert isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == a.shape
        np.testing.assert_allclose(out, 1.5 * a, rtol=1e-6)
        np.testing.assert_allclose(simt.compile(f, c=-2.0)(a), -2.0 * a, rtol=1e-6)


def test_sobel_edges_match_float64_numpy(backend: str) -> None:
    a = _image(37, 53)  # partial blocks and every edge case of the clamps
    edges = simt.compile(ex.edgeDetect, kernel=ex.sobelKernel)(a)
    ref = ex.sobel_reference(a)
    assert edges.shape == a.shape
    assert np.abs(edges - ref).max() / ref.max() < 1e-5


def test_sobel_matches_scipy_on_the_camera_photograph(backend: str) -> None:
    data = pytest.importorskip("skimage.data", reason="scikit-image (simt[image]) not installed")
    ndimage = pytest.importorskip("scipy.ndimage")
    photo = data.camera().astype(np.float32) / 255
    edges = simt.compile(ex.edgeDetect, kernel=ex.sobelKernel)(photo)
    p64 = photo.astype(np.float64)
    ref = np.hypot(ndimage.sobel(p64, axis=1, mode="nearest"),
                   ndimage.sobel(p64, axis=0, mode="nearest"))  # fmt: skip
    assert np.abs(edges - ref).max() / ref.max() < 1e-5


def test_the_example_script_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("PIL", reason="Pillow (simt[image]) not installed")
    sys.argv = ["sobel.py", "--backend", "sim", "--out", str(tmp_path)]
    try:
        ex.main()
    finally:
        simt.use("sim")
    out = capsys.readouterr().out
    assert (tmp_path / "edges.png").stat().st_size > 0
    assert "reads the image 9 times" in out


# ---------------------------------------------------------------------------- colour, edges
def gray(im: Image, p: Position) -> Any:
    return dot(im(p), (0.25, 0.5, 0.25))


def blur_x(im: Image, p: Position) -> Any:
    return (im(p + (-1, 0)) + im(p) + im(p + (1, 0))) / 3


def swap_rb(im: Image, p: Position) -> Any:
    c = im(p)
    return (c[2], c[1], c[0])


def norm(im: Image, p: Position) -> Any:
    return length(im(p) - 0.5)


def test_colour_images(backend: str) -> None:
    a = _image(19, 23, c=3)
    g = simt.compile(gray)(a)
    assert g.shape == (19, 23)
    np.testing.assert_allclose(g, a @ np.array([0.25, 0.5, 0.25], np.float32), rtol=1e-5)
    b = simt.compile(blur_x)(a)
    pad = np.pad(a, ((0, 0), (1, 1), (0, 0)), mode="edge")
    np.testing.assert_allclose(b, (pad[:, :-2] + pad[:, 1:-1] + pad[:, 2:]) / 3, rtol=1e-5)
    np.testing.assert_array_equal(simt.compile(swap_rb)(a), a[:, :, ::-1])
    np.testing.assert_allclose(
        simt.compile(norm)(a), np.sqrt(((a - 0.5) ** 2).sum(axis=2)), rtol=1e-5
    )


def shift(im: Image, p: Position) -> Any:
    return im(p + (2, -1))


def test_edge_modes(backend: str) -> None:
    a = _image(9, 11)
    f = simt.compile(shift)
    # out[y, x] = a[y - 1, x + 2] with each rule outside the image
    np.testing.assert_array_equal(f(Image(a, edge="wrap")), np.roll(a, (1, -2), axis=(0, 1)))
    zero = np.zeros_like(a)
    zero[1:, :-2] = a[:-1, 2:]
    np.testing.assert_array_equal(f(Image(a, edge="zero")), zero)
    pad = np.pad(a, 2, mode="edge")
    np.testing.assert_array_equal(f(a), pad[1:-3, 4:])


def blend(a: Image, b: Image, t: Float, p: Position) -> Any:
    return a(p) * (1 - t) + b(p) * t


def test_two_images_and_a_scalar(backend: str) -> None:
    a, b = _image(seed=1), _image(seed=2)
    np.testing.assert_allclose(simt.compile(blend)(a, b, 0.25), 0.75 * a + 0.25 * b, rtol=1e-5)
    np.testing.assert_allclose(simt.compile(blend, t=0.5)(a, b=b), (a + b) / 2, rtol=1e-5)


def test_device_arrays_in_device_arrays_out(backend: str) -> None:
    a = _image()
    d = simt.to_device(a)
    out = simt.compile(ex.scalarMul)(2.0, d)
    assert isinstance(out, simt.array.DeviceArray) and out.shape == a.shape
    np.testing.assert_allclose(out.numpy(), 2 * a, rtol=1e-6)


def test_out_argument_and_other_dtypes(backend: str) -> None:
    a = _image()
    out = np.zeros_like(a)
    f = simt.compile(ex.scalarMul)
    assert f(3.0, a, out=out) is out
    np.testing.assert_allclose(out, 3 * a, rtol=1e-6)
    np.testing.assert_allclose(f(1.0, (a * 255).astype(np.uint8)), (a * 255).astype(np.uint8))
    with pytest.raises(simt.LaunchError, match="out= of scalarMul"):
        f(1.0, a, out=np.zeros((2, 2), np.float32))


# ---------------------------------------------------------------------------- inspection
def test_the_source_shows_the_convolution_unrolled_and_folded() -> None:
    sobel = simt.compile(ex.edgeDetect, kernel=ex.sobelKernel)
    ir = sobel.ir()
    assert sum(" = load " in ln for ln in ir.splitlines()) == 9  # nine reads, shared by gx, gy
    assert " for " not in ir and "while" not in ir and "-1.0" not in ir  # x * -1 is a subtraction
    assert "2.0" in ir and "-2.0" in ir
    for backend, comment in (("sim", "#"), ("cuda", "//"), ("webgpu", "//"), ("cpu", ";")):
        # the program, without the comments that quote the user's source lines
        code = "\n".join(ln.split(comment)[0] for ln in sobel.source(backend).splitlines())
        for trace in ("zip", "ravel", "offsets", "transpose", "convolve", "list"):
            assert trace not in code, (backend, trace)


@pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")
def test_image_kernels_compile_for_cuda() -> None:
    for f, known, args in (
        (ex.edgeDetect, {"kernel": ex.sobelKernel}, ()),
        (blur_x, {}, (_image(4, 4, c=3),)),
        (blend, {}, ()),
    ):
        for arch in ("sm_80", "sm_90"):
            res = simt.compile(f, **known).resources(*args, arch=arch)
            assert res["registers"] > 0 and res["spill_stores"] == 0


# ---------------------------------------------------------------------------- errors
def test_a_compile_time_value_passed_at_the_call_is_named() -> None:
    a = _image()
    with pytest.raises(simt.CompileError, match="parameter 'kernel' of edgeDetect") as e:
        simt.compile(ex.edgeDetect)(ex.sobelKernel.tolist(), a)
    assert "simt.compile(edgeDetect, kernel=...)" in str(e.value)
    with pytest.raises(simt.CompileError, match="'kernel'"):
        simt.compile(ex.edgeDetect)(a)  # the image lands in `kernel`


def test_bad_calls() -> None:
    f = simt.compile(ex.scalarMul)
    with pytest.raises(simt.LaunchError, match="c, im"):
        f(2.0)
    with pytest.raises(simt.LaunchError, match="H x W"):
        f(2.0, np.zeros(5, np.float32))
    with pytest.raises(simt.LaunchError, match="Float"):
        f("2", _image())
    with pytest.raises(simt.LaunchError, match="edge='mirror'"):
        f(2.0, Image(_image(), edge="mirror"))
    with pytest.raises(simt.CompileError, match="no parameter named 'kernal'"):
        simt.compile(ex.edgeDetect, kernal=ex.sobelKernel)


def positions_only(p: Position) -> Any:
    return p.x


def bad_pixel(im: Image, p: Position) -> Any:
    return im(p) + "x"


def no_return(im: Image, p: Position) -> None:
    im(p)


def test_bad_image_functions() -> None:
    with pytest.raises(simt.CompileError, match="no Image parameter"):
        simt.compile(positions_only)
    with pytest.raises(simt.CompileError, match="no_return\\(\\) returns nothing"):
        simt.compile(no_return)(_image())
    with pytest.raises(simt.CompileError) as e:
        simt.compile(bad_pixel)(_image())
    assert "test_image.py" in str(e.value) and 'im(p) + "x"' in str(e.value)


def test_math_branches_and_a_decorated_image_function(backend: str) -> None:
    def gamma(im: Image, g: Float, p: Position) -> Any:
        return math.pow(im(p), g)

    @simt.kernel
    def threshold(im: Image, t: Float, p: Position) -> Any:
        if im(p) > t:
            return 1.0
        return 0.0

    def vignette(im: Image, p: Position) -> Any:
        dx = p.x / im.width - 0.5
        dy = p.y / im.height - 0.5
        return im(p) * (1 - math.sqrt(dx * dx + dy * dy))

    a = _image()
    np.testing.assert_allclose(simt.compile(gamma)(a, 2.2), a**2.2, rtol=1e-5)
    np.testing.assert_array_equal(simt.compile(threshold)(im=a, t=0.5), a > 0.5)
    y, x = np.mgrid[0 : a.shape[0], 0 : a.shape[1]]
    ref = a * (1 - np.hypot(x / a.shape[1] - 0.5, y / a.shape[0] - 0.5))
    np.testing.assert_allclose(simt.compile(vignette)(a), ref, rtol=1e-5, atol=1e-6)


def edge_with_defaults(kernel=ex.sobelKernel, im=Image, gain=1.0, p=Position):  # type: ignore[no-untyped-def]
    return gain * ex.convolve(kernel, im, p)


def test_defaults_are_used_and_markers_are_not_compared(backend: str) -> None:
    a = _image()
    f = simt.compile(edge_with_defaults)  # the matrix default is known; gain is a run-time 1.0
    assert f.args == ["im", "gain"]
    pad = np.pad(a.astype(np.float64), 1, mode="edge")
    gx = (pad[:-2, 2:] + 2 * pad[1:-1, 2:] + pad[2:, 2:]) - (
        pad[:-2, :-2] + 2 * pad[1:-1, :-2] + pad[2:, :-2]
    )
    np.testing.assert_allclose(f(a), gx, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(f(a, 2.0), 2 * gx, rtol=1e-5, atol=1e-5)
    with pytest.raises(simt.CompileError, match="images of an image function are passed"):
        simt.compile(ex.scalarMul, im=a)


def test_inspection_before_any_call_finds_the_result_channels() -> None:
    ir = simt.compile(swap_rb).ir(_image(4, 4, c=3))
    assert ir.count("store ") == 3  # a colour result: three channels stored, not none
    assert simt.compile(gray).ir(_image(4, 4, c=3)).count("store ") == 1


# ------------------------------------------------- uint8 images, normalised (normalize=True)
def _levels(v: np.ndarray) -> np.ndarray:
    """The float64 reference of a normalised write: round(v * 255) (halves up), clamped."""
    return np.floor(np.clip(v * 255.0, 0.0, 255.0) + 0.5)


def _gain_offset(c: Float, im: Image, p: Position) -> Any:
    return c * im(p) - 0.25


@pytest.mark.parametrize("shape", [(9, 11), (9, 11, 3), (9, 11, 4)], ids=["gray", "rgb", "rgba"])
def test_normalize_reads_uint8_as_unit_and_writes_levels(backend: str, shape: Any) -> None:
    a = np.random.default_rng(7).integers(0, 256, shape, dtype=np.uint8)
    f = simt.compile(_gain_offset, normalize=True)
    r = f(1.5, a)
    assert r.dtype == np.uint8 and r.shape == shape
    ref = _levels(1.5 * (a / 255.0) - 0.25)  # both clamps (below 0, above 255) are exercised
    assert ref.min() == 0 and ref.max() == 255
    assert np.abs(r.astype(np.float64) - ref).max() <= 1  # float32 vs float64 at a half
    assert np.mean(r == ref) > 0.95
    # the round trip: reading and writing back the same value gives the same image
    same = simt.compile(ex.scalarMul, normalize=True)
    np.testing.assert_array_equal(same(1.0, a), a)
    # a float32 image is read as it is, even with the option, and gives a float32 result
    unit = same(2.0, a.astype(np.float32) / 255)
    assert unit.dtype == np.float32
    np.testing.assert_allclose(unit, 2 * a.astype(np.float32) / 255, rtol=1e-6)
    # out= must then be uint8
    out = np.zeros(shape, np.uint8)
    assert same(1.0, a, out=out) is out
    np.testing.assert_array_equal(out, a)
    with pytest.raises(simt.LaunchError, match="must be a uint8"):
        same(1.0, a, out=np.zeros(shape, np.float32))


def test_normalize_sees_values_in_unit_range(backend: str) -> None:
    a = np.arange(256, dtype=np.uint8).reshape(16, 16)

    def threshold(im: Image, p: Position) -> Any:
        return 1.0 if im(p) > 0.5 else 0.0

    mask = simt.compile(threshold, normalize=True)
    np.testing.assert_array_equal(mask(a), np.where(a / 255.0 > 0.5, 255, 0))
    # without the option nothing changes: uint8 levels read as 0..255, a float32 result
    plain = simt.compile(ex.scalarMul)(1.0, a)
    assert plain.dtype == np.float32
    np.testing.assert_array_equal(plain, a)


@pytest.mark.parametrize("shape", [(9, 11), (9, 11, 3)], ids=["gray", "rgb"])
def test_normalize_takes_uint8_device_arrays(backend: str, shape: Any) -> None:
    """A uint8 photo moved to the device once (`simt.to_device`) gives a uint8 device result;
    after a NumPy call of the same function too (one specialisation for both kinds)."""
    a = np.random.default_rng(3).integers(0, 256, shape, dtype=np.uint8)
    ref = _levels(1.5 * (a / 255.0) - 0.25)
    for first_numpy in (False, True):
        f = simt.compile(_gain_offset, normalize=True)
        if first_numpy:
            assert f(1.5, a).dtype == np.uint8
        r = f(1.5, simt.to_device(a))
        assert isinstance(r, DeviceArray) and r.dtype == np.uint8 and r.shape == shape
        assert np.abs(r.numpy().astype(np.float64) - ref).max() <= 1
        out = simt.empty(shape, np.uint8)
        assert f(1.5, simt.to_device(a), out=out) is out
        np.testing.assert_array_equal(out.numpy(), r.numpy())


def test_normalize_is_an_image_function_option() -> None:
    def k(a, out):  # type: ignore[no-untyped-def]
        out[0] = a[0]

    with pytest.raises(simt.CompileError, match="normalize= is an option of image functions"):
        simt.compile(k, normalize=True)


@pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")
def test_normalised_uint8_image_functions_compile_for_cuda() -> None:
    f = simt.compile(_gain_offset, normalize=True)
    for a in (np.zeros((4, 4), np.uint8), np.zeros((4, 4, 4), np.uint8)):
        assert "255" in f.source("cuda", 1.0, a)  # the scaling is in the kernel
        assert f.resources(1.0, a, arch="sm_90")["registers"] > 0


@pytest.mark.parametrize("edge", ["clamp", "wrap", "zero"])
@pytest.mark.parametrize("shape", [(37, 45), (37, 45, 3)], ids=["gray", "rgb"])
def test_normalize_over_dask_arrays_equals_the_whole_image(
    backend: str, edge: str, shape: Any
) -> None:
    """uint8 chunks stay uint8 (no float32 copy), are read as level / 255 like the whole
    image, and the lazy uint8 result is equal to the whole-image call bit for bit."""
    da = pytest.importorskip("dask.array")

    def edges(im: Image, p: Position) -> Any:
        gx = im(p + (1, 0)) - im(p - (1, 0))
        gy = im(p + (0, 1)) - im(p - (0, 1))
        return gx * gx + gy * gy + 0.5 * im(p)

    f = simt.compile(edges, normalize=True)
    a = np.random.default_rng(5).integers(0, 256, shape, dtype=np.uint8)
    whole = f(Image(a, edge))
    lazy = f(Image(da.from_array(a, chunks=(10, 12, *shape[2:])), edge))
    assert whole.dtype == np.uint8 and lazy.dtype == np.uint8
    got = lazy.compute()
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, whole)


def test_first_calls_on_threads_learn_the_result_once() -> None:
    """dask runs a function's chunks on threads: their first calls race to learn the
    result's channels, and each must succeed. (One thread's front end cleared what another's
    had set, and that call said 'returns nothing'; the sleep widens the window the race
    needs so the test does not depend on luck.)"""
    import threading
    import time

    def lift(im: Image, p: Position) -> Any:
        return im(p) * 2.0 + 1.0

    a = np.arange(48, dtype=np.float32).reshape(6, 8)
    f = simt.compile(lift)
    compile_once = f.kernel.specialise

    def slow_specialise(*args: Any) -> Any:
        spec = compile_once(*args)
        time.sleep(0.05)  # between the front end noting the channels and their check
        return spec

    f.kernel.specialise = slow_specialise  # type: ignore[method-assign]
    got: list[Any] = []

    def call() -> None:
        try:
            with simt.using("sim"):
                got.append(f(a))
        except Exception as e:  # noqa: BLE001 - collected and asserted below
            got.append(e)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 4
    for g in got:
        assert not isinstance(g, Exception), g
        np.testing.assert_array_equal(g, a * 2.0 + 1.0)


def test_bad_images_and_outputs_say_what_is_wrong() -> None:
    """Issue 26: out= of the wrong dtype did not say the dtype was wrong; a complex image was
    made real with a ComplexWarning."""
    simt.use("sim")

    def twice(im: Image, p: Position):
        return im(p) * 2

    f = simt.compile(twice)
    with pytest.raises(simt.LaunchError, match=r"it has dtype float64, not float32$"):
        f(np.ones((4, 4)), out=np.zeros((4, 4)))
    with pytest.raises(simt.LaunchError, match=r"it has shape \(3, 4\), not \(4, 4\)$"):
        f(np.ones((4, 4)), out=np.zeros((3, 4), np.float32))
    with pytest.raises(simt.LaunchError, match="is complex; images hold real numbers: pass"):
        f(np.ones((4, 4), np.complex64))
    with pytest.raises(simt.LaunchError, match="is of dtype <U1; images hold real numbers"):
        f(np.full((4, 4), "a"))
