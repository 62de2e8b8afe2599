"""Operators on values known at compile time, agreeing with what run-time code computes.

Known values are evaluated in CPython, and Python's answer is kept wherever Python has one:
`(1 << 40) - 1` is still 2**40 - 1 while it stays known. Where Python raises but
docs/semantics.md defines the result (`7 // 0`, `7 % 0`, `1 << -1`, `2 ** -1`), and where a
NumPy-typed number meets another number (`simt.uint32(3) & -8`), the run-time rule applies
instead (for typed numbers, the IR's semantics table: `ir/semantics.py`), so folding a value
never changes a program's answer. `tests/frontend/test_known.py` checks every operator against
the run-time code.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import types as T
from ..ir import semantics
from .scalars import const_value, known_type

PYTHON: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor, "shl": operator.lshift,
    "shr": operator.rshift, "matmul": operator.matmul,
}  # fmt: skip

_INTS = (int, np.integer)


def _is_int(x: Any) -> bool:
    return isinstance(x, _INTS) and not isinstance(x, (bool, np.bool_))


def int_pow(base: int, exp: int) -> int:
    """int ** int as the kernel language defines it (a negative exponent gives 0 unless the
    base is 1 or -1)."""
    if exp >= 0:
        return base**exp
    if base == 1:
        return 1
    if base == -1:
        return 1 if exp % 2 == 0 else -1
    return 0


def _python_ints(op: str, x: int, y: int) -> Any:
    """Python ints: Python's answer, or the run-time rule where Python raises."""
    if op in ("floordiv", "mod") and y == 0:
        return 0
    if op in ("shl", "shr") and y < 0:
        y &= 31  # the amount modulo the width of an int literal (int32)
    if op == "pow":
        return int_pow(x, y)
    return PYTHON[op](x, y)


def _typed(op: str, x: Any, y: Any, fp64: bool) -> Any:
    """At least one NumPy-typed number: computed in the promoted type, wrapping as run time."""
    tx = known_type(x, None, fp64) if isinstance(x, np.generic) else None
    ty = known_type(y, None, fp64) if isinstance(y, np.generic) else None
    tx = tx or known_type(x, ty, fp64)
    ty = ty or known_type(y, tx, fp64)
    if op in ("and", "or", "xor") and tx.is_bool and ty.is_bool:
        return np.bool_(PYTHON[op](bool(x), bool(y)))
    t = T.promote(tx, ty)
    if op == "div" and not t.is_float:
        t = T.float_type(fp64)
    a, b = (t.np.type(const_value(v, t)) for v in (x, y))
    return t.np.type(semantics.evaluate("bin", op, a, b))  # the IR's own rule (ir/semantics.py)


def binop(op: str, x: Any, y: Any, fp64: bool) -> Any:
    """`x op y` for known `x`, `y`; raises what CPython raises for values that are not
    numbers or where the language defines nothing."""
    numbers = all(isinstance(v, (int, float, np.number, np.bool_)) for v in (x, y))
    if numbers and (isinstance(x, np.generic) or isinstance(y, np.generic)) and op != "matmul":
        return _typed(op, x, y, fp64)
    if _is_int(x) and _is_int(y):
        return _python_ints(op, int(x), int(y))
    try:
        r = PYTHON[op](x, y)
        # a Python complex next to a NumPy float32 is NumPy's complex64 (NEP 50); the front end
        # knows complex numbers as Python complex (`Complex` parts), so keep its value as one
        return complex(r) if isinstance(r, np.complexfloating) else r
    except ZeroDivisionError:
        if not numbers:
            raise
        # a float divided by zero: IEEE's inf or nan, as at run time (`x / 0.0`, `0.0 ** -1`)
        with np.errstate(all="ignore"):
            return float(PYTHON[op](np.float64(x), np.float64(y)))
