"""Merging the environments of two control-flow paths into SSA results.

After the two branches of an `if` have been translated, each variable that differs between
them becomes a result of the `if` op, yielded by both branches. Known values that agree stay
known; numbers that differ are materialised in each branch with one type (docs/semantics.md);
tuples merge item by item; anything else that differs (two arrays, two different known
objects) becomes UNDEF, an error only if it is used afterwards.
"""

from __future__ import annotations

from typing import Any

from .. import types as T
from ..ir import Block, Builder, Value, walk
from .scalars import coerce, known_type, merge_type
from .values import UNDEF, Known, Obj, Tup, V, is_number, same


def _scalar_type(v: V, other: V, fp64: bool) -> T.Scalar | None:
    """The type `v` contributes to a merge with `other`; None if it is not a scalar."""
    if isinstance(v, Value):
        return v.type if isinstance(v.type, T.Scalar) else None
    if isinstance(v, Known) and is_number(v.value):
        ot = other.type if isinstance(other, Value) and isinstance(other.type, T.Scalar) else None
        return known_type(v.value, ot, fp64)
    return None


def _is_complex(v: V) -> bool:
    from ..complexnum import Complex

    return (isinstance(v, Known) and isinstance(v.value, complex)) or (
        isinstance(v, Obj) and v.cls is Complex
    )


def _as_complex(v: V) -> V:
    """`v` as a complex object (`Complex`) when it is a known complex or a real number (its
    real part), so that one path's complex merges with the other's (`z = 1j` / `z =
    complex(x, y)`; `z = 0.0` / `z = complex(x, y)`); anything else unchanged."""
    from ..complexnum import Complex

    if isinstance(v, Known) and isinstance(v.value, complex):
        return Obj(Complex, (("re", Known(v.value.real)), ("im", Known(v.value.imag))))
    if (isinstance(v, Known) and is_number(v.value) and not isinstance(v.value, bool)) or (
        isinstance(v, Value) and isinstance(v.type, T.Scalar) and not v.type.is_bool
    ):
        return Obj(Complex, (("re", v), ("im", Known(0.0))))
    return v


def _same_list_info(a: V, b: V) -> bool:
    """Whether `a` and `b` are the known item types of two run-time lists that one variable
    may hold (a list, or a dict's keys or values): the same type, or one list still without
    a type (`xs = []` on one path, `xs = [5]` on the other), which takes the other's."""
    from .lists import is_info, unify_infos

    return (
        isinstance(a, Known)
        and isinstance(b, Known)
        and is_info(a.value)
        and is_info(b.value)
        and unify_infos(a.value, b.value)
    )


class ListPlan(list):  # type: ignore[type-arg]
    """The plan of a list display's items (a `Tup` with `is_list`, or a known list): the
    merged value is a list too (printed `[1, 2]`)."""


class MixedPlan(list):  # type: ignore[type-arg]
    """The plan of a tuple on one path and a list display on the other (or of a value that
    is either already): the merged value is a `Tup` marked `mixed`."""


def _is_list_display(v: V) -> bool:
    return (isinstance(v, Tup) and v.is_list) or (
        isinstance(v, Known) and isinstance(v.value, list)
    )


def _is_mixed(v: V) -> bool:
    return isinstance(v, Tup) and v.mixed


def _sequence_plan(made: list[Any], *vs: V) -> list[Any]:
    """The plan of the merged items `made` of the sequences `vs`: a list display where all
    are, mixed where some are and others are tuples, a tuple plan otherwise."""
    if any(_is_mixed(v) for v in vs) or len({_is_list_display(v) for v in vs}) > 1:
        return MixedPlan(made)
    return ListPlan(made) if _is_list_display(vs[0]) else made


