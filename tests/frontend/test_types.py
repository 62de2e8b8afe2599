"""The number rules of docs/semantics.md as the front end types them."""

import numpy as np
import pytest

import simt
from simt import thread_idx


@pytest.fixture(autouse=True)
def _sim():
    simt.use("sim")


def test_float_literal_takes_the_float32_operand_type():
    @simt.kernel
    def k(a, out):
        i = thread_idx.x
        out[i] = a[i] * 0.1 + 1e-3

    a = np.random.default_rng(0).random(8, dtype=np.float32)
    out = np.zeros(8, np.float32)
    assert "float64" not in k.ir(a, out)
    k[1, 8](a, out)
    np.testing.assert_array_equal(out, a * np.float32(0.1) + np.float32(1e-3))


def test_int_division_is_float32_unless_fp64():
    def body(out):
        i = thread_idx.x
        out[i] = i / 3

    out = np.zeros(4, np.float64)
    text32 = simt.kernel(body).ir(out)
    text64 = simt.kernel(body, fp64=True).ir(out)
    assert "float32 = bin.div" in text32
    assert "float64 = bin.div" in text64


def test_python_scalar_arguments():
    @simt.kernel
    def k(out, s, n, flag):
        out[thread_idx.x] = s * n if flag else 0.0

    out = np.zeros(2, np.float32)
    text = k.ir(out, 1.5, 2, True)
    assert "%s.2: float32" in text.replace(" ", " ") or "float32" in text.splitlines()[0]
    k[1, 2](out, 1.5, 2, True)
    assert (out == 3.0).all()


def test_store_converts_as_numpy_assignment():
    @simt.kernel
    def k(a, out):
        out[thread_idx.x] = a[thread_idx.x]

    a = np.array([1.9, -1.9, 2.5], np.float32)
    out = np.zeros(3, np.int32)
    k[1, 3](a, out)
    np.testing.assert_array_equal(out, a.astype(np.int32))


def test_int32_wraps_like_cuda():
    @simt.kernel
    def k(out):
        x = 2147483647
        out[thread_idx.x] = x + thread_idx.x + 1

    out = np.zeros(2, np.int32)
    k[1, 2](out)
    assert list(out) == [-2147483648, -2147483647]


def test_chained_comparison_and_short_circuit_guard():
    @simt.kernel
    def k(a, out):
        i = thread_idx.x
        if i < len(a) and a[i] > 0.5:  # a[i] is only read where i < len(a)
            out[i] = 1
        out[i] = out[i] + (1 if 0 <= i < 3 else 0)

    a = np.array([0.0, 1.0], np.float32)
    out = np.zeros(4, np.int32)
    k[1, 4](a, out)
    assert list(out) == [1, 2, 1, 0]


def test_swap_and_tuple_unpacking():
    @simt.kernel
    def k(out):
        a, b = thread_idx.x, 10
        a, b = b, a
        out[thread_idx.x] = a * 100 + b

    out = np.zeros(3, np.int32)
    k[1, 3](out)
    assert list(out) == [1000, 1001, 1002]


def test_loop_counter_widens_to_float():
    @simt.kernel
    def k(a, out):
        s = 0
        for j in range(len(a)):
            s += a[j]
        out[thread_idx.x] = s

    a = np.array([0.5, 0.25], np.float32)
    out = np.zeros(1, np.float32)
    k[1, 1](a, out)
    assert out[0] == 0.75
