"""One case per row of `simt.builtins.MATH`: each math function a kernel may call, on float32
(int32 for integer operands), with operands made from the thread index, against CPython.

A thread's operands are `lo + step * j` for its index `j` (a second operand takes the
threads in another order), computed on the device and written back, so the reference is
CPython's `math` function on exactly the operands the backend used. Adding a row to the
table means adding its domain to `DOMAINS` (the table's test checks every row has a case).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import simt
from simt.builtins import MATH, TO_INT, MathFn

from . import Case, Tol, close

N = 64  # threads (one block)

# row -> (lo, hi) of each float operand, (lo, step) of each int one; the thread order differs
# per operand. A domain avoids poles and the points where the function's value is 0 (there a
# relative tolerance means nothing), unless the row is exact.
DOMAINS: dict[str, tuple[tuple[float, float], ...]] = {
    "sqrt": ((0.01, 100.0),), "cbrt": ((-50.0, 50.0),), "exp": ((-10.0, 10.0),),
    "exp2": ((-20.0, 20.0),), "expm1": ((-1.0, 1.0),), "log": ((0.01, 100.0),),
    "log2": ((0.01, 100.0),), "log10": ((0.01, 100.0),), "log1p": ((-0.5, 10.0),),
    "sin": ((-3.0, 3.0),), "cos": ((-3.0, 3.0),), "tan": ((-1.2, 1.2),),
    "asin": ((-0.99, 0.99),), "acos": ((-0.99, 0.99),), "atan": ((-10.0, 10.0),),
    "atan2": ((-3.0, 3.0), (-3.0, 3.0)), "sinh": ((-5.0, 5.0),), "cosh": ((-5.0, 5.0),),
    "tanh": ((-3.0, 3.0),), "asinh": ((-10.0, 10.0),), "acosh": ((1.0, 10.0),),
    "atanh": ((-0.95, 0.95),), "pow": ((0.1, 4.0), (-3.0, 3.0)),
    "hypot": ((-5.0, 5.0), (-5.0, 5.0)), "fabs": ((-5.0, 5.0),), "floor": ((-5.0, 5.0),),
    "ceil": ((-5.0, 5.0),), "trunc": ((-5.0, 5.0),), "rint": ((-5.0, 5.0),),
    "copysign": ((-5.0, 5.0), (-5.0, 5.0)), "fmod": ((-10.0, 10.0), (0.5, 3.0)),
    "remainder": ((-10.0, 10.0), (0.5, 3.0)), "erf": ((-3.0, 3.0),), "erfc": ((-2.0, 3.0),),
    "gamma": ((0.2, 6.0),), "lgamma": ((0.2, 20.0),), "degrees": ((-5.0, 5.0),),
    "radians": ((-300.0, 300.0),), "ldexp": ((-5.0, 5.0), (-10, 1)),
    "frexp": ((-100.0, 100.0),), "modf": ((-10.0, 10.0),), "isqrt": ((0, 1531),),
    "gcd": ((-600, 19), (1, 13)), "isclose": ((0.9, 1.1), (0.95, 1.05)),
    "isnan": ((-2.0, 2.0),), "isinf": ((-2.0, 2.0),), "isfinite": ((-2.0, 2.0),),
}  # fmt: skip
# rows whose float operand is divided by (i % 3 - 1): infinities and NaNs among the operands
SPECIAL = frozenset({"isnan", "isinf", "isfinite"})
# looser than the default where the function's float32 form is known to be less exact
TOLERANCES: dict[str, Tol] = {
    "lgamma": close(1e-5, 2e-6),  # crosses zero at 1 and 2
    "gamma": close(1e-5),
    "tan": close(1e-5),
    "pow": close(1e-5),
}
DEFAULT_TOL = close(5e-6, 1e-6)
CLOSE_TOL = (0.05, 0.001)  # isclose's rel_tol and abs_tol, passed at run time


def _operand(kind: Any, k: Any, i: Any, j: Any, flo: Any, fstep: Any, ilo: Any, istep: Any,
             fin: Any, iin: Any, special: Any) -> Any:  # fmt: skip
    """Operand `k` of thread `i` (made from index `j`), recorded in `fin` / `iin`."""
    if kind == "float":
        x = flo[k] + fstep[k] * j
        if special:
            x = x / float(i % 3 - 1)
        fin[k, i] = x
        return x
    n = ilo[k] + istep[k] * j
    iin[k, i] = n
    return n


def _kernel(fn: Callable[..., Any], kinds: tuple[str, ...], parts: int, special: bool,
            keywords: bool) -> Any:  # fmt: skip
    """The kernel calling `fn` (as a user writes `math.f(...)`) with operands of `kinds`."""

    @simt.kernel
    def math_row(flo, fstep, ilo, istep, tol, fin, iin, out):
        i = simt.grid(1)
        if i < out.shape[1]:
            a = _operand(kinds[0], 0, i, i, flo, fstep, ilo, istep, fin, iin, special)
            if len(kinds) == 1:
                r = fn(a)
            else:
                j = (i * 7 + 3) % out.shape[1]
                b = _operand(kinds[1], 1, i, j, flo, fstep, ilo, istep, fin, iin, special)
                if keywords:
                    r = fn(a, b, rel_tol=tol[0], abs_tol=tol[1])
                else:
                    r = fn(a, b)
            if parts:
                out[0, i] = r[0]
                out[1, i] = r[1]
            else:
                out[0, i] = r

    return math_row


def _user_fn(row: MathFn) -> Callable[..., Any]:
    """What a user calls for `row`: `math.<name>`, or NumPy's for a NumPy-only row."""
    fn = getattr(math, row.name, None) or row.numpy
    assert fn is not None, row.name
    return fn


