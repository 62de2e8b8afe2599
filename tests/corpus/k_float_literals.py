"""Float32 literal typing: `x * 0.1` with x float32 stays float32 (no silent float64), a float
made from integers (`i / n`, `float(i)`, `math.sqrt(i)`) is float32. Compared with the same
float32 NumPy computation to one ulp, and the IR must hold no float64.

`t * 10.0 - v` cancels, so it tells float32 from float64 arithmetic apart: in float64 it is
about 1e-17, in float32 zero or a multiple of float32's ulp. It also catches a compiler fusing
`a * b - c` into one rounding (NVRTC's default): every backend must round each operation as
`sim` does, so that they agree with each other."""

import math

import numpy as np

import simt

from . import Case, blocks, rng, ulp, uniform


@simt.kernel
def literals(x, n, out):
    i = simt.grid(1)
    if i < len(x):
        v = x[i]
        t = v * 0.1
        out[0, i] = t
        out[1, i] = t * 10.0 - v  # float32 rounding leaves small multiples of float32's ulp
        out[2, i] = i / n  # int / int: float32
        out[3, i] = float(i) * 0.5 + 1.25
        out[4, i] = math.sqrt(i)  # float32 square root of an int
        out[5, i] = (v + 1e-3) * 3.3 - 2.2
        out[6, i] = 1.0 / v  # literal left operand takes the right one's type
        out[7, i] = i * 0.5  # int32 * literal float: float32


ROWS = 8
N = 1500


def _make():
    g = rng(12)
    return uniform(g, N, lo=-3.0, hi=3.0), N, np.zeros((ROWS, N), np.float32)


def _ref(x, n, out):
    f = np.float32
    i = np.arange(N, dtype=np.float32)
    t = x * f(0.1)
    ref = np.empty((ROWS, N), np.float32)
    ref[0] = t
    ref[1] = t * f(10.0) - x
    ref[2] = i / f(n)
    ref[3] = i * f(0.5) + f(1.25)
    ref[4] = np.sqrt(i)
    ref[5] = (x + f(1e-3)) * f(3.3) - f(2.2)
    ref[6] = f(1.0) / x
    ref[7] = i * f(0.5)
    return {2: ref}


def _no_f64(ir_text: str) -> str | None:
    return "float64 in the IR of a float32 kernel" if "float64" in ir_text else None


CASES = [
    Case("float32_literals", literals, _make, blocks(N, 256), 256, _ref, ulp(1), ir_check=_no_f64)
]
