"""Numba's integer typing under `simt.cuda.jit` (Python ints int64, integer results 64 bits
wide), simt's int32 rule under `@simt.kernel`, and the int32 fallback (with a warning) on a
device without 64-bit integers. The corpus file numba_corpus/n_int64.py checks the same rule
on every backend and against Numba's simulator."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import simt
from simt import cuda
from simt.errors import NumbaTypingWarning
from simt.runtime import registry


def body(out, n):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i, 0] = i * 1000000000 + n           # literal * index: past 2**31 for i >= 3
        out[i, 1] = cuda.threadIdx.x * cuda.blockDim.x * 100000000
        out[i, 2] = -(i * 3000000000) // 7
        u = np.uint32(i)
        out[i, 3] = (u - np.uint32(1)) // np.uint32(2)  # uint32 - uint32: uint64 in Numba


def _expected(n: int) -> np.ndarray:
    r = np.zeros((8, 4), np.int64)
    for i in range(8):
        r[i] = (i * 1000000000 + n, i * 8 * 100000000, -(i * 3000000000) // 7,
                ((i - 1) % 2**64) // 2 if i else (2**64 - 1) // 2)  # fmt: skip
    return r


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_cuda_jit_ints_are_int64(backend: str) -> None:
    simt.use(backend)
    k = cuda.jit(body)
    out = np.zeros((8, 4), np.int64)
    k[1, 8](out, 5)
    expected = _expected(5)
    expected[:, 3] = expected[:, 3].astype(np.uint64).astype(np.int64)
    assert (out == expected).all(), out


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_simt_kernel_keeps_int32(backend: str) -> None:
    """The same arithmetic in a `@simt.kernel` wraps in int32, as CUDA C's int does."""
    simt.use(backend)

    @simt.kernel
    def k(out, n):  # type: ignore[no-untyped-def]
        i = simt.grid(1)
        if i < out.shape[0]:
            out[i, 0] = i * 1000000000 + n
            out[i, 1] = simt.thread_idx.x * simt.block_dim.x * 100000000

    out = np.zeros((8, 4), np.int64)
    k[1, 8](out, 5)
    want0 = [(np.int64(i * 1000000000 + 5) + 2**31) % 2**32 - 2**31 for i in range(8)]
    want1 = [(i * 8 * 100000000 + 2**31) % 2**32 - 2**31 for i in range(8)]
    assert list(out[:, 0]) == want0
    assert list(out[:, 1]) == want1
    assert (out[3:, 0] != _expected(5)[3:, 0]).all()  # and they differ from Numba's


def test_int32_fallback_without_int64(monkeypatch: pytest.MonkeyPatch) -> None:
    """A device without 64-bit integers (a WebGPU adapter without shader-int64; here sim told
    so) runs the kernel with simt's int32 rule and says so once, by a NumbaTypingWarning."""
    simt.use("sim")
    rt = registry.current()
    monkeypatch.setattr(type(rt), "has_int64", lambda self: False)
    k = cuda.jit(body)
    out = np.zeros((8, 4), np.int64)
    with pytest.warns(NumbaTypingWarning, match="int32"):
        k[1, 8](out, 5)
    assert out[3, 0] == np.int64(np.int32(np.int64(3000000005) - 2**32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        k[1, 8](out, 5)  # said once per kernel


def test_ir_types_are_numbas() -> None:
    """The IR says it: `i * 2` of cuda.grid(1) is int64, `threadIdx.x` stays int32."""

    @cuda.jit
    def k(out):  # type: ignore[no-untyped-def]
        out[cuda.threadIdx.x] = cuda.threadIdx.x * 2

    text = k.kernel(0).ir(np.zeros(4, np.int32))
    assert "int32 = thread_idx.x" in text
    assert "int64 = bin.mul" in text


def local_builtin_types(out_i, out_f):  # type: ignore[no-untyped-def]
    i = cuda.grid(1)
    acc = cuda.local.array(2, int)  # Numba: `int` is NumPy's int64, `float` its float64
    fl = cuda.local.array(1, float)
    acc[0] = 3000000000
    acc[1] = acc[0] * (i + 1)
    fl[0] = 0.1
    fl[0] = fl[0] + 0.2
    if i < out_i.shape[0]:
        out_i[i] = acc[1]
        out_f[i] = fl[0]


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_local_arrays_of_int_and_float_are_numbas(backend: str) -> None:
    """`cuda.local.array(n, int)` holds int64 and `(n, float)` float64 under `cuda.jit`, as in
    Numba (they were int32 and float32: 3000000000 wrapped, 0.1 + 0.2 rounded to float32)."""
    simt.use(backend)
    out_i, out_f = np.zeros(4, np.int64), np.zeros(4, np.float64)
    cuda.jit(local_builtin_types)[1, 4](out_i, out_f)
    assert out_i.tolist() == [3000000000 * (i + 1) for i in range(4)]
    assert (out_f == 0.1 + 0.2).all(), out_f


def list_body(ia, out):  # type: ignore[no-untyped-def]
    t = cuda.threadIdx.x
    xs = []
    for v in ia:
        xs.append(v)  # int32 items first
    xs.append(-t)  # int64 in Numba (`-` of an int32 is 64 bits wide)
    xs.append(t * 3000000000)
    s = 0
    for x in xs:
        s += x
    out[t, 0] = xs[-1]
    out[t, 1] = s


def float_after_ints(ia, out):  # type: ignore[no-untyped-def]
    t = cuda.threadIdx.x
    xs = []
    for v in ia:
        xs.append(v)  # int32 items first
    xs.append(0.5)  # Numba unifies int32 and float64 to float64
    s = 0.0
    for x in xs:
        s += x
    out[t] = s


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_a_list_is_typed_by_all_its_items_as_numba_unifies_them(backend: str) -> None:
    """Numba types a list by unifying its items (`xs.append(v)` of an int32, then of an
    int64, makes a list of int64: seeds 25 and 30 of the Numba-spelled fuzz kernels; an int32
    then a float makes a list of float64), so `simt.cuda.jit` does. `@simt.kernel` widens
    int32 to int64 too (Python's ints are one type) but refuses a float after ints by name."""
    simt.use(backend)
    ia = np.array([7, 2**31 - 1, -5], np.int32)
    out = np.zeros((4, 2), np.int64)
    t = np.arange(4, dtype=np.int64)
    for compile_ in (cuda.jit, simt.kernel):
        out[:] = 0
        compile_(list_body)[1, 4](ia, out)
        assert (out[:, 0] == t * 3000000000).all(), out
        assert (out[:, 1] == int(ia.astype(np.int64).sum()) - t + t * 3000000000).all(), out
    sums = np.zeros(4, np.float64)
    cuda.jit(float_after_ints)[1, 4](ia, sums)
    assert (sums == int(ia.astype(np.int64).sum()) + 0.5).all(), sums
    with pytest.raises(simt.CompileError, match="would mix types"):
        simt.kernel(float_after_ints)[1, 4](ia, sums)
