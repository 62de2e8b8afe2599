"""Calls and attributes: builtins, `math`, NumPy ufuncs, simt's intrinsics, user functions.

A call of any Python callable on known values runs in CPython at compile time. With run-time
values, a builtin or intrinsic listed here is translated to IR, and a plain Python function is
inlined (`Translator.inline`); anything else is an error that says so.
"""

from __future__ import annotations

import ast
import builtins
import cmath
import inspect
import math
import random
import sys
import types
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import lang
from .. import types as T
from ..builtins import MATH, TO_INT, MathFn
from ..errors import CompileError
from ..filewrites import MARK, SEP, KernelFile
from ..ir import Field, Value
from . import (
    dicts,
    files,
    list_ops,
    lists,
    local_functions,
    raising,
    str_format,
    str_ops,
    str_parse,
    strings,
    views,
)
from .checkpoint import Checkpoint, translate_checkpoint
from .context import Translating
from .scalars import coerce, const_value, known_type, materialise, merge_scalar, narrow, wrap_int
from .values import Bound, CArray, Known, Obj, Tup, V, View, is_number, kind_of, scalar_type
from .views import array_dim

Handler = Callable[[Translating, list[V], dict[str, V], ast.Call], V]
# the builtins that take a dict, a set or a dict view as the list of its keys (or values)
_OVER_ITEMS = (builtins.len, builtins.sum, builtins.min, builtins.max, builtins.sorted,
               builtins.list)  # fmt: skip


def dtype_arg(v: V) -> T.Scalar | None:
    """The scalar type named by a known dtype-like value, else None."""
    if isinstance(v, Known):
        if isinstance(v.value, lang.Direction):
            return None
        return lang.dtype_of(v.value)
    return None


# ---------------------------------------------------------------------------- attributes
def attribute(tr: Translating, base: V, attr: str, node: ast.Attribute) -> V:
    if lists.is_list(base):
        return list_ops.attribute(tr, base, attr, node)  # type: ignore[arg-type]
    if dicts.is_dict_like(base):
        return dicts.attribute(tr, base, attr, node)  # type: ignore[arg-type]
    if attr == "format" and strings.is_text(base):
        if strings.is_str(base):
            str_format.refuse_run_time_template(tr, node)
        return Bound(base, str_format.Method())
    if strings.is_str(base):
        return str_ops.attribute(tr, base, attr, node)  # type: ignore[arg-type]
    if attr == "join" and isinstance(base, Known) and isinstance(base.value, str):
        return Bound(base, strings.Method("join"))
    if raising.is_caught(base):  # `e.args`, `e.code` of `except ... as e`
        return raising.attribute(tr, base, attr, node)  # type: ignore[arg-type]
    if isinstance(base, Obj):
        if base.has(attr):
            return base.get(attr)  # type: ignore[no-any-return]
        a = inspect.getattr_static(base.cls, attr, None)
        if isinstance(a, property) and a.fget is not None:
            return tr.inline(a.fget, [base], {}, node)
        if inspect.isfunction(a):
            return Bound(base, a)
        if a is None:
            kind = getattr(base.cls, "__simt_kind__", None)  # one of simt's own classes
            if kind is not None:
                tr.fail(node, f"{kind[0]} has no `{attr}`: it has {kind[1]}")
            tr.fail(node, f"{base.cls.__name__} object has no attribute `{attr}`")
        return Known(getattr(base.cls, attr))
    if isinstance(base, Known):
        obj = base.value
        if isinstance(obj, lang.Dim3Register):
            if attr not in ("x", "y", "z"):
                tr.fail(node, f"{obj.name} has .x, .y and .z, not .{attr}")
            return tr.b.special(obj.name, "xyz".index(attr))
        try:
            value = getattr(obj, attr)
        except AttributeError:
            tr.fail(node, f"{type(obj).__name__} has no attribute `{attr}`")
        except NotImplementedError as e:  # a name simt.cuda knows but does not have
            tr.fail(node, str(e))
        if isinstance(value, lang.KernelValue):  # `cuda.laneid`: a value, computed here
            return tr.inline(value.impl, [], {}, node)
        return Known(value)
    if isinstance(base, View):
        return views.attribute(tr, base, attr, node)
    if isinstance(base, CArray):
        return views.complex_attribute(tr, base, attr, node)
    if isinstance(base, Value) and isinstance(base.type, T.ArrayType):
        at = base.type
        if attr == "shape":
            return tr.sequence([array_dim(tr, base, k) for k in range(at.ndim)], tuple)
        if attr == "size":
            if at.shape is not None:
                return Known(int(np.prod(at.shape)))
            acc: V = array_dim(tr, base, 0)
            for k in range(1, at.ndim):
                acc = tr.binop("mul", acc, array_dim(tr, base, k), node)
            return acc
        if attr == "ndim":
            return Known(at.ndim)
        if attr == "dtype":
            return Known(at.dtype.np)
        tr.fail(node, f"arrays in kernels have .shape, .size, .ndim and .dtype, not .{attr}")
    tr.fail(node, f"a run-time value has no attribute `{attr}`")


