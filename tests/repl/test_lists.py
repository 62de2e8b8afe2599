"""Lists in the REPL: made and printed per thread (grouped like any output), `%heap` sets
the per-thread heap, running out is a MemoryError reported grouped (frontend/lists.py)."""

from __future__ import annotations

import pytest

from simt.repl import commands

from .sessions import new_session


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_lists_print_grouped_and_heap_sets_their_room(backend: str) -> None:
    s, buf = new_session(backend, 4)
    assert s.run("xs = [k * tid for k in range(tid)]\nprint(xs)")
    out = buf.getvalue()
    for text in ("[]", "[0]", "[0, 2]", "[0, 3, 6]"):
        assert f"\n{text}\n" in out, out
    assert "`xs` is a list" in out  # not kept: the heap is the input's
    assert commands.run(s, "%heap 128")
    assert not s.run("ys = []\nfor k in range(40 * tid):\n    ys.append(k)\nprint(len(ys))")
    out = buf.getvalue()
    assert "3 threads raised MemoryError" in out and "128 bytes" in out
    assert not commands.run(s, "%heap 16")  # below the least heap: refused, said why


def test_dicts_and_sets_print_and_are_not_kept() -> None:
    s, buf = new_session("sim", 3)
    assert s.run("d = {k: k * tid for k in range(tid)}\nu = {tid % 2}\nprint(d, u, len(d))")
    out = buf.getvalue()
    for text in ("{} {0} 0", "{0: 0} {1} 1", "{0: 0, 1: 2} {0} 2"):
        assert f"\n{text}\n" in out, out
    assert "`d` is a dict" in out and "`u` is a set" in out  # not kept: the heap is the input's


def test_an_inputs_last_list_dict_or_set_is_shown_as_python_shows_it() -> None:
    # they were "(this value cannot be shown: ...)"; now each thread shows its own, grouped
    s, buf = new_session("sim", 3)
    assert s.run("def mk(n):\n    return {n: n, 7: 1}")
    assert s.run("print(tid)\nmk(tid)")  # a print before: its line comes first
    assert s.run("{'k' + str(tid): tid for k in range(1)}")
    assert s.run("d = {tid % 2: 1}\nd.keys()")
    assert s.run("[k for k in range(tid)]")
    assert s.run("{tid % 2, 5}")
    out = buf.getvalue()
    assert "cannot be shown" not in out, out
    for text in ("0\n{0: 0, 7: 1}", "2\n{2: 2, 7: 1}", "{'k1': 1}", "dict_keys([0])",
                 "[0, 1]", "{0, 5}"):  # fmt: skip
        assert f"\n{text}\n" in out, (text, out)


def test_displays_strings_and_wide_ints_are_shown_as_python_shows_them() -> None:
    # a list display was shown as a tuple, a run-time string "cannot be shown", and an int64
    # item next to int32 ones refused ("would mix types")
    s, buf = new_session("sim", 2)
    assert s.run("n = tid * 10000000000")
    for text in ("[tid, 1]", "'it\\'s' + str(tid)", "(tid, ['a' + str(tid)], (1, tid))",
                 "{n: 1, 7: n}", "sorted([3, n, 1])", "t = (1, 2)\nt[tid - 2]"):  # fmt: skip
        assert s.run(text), buf.getvalue()
    assert not s.run("t[tid + 1]")
    out = buf.getvalue()
    assert "cannot be shown" not in out and "mix types" not in out, out
    for want in ("[0, 1]", "[1, 1]", '"it\'s0"', "(1, ['a1'], (1, 1))",
                 "{10000000000: 1, 7: 10000000000}", "[0, 1, 3]", "[1, 3, 10000000000]",
                 "1 thread raised IndexError", "tuple index out of range"):  # fmt: skip
        assert want in out, (want, out)
