"""The CPU renderer's vector math (backends/llvm_math.py): float32 exp, log, sin, cos, tanh,
erf and pow are vectorised (no libm call is left in the thread loop), within one ulp of the
float64 result everywhere (special values as C99 has them), and agree with `sim`."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.backends import llvm_math
from simt.runtime import registry

pytestmark = pytest.mark.skipif(not registry.probe("cpu")[0], reason="no cpu backend")

FNS = ["exp", "log", "sin", "cos", "tanh", "erf"]


@simt.kernel
def unary(x, out, which):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(x):
        v = x[i]
        if which == 0:
            out[i] = math.exp(v)
        elif which == 1:
            out[i] = math.log(v)
        elif which == 2:
            out[i] = math.sin(v)
        elif which == 3:
            out[i] = math.cos(v)
        elif which == 4:
            out[i] = math.tanh(v)
        else:
            out[i] = math.erf(v)


@simt.kernel
def power(x, y, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(x):
        out[i] = x[i] ** y[i]


SPECIALS = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45, 1.1754944e-38, 3.4028235e38,
     -3.4028235e38, 88.72, 88.73, -87.3, -103.9, -104.0, 2.0**24, 2.0**24 + 2, 1e20, 1e30,
     0.5, 4.0, 3.9, -4.0, 20.0, 1e-8, 0.0625, 0.06249],
    np.float32,
)  # fmt: skip


def _inputs(n: int, lo: float, hi: float) -> np.ndarray:
    g = np.random.default_rng(7)
    anybits = g.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    near = g.uniform(lo, hi, n).astype(np.float32)
    return np.concatenate([SPECIALS, anybits, near])


def _ulps(got: np.ndarray, ref: np.ndarray) -> float:
    """Largest |got - ref| in units of the float32 result's last place (0 where both are the
    same NaN/infinity, or where `got` is `ref` correctly rounded)."""
    with np.errstate(all="ignore"):
        rounded = ref.astype(np.float32)
        same = (got == rounded) | (np.isnan(got) & np.isnan(ref))
        sp = np.spacing(np.abs(rounded)).astype(np.float64)
        d = np.abs(got.astype(np.float64) - ref) / sp
    return float(np.max(np.where(same, 0.0, d)))


def _run(kernel: object, *args: np.ndarray) -> None:
    n = len(args[0])
    kernel[(n + 255) // 256, 256](*args)  # type: ignore[index]
    simt.synchronize()


@pytest.fixture(autouse=True)
def keep_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Restore the backend other tests see after `simt.use`."""


@pytest.mark.parametrize("which", range(len(FNS)), ids=FNS)
def test_within_one_ulp_of_float64(which: int) -> None:
    x = _inputs(20000, *[(-110, 90), (0, 100), (-100, 100), (-100, 100), (-12, 12), (-5, 5)][which])
    out = np.zeros_like(x)
    simt.use("cpu")
    _run(unary, x, out, np.int32(which))
    ref = {
        "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
        "erf": np.vectorize(math.erf, otypes=[np.float64]),
    }[FNS[which]]  # fmt: skip
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expect = ref(x.astype(np.float64))
    assert np.array_equal(np.isnan(out), np.isnan(expect))
    assert _ulps(out, expect) <= 1.0


def test_pow_within_one_ulp_and_c99_special_cases() -> None:
    g = np.random.default_rng(8)
    x = np.concatenate([g.uniform(0, 10, 20000), -g.uniform(0, 3, 2000)]).astype(np.float32)
    y = np.concatenate([g.uniform(-30, 30, 20000), np.round(g.uniform(-20, 20, 2000))])
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, 0.5, 3.0, -3.0],
                  np.float32)  # fmt: skip
    xs, ys = np.meshgrid(sp, sp)
    x = np.concatenate([x, xs.ravel()])
    y = np.concatenate([y.astype(np.float32), ys.ravel()])
    out = np.zeros_like(x)
    simt.use("cpu")
    _run(power, x, y, out)
    with np.errstate(all="ignore"):
        expect = np.power(x.astype(np.float64), y.astype(np.float64))
    assert np.array_equal(np.isnan(out), np.isnan(expect))
    assert _ulps(out, expect) <= 1.0
    # the special cases exactly as C's powf (NumPy's float32 power)
    with np.errstate(all="ignore"):
        c99 = np.power(xs.ravel(), ys.ravel())
    tail = out[-xs.size :]
    exact = np.isinf(c99) | (c99 == 0) | np.isnan(c99) | (c99 == 1)
    assert np.array_equal(tail[exact], c99[exact], equal_nan=True)
    # signs as C's, a NaN's aside: IEEE leaves it open (x86's default NaN is negative, so
    # C's powf(-2, 0.5) is -NaN there; the kernel's NaN is positive, as on ARM)
    signed = exact & ~np.isnan(c99)
    assert np.array_equal(np.signbit(tail[signed]), np.signbit(c99[signed]))


