"""Image functions over dask arrays: `sobel(photo)` with `photo` a dask array.

The result is a lazy dask array with the chunks of the first image. Each chunk needs the
pixels of its neighbours as far as the function reads away from its pixel: the halo, found in
its IR (`simt.dask.halo`). The graph is `dask.array.map_overlap`'s halo exchange, with one
difference that saves a copy of every chunk:

- like `map_overlap`, each chunk's neighbours contribute thin strips (sliced where they live,
  so only the strips travel), and past the image's border the strips are what the image's
  edge mode reads there: clamp -> the edge pixels repeated (`boundary="nearest"`), wrap -> the
  opposite side's (`"periodic"`), zero -> zeros (`0`);
- unlike it, the strips are not concatenated around the chunk (a copy of the whole chunk per
  task): simt computes the inside of the chunk (whose reads stay in it) from the chunk itself,
  and the thin border within the halo of its edges from small bands made of the chunk's edge
  and the strips, each written in place into the result.

Each pixel is computed by the same float operations as in a whole-image call
(`simt.dask.chunk`), so the result is equal bit for bit.
"""

from __future__ import annotations

import itertools
import linecache
import uuid
import weakref
from typing import Any

import numpy as np

from ..errors import CompileError, LaunchError
from ..foreign import is_dask as _foreign_dask
from ..image import EDGES, Image
from ..imagefn import FLOAT, IMAGE, ImageFunction, argument_kind, is_number
from ..kernel import bind_arguments
from ..runtime import registry
from . import shipping
from .chunk import ChunkImageFunction

_F32 = np.dtype(np.float32)
BOUNDARY = {"clamp": "nearest", "wrap": "periodic", "zero": 0.0}  # (dask's names for them)
# the eight neighbours of a chunk, in the order the task receives their strips
AROUND = [(di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1) if (di, dj) != (0, 0)]


def is_dask(v: Any) -> bool:
    """Whether `v` (or the array inside a `simt.image.Image`) is a dask collection."""
    return _foreign_dask(v.data if isinstance(v, Image) else v)


def _build(
    fn_ref: shipping.FunctionRef,
    known: Any,
    fp64: bool,
    debug: Any,
    normalize: bool = False,
    boundscheck: bool = True,
) -> Any:
    return ChunkImageFunction(fn_ref.load(), known, fp64=fp64, debug=debug, normalize=normalize,
                              boundscheck=boundscheck)  # fmt: skip


_reaches: weakref.WeakKeyDictionary[Any, dict[Any, Any]] = weakref.WeakKeyDictionary()


def _reach(imf: ImageFunction, examples: dict[str, Any]) -> dict[str, tuple[int, int] | None]:
    """How far each image parameter is read from the pixel (None: not known); found once per
    image function and kinds of arguments."""
    sig = tuple(argument_kind(examples[n]) for n in imf.args)
    per = _reaches.setdefault(imf, {})
    if sig not in per:
        per[sig] = _find_reach(imf, examples)
    return per[sig]  # type: ignore[no-any-return]


def _find_reach(imf: ImageFunction, examples: dict[str, Any]) -> dict[str, tuple[int, int] | None]:
    from .halo import image_reach

    bound = imf.bind((), examples)
    vals = imf.kernel_values(bound, np.empty((1, 1), np.float32))
    n = imf.result_channels(bound, compile=False)
    vals[0] = np.empty((1, 1) if n == 0 else (1, 1, n), imf.out_dtype(bound))
    return image_reach(imf.kernel.specialised_ir(*vals)[0], imf.images)


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


