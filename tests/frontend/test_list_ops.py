"""Reading, reordering and slicing run-time lists (frontend/list_ops.py): each operation
against Python running the same helper on the host, over lists of many lengths, and the
errors a user gets (an empty `min`, `index` of a missing value, a run-time slice step)."""

from __future__ import annotations

import numpy as np
import pytest

import simt

BACKENDS = ("sim", "cpu")


def digest(xs):  # an order-sensitive checksum of a list
    s = 0
    for x in xs:
        s = (s * 7 + x) % 1000003
    return s


def int_ops(t, n, v):
    """The same code runs in the kernel (inlined) and on the host (the reference)."""
    xs = []
    for k in range(n):
        xs.append((k * 7 + t * 3) % 11 - 3)
    ys = sorted(xs)
    middle = xs[1 : n - 1]
    backwards = xs[::-1]
    tail = xs[-3:]
    evens = xs[::2]
    down = xs[6:1:-2]
    zs = list(xs)
    zs.sort(reverse=True)
    has = 1 if v in xs else 0
    hasnt = 1 if v not in xs else 0
    where = xs.index(v) if v in xs else -1
    ws = xs.copy()
    ws.reverse()
    if v in ws:
        ws.remove(v)
    low = min(xs) if xs else 99
    high = max(xs) if xs else -99
    return (
        sum(xs), low, high, has, hasnt, where, xs.count(v), digest(ys), digest(middle),
        digest(backwards), digest(tail), digest(evens), digest(down), digest(zs),
        digest(ws), len(ws), sum(xs, 100),
    )


N_OUT = 17


@simt.kernel
def int_kernel(out, n, v):
    t = simt.grid(1)
    r = int_ops(t, n + t % 9, v)
    for k in range(17):
        out[t, k] = r[k]


@pytest.mark.parametrize("backend", BACKENDS)
def test_list_operations_agree_with_python(backend: str) -> None:
    simt.use(backend)
    out = np.zeros((24, N_OUT), np.int32)
    int_kernel[2, 12](out, 0, 2)
    for t in range(24):
        assert tuple(out[t]) == int_ops(t, t % 9, 2), t


def float_ops(a, t):
    xs = [a * k - 1.5 for k in range(t % 6 + 1)]
    xs.append(0.25)
    return sum(xs), min(xs), max(xs), sorted(xs)[1], 0.25 in xs, xs[::-1][0], sum(xs[1:], 0.5)


@simt.kernel
def float_kernel(a, out):
    t = simt.grid(1)
    r = float_ops(a[t], t)
    for k in range(7):
        out[t, k] = r[k]


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_lists_sum_min_max_sort(backend: str) -> None:
    simt.use(backend)
    a = np.linspace(-2, 3, 16).astype(np.float32)
    out = np.zeros((16, 7), np.float32)
    float_kernel[1, 16](a, out)
    for t in range(16):
        want = float_ops(float(a[t]), t)
        np.testing.assert_allclose(out[t], np.array(want, np.float64), rtol=1e-5, atol=1e-5)


def test_in_with_a_tuple_of_run_time_values() -> None:
    @simt.kernel
    def k(a, out):
        t = simt.grid(1)
        out[t] = 1 if a[t] in (a[0], 3, 5.0) else 0

    simt.use("sim")
    a = np.array([7, 3, 5, 7, 1], np.int32)
    out = np.zeros(5, np.int32)
    k[1, 5](a, out)
    assert list(out) == [1, 1, 1, 1, 0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_min_of_an_empty_list_and_index_of_a_missing_value_raise_value_error(
    backend: str,
) -> None:
    @simt.kernel
    def k(out, n):
        t = simt.grid(1)
        xs = [j for j in range(t)]
        try:
            out[t, 0] = xs.index(n)
        except ValueError as e:
            out[t, 0] = -1
            print(t, e)
        out[t, 1] = min(xs)  # thread 0: an empty list

    simt.use(backend)
    out = np.zeros((4, 2), np.int32)
    with pytest.raises(simt.KernelError) as info:
        k[1, 4](out, 2)
    text = str(info.value)
    assert "1 thread raised ValueError" in text and "min() arg is an empty sequence" in text
    assert "out[t, 1] = min(xs)" in text
    assert list(out[:, 0]) == [-1, -1, -1, 2]


def test_index_of_a_missing_value_names_it(capfd: pytest.CaptureFixture[str]) -> None:
    @simt.kernel
    def k(out, n):
        t = simt.grid(1)
        xs = [j for j in range(t)]
        try:
            out[t] = xs.index(n)
        except ValueError as e:
            print(t, e)

    simt.use("sim")
    k[1, 2](np.zeros(2, np.int32), 5)
    assert capfd.readouterr().out.splitlines() == ["0 5 is not in list", "1 5 is not in list"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("ys = xs[::n]", "slice's step must be known at compile time"),
        ("xs.sort(key=n)", "sort(key=...) takes a function known at compile time"),
        ("ys = xs.frob()", "not .frob"),
        ("ys = xs[1.5:]", "slice start must be an integer"),
        ("ys = xs + (1, 2)", 'can only concatenate list (not "tuple") to list'),
        ("ys = xs + 1", 'can only concatenate list (not "int") to list'),
        ("ys = xs + t", "a list takes another list"),
    ],
)
def test_refusals_name_the_line_and_say_what_to_write(body: str, words: str, refusal) -> None:
    text = refusal(
        "import simt\n\n@simt.kernel\ndef k(out, n):\n    t = simt.grid(1)\n"
        f"    xs = [t, n]\n    xs.append(1)\n    {body}\n    out[t] = 0\n"
    )
    assert words in text and "user_kernel.py:8" in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_reassigned_in_a_run_time_loop_is_the_last_one(backend: str) -> None:
    @simt.kernel
    def k(out, n):
        t = simt.grid(1)
        ys = []  # no item type yet: the loop's lists give it
        for j in range(n + t):
            ys = [j, t]
            ys.append(j * 2)
        out[t] = len(ys) * 100 + sum(ys)

    simt.use(backend)
    out = np.zeros(4, np.int32)
    k[1, 4](out, 2)
    assert list(out) == [300 + (n - 1) * 3 + t for t, n in enumerate(range(2, 6))]


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_lists_added_make_a_new_list(backend: str) -> None:
    # xs + ys, xs + [display], [display] + xs: a new list, xs and ys as they were (was a
    # CompileError: "expected a number, got a list")
    @simt.kernel
    def k(out, n):
        t = simt.grid(1)
        xs = [t, n]
        xs.append(1)
        ys = [k * 2 for k in range(t)]
        zs = xs + ys + [9] + xs
        ws = [7, t] + ys
        out[t, 0] = len(zs) * 100 + len(xs) * 10 + len(ys)
        out[t, 1] = digest(zs)
        out[t, 2] = digest(ws)

    simt.use(backend)
    out = np.zeros((4, 3), np.int32)
    k[1, 4](out, 5)
    for t in range(4):
        xs, ys = [t, 5, 1], [k * 2 for k in range(t)]
        zs = xs + ys + [9] + xs
        assert out[t].tolist() == [len(zs) * 100 + 30 + t, digest(zs), digest([7, t] + ys)]
