"""`simt.map_blocks(kernel, *args, block=..., halo=0)`: a GPU-style kernel once per chunk.

Each chunk of the dask arrays among `args` is launched as the kernel's whole array (as
`dask.array.map_blocks` does), with a grid of `block`-sized blocks covering it: block `x`
covers the chunk's last axis, `y` the one before, `z` the one before that (the `a[y, x]`
convention of CUDA and of simt's image functions). Numbers and NumPy arrays among `args` are
passed to every chunk as they are. The kernel's result is the dask-array argument it writes:
simt's written-argument analysis (`simt.passes.written`) finds it; `out=` names it (by
parameter name or position) when the kernel writes several. Every chunk the kernel writes is
a copy, never dask's (or the user's NumPy) data.

A kernel that needs its chunk's place in the whole array takes it as an argument:
pass `simt.dask.chunk_offset(axis)` and each chunk receives the global index of its first
element along `axis` (of its halo-padded array when `halo` is given).

`halo=N` (or one depth per axis) runs through `dask.array.map_overlap`: each chunk arrives
with N elements of its neighbours on each side, the result is trimmed back;
`boundary="none"` (the default) leaves the array's own edges unpadded, so the kernel sees the
true edge there and treats it as it does on a whole array.
"""

from __future__ import annotations

import itertools
import uuid
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import LaunchError, SimtError, user_facing
from ..kernel import Kernel, bind_arguments
from ..passes.written import written_params
from ..runtime import registry
from . import shipping
from .images import is_dask


@dataclass(frozen=True)
class ChunkOffset:
    """A placeholder argument: each chunk receives the global index of its first element
    along `axis` (an int). Made by `chunk_offset(axis)`."""

    axis: int = 0


def chunk_offset(axis: int = 0) -> ChunkOffset:
    """Pass this among `simt.map_blocks`'s arguments where the kernel takes the chunk's
    global position along `axis`: `simt.map_blocks(k, chunk_offset(0), x, block=256)`."""
    if not isinstance(axis, int) or axis < 0:
        raise LaunchError(f"chunk_offset(axis) needs an axis number >= 0, got {axis!r}")
    return ChunkOffset(axis)


def _build(fn_ref: shipping.FunctionRef, fp64: bool, debug: bool, static: Any, known: Any,
           boundscheck: bool = True) -> Any:  # fmt: skip
    fn = fn_ref.load()
    if isinstance(fn, Kernel):
        fn = fn.pyfunc
    return Kernel(fn, fp64=fp64, debug=debug, static=static, known=known,
                  boundscheck=boundscheck)  # fmt: skip