# ---------------------------------------------------------------------------- calls
def call(tr: Translating, node: ast.Call) -> V:
    fn = tr.expr(node.func)
    if isinstance(fn, Known) and fn.value is builtins.print:
        return print_call(tr, node)
    if isinstance(fn, Known) and isinstance(fn.value, Checkpoint):
        return translate_checkpoint(tr, fn.value, node)  # the REPL's, after a statement
    if isinstance(fn, Known) and fn.value is builtins.open:
        mode = _write_mode(tr, node)
        if mode is not None:
            return _open_for_writing(tr, node, mode)
        reader = files.open_call(tr, node, fstring_parts)
        if reader is not None:
            return reader
    if isinstance(fn, Bound) and isinstance(fn.obj, Obj) and fn.obj.cls is KernelFile:
        if fn.func is KernelFile.write or fn.func is KernelFile.close:
            return _file_record(tr, fn.obj, fn.func.__name__, node)
    if (isinstance(fn, Known) and fn.value is builtins.set and len(node.args) == 1
            and not node.keywords and not isinstance(node.args[0], ast.Starred)):  # fmt: skip
        return dicts.set_of(tr, node)  # set(range(n)): the loop takes the syntax
    args: list[V] = []
    for a in node.args:
        if isinstance(a, ast.Starred):
            v = tr.expr(a.value)
            args.extend(
                tr.unpack(v, len(v.items) if isinstance(v, Tup) else _known_len(tr, v, a), a)
            )
        else:
            args.append(tr.expr(a))
    kwargs: dict[str, V] = {}
    for k in node.keywords:
        if k.arg is None:
            tr.fail(k, "**kwargs in a call is not supported in kernels")
        kwargs[k.arg] = tr.expr(k.value)  # type: ignore[index]
    if isinstance(fn, Known) and isinstance(fn.value, local_functions.LocalFunction):
        return tr.call_local(fn.value, args, kwargs, node)
    f0 = fn.value if isinstance(fn, Known) else None
    method = f0.__name__ if isinstance(f0, types.MethodDescriptorType) else ""
    if method and getattr(str, method, None) is f0 and args and strings.is_str(args[0]):
        # `str.lower(w)` of a run-time string (a sort key: key=str.lower) is `w.lower()`
        fn = attribute(tr, args[0], method, node)  # type: ignore[arg-type]
        args = args[1:]
    if isinstance(fn, Bound) and files.is_reader(fn.obj) and callable(fn.func):
        return files.method(tr, fn.obj, fn.func.__name__, args, kwargs, node)  # type: ignore[arg-type]
    methods = (list_ops.Method, strings.Method, str_ops.Method, str_format.Method, dicts.Method)
    if isinstance(fn, Bound) and isinstance(fn.func, methods):
        return fn.func.call(tr, fn.obj, args, kwargs, node)  # type: ignore[arg-type]
    if (
        isinstance(fn, Known)
        and raising.is_exception_class(fn.value)
        and any(strings.is_str(a) for a in [*args, *kwargs.values()])
    ):
        return strings.exception(tr, fn.value, args, kwargs, node)
    if isinstance(fn, Bound):
        return tr.inline(fn.func, [fn.obj, *args], kwargs, node)
    if isinstance(fn, Obj):
        m = tr.method_of(fn, "__call__")
        if m is None:
            tr.fail(node.func, f"{fn.cls.__name__} objects are not callable")
        return tr.call_method(m, args, node, kwargs)  # type: ignore[arg-type]
    if not isinstance(fn, Known):
        tr.fail(node.func, "only functions known at compile time can be called in kernels")
    f = fn.value
    if any(f is g for g in _OVER_ITEMS) and any(dicts.is_dict_like(a) for a in args):
        # len(d), sum(d.values()), sorted(s), list(d): over the list of keys or values
        counted = f is builtins.len
        args = [dicts.as_list(tr, a, node, counted) if dicts.is_dict_like(a) else a  # type: ignore[arg-type]
                for a in args]  # fmt: skip
    handler = _handler(f)
    if handler is not None:
        return handler(tr, args, kwargs, node)
    if isinstance(f, lang.BitFunction):
        return _bit_function(tr, f, args, node)
    if isinstance(f, lang.Inlined):  # an intrinsic written in the kernel language
        return tr.inline(f.impl, args, kwargs, node)
    if _draws_at_random(f):
        tr.fail(
            node,
            f"{ast.unparse(node.func)}() would run once, at compile time, and give every thread "
            "the same number",
            "draw per-thread random numbers with simt.cuda.random: states from "
            "create_xoroshiro128p_states(threads, seed) passed to the kernel, then "
            "xoroshiro128p_uniform_float32(states, i) in it; or draw them on the host "
            "(np.random) and pass the array",
        )
    if _all_known([*args, *kwargs.values()]):
        try:
            return Known(f(*[_kv(a) for a in args], **{k: _kv(v) for k, v in kwargs.items()}))
        except Exception as e:  # noqa: BLE001 - the user's function raised while compiling
            if not (inspect.isfunction(f) and not _library(f)):
                tr.fail(node, f"calling {_name(f)} at compile time raised {type(e).__name__}: {e}")
            # a helper of the user's that cannot run in CPython (it reads thread_idx, say) is
            # compiled like one called with run-time values
            return tr.inline(f, args, kwargs, node)
    if inspect.ismethod(f) and inspect.isfunction(f.__func__):
        return tr.inline(f.__func__, [Known(f.__self__), *args], kwargs, node)
    if inspect.isclass(f) and not issubclass(f, (np.generic, BaseException)):
        return tr.construct(f, args, kwargs, node)
    pyfunc = getattr(f, "pyfunc", None)  # a @simt.kernel called from a kernel
    if pyfunc is not None and inspect.isfunction(pyfunc):
        return tr.inline(pyfunc, args, kwargs, node)
    m = tr.method_of(fn, "__call__")
    if m is not None and not inspect.isfunction(f) and not inspect.isclass(f):
        return tr.call_method(m, args, node, kwargs)
    if inspect.isfunction(f) and not _library(f):
        return tr.inline(f, args, kwargs, node)
    if not _all_known([a for a in [*args, *kwargs.values()] if isinstance(a, Known)]):
        tr.fail(node, f"{_name(f)} cannot be given a function defined in the kernel: it runs "
                "in CPython, and the function only in the kernel",
                "call the function yourself (a loop or a comprehension); sorted, min, max, "
                "map, filter and functions of your own take one")  # fmt: skip
    runtime = [i for i, a in enumerate(args) if not isinstance(a, Known)]
    hint = (
        "call it on values known at compile time (it then runs in CPython), or use the "
        "kernel language's own functions (math, min, max, abs, ...)"
    )
    first = args[runtime[0]] if runtime else None
    if (
        isinstance(first, Value)
        and isinstance(first.type, T.ArrayType)
        and first.type.shape is None  # a parameter, not a shared or local array
        and first.hint
    ):
        hint = (
            f"`{first.hint}` is an array passed at the launch, which a kernel reads element by "
            f"element (a loop over `{first.hint}[k]`, or one element per thread); compute "
            f"{_name(f)} on the host before the launch and pass its result, or, if "
            f"`{first.hint}` only shapes the program (a filter's weights, a table), give it "
            f"when compiling: simt.compile(kernel, {first.hint}=...)"
        )
    tr.fail(
        node,
        f"{_name(f)} cannot be compiled, and argument {runtime[0] + 1 if runtime else ''}"
        " is only known at run time",
        hint,
    )


def _draws_at_random(f: Any) -> bool:
    """A random-number function of the standard library or NumPy (`random.random`,
    `np.random.rand`, a `Generator`'s methods): run at compile time like other library calls,
    it would give every thread one number, silently."""
    owner = getattr(f, "__self__", None)
    if isinstance(owner, (random.Random, np.random.RandomState, np.random.Generator)):
        return True
    module = getattr(f, "__module__", None) or ""
    return module == "random" or module.startswith("numpy.random")


def _library(f: Any) -> bool:
    """Functions of the standard library and of NumPy/SciPy are run in CPython on known values
    only; inlining their source would give errors about code the user never wrote."""
    top = (getattr(f, "__module__", None) or "").split(".")[0]
    return top in sys.stdlib_module_names or top in ("numpy", "scipy")


def _known_len(tr: Translating, v: V, node: ast.AST) -> int:
    if isinstance(v, Known):
        try:
            return len(v.value)
        except TypeError:
            pass
    tr.fail(node, "cannot unpack this with *")


def _name(f: Any) -> str:
    mod = getattr(f, "__module__", None)
    name = getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)
    return f"{mod}.{name}()" if mod and mod not in ("builtins",) else f"{name}()"


def _handler(f: Any) -> Handler | None:
    try:
        h = _HANDLERS.get(f)
    except TypeError:  # unhashable callable
        return None
    if h is not None:
        return h
    if isinstance(f, lang.ScalarCast):
        return _cast(f.type)
    if isinstance(f, type) and issubclass(f, np.generic):
        t = T.scalar_of_dtype(np.dtype(f))
        if t is not None:
            return _cast(t)
    return None


def _kv(v: V) -> Any:
    """The value of a known argument (the caller checked they all are)."""
    assert isinstance(v, Known)
    return v.value


def _all_known(args: list[V]) -> bool:
    """Whether CPython can compute the call now (a function defined in the kernel cannot
    be called there: it is translated)."""
    return all(isinstance(a, Known) and not isinstance(a.value, local_functions.LocalFunction)
               for a in args)  # fmt: skip


