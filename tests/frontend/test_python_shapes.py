"""Python per thread, small corners (#27): `repr` of a run-time number, an `assert` whose
message is a string built at run time, a generator expression bound to a name, a list of
tuples, and a value that is a tuple on one path and a list on another."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simt

BACKENDS = ("sim", "cpu")


def _kernel(tmp_path: Path, source: str) -> Any:
    """Kernel `k` of `source`, written to a file of its own (simt reads a kernel's source)."""
    path = tmp_path / "fixed_kernel.py"
    path.write_text(source)
    ns: dict[str, Any] = {}
    exec(compile(source, str(path), "exec"), ns)  # noqa: S102 - the test's own text
    simt.use("sim")
    return ns["k"]


@simt.kernel(heap=4096, fp64=True)
def reprs(a, out):
    t = simt.grid(1)
    if t < len(a):
        x = a[t] * 1.5
        y = simt.float32(a[t]) / 3
        s = repr(t) + " " + repr(x) + " " + repr(t > 1) + " " + repr(y)
        out[t] = len(s)
        print(repr(a[t]), repr(x), f"<{repr(t > 1)}>", repr(y))


@pytest.mark.parametrize("backend", BACKENDS)
def test_repr_of_a_run_time_number_is_its_str(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # was a CompileError: "repr() with values known only at run time is not supported here"
    simt.use(backend)
    a = np.array([0, 7, -3, 1 << 40], np.int64)
    out = np.zeros(4, np.int64)
    reprs[1, 4](a, out)
    ys = [np.float32(v) / np.float32(3) for v in a.tolist()]
    want = [f"{t!r} {v * 1.5!r} {t > 1!r} {y!s}" for t, (v, y) in enumerate(zip(a.tolist(), ys))]
    assert out.tolist() == [len(w) for w in want]
    printed = "".join(f"{v!r} {v * 1.5!r} <{t > 1!r}> {y!s}\n"
                      for t, (v, y) in enumerate(zip(a.tolist(), ys)))  # fmt: skip
    assert capsys.readouterr().out == printed


@simt.kernel(heap=4096)
def checked(a, out):
    t = simt.grid(1)
    if t < len(a):
        x = a[t] - 2
        assert x >= 0, "bad " + str(x) + f" at {t}"
        out[t] = x


@simt.kernel(heap=4096)
def checked_number(a, out):
    t = simt.grid(1)
    if t < len(a):
        assert a[t] % 3 != 0, a[t] * 10
        out[t] = 1


@simt.kernel(heap=4096)
def checked_caught(a, out):
    t = simt.grid(1)
    if t < len(a):
        try:
            assert a[t] % 2 == 0, f"odd {a[t]}"
            out[t] = 1
        except AssertionError as e:
            out[t] = len(str(e))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_assert_message_built_at_run_time_is_each_threads_own(backend: str) -> None:
    # was a CompileError: "an assert message must be known at compile time (a string)"
    simt.use(backend)
    a = np.array([5, 1, 2, 0, 9], np.int64)
    with pytest.raises(simt.KernelError) as info:
        checked[1, 5](a, np.zeros(5, np.int64))
    msgs = {f.thread: f.message for f in info.value.failures}
    assert msgs == {1: "bad -1 at 1", 3: "bad -2 at 3"}  # as Python's AssertionError(msg)
    assert "2 threads raised AssertionError" in str(info.value)
    with pytest.raises(simt.KernelError) as info:
        checked_number[1, 5](np.array([3, 1, 6, 4, 0], np.int64), np.zeros(5, np.int64))
    assert {f.thread: f.message for f in info.value.failures} == {0: "30", 2: "60", 4: "0"}
    out = np.zeros(5, np.int64)
    checked_caught[1, 5](np.array([2, 7, 4, 13, 0], np.int64), out)
    assert out.tolist() == [1, len("odd 7"), 1, len("odd 13"), 1]


@simt.kernel(heap=4096)
def checked_lazily(a, out):
    t = simt.grid(1)
    if t < len(a):
        xs = []
        for v in range(a[t]):
            xs.append(v + 10)
        for i in range(2000):  # a new string each pass would use up the heap
            assert i >= 0, "bad " + str(i)
        assert not xs, "first " + str(xs[0])  # xs[0] only where xs is not empty
        out[t] = 1


@simt.kernel(heap=4096)
def checked_once(a, out):
    t = simt.grid(1)
    if t < len(a):
        xs = [a[t], a[t] + 1, a[t] + 2]
        try:
            assert a[t] > 0, str(xs.pop())
        except AssertionError as e:
            out[t] = 100 + len(str(e))
        out[t] += len(xs) * 1000


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_assert_message_is_evaluated_only_where_the_test_fails(backend: str) -> None:
    # the message was translated on every thread too (to learn whether it was known): a string
    # made on every pass (MemoryError in a long loop), xs[0] raising IndexError where xs was
    # empty, xs.pop() done twice
    simt.use(backend)
    with pytest.raises(simt.KernelError) as info:
        checked_lazily[1, 3](np.array([0, 2, 0], np.int64), np.zeros(3, np.int64))
    assert {f.thread: f.message for f in info.value.failures} == {1: "first 10"}
    assert "1 thread raised AssertionError" in str(info.value)
    out = np.zeros(3, np.int64)
    checked_once[1, 3](np.array([5, -7, 0], np.int64), out)
    assert out.tolist() == [3000, 2000 + 100 + len("-5"), 2000 + 100 + len("2")]


@simt.kernel(heap=4096)
def listed(a):
    t = simt.grid(1)
    xs = [a[t], a[t] + 1]
    print(list(enumerate(xs)), list(xs), list((t, 2)))


def test_list_of_a_tuple_prints_as_a_list(capsys: pytest.CaptureFixture[str]) -> None:
    # list(...) of a tuple or list display printed as a tuple: ((0, 5), (1, 6))
    simt.use("sim")
    listed[1, 2](np.array([5, 6], np.int32))
    want = "".join(f"{list(enumerate([5 + t, 6 + t]))} {[5 + t, 6 + t]} {[t, 2]}\n"
                   for t in range(2))  # fmt: skip
    assert capsys.readouterr().out == want


NAMED_GENERATOR = """
import simt

@simt.kernel(heap=4096)
def k(out, n):
    t = simt.grid(1)
    xs = []
    for v in range(t + 2):
        xs.append(v)
    g = (v * 2 for v in xs)
    out[t] = sum(g)
"""


def test_a_generator_bound_to_a_name_is_refused_with_advice_that_works(
    refusal: Callable[..., str], tmp_path: Path
) -> None:
    # was: "a comprehension in a kernel must loop over values known at compile time / use a
    # for loop over range() instead"
    text = refusal(NAMED_GENERATOR)
    assert "user_kernel.py:10" in text and "g = (v * 2 for v in xs)" in text
    assert "a generator expression over a sequence known only at run time (`xs`)" in text
    assert "sum(v * 2 for v in xs)" in text and "[v * 2 for v in xs]" in text
    # both pieces of advice compile and give Python's sums
    for fix in ("out[t] = sum(v * 2 for v in xs)", "g = [v * 2 for v in xs]\n    out[t] = sum(g)"):
        src = NAMED_GENERATOR.replace("g = (v * 2 for v in xs)\n    out[t] = sum(g)", fix)
        out = np.zeros(3, np.int64)
        _kernel(tmp_path, src)[1, 3](out, 0)
        assert out.tolist() == [sum(v * 2 for v in range(t + 2)) for t in range(3)]


LIST_OF_TUPLES = """
import simt

@simt.kernel(heap=4096)
def k(out, n):
    t = simt.grid(1)
    xs = []
    for v in range(t + 2):
        xs.append(v)
    ys = list(enumerate(xs))
    out[t] = len(ys)
"""


def test_a_list_of_tuples_is_refused_by_name(refusal: Callable[..., str], tmp_path: Path) -> None:
    # was: "a list in a kernel holds numbers (int, float, bool), not this value"
    text = refusal(LIST_OF_TUPLES)
    assert "user_kernel.py:10" in text and "ys = list(enumerate(xs))" in text
    assert "this makes a list of tuples" in text and "not tuples" in text
    assert "for i, v in enumerate(xs)" in text
    # the advice compiles
    src = LIST_OF_TUPLES.replace(
        "ys = list(enumerate(xs))\n    out[t] = len(ys)",
        "c = 0\n    for i, v in enumerate(xs):\n        c += i * v\n    out[t] = c",
    )
    out = np.zeros(3, np.int64)
    _kernel(tmp_path, src)[1, 3](out, 0)
    assert out.tolist() == [sum(i * i for i in range(t + 2)) for t in range(3)]


TUPLE_OR_LIST = """
import simt

@simt.kernel
def k(out, n):
    t = simt.grid(1)
    if t > 0:
        p = (t, 2)
    else:
        p = [t, 3]
    out[t] = p[0] + p[1] + len(p)
    {use}
"""


@pytest.mark.parametrize("use", ["print(p)", "print(f'{p}')"])
def test_a_tuple_on_one_path_and_a_list_on_another_is_not_printed_as_a_tuple(
    refusal: Callable[..., str], use: str
) -> None:
    # was printed as a tuple on every path: thread 0 showed (0, 3) where Python shows [0, 3]
    text = refusal(TUPLE_OR_LIST.replace("{use}", use))
    assert "user_kernel.py:12" in text
    assert "a tuple on one path and a list on another" in text
    assert "both tuples (a, b) or both lists [a, b]" in text


def test_a_tuple_or_list_is_still_read_as_either(tmp_path: Path) -> None:
    out = np.zeros(3, np.int64)
    _kernel(tmp_path, TUPLE_OR_LIST.replace("{use}", ""))[1, 3](out, 0)
    assert out.tolist() == [0 + 3 + 2, 1 + 2 + 2, 2 + 2 + 2]


LOOPED = """
import simt

@simt.kernel
def k(out, n):
    t = simt.grid(1)
    p = (0, 0)
    for j in range(t):
        p = [j, t]
    out[t] = p[0] + p[1]
    print(p)
"""


def test_a_loop_that_makes_a_tuple_a_list_is_not_printed_as_a_tuple(
    refusal: Callable[..., str],
) -> None:
    text = refusal(LOOPED)
    assert "user_kernel.py:11" in text and "a tuple on one path and a list on another" in text


@pytest.mark.parametrize("use", ["q = p * 2\n    print(q)", "print(2 * p)"])
def test_a_tuple_or_list_repeated_is_still_not_printed_as_a_tuple(
    refusal: Callable[..., str], use: str
) -> None:
    # p * 2 made a plain tuple: printed (0, 3, 0, 3) on thread 0, where Python shows a list
    text = refusal(TUPLE_OR_LIST.replace("{use}", use))
    assert "a tuple on one path and a list on another" in text


def test_a_tuple_or_list_joined_by_plus_is_refused_with_advice_that_works(
    refusal: Callable[..., str], tmp_path: Path
) -> None:
    # p + (3,) made a plain tuple on every path, where Python raises TypeError for a list
    text = refusal(TUPLE_OR_LIST.replace("{use}", "q = p + (3,)\n    out[t] = len(q)"))
    assert "user_kernel.py:12" in text and "q = p + (3,)" in text
    assert "tuple on one path and a list on another" in text and "TypeError" in text
    assert "both tuples (a, b) or both lists [a, b]" in text
    # the advice compiles and gives Python's values
    src = TUPLE_OR_LIST.replace("p = [t, 3]", "p = (t, 3)").replace(
        "{use}", "q = p + (3,)\n    print(q)")  # fmt: skip
    out = np.zeros(3, np.int64)
    _kernel(tmp_path, src)[1, 3](out, 0)
    assert out.tolist() == [0 + 3 + 2, 1 + 2 + 2, 2 + 2 + 2]
