"""The float32 math functions WGSL lacks (`erf`, `erfc`, `expm1`, `log1p`, `gamma`, `lgamma`,
`remainder`, `isinf`, `isfinite`; simt's helpers in backends/wgsl_math.py) and `math.pow` with
integral exponents, against CPython's `math` module over a sweep of float32 inputs: the edge
cases (0, -0, +-inf, NaN, subnormals, the largest float, poles, integers and half-integers),
a dense range and random bit patterns, on every backend present. The bounds are those
docs/semantics.md states ("Math functions on webgpu"); the corpus checks each row on its
domain, this checks the edges."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import simt
from simt.runtime import registry

F32_MAX = 3.4028234663852886e38
TINY = 1.1754943508222875e-38  # the smallest normal float32
# the largest error in float32 ulps of the exact value (docs/semantics.md); remainder,
# isinf and isfinite are exact
BOUNDS = {"erf": 3.0, "erfc": 4.0, "expm1": 3.0, "log1p": 3.0, "gamma": 8.0, "lgamma": 4.0,
          "remainder": 0.0, "pow": 4.0}  # fmt: skip
DENSE = {"erf": (-6, 6), "erfc": (-4, 11), "expm1": (-20, 90), "log1p": (-1, 20),
         "gamma": (-40, 36), "lgamma": (-40, 60), "isinf": (-10, 10), "isfinite": (-10, 10),
         "remainder": (-50, 50)}  # fmt: skip
ONE = sorted(set(DENSE) - {"remainder"})


def _edges() -> np.ndarray:
    v = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, -1e-45, 1e-40, -1e-40, TINY, -TINY,
         F32_MAX, -F32_MAX, 1e-20, -1e-20, 1e-5, -1e-5, 0.1, -0.1, 0.25, -0.25, 1e6, -1e6,
         1e30, -1e30, 88.7, 89.0, -87.0, -104.0, 10.2, 35.0, 35.5, 36.0, 100.0]  # fmt: skip
    v += [float(k) for k in range(-6, 7)] + [k + 0.5 for k in range(-6, 6)]
    return np.array(v, np.float32)


def _inputs(name: str) -> np.ndarray:
    g = np.random.default_rng(23)
    lo, hi = DENSE[name]
    near = np.linspace(-0.01, 0.01, 1001, dtype=np.float32)
    bits = g.integers(0, 2**32, 4000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return np.concatenate([_edges(), np.linspace(lo, hi, 6000, dtype=np.float32), bits,
                           near, near + 1, near + 2, near - 1, near - 2])  # fmt: skip


def _python(f: Callable[..., float], *xs: float) -> tuple[float, bool]:
    """(CPython's value, whether CPython raised ValueError); an overflow is +-inf."""
    try:
        return f(*xs), False
    except ValueError:
        return math.nan, True
    except OverflowError:
        if f is math.pow:
            odd = xs[1].is_integer() and int(xs[1]) % 2 == 1
            return (-math.inf if xs[0] < 0 and odd else math.inf), False
        return (math.inf if f is not math.gamma else math.copysign(math.inf, xs[0])), False


def _subnormal(x: float) -> bool:
    return 0.0 < abs(x) < TINY


def _flushed(name: str, xs: tuple[float, ...], d: float) -> bool:
    """Whether `d` is the result of `name` with its subnormal inputs flushed to zeros of their
    sign, or 0 for a result within a factor 4 of the smallest normal float32 (gamma's
    intermediate products underflow first): what a GPU that flushes float32 subnormals
    gives (docs/semantics.md; NVIDIA's Vulkan driver does, H100 2026-11-26)."""
    if name == "gamma" and d == 0.0:
        want, _ = _python(math.gamma, *xs)
        if abs(want) < 4 * TINY:
            return True
    if not any(_subnormal(x) for x in xs):
        return False
    zeros = tuple(math.copysign(0.0, x) if _subnormal(x) else x for x in xs)
    _, bad = _problems(name, [zeros], np.array([d], np.float32))
    return not bad


def _problems(
    name: str, args: list[tuple[float, ...]], got: np.ndarray, flushes: bool = False
) -> tuple[float, list]:
    """(the largest error in ulps, the results outside the bound or the special values);
    `flushes`: the backend may flush float32 subnormals to zero (`_flushed`)."""
    f = getattr(math, name)
    worst, bad = 0.0, []
    for xs, d in zip(args, got.tolist()):
        if flushes and _flushed(name, xs, d):
            continue
        want, raised = _python(f, *xs)
        if isinstance(want, bool):
            if bool(d) != want:
                bad.append((xs, d, want))
            continue
        if raised:  # a domain error in Python: NaN, or C's +-inf at a pole (pow(0, -1) too)
            if not (math.isnan(d) or math.isinf(d)):
                bad.append((xs, d, "ValueError"))
            continue
        with np.errstate(over="ignore"):
            rounded = float(np.float32(want))
        if math.isnan(want) or math.isnan(d) or math.isinf(rounded) or math.isinf(d):
            same = (math.isnan(want) and math.isnan(d)) or rounded == d
            if not same:
                bad.append((xs, d, want))
            continue
        if abs(want) < TINY and abs(d) < TINY:
            continue  # subnormal results: a GPU may flush them (semantics.md)
        scale = abs(want)
        if name == "lgamma" and xs[0] < 0:
            # reflection: the result is a difference of terms of lgamma(1 - x)'s size
            scale = max(scale, abs(math.lgamma(1 - xs[0])))
        with np.errstate(over="ignore"):
            ulp = float(np.spacing(np.float32(min(scale, 3e38))))
        err = abs(d - want) / ulp
        worst = max(worst, err)
        if err > max(BOUNDS[name], 0.5):
            bad.append((xs, d, want, round(err, 2)))
    return worst, bad


def _kernel1(f: Callable[[float], Any]) -> Any:
    @simt.kernel
    def one(x, out):
        i = simt.grid(1)
        if i < len(out):
            out[i] = f(x[i])

    return one


def _kernel2(f: Callable[[float, float], float]) -> Any:
    @simt.kernel
    def two(x, y, out):
        i = simt.grid(1)
        if i < len(out):
            out[i] = f(x[i], y[i])

    return two


def _flushes(backend: str) -> bool:
    """Whether `backend` may flush float32 subnormals to zero: the GPU ones (WGSL and CUDA
    allow it; docs/semantics.md), not sim or cpu."""
    return backend in ("webgpu", "cuda")


def test_a_flushed_subnormal_is_accepted_only_where_one_is_involved() -> None:
    assert _flushed("erf", (1.1338057215086242e-38,), 0.0)  # input subnormal (H100)
    assert _flushed("lgamma", (1.401298464324817e-45,), math.inf)  # lgamma(0)
    assert _flushed("remainder", (0.0, 9.99994610111476e-41), math.nan)  # remainder(0, 0)
    assert _flushed("gamma", (-34.99583435058594,), -0.0)  # -2.36e-38: within 4 of TINY
    assert not _flushed("erf", (1e-37,), 0.0)  # a normal input: no excuse
    assert not _flushed("gamma", (-30.5,), 0.0)  # gamma(-30.5) is ~1e-33
    assert not _flushed("remainder", (5.0, 1e-40), 0.5)  # flushed it is NaN, not 0.5
    _, bad = _problems("erf", [(1.1338057215086242e-38,)], np.array([0.0], np.float32))
    assert bad  # without `flushes`: wrong


@pytest.fixture(params=["sim", "cpu", "webgpu", "cuda"])
def backend(request: pytest.FixtureRequest) -> str:
    ok, why = registry.probe(request.param)
    if not ok:
        pytest.skip(f"{request.param} not present: {why}")
    return str(request.param)


@pytest.mark.parametrize("name", ONE)
def test_one_operand_functions_agree_with_python(backend: str, name: str) -> None:
    x = _inputs(name)
    out = np.zeros(len(x), np.bool_ if name.startswith("is") else np.float32)
    with simt.using(backend):
        _kernel1(getattr(math, name))[(len(x) + 255) // 256, 256](x, out)
    worst, bad = _problems(name, [(float(v),) for v in x], out, _flushes(backend))
    assert not bad, f"{name} on {backend}: {len(bad)} wrong, e.g. {bad[:5]}"
    assert worst <= BOUNDS.get(name, 0.0) or backend == "sim"


def test_remainder_is_exact(backend: str) -> None:
    x = _inputs("remainder")[:6000]
    ys = np.array([1.0, -1.0, 0.5, 3.0, 7.25, -7.25, 1e-3, 1e-40, 1e30, 3.3e38, 0.0, -0.0,
                   math.inf, -math.inf, math.nan], np.float32)  # fmt: skip
    a, b = (v.ravel() for v in np.meshgrid(x, ys))
    out = np.zeros(len(a), np.float32)
    with simt.using(backend):
        _kernel2(math.remainder)[(len(a) + 255) // 256, 256](a, b, out)
    args = list(zip(a.tolist(), b.tolist()))
    worst, bad = _problems("remainder", args, out, _flushes(backend))
    assert not bad, f"remainder on {backend}: {len(bad)} wrong, e.g. {bad[:5]}"
    assert worst == 0.0


def test_pow_follows_python_for_negative_bases(backend: str) -> None:
    """pow(-2.0, 3.0) == -8.0: a negative base with an integral exponent is |x|**y with the
    sign of an odd exponent; NaN only where Python raises. Integral |y| < 8: within 4 ulp."""
    bases = np.concatenate([_edges(), np.linspace(-10, 10, 401, dtype=np.float32)])
    exps = np.array([0.0, -0.0, 1, -1, 2, -2, 3, -3, 5, -5, 7, -7, 0.5, -0.5, 1.5,
                     math.inf, -math.inf, math.nan], np.float32)  # fmt: skip
    a, b = (v.ravel() for v in np.meshgrid(bases, exps))
    out = np.zeros(len(a), np.float32)
    with simt.using(backend):
        _kernel2(math.pow)[(len(a) + 255) // 256, 256](a, b, out)
        assert float(out[(a == -2) & (b == 3)][0]) == -8.0
    integral = [(x, y) for x, y in zip(a.tolist(), b.tolist()) if y.is_integer()]
    mask = np.array([y.is_integer() for y in b.tolist()])
    worst, bad = _problems("pow", integral, out[mask], _flushes(backend))
    assert not bad, f"pow on {backend}: {len(bad)} wrong, e.g. {bad[:5]}"
    # non-integral exponents: NaN only where Python raises (at a zero base C's inf instead)
    for x, y, d in zip(a[~mask].tolist(), b[~mask].tolist(), out[~mask].tolist()):
        want, raised = _python(math.pow, x, y)
        if x == 0.0 and y < 0:
            assert d == math.inf, (x, y, d)
        else:
            assert math.isnan(d) == (raised or math.isnan(want)), (x, y, d, want)


def test_gamma_and_lgamma_poles_are_c_s_values_everywhere(backend: str) -> None:
    """Where Python raises, every backend (sim, the reference, included) gives C's value."""
    x = np.array([0.0, -0.0, -1.0, -2.0, -30.0, math.inf, -math.inf], np.float32)
    g, lg = np.zeros(len(x), np.float32), np.zeros(len(x), np.float32)
    with simt.using(backend):
        _kernel1(math.gamma)[1, 32](x, g)
        _kernel1(math.lgamma)[1, 32](x, lg)
    assert g[0] == math.inf and g[1] == -math.inf and np.isnan(g[2:5]).all()
    assert g[5] == math.inf and np.isnan(g[6])
    assert (lg == math.inf).all(), lg


def test_copysign_takes_the_sign_bit(backend: str) -> None:
    """copysign(x, -0.0) is -|x| (WGSL's spelling compared y < 0.0, so -0.0 and a NaN with
    its sign bit set gave +|x| on webgpu)."""
    ys = np.array([-0.0, 0.0, -3.0, 3.0, -math.inf, -1e-45], np.float32)
    out = np.zeros(len(ys), np.float32)
    with simt.using(backend):
        _kernel2(math.copysign)[1, len(ys)](np.full(len(ys), 2.5, np.float32), ys, out)
    assert out.tolist() == [-2.5, 2.5, -2.5, 2.5, -2.5, -2.5]


def test_isnan_isinf_isfinite_of_the_edges(backend: str) -> None:
    """isnan is a test of the bits on webgpu too (its spelling x != x was folded to false by
    a driver that assumes no NaN: math.isnan(nan) was False there)."""
    x = _edges()
    for name in ("isnan", "isinf", "isfinite"):
        out = np.zeros(len(x), np.bool_)
        with simt.using(backend):
            _kernel1(getattr(math, name))[1, len(x)](x, out)
        assert out.tolist() == [getattr(math, name)(v) for v in x.tolist()], name