def _grid(chunk: tuple[int, ...], block: tuple[int, ...]) -> tuple[int, ...]:
    """Blocks covering `chunk`: x over its last axis, then y, then z."""
    sizes = chunk[::-1]
    return tuple(max(1, -(-s // b)) for s, b in zip(sizes, block))


class _KernelChunks:
    """The task run on each chunk: copies of the chunks the kernel writes, one launch."""

    def __init__(
        self, recipe: shipping.Recipe, names: list[str], values: dict[str, Any],
        arrays: list[str], written: set[str], out: str, block: tuple[int, ...],
        starts: list[tuple[int, ...]], pads: list[tuple[int, int]], backend: str, fname: str,
    ) -> None:  # fmt: skip
        self.recipe = recipe
        self.names = names
        self.values = values  # the arguments that are not dask arrays (numbers, NumPy arrays)
        self.arrays = arrays  # the dask-array parameters, in the order of the blocks
        self.written = written
        self.out = out
        self.block = block
        self.starts = starts  # per axis: where each chunk starts in the whole array
        self.pads = pads  # per axis: halo (before, at the array's start; after) ...
        self.backend = backend
        self.fname = fname
        self.uid = uuid.uuid4().hex

    def __dask_tokenize__(self) -> str:
        return self.uid  # a new task each call (its recipe and values are not hashed)

    def offset(self, axis: int, index: tuple[int, ...]) -> int:
        if axis >= len(self.starts):
            raise LaunchError(
                f"chunk_offset({axis}) of {self.fname}(): the arrays have {len(self.starts)} axes"
            )
        i = index[axis]
        start = self.starts[axis][i]
        halo, edge_padded = self.pads[axis]
        return start - (halo if (i > 0 or edge_padded) else 0)

    def __call__(self, *blocks: np.ndarray, block_id: tuple[int, ...] = ()) -> np.ndarray:
        def run() -> np.ndarray:
            shipping.use_backend(self.backend)
            k: Kernel = shipping.built(self.recipe)
            args: list[Any] = []
            chunks = dict(zip(self.arrays, blocks))
            for n in self.names:
                if n in chunks:
                    # a written chunk is a copy (dask's may be shared, read-only or the user's
                    # NumPy array); .copy() keeps a CuPy chunk on its GPU
                    if n in self.written:
                        chunks[n] = chunks[n].copy()
                    args.append(chunks[n])
                else:
                    v = self.values[n]
                    args.append(self.offset(v.axis, block_id) if isinstance(v, ChunkOffset) else v)
            result = chunks[self.out]
            k.config(_grid(result.shape, self.block), self.block)(*args)
            return result

        return shipping.in_chunk(f"{self.fname}()", tuple(block_id), run)  # type: ignore[no-any-return]


def _block_arg(block: Any, ndim: int, fname: str) -> tuple[int, ...]:
    blk = (block,) if isinstance(block, (int, np.integer)) else block
    if (
        not isinstance(blk, tuple)
        or not 1 <= len(blk) <= 3
        or not all(isinstance(b, (int, np.integer)) and not isinstance(b, bool) and b > 0
                   for b in blk)
    ):  # fmt: skip
        raise LaunchError(
            f"simt.map_blocks({fname}, ..., block=...) needs the threads of a block: an int "
            f"or a tuple of 1 to 3 ints (x first), got {block!r}"
        )
    if len(blk) != ndim:
        raise LaunchError(
            f"simt.map_blocks({fname}, ..., block={block!r}): the chunks are {ndim}-D, so the "
            f"block needs {ndim} sizes (x over the last axis first), e.g. block="
            f"{(256,) if ndim == 1 else (16, 16) if ndim == 2 else (8, 8, 4)}"
        )
    return tuple(int(b) for b in blk)


def _halo_arg(halo: Any, ndim: int, fname: str) -> tuple[int, ...]:
    if isinstance(halo, (int, np.integer)) and not isinstance(halo, bool) and halo >= 0:
        return (int(halo),) * ndim
    if (
        isinstance(halo, tuple)
        and len(halo) == ndim
        and all(isinstance(h, (int, np.integer)) and h >= 0 for h in halo)
    ):
        return tuple(int(h) for h in halo)
    raise LaunchError(
        f"simt.map_blocks({fname}, ..., halo=...) needs an int >= 0 or one per axis "
        f"({ndim}), got {halo!r}"
    )


@user_facing
def map_blocks(
    kernel: Any, *args: Any, block: Any, halo: Any = 0, boundary: Any = "none", out: Any = None,
    dtype: Any = None, shape: Any = None, chunks: Any = None,
) -> Any:  # fmt: skip
    """Launch `kernel` on every chunk of the dask arrays in `args`; the lazy dask array of the
    argument it writes (see the module's notes). Written array parameters left out of `args`
    are allocated (zeros of `dtype`, `shape` and `chunks`; by default those of the first dask
    argument), as `dask.array.map_blocks` and CuPy's ElementwiseKernel make their outputs."""
    return _map_blocks(kernel, args, block, halo, boundary, out, dtype, shape, chunks)


def _allocate(kernel: Kernel, names: list[str], values: dict[str, Any], dtype: Any,
              shape: Any, chunks: Any) -> list[str]:  # fmt: skip
    """Fill in `values` the written array parameters not passed, as new dask arrays of
    zeros; the names allocated. Parameters not passed that the kernel does not write as
    arrays are a LaunchError naming them."""
    import dask.array as da

    fname = kernel.__name__
    missing = [n for n in names if n not in values]
    lead = next((v for v in values.values() if is_dask(v)), None)
    if shape is not None:
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        if lead is not None and tuple(lead.shape) != shape:
            raise LaunchError(
                f"shape={shape} of simt.map_blocks({fname}, ...) differs from the dask "
                f"arguments' {tuple(lead.shape)}: the arrays of one map_blocks have one shape"
            )
    if not missing:
        if dtype is not None or shape is not None or chunks is not None:
            raise LaunchError(
                f"simt.map_blocks({fname}, ...): dtype=, shape= and chunks= describe an "
                "output it allocates, and every parameter was passed"
            )
        return []
    if lead is None and shape is None:
        raise LaunchError(
            f"simt.map_blocks({fname}, ...) is missing {', '.join(missing)} and got no dask "
            "array to take a shape from: pass shape= (and chunks=) for the output"
        )
    try:
        dt = np.dtype(dtype if dtype is not None else lead.dtype if lead is not None
                      else np.float32)  # fmt: skip
    except TypeError:
        raise LaunchError(f"dtype={dtype!r} of simt.map_blocks({fname}, ...) is no dtype") from None
    shp = shape if shape is not None else tuple(lead.shape)  # type: ignore[union-attr]
    # which of the missing ones the kernel writes as arrays: its IR for stand-ins
    stand = {n: (0 if isinstance(v, ChunkOffset) else
                 np.zeros((1,) * len(shp), v.dtype) if is_dask(v) else v)
             for n, v in values.items()}  # fmt: skip
    for n in missing:
        stand[n] = np.zeros((1,) * len(shp), dt)
    try:
        fn, _ = kernel.specialised_ir(*(stand[n] for n in names))
        written = written_params(fn)
    except SimtError:
        written = set()
    inputs = [n for n in missing if n not in written]
    if inputs:
        raise LaunchError(
            f"simt.map_blocks({fname}, ...) is missing {', '.join(inputs)}"
            + (" (a parameter the kernel reads, not an output it writes)" if written else "")
        )
    for n in missing:
        c = chunks if chunks is not None else lead.chunks if lead is not None else "auto"
        values[n] = da.zeros(shp, dtype=dt, chunks=c)
    return missing


def _map_blocks(kernel: Any, args: tuple[Any, ...], block: Any, halo: Any, boundary: Any,
                out: Any, dtype: Any = None, shape: Any = None,
                chunks: Any = None) -> Any:  # fmt: skip
    import dask.array as da

    if not isinstance(kernel, Kernel):
        raise LaunchError(
            f"simt.map_blocks needs a @simt.kernel (or simt.compile of one), got {kernel!r:.60}"
        )
    fname = kernel.__name__
    names = [n for n in kernel.parameters if n not in kernel.known]
    values = bind_arguments(fname, names, args, {})
    _allocate(kernel, names, values, dtype, shape, chunks)
    arrays = [n for n in names if is_dask(values[n])]
    if not arrays:
        raise LaunchError(
            f"simt.map_blocks({fname}, ...) got no dask array: launch the kernel itself "
            f"({fname}[blocks, threads](...)) on NumPy arrays"
        )
    lead = values[arrays[0]]
    for n in arrays[1:]:
        if values[n].shape != lead.shape:
            raise LaunchError(
                f"argument {n!r} of {fname}() has shape {values[n].shape} but {arrays[0]!r} "
                f"has {lead.shape}: the dask arrays of simt.map_blocks have one shape"
            )
    ndim = lead.ndim
    blk = _block_arg(block, ndim, fname)
    depth = _halo_arg(halo, ndim, fname)

    # which dask array the kernel writes: compile its IR for stand-ins of the chunks
    stand = dict(values)
    for n in arrays:
        stand[n] = np.zeros((1,) * ndim, values[n].dtype)
    for n, v in stand.items():
        if isinstance(v, ChunkOffset):
            stand[n] = 0
    fn, _ = kernel.specialised_ir(*(stand[n] for n in names))
    written = written_params(fn) & set(arrays)
    if out is not None:
        target = names[out] if isinstance(out, int) and 0 <= out < len(names) else out
        if target not in arrays:
            raise LaunchError(
                f"out={out!r} of simt.map_blocks({fname}, ...) must name a dask-array "
                f"argument: one of {', '.join(arrays)}"
            )
        if target not in written:
            raise LaunchError(
                f"out={out!r} of simt.map_blocks({fname}, ...): {fname}() never writes "
                f"{target!r}, so its result would be the input unchanged"
            )
    elif len(written) == 1:
        target = next(iter(written))
    elif not written:
        raise LaunchError(
            f"{fname}() writes none of its dask-array arguments ({', '.join(arrays)}), so "
            "simt.map_blocks has no result to return; pass the array it should fill "
            "(e.g. da.zeros_like(x)) as an argument"
        )
    else:
        raise LaunchError(
            f"{fname}() writes {', '.join(sorted(written))}: say which is the result with "
            f"out=<name or position>"
        )

    # one chunking for all (map_blocks aligns them), at least as deep as the halo
    chunks = da.core.unify_chunks(
        *itertools.chain.from_iterable((values[n], tuple(range(ndim))) for n in arrays),
        warn=False,
    )[0]
    chunks = tuple(chunks[i] for i in range(ndim))
    if any(depth):
        from dask.array.overlap import ensure_minimum_chunksize

        chunks = tuple(ensure_minimum_chunksize(d, c) for d, c in zip(depth, chunks))
    dasks = [values[n].rechunk(chunks) for n in arrays]
    starts = [tuple(itertools.accumulate(c, initial=0)) for c in chunks]
    padded = boundary not in ("none", None)
    task = _KernelChunks(
        shipping.recipe_for(kernel, None, lambda: shipping.Recipe(
            _build, shipping.ref(kernel.pyfunc), kernel.fp64, kernel.debug,
            tuple(kernel.static), dict(kernel.known), kernel.boundscheck)),
        names, {n: v for n, v in values.items() if n not in arrays}, arrays, written, target,
        blk, starts, [(d, padded) for d in depth], registry.current().name, fname,
    )  # fmt: skip
    dtype = values[target].dtype
    meta = values[target]._meta  # NumPy or CuPy, as the output argument's chunks
    token = f"simt-{fname}"
    if not any(depth):
        return da.map_blocks(task, *dasks, dtype=dtype, meta=meta, chunks=chunks, token=token)
    return da.map_overlap(
        task, *dasks, depth=depth, boundary=boundary, trim=True, dtype=dtype, meta=meta,
        allow_rechunk=False, token=token,
    )  # fmt: skip
