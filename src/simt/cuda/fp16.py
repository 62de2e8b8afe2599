"""`cuda.fp16`: half-precision arithmetic. Each operation computes in float32 (exact for +,
- and * of two halves) and rounds once to float16, as the hardware's half instructions do.
On the host they work on NumPy float16 values."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..lang import float16


def hadd(a: Any, b: Any) -> Any:
    return float16(a + b)


def hsub(a: Any, b: Any) -> Any:
    return float16(a - b)


def hmul(a: Any, b: Any) -> Any:
    return float16(a * b)


def hdiv(a: Any, b: Any) -> Any:
    return float16(a / b)


def hneg(a: Any) -> Any:
    return float16(-a)


def habs(a: Any) -> Any:
    return float16(abs(a))


def hfma(a: Any, b: Any, c: Any) -> Any:
    return float16(a * b + c)


def hmax(a: Any, b: Any) -> Any:
    return float16(max(a, b))


def hmin(a: Any, b: Any) -> Any:
    return float16(min(a, b))


def hsqrt(a: Any) -> Any:
    return float16(math.sqrt(a))


def heq(a: Any, b: Any) -> Any:
    return a == b


def hne(a: Any, b: Any) -> Any:
    return a != b


def hgt(a: Any, b: Any) -> Any:
    return a > b


def hge(a: Any, b: Any) -> Any:
    return a >= b


def hlt(a: Any, b: Any) -> Any:
    return a < b


def hle(a: Any, b: Any) -> Any:
    return a <= b


def hsin(a: Any) -> Any:
    return float16(math.sin(a))


def hcos(a: Any) -> Any:
    return float16(math.cos(a))


def hlog(a: Any) -> Any:
    return float16(math.log(a))


def hlog2(a: Any) -> Any:
    return float16(math.log2(a))


def hlog10(a: Any) -> Any:
    return float16(math.log10(a))


def hexp(a: Any) -> Any:
    return float16(math.exp(a))


def hexp2(a: Any) -> Any:
    return float16(np.exp2(a))


def hexp10(a: Any) -> Any:
    return float16(math.pow(10.0, a))


def hfloor(a: Any) -> Any:
    return float16(math.floor(a))


def hceil(a: Any) -> Any:
    return float16(math.ceil(a))


def htrunc(a: Any) -> Any:
    return float16(math.trunc(a))


def hrint(a: Any) -> Any:
    return float16(np.rint(a))


def hrsqrt(a: Any) -> Any:
    return float16(1.0 / math.sqrt(a))


def hrcp(a: Any) -> Any:
    return float16(1.0 / a)
