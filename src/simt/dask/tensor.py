"""Index expressions (`simt.tensor`) on dask arrays: `component.exec(a_dask, b_dask)`.

The component's axes are the same notation as `dask.array.blockwise`'s indices, so the graph
is one `blockwise` per output, each task running the whole fused simt component on its blocks:

- axes are unified across the component's nodes (an expression's output axes are its
  consumer's input axes, position by position), giving one letter per axis of the whole
  computation; an axis of the inputs that is not an axis of an output is *contracted*;
- when the output is made by a reduction (`+ijk~ij`) fed only by element-wise expressions
  (`ik*kj~ijk`: matmul), a contracted axis may be chunked: each task reduces its own chunk of
  it (one output block per chunk of the contracted axes, kept as length-1 axes), and the
  partial results are combined with the expression's own reducible op (`+`: sum, `>`: max,
  `&&`: all, ...) in a tree (`dask.array.reduction`, `split_every`). The result equals the
  single-machine `exec` within float reassociation;
- otherwise (a reduction followed by more work, several reductions), each task gets the whole
  extent of the contracted axes (`concatenate=True`) and the result is the single-machine one
  exactly, chunk by chunk.

A component with several outputs builds one such array per output (each task computes the
component and keeps that output). Inputs may mix dask arrays, NumPy arrays and numbers.
"""

from __future__ import annotations

import string
import uuid
from functools import partial
from typing import Any

import numpy as np

from .. import types as T
from ..errors import LaunchError, SimtError
from ..runtime import registry
from ..tensor.graph import Graph, Ref
from ..tensor.lower import node_types
from ..tensor.run import execute, host_array, kernel_dtype, python_float_dtype
from . import shipping
from .images import is_dask

# the NumPy reduction of each reducible op, to combine partial results
_COMBINE = {
    "+": np.add, "*": np.multiply, ">": np.maximum, "<": np.minimum,
    "&&": np.logical_and, "||": np.logical_or, "^^": np.logical_xor,
}  # fmt: skip


class _Axes:
    """Union-find over every axis of the graph: (input k, dimension d) and (node n, letter)."""

    def __init__(self, g: Graph) -> None:
        self.parent: dict[Any, Any] = {}
        self.g = g
        for n, node in enumerate(g.nodes):
            for pattern, ref in zip(node.expr.inputs, node.args):
                for d, letter in enumerate(pattern):
                    self.union(("n", n, letter), self.of(ref, d))

    def of(self, ref: Ref, d: int) -> Any:
        if ref[0] == "in":
            return ("in", ref[1], d)
        return ("n", ref[1], self.g.nodes[ref[1]].expr.output[d])

    def find(self, x: Any) -> Any:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: Any, b: Any) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _upstream(g: Graph, n: int) -> set[int]:
    seen: set[int] = set()
    todo = [n]
    while todo:
        m = todo.pop()
        for r in g.nodes[m].args:
            if r[0] == "node" and r[1] not in seen:
                seen.add(r[1])
                todo.append(r[1])
    return seen


def _run_block(graph: Graph, output: int, extra: int, backend: str, *blocks: Any) -> np.ndarray:
    """One task: the component on these blocks; output `output`, with `extra` length-1 axes
    for the contracted axes of a partial result."""

    def run() -> np.ndarray:
        shipping.use_backend(backend)
        res = execute(graph, list(blocks))
        out = res[output] if isinstance(res, tuple) else res
        out = np.asarray(out)
        return out.reshape(out.shape + (1,) * extra)

    return shipping.in_chunk("an index expression", (), run)  # type: ignore[no-any-return]