def _out_dtype(row: MathFn) -> Any:
    if row.result == "bool":
        return np.bool_
    if row.result == "int" or row.name in TO_INT:
        return np.int32
    return np.float32


def _case(row: MathFn) -> Case:
    dom = DOMAINS[row.name]
    kinds = row.args
    fn = _user_fn(row)
    parts = len(row.parts)
    out_dt = _out_dtype(row)

    def make() -> tuple[Any, ...]:
        flo = np.zeros(2, np.float32)
        fstep = np.zeros(2, np.float32)
        ilo = np.zeros(2, np.int32)
        istep = np.zeros(2, np.int32)
        for k, (kind, (lo, hi)) in enumerate(zip(kinds, dom)):
            if kind == "float":
                flo[k], fstep[k] = lo, (hi - lo) / N
            else:
                ilo[k], istep[k] = lo, hi
        tol = np.array(CLOSE_TOL, np.float32)
        return (flo, fstep, ilo, istep, tol, np.zeros((2, N), np.float32),
                np.zeros((2, N), np.int32), np.zeros((max(parts, 1), N), out_dt))  # fmt: skip

    def reference(fin: np.ndarray, iin: np.ndarray, tol: np.ndarray) -> np.ndarray:
        """CPython's function of the operands the device used, one thread at a time."""
        rows = []
        for i in range(N):
            xs = [float(fin[k, i]) if kind == "float" else int(iin[k, i])
                  for k, kind in enumerate(kinds)]  # fmt: skip
            kw = {"rel_tol": float(tol[0]), "abs_tol": float(tol[1])} if row.keywords else {}
            r = fn(*xs, **kw)
            rows.append(r if parts else (r,))
        return np.array(rows, np.float64).T

    def verify(before: tuple[Any, ...], after: tuple[Any, ...]) -> str | None:
        flo, fstep, ilo, istep, tol, fin, iin, out = after
        for k, kind in enumerate(kinds):  # the operands are where they were meant to be
            j = (np.arange(N) * (1 if k == 0 else 7) + (0 if k == 0 else 3)) % N
            if kind == "int":
                if not np.array_equal(iin[k], ilo[k] + istep[k] * j):
                    return f"operand {k}: {iin[k]} is not ilo + istep * j"
            elif row.name not in SPECIAL:
                want = flo[k].astype(np.float64) + fstep[k].astype(np.float64) * j
                if not np.allclose(fin[k], want, rtol=1e-5, atol=1e-5):
                    return f"operand {k}: {fin[k]} is not lo + step * j"
        expected = reference(fin, iin, tol)
        tolerance = DEFAULT_TOL if out_dt == np.float32 else Tol("exact")
        tolerance = TOLERANCES.get(row.name, tolerance)
        why = tolerance.check(out, expected.astype(out_dt) if out_dt != np.float32 else expected)
        return None if why is None else f"math.{row.name}: {why}"

    no_wgsl = any(MATH[p].wgsl is None for p in (row.parts or (row.name,)))
    return Case(
        f"math_row_{row.name}",
        _kernel(fn, kinds, parts, row.name in SPECIAL, bool(row.keywords)),
        make,
        1,
        N,
        verify=verify,
        features=frozenset({"wgsl_math"} if no_wgsl else ()),
    )


CASES = [_case(row) for row in MATH.values() if row.public]