def plan(a: V, b: V, fp64: bool, keep: bool = False) -> Any:
    """What the merged value of `a` and `b` is: a Scalar type (materialise both), a list of
    plans (tuples), the value itself (no merge needed), or UNDEF. `keep`: where one is UNDEF
    (its path left: returned, raised), an array or known object the other holds is kept."""
    if same(a, b) or _same_list_info(a, b):
        return ("same", a)
    if (_is_complex(a) or _is_complex(b)) and a is not UNDEF and b is not UNDEF:
        a, b = _as_complex(a), _as_complex(b)
    if a is UNDEF or b is UNDEF:
        # defined on one path only (a helper's return value before its early `return`, say):
        # the other path carries zeros of the same shape, never read
        other = b if a is UNDEF else a
        if isinstance(other, Known) and isinstance(other.value, complex):
            other = _as_complex(other)  # carried as its two parts
        items = _items(other)
        if items is not None:
            made = [plan(UNDEF, x, fp64, keep) for x in items]
            return _sequence_plan(made, other)
        if isinstance(other, Obj):
            return (
                "obj",
                other.cls,
                [k for k, _ in other.fields],
                [plan(UNDEF, x, fp64, keep) for _, x in other.fields],
            )
        t = _scalar_type(other, other, fp64)
        if t is None and keep and (
            (isinstance(other, Value) and isinstance(other.type, T.ArrayType))
            or (isinstance(other, Known) and not is_number(other.value))
        ):
            # an array or a known object is the same on the path that has it; the other
            # path never reads it (merge_into drops an array made inside a branch)
            return ("same", other)
        return t if t is not None else UNDEF
    if (
        isinstance(a, (Tup, Known))
        and isinstance(b, (Tup, Known))
        and (isinstance(a, Tup) or isinstance(b, Tup) or _is_list_display(a) or _is_list_display(b))
    ):
        ia, ib = _items(a), _items(b)
        if ia is None or ib is None or len(ia) != len(ib):
            return UNDEF
        made = [plan(x, y, fp64) for x, y in zip(ia, ib)]
        return _sequence_plan(made, a, b)
    if isinstance(a, Obj) and isinstance(b, Obj):
        keys = [k for k, _ in a.fields]
        if a.cls is not b.cls or keys != [k for k, _ in b.fields]:
            return UNDEF
        return (
            "obj",
            a.cls,
            keys,
            [plan(x, y, fp64) for (_, x), (_, y) in zip(a.fields, b.fields)],
        )
    ta, tb = _scalar_type(a, b, fp64), _scalar_type(b, a, fp64)
    if ta is None or tb is None:
        return UNDEF
    return merge_type(ta, tb)


def _has_same_array(p: Any) -> bool:
    if isinstance(p, tuple) and p and p[0] == "same":
        return isinstance(p[1], Value)
    if isinstance(p, list):
        return any(_has_same_array(q) for q in p)
    if isinstance(p, tuple) and p and p[0] == "obj":
        return any(_has_same_array(q) for q in p[3])
    return False


def _outer_only(p: Any, inner: set[int]) -> Any:
    """Plan `p` with the arrays made inside the branches (not visible after them) undefined."""
    if isinstance(p, tuple) and p and p[0] == "same":
        return UNDEF if isinstance(p[1], Value) and p[1].id in inner else p
    if isinstance(p, list):
        return type(p)(_outer_only(q, inner) for q in p)
    if isinstance(p, tuple) and p and p[0] == "obj":
        return (*p[:3], [_outer_only(q, inner) for q in p[3]])
    return p


def _items(v: V) -> list[V] | None:
    if isinstance(v, Tup):
        return list(v.items)
    if isinstance(v, Known) and isinstance(v.value, (tuple, list)):
        return [Known(x) for x in v.value]
    return None


def _materialise(b: Builder, v: V, p: Any, out: list[Value]) -> None:
    """Append to `out` the typed values that carry `v` according to plan `p`."""
    if isinstance(p, T.Scalar):
        if v is UNDEF:
            out.append(b.const(False if p.is_bool else 0, p))
        else:
            out.append(coerce(b, v, p))
    elif isinstance(p, list):
        items = _items(v) if v is not UNDEF else [UNDEF] * len(p)
        assert items is not None
        for x, q in zip(items, p):
            _materialise(b, x, q, out)
    elif isinstance(p, tuple) and p[0] == "obj":
        if v is not UNDEF and not isinstance(v, Obj):
            v = _as_complex(v)  # the known complex or real number of one path
        fields = [x for _, x in v.fields] if isinstance(v, Obj) else [UNDEF] * len(p[3])
        for x, q in zip(fields, p[3]):
            _materialise(b, x, q, out)


