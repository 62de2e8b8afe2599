"""Exceptions per thread (frontend/raising.py): an exception nobody catches ends its thread,
the others finish, and the launch raises one KernelError grouping the failures, on every
backend that runs here (the corpus case k_exceptions covers what is caught)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt
from simt.errors import KernelError, ThreadFailure
from simt.runtime import registry

BACKENDS = [b for b in ("sim", "cpu", "webgpu") if registry.probe(b)[0]]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Any:
    simt.use(request.param)
    yield request.param
    simt.use("sim")


@simt.kernel
def stops(a, out):
    i = simt.grid(1)
    if i < len(out):
        out[i] = 1
        assert a[i] >= 0, "negative input"
        out[i] = 2  # never by a thread whose assert failed


@simt.kernel
def raises(a, out):
    i = simt.grid(1)
    if i < len(out):
        if a[i] > 10:
            raise ValueError("too big")
        for k in range(a[i]):
            if k == 5:
                raise OverflowError
        out[i] = a[i]


@simt.kernel
def out_of_bounds(a, out):
    i = simt.grid(1)
    try:
        out[i] = a[i + 2]
    except ZeroDivisionError:
        out[i] = -1  # not an IndexError: the IndexError goes on and ends the thread


def test_a_failed_assert_ends_its_thread_only(backend: str) -> None:
    a = np.array([0, -1, 2, -3, 4, 5], np.int32)
    out = np.zeros(6, np.int32)
    with pytest.raises(KernelError) as info:
        stops[1, 8](a, out)
    e = info.value
    np.testing.assert_array_equal(out, [2, 1, 2, 1, 2, 2])  # the others finished
    assert [f.thread for f in e.failures] == [1, 3]
    assert all(isinstance(f, ThreadFailure) for f in e.failures)
    f = e.failures[0]
    assert (f.exception, f.message, f.block, f.thread_idx) == (
        "AssertionError", "negative input", (0, 0, 0), (1, 0, 0)
    )
    assert f.filename == __file__ and f.line == stops.pyfunc.__code__.co_firstlineno + 5
    assert e.finished == 6  # 8 threads, 2 raised
    text = str(e)
    assert "2 threads raised AssertionError at " in text
    assert "(first: thread 1: negative input)" in text
    assert 'assert a[i] >= 0, "negative input"' in text
    assert "6 threads finished" in text


def test_failures_are_grouped_by_place_and_class(backend: str) -> None:
    a = np.array([1, 11, 7, 12, 3, 9, 13, 2], np.int32)
    out = np.zeros(8, np.int32)
    with pytest.raises(KernelError) as info:
        raises[2, 4](a, out)
    e = info.value
    np.testing.assert_array_equal(out, [1, 0, 0, 0, 3, 0, 0, 2])
    assert [(f.thread, f.exception) for f in e.failures] == [
        (1, "ValueError"), (2, "OverflowError"), (3, "ValueError"), (5, "OverflowError"),
        (6, "ValueError"),
    ]  # fmt: skip
    assert [(c[0], n) for *c, n in e.counts] == [("ValueError", 3), ("OverflowError", 2)]
    assert "3 threads raised ValueError" in str(e) and "2 threads raised OverflowError" in str(e)
    assert e.failures[3].block == (1, 0, 0) and e.failures[3].thread_idx == (1, 0, 0)


def test_an_uncaught_index_error_names_index_and_length(backend: str) -> None:
    a = np.arange(6, dtype=np.int32)
    out = np.zeros(6, np.int32)
    with pytest.raises(KernelError) as info:
        out_of_bounds[1, 6](a, out)
    e = info.value
    np.testing.assert_array_equal(out, [2, 3, 4, 5, 0, 0])
    assert [(f.thread, f.exception, f.message) for f in e.failures] == [
        (4, "IndexError", "index 6 is out of bounds of `a` with size 6"),
        (5, "IndexError", "index 7 is out of bounds of `a` with size 6"),
    ]


@simt.kernel
def late_try(a, out):
    i = simt.grid(1)
    x = a[i + 2]  # unproven: the last threads' IndexError, outside any try
    y = x * 2
    z = y + 1
    out[i] = 7
    try:
        out[i] = z
        if z > 9:
            raise ValueError("big")
    except (IndexError, ValueError):
        out[i] = -1


def test_an_index_error_before_a_try_is_not_caught_by_it(backend: str) -> None:
    """A thread raising outside a `try` runs on without effects up to the statement holding a
    `try` (`Translator.raising_into_try`, one statement ahead), which it then skips: its
    handlers do not take an exception raised before it, and the statements between stay
    without effect."""
    a = np.arange(6, dtype=np.int32)
    out = np.zeros(6, np.int32)
    with pytest.raises(KernelError) as info:
        late_try[1, 6](a, out)
    np.testing.assert_array_equal(out, [5, 7, 9, -1, 0, 0])  # (threads 4, 5: nothing stored)
    assert [(f.thread, f.exception) for f in info.value.failures] == [
        (4, "IndexError"), (5, "IndexError")]  # fmt: skip


def test_division_by_zero_is_numpys_unless_asked() -> None:
    def divide(a, b, out):
        i = simt.grid(1)
        out[i] = a[i] // b[i]

    a, b = np.array([7, 8], np.int32), np.array([2, 0], np.int32)
    out = np.zeros(2, np.int32)
    simt.kernel(divide)[1, 2](a, b, out)
    np.testing.assert_array_equal(out, [3, 0])
    out[:] = 0
    with pytest.raises(KernelError) as info:
        simt.kernel(divide, division="python")[1, 2](a, b, out)
    assert [(f.thread, f.exception) for f in info.value.failures] == [(1, "ZeroDivisionError")]
    np.testing.assert_array_equal(out, [3, 0])
    with pytest.raises(simt.CompileError, match="division="):
        simt.kernel(divide, division="c")


def test_bare_raise_and_finally_on_every_path(backend: str) -> None:
    @simt.kernel
    def k(a, out, log):
        i = simt.grid(1)
        try:
            try:
                if a[i] == 1:
                    raise KeyError("one")
                if a[i] == 2:
                    return
                out[i] = 10
            finally:
                log[i] += 1
        except KeyError:
            out[i] = 20
            raise

    a = np.array([0, 1, 2], np.int32)
    out, log = np.zeros(3, np.int32), np.zeros(3, np.int32)
    with pytest.raises(KernelError) as info:
        k[1, 3](a, out, log)
    np.testing.assert_array_equal(log, [1, 1, 1])  # finally ran after the return and the raise
    np.testing.assert_array_equal(out, [10, 20, 0])
    assert [(f.thread, f.exception, f.message) for f in info.value.failures] == [
        (1, "KeyError", "'one'")
    ]


class Guard:
    """Counts exits; turns a ValueError into a KeyError raised by __exit__ itself."""

    def __init__(self, log, i):
        self.log = log
        self.i = i

    def __enter__(self):
        return self.i * 10

    def __exit__(self, exc_type, exc, tb):
        self.log[self.i] += 1
        if isinstance(exc, ValueError):
            raise KeyError("from exit")
        return False


def test_with_passes_exceptions_through_exit(backend: str) -> None:
    @simt.kernel
    def k(a, log, out):
        i = simt.grid(1)
        with Guard(log, i) as base:
            if a[i] == 1:
                raise ValueError("body")
            if a[i] == 2:
                raise OverflowError("body")
            out[i] = base + 1

    a = np.array([0, 1, 2], np.int32)
    log, out = np.zeros(3, np.int32), np.zeros(3, np.int32)
    with pytest.raises(KernelError) as info:
        k[1, 3](a, log, out)
    np.testing.assert_array_equal(log, [1, 1, 1])  # __exit__ ran on every path
    np.testing.assert_array_equal(out, [1, 0, 0])
    assert [(f.thread, f.exception, f.message) for f in info.value.failures] == [
        (1, "KeyError", "'from exit'"), (2, "OverflowError", "body")
    ]


def test_with_needs_a_context_manager() -> None:
    @simt.kernel
    def k(out):
        with out[0] as v:
            out[1] = v

    with pytest.raises(simt.CompileError, match="`with` needs a context manager"):
        k[1, 1](np.zeros(2, np.int32))


_READ_ME = __file__


def test_with_on_a_file_read_or_a_builtin_manager_says_what_to_do_instead() -> None:
    """`with open(path, "rb") as f:` (a known path: read while compiling) in a kernel advised
    giving BufferedReader an __enter__ written in Python: advice a user cannot follow.
    (`with open(path) as f:`, text, reads per thread: tests/frontend/test_files.py.)"""

    @simt.kernel
    def reads(out):
        with open(_READ_ME, "rb") as f:
            out[0] = len(f.read())

    with pytest.raises(simt.CompileError) as e:
        reads[1, 1](np.zeros(1, np.int32))
    msg = str(e.value)
    assert "binary mode" in msg and 'open(path, "rb").read()' in msg
    assert "__enter__(self)" not in msg

    import threading

    LOCK = threading.Lock()

    @simt.kernel
    def locked(out):
        with LOCK:
            out[0] = 1

    with pytest.raises(simt.CompileError) as e:
        locked[1, 1](np.zeros(1, np.int32))
    assert "not written in Python" in str(e.value) and "outside the kernel" in str(e.value)


def test_with_on_a_contextmanager_generator_says_to_write_a_class() -> None:
    """A @contextlib.contextmanager function (the most common manager) failed inside
    contextlib.py ("del: not supported"), away from the user's line."""
    import contextlib

    @contextlib.contextmanager
    def timer():  # noqa: ANN202
        yield 1

    @simt.kernel
    def timed(out):
        with timer() as v:
            out[0] = v

    with pytest.raises(simt.CompileError) as e:
        timed[1, 1](np.zeros(1, np.int32))
    msg = str(e.value)
    assert "test_exceptions.py" in msg and "contextmanager generator" in msg
    assert "as a class with __enter__" in msg and "contextlib.py" not in msg


