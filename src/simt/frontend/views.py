"""Array views in kernels: `a[i]` of a 2-D array, `a[i, :]`, `a[:, j]`, `a[1:-1, 1:-1]`, `a[::2]`.

A view is a compile-time value (`View`): the array it looks into and, for each of the array's
axes, either a fixed index or a (start, step, extent) triple. Nothing is copied: indexing a
view computes the array's own indices (`start + i * step`) and loads or stores there, so views
pass to helper functions, nest (`a[1:-1][::2]`) and cost nothing once constants fold.

Slices take Python's semantics: bounds known or computed at run time, negative bounds count
from the end and are clipped to the axis; the step must be known at compile time. A known
negative index into a view counts from the view's end. An index into a sliced axis is checked
against the view's extent by an `assert` op marked `view_check`, kept on every backend as
array bounds checks are; `boundscheck=False` drops them (`strip_view_checks`).
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from .. import types as T
from ..ir import Value
from .context import Translating
from .scalars import coerce
from .values import Axis, CArray, Known, Obj, Tup, V, View, kind_of


def is_array(v: Any) -> bool:
    """Whether `v` is a typed array value."""
    return isinstance(v, Value) and isinstance(v.type, T.ArrayType)


def _index_type(v: View | Value) -> T.Scalar:
    base = v.base if isinstance(v, View) else v
    return base.array.index


def array_dim(tr: Translating, arr: Value, k: int) -> V:
    """Extent `k` of an array: known for shared/local arrays, a `shape` op otherwise."""
    at = arr.array
    if at.shape is not None:
        return Known(at.shape[k])
    return tr.b.op("shape", [arr], [at.index], dim=k).result


def whole(tr: Translating, arr: Value) -> View:
    """`arr` itself as a view (every axis from 0 by 1 over its extent)."""
    it = arr.array.index
    axes = []
    for k in range(arr.array.ndim):
        n = _as_index(tr, array_dim(tr, arr, k), it)
        axes.append(Axis(tr.const(0, it), tr.const(1, it), n))
    return View(arr, tuple(axes), arr.hint)


def _as_index(tr: Translating, v: V, it: T.Scalar) -> Value:
    if isinstance(v, Known):
        return tr.const(int(v.value), it)
    assert isinstance(v, Value)
    return coerce(tr.b, v, it)


def elements(tr: Translating, sl: ast.expr) -> list[Any]:
    """The subscript's items: `ast.Slice` nodes as they are, other items evaluated (a tuple
    value counts as several indices)."""
    elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
    out: list[Any] = []
    for e in elts:
        if isinstance(e, ast.Slice):
            out.append(e)
            continue
        v = tr.expr(e)
        if isinstance(v, Tup):
            out.extend(v.items)
        elif isinstance(v, Known) and isinstance(v.value, tuple):
            out.extend(Known(x) for x in v.value)
        else:
            out.append(v)
    return out


def subscript(
    tr: Translating, base: Value | View, node: ast.Subscript
) -> View | tuple[Value, list[Value]]:
    """`base[...]`: a new view, or (array, indices) of one element to load or store."""
    return subscript_items(tr, base, elements(tr, node.slice), node)


def subscript_items(
    tr: Translating, base: Value | View, items: list[Any], node: ast.Subscript
) -> View | tuple[Value, list[Value]]:
    """`subscript` with the subscript's items already evaluated (`elements`)."""
    if is_array(base) and not any(isinstance(i, ast.Slice) for i in items):
        assert isinstance(base, Value)
        if len(items) == base.array.ndim:  # a plain element: the array's own path
            return base, tr.index_values(base, items, node)
    view = whole(tr, base) if isinstance(base, Value) else base
    dims = view.dims
    if len(items) > len(dims):
        what = "view" if isinstance(base, View) else "array"
        tr.fail(
            node, f"this {what} has {len(dims)} dimension(s) but {len(items)} index(es) were given"
        )
    it = _index_type(view)
    new: dict[int, Axis] = {}
    for d, item in zip(dims, items):
        if isinstance(item, ast.Slice):
            new[id(d)] = _slice(tr, d, item, it, node)
        else:
            new[id(d)] = Axis(_element(tr, view, d, item, it, node), None, None)
    axes = tuple(new.get(id(a), a) for a in view.axes)
    out = View(view.base, axes, view.name)
    if out.ndim == 0:
        return out.base, [a.start for a in axes]
    return out


