"""Special float32 operands read from memory (-0.0, NaN, +-inf, values near float32's
largest): `math.copysign`, `isnan`, `isinf`, `isfinite`, the sign test `copysign(1.0, x) <
0.0`, negation, `abs`, `min`/`max` against a non-zero constant where the operand is not NaN,
a select, and all six comparisons, each against Python's answer. `x != y` is true where
either is NaN (as in Python): WGSL's `!=` was false there on lavapipe (an ordered compare),
found by the fuzzer's `specials` feature. The sign of a zero is compared where the operation
defines it (copysign, negation, abs, a select); which NaN is not."""

import math

import numpy as np

import simt

from . import Case

VALUES = [0.0, -0.0, math.nan, math.inf, -math.inf, 1.5, -2.5, 3.0e38, -3.0e38, 7.0, -100.0]
N = len(VALUES) ** 2
RESULTS = 9
CMPS = 6


@simt.kernel
def specials(x, y, out, flags):
    i = simt.grid(1)
    if i < len(x):
        a = x[i]
        b = y[i]
        out[i, 0] = math.copysign(1.5, a)
        out[i, 1] = math.copysign(a, -2.0)
        out[i, 2] = math.copysign(a, b)
        out[i, 3] = -a
        out[i, 4] = abs(a)
        out[i, 5] = min(a, 2.0) if not math.isnan(a) else 9.0
        out[i, 6] = max(a, -3.0) if not math.isnan(a) else 9.0
        out[i, 7] = a if a > b else b
        out[i, 8] = math.copysign(2.0, b) * math.copysign(1.0, a)
        f = 0
        if math.isnan(a):
            f |= 1
        if math.isinf(a):
            f |= 2
        if math.isfinite(a):
            f |= 4
        if math.copysign(1.0, a) < 0.0:
            f |= 8
        if not (a < 1.0):
            f |= 16
        flags[i, 0] = f
        flags[i, 1] = 1 if a < b else 0
        flags[i, 2] = 1 if a <= b else 0
        flags[i, 3] = 1 if a > b else 0
        flags[i, 4] = 1 if a >= b else 0
        flags[i, 5] = 1 if a == b else 0
        flags[i, 6] = 1 if a != b else 0


def _make():
    x, y = np.meshgrid(np.array(VALUES, np.float32), np.array(VALUES, np.float32))
    return (x.ravel(), y.ravel(), np.zeros((N, RESULTS), np.float32),
            np.zeros((N, 1 + CMPS), np.int32))  # fmt: skip


def _expected(a: float, b: float) -> tuple[list[float], list[int]]:
    """Python's answers, in float32."""
    f32 = np.float32
    vals = [math.copysign(1.5, a), math.copysign(a, -2.0), math.copysign(a, b), -a, abs(a),
            min(a, 2.0) if not math.isnan(a) else 9.0,
            max(a, -3.0) if not math.isnan(a) else 9.0,
            a if a > b else b, math.copysign(2.0, b) * math.copysign(1.0, a)]  # fmt: skip
    f = (1 * math.isnan(a) + 2 * math.isinf(a) + 4 * math.isfinite(a)
         + 8 * (math.copysign(1.0, a) < 0.0) + 16 * (not a < 1.0))  # fmt: skip
    cmps = [a < b, a <= b, a > b, a >= b, a == b, a != b]
    return [float(f32(v)) for v in vals], [f, *map(int, cmps)]


def _verify(before, after):
    x, y, out, flags = after
    for i in range(N):
        a, b = float(x[i]), float(y[i])
        vals, ints = _expected(a, b)
        for k, want in enumerate(vals):
            got = float(out[i, k])
            same = (math.isnan(got) and math.isnan(want)) or (
                got == want and math.copysign(1.0, got) == math.copysign(1.0, want))
            if not same:
                return f"result {k} of ({a}, {b}) is {got}, Python gives {want}"
        if flags[i].tolist() != ints:
            return f"tests of ({a}, {b}) are {flags[i].tolist()}, Python gives {ints}"
    return None


CASES = [Case("float_specials", specials, _make, 1, 128, verify=_verify,
              strided="a row of results per thread")]