def test_a_raising_thread_does_not_arrive_at_later_barriers(backend: str) -> None:
    """Like a thread that returned, a thread that ended with an exception leaves the block's
    barrier count: the others synchronise without it (sim checks every barrier)."""

    @simt.kernel
    def k(a, out):
        t = simt.thread_idx.x
        sh = simt.shared.array(8, simt.int32)
        sh[t] = a[t]
        simt.syncthreads()
        if a[t] < 0:
            raise ValueError("negative")
        simt.syncthreads()
        out[t] = sh[(t + 1) % 8]

    a = np.array([1, 2, -3, 4, 5, 6, 7, 8], np.int32)
    out = np.zeros(8, np.int32)
    with pytest.raises(KernelError) as info:
        k[1, 8](a, out)
    assert [f.thread for f in info.value.failures] == [2] and info.value.finished == 7
    np.testing.assert_array_equal(out, [2, -3, 0, 5, 6, 7, 8, 1])


def test_return_in_finally_drops_the_exception_and_wins(backend: str) -> None:
    """As Python: a `return` in `finally` ends the function with its value, dropping an
    exception in flight and overriding an earlier `return`; a `break` in `finally` drops it
    too (a `continue` there is Python 3.8+'s)."""

    def pick(v):
        try:
            if v < 0:
                raise ValueError("negative")
            if v > 100:
                return 1
        finally:
            if v % 2 == 0:
                return 2  # noqa: B012 - the construct under test
        return 3

    def looped(v):
        total = 0
        for k in range(4):
            try:
                if k == v:
                    raise KeyError("k")
                total += 10
            finally:
                if v > 5:
                    break  # noqa: B012
        return total

    @simt.kernel
    def k(a, out):
        i = simt.grid(1)
        out[i, 0] = pick(a[i])
        out[i, 1] = looped(a[i] % 8)

    a = np.array([4, 101, 102, 7, -4, 1, 6, 13], np.int32)
    out = np.zeros((8, 2), np.int32)
    with pytest.raises(KernelError) as info:
        k[1, 8](a, out)
    want = {}
    for i, v in enumerate(a.tolist()):
        try:
            want[i] = (pick(v), looped(v % 8))
        except (ValueError, KeyError) as e:
            want[i] = type(e).__name__
    failed = {f.thread: f.exception for f in info.value.failures}
    assert failed == {i: w for i, w in want.items() if isinstance(w, str)}
    for i, w in want.items():
        if not isinstance(w, str):
            assert tuple(out[i]) == w, i