def _rebuild(p: Any, results: list[Value]) -> V:
    """The merged value, taking typed values from `results` in order."""
    if isinstance(p, T.Scalar):
        return results.pop(0)
    if isinstance(p, list):
        items = tuple(_rebuild(q, results) for q in p)
        if isinstance(p, MixedPlan):
            return Tup(items, mixed=True)
        if all(isinstance(x, Known) for x in items):
            known = [x.value for x in items]  # type: ignore[union-attr]
            return Known(known if isinstance(p, ListPlan) else tuple(known))
        return Tup(items, is_list=isinstance(p, ListPlan))
    if isinstance(p, tuple) and p and p[0] == "same":
        return p[1]  # type: ignore[no-any-return]
    if isinstance(p, tuple) and p and p[0] == "obj":
        return Obj(p[1], tuple((k, _rebuild(q, results)) for k, q in zip(p[2], p[3])))
    return UNDEF


def _types(p: Any) -> list[T.Scalar]:
    if isinstance(p, T.Scalar):
        return [p]
    if isinstance(p, list):
        return [t for q in p for t in _types(q)]
    if isinstance(p, tuple) and p and p[0] == "obj":
        return [t for q in p[3] for t in _types(q)]
    return []


def merge_into(
    b: Builder,
    cond: Value,
    then_block: Block,
    else_block: Block,
    env_t: dict[str, V],
    env_e: dict[str, V],
    fp64: bool,
    partial: dict[int, Value] | None = None,
) -> dict[str, V]:
    """Finish an `if` on `cond` whose branches were translated into the two blocks, leaving
    environments `env_t` and `env_e`; append the op and return the merged environment.

    A variable assigned on one path only (and not after a `return`, `break` or `continue` on
    the other) gets a merged value all the same, so that a return value or a loop can carry
    it; the ids of its values are added to `partial`, and reading it is an error."""
    names = [n for n in dict.fromkeys([*env_t, *env_e]) if n != "$left"]
    # A flag that is True on one path and False on the other is the condition itself.
    derived: dict[str, bool] = {}
    for n in names:
        vt, ve = env_t.get(n), env_e.get(n)
        if (
            isinstance(vt, Known)
            and isinstance(ve, Known)
            and isinstance(vt.value, bool)  # first: other known values may be unhashable
            and isinstance(ve.value, bool)
            and vt.value != ve.value
        ):
            derived[n] = bool(vt.value)
    names = [n for n in names if n not in derived]
    plans = {
        n: plan(env_t.get(n, UNDEF), env_e.get(n, UNDEF), fp64, n.startswith("$") or any(
            e.get(n, UNDEF) is UNDEF and _left(e) for e in (env_t, env_e)))
        for n in names
    }  # fmt: skip
    inner: set[int] | None = None
    for n, p in plans.items():
        if _has_same_array(p):
            if inner is None:
                inner = {
                    r.id for blk in (then_block, else_block) for op in walk(blk) for r in op.results
                }
            plans[n] = _outer_only(p, inner)
    for block, env in ((then_block, env_t), (else_block, env_e)):
        with b.at(block):
            vals: list[Value] = []
            for n in names:
                _materialise(b, env.get(n, UNDEF), plans[n], vals)
            b.op("yield", vals)
    types = [t for n in names for t in _types(plans[n])]
    op = b.op("if", [cond], types, [then_block, else_block])
    results = list(op.results)
    merged: dict[str, V] = {}
    for n in names:
        v = _rebuild(plans[n], results)
        if isinstance(v, Value) and not v.hint and not n.startswith("$"):
            v.hint = n
        merged[n] = v
        if partial is not None and not n.startswith("$"):
            one_path = [e for e in (env_t, env_e) if e.get(n, UNDEF) is UNDEF and not _left(e)]
            if one_path and v is not UNDEF:
                partial.update((id(x), x) for x in leaf_values(v))
    for n, positive in derived.items():
        merged[n] = cond if positive else b.un("not", cond)
    return merged


def _left(env: dict[str, V]) -> bool:
    """Whether this path surely left the block (return, break or continue ran)."""
    return any(
        isinstance(env.get(f), Known) and env[f].value is True  # type: ignore[union-attr]
        for f in ("$ret", "$brk", "$cnt", "$raised", "$left")
    )


def leaf_values(v: V) -> list[Value]:
    if isinstance(v, Value):
        return [v]
    if isinstance(v, Tup):
        return [x for item in v.items for x in leaf_values(item)]
    if isinstance(v, Obj):
        return [x for _, f in v.fields for x in leaf_values(f)]
    return []
