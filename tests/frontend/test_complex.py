"""Complex numbers in kernels: errors at the user's line, views of complex arrays, complex
constants as arguments, and the `Complex` class in CPython."""

from __future__ import annotations

import cmath
from collections.abc import Iterator

import numpy as np
import pytest

import simt
from simt.complexnum import Complex
from simt.runtime import registry


@pytest.fixture(autouse=True)
def keep_backend(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(registry, "_current", registry._current)
    yield


@simt.kernel
def real_power(a):
    z = a[0]
    a[1] = z**0.5


@simt.kernel
def scaled_tail(a, out, c):
    i = simt.grid(1)
    tail = a[1:]
    if i < len(tail):
        out[i] = tail[i] * c + tail.shape[0]


def test_power_needs_a_known_integer() -> None:
    with pytest.raises(simt.CompileError, match="integer exponent known") as e:
        real_power[1, 1](np.ones(2, np.complex64))
    assert e.value.line is not None and "z**0.5" in (e.value.source_line or "")


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_views_of_complex_arrays_and_complex_constants(backend: str) -> None:
    simt.use(backend)
    a = (np.arange(6) + 1j * np.arange(6)[::-1]).astype(np.complex64)
    out = np.zeros(5, np.complex64)
    scaled_tail[1, 8](a, out, 2 - 1j)
    np.testing.assert_allclose(out, a[1:] * (2 - 1j) + 5, rtol=1e-6)
    scaled_tail[1, 8](a, out, 1j)  # a new constant: a new specialisation
    np.testing.assert_allclose(out, a[1:] * 1j + 5, rtol=1e-6)


def test_the_class_runs_in_cpython() -> None:
    z, w = Complex(1.0, 2.0), Complex(-0.5, 0.25)
    for got, want in [
        (z * w, (1 + 2j) * (-0.5 + 0.25j)),
        (z / w, (1 + 2j) / (-0.5 + 0.25j)),
        (2.0 - z, 2 - (1 + 2j)),
        (z**3, (1 + 2j) ** 3),
        (z**-2, (1 + 2j) ** -2),
        (z.conjugate() + 1j, (1 - 2j) + 1j),
    ]:
        assert abs(complex(got.re, got.im) - want) < 1e-12
    assert abs(abs(z) - abs(1 + 2j)) < 1e-12
    from simt import complexnum

    assert abs(complexnum.phase(w) - cmath.phase(-0.5 + 0.25j)) < 1e-12
    s = complexnum.sqrt(Complex(-4.0, -0.0))
    assert (s.re, s.im) == (0.0, -2.0)  # the branch cut, as cmath


@simt.kernel
def mixed_paths(fa, s0, out, flags):
    i = simt.grid(1)
    x = fa[i]
    z = complex(3.0, x) if s0 > i else (3 + 0.25j)  # a known complex on one path
    w = 1j if s0 > i else z
    if x > 1.0:
        u = complex(x, 1.0)
    else:
        u = 2.0  # a real number on one path: its real part
    y = -(0.5j) if x > 2.0 else complex(1.0, x)
    out[i] = z + w + u + y
    flags[i] = (z != (3 + 0.25j)) * 1 + (w == z) * 2 + (x == z) * 4 + (u != 2.0) * 8


@simt.kernel
def ordered(a, out):
    out[0] = a[0] < a[1]


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_complex_merges_from_known_and_real_paths_and_compares(backend: str) -> None:
    # found by the fuzzer: `==`/`!=` of complex numbers were "expected a number", a known
    # complex on one path of an if was "may be undefined" after it, `-(0.5j)` was rejected
    simt.use(backend)
    fa = np.arange(4, dtype=np.float32)
    out, flags = np.zeros(4, np.complex64), np.zeros(4, np.int32)
    mixed_paths[1, 4](fa, 2, out, flags)
    want, want_flags = [], []
    for i in range(4):
        x = float(fa[i])
        z = complex(3.0, x) if 2 > i else (3 + 0.25j)
        w = 1j if 2 > i else z
        u = complex(x, 1.0) if x > 1.0 else 2.0
        y = -(0.5j) if x > 2.0 else complex(1.0, x)
        want.append(z + w + u + y)
        want_flags.append((z != (3 + 0.25j)) * 1 + (w == z) * 2 + (x == z) * 4 + (u != 2.0) * 8)
    np.testing.assert_allclose(out, want, rtol=1e-6)
    assert flags.tolist() == want_flags


def test_complex_numbers_have_no_order() -> None:
    with pytest.raises(simt.CompileError, match="complex numbers have no order") as e:
        ordered[1, 1](np.ones(2, np.complex64), np.zeros(1, np.int32))
    assert "a[0] < a[1]" in (e.value.source_line or "")


@simt.kernel
def _axpy(a, out, c):
    i = simt.grid(1)
    if i < len(a):
        out[i] = a[i] * c + c.conjugate()


def _use(backend: str) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"{backend} not present: {why}")
    simt.use(backend)


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_complex_scalars_are_run_time_values(backend: str) -> None:
    """A new complex value is a new argument, not a new kernel: one specialisation for
    1+2j, 3-1j and np.complex64(0.5j) (parts float32, as a Python float's)."""
    _use(backend)
    _axpy._cache.clear()
    a = (np.arange(8) + 1j).astype(np.complex64)
    out = np.zeros_like(a)
    for c in (1 + 2j, 3 - 1j, np.complex64(0.5j)):
        _axpy[1, 32](a, out, c)
        np.testing.assert_allclose(out, a * c + np.conj(c), rtol=1e-6)
    assert len(_axpy._cache) == 1
    assert "c__re" in _axpy.ir(a, out, 1j) and "c__im" in _axpy.ir(a, out, 1j)


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_device_arrays(backend: str, dtype: type) -> None:
    """`simt.to_device` of a complex array, read and written in kernels, stays on the device."""
    _use(backend)
    a = (np.linspace(-2, 1, 50) + 1j * np.linspace(1, -1, 50)).astype(dtype)
    d, out = simt.to_device(a), simt.empty(50, dtype)
    try:
        _axpy[2, 32](d, out, dtype(0.5 - 2j))
    except simt.CompileError as e:  # webgpu without shader-f64: refused by name
        assert backend == "webgpu" and dtype is np.complex128 and "complex128" in str(e)
        return
    got = out.numpy()
    assert got.dtype == dtype
    np.testing.assert_allclose(got, a * (0.5 - 2j) + (0.5 + 2j), rtol=1e-5)
    _axpy[2, 32](d, d, dtype(1j))  # in place: written through the same device memory
    np.testing.assert_allclose(d.numpy(), a * 1j - 1j, rtol=1e-5)


