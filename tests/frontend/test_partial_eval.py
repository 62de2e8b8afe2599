"""Partial evaluation: what is known at compile time is computed in CPython and leaves no
trace in the IR; what depends on the thread is translated."""

import math

import numpy as np
import pytest

import simt
from simt import thread_idx

WEIGHTS = np.array([[1.0, 2.0], [3.0, 4.0]])
SCALE = 3


def offsets(n):
    return [(i, -i) for i in range(n)]


@pytest.fixture(autouse=True)
def _sim():
    simt.use("sim")


def test_globals_and_calls_on_known_values_fold():
    @simt.kernel
    def k(out):
        i = thread_idx.x
        out[i] = i * float(np.sum(WEIGHTS)) + math.sqrt(SCALE * 3)

    out = np.zeros(4, np.float32)
    text = k.ir(out)
    assert "10.0" in text and "3.0" in text  # np.sum and math.sqrt ran in CPython
    assert "math." not in text
    k[1, 4](out)
    np.testing.assert_allclose(out, np.arange(4) * 10.0 + 3.0)


def test_loop_over_known_zip_is_unrolled():
    @simt.kernel
    def k(a, out):
        i = thread_idx.x
        acc = 0.0
        for w, (dx, dy) in zip(np.ravel(WEIGHTS), offsets(4)):
            acc += w * a[i + (dx + dy)]
        out[i] = acc

    a = np.arange(8, dtype=np.float32)
    out = np.zeros(4, np.float32)
    text = k.ir(a, out)
    assert " for " not in text and "while" not in text
    assert text.count("load") == 1  # every offset folds to dx + dy == 0: one load, CSE'd
    k[1, 4](a, out)
    np.testing.assert_allclose(out, a[:4] * 10.0)


def test_known_range_unrolls_when_the_body_needs_known_values():
    taps = (0.25, 0.5, 0.25)

    @simt.kernel
    def k(a, out):
        i = thread_idx.x + 1
        s = 0.0
        for t in range(3):
            s += taps[t] * a[i + t - 1]  # indexing a known tuple needs t known
        out[i - 1] = s

    a = np.arange(6, dtype=np.float32)
    out = np.zeros(4, np.float32)
    k[1, 4](a, out)
    np.testing.assert_allclose(out, [1.0, 2.0, 3.0, 4.0])
    assert "0.25" in k.ir(a, out)


def test_comprehension_and_sum_unroll():
    @simt.kernel
    def k(a, out):
        i = thread_idx.x
        out[i] = sum([a[i] * j for j in range(1, 4)])

    a = np.arange(4, dtype=np.float32)
    out = np.zeros(4, np.float32)
    k[1, 4](a, out)
    np.testing.assert_allclose(out, a * 6)


def test_static_arguments_are_constants_and_key_the_cache():
    @simt.kernel(static=("n",))
    def k(out, n):
        out[thread_idx.x] = n * 2

    out = np.zeros(4, np.int32)
    assert "%n" not in k.ir(out, 5)
    k[1, 4](out, 5)
    assert (out == 10).all()
    k[1, 4](out, 7)
    assert (out == 14).all()
    assert len(k._cache) == 2


def test_runtime_scalars_do_not_recompile():
    @simt.kernel
    def k(out, n):
        out[thread_idx.x] = n * 2

    out = np.zeros(4, np.int32)
    k[1, 4](out, 5)
    k[1, 4](out, 6)
    assert (out == 12).all() and len(k._cache) == 1


def test_closures_are_frozen_at_first_compile():
    def make(c):
        @simt.kernel
        def k(out):
            out[thread_idx.x] = c

        return k

    out = np.zeros(2, np.float32)
    make(2.5)[1, 2](out)
    assert (out == 2.5).all()


def test_helper_functions_returning_tuples_and_early_returns():
    def divmod_pos(a, b):
        if b == 0:
            return 0, 0
        return a // b, a % b

    @simt.kernel
    def k(a, q, r):
        i = thread_idx.x
        q[i], r[i] = divmod_pos(a[i], 3)

    a = np.array([-7, -1, 0, 5, 9], np.int32)
    q, r = np.zeros_like(a), np.zeros_like(a)
    k[1, 5](a, q, r)
    assert list(q) == [-3, -1, 0, 1, 3] and list(r) == [2, 2, 0, 2, 0]


def test_known_branches_leave_no_if():
    DEBUG = False

    @simt.kernel(boundscheck=False)  # (no IndexError check of `out[thread_idx.x]`: its `if`)
    def k(out):
        if DEBUG:
            print("never")
        out[thread_idx.x] = 1

    assert "if" not in k.ir(np.zeros(2, np.int32)).split(":", 1)[1]


class Pair:
    """A user class with container dunders, built in a kernel."""

    def __init__(self, a, b):
        self.v = (a, b)

    def __len__(self):
        return len(self.v)

    def __getitem__(self, i):
        return self.v[i]


def test_objects_with_len_and_getitem():
    @simt.kernel
    def k(out):
        i = thread_idx.x
        p = Pair(i, 2 * i)
        out[i] = p[1] + len(p)

    out = np.zeros(4, np.int32)
    k[1, 4](out)
    np.testing.assert_array_equal(out, 2 * np.arange(4) + 2)


def test_branches_may_leave_unhashable_known_values():
    @simt.kernel
    def k(out, m):
        i = thread_idx.x
        w = WEIGHTS  # an ndarray known in both branches
        if i < 2:
            out[i] = float(w[0, 0]) * m
        else:
            out[i] = float(w[1, 1]) * m

    out = np.zeros(4, np.float32)
    k[1, 4](out, 2.0)
    np.testing.assert_array_equal(out, [2, 2, 8, 8])


def test_a_runtime_array_given_to_a_host_function_says_to_compile_it_in():
    @simt.kernel
    def k(weights, out):
        i = thread_idx.x
        out[i] = float(np.sum(weights))

    with pytest.raises(simt.CompileError) as e:
        k[1, 4](WEIGHTS, np.zeros(4, np.float32))
    text = str(e.value)
    assert "simt.compile(kernel, weights=...)" in text  # when the array only shapes the program
    # and, for a data array, what works: the host computes it before the launch
    assert "compute numpy.sum() on the host before the launch and pass its result" in text


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_a_math_domain_error_folds_to_what_the_kernel_computes(backend):
    """Known operands fold as the kernel computes at run time: gamma at a pole is NaN and an
    overflow inf (the C library's answers, builtins.elementwise), not a compile error that
    only a known operand would raise (OOB fuzz campaign, seed 33962)."""
    simt.use(backend)
    x0 = 0.5

    @simt.kernel
    def k(out, n):
        i = thread_idx.x
        out[i, 0] = math.gamma(x0 % 6.0 - 2.5)  # gamma(-2.0): a pole
        out[i, 1] = math.exp(1000.0)  # overflow
        out[i, 2] = math.gamma(n * 1.0 - 2.0)  # the same pole at run time

    out = np.zeros((4, 3), np.float32)
    k[1, 4](out, 0)
    assert np.isnan(out[:, 0]).all() and np.isnan(out[:, 2]).all()
    assert (out[:, 1] == np.inf).all()
