"""The executable semantics of the IR's operators: one row per `bin`, `cmp` and `un` operator,
each a NumPy expression over arrays or NumPy scalars of the operation's type, executable as
a Python function (`fn`, `evaluate`), in the manner of tinygrad's `python_alu`; the `select`
op's row (`SELECT`, `select`); and the one conversion of a `cast` op (`cast`).

This table is the one definition every evaluator reads: constant folding (`passes/fold.py`,
on NumPy scalars), the `sim` backend (it writes the rows' expressions into its NumPy
programs) and the cost model's evaluator (`benchtool/cost.py`).
tests/ir/test_semantics.py runs every row through the three and through every backend.

The rules the rows state (docs/semantics.md): integers wrap (two's complement); `//` and `%`
are floored, and an integer division or remainder by zero is 0; a shift amount is taken
modulo the width; an integer power with a negative exponent is 0 except for a base of 1 or
-1; `not` of a number is 1 where it is zero, else 0, in its own type; float operations are
IEEE in the operation's type, with NumPy's NaN propagation for `min`/`max`; a cast wraps an
integer into the target's width, truncates a float toward zero to an integer (a float outside
the integer's range, NaN or an infinity gives a value the semantics leave unspecified: folding
leaves such a cast to run time), rounds once to a float, and gives a bool `x != 0`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .ops import BIN_OPS, CMP_OPS, UN_OPS

Fn = Callable[..., Any]


def ipow(a: Any, b: Any) -> Any:
    """Integer power by repeated squaring (wrapping); a negative exponent gives 0, except for a
    base of 1 (1) or -1 (1 or -1 by parity)."""
    dt = np.asarray(a).dtype
    neg = b < 0
    if not np.any(neg):
        return np.power(a, b)
    vector = isinstance(a, np.ndarray) or isinstance(b, np.ndarray)
    zero = np.zeros((), np.asarray(b).dtype)
    r = np.power(a, np.where(neg, zero, b))
    one = np.ones((), dt)
    odd = (b & np.ones((), np.asarray(b).dtype)) != 0
    at_neg = np.where(a == one, one, np.where(a == -one, np.where(odd, -one, one), one * 0))
    out = np.where(neg, at_neg, r).astype(dt, copy=False)
    return out if vector else out[()]


# Each row is the NumPy expression of the operator over operands `{a}` and `{b}` (`{w}`: the
# shift-amount mask of the type, bits - 1; `{t}`: the NumPy type), or such expressions by
# the operand type's kind ("b" bool, "iu" integer, "f" float). `sim` writes the expression
# into its programs; `fn(opcode, name)` is the same expression as a Python function.
Row = str | dict[str, str]
BIN: dict[str, Row] = {
    "add": "{a} + {b}",
    "sub": "{a} - {b}",
    "mul": "{a} * {b}",
    "div": "{a} / {b}",
    "floordiv": "{a} // {b}",
    "mod": "{a} % {b}",
    "pow": {"f": "{a} ** {b}", "iu": "_ipow({a}, {b})"},
    "min": "np.minimum({a}, {b})",
    "max": "np.maximum({a}, {b})",
    "and": "{a} & {b}",
    "or": "{a} | {b}",
    "xor": "{a} ^ {b}",
    "shl": "{a} << ({b} & {w})",  # the shift amount is taken modulo the width
    "shr": "{a} >> ({b} & {w})",  # arithmetic for signed types
}
CMP: dict[str, Row] = {
    "eq": "{a} == {b}",
    "ne": "{a} != {b}",
    "lt": "{a} < {b}",
    "le": "{a} <= {b}",
    "gt": "{a} > {b}",
    "ge": "{a} >= {b}",
}
UN: dict[str, Row] = {
    "neg": "-{a}",
    "not": {"b": "~{a}", "iuf": "_cast({a} == 0, {t})"},  # a number: 1 where zero, else 0
    "invert": "~{a}",
    "abs": "np.abs({a})",
}
TABLE: dict[str, dict[str, Row]] = {"bin": BIN, "cmp": CMP, "un": UN}
assert set(BIN) == set(BIN_OPS) and set(CMP) == set(CMP_OPS) and set(UN) == set(UN_OPS)


# The bin rows that are one NumPy ufunc for every operand kind: what `sim` computes straight
# into an array's elements when a store takes the op's result (`sim_lib.store_op`).
# tests/ir/test_semantics.py checks each against its row.
UFUNC: dict[str, str] = {
    "add": "np.add", "sub": "np.subtract", "mul": "np.multiply", "div": "np.true_divide",
    "floordiv": "np.floor_divide", "mod": "np.remainder", "min": "np.minimum",
    "max": "np.maximum", "and": "np.bitwise_and", "or": "np.bitwise_or", "xor": "np.bitwise_xor",
}  # fmt: skip


def cast(a: Any, t: Any) -> Any:
    """`a` (an array, a NumPy scalar or a Python bool) as NumPy type `t`, keeping scalars
    scalars: the `cast` op (see the module docstring for what it does)."""
    if isinstance(a, (np.ndarray, np.generic)):
        return a.astype(t)
    return np.asarray(a).astype(t)[()]


def select(c: Any, a: Any, b: Any) -> Any:
    """The `select` op: `a` where `c`, else `b` (operands of one type); a scalar `c` picks one
    whole operand (folding picks an operand value with it)."""
    if isinstance(c, np.ndarray):
        return np.where(c, a, b)
    return a if c else b


# The `select` op's row, as the bin/cmp/un rows: the expression over the operand texts `{c}`
# (the bool), `{a}` (taken where it holds) and `{b}`; `select` is it as a function.
SELECT = "_select({c}, {a}, {b})"

# what the expressions call, bound in the namespace they are evaluated in (sim's too)
HELPERS: dict[str, Any] = {"np": np, "_ipow": ipow, "_cast": cast, "_select": select}


def _kind(dtype: np.dtype[Any]) -> str:
    return "b" if dtype == np.bool_ else "f" if dtype.kind == "f" else "iu"


def expression(opcode: str, name: str, kind: str, a: str, b: str = "", w: str = "",
               t: str = "") -> str:  # fmt: skip
    """The NumPy expression of operator `name` of `opcode` for operands of `kind` ("b", "iu"
    or "f"), over the operand texts `a` and `b`, with `w` the text of the type's shift mask
    and `t` of its NumPy type."""
    row = TABLE[opcode][name]
    if isinstance(row, dict):
        row = next(v for k, v in row.items() if kind in k)
    return row.format(a=a, b=b, w=w, t=t)


_compiled: dict[tuple[str, str, str], Fn] = {}


def fn(opcode: str, name: str, dtype: Any) -> Fn:
    """Operator `name` of `opcode` on operands of NumPy `dtype`, as a Python function of its
    operands (compiled from the row's expression once)."""
    dt = np.dtype(dtype)
    kind = _kind(dt)
    key = (opcode, name, dt.str)
    f = _compiled.get(key)
    if f is None:
        bits = dt.itemsize * 8
        ns = {**HELPERS, "_w": dt.type(bits - 1) if kind == "iu" else None, "_t": dt.type}
        text = expression(opcode, name, kind, "a", "b", "_w", "_t")
        params = "a, b" if opcode != "un" else "a"
        f = eval(f"lambda {params}: {text}", ns)  # noqa: S307 - the table's own expressions
        _compiled[key] = f
    return f


def evaluate(opcode: str, name: str, *args: Any) -> Any:
    """Operator `name` of `opcode` ("bin", "cmp" or "un") on NumPy operands of its type
    (floating-point exceptions silenced: their results are the IEEE ones)."""
    with np.errstate(all="ignore"):
        return fn(opcode, name, np.asarray(args[0]).dtype)(*args)