def _element(tr: Translating, view: View, d: Axis, item: V, it: T.Scalar, node: ast.AST) -> Value:
    """The array index of element `item` along the view axis `d` (checked when `d.checked`)."""
    assert d.step is not None and d.extent is not None
    b = tr.b
    if isinstance(item, Known):
        if not isinstance(item.value, (int, np.integer, bool, np.bool_)):
            tr.fail(node, "array indices must be integers")
        k = int(item.value)
        i = b.bin("add", d.extent, tr.const(k, it)) if k < 0 else tr.const(k, it)
    else:
        if (
            not isinstance(item, Value)
            or not isinstance(item.type, T.Scalar)
            or item.scalar.is_float
        ):
            tr.fail(node, "array indices must be integers", "use int(...)")
        assert isinstance(item, Value)
        i = coerce(b, item, it)
    if d.checked:
        tr.at(node)
        ok = b.bin("and", b.cmp("ge", i, tr.const(0, it)), b.cmp("lt", i, d.extent))
        name = f"`{view.name}`" if view.name else "an array"
        b.op("assert", [ok], msg=f"index out of bounds of a view of {name}", view_check=True)
    return b.bin("add", d.start, b.bin("mul", i, d.step))


def _bound(tr: Translating, node: ast.expr | None) -> V | None:
    return None if node is None else tr.expr(node)


def _slice(tr: Translating, d: Axis, s: ast.Slice, it: T.Scalar, node: ast.AST) -> Axis:
    """The axis `d[lo:hi:step]`, with Python's clipping of the bounds."""
    assert d.step is not None and d.extent is not None
    b = tr.b
    step_v = _bound(tr, s.step)
    if step_v is None:
        step = 1
    elif isinstance(step_v, Known) and isinstance(step_v.value, (int, np.integer)) and step_v.value:
        step = int(step_v.value)
    else:
        tr.fail(
            s.step or node,
            "the step of a slice must be a non-zero integer known at compile time",
            "write a[::2] with a constant step; bounds may be run-time values",
        )
    n = d.extent
    lo_v, hi_v = _bound(tr, s.lower), _bound(tr, s.upper)
    if step == 1 and lo_v is None and hi_v is None:
        return d  # `a[:, j]`: the whole axis
    zero, one = tr.const(0, it), tr.const(1, it)
    minus1 = tr.const(-1, it)

    def clip(v: V | None, default: Value, low: Value, high: Value) -> Value:
        """A bound: negative counts from the end, then clipped to [low, high]."""
        if v is None:
            return default
        known_int = isinstance(v, Known) and isinstance(v.value, (int, np.integer, bool))
        typed_int = isinstance(v, Value) and isinstance(v.type, T.Scalar) and not v.scalar.is_float
        if not (known_int or typed_int):
            tr.fail(node, "slice bounds must be integers (or None)")
        x = _as_index(tr, v, it)
        if isinstance(v, Known):
            k = int(v.value)
            x = b.bin("add", x, n) if k < 0 else x
        else:
            x = b.select(b.cmp("lt", x, zero), b.bin("add", x, n), x)
        return b.bin("min", b.bin("max", x, low), high)

    if step > 0:
        lo = clip(lo_v, zero, zero, n)
        hi = clip(hi_v, n, zero, n)
        span = b.bin("sub", hi, lo)
    else:
        last = b.bin("sub", n, one)
        lo = clip(lo_v, last, minus1, last)
        hi = clip(hi_v, minus1, minus1, last)
        span = b.bin("sub", lo, hi)
    a = abs(step)
    count = b.bin("floordiv", b.bin("add", span, tr.const(a - 1, it)), tr.const(a, it))
    extent = b.bin("max", count, zero)
    start = b.bin("add", d.start, b.bin("mul", lo, d.step))
    return Axis(start, b.bin("mul", d.step, tr.const(step, it)), extent, True)


