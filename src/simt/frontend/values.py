"""What an expression evaluates to while compiling: a known value or a typed IR value.

- `Known(v)`: computed in CPython at compile time (literals, globals, results of calls on known
  values). It becomes IR only when a typed operation needs it (`materialise`).
- an `ir.Value`: computed at run time; scalar or array.
- `Tup(items)`: a tuple or list with at least one typed item (tuples of known values are just
  `Known(tuple)`).
- `View`: a view of an array (no copy), from slicing or indexing part of its axes.
- `UNDEF`: a variable on a path where it was never assigned.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, TypeAlias, Union

import numpy as np

from .. import types as T
from ..ir import Value


@dataclass(frozen=True)
class Known:
    """A value known at compile time."""

    value: Any


@dataclass(frozen=True)
class Tup:
    """A tuple (or read-only list) whose items are not all known."""

    items: tuple[Any, ...]
    is_list: bool = False  # a list display or comprehension: printed and shown as a list
    # a tuple on one path and a list on another (merge.py, loops.py): Python prints them
    # differently, so printing it is refused (`calls._print_value`; the REPL's echo says so,
    # `Session._layout`), as is + with it (`Translator._tuple_op`); * keeps the mark
    mixed: bool = False


@dataclass(frozen=True)
class Obj:
    """An instance of a user class built in a kernel: a struct whose fields may be run-time
    values. Objects are values: `self.x = v` in `__init__` (or any method) rebinds `self` to an
    updated copy, so a method cannot change its caller's object."""

    cls: type
    fields: tuple[tuple[str, Any], ...] = ()

    def get(self, name: str) -> Any:
        for k, v in self.fields:
            if k == name:
                return v
        raise KeyError(name)

    def has(self, name: str) -> bool:
        return any(k == name for k, _ in self.fields)

    def with_field(self, name: str, value: Any) -> Obj:
        items = [(k, v) for k, v in self.fields if k != name]
        items.append((name, value))
        return Obj(self.cls, tuple(items))


class RStr:
    """The class of run-time strings (`Obj(RStr, (("off", off), ("n", n)))`: where the
    characters start in the thread's int32 region, and how many; frontend/strings.py)."""


def make_text(off: Any, n: Any) -> Obj:
    """The run-time string of `n` characters from `off` (`strings.make`)."""
    return Obj(RStr, (("off", off), ("n", n)))


@dataclass(frozen=True)
class Bound:
    """A method of a run-time object, not yet called."""

    obj: Any
    func: Any


@dataclass(frozen=True)
class Axis:
    """One axis of the viewed array: `step` None means fixed at index `start`; otherwise the
    view's elements along it are `start + k * step` for k < `extent`. `checked`: indices into
    it must be checked against `extent` (a sliced axis: the array's bounds do not do it)."""

    start: Value
    step: Value | None
    extent: Value | None
    checked: bool = False


@dataclass(frozen=True)
class View:
    """A view of an array (`a[i]`, `a[1:-1, ::2]`; see `frontend.views`): the array `base`
    seen through `axes`; `name` is what errors call it."""

    base: Value
    axes: tuple[Axis, ...]
    name: str = ""

    @property
    def dims(self) -> list[Axis]:
        """The view's own axes, in order (the array's axes that are not fixed)."""
        return [a for a in self.axes if a.step is not None]

    @property
    def ndim(self) -> int:
        """The number of axes of the view."""
        return len(self.dims)


@dataclass(frozen=True)
class CArray:
    """A complex64/complex128 array (or a view of one): `base` is the float32/float64 array
    (or view) of its parts, with one more axis of length 2 (real, imaginary) last."""

    base: Any  # Value | View


class _Undef:
    def __repr__(self) -> str:
        return "UNDEF"


UNDEF = _Undef()

V: TypeAlias = Union[Known, Value, Tup, Obj, Bound, View, CArray, _Undef]  # noqa: UP007 - 3.10 has no | on forward refs


def is_number(x: Any) -> bool:
    """A known value that can become a scalar of the kernel language."""
    return isinstance(x, (bool, int, float, np.bool_, np.integer, np.floating))


def same(a: V, b: V) -> bool:
    """Whether two compile-time values are certainly the same value."""
    if a is b:
        return True
    if isinstance(a, Known) and isinstance(b, Known):
        try:
            return type(a.value) is type(b.value) and bool(a.value == b.value)
        except Exception:  # noqa: BLE001 - arrays and odd objects compare weirdly
            return a.value is b.value
    if isinstance(a, Tup) and isinstance(b, Tup):
        return len(a.items) == len(b.items) and all(same(x, y) for x, y in zip(a.items, b.items))
    if isinstance(a, Obj) and isinstance(b, Obj):
        return (
            a.cls is b.cls
            and [k for k, _ in a.fields] == [k for k, _ in b.fields]
            and all(same(x, y) for (_, x), (_, y) in zip(a.fields, b.fields))
        )
    return False


def scalar_type(v: V) -> T.Scalar | None:
    """The scalar type of a typed scalar value, else None."""
    if isinstance(v, Value) and isinstance(v.type, T.Scalar):
        return v.type
    return None


def range_parts(args: list[V]) -> tuple[V, V, V]:
    """(start, stop, step) of `range(*args)` given 1 to 3 values, as Python fills them in."""
    if len(args) == 1:
        return Known(0), args[0], Known(1)
    if len(args) == 2:
        return args[0], args[1], Known(1)
    start, stop, step = args
    return start, stop, step


def is_function(v: Any) -> bool:
    """Whether `v` is a function known at compile time: a Python function, method or
    builtin, or one defined in the kernel (`local_functions.LocalFunction`, which says so)."""
    return isinstance(v, Known) and (
        inspect.isroutine(v.value) or getattr(v.value, "defined_in_kernel", False) is True
    )


def kind_of(v: Any) -> str:
    """What `v` is, in the user's words ("a tuple", "an array view", "a complex number"),
    for messages that say what a construct got instead of what it needs."""
    if isinstance(v, Tup):
        return "a tuple"
    if isinstance(v, View):
        return "an array view"
    if isinstance(v, Obj):
        name = v.cls.__name__
        return "a complex number" if name == "Complex" else f"a {name} object"
    if isinstance(v, Known):
        if is_function(v):
            return "a function"
        name = type(v.value).__name__
        return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
    t = getattr(v, "type", None)
    if t is not None and not isinstance(t, T.Scalar):
        return "an array"
    return "a value"
