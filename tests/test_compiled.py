"""`simt.compile(f, **known)` on kernels and plain functions (image functions: test_image.py)."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import thread_idx
from simt.image import Image, Position


@pytest.fixture(autouse=True)
def _sim(monkeypatch: pytest.MonkeyPatch) -> None:

    simt.use("sim")


def weighted(weights, a, out):  # a plain function: no decorator
    i = simt.grid(1)
    if i < len(out):
        out[i] = sum([w * a[i + k] for k, w in enumerate(np.ravel(weights))])


def test_a_plain_function_specialised_on_a_list_and_a_matrix() -> None:
    a = np.arange(12, dtype=np.float32)
    out = np.zeros(10, np.float32)
    k = simt.compile(weighted, weights=[1.0, 0.5, 0.25])
    assert isinstance(k, simt.Kernel)
    k[1, 32](a, out)
    np.testing.assert_allclose(out, a[:10] + 0.5 * a[1:11] + 0.25 * a[2:12])
    assert "ravel" not in k.ir(a, out) and "0.25" in k.ir(a, out)
    m = simt.compile(weighted, weights=np.eye(2))  # ravel -> 1, 0, 0, 1
    out4 = np.zeros(8, np.float32)
    m[1, 32](a, out4)
    np.testing.assert_allclose(out4, a[:8] + a[3:11])


def test_a_kernel_keeps_its_options() -> None:
    @simt.kernel(fp64=True)
    def scale(c, a, out):
        i = thread_idx.x
        out[i] = a[i] * c + i / 3

    k = simt.compile(scale, c=2)
    assert k.fp64 and k.known == {"c": 2}
    a = np.arange(4, dtype=np.float64)
    out = np.zeros(4)
    k[1, 4](a, out)
    np.testing.assert_allclose(out, a * 2 + np.arange(4) / 3)


def test_a_value_that_cannot_go_to_the_device_must_be_given_when_compiling() -> None:
    k = simt.compile(weighted)
    a, out = np.zeros(12, np.float32), np.zeros(10, np.float32)
    with pytest.raises(simt.CompileError, match="parameter 'weights' of weighted") as e:
        k[1, 32]([1.0, 2.0], a, out)
    assert "simt.compile(weighted, weights=...)" in str(e.value)
    with pytest.raises(simt.CompileError, match=r"simt.compile\(kernel, weights=...\)"):
        k[1, 32](np.ones(3), a, out)  # an array: typed, but ravel needs its values


def test_bad_compile_calls() -> None:
    with pytest.raises(simt.CompileError, match="no parameter named 'wieghts'"):
        simt.compile(weighted, wieghts=[1])
    with pytest.raises(simt.CompileError, match="needs a Python function"):
        simt.compile(np.sum)


def test_lambdas_are_refused_at_their_own_line() -> None:
    """Issue 26: a lambda given to simt.compile was a SyntaxError out of generated code; a
    module-level lambda called in a kernel was an error without file or line, and is now
    compiled from its file (frontend/source.py)."""
    with pytest.raises(simt.CompileError) as e:
        simt.compile(lambda im=Image, p=Position: im(p) * 2)
    assert e.value.filename == __file__ and "is a lambda" in e.value.message
    assert e.value.line is not None and "lambda im=Image" in (e.value.source_line or "")
    with pytest.raises(simt.CompileError, match="the kernel is a lambda"):
        simt.kernel(lambda a: None)
    a = np.arange(4, dtype=np.float32)
    calls_a_lambda[1, 4](a)
    assert a.tolist() == [0.0, 1.0, 4.0, 9.0]


square = lambda x: x * x  # noqa: E731 - a module-level lambda, compiled from this file


@simt.kernel
def calls_a_lambda(a):
    i = simt.grid(1)
    a[i] = square(a[i])


def test_an_image_without_a_position_is_refused_when_compiling() -> None:
    """Issue 26: it silently became a plain kernel and failed later with another message."""
    def no_position(im: Image):
        return 1.0

    with pytest.raises(simt.CompileError, match="has an Image parameter but no Position"):
        simt.compile(no_position)