def _early(p0, p1):
    if p0.real > p1.imag:
        return p1 + 1j, p0.imag  # a known complex when p1 is known
    return -p1, p1.real


@simt.kernel
def early_complex(cz, out, fo):
    i = simt.grid(1)
    z, x = _early(cz[i], 1j)
    out[i] = z
    fo[i] = x


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_a_helper_returns_a_known_complex_early(backend: str) -> None:
    # found by the fuzzer (seed 4000): the early return's known complex did not merge with
    # the final return ("`z` may be undefined")
    simt.use(backend)
    cz = np.array([1 + 2j, -1 + 0j, 0.5j, 3 + 3j], np.complex64)
    out, fo = np.zeros(4, np.complex64), np.zeros(4, np.float32)
    early_complex[1, 4](cz, out, fo)
    want = [_early(complex(c), 1j) for c in cz]
    np.testing.assert_array_equal(out, [w[0] for w in want])
    np.testing.assert_array_equal(fo, [w[1] for w in want])


@simt.kernel
def complex_sqrt(z, out):
    i = simt.grid(1)
    if i < len(z):
        out[i] = cmath.sqrt(z[i])


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_sqrt_keeps_its_digits_far_from_the_axes(backend: str) -> None:
    # found by the fuzzer (seed 22621): sqrt((|z| - re) / 2) for re >> |im| cancelled, so
    # the imaginary part of cmath.sqrt(1e6 + 3j) was 0 (1007.9 against 1024.0 between backends)
    if not registry.probe(backend)[0]:
        pytest.skip(f"{backend} is not available here")
    simt.use(backend)
    vals = [4, -4, 3 + 4j, -3 + 4j, -3 - 4j, 1e6 + 1024j, 1e6 - 3j, -1e6 + 3j, 1e-3 + 1e-3j, 2j]
    z = np.array(vals, np.complex64)
    out = np.zeros_like(z)
    complex_sqrt[1, 32](z, out)
    want = np.array([cmath.sqrt(complex(v)) for v in z])
    np.testing.assert_allclose(out, want, rtol=1e-5)
