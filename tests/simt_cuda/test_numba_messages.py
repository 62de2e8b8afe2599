"""The errors of a `cuda.jit` kernel speak as its Numba program does: `cuda.syncthreads()`,
`cuda.shared.array`, `cuda.atomic.add`, `np.float32(x)` where a `simt.kernel`'s say `simt.`
..., and their advice is advice a Numba program can follow (a cuda.jit kernel has no static
arguments: a shared array's size comes from a global or from the launch's fourth value)."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import cuda
from simt.cuda.dispatch import numba_spelling


@cuda.jit
def runtime_size(a, n):
    s = cuda.shared.array(n, np.float32)
    i = cuda.threadIdx.x
    s[i] = a[i]
    cuda.syncthreads()
    a[i] = s[n - 1 - i]


@cuda.jit
def dynamic_size(a):
    s = cuda.shared.array(0, np.float32)
    i = cuda.threadIdx.x
    s[i] = a[i]
    cuda.syncthreads()
    a[i] = s[a.shape[0] - 1 - i]


@cuda.jit
def count_missing_value(a, c):
    i = cuda.grid(1)
    if a[i] > 0:
        cuda.atomic.add(c, 0)


@cuda.jit
def forgot_the_call(a, out):
    s = cuda.shared.array(32, np.float32)
    i = cuda.threadIdx.x
    s[i] = a[i]
    cuda.syncthreads  # noqa: B018 - the mistake under test
    out[i] = s[31 - i]


@cuda.jit
def whole_array_function(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i] / np.sum(a)


def test_shared_size_at_run_time_advises_what_works() -> None:
    simt.use("sim")
    a = np.arange(32, dtype=np.float32)
    with pytest.raises(simt.CompileError) as e:
        runtime_size[1, 32](a, 32)
    text = str(e.value)
    assert "cuda.shared.array must be known at compile time" in text
    assert "static argument" not in text and "simt." not in text
    assert "kernel[blocks, threads, 0, nbytes]" in text
    assert "test_numba_messages.py" in text  # the user's file and line
    dynamic_size[1, 32, 0, 32 * 4](a)  # the advice, followed, works
    np.testing.assert_array_equal(a, np.arange(32, dtype=np.float32)[::-1])


def test_names_are_numbas() -> None:
    simt.use("sim")
    a = np.ones(32, np.float32)
    with pytest.raises(simt.CompileError, match=r"cuda\.atomic\.add takes 3 arguments"):
        count_missing_value[1, 32](a, np.zeros(1, np.int32))
    # a barrier named without its call is refused on every backend (sim alone could see the
    # race it leaves), with the call to write
    with pytest.raises(simt.CompileError, match=r"`cuda\.syncthreads` names a function") as e:
        forgot_the_call[1, 32](np.arange(32, dtype=np.float32), np.zeros(32, np.float32))
    assert e.value.hint and "cuda.syncthreads()" in e.value.hint and "simt." not in str(e.value)


def test_no_compile_time_advice_for_data() -> None:
    simt.use("cpu")
    a = np.ones(64, np.float32)
    with pytest.raises(simt.CompileError) as e:
        whole_array_function[1, 64](a, np.zeros_like(a))
    text = str(e.value)
    assert "simt.compile" not in text
    assert "compute the whole-array function on the host before the launch" in text
    assert "`a[k]`" in text


def test_simt_kernels_keep_simts_words() -> None:
    @simt.kernel
    def k(a, c):
        simt.atomic.add(c, 0)

    simt.use("sim")
    with pytest.raises(simt.CompileError, match=r"simt\.atomic\.add takes 3 arguments"):
        k[1, 32](np.ones(32, np.float32), np.zeros(1, np.int32))


def test_spelling_table() -> None:
    assert numba_spelling("put simt.syncthreads() here") == "put cuda.syncthreads() here"
    assert numba_spelling("compute it in float32 (simt.float32(x))") == (
        "compute it in float32 (np.float32(x))"
    )
    assert numba_spelling("use smaller simt.shared.array tiles, simt.local.array") == (
        "use smaller cuda.shared.array tiles, cuda.local.array"
    )
    untouched = "simt.cuda.jit and simt.use('cpu')"
    assert numba_spelling(untouched) == untouched


@cuda.jit
def previous_element(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[i - 1]


@cuda.jit
def periodic_previous(a, out):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = a[(i - 1) % a.size]


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_negative_run_time_index_says_how_numba_differs(backend: str) -> None:
    simt.use(backend)
    a = np.arange(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    with pytest.raises(simt.KernelError) as e:
        previous_element[1, 8](a, out)
    assert "index -1 is out of bounds of `a` with size 8" in str(e.value)
    assert "Numba wraps a negative index" in str(e.value) and "a[(i - 1) % n]" in str(e.value)
    periodic_previous[1, 8](a, out)  # the advice, followed
    np.testing.assert_array_equal(out, np.roll(a, 1))