def complex_subscript(tr: Translating, c: CArray, node: ast.Subscript) -> V:
    """`c[...]` of a complex array: a `Complex` (its two parts loaded) or a complex view."""
    got = _complex_index(tr, c, node)
    if isinstance(got, View):
        return CArray(got)
    arr, idx = got
    re = tr.load(arr, [*idx, tr.const(0, arr.array.index)], inner=1)  # (part 0 or 1)
    im = tr.load(arr, [*idx, tr.const(1, arr.array.index)], inner=1)
    from ..complexnum import Complex

    return tr.construct(Complex, [re, im], {}, node)


def _complex_index(
    tr: Translating, c: CArray, node: ast.Subscript
) -> View | tuple[Value, list[Value]]:
    """The parts' view for `c[...]`, or (array, indices without the parts axis)."""
    base = c.base
    view = whole(tr, base) if isinstance(base, Value) else base
    items = elements(tr, node.slice)
    if len(items) > view.ndim - 1:
        tr.fail(node, f"this complex array has {view.ndim - 1} dimension(s) but {len(items)} "
                "index(es) were given")  # fmt: skip
    dims = view.dims
    it = _index_type(view)
    new: dict[int, Axis] = {}
    for d, item in zip(dims[:-1], items):
        if isinstance(item, ast.Slice):
            new[id(d)] = _slice(tr, d, item, it, node)
        else:
            new[id(d)] = Axis(_element(tr, view, d, item, it, node), None, None)
    out = View(view.base, tuple(new.get(id(a), a) for a in view.axes), view.name)
    if out.ndim == 1:  # only the parts axis is left: one complex element
        last = out.dims[0]
        fixed = [a.start for a in out.axes if a.step is None]
        # the element's parts are at start + 0 * step and start + 1 * step along the last axis
        if last is out.axes[-1] and all(a.step is None for a in out.axes[:-1]):
            return out.base, fixed
    return out


def complex_store(tr: Translating, c: CArray, node: ast.Subscript, value: V) -> None:
    """`c[...] = value`: both parts of one element (a real value has imaginary part 0)."""
    got = _complex_index(tr, c, node)
    if isinstance(got, View):
        tr.fail(node, "assigning to a slice of a complex array is not supported in kernels",
                "assign one element at a time")  # fmt: skip
    arr, idx = got
    re, im = complex_parts(tr, value, node)
    tr.store(arr, [*idx, tr.const(0, arr.array.index)], re, node, inner=1)
    tr.store(arr, [*idx, tr.const(1, arr.array.index)], im, node, inner=1)


def complex_parts(tr: Translating, value: V, node: ast.AST) -> tuple[V, V]:
    """(real, imaginary) of a complex or real value."""
    from ..complexnum import Complex

    if isinstance(value, Obj) and value.cls is Complex:
        return value.get("re"), value.get("im")
    if isinstance(value, Known) and isinstance(value.value, complex):
        return Known(value.value.real), Known(value.value.imag)
    return value, Known(0.0)


def complex_attribute(tr: Translating, c: CArray, attr: str, node: ast.AST) -> V:
    """`.shape`, `.size`, `.ndim` of a complex array: without the parts axis."""
    view = whole(tr, c.base) if isinstance(c.base, Value) else c.base
    extents: list[V] = [d.extent for d in view.dims[:-1]]  # type: ignore[misc]
    if attr == "shape":
        return tr.sequence(extents, tuple)
    if attr == "ndim":
        return Known(len(extents))
    if attr == "size":
        acc = extents[0]
        for e in extents[1:]:
            acc = tr.binop("mul", acc, e, node)
        return acc
    tr.fail(node, f"complex arrays in kernels have .shape, .size and .ndim, not .{attr}")


