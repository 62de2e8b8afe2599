"""simt's float64 math functions for WGSL (backends/wgsl_math64.py: WGSL's own take float32
only) against CPython's `math` module, on webgpu: for each function a table of a few hundred
float64 inputs (random over the domain, near its boundaries, special values, huge and tiny
arguments) in one launch. The bounds are a little above the largest error measured on
lavapipe, which docs/semantics.md states ("Math functions on webgpu", the float64 column);
errors are in ulps of CPython's result (itself within about half an ulp of the exact value),
so 1.0 is "the neighbouring float64". Special values (NaN, infinities, zeros, poles) must be
CPython's exactly, or C's where CPython raises (log(0) is -inf)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import simt
from simt.runtime import registry

MAX = 1.7976931348623157e308
TINY = 2.2250738585072014e-308  # the smallest normal float64
SPECIAL = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, -5e-324, 1e-310, -1e-310, TINY,
           -TINY, MAX, -MAX, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1e-300, -1e-300, 1e300, -1e300,
           1e-17, -1e-17, 1e-8, -1e-8, 0.1, 10.0, 100.0]  # fmt: skip


def _bits(g: np.random.Generator, n: int, positive: bool = False) -> list[float]:
    """Random bit patterns: every exponent (and NaNs, infinities)."""
    return g.integers(0, 2**63 if positive else 2**64, n, dtype=np.uint64).view(np.float64).tolist()


def _inputs(name: str) -> list[float]:
    g = np.random.default_rng(64)
    u = g.uniform
    x: list[float] = list(SPECIAL) + _bits(g, 100, positive=name.startswith("log"))
    if name in ("exp", "expm1"):
        x += u(-746, 710, 200).tolist() + u(-1, 1, 100).tolist() + u(-40, 40, 100).tolist()
        x += [709.782712893384, 709.7827128933841, -708.3964185322641, -708.4, -745.13321910194,
              -745.1332191019412, -744.0, -720.0, 0.34657359027997264, -0.34657359027997264]
    elif name == "exp2":
        x += u(-1080, 1030, 200).tolist() + u(-1, 1, 100).tolist()
        x += [1023.9999999, 1024.0, -1022.0, -1022.5, -1074.0, -1074.5, -1075.0, -1073.3, 52.5]
    elif name.startswith("log"):
        lo = -1.0 if name == "log1p" else 0.0
        x += u(lo, 3, 200).tolist() + (1 + u(-1e-6, 1e-6, 50)).tolist() + u(0, 1e6, 50).tolist()
        x += [0.7071067811865476, 1.414213562373095, 1.4142135623730951, 1e-320, 1e22, 1e-5,
              8.0, 1024.0, 2.0**-1074, 0.75, 1.25, -0.2928932188134524, 0.41421356237309503,
              0.4142135623730951, -0.9999999999, -1.0000001, 1e-320, -1e-320]  # fmt: skip
        x += (u(-1e-6, 1e-6, 50) if name == "log1p" else u(0, 1e-300, 50)).tolist()
    return x


# function -> the largest error allowed, in ulps of CPython's result (docs/semantics.md)
BOUNDS = {"exp": 1.0, "exp2": 1.0, "expm1": 1.0, "log": 1.0, "log2": 1.0, "log10": 1.0,
          "log1p": 1.0}  # fmt: skip


def _python(f: Callable[..., float], *xs: float) -> float:
    """CPython's value; C's where CPython raises (-inf at log's pole, NaN off its domain,
    +-inf where it overflows)."""
    try:
        return f(*xs)
    except ValueError:
        if f in (math.log, math.log2, math.log10) and xs[0] == 0.0:
            return -math.inf
        if f is math.log1p and xs[0] == -1.0:
            return -math.inf
        return math.nan
    except OverflowError:
        return math.inf


def _errors(name: str, args: list[tuple[float, ...]], got: list[float]) -> tuple[float, list]:
    """(the largest error in ulps, the inputs outside the bound or special values wrong)."""
    f = getattr(math, name)
    worst, bad = 0.0, []
    for xs, d in zip(args, got):
        want = _python(f, *xs)
        if math.isnan(want) or math.isinf(want) or math.isnan(d) or math.isinf(d) or want == 0:
            if not (d == want or (math.isnan(d) and math.isnan(want))):
                bad.append((xs, d, want))
            continue
        err = abs(d - want) / math.ulp(want)
        worst = max(worst, err)
        if err > BOUNDS[name]:
            bad.append((xs, d, want, err))
    return worst, bad


def _kernel1(f: Callable[[float], Any]) -> Any:
    @simt.kernel
    def one(x, out):
        i = simt.grid(1)
        if i < len(out):
            out[i] = f(x[i])

    return one


@pytest.fixture
def webgpu_f64() -> None:
    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"webgpu not present: {why}")
    if not registry.get("webgpu").has_float64():
        pytest.skip("the webgpu adapter has no shader-f64")


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_float64_function_agrees_with_python(webgpu_f64: None, name: str) -> None:
    x = np.array(_inputs(name), np.float64)
    out = np.zeros(len(x))
    with simt.using("webgpu"):
        _kernel1(getattr(math, name))[(len(x) + 127) // 128, 128](x, out)
    worst, bad = _errors(name, [(v,) for v in x.tolist()], out.tolist())
    assert not bad, f"{name}: {len(bad)} wrong of {len(x)}, e.g. {bad[:5]}"
    assert worst <= BOUNDS[name]