def test_a_statement_that_raised_assigns_nothing(backend: str) -> None:
    """As Python: `w += xs[i]` or `w = f(i)` that raises inside a `try` leaves `w` as it was
    (the handler and the code after the `try` read the old value; it used to get the value
    computed from the failed read)."""

    def f(xs, i):
        return xs[i] * 2

    @simt.kernel
    def k(a, out):
        t = simt.grid(1)
        xs = [7, 8]
        xs.append(t)
        w = 5
        v = 1
        try:
            w += xs[a[t]]
            v = f(xs, a[t] - 1)
        except IndexError:
            w += 100
        out[t, 0] = w
        out[t, 1] = v

    a = np.array([0, 10, 1, 3], np.int32)
    out = np.zeros((4, 2), np.int32)
    k[1, 4](a, out)
    assert out.tolist() == [[12, 0], [105, 1], [13, 14], [105, 1]]


@simt.kernel
def guarded_by_and(flags, a, out):
    i = simt.grid(1)
    if i < len(out):
        try:
            if flags[i] > 0 and a[i + 1] > 0.5:  # the right side raises for the last thread
                out[i] = 1.0
            else:
                out[i] = 2.0
        except IndexError:
            out[i] = -1.0


def test_an_index_error_in_the_right_side_of_and_is_caught(backend: str) -> None:
    """`a and b[i]` inside `try`: the IndexError raised in the right side leaves its branch
    (it was an internal IRError, 'used before it is defined', on cpu and webgpu)."""
    out = np.zeros(8, np.float32)
    flags = np.array([1, 0, 1, 1, 0, 1, 1, 1], np.int32)
    a = np.array([0.0, 1, 1, 0, 1, 1, 1, 1], np.float32)
    guarded_by_and[1, 8](flags, a, out)
    assert out.tolist() == [1.0, 2.0, 2.0, 1.0, 2.0, 1.0, 1.0, -1.0]