def attribute(tr: Translating, view: View, attr: str, node: ast.AST) -> V:
    """`view.shape`, `.size`, `.ndim`, `.dtype`."""
    extents: list[V] = [d.extent for d in view.dims]  # type: ignore[misc]
    if attr == "shape":
        return tr.sequence(extents, tuple)
    if attr == "size":
        acc = extents[0]
        for e in extents[1:]:
            acc = tr.binop("mul", acc, e, node)
        return acc
    if attr == "ndim":
        return Known(view.ndim)
    if attr == "dtype":
        return Known(view.base.array.dtype.np)
    tr.fail(node, f"array views in kernels have .shape, .size, .ndim and .dtype, not .{attr}")


def length(view: View) -> Value:
    """`len(view)`: the extent of its first axis."""
    extent = view.dims[0].extent
    assert extent is not None
    return extent


def assign(tr: Translating, base: V, node: ast.Subscript, value: V, stmt: ast.AST) -> None:
    """`base[...] = value`: one element, or a slice or row given a sequence of known length
    (`out[3 * t : 3 * t + 3] = [r, g, b]`, `grid[i] = (x, y, z)`)."""
    if not (is_array(base) or isinstance(base, View)):
        tr.fail(node.value, "only arrays can be indexed and assigned to")
    got = subscript(tr, base, node)  # type: ignore[arg-type]
    if isinstance(got, View):
        _store_sequence(tr, got, value, node)
        return
    tr.store(got[0], got[1], value, stmt)


def _store_sequence(tr: Translating, view: View, value: V, node: ast.Subscript) -> None:
    """Store the items of a sequence of known length into `view`, along its first axis; the
    view's length must equal the sequence's (checked at run time unless known: an array slice
    cannot grow or shrink as a list slice does)."""
    if isinstance(value, Tup):
        items: list[V] = list(value.items)
    elif isinstance(value, Known) and isinstance(value.value, (tuple, list, np.ndarray)):
        items = [Known(x) for x in value.value]
    else:
        tr.fail(
            node,
            f"assigning {kind_of(value)} to a slice or a whole row is not supported in kernels",
            "assign a tuple or list of known length (a[i:i + 3] = [r, g, b]), or one element "
            "at a time: for j in range(len(row)): row[j] = ...",
        )
    b = tr.b
    it = _index_type(view)
    first = view.dims[0]
    assert first.extent is not None and first.step is not None
    tr.at(node)
    ok = b.cmp("eq", first.extent, tr.const(len(items), it))
    name = f"`{view.name}`" if view.name else "an array"
    b.op(
        "assert", [ok],
        msg=f"the slice of {name} assigned to does not have {len(items)} elements "
        f"(as many as the values given)",
    )  # fmt: skip
    for k, item in enumerate(items):
        index = b.bin("add", first.start, b.bin("mul", tr.const(k, it), first.step))
        axes = tuple(Axis(index, None, None) if a is first else a for a in view.axes)
        sub = View(view.base, axes, view.name)
        if sub.ndim == 0:
            tr.store(sub.base, [a.start for a in axes], item, node)
        else:
            _store_sequence(tr, sub, item, node)


def target(tr: Translating, base: V, node: ast.Subscript) -> tuple[Value, list[Value]]:
    """The (array, indices) an assignment `base[...] = v` writes (one element)."""
    if not (is_array(base) or isinstance(base, View)):
        tr.fail(node.value, "only arrays can be indexed and assigned to")
    got = subscript(tr, base, node)  # type: ignore[arg-type]
    if isinstance(got, View):
        tr.fail(
            node,
            "assigning to a slice or a whole row is not supported in kernels",
            "assign one element at a time: for j in range(len(row)): row[j] = ...",
        )
    return got


__all__ = [
    "Axis", "View", "assign", "attribute", "is_array", "length", "subscript", "target", "whole",
]  # fmt: skip
