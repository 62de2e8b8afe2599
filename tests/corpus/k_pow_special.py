"""`math.pow` and `**` on float32 where WGSL's `pow` is undefined or inexact: negative bases
with integral exponents (the sign of an odd one: pow(-2.0, 3.0) == -8.0), zero bases,
infinities, `pow(x, 0) == pow(1, y) == 1`, `pow(-1, +-inf) == 1`; NaN only where Python's
`math.pow` raises (a negative finite base with a finite non-integral exponent, or a zero base
with a negative exponent, where C's value, +-inf, is expected instead)."""

import math

import numpy as np

import simt

from . import Case

BASES = [-2.0, -3.0, -0.5, -1.0, -10.0, -1.5, -math.inf, -0.0, 0.0, 1.0, 2.5, 1e30, 1e-20,
         math.inf, math.nan]  # fmt: skip
EXPONENTS = [3.0, 2.0, -3.0, -2.0, 0.0, 1.0, 0.5, -0.5, 10.0, -11.0, 1.5, 63.0, 64.0, 1e10,
             math.inf, -math.inf, math.nan]  # fmt: skip
N = len(BASES) * len(EXPONENTS)
# WGSL's pow of a non-integral exponent is exp2(y * log2(x)) on drivers: off by up to
# |y log2(x)| ulp (docs/semantics.md); integral exponents are within 4 ulp everywhere
POW_ULPS = 64
TINY = 1.1754943508222875e-38  # the smallest normal float32: below it a GPU may flush


@simt.kernel
def powers(x, y, out):
    i = simt.grid(1)
    if i < len(x):
        out[0, i] = math.pow(x[i], y[i])
        out[1, i] = x[i] ** y[i]


def _make():
    x, y = np.meshgrid(np.array(BASES, np.float32), np.array(EXPONENTS, np.float32))
    return x.ravel(), y.ravel(), np.zeros((2, N), np.float32)


def _expected(a: float, b: float) -> float:
    """Python's math.pow, rounded to float32; C's (and NumPy's) value where Python raises for
    a zero base."""
    try:
        r = math.pow(a, b)
    except ValueError:
        if a != 0.0:
            return math.nan
        with np.errstate(divide="ignore"):
            return float(np.power(np.float64(a), np.float64(b)))
    except OverflowError:
        odd = math.isfinite(b) and b == int(b) and int(b) % 2 == 1
        return -math.inf if a < 0 and odd else math.inf
    with np.errstate(over="ignore"):
        return float(np.float32(r))


def _verify(before, after):
    x, y, out = after
    for i in range(N):
        a, b = float(x[i]), float(y[i])
        want = _expected(a, b)
        for row in (0, 1):
            got = float(out[row, i])
            if math.isnan(want) or math.isnan(got):
                ok = math.isnan(want) == math.isnan(got)
            elif math.isinf(want):
                ok = got == want
            elif 0.0 < abs(want) < TINY and got == 0.0:
                ok = True  # a subnormal result a GPU flushed (pow(1e-20, 2) on NVIDIA)
            else:  # (the sign of a zero is not compared: unspecified on webgpu)
                ulps = 4 if b.is_integer() and abs(b) < 32 else POW_ULPS
                ok = abs(got - want) <= ulps * float(np.spacing(np.float32(abs(want))))
            if not ok:
                return f"{'math.pow' if row == 0 else '**'}({a}, {b}) gave {got}, Python {want}"
    return None


CASES = [Case("pow_special_values", powers, _make, 1, 256, verify=_verify)]
