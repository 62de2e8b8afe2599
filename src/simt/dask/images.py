"""Image functions over dask arrays: `sobel(photo)` with `photo` a dask array.

The result is a lazy dask array built with `dask.array.map_overlap`: each chunk of the
result is computed by simt from the matching chunk of each image, padded by a halo as deep as
the function reads away from its pixel (found in its IR, `simt.dask.halo`), filled by dask from
the neighbouring chunks and, past the image's border, by the image's edge mode: clamp ->
`boundary="nearest"`, wrap -> `"periodic"`, zero -> `0`. Each pixel is then computed by the
same float operations as in a whole-image call (`simt.dask.chunk`), so the result is equal bit
for bit.
"""

from __future__ import annotations

import itertools
import linecache
import uuid
import weakref
from typing import Any

import numpy as np

from ..errors import CompileError, LaunchError
from ..image import EDGES, Image
from ..imagefn import FLOAT, IMAGE, ImageFunction, _is_dask, _is_number, _kind
from ..kernel import bind_arguments
from ..runtime import registry
from . import shipping
from .chunk import ChunkImageFunction

BOUNDARY = {"clamp": "nearest", "wrap": "periodic", "zero": 0.0}


def is_dask(v: Any) -> bool:
    """Whether `v` (or the array inside a `simt.image.Image`) is a dask collection."""
    return _is_dask(v)


def _build(fn_ref: shipping.FunctionRef, known: Any, halos: Any, fp64: bool, debug: Any) -> Any:
    return ChunkImageFunction(fn_ref.load(), known, halos, fp64=fp64, debug=debug)


_reaches: weakref.WeakKeyDictionary[Any, dict[Any, Any]] = weakref.WeakKeyDictionary()


def _reach(imf: ImageFunction, examples: dict[str, Any]) -> dict[str, tuple[int, int] | None]:
    """How far each image parameter is read from the pixel (None: not known); found once per
    image function and kinds of arguments."""
    sig = tuple(_kind(examples[n]) for n in imf.args)
    per = _reaches.setdefault(imf, {})
    if sig not in per:
        per[sig] = _find_reach(imf, examples)
    return per[sig]  # type: ignore[no-any-return]


def _find_reach(imf: ImageFunction, examples: dict[str, Any]) -> dict[str, tuple[int, int] | None]:
    from .halo import image_reach

    vals = imf._values(imf._bind((), examples), np.empty((1, 1), np.float32))
    n = imf._result_channels(imf._bind((), examples), compile=False)
    vals[0] = np.empty((1, 1) if n == 0 else (1, 1, n), np.float32)
    kern = imf.kernel
    specs, _ = kern._specs(kern._bind(tuple(vals), {}))
    return image_reach(kern._ir(specs), imf.images)


def _halo_arg(fname: str, halo: Any) -> tuple[int, int]:
    if isinstance(halo, (int, np.integer)) and not isinstance(halo, bool) and halo >= 0:
        return (int(halo), int(halo))
    if (
        isinstance(halo, tuple)
        and len(halo) == 2
        and all(isinstance(h, (int, np.integer)) and h >= 0 for h in halo)
    ):
        return (int(halo[0]), int(halo[1]))
    raise LaunchError(
        f"halo= of {fname}() must be an int >= 0 or a (rows, columns) pair, got {halo!r}"
    )


class _ImageChunks:
    """The task run on each chunk: the chunk's origin from its block id, simt on the chunk."""

    def __init__(
        self, recipe: shipping.Recipe, names: list[str], scalars: dict[str, Any],
        edges: dict[str, str], chunks: tuple[tuple[int, ...], ...], backend: str, fname: str,
    ) -> None:  # fmt: skip
        self.recipe = recipe
        self.names = names  # the image parameters, in the order of the blocks
        self.scalars = scalars
        self.edges = edges
        self.starts = [tuple(itertools.accumulate(c, initial=0)) for c in chunks[:2]]
        self.chunks = chunks
        self.size = (sum(chunks[0]), sum(chunks[1]))
        self.backend = backend
        self.fname = fname
        self.uid = uuid.uuid4().hex

    def __dask_tokenize__(self) -> str:
        return self.uid  # a new task each call (its recipe and values are not hashed)

    def __call__(self, *blocks: np.ndarray, block_id: tuple[int, ...] = (0, 0)) -> np.ndarray:
        i, j = block_id[0], block_id[1]

        def run() -> np.ndarray:
            shipping.use_backend(self.backend)
            fn: ChunkImageFunction = shipping.built(self.recipe)
            values: dict[str, Any] = dict(self.scalars)
            for n, b in zip(self.names, blocks):
                values[n] = Image(np.asarray(b, np.float32), self.edges[n])
            return fn.run(
                values, (self.starts[0][i], self.starts[1][j]), self.size,
                (self.chunks[0][i], self.chunks[1][j]),
            )  # fmt: skip

        return shipping.in_chunk(f"{self.fname}()", (i, j), run)  # type: ignore[no-any-return]


