"""float64 arrays with `simt.kernel(fp64=True)`: `i / n` and literals are float64 too."""

import math

import numpy as np

import simt

from . import Case, blocks, close, rng, uniform


@simt.kernel(fp64=True)
def f64(a, out):
    i = simt.grid(1)
    n = len(a)
    if i < n:
        t = i / n
        out[i] = math.exp(a[i]) * t + 0.1 + math.sqrt(float(i)) * 1e-10


N = 1000


def _make():
    g = rng(23)
    return uniform(g, N, np.float64), np.zeros(N, np.float64)


def _ref(a, out):
    i = np.arange(N, dtype=np.float64)
    return {1: np.exp(a) * (i / N) + 0.1 + np.sqrt(i) * 1e-10}


def _is_f64(ir_text: str) -> str | None:
    return None if "float32" not in ir_text else "float32 in the IR of an fp64 kernel"


CASES = [
    Case(
        "float64_fp64",
        f64,
        _make,
        blocks(N, 128),
        128,
        _ref,
        close(1e-14, 1e-300),
        ir_check=_is_f64,
        features=frozenset({"fp64"}),
    )
]


# float64 `%` and `//`: on webgpu the helper simt_fmod_f64, whose first form (WGSL's frexp and
# ldexp of f64) NVIDIA's Vulkan driver failed to compile ("NVVM compilation failed", the
# device lost: fuzz seeds 1, 89, 100 on the H100, 2026-11-26). Exponent differences up to
# ~2000 (1e300 % 1e-300), both signs, and small ratios.
@simt.kernel(fp64=True)
def f64_mod(a, b, rem, quo):
    i = simt.grid(1)
    if i < len(a):
        rem[i] = a[i] % b[i]
        quo[i] = a[i] // b[i]


M = 512


def _make_mod():
    g = rng(29)
    sign = np.where(g.random(M) < 0.5, -1.0, 1.0)
    a = sign * 10.0 ** g.uniform(-300, 300, M)
    b = np.where(g.random(M) < 0.5, -1.0, 1.0) * 10.0 ** g.uniform(-300, 300, M)
    b[: M // 4] = a[: M // 4] / g.uniform(0.1, 50.0, M // 4)  # small ratios: // is exact
    b[M // 4 : M // 4 + 8] = [1.0, -1.0, 0.5, 3.0, -7.0, 0.1, 1e-300, -1e300]
    # subnormal divisors (the remainder became subnormal inside simt_fmod_f64's loop: wrong)
    a[M // 4 + 8 : M // 4 + 12] = [1.3985035811702744, -8.566850009774761, 1e-300, 3e-310]
    b[M // 4 + 8 : M // 4 + 12] = [2e-310, 2e-310, -1e-320, 5e-324]
    return a, b, np.zeros(M, np.float64), np.zeros(M, np.float64)


def _ref_mod(a, b, rem, quo):
    with np.errstate(over="ignore", invalid="ignore"):  # 1e300 // 1e-300 is inf
        return {2: np.mod(a, b), 3: np.floor_divide(a, b)}


CASES.append(
    Case(
        "float64_mod_floordiv",
        f64_mod,
        _make_mod,
        blocks(M, 128),
        128,
        _ref_mod,
        ir_check=_is_f64,
        features=frozenset({"fp64"}),
    )
)


# `math.fmod` exact on every backend: webgpu spelled it `a - b * trunc(a / b)`, which loses
# every digit once a / b is large and gave -inf for a subnormal divisor (fmod(1.4, 2e-310));
# it now calls the same helper as `%`. float32 and float64, the operands of f64_mod (float32
# subnormals are unspecified on GPUs: semantics.md).
@simt.kernel(fp64=True)
def fmod_both(a, b, a32, b32, out, out32):
    i = simt.grid(1)
    if i < len(a):
        out[i] = math.fmod(a[i], b[i])
        out32[i] = math.fmod(a32[i], b32[i])


def _make_fmod():
    a, b, _, _ = _make_mod()
    with np.errstate(over="ignore", under="ignore"):
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
    keep = np.isfinite(a32) & np.isfinite(b32) & (b32 != 0)
    a32, b32 = np.where(keep, a32, np.float32(1.5)), np.where(keep, b32, np.float32(0.75))
    return a, b, a32, b32, np.zeros(M, np.float64), np.zeros(M, np.float32)


def _ref_fmod(a, b, a32, b32, out, out32):
    return {4: np.fmod(a, b), 5: np.fmod(a32, b32)}


CASES.append(
    Case(
        "fmod_exact",
        fmod_both,
        _make_fmod,
        blocks(M, 128),
        128,
        _ref_fmod,
        features=frozenset({"fp64"}),
    )
)