class Mine(Exception):
    pass


def shown(t):
    """Raises what thread `t` raises (the same code in the kernel and on the host)."""
    if t == 0:
        raise ValueError("bad")
    if t == 1:
        raise ValueError("it's")
    if t == 2:
        raise ValueError()
    if t == 3:
        raise ValueError(3)
    if t == 4:
        raise ValueError("a", 2)
    if t == 5:
        return {1: 2}[t]
    if t == 6:
        raise KeyError("b")
    if t == 7:
        raise Mine("mine")
    if t == 8:
        raise ValueError(f"v{t}'s")
    if t == 9:
        raise ValueError('say "' + str(t))
    if t == 11:
        return {"a": 2}["b"]
    if t == 12:
        return {"a": 2}['say "' + str(t)]
    xs = [1]
    xs.append(t)
    return xs[t]


THREADS = 13


def test_repr_and_str_of_a_caught_exception_are_pythons(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # repr(e) quoted the message as a string (ValueError('3'), ValueError("('a', 2)"),
    # KeyError("'b'")) and a message built at run time in single quotes whatever it held
    @simt.kernel
    def k(out):
        t = simt.grid(1)
        try:
            out[t] = shown(t)
        except Exception as e:
            print(repr(e), str(e), e, f"{e!r}")

    k[1, THREADS](np.zeros(THREADS, np.int32))
    expect = ""
    for t in range(THREADS):
        try:
            shown(t)
        except Exception as e:  # noqa: BLE001 - each thread's exception, as the kernel's
            expect += f"{e!r} {e} {e} {e!r}\n"
    assert capsys.readouterr().out == expect


@simt.kernel
def search(a, out):
    i = simt.thread_idx.x
    while a[i] != 5:  # past a[3], no 5: the test itself raises IndexError
        i += 1
    out[simt.thread_idx.x] = i


@simt.kernel
def search_caught(a, out):
    t = simt.thread_idx.x
    i = t
    try:
        while a[i] != 5:
            i += 1
        out[t] = i
    except IndexError:
        out[t] = -2


def test_a_while_test_that_raises_ends_the_loop_with_its_exception(backend: str) -> None:
    """A loop's results are what its condition region receives, so an IndexError of the test
    itself was lost: the thread left the loop as if the test were false and stored its index
    (#23). Now it raises there, in a `try` too."""
    a = np.zeros(8, np.int32)
    a[3] = 5
    out = np.full(8, -1, np.int32)
    with pytest.raises(KernelError) as e:
        search[1, 8](a, out)
    assert str(e.value).startswith("4 threads raised IndexError at ")
    assert "(first: thread 4: index 8 is out of bounds of `a` with size 8)" in str(e.value)
    assert out.tolist() == [3, 3, 3, 3, -1, -1, -1, -1]
    search_caught[1, 8](a, out)
    assert out.tolist() == [3, 3, 3, 3, -2, -2, -2, -2]


def _brace_depth(source: str) -> int:
    depth = deepest = 0
    for ch in source:
        depth += (ch == "{") - (ch == "}")
        deepest = max(deepest, depth)
    return deepest


def test_many_stopping_accesses_do_not_nest_deeper_and_deeper() -> None:
    """Each of the corpus's `deep_stops` twenty accesses may stop its thread (threads that
    meet, a `while`), so each nests the rest of the kernel one level deeper — up to
    `MAX_REST_NESTING` rests; past it each statement gets its own `if not exited` (llvmpipe
    silently miscompiled a fuzz kernel nested 73 deep: fuzz seed 239). A statement that binds
    a view still nests the rest (an array made under an `if` cannot leave it: seed 92); the
    stores after it do not. Its CUDA source nested 28 braces deep before."""
    from corpus.k_out_of_bounds import _make_deep, deep_stops
    from simt.frontend.translate import MAX_REST_NESTING

    depth = _brace_depth(deep_stops.source("cuda", *_make_deep()))
    assert MAX_REST_NESTING < depth <= MAX_REST_NESTING + 6, depth