def _combine(op: str, x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    ufunc: Any = _COMBINE[op]
    return ufunc.reduce(x, axis=axis, keepdims=keepdims).astype(x.dtype, copy=False)  # type: ignore[no-any-return]


def _chunk(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    return x  # the blocks are already partial results, length 1 along the reduced axes


def exec_dask(graph: Graph, values: list[Any], into: Any = None) -> Any:
    """`Component.exec` when an input is a dask array: lazy dask array(s)."""
    try:
        return _exec(graph, values, into)
    except SimtError as e:
        raise e.with_traceback(None) from None


def _exec(g: Graph, values: list[Any], into: Any) -> Any:
    import dask.array as da

    if into is not None:
        raise LaunchError(
            "into= cannot be used with dask inputs: the result is a new (lazy) dask array; "
            "store it with .to_zarr(...) or .compute()"
        )
    axes = _Axes(g)
    letters: dict[Any, str] = {}

    def letter(elem: Any) -> str:
        root = axes.find(elem)
        if root not in letters:
            if len(letters) >= 52:
                raise LaunchError("index expressions on dask arrays take at most 52 axes")
            letters[root] = string.ascii_letters[len(letters)]
        return letters[root]

    # the inputs: their blockwise indices and element types
    args: list[Any] = []
    types: list[T.Scalar] = []
    in_axes: set[str] = set()
    weak = python_float_dtype(values)
    for k, v in enumerate(values):
        if is_dask(v):
            dtype = kernel_dtype(v.dtype)
            if dtype != v.dtype:
                v = v.astype(dtype)
        else:
            v = host_array(k, v, weak)
            if v.ndim == 0:
                args += [v[()], None]  # a number: passed to every task as it is
                types.append(T.scalar_of_dtype(v.dtype))  # type: ignore[arg-type]
                continue
            v = da.from_array(v, chunks=v.shape)  # one chunk; rechunked to match below
        t = T.scalar_of_dtype(v.dtype)
        if t is None or t == T.BOOL:
            raise LaunchError(f"input {k} has dtype {v.dtype}, which index expressions do not take")
        index = "".join(letter(("in", k, d)) for d in range(v.ndim))
        if len(set(index)) != len(index):
            raise LaunchError(
                f"input {k} is read along the same axis twice (a diagonal, e.g. 'ii~i'); with "
                "dask inputs each axis of an input must be its own: compute this on NumPy arrays"
            )
        in_axes |= set(index)
        args += [v, index]
        types.append(t)
    if not any(is_dask(a) for a in args[::2]):
        raise LaunchError("exec_dask needs a dask array among the inputs")
    dtypes = node_types(g, types)
    backend = registry.current().name
    call = uuid.uuid4().hex  # each exec is a new computation (no key shared with another)

    results = []
    for o, ref in enumerate(g.outputs):
        if ref[0] == "in":
            nd = args[2 * ref[1]]
            results.append(nd if is_dask(nd) else da.asarray(nd))
            continue
        node = g.nodes[ref[1]]
        out_index = "".join(letter(axes.of(ref, d)) for d in range(len(node.expr.output)))
        contracted = "".join(sorted(in_axes - set(out_index), key=string.ascii_letters.index))
        dtype = np.dtype(dtypes[ref[1]].np)
        partial_ok = (
            bool(node.expr.reduced)
            and node.expr.op in _COMBINE
            and not any(g.nodes[m].expr.reduced for m in _upstream(g, ref[1]))
        )
        chunked = _chunked(args, contracted)
        if partial_ok and chunked:
            parts = da.blockwise(
                partial(_run_block, g, o, len(contracted), backend),
                out_index + contracted, *args,
                adjust_chunks={c: 1 for c in contracted}, dtype=dtype,
                meta=np.empty((0,) * (len(out_index) + len(contracted)), dtype),
                name=f"simt-tensor-partial-{call}",
            )  # fmt: skip
            red = tuple(range(len(out_index), len(out_index) + len(contracted)))
            combine = partial(_combine, node.expr.op)
            results.append(
                da.reduction(
                    parts,
                    chunk=_chunk,
                    aggregate=combine,
                    combine=combine,
                    axis=red,
                    keepdims=False,
                    dtype=dtype,
                    concatenate=True,
                    meta=np.empty((0,) * len(out_index), dtype),
                    name=f"simt-tensor-combine-{call}",
                )  # fmt: skip
            )
        else:
            results.append(
                da.blockwise(
                    partial(_run_block, g, o, 0, backend),
                    out_index,
                    *args,
                    concatenate=True,
                    dtype=dtype,
                    meta=np.empty((0,) * len(out_index), dtype),
                    name=f"simt-tensor-{call}",
                )  # fmt: skip
            )
    return results[0] if len(results) == 1 else tuple(results)


def _chunked(args: list[Any], contracted: str) -> bool:
    """Whether some contracted axis has more than one chunk in some input."""
    for v, index in zip(args[::2], args[1::2]):
        if index is None or not hasattr(v, "chunks"):
            continue
        for d, c in enumerate(index):
            if c in contracted and len(v.chunks[d]) > 1:
                return True
    return False
