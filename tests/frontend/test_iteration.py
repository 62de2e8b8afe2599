"""Loops over run-time arrays, zip/enumerate/reversed of them and of ranges, and unpacking
rows (frontend/iteration.py): Python's answers, loops over known values still unrolled, and
errors at the user's line for what stays refused."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import simt
from simt.errors import CompileError, KernelError


@pytest.fixture(autouse=True)
def keep_backend(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    yield


KNOWN = (1, 2, 3)


@simt.kernel
def mixed(x, y, out, n):
    i = simt.grid(1)
    if i == 0:
        s = 0.0
        for a, b in zip(x, y):
            s += a * b
        out[0] = s
        t = 0.0
        for k, v in enumerate(reversed(x), 2):
            t += k * v
        out[1] = t
        w = 0.0
        for k, v in zip(range(2, n), reversed(y[1:])):
            w += k * v
        out[2] = w
        z = 0
        for k in reversed(range(1, n, 3)):
            z = z * 3 + k
        out[3] = z
        q = 0
        for a, b in zip(KNOWN, (4, 5, 6)):  # known: unrolled as before
            q += a * b
        out[4] = q


def _mixed_reference(x: np.ndarray, y: np.ndarray, n: int) -> list[float]:
    z = 0
    for k in reversed(range(1, n, 3)):
        z = z * 3 + k
    return [
        float(x @ y),
        sum(k * v for k, v in enumerate(reversed(x.tolist()), 2)),
        sum(k * v for k, v in zip(range(2, n), reversed(y[1:].tolist()))),
        z,
        32,
    ]


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_zip_enumerate_reversed_follow_python(backend: str) -> None:
    simt.use(backend)
    x = np.arange(7, dtype=np.float32)
    y = (x * 0.5)[::-1].copy()
    out = np.zeros(5, np.float32)
    mixed[1, 4](x, y, out, 6)
    np.testing.assert_allclose(out, _mixed_reference(x, y, 6), rtol=1e-6)


@simt.kernel
def rows_and_pairs(a, p, out):
    i = simt.grid(1)
    if i < p.shape[0]:
        s = 0
        for row in a:
            for v in row:
                s += v
        px, py = p[i]
        out[i] = s * px + py


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_rows_of_a_2d_array_and_unpacked_rows(backend: str) -> None:
    simt.use(backend)
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    p = np.arange(10, dtype=np.int32).reshape(5, 2)
    out = np.zeros(5, np.int32)
    rows_and_pairs[1, 8](a, p, out)
    assert out.tolist() == (a.sum() * p[:, 0] + p[:, 1]).tolist()


def test_unpacking_a_row_of_another_length_is_a_kernel_error_on_sim() -> None:
    simt.use("sim")
    p = np.zeros((4, 3), np.int32)
    with pytest.raises(KernelError, match="unpacking a row into 2 names needs 2 items"):
        rows_and_pairs[1, 4](np.zeros((2, 2), np.int32), p, np.zeros(4, np.int32))


@simt.kernel
def loop_over_number(out, x):
    for v in x:
        out[0] = v


@simt.kernel
def run_time_step(out, n, m):
    for a, b in zip(range(n), range(0, m, n)):
        out[a] = b


@simt.kernel
def known_row_too_long(out):
    loc = simt.local.array(3, simt.int32)
    a, b = loc
    out[0] = a + b


@pytest.mark.parametrize(
    "kernel, args, words, line",
    [
        (loop_over_number, (3.0,), "cannot loop over", "for v in x:"),
        (run_time_step, (3, 9), "needs a step known at compile time", "range(0, m, n)"),
        (known_row_too_long, (), "expected 2 values to unpack, got 3", "a, b = loc"),
    ],
)
def test_refusals_name_the_line(kernel: simt.Kernel, args: tuple, words: str, line: str) -> None:
    simt.use("sim")
    with pytest.raises(CompileError) as e:
        kernel[1, 1](np.zeros(4, np.float32), *args)
    assert words in str(e.value) and line in str(e.value) and "test_iteration.py" in str(e.value)


def test_a_tuple_whose_length_an_if_changes_in_a_run_time_loop_is_refused() -> None:
    """`best` is a 1-tuple before the loop and a 2-tuple on one path of an `if` inside it: the
    carried variable used to keep the 1-tuple's shape and read zeros after the loop (found by
    the lists engineer, 2026-11-26); now a located CompileError, like a loop body whose end
    gives it another length."""
    simt.use("sim")

    @simt.kernel
    def k(a, out, n):
        t = simt.grid(1)
        best = [a[t]]
        for k in range(n):
            cand = [a[t] * k, a[t] + k]
            if sum(cand) > sum(best):
                best = cand
        out[t] = sum(best) * 10 + len(best)

    a = np.arange(4, dtype=np.int32)
    with pytest.raises(CompileError, match="`best` changes between .* tuples of different lengths"):
        k[1, 4](a, np.zeros(4, np.int32), 4)
