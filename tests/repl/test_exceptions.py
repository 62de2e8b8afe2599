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
