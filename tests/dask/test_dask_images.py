"""Image functions over dask arrays (`simt.dask.images`): lazily built with `map_overlap`,
equal bit for bit to the whole-image call, on the synchronous scheduler (the cluster runs are
in test_dask_cluster.py)."""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
import dask  # noqa: E402
import simt  # noqa: E402
import simt.imagefn  # noqa: E402
from simt.dask import halo  # noqa: E402
from simt.image import Color, Float, Image, Position  # noqa: E402
from simt.runtime import nvrtc, registry  # noqa: E402
from spawn_env import pythonpath  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("simt_example_sobel", ROOT / "examples" / "sobel.py")
assert _spec is not None and _spec.loader is not None
ex = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("simt_example_sobel", ex)
_spec.loader.exec_module(ex)
sobel = simt.compile(ex.edgeDetect, kernel=ex.sobelKernel)


@pytest.fixture(autouse=True)
def synchronous() -> Any:
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.fixture(params=["cpu", "sim", "webgpu"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    ok, why = registry.probe(request.param)
    if not ok:
        pytest.skip(f"backend {request.param!r} not present: {why}")
    simt.use(request.param)
    return str(request.param)


def _image(h: int, w: int, c: int | None = None, seed: int = 0) -> np.ndarray:
    shape = (h, w) if c is None else (h, w, c)
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


def vignette(c: Float, im: Image, p: Position) -> Any:
    """Uses the pixel's position and the image's size, not only its reads."""
    dx = p.x - im.width / 2
    dy = p.y - im.height / 2
    return c * im(p + (1, -2)) * math.exp(-(dx * dx + dy * dy) / 400.0)


def to_colour(im: Image, other: Image, p: Position) -> Any:
    return Color(im(p), other(p + (0, 3)), im(p - (2, 0)))


def to_grey(im: Image, p: Position) -> Any:
    c = im(p + (1, 1))
    return c[0] + c[1] * 2.0


def mirror(im: Image, p: Position) -> Any:
    return im(Position(im.width - 1 - p.x, p.y))


def shift(n: int, im: Image, p: Position) -> Any:
    return im(p + (n, 0))


# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("edge", ["clamp", "wrap", "zero"])
@pytest.mark.parametrize("chunks", [(10, 17), (7, 5), (37, 53)])
def test_sobel_on_dask_equals_the_whole_image_bit_for_bit(
    backend: str, edge: str, chunks: tuple[int, int]
) -> None:
    a = _image(37, 53)
    edges = sobel(Image(da.from_array(a, chunks=chunks), edge=edge))
    assert isinstance(edges, da.Array) and edges.dtype == np.float32
    assert edges.chunks[0][0] == chunks[0] and edges.shape == a.shape
    np.testing.assert_array_equal(edges.compute(), sobel(Image(a, edge=edge)))


@pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")
def test_chunk_kernels_compile_for_cuda() -> None:
    from simt.dask.chunk import ChunkImageFunction

    grey, colour = np.zeros((8, 8), np.float32), np.zeros((8, 8, 3), np.float32)
    for f, known, args in (
        (ex.edgeDetect, {"kernel": ex.sobelKernel}, (grey,)),
        (to_colour, {}, (grey, Image(grey, "wrap"))),
        (to_grey, {}, (Image(colour, "zero"),)),
    ):
        chunked = ChunkImageFunction(f, known, {})
        for arch in ("sm_80", "sm_90"):
            res = chunked.resources(*args, arch=arch)
            assert res["registers"] > 0 and res["spill_stores"] == 0


def test_nothing_runs_until_compute(monkeypatch: pytest.MonkeyPatch) -> None:
    from simt.dask.chunk import ChunkImageFunction

    runs: list[int] = []
    real = ChunkImageFunction.run
    monkeypatch.setattr(ChunkImageFunction, "run", lambda *a, **k: runs.append(1) or real(*a, **k))
    lazy = sobel(da.from_array(_image(30, 30), chunks=10))
    assert runs == []
    lazy.compute()
    assert len(runs) == 9 * 5  # per chunk: the chunk from itself, then its four border bands


@pytest.mark.parametrize("edge", ["clamp", "wrap", "zero"])
def test_position_and_size_are_the_whole_images(edge: str) -> None:
    a = _image(41, 29, seed=1)
    f = simt.compile(vignette)
    got = f(0.5, Image(da.from_array(a, chunks=(7, 9)), edge)).compute()
    np.testing.assert_array_equal(got, f(0.5, Image(a, edge)))


def test_colour_results_and_two_images_chunked_differently() -> None:
    a, b = _image(41, 29, seed=2), _image(41, 29, seed=3)
    f = simt.compile(to_colour)
    lazy = f(da.from_array(a, chunks=(7, 9)), Image(da.from_array(b, chunks=(11, 5)), "wrap"))
    assert lazy.shape == (41, 29, 3) and lazy.chunks[2] == (3,)
    np.testing.assert_array_equal(lazy.compute(), f(a, Image(b, "wrap")))
    # a NumPy image next to a dask one is chunked like it
    np.testing.assert_array_equal(f(da.from_array(a, chunks=8), b).compute(), f(a, b))


@pytest.mark.parametrize("edge", ["clamp", "wrap", "zero"])
@pytest.mark.parametrize("chunks", [(16, 20), (13, 11), (5, 6)])
def test_wide_reach_and_two_images_with_their_own_halos(edge: str, chunks: tuple[int, int]) -> None:
    def box(im: Image, p: Position) -> Any:  # reaches 3 rows up, 2 columns either side
        return sum([im(p + (dx, dy)) * (1.0 + dx * 0.1 + dy * 0.01)
                    for dx in range(-2, 3) for dy in range(-3, 2)])  # fmt: skip

    other = "zero" if edge == "wrap" else "wrap"
    a, b = _image(64, 80, seed=5), _image(64, 80, seed=6)
    f, g = simt.compile(box), simt.compile(to_colour)
    d, e = da.from_array(a, chunks=chunks), da.from_array(b, chunks=chunks)
    np.testing.assert_array_equal(f(Image(d, edge)).compute(), f(Image(a, edge)))
    np.testing.assert_array_equal(
        g(Image(d, edge), Image(e, other)).compute(), g(Image(a, edge), Image(b, other))
    )


def distinct_right(im: Image, p: Position) -> Any:
    """Fails where a pixel would read itself as its right neighbour: only at the image's
    right edge (where the clamp makes it so, and which it allows)."""
    assert im(p + (1, 0)) != im(p) or p.x == im.width - 1, "read itself"
    return im(p + (1, 0)) - im(p)


def test_no_pixel_is_computed_from_reads_clamped_at_a_chunk_edge() -> None:
    a = _image(40, 50, seed=8)  # all values distinct
    f = simt.compile(distinct_right)
    got = f(da.from_array(a, chunks=(13, 11))).compute()  # raises if a chunk edge clamped
    np.testing.assert_array_equal(got, f(a))


def test_colour_in_grey_out() -> None:
    c = _image(23, 31, 3, seed=4)
    f = simt.compile(to_grey)
    lazy = f(da.from_array(c, chunks=(7, 9, 2)))  # channels chunked: made whole
    assert lazy.shape == (23, 31)
    np.testing.assert_array_equal(lazy.compute(), f(c))


def test_the_halo_is_the_largest_offset_read() -> None:
    from simt.dask.images import _reach

    def reach(f: Any, *args: Any) -> Any:
        imf = f if isinstance(f, simt.imagefn.ImageFunction) else simt.compile(f)
        return _reach(imf, imf.bind(args, {}))

    img = Image(np.zeros((8, 8), np.float32))
    assert reach(sobel, img) == {"im": (1, 1)}
    assert reach(sobel, Image(np.zeros((8, 8), np.float32), "wrap")) == {"im": (1, 1)}
    assert reach(to_grey, Image(np.zeros((8, 8, 3), np.float32), "zero")) == {"im": (1, 1)}
    assert reach(to_colour, img, img) == {"im": (0, 2), "other": (3, 0)}
    assert reach(vignette, 1.0, img) == {"im": (2, 1)}
    assert reach(mirror, img) == {"im": None}
    assert reach(shift, 3, img) == {"im": None}  # a run-time offset
    assert halo._base("_simt_x") == "_simt_x" and halo._base("x") is None


def test_unknown_offsets_ask_for_halo() -> None:
    a = _image(20, 30)
    f = simt.compile(mirror)
    with pytest.raises(simt.CompileError, match=r"halo=") as e:
        f(da.from_array(a, chunks=(10, 7)))
    assert "test_dask_images.py" in str(e.value) and "def mirror" in str(e.value)
    # given, it is used: one chunk per row holds the whole width
    np.testing.assert_array_equal(f(da.from_array(a, chunks=(7, 30)), halo=0).compute(), f(a))
    g = simt.compile(shift)
    np.testing.assert_array_equal(
        g(3, da.from_array(a, chunks=(6, 8)), halo=(0, 3)).compute(), g(3, a)
    )
    with pytest.raises(simt.LaunchError, match="halo="):
        g(3, da.from_array(a, chunks=8), halo=-1)


def test_bad_calls_are_clear() -> None:
    d = da.from_array(_image(20, 30), chunks=10)
    with pytest.raises(simt.LaunchError, match="out="):
        sobel(d, out=np.empty((20, 30), np.float32))
    f = simt.compile(to_colour)
    with pytest.raises(simt.LaunchError, match="first one's size"):
        f(d, da.from_array(_image(21, 30), chunks=10))
    with pytest.raises(simt.LaunchError, match="edge="):
        sobel(Image(d, edge="mirror"))


def test_import_simt_never_imports_dask_and_no_extra_is_a_clear_message() -> None:
    code = (
        "import sys; import simt; assert 'dask' not in sys.modules, 'dask imported';"
        "sys.modules['dask'] = None\n"  # as if the extra were not installed
        "try:\n    simt.map_blocks(None, block=1)\n"
        "except simt.BackendUnavailable as e:\n    print(e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
        env={**__import__("os").environ, "PYTHONPATH": pythonpath()},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "pip install 'simt[dask]'" in out.stdout