class _Around:
    """One image's chunk and the strips of its neighbours, as one task sees them; `part`
    gives any rectangle of the halo-padded chunk (rows -hy .. h+hy, columns -hx .. w+hx)."""

    def __init__(
        self, center: np.ndarray, strips: list[Any], halo: tuple[int, int], edge: str,
        inside: dict[tuple[int, int], bool],
    ) -> None:  # fmt: skip
        # float32, or uint8 levels of a function compiled with normalize=True
        self.c = np.asarray(center)
        self.strips = {d: (None if s is None else np.asarray(s, self.c.dtype))
                       for d, s in zip(AROUND, strips)}  # fmt: skip
        self.hy, self.hx = halo
        self.edge = edge
        self.inside = inside  # whether the neighbour in that direction is in the image
        self.h, self.w = self.c.shape[:2]

    def piece(self, di: int, dj: int) -> np.ndarray:
        """The part of the padded chunk beside the chunk in direction (di, dj)."""
        if (di, dj) == (0, 0):
            return self.c
        got = self.strips.get((di, dj))
        if got is not None:
            return got
        rows = self.h if di == 0 else self.hy
        cols = self.w if dj == 0 else self.hx
        if self.edge == "zero":
            return np.zeros((rows, cols, *self.c.shape[2:]), self.c.dtype)
        # clamp: the nearest pixels inside the image, repeated outwards
        si = di if self.inside[(di, 0)] else 0
        sj = dj if self.inside[(0, dj)] else 0
        base = self.piece(si, sj)
        if si != di:
            base = np.repeat(base[:1] if di < 0 else base[-1:], rows, axis=0)
        if sj != dj:
            base = np.repeat(base[:, :1] if dj < 0 else base[:, -1:], cols, axis=1)
        return base

    def part(self, r0: int, r1: int, c0: int, c1: int) -> np.ndarray:
        """Rows r0..r1 and columns c0..c1 of the padded chunk, in chunk coordinates."""
        bands = ((-1, -self.hy, 0), (0, 0, self.h), (1, self.h, self.h + self.hy))
        stacks = ((-1, -self.hx, 0), (0, 0, self.w), (1, self.w, self.w + self.hx))
        rows = []
        for di, a, b in bands:
            lo, hi = max(r0, a), min(r1, b)
            if lo >= hi:
                continue
            cols = []
            for dj, c, d in stacks:
                left, right = max(c0, c), min(c1, d)
                if left < right:
                    cols.append(self.piece(di, dj)[lo - a : hi - a, left - c : right - c])
            rows.append(cols[0] if len(cols) == 1 else np.concatenate(cols, axis=1))
        return rows[0] if len(rows) == 1 else np.concatenate(rows, axis=0)


class _ImageChunks:
    """The task run on each chunk: the chunk computed from itself, then its border from the
    neighbours' strips."""

    def __init__(
        self, recipe: shipping.Recipe, names: list[str], scalars: dict[str, Any],
        edges: dict[str, str], halos: dict[str, tuple[int, int]],
        chunks: tuple[tuple[int, ...], ...], backend: str, fname: str,
        dtype: np.dtype[Any] = _F32,
    ) -> None:  # fmt: skip
        self.recipe = recipe
        self.names = names  # the image parameters, in the order of the blocks
        self.scalars = scalars
        self.edges = edges
        self.halos = halos
        self.starts = [tuple(itertools.accumulate(c, initial=0)) for c in chunks[:2]]
        self.chunks = chunks
        self.size = (sum(chunks[0]), sum(chunks[1]))
        self.backend = backend
        self.fname = fname
        self.dtype = dtype  # of the result: float32, or uint8 (normalize=True on uint8)
        self.uid = uuid.uuid4().hex

    def __dask_tokenize__(self) -> str:
        return self.uid  # a new task each call (its recipe and values are not hashed)

    def __call__(self, block: tuple[int, int], images: list[list[Any]]) -> np.ndarray:
        i, j = block

        def run() -> np.ndarray:
            shipping.use_backend(self.backend)
            fn: ChunkImageFunction = shipping.built(self.recipe)
            grid = (len(self.chunks[0]), len(self.chunks[1]))
            inside = {(di, dj): 0 <= i + di < grid[0] and 0 <= j + dj < grid[1]
                      for di in (-1, 0, 1) for dj in (-1, 0, 1)}  # fmt: skip
            around = {
                n: _Around(c, strips, self.halos[n], self.edges[n], inside)
                for n, (c, strips) in zip(self.names, images)
            }
            r0, c0 = self.starts[0][i], self.starts[1][j]
            h, w = self.chunks[0][i], self.chunks[1][j]
            hy = max(a.hy for a in around.values())
            hx = max(a.hx for a in around.values())

            def rect(rows: tuple[int, int], cols: tuple[int, int], out: Any = None) -> Any:
                """Result rows and columns (chunk coordinates) from the padded parts they read
                (into `out` when given)."""
                values: dict[str, Any] = dict(self.scalars)
                starts = {}
                for n, a in around.items():
                    values[n] = Image(
                        a.part(rows[0] - a.hy, rows[1] + a.hy, cols[0] - a.hx, cols[1] + a.hx),
                        self.edges[n],
                    )
                    starts[n] = (r0 + rows[0] - a.hy, c0 + cols[0] - a.hx)
                shape = (rows[1] - rows[0], cols[1] - cols[0])
                origin = (r0 + rows[0], c0 + cols[0])
                return fn.run(values, origin, self.size, shape, starts, out=out)

            if h <= 2 * hy or w <= 2 * hx:  # a thin chunk: all of it from the padded chunk
                return rect((0, h), (0, w))  # type: ignore[no-any-return]
            # the inside of the chunk from the chunk itself (its reads stay in it), written in
            # place; then the border within the halo of its edges from bands of the strips
            inner: dict[str, Any] = dict(self.scalars)
            inner.update({n: Image(a.c, self.edges[n]) for n, a in around.items()})
            nch = fn.channels(inner)
            out = np.empty((h, w) if nch == 0 else (h, w, nch), self.dtype)
            fn.run(inner, (r0 + hy, c0 + hx), self.size, (h - 2 * hy, w - 2 * hx),
                   {n: (r0, c0) for n in around}, out=out[hy : h - hy, hx : w - hx])  # fmt: skip
            if hy:
                rect((0, hy), (0, w), out[:hy])
                rect((h - hy, h), (0, w), out[h - hy :])
            if hx:
                rect((hy, h - hy), (0, hx), out[hy : h - hy, :hx])
                rect((hy, h - hy), (w - hx, w), out[hy : h - hy, w - hx :])
            return out

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
        if v.dtype != np.float32 and not (imf.normalize and v.dtype == np.uint8):
            v = v.astype(np.float32)  # uint8 stays uint8 under normalize=True (read as / 255)
        arrays[n], edges[n] = v, edge
    scalars: dict[str, Any] = {}
    for n in imf.args:
        if imf.kinds[n] == IMAGE:
            continue
        v = values[n]
        if not is_number(v):
            raise LaunchError(
                f"argument {n!r} of {imf.__name__}() is a {type(v).__name__}; with dask "
                "images, the other arguments are numbers (give other values to simt.compile)"
            )
        scalars[n] = np.float32(v) if imf.kinds[n] == FLOAT else v

    # how far each image is read: the halo of its chunks
    examples: dict[str, Any] = dict(scalars)
    for n, a in arrays.items():
        shape = (8, 8) if a.ndim == 2 else (8, 8, a.shape[2])
        examples[n] = Image(np.zeros(shape, a.dtype), edges[n])
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
    channels = imf.result_channels(imf.bind((), examples), compile=False)
    dtype = imf.out_dtype(imf.bind((), examples))

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
    recipe = shipping.recipe_for(
        imf, None,
        lambda: shipping.Recipe(
            _build, shipping.ref(imf.fn), _known(imf), _fp64(imf), imf.kernel.debug,
            imf.normalize, imf.kernel.boundscheck,
        ),
    )  # fmt: skip
    task = _ImageChunks(
        recipe, names, scalars, edges, halos, out_chunks, registry.current().name, imf.__name__,
        dtype,
    )  # fmt: skip
    return _halo_graph(task, [arrays[n] for n in names], [halos[n] for n in names],
                       [edges[n] for n in names], out_chunks, imf.__name__)  # fmt: skip