def image_call(imf: ImageFunction, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """`imf(*args, **kwargs)` where some image is a dask array: a lazy dask array."""
    import dask.array as da
    from dask.array.overlap import ensure_minimum_chunksize

    halo = kwargs.pop("halo", None) if "halo" not in imf.args else None
    if kwargs.get("out") is not None:
        raise LaunchError(
            f"out= of {imf.__name__}() cannot be used with dask arrays: the result is a new "
            "(lazy) dask array; store it with .to_zarr(...) or .compute()"
        )
    kwargs.pop("out", None)
    values = bind_arguments(imf.__name__, imf.args, args, kwargs)
    for n in imf.args:
        if n not in values and n in imf.defaults:
            values[n] = imf.defaults[n]
    missing = [n for n in imf.args if n not in values]
    if missing:
        raise LaunchError(f"{imf.__name__}() is missing {', '.join(missing)}")

    # the images: dask arrays of one size, chunked alike, float32, channels in one chunk
    arrays: dict[str, Any] = {}
    edges: dict[str, str] = {}
    first = next(n for n in imf.images if is_dask(values[n]))
    lead = values[first].data if isinstance(values[first], Image) else values[first]
    for n in imf.images:
        v, edge = values[n], "clamp"
        if isinstance(v, Image):
            v, edge = v.data, v.edge
        if edge not in EDGES:
            raise LaunchError(
                f"image {n!r} of {imf.__name__}() has edge={edge!r}; use one of {', '.join(EDGES)}"
            )
        if not is_dask(v):
            v = np.asarray(v)
            if v.shape[:2] != lead.shape[:2]:
                raise LaunchError(
                    f"image {n!r} of {imf.__name__}() is {v.shape[:2]} but {first!r} is "
                    f"{lead.shape[:2]}: with dask arrays, every image has the first one's size"
                )
            v = da.from_array(v, chunks=lead.chunks[:2] + ((v.shape[2],) if v.ndim == 3 else ()))
        if v.ndim not in (2, 3) or 0 in v.shape:
            raise LaunchError(
                f"image {n!r} of {imf.__name__}() has shape {v.shape}; an image is H x W "
                "(grey) or H x W x C (colour)"
            )
        if v.shape[:2] != lead.shape[:2]:
            raise LaunchError(
                f"image {n!r} of {imf.__name__}() is {v.shape[:2]} but {first!r} is "
                f"{lead.shape[:2]}: with dask arrays, every image has the first one's size"
            )
        if v.dtype != np.float32:
            v = v.astype(np.float32)
        arrays[n], edges[n] = v, edge
    scalars: dict[str, Any] = {}
    for n in imf.args:
        if imf.kinds[n] == IMAGE:
            continue
        v = values[n]
        if not _is_number(v):
            raise LaunchError(
                f"argument {n!r} of {imf.__name__}() is a {type(v).__name__}; with dask "
                "images, the other arguments are numbers (give other values to simt.compile)"
            )
        scalars[n] = np.float32(v) if imf.kinds[n] == FLOAT else v

    # how far each image is read: the halo of its chunks
    examples: dict[str, Any] = dict(scalars)
    for n, a in arrays.items():
        shape = (8, 8) if a.ndim == 2 else (8, 8, a.shape[2])
        examples[n] = Image(np.zeros(shape, np.float32), edges[n])
    if halo is not None:
        given = _halo_arg(imf.__name__, halo)
        halos = {n: given for n in arrays}
    else:
        reach = _reach(imf, examples)
        unknown = [n for n, r in reach.items() if r is None]
        if unknown:
            code = imf.fn.__code__
            raise CompileError(
                f"{imf.__name__}() reads image {unknown[0]!r} at positions that are not the "
                "pixel's plus an offset known at compile time, so simt cannot tell how much "
                "of the neighbouring chunks each chunk of a dask array needs",
                filename=code.co_filename,
                line=code.co_firstlineno,
                source_line=linecache.getline(code.co_filename, code.co_firstlineno),
                hint=f"pass the largest distance it reads away from the pixel: "
                f"{imf.__name__}(..., halo=N) or halo=(rows, columns)",
            )
        halos = {n: r for n, r in reach.items() if r is not None}
    channels = imf._result_channels(imf._bind((), examples), compile=False)

    # one chunking for all: at least as deep as the halo, channels whole
    deepest = (max(h[0] for h in halos.values()), max(h[1] for h in halos.values()))
    lead = arrays[first]
    chunks2 = (
        ensure_minimum_chunksize(deepest[0], lead.chunks[0]),
        ensure_minimum_chunksize(deepest[1], lead.chunks[1]),
    )
    for n, a in arrays.items():
        want = chunks2 + ((a.shape[2],) if a.ndim == 3 else ())
        if a.chunks != want:
            arrays[n] = a.rechunk(want)
    out_chunks = chunks2 + (((channels,),) if channels else ())
    names = list(arrays)
    depth = [{0: halos[n][0], 1: halos[n][1], **({2: 0} if arrays[n].ndim == 3 else {})}
             for n in names]  # fmt: skip
    boundary = [
        {0: BOUNDARY[edges[n]], 1: BOUNDARY[edges[n]],
         **({2: "none"} if arrays[n].ndim == 3 else {})}
        for n in names
    ]  # fmt: skip
    recipe = shipping.recipe_for(
        imf, tuple(sorted(halos.items())),
        lambda: shipping.Recipe(
            _build, shipping.ref(imf.fn), _known(imf), halos, _fp64(imf), imf.kernel.debug
        ),
    )  # fmt: skip
    task = _ImageChunks(
        recipe, names, scalars, edges, out_chunks, registry.current().name, imf.__name__
    )
    meta = np.empty((0,) * len(out_chunks), np.float32)
    axes: dict[str, Any] = {}
    if arrays[names[0]].ndim == 3 and not channels:
        axes["drop_axis"] = [2]  # colour in, grey out
    elif arrays[names[0]].ndim == 2 and channels:
        axes["new_axis"] = [2]  # grey in, colour out
    return da.map_overlap(
        task, *[arrays[n] for n in names], depth=depth, boundary=boundary, trim=False,
        chunks=out_chunks, dtype=np.float32, meta=meta, allow_rechunk=False,
        align_arrays=False, token=f"simt-{imf.__name__}", **axes,
    )  # fmt: skip


def _known(imf: ImageFunction) -> dict[str, Any]:
    return {n: v for n, v in imf.kernel.known.items()}


def _fp64(imf: ImageFunction) -> bool:
    return imf.kernel.fp64