def _only_known(fallback: Callable[..., Any], name: str) -> Handler:
    """Builtins that need known arguments, evaluated in CPython (Tup arguments allowed for
    the sequence helpers, handled by the caller)."""

    def h(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
        if _all_known([*args, *kwargs.values()]):
            vals = [_kv(a) for a in args]
            if getattr(fallback, "__module__", None) == "math":
                # Python's math takes a NumPy float32 as a float (math.trunc would not)
                vals = [float(x) if isinstance(x, np.floating) else x for x in vals]
            try:
                return Known(fallback(*vals, **{k: _kv(v) for k, v in kwargs.items()}))
            except Exception as e:  # noqa: BLE001
                tr.fail(node, f"{name}() at compile time raised {type(e).__name__}: {e}")
        tr.fail(
            node,
            f"{name}() with values known only at run time is not supported here"
            + (" (use it as the iterable of a for loop)" if name == "range" else ""),
        )

    return h


def _items(tr: Translating, v: V, node: ast.AST) -> list[V]:
    if isinstance(v, Tup):
        return list(v.items)
    if isinstance(v, Known):
        try:
            return [Known(x) for x in v.value]
        except TypeError:
            tr.fail(node, f"cannot iterate over a {type(v.value).__name__}")
    tr.fail(node, "expected a tuple or a sequence known at compile time")


is_run_time_list = lists.is_list


def _seq_fn(name: str) -> Handler:
    """zip / enumerate / reversed / tuple / list over tuples with run-time items."""

    def h(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
        if _all_known([*args, *kwargs.values()]):
            return _only_known(getattr(builtins, name), name)(tr, args, kwargs, node)
        if name == "list" and len(args) == 1 and is_run_time_list(args[0]):
            return list_ops.copy_of(tr, args[0], node)  # type: ignore[arg-type]
        lists = [_items(tr, a, node) for a in args]
        if name == "zip":
            out = [tr.sequence(list(t), tuple) for t in zip(*lists)]
        elif name == "enumerate":
            start = int(kwargs["start"].value) if "start" in kwargs else 0  # type: ignore[union-attr]
            out = [tr.sequence([Known(i + start), x], tuple) for i, x in enumerate(lists[0])]
        elif name == "reversed":
            out = list(reversed(lists[0]))
        else:
            out = lists[0]
        return tr.sequence(out, list if name == "list" else tuple)  # list(...) prints as one

    return h


def _len(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    (a,) = args
    if lists.is_list(a):
        return lists.length(tr, a)  # type: ignore[arg-type]
    if strings.is_str(a):
        return strings.length(tr, a)  # type: ignore[arg-type]
    if isinstance(a, Value) and isinstance(a.type, T.ArrayType):
        return array_dim(tr, a, 0)
    if isinstance(a, View):
        return views.length(a)
    if isinstance(a, CArray):
        shape = views.complex_attribute(tr, a, "shape", node)
        return shape.items[0] if isinstance(shape, Tup) else Known(shape.value[0])  # type: ignore[union-attr]
    if isinstance(a, Tup):
        return Known(len(a.items))
    if isinstance(a, Known):
        try:
            return Known(len(a.value))
        except TypeError:
            pass
    if isinstance(a, Obj):
        m = tr.method_of(a, "__len__")
        if m is not None:
            return tr.call_method(m, [], node)
    tr.fail(node, "len() needs an array, a tuple or an object with __len__")


def _minmax(op: str) -> Handler:
    def h(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
        key = list_ops.key_function(tr, kwargs.pop("key", Known(None)), op, node)
        if kwargs:
            tr.fail(node, f"{op}() keyword arguments other than key= are not supported in "
                    "kernels", "default=: test whether the list is empty first")  # fmt: skip
        if key is not None:
            if len(args) == 1 and lists.is_list(args[0]):
                return list_ops.min_max_by_key(tr, args[0], key, op, node)  # type: ignore[arg-type]
            items = _items(tr, args[0], node) if len(args) == 1 else args
            if not items:
                tr.fail(node, f"{op}() of nothing")
            return list_ops.min_max_by_key(tr, lists.make(tr, items, node), key, op, node)
        if len(args) == 1 and lists.is_list(args[0]):
            return list_ops.min_max(tr, args[0], op, node)  # type: ignore[arg-type]
        if len(args) == 1:
            args = _items(tr, args[0], node)
        if not args:
            tr.fail(node, f"{op}() of nothing")
        if _all_known(args):
            return Known((min if op == "min" else max)(_kv(a) for a in args))
        if all(strings.is_text(a) for a in args):  # min(s, t) of strings: as Python orders
            return strings.min_max(tr, op, [strings.text_of(a) for a in args], node)
        acc = tr.scalar(args[0], node)
        for a in args[1:]:
            acc = _typed_bin(tr, op, acc, tr.scalar(a, node))
        return acc

    return h


def _typed_bin(tr: Translating, op: str, a: V, b: V) -> V:
    if isinstance(a, Known) and isinstance(b, Known):
        return Known(min(a.value, b.value) if op == "min" else max(a.value, b.value))
    ta, tb = scalar_type(a), scalar_type(b)
    fp = tr.ctx.fp64
    ta = ta or known_type(a.value, tb, fp)  # type: ignore[union-attr]
    tb = tb or known_type(b.value, ta, fp)  # type: ignore[union-attr]
    t = ta if ta == tb else T.promote(ta, tb)
    if t.is_bool:
        t = T.INT32
    return tr.b.bin(op, coerce(tr.b, a, t), coerce(tr.b, b, t))


def _abs(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    (a,) = args
    m = tr.method_of(a, "__abs__")
    if m is not None:  # a complex number (or an object of the user's with __abs__)
        return tr.call_method(m, [], node)
    if isinstance(a, Known) and isinstance(a.value, complex):
        return Known(abs(a.value))
    a = tr.scalar(a, node)
    if isinstance(a, Known):
        return Known(abs(a.value))
    assert isinstance(a, Value)
    if a.scalar.is_bool:
        return coerce(tr.b, a, T.INT32)
    return tr.b.un("abs", a)


def _cast(t: T.Scalar) -> Handler:
    def h(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
        if len(args) != 1 or kwargs:
            tr.fail(node, f"{t.name}() takes one argument")
        a = tr.scalar(args[0], node)
        if t.is_storage:  # simt.uint8(x): wrapped to 8 bits, a value of the compute type
            c = T.compute_type(t)
            if isinstance(a, Known):
                if t.is_int:  # Python ints of any size wrap (simt.uint16(31 << 100) is 0)
                    return Known(c.np.type(wrap_int(a.value, t)))
                with np.errstate(all="ignore"):
                    return Known(c.np.type(np.asarray(a.value).astype(t.np)[()]))
            return coerce(tr.b, narrow(tr.b, a, t), c)
        if isinstance(a, Known):
            # as the cast does at run time: ints wrap, floats truncate (simt.uint32(-1))
            return Known(t.np.type(const_value(a.value, t)))
        return coerce(tr.b, a, t)

    return h


def _int(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    if args and strings.is_text(args[0]):
        if len(args) != 1 or kwargs:
            tr.fail(node, "int() of a string takes base 10 in a kernel (no base argument)",
                    "parse other bases yourself: a loop over the characters")  # fmt: skip
        return str_parse.to_int(tr, strings.text_of(args[0]), node)
    if len(args) != 1 or kwargs:
        tr.fail(node, "int() in a kernel takes one number")
    a = tr.scalar(args[0], node)
    if isinstance(a, Known):
        return Known(int(a.value))
    assert isinstance(a, Value)
    return coerce(tr.b, a, a.scalar if a.scalar.is_int else _int_type(tr))


def _int_type(tr: Translating) -> T.Scalar:
    """The type of an int made from a float (`int(x)`, `round(x)`, `math.floor(x)`): int32,
    int64 under Numba's typing."""
    return T.INT64 if tr.ctx.int64 else T.INT32


def _float(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    if args and strings.is_text(args[0]):
        if len(args) != 1 or kwargs:
            tr.fail(node, "float() takes one string")
        return str_parse.to_float(tr, strings.text_of(args[0]), node)
    if len(args) != 1 or kwargs:
        tr.fail(node, "float() in a kernel takes one number")
    a = tr.scalar(args[0], node)
    if isinstance(a, Known):
        try:
            return Known(float(a.value))
        except OverflowError as e:  # a known int past 1.8e308: Python raises too
            tr.fail(node, f"float() of a value known at compile time failed: {e}")
    assert isinstance(a, Value)
    return coerce(tr.b, a, a.scalar if a.scalar.is_float else T.float_type(tr.ctx.fp64))


def _bool(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    (a,) = args
    return tr.to_bool(a, node)


def _round(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    if _all_known(args):
        return Known(round(*[_kv(a) for a in args]))
    x = tr.scalar(args[0], node)
    assert isinstance(x, Value)
    if x.scalar.is_int or x.scalar.is_bool:
        return coerce(tr.b, x, T.INT32) if x.scalar.is_bool else x
    if len(args) == 1:
        r = tr.b.op("math", [x], [x.type], fn="rint").result
        return coerce(tr.b, r, _int_type(tr))
    nd = args[1]
    if not isinstance(nd, Known):
        tr.fail(node, "round(x, n) needs n known at compile time")
    scale = tr.const(10.0 ** int(nd.value), x.scalar)  # type: ignore[union-attr]
    r = tr.b.op("math", [tr.b.bin("mul", x, scale)], [x.type], fn="rint").result
    return tr.b.bin("div", r, scale)


def _each(kind: str) -> Handler:
    """`map(f, xs, ...)` and `filter(f, xs)` as the comprehensions they stand for:
    `[f(x, y) for x, y in zip(xs, ys)]`, `[x for x in xs if f(x)]` (`filter(None, xs)`: `if
    x`). Over a run-time sequence that is a run-time list (the items made at once, not
    lazily: the same values where `f` has no effect the loop reading them would see); over
    known items, unrolled; all known, CPython's own."""
    host = builtins.map if kind == "map" else builtins.filter

    def h(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
        if kwargs:
            tr.fail(node, f"{kind}() takes no keyword arguments")
        if len(args) < 2 or (kind == "filter" and len(args) != 2):
            what = "an iterable" if kind == "filter" else "one or more iterables"
            tr.fail(node, f"{kind}() takes a function and {what}")
        if _all_known(args):
            return _only_known(host, kind)(tr, args, kwargs, node)
        # filter: always a run-time list (an unrolled comprehension needs known conditions)
        return lists.each(tr, args[0], args[1:], node, keep=kind == "filter",
                          run_time=kind == "filter")  # fmt: skip

    return h


def _sorted(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    """`sorted(xs)`: a new run-time list (of a list, or of a tuple with run-time items)."""
    if _all_known([*args, *kwargs.values()]):
        return _only_known(builtins.sorted, "sorted")(tr, args, kwargs, node)
    if len(args) != 1:
        tr.fail(node, f"sorted expected 1 argument, got {len(args)}")
    src = args[0]
    if not lists.is_list(src):
        src = lists.make(tr, _items(tr, src, node), node)
    return list_ops.sorted_copy(tr, src, kwargs, node)  # type: ignore[arg-type]


def _sum(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    if _all_known([*args, *kwargs.values()]):
        return _only_known(builtins.sum, "sum")(tr, args, kwargs, node)
    if args and lists.is_list(args[0]):
        start = args[1] if len(args) > 1 else kwargs.get("start", Known(0))
        return list_ops.total(tr, args[0], start, node)  # type: ignore[arg-type]
    items = _items(tr, args[0], node)
    acc: V = args[1] if len(args) > 1 else kwargs.get("start", Known(0))
    if isinstance(acc, Known) and acc.value == 0 and items and not isinstance(items[0], Known):
        acc, items = items[0], items[1:]  # 0 + x is x: one add fewer per item list
    for x in items:
        acc = tr.binop("add", acc, x, node)
    return acc


def _as_at_run_time(host: Callable[..., Any]) -> Callable[..., Any]:
    """`host` folding known operands as the kernel computes them at run time: a domain error
    (`math.gamma(-2.0)`) is NaN and an overflow is inf, as in every backend's math library
    (builtins.elementwise), not a compile error that only known operands would raise."""

    def folded(*args: Any, **kwargs: Any) -> Any:
        try:
            return host(*args, **kwargs)
        except (ValueError, ZeroDivisionError):
            return math.nan
        except OverflowError:
            return math.inf

    folded.__module__ = getattr(host, "__module__", None) or "math"
    return folded


def _math(fn: MathFn, host: Callable[..., Any], to_int: bool = False) -> Handler:
    """The handler of a math function: evaluated in CPython (`host`) when every operand is
    known, else one `math` op per row (a tuple-valued row, as `frexp`, gives a tuple)."""
    name = fn.name
    shown = f"{getattr(host, '__module__', None) or 'numpy'}.{getattr(host, '__name__', name)}"
    allowed = {k for k, _ in fn.keywords}

    def h(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
        if name == "log" and len(args) == 2 and not kwargs and not _all_known(args):
            # math.log(x, base), as Python computes it: log(x) / log(base)
            return tr.binop("div", h(tr, args[:1], {}, node), h(tr, args[1:], {}, node), node)
        two_arg_log = name == "log" and len(args) == 2 and not kwargs
        if (len(args) != fn.nargs or set(kwargs) - allowed) and not two_arg_log:
            extra = f" and keywords {', '.join(sorted(allowed))}" if allowed else ""
            tr.fail(node, f"{shown}() takes {fn.nargs} argument(s){extra}")
        if _all_known([*args, *kwargs.values()]):
            folded = host if to_int or fn.result != "float" else _as_at_run_time(host)
            return _only_known(folded, name)(tr, args, kwargs, node)
        operands = [*args, *(kwargs.get(k, Known(d)) for k, d in fn.keywords)]
        if fn.parts:
            return Tup(tuple(_math_op(tr, MATH[p], operands, node) for p in fn.parts))
        r = _math_op(tr, fn, operands, node)
        return coerce(tr.b, r, _int_type(tr)) if to_int else r

    return h


def _math_op(tr: Translating, fn: MathFn, operands: list[V], node: ast.Call) -> Value:
    """One `math` op of row `fn`: float operands promoted to one float type (ints become
    float32, or float64 under fp64), int operands to one int type; the result per the row."""
    vals = [tr.scalar(a, node) for a in operands]
    kinds = fn.operand_kinds
    ft: T.Scalar | None = None
    it: T.Scalar | None = None
    for v, kind in zip(vals, kinds):
        st = scalar_type(v)
        if st is None:
            continue
        if kind != "float":
            if not (st.is_int or st.is_bool):
                tr.fail(node, f"math.{fn.name}() needs an integer here, not a {st.name}",
                        "convert it with int(...)")  # fmt: skip
            if kind == "int":
                it = st if it is None else T.promote(it, st)
        else:
            st = st if st.is_float else T.float_type(tr.ctx.fp64)
            ft = st if ft is None else T.promote(ft, st)
    if it is None or it.is_bool:
        it = T.INT32
    if ft is None:
        ft = T.float_type(tr.ctx.fp64)
    # "int32" operands are a C int on every backend (ldexp's exponent)
    types = {"float": ft, "int": it, "int32": T.INT32}
    typed = [coerce(tr.b, v, types[k]) for v, k in zip(vals, kinds)]
    res_t = {"bool": T.BOOL, "int": it, "float": ft}[fn.result]
    return tr.b.op("math", typed, [res_t], fn=fn.name).result


def _np_abs(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    return _abs(tr, args, kwargs, node)


def _where(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    if _all_known(args):
        return Known(np.where(*[_kv(a) for a in args]))
    c, a, b = args
    cond = tr.to_bool(c, node)
    if isinstance(cond, Known):
        return a if cond.value else b
    a, b = tr.scalar(a, node), tr.scalar(b, node)
    t = merge_scalar(a, b, tr.ctx.fp64)
    return tr.b.select(cond, coerce(tr.b, a, t), coerce(tr.b, b, t))  # type: ignore[arg-type]


# simt intrinsics ----------------------------------------------------------------------------
def _grid(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    if len(args) != 1 or not isinstance(args[0], Known) or args[0].value not in (1, 2, 3):
        tr.fail(node, "simt.grid(n) needs n = 1, 2 or 3, known at compile time")
    n = int(args[0].value)  # type: ignore[union-attr]
    b = tr.b
    out: list[V] = []
    for axis in range(n):
        out.append(
            b.bin(
                "add",
                b.bin("mul", b.special("block_idx", axis), b.special("block_dim", axis)),
                b.special("thread_idx", axis),
            )
        )
    if tr.ctx.int64:  # Numba's cuda.grid is int64
        out = [coerce(b, v, T.INT64) for v in out]
    return out[0] if n == 1 else Tup(tuple(out))


def _gridsize(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    if len(args) != 1 or not isinstance(args[0], Known) or args[0].value not in (1, 2, 3):
        tr.fail(node, "simt.gridsize(n) needs n = 1, 2 or 3, known at compile time")
    n = int(args[0].value)  # type: ignore[union-attr]
    b = tr.b
    out: list[V] = [
        b.bin("mul", b.special("block_dim", axis), b.special("grid_dim", axis)) for axis in range(n)
    ]
    if tr.ctx.int64:  # Numba's cuda.gridsize is int64
        out = [coerce(b, v, T.INT64) for v in out]
    return out[0] if n == 1 else Tup(tuple(out))


def _syncthreads(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    if args or kwargs:
        tr.fail(node, "simt.syncthreads() takes no arguments")
    tr.b.op("barrier")
    return Known(None)


def _fence(scope: str) -> Handler:
    def h(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
        if args or kwargs:
            tr.fail(node, "a memory fence takes no arguments")
        tr.b.op("fence", scope=scope)
        return Known(None)

    return h


def _warp_mask(tr: Translating, v: V, node: ast.AST) -> Value:
    if isinstance(v, Known):
        if not isinstance(v.value, (int, np.integer)) or not 0 <= int(v.value) < 2**32:
            tr.fail(node, "a warp mask is an integer from 0 to 0xFFFFFFFF (bit k: lane k)")
        return tr.const(int(v.value), T.UINT32)
    s = tr.scalar(v, node)
    if not (isinstance(s, Value) and s.scalar.is_int):
        tr.fail(node, "a warp mask is an integer (bit k: lane k)")
    return coerce(tr.b, s, T.UINT32)


_SHUFFLE_TYPES = (T.INT32, T.UINT32, T.INT64, T.UINT64, T.FLOAT32, T.FLOAT64)


def _warp(name: str, op: str, n: int) -> Handler:
    """The handler of warp function `name` (IR `warp` op `op`, `n` arguments)."""

    def h(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
        if name == "syncwarp" and not args and not kwargs:
            args = [Known(0xFFFFFFFF)]
        if kwargs or len(args) != n:
            sig = {0: "()", 1: "(mask)", 2: "(mask, predicate)"}.get(n, "(mask, value, lane)")
            tr.fail(node, f"{name}{sig} takes {n} positional argument(s)")
        b = tr.b
        ops = [_warp_mask(tr, args[0], node)] if n else []
        if op.startswith("shfl"):
            val = tr.scalar(args[1], node)
            if isinstance(val, Known):
                val = materialise(b, val, tr.ctx.fp64, tr.ctx.int64)
            assert isinstance(val, Value)
            if val.scalar not in _SHUFFLE_TYPES:
                if val.scalar.is_bool or (val.scalar.is_int and val.scalar.bits < 32):
                    val = coerce(b, val, T.INT32)
                else:
                    tr.fail(node, f"{name} moves int32, uint32, int64, uint64, float32 or "
                            f"float64 values, not {val.scalar}")  # fmt: skip
            lane = tr.scalar(args[2], node)
            if isinstance(lane, Value) and not lane.scalar.is_int:
                tr.fail(node, f"the lane of {name} is an integer")
            lane_v = coerce(b, lane, T.INT32)
            return b.op("warp", [*ops, val, lane_v], [val.scalar], op=op).result
        if n == 2:
            pred = tr.to_bool(args[1], node)
            if isinstance(pred, Known):
                pred = tr.const(bool(pred.value), T.BOOL)
            ops.append(pred)  # type: ignore[arg-type]
        result = {"ballot": [T.UINT32], "activemask": [T.UINT32], "all": [T.BOOL],
                  "any": [T.BOOL]}.get(op, [])  # fmt: skip
        got = b.op("warp", ops, result, op=op)
        return got.result if result else Known(None)

    return h


def _alloc(space: str) -> Handler:
    def h(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
        shape = args[0] if args else kwargs.get("shape")
        dtype = args[1] if len(args) > 1 else kwargs.get("dtype", Known(np.float32))
        if not isinstance(shape, Known):
            tr.fail(
                node,
                f"the shape of simt.{space}.array must be known at compile time",
                "use a constant, a global or a static argument",
            )
        dims = shape.value if isinstance(shape.value, tuple) else (shape.value,)
        t = dtype_arg(dtype) if dtype is not None else None
        if tr.ctx.int64 and isinstance(dtype, Known) and dtype.value in (int, float):
            t = T.INT64 if dtype.value is int else T.FLOAT64  # Numba's typing: NumPy's int/float
        if space == "shared" and dims in ((0,), ()) and t is not None:
            dims = (_dynamic_shared_length(tr, t, node),)
        if not all(isinstance(d, (int, np.integer)) and d > 0 for d in dims):
            tr.fail(
                node, f"simt.{space}.array shape must be positive integers, got {shape.value!r}"
            )
        if t is None:
            tr.fail(node, f"simt.{space}.array needs a dtype such as simt.float32 or np.int32")
        at = T.ArrayType(t, len(dims), space, tuple(int(d) for d in dims))  # type: ignore[arg-type]
        return tr.b.op("alloc", [], [at]).result

    return h


def _dynamic_shared_length(tr: Translating, t: T.Scalar, node: ast.Call) -> int:
    """The length of a dynamic shared array (`shared.array(0, dtype)`): the launch's bytes of
    dynamic shared memory (Numba's fourth launch argument) over the element size."""
    nbytes = tr.ctx.dynamic_shared
    if not nbytes:
        tr.fail(
            node,
            "shared.array(0, dtype) is dynamic shared memory, and this launch gives it no size",
            "launch with the size in bytes as the fourth launch argument: "
            "kernel[blocks, threads, 0, nbytes](...) (simt.cuda.jit kernels)",
        )
    n = nbytes // np.dtype(t.np).itemsize
    if n < 1:
        tr.fail(node, f"{nbytes} bytes of dynamic shared memory hold no {t} element")
    return n


def _atomic(op: str) -> Handler:
    def h(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
        n = 4 if op == "cas" else 3
        if len(args) != n or kwargs:
            tr.fail(
                node,
                f"simt.atomic.{op} takes {n} arguments: (array, index, "
                + ("compare, value)" if op == "cas" else "value)"),
            )
        arr = args[0]
        if isinstance(arr, View):  # an atomic on an element of a view: the array's element
            sub = ast.Subscript(ast.Name("_", ast.Load()), node.args[1], ast.Load())
            ast.copy_location(sub, node)
            arr, idx = views.target(tr, arr, ast.fix_missing_locations(sub))
        else:
            if not (isinstance(arr, Value) and isinstance(arr.type, T.ArrayType)):
                tr.fail(node, f"the first argument of simt.atomic.{op} must be an array")
            assert isinstance(arr, Value)
            idx = tr.index_values(arr, [args[1]], node)
        dt = arr.array.dtype
        if op in ("and", "or", "xor") and not dt.is_int:
            tr.fail(node, f"atomic bitwise operations need an integer array, not {dt}")
        if dt.is_storage:
            tr.fail(node, f"atomics on {dt} arrays are not supported: use 32- or 64-bit elements")
        vals = [coerce(tr.b, tr.scalar(v, node), dt) for v in args[2:]]
        if dt.is_bool and op != "cas":
            tr.fail(node, "atomics need an integer or float array")
        ok = raising.check_index(tr, arr, idx, node)  # an IndexError where checked here
        sure = ok is not None  # in bounds where it runs: a failed check raises (`busy`)
        busy = raising.any_raising(tr)
        if isinstance(busy, Known) and busy.value:
            return tr.b.const(0, dt)  # raising for sure: no atomic
        if not isinstance(busy, Known):  # a raising thread makes no atomic: its old value is 0
            not_raising = tr.b.un("not", busy)  # type: ignore[arg-type]

            def make() -> Value:
                if op == "cas":
                    made = tr.b.op("cas", [arr, *idx, *vals], [dt])
                else:
                    made = tr.b.op("atomic", [arr, *idx, *vals], [dt], op=op)
                if sure:
                    made.attrs["inbounds"] = True
                return made.result

            return raising.guarded_value(tr, not_raising, make, dt)
        if op == "cas":
            return tr.b.op("cas", [arr, *idx, *vals], [dt]).result
        if dt.is_bool:
            tr.fail(node, "atomics need an integer or float array")
        return tr.b.op("atomic", [arr, *idx, *vals], [dt], op=op).result

    return h


def _bit_function(tr: Translating, f: lang.BitFunction, args: list[V], node: ast.Call) -> V:
    """`popc/clz/ffs/brev(x)` on an integer: the 32- or 64-bit version by x's type."""
    if len(args) != 1:
        tr.fail(node, f"{f.name}() takes one integer argument")
    (x,) = args
    if isinstance(x, Known):
        return Known(f.host(x.value))
    v = tr.scalar(x, node)
    assert isinstance(v, Value)
    t = T.compute_type(v.scalar)
    if not t.is_int:
        tr.fail(node, f"{f.name}() needs an integer, not {t}")
    wide = t.bits == 64
    r = tr.scalar(tr.inline(f.impls[wide], [v], {}, node), node)
    result = {"arg": t, "uint32": T.UINT32, "unsigned": T.UINT64 if wide else T.UINT32}[f.result]
    return coerce(tr.b, r, result)


def print_call(tr: Translating, node: ast.Call) -> V:
    """print(...): literal text and typed fields, formatted on the host after the launch. A
    caught exception that may come from several places is printed by one print per place."""
    mark, env = len(tr.b.block.ops), dict(tr.env)
    try:
        return _print_call(tr, node)
    except raising.Split as split:
        del tr.b.block.ops[mark:]
        tr.env = env
        raising.each_site(tr, split.caught, lambda: _again(tr, node))
        return Known(None)


def _again(tr: Translating, node: ast.Call) -> None:
    print_call(tr, node)


def _write_mode(tr: Translating, node: ast.Call) -> str | None:
    """The mode of `open(path, mode)` when it opens for writing ("w" or "a"), else None."""
    mode = node.args[1] if len(node.args) > 1 else next(
        (k.value for k in node.keywords if k.arg == "mode"), None)  # fmt: skip
    if mode is None:
        return None
    v = tr.expr(mode)
    if isinstance(v, Known) and v.value in ("w", "a", "wt", "at"):
        return str(v.value)[0]
    return None


def _open_for_writing(tr: Translating, node: ast.Call, mode: str) -> V:
    """`open(path, "w")` in a kernel: each thread's file, its path formatted per thread (an
    f-string of the thread's index); a record the host reads after the launch
    (`simt.filewrites`). Returns the file object (`KernelFile`); `mode`: "w" or "a" (the
    mode's expression is translated once, by the caller)."""
    handle = tr.ctx.files
    tr.ctx.files += 1
    head = f"{MARK}ok{handle}{SEP}{mode}{SEP}"
    _record(tr, head, node.args[0] if node.args else None, node)
    return Obj(KernelFile, (("handle", Known(handle)),))


def _file_record(tr: Translating, f: Obj, method: str, node: ast.Call) -> V:
    """`f.write(text)` (any printable value or f-string) or `f.close()`: their records."""
    handle = f.get("handle").value
    if method == "close":
        if node.args:
            tr.fail(node, "close() takes no arguments")
        _record(tr, f"{MARK}ck{handle}", None, node)
        return Known(None)
    if len(node.args) != 1 or node.keywords:
        tr.fail(node, "write() takes one argument: the text")
    _record(tr, f"{MARK}wk{handle}{SEP}", node.args[0], node)
    return Known(None)


def _record(tr: Translating, head: str, arg: ast.expr | None, node: ast.AST) -> None:
    """A file record: `head`, the text of `arg` (printed as `print` would), the end mark."""
    parts: list[strings.Part] = [head]
    if isinstance(arg, ast.JoinedStr):
        parts.extend(fstring_parts(tr, arg))
    elif arg is not None:
        parts.extend(_print_value(tr, tr.expr(arg), arg, top=True))
    parts.append(MARK)
    _emit_parts(tr, parts)
    tr.ctx.file_records = True


def _emit_parts(tr: Translating, parts: list[strings.Part]) -> None:
    """One `print` op of literal and formatted `parts` (never empty: they end in a mark),
    skipped by a thread that has raised."""
    raising.guard_effect(tr, lambda: _print_ops(tr, parts))


def _print_call(tr: Translating, node: ast.Call) -> V:
    kw = {k.arg: k for k in node.keywords}
    for k in kw:
        if k not in ("sep", "end", "flush"):
            tr.fail(node, f"print(..., {k}=...) is not supported in kernels")

    def known_str(name: str, default: str) -> str:
        if name not in kw:
            return default
        v = tr.expr(kw[name].value)
        if not isinstance(v, Known) or not isinstance(v.value, (str, type(None))):
            tr.fail(kw[name], f"print's {name}= must be a string known at compile time")
        return default if v.value is None else v.value  # type: ignore[union-attr]

    sep, end = known_str("sep", " "), known_str("end", "\n")
    parts: list[strings.Part] = []
    for i, a in enumerate(node.args):
        if i:
            parts.append(sep)
        if isinstance(a, ast.JoinedStr):
            parts.extend(fstring_parts(tr, a))
            continue
        if _is_repr_call(tr, a):  # print(repr(s)) of a run-time string: its repr by the host
            assert isinstance(a, ast.Call)
            x = tr.expr(a.args[0])
            if strings.is_str(x):
                parts.append(Obj(strings.RRepr, (("s", x),)))
                continue
            v = _repr(tr, [x], {}, a)
        elif _is_repr_call(tr, a, builtins.str):  # print(str(e)) prints e: once per place
            assert isinstance(a, ast.Call)  # it may come from, not a string made of them all
            x = tr.expr(a.args[0])
            v = x if raising.is_caught(x) else _str(tr, [x], {}, a)
        else:
            v = tr.expr(a)
        if lists.is_list(v) or strings.is_str(v) or dicts.is_dict_like(v):  # printed by print
            # ops of its own (below)
            parts.append(v)  # type: ignore[arg-type]
            continue
        parts.extend(_print_value(tr, v, a, top=True))
    parts.append(end)
    raising.guard_effect(tr, lambda: _print_ops(tr, parts))
    return Known(None)


def _is_repr_call(tr: Translating, a: ast.expr, fn: object = builtins.repr) -> bool:
    """Whether `a` is `repr(x)` of the builtin repr (or of the builtin `fn`), one argument."""
    name = getattr(fn, "__name__", "")
    return isinstance(a, ast.Call) and isinstance(a.func, ast.Name) and a.func.id == name \
        and len(a.args) == 1 and not a.keywords and not isinstance(a.args[0], ast.Starred) \
        and _names_builtin(tr, a.func, fn)  # fmt: skip


def _names_builtin(tr: Translating, name: ast.Name, fn: object) -> bool:
    try:
        v = tr.lookup(name.id, name)
    except CompileError:
        return False
    return isinstance(v, Known) and v.value is fn


def _print_ops(tr: Translating, parts: list[Any]) -> None:
    """The print ops of one `print`: one for its text and numbers, and around each run-time
    list (whose length is known only at run time) the ops printing its items."""
    values: list[Value] = []
    out: list[str | Field] = []
    for p in parts:
        if isinstance(p, str):
            if out and isinstance(out[-1], str):
                out[-1] += p
            else:
                out.append(p)
        elif isinstance(p, Obj):  # a run-time list, dict, set or string, or a string's repr
            if out:
                _print_op(tr, values, tuple(out))
            values, out = [], []
            if p.cls is strings.RRepr:
                strings.print_repr(tr, p.get("s"))  # type: ignore[arg-type]
            elif lists.is_list(p):
                if lists.info_of(p).text:
                    strings.print_text_items(tr, p)
                else:
                    lists.print_items(tr, p)
            elif dicts.is_dict_like(p):
                dicts.print_items(tr, p)
            else:
                strings.print_chars(tr, p)
        else:
            values.append(p[0])
            out.append(Field(len(values) - 1, p[1]))
    if out:
        _print_op(tr, values, tuple(out))


def _print_op(tr: Translating, values: list[Value], parts: tuple[str | Field, ...]) -> None:
    tr.b.op("print", values, parts=parts)


def _print_value(tr: Translating, v: V, node: ast.AST, top: bool) -> list[str | tuple[Value, str]]:
    if strings.is_str(v) and top:
        return [v]  # type: ignore[list-item]
    if raising.is_caught(v):
        assert isinstance(v, Obj)
        parts = [strings.of_payload(tr, p) if isinstance(p, raising.RunTimeText) else p
                 for p in raising.message_parts(tr, v)]  # fmt: skip
        site = tr.ctx.sites[raising.caught_sites(v)[0] - 1]  # the one (else Split above)
        text = [Obj(strings.RRepr, (("s", p),)) for p in parts if isinstance(p, Obj)]
        suffix = raising.quoted_suffix(site.parts) if site.text else None
        if top and not v.has("repr"):  # str(e)
            return [*text, suffix] if suffix is not None else parts  # type: ignore[list-item]
        name = site.cls.__name__
        if site.instance is not None:  # built at compile time: Python's repr of it
            return [repr(site.instance)]
        if suffix:  # `'w' is not in list`, in double quotes (where w holds no quote)
            return [f'{name}("', *text, f'{suffix}")']  # type: ignore[list-item]
        if site.text:  # the repr of the string given
            return [f"{name}(", *text, ")"]  # type: ignore[list-item]
        if issubclass(site.cls, KeyError):  # its message is the key's repr already
            return [f"{name}(", *parts, ")"]
        return [f"{name}(", *_quoted(parts), ")"]
    if isinstance(v, Obj) and tr.method_of(v, "__simt_print__") is not None:
        return _printed_obj(tr, v, node)
    if isinstance(v, Known):
        return [str(v.value) if top else repr(v.value)]
    if isinstance(v, Tup) and v.mixed:
        tr.fail(
            node,
            "this value is a tuple on one path and a list on another, which Python prints "
            "differently ((1, 2) and [1, 2]); a kernel does not keep which one a thread has",
            "make it the same kind on every path: both tuples (a, b) or both lists [a, b]",
        )
    if isinstance(v, Tup):  # a tuple, or a list display: its items as their reprs
        out: list[Any] = ["[" if v.is_list else "("]
        for i, x in enumerate(v.items):
            if i:
                out.append(", ")
            if strings.is_str(x):
                out.append(Obj(strings.RRepr, (("s", x),)))
            elif lists.is_list(x) or dicts.is_dict_like(x):
                out.append(x)  # printed by print ops of its own (`_print_ops`)
            else:
                out.extend(_print_value(tr, x, node, top=False))
        out.append("]" if v.is_list else ",)" if len(v.items) == 1 else ")")
        return out
    if isinstance(v, View) or (isinstance(v, Value) and isinstance(v.type, T.ArrayType)):
        tr.fail(
            node,
            "print() of a whole array is not supported in kernels",
            "print its elements: print(a[i])",
        )
    if not isinstance(v, Value):
        # an object of the user's class: its fields are the user's to name
        own = isinstance(v, Obj) and not getattr(v.cls, "__module__", "simt").startswith("simt")
        tr.fail(
            node,
            f"print() cannot show {kind_of(v)} in a kernel",
            "print its fields (print(p.x, p.y))" if own
            else "print the numbers or strings it gives instead (of a file: what f.read() returns)",
        )
    return [(v, "")]


def _printed_obj(tr: Translating, v: Obj, node: ast.AST) -> list[str | tuple[Value, str]]:
    """What `print` writes for an object whose class says it with `__simt_print__`: a tuple
    of known strings (written as they are) and numbers (formatted)."""
    m = tr.method_of(v, "__simt_print__")
    assert m is not None
    r = tr.call_method(m, [], node)  # type: ignore[arg-type]
    items = r.items if isinstance(r, Tup) else r.value if isinstance(r, Known) else (r,)
    out: list[str | tuple[Value, str]] = []
    for x in items:
        x = x.value if isinstance(x, Known) else x
        if isinstance(x, Value) and isinstance(x.type, T.Scalar):
            out.append((x, ""))
        else:
            out.append(str(x))
    return out


def _quoted(parts: list[str | tuple[Value, str]]) -> list[str | tuple[Value, str]]:
    """A message as its repr would show it: in quotes (when it holds no run-time number,
    quoted as Python quotes it)."""
    if all(isinstance(p, str) for p in parts):
        return [repr("".join(parts))]  # type: ignore[arg-type]
    return ["'", *parts, "'"]


def _str(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    """`str(x)`: of a caught exception, its message (a value `print` and f-strings show);
    otherwise of known values only."""
    if len(args) == 1 and not kwargs and raising.is_caught(args[0]):
        e = args[0]
        assert isinstance(e, Obj)
        return strings.value_of(strings.message_text(tr, e, node))
    if len(args) == 1 and not kwargs and not isinstance(args[0], Known):
        return strings.value_of(str_format.str_of(tr, args[0], node))
    return _only_known(str, "str")(tr, args, kwargs, node)


def _repr(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    """`repr(x)`: of a caught exception, `Class('message')` (a value `print` shows)."""
    if len(args) == 1 and not kwargs and raising.is_caught(args[0]):
        return args[0].with_field("repr", Known(True))  # type: ignore[union-attr]
    if len(args) == 1 and not kwargs and strings.is_str(args[0]):
        return strings.value_of(strings.repr_text(tr, args[0], node))  # type: ignore[arg-type]
    if (len(args) == 1 and not kwargs and isinstance(args[0], Value)
            and isinstance(args[0].type, T.Scalar)):  # fmt: skip
        # a number's repr is its str: an int's digits, True/False, a float's shortest digits
        # (a float32's as `print` shows it, not numpy's `np.float32(...)`)
        return strings.value_of(str_format.str_of(tr, args[0], node))
    return _only_known(repr, "repr")(tr, args, kwargs, node)


def _chr(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    """`chr(i)` of a run-time int: a one-character string (ValueError outside
    range(0x110000), as Python's)."""
    if len(args) == 1 and not kwargs and isinstance(args[0], Value) and \
            isinstance(args[0].type, T.Scalar) and args[0].type.is_int:  # fmt: skip
        b = tr.b
        tr.at(node)
        c = args[0]
        wide = T.INT64 if c.scalar.bits == 64 or c.scalar == T.UINT32 else T.INT32
        cw = coerce(b, c, wide)
        ok = b.bin("and", b.cmp("ge", cw, b.const(0, wide)),
                   b.cmp("lt", cw, b.const(0x110000, wide)))  # fmt: skip
        lists.raise_unless(tr, ValueError, ok, "chr() arg not in range(0x110000)", node)
        code = coerce(b, b.select(ok, cw, b.const(0, wide)), T.INT32)
        return strings.new(tr, strings.i32(tr, 1), "a character", node,
                           lambda at: strings.put(tr, at, strings.i32(tr, 0), code))
    return _only_known(chr, "chr")(tr, args, kwargs, node)


def _ord(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    """`ord(c)` of a run-time string of one character (TypeError otherwise, as Python's)."""
    if len(args) == 1 and not kwargs and strings.is_str(args[0]):
        s = args[0]
        assert isinstance(s, Obj)
        b = tr.b
        tr.at(node)
        n = strings.length(tr, s)
        one = strings.i32(tr, 1)
        raising.raise_builtin(
            tr, TypeError, b.cmp("ne", n, one),
            ("ord() expected a character, but string of length ", 0, " found"), node,
            (coerce(b, n, raising.payload_type(tr)), Known(0)),
        )  # fmt: skip
        return b.select(b.cmp("eq", n, one), strings.char(tr, s, strings.i32(tr, 0)),
                        strings.i32(tr, 0))  # fmt: skip
    return _only_known(ord, "ord")(tr, args, kwargs, node)


def _ascii(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    """`ascii(s)`: of a run-time string, its repr with every non-ASCII character escaped."""
    if len(args) == 1 and not kwargs and strings.is_str(args[0]):
        return strings.value_of(strings.repr_text(tr, args[0], node, ascii_only=True))  # type: ignore[arg-type]
    return _only_known(ascii, "ascii")(tr, args, kwargs, node)


def fstring_parts(tr: Translating, node: ast.JoinedStr, built: bool = False) -> list[strings.Part]:
    """The literal and formatted pieces of an f-string; known values are formatted now. Each
    `{expr}` is translated once, here. `built`: the pieces of a run-time string
    (`str_format.from_parts`), which formats a run-time string given a spec itself (after
    the pieces before it, so that its words follow theirs: nothing copied)."""
    out: list[strings.Part] = []
    for piece in node.values:
        if isinstance(piece, ast.Constant):
            out.append(str(piece.value))
            continue
        assert isinstance(piece, ast.FormattedValue)
        spec = ""
        if piece.format_spec is not None:
            sp = fstring_parts(tr, piece.format_spec)  # type: ignore[arg-type]
            if not all(isinstance(s, str) for s in sp):  # run-time width or precision
                v = tr.expr(piece.value)
                out.append(str_format.nested(tr, v, sp, piece.conversion, piece))
                continue
            spec = "".join(sp)  # type: ignore[arg-type]
        v = tr.expr(piece.value)
        part = str_format.field(tr, v, spec, piece.conversion, piece, built)
        if part is not None:
            out.append(part)
        elif isinstance(v, Tup) and not spec:
            out.extend(_print_value(tr, v, piece, top=False))
        elif raising.is_caught(v) and not spec:
            out.extend(_print_value(tr, v, piece, top=piece.conversion != ord("r")))
        elif isinstance(v, Obj) and not spec and tr.method_of(v, "__simt_print__") is not None:
            shown = _printed_obj(tr, v, piece)
            if built and any(isinstance(p, str) and MARK in p for p in shown):
                # (the host writes its text where a print record names it: a string of the
                # thread's would hold the record's marker, not the text)
                what = getattr(v.cls, "__simt_kind__", ("this object",))[0]
                tr.fail(piece, f"{what} cannot go into a string built at run time: its text is "
                        "written by the host where it is printed",
                        "print it, or an f-string holding it: print(f'...{x}...')")  # fmt: skip
            out.extend(shown)
        else:
            tr.fail(piece, "only numbers and strings can be formatted in a kernel's f-string")
    return out


def _isinstance(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    obj, cls = args
    if not isinstance(cls, Known):
        tr.fail(node, "isinstance() needs a class known at compile time")
    c = cls.value
    if raising.is_caught(obj):
        return raising.isinstance_of(tr, obj, c if isinstance(c, tuple) else (c,))  # type: ignore[arg-type]
    if isinstance(obj, Known):
        return Known(isinstance(obj.value, c))
    if isinstance(obj, Obj):  # (a string built at run time is a str, as in Python)
        return Known(issubclass(str if strings.is_str(obj) else obj.cls, c))
    if isinstance(obj, Tup):
        return Known(issubclass(tuple, c) if isinstance(c, type) else tuple in c)
    if isinstance(obj, (View, CArray)):
        py: type = np.ndarray
    elif isinstance(obj, Value):
        t = obj.type
        py = (
            (float if t.is_float else bool if t.is_bool else int)
            if isinstance(t, T.Scalar)
            else np.ndarray
        )
    else:
        tr.fail(node, f"isinstance() cannot tell the class of {kind_of(obj)} in a kernel")
    return Known(issubclass(py, c) if isinstance(c, type) else any(issubclass(py, x) for x in c))


def _complex(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
    """`complex(re, im)`: a complex constant when both are known, else a `Complex` of two
    floats (integers are converted to the default float)."""
    from ..complexnum import Complex

    if kwargs or not 1 <= len(args) <= 2:
        tr.fail(node, "complex() in a kernel takes a real and an imaginary part: complex(a, b)")
    if all(isinstance(a, Known) for a in args):
        return Known(complex(*[_kv(a) for a in args]))
    parts: list[V] = []
    for a in [*args, Known(0.0)][:2]:
        if isinstance(a, Known):
            parts.append(Known(float(a.value)))
            continue
        x = tr.scalar(a, node)
        assert isinstance(x, Value)
        parts.append(x if x.scalar.is_float else coerce(tr.b, x, T.float_type(tr.ctx.fp64)))
    return tr.construct(Complex, parts, {}, node)


def _cmath(name: str, host: Any) -> Handler:
    """`cmath.<name>(z)`: computed in CPython on a known number, else inlined from
    `simt.complexnum` (real arguments count as complex)."""

    def h(tr: Translating, args: list[V], kwargs: dict[str, V], node: ast.Call) -> V:
        from .. import complexnum

        if kwargs or len(args) != 1:
            tr.fail(node, f"cmath.{name}() takes one argument")
        (z,) = args
        if isinstance(z, Known):
            return Known(host(z.value))
        return tr.inline(getattr(complexnum, name), [z], {}, node)

    return h


def _handlers() -> dict[Any, Handler]:
    h: dict[Any, Handler] = {
        builtins.isinstance: _isinstance,
        builtins.str: _str,
        builtins.repr: _repr,
        builtins.ascii: _ascii,
        builtins.chr: _chr,
        builtins.ord: _ord,
        builtins.format: str_format.builtin,
        builtins.len: _len,
        builtins.min: _minmax("min"),
        builtins.max: _minmax("max"),
        builtins.abs: _abs,
        builtins.int: _int,
        builtins.float: _float,
        builtins.bool: _bool,
        builtins.round: _round,
        builtins.sum: _sum,
        builtins.sorted: _sorted,
        builtins.map: _each("map"),
        builtins.filter: _each("filter"),
        builtins.range: _only_known(range, "range"),
        builtins.zip: _seq_fn("zip"),
        builtins.enumerate: _seq_fn("enumerate"),
        builtins.reversed: _seq_fn("reversed"),
        builtins.tuple: _seq_fn("tuple"),
        builtins.list: _seq_fn("list"),
        builtins.dict: dicts.dict_call,
        builtins.set: dicts.set_call,
        lang.grid: _grid,
        lang.gridsize: _gridsize,
        lang.syncthreads: _syncthreads,
        lang.threadfence: _fence("device"),
        lang.threadfence_block: _fence("block"),
        lang.threadfence_system: _fence("system"),
        lang.syncwarp: _warp("syncwarp", "syncwarp", 1),
        lang.activemask: _warp("activemask", "activemask", 0),
        lang.ballot_sync: _warp("ballot_sync", "ballot", 2),
        lang.all_sync: _warp("all_sync", "all", 2),
        lang.any_sync: _warp("any_sync", "any", 2),
        lang.shfl_sync: _warp("shfl_sync", "shfl", 3),
        lang.shfl_up_sync: _warp("shfl_up_sync", "shfl_up", 3),
        lang.shfl_down_sync: _warp("shfl_down_sync", "shfl_down", 3),
        lang.shfl_xor_sync: _warp("shfl_xor_sync", "shfl_xor", 3),
        lang.shared.array: _alloc("shared"),  # type: ignore[attr-defined]
        lang.local.array: _alloc("local"),  # type: ignore[attr-defined]
        np.abs: _np_abs,
        np.minimum: _minmax("min"),
        np.maximum: _minmax("max"),
        np.where: _where,
        builtins.complex: _complex,
        cmath.exp: _cmath("exp", cmath.exp),
        cmath.log: _cmath("log", cmath.log),
        cmath.sqrt: _cmath("sqrt", cmath.sqrt),
        cmath.phase: _cmath("phase", cmath.phase),
    }
    for op in ("add", "sub", "min", "max", "exch", "cas", "xor"):
        h[getattr(lang.atomic, op)] = _atomic(op)
    h[lang.atomic.and_] = _atomic("and")  # type: ignore[attr-defined]  # Numba's spellings
    h[lang.atomic.or_] = _atomic("or")  # type: ignore[attr-defined]
    for fn in MATH.values():
        if not fn.public:
            continue
        if hasattr(math, fn.name):  # (`rint` is NumPy's only)
            h[getattr(math, fn.name)] = _math(fn, getattr(math, fn.name), fn.name in TO_INT)
        if fn.numpy is not None and fn.numpy not in h:
            h[fn.numpy] = _math(fn, fn.numpy)
    return h


_HANDLERS = _handlers()
__all__ = ["call", "attribute", "print_call", "fstring_parts", "dtype_arg", "is_number"]
