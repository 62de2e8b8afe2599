"""Exceptions in the REPL: threads that raise are reported grouped, the others' results are
kept, and a raising thread keeps the values it had (frontend/raising.py)."""

from __future__ import annotations

import pytest

from .sessions import new_session


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_raising_threads_are_grouped_and_the_others_finish(backend: str) -> None:
    s, buf = new_session(backend, 8)
    assert s.run("x = tid * 10")
    assert not s.run("assert tid % 3 != 1, 'one mod three'\nx = x + 1")
    out = buf.getvalue()
    assert "KernelError: 3 threads raised AssertionError at <input 2>:1" in out
    assert "(first: thread 1: one mod three)" in out
    assert "    assert tid % 3 != 1, 'one mod three'" in out
    assert "5 threads finished" in out
    buf.truncate(0)
    buf.seek(0)
    assert s.run("x")
    shown = buf.getvalue()
    # threads 1, 4, 7 raised: their x is unchanged; the others added 1
    for tid, value in enumerate([1, 10, 21, 31, 40, 51, 61, 70]):
        assert str(value) in shown, (tid, value, shown)


def test_caught_exceptions_in_the_repl() -> None:
    s, buf = new_session("sim", 4)
    assert s.run(
        "try:\n    if tid == 2:\n        raise ValueError('two')\n    y = tid\n"
        "except ValueError as e:\n    print(e)\n    y = -1"
    )
    assert s.run("y")
    assert "two" in buf.getvalue() and "-1" in buf.getvalue()


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_a_raising_thread_keeps_the_value_it_had_before_the_input(backend: str) -> None:
    # #27: `v = 7` is a host value; thread 0 raises in the assignment and keeps 7 (it held 0),
    # and echoes nothing (it echoed 0)
    s, buf = new_session(backend, 4)
    assert s.run("v = 7")
    assert not s.run("v = [k for k in range(tid + 1)][1]\nv")
    out = buf.getvalue()
    assert "----- 3x -----\n1\n----- 1x -----\n" in out and "0" not in out.split("finished")[1]
    assert s.values("v").tolist() == [7, 1, 1, 1]
    # a value known at compile time, assigned before the raise: the raising thread keeps 7
    assert not s.run("v = 3\nq = [k for k in range(tid + 1)][1]")
    assert s.values("v").tolist() == [7, 3, 3, 3]
    assert "`q` was not defined before this input: in the 1 thread that raised it is 0" in (
        buf.getvalue()
    )
    # a per-thread int kept in a float: its value, as the other threads' values are floats
    assert s.run("g = tid + 5")
    assert not s.run("g = [k * 0.5 for k in range(tid + 1)][1]")
    assert s.values("g").tolist() == [5.0, 0.5, 0.5, 0.5]
    # a value that cannot sit beside the new ones is said
    assert s.run("z = 'abc'")
    assert not s.run("z = [k for k in range(tid + 1)][1]")
    assert "`z` was a str before this input, which cannot be kept beside its new int values" in (
        buf.getvalue()
    )