def test_thread_loops_with_math_are_vectorised() -> None:
    from simt.pipeline import build

    x, out = np.ones(1024, np.float32), np.zeros(1024, np.float32)

    @simt.kernel
    def mix(x, out):
        i = block_idx.x * block_dim.x + thread_idx.x
        if i < len(x):
            v = x[i]
            out[i] = (
                math.exp(v)
                + math.log(v) * math.sin(v)
                - math.cos(v) * math.tanh(v)
                + math.erf(v)
                + v ** x[0]
            )

    specs = mix.arg_specs(x, out, backend="cpu")
    # unchecked: the code of accesses proven in bounds (or of boundscheck=False); a kept
    # check's loop is vectorised too (tests/backends/test_llvm_checks.py)
    fn = build(mix.pyfunc, specs, False, False, boundscheck=False)
    opt = registry.get("cpu").render(fn, stage="opt")  # type: ignore[call-arg]
    assert re.search(r"<\d+ x double>", opt)  # the double-precision kernels, widened
    calls = set(re.findall(r"call \w+ @(\w+)\(", opt))
    assert not calls & {"expf", "logf", "sinf", "cosf", "tanhf", "erff", "powf"}
    assert "pow" not in opt  # `**` too is the row's kernel, inlined


@pytest.mark.parametrize("exponent", [2.0, -1.0, 1.0, 2.5, 3.0])
def test_float_power_is_the_row_and_llvm_folds_its_constants(exponent: float) -> None:
    """`**` of floats is the pow row (as on cuda and webgpu): its vectorisable kernel, except
    for the constant exponents LLVM folds (the row's `llvm_folds`: x ** 2.0 is one multiply,
    x ** -1.0 one division), written as `llvm.pow` for LLVM to fold (a known 0.5 is already
    `math.sqrt` in the front end)."""
    from simt.builtins import MATH
    from simt.pipeline import build

    x, out = np.ones(1024, np.float32), np.zeros(1024, np.float32)

    @simt.kernel
    def powc(x, out):
        i = block_idx.x * block_dim.x + thread_idx.x
        if i < len(x):
            out[i] = x[i] ** exponent

    specs = powc.arg_specs(x, out, backend="cpu")
    fn = build(powc.pyfunc, specs, False, False, boundscheck=False)
    text = registry.get("cpu").render(fn)  # type: ignore[call-arg]
    opt = registry.get("cpu").render(fn, stage="opt")  # type: ignore[call-arg]
    assert "pow" not in opt  # folded or inlined: never a call of powf
    folded = exponent in MATH["pow"].llvm_folds
    assert ("@llvm.pow.f32" in text) == folded
    assert ("@simt.vm.pow.f32" in text) != folded


@pytest.mark.parametrize("which", range(len(FNS)), ids=FNS)
def test_agrees_with_sim(which: int) -> None:
    x = np.random.default_rng(9).uniform(0.01, 5, 3000).astype(np.float32)
    outs = []
    for backend in ("sim", "cpu"):
        simt.use(backend)
        out = np.zeros_like(x)
        _run(unary, x, out, np.int32(which))
        outs.append(out)
    np.testing.assert_allclose(outs[1], outs[0], rtol=3e-7, atol=1e-30)


def test_constants_and_table_are_exact_enough() -> None:
    k = llvm_math.constants()
    assert k["P1"] + k["P2"] + k["P3"] == pytest.approx(math.pi / 2, rel=1e-16)
    assert k["LN2_HI"] + k["LN2_LO"] == math.log(2)
    hi, lo = llvm_math.table()
    assert len(hi) == llvm_math.TABLE
    for s in (0, 1, 30, 104):
        assert math.frexp(hi[s])[0] * 2**29 == int(math.frexp(hi[s])[0] * 2**29)  # 29 bits
        assert 0 <= hi[s] + lo[s] < 2 * math.pi
    assert hi[2] + lo[2] == 4.0  # 2^2 < 2 pi: itself