def _strip(chunk: np.ndarray, rows: slice, cols: slice) -> np.ndarray:
    """A neighbour's strip, copied: a view would keep (and ship) the whole chunk."""
    return np.ascontiguousarray(chunk[rows, cols])


def _halo_graph(
    task: _ImageChunks, arrays: list[Any], halos: list[tuple[int, int]], edges: list[str],
    out_chunks: tuple[tuple[int, ...], ...], fname: str,
) -> Any:  # fmt: skip
    """The dask array of `task` over the chunks: each task reads its chunk of every image and
    the strips of the neighbours its halo reaches (sliced where they live)."""
    import dask.array as da
    from dask.highlevelgraph import HighLevelGraph

    rows, cols = len(out_chunks[0]), len(out_chunks[1])
    uid = task.uid[:12]
    out_name = f"simt-{fname}-{uid}"
    strip_name = f"simt-halo-{fname}-{uid}"
    dsk: dict[Any, Any] = {}
    for i in range(rows):
        for j in range(cols):
            images = []
            for k, (a, (hy, hx), edge) in enumerate(zip(arrays, halos, edges)):
                extra = (0,) if a.ndim == 3 else ()
                strips: list[Any] = []
                for di, dj in AROUND:
                    ni, nj = i + di, j + dj
                    if (di and not hy) or (dj and not hx):
                        strips.append(None)  # not read
                        continue
                    if edge == "wrap":
                        ni, nj = ni % rows, nj % cols
                    elif not (0 <= ni < rows and 0 <= nj < cols):
                        strips.append(None)  # past the border: made from the edge mode
                        continue
                    rs = slice(None) if di == 0 else slice(-hy, None) if di < 0 else slice(0, hy)
                    cs = slice(None) if dj == 0 else slice(-hx, None) if dj < 0 else slice(0, hx)
                    key = (strip_name, k, i, j, di, dj)
                    dsk[key] = (_strip, (a.name, ni, nj, *extra), rs, cs)
                    strips.append(key)
                images.append([(a.name, i, j, *extra), strips])
            out_key = (out_name, i, j) + ((0,) if len(out_chunks) == 3 else ())
            dsk[out_key] = (task, (i, j), images)
    graph = HighLevelGraph.from_collections(out_name, dsk, dependencies=arrays)
    meta = np.empty((0,) * len(out_chunks), task.dtype)
    return da.Array(graph, out_name, out_chunks, meta=meta)


def _known(imf: ImageFunction) -> dict[str, Any]:
    return {n: v for n, v in imf.kernel.known.items()}


def _fp64(imf: ImageFunction) -> bool:
    return imf.kernel.fp64
