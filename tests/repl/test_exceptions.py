"""Exceptions in the REPL: threads that raise are reported grouped, the others' results are
kept, and a raising thread keeps the values it had (frontend/raising.py)."""

from __future__ import annotations

import re

import numpy as np
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
    # a value known at compile time, assigned before the statement that raised: as in Python
    # the raising thread has it too (it kept 7 before #27's statement checkpoints), so `v` is
    # one host value again
    assert not s.run("v = 3\nq = [k for k in range(tid + 1)][1]")
    assert "v" not in s.state and s.globals["v"] == 3
    assert (
        "`q` was not defined before this input: in the 1 thread that raised before assigning it, "
        "it is 0" in buf.getvalue()
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


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_a_raising_thread_keeps_the_statements_before_the_one_that_raised(backend: str) -> None:
    # #27: Python keeps the assignments of the statements that ran before the one that raised;
    # the REPL rolled a raising thread back to before the whole input
    s, buf = new_session(backend, 4)
    s.bind("a", (102,), np.dtype(np.int64))
    assert s.run("a[tid] = tid + 1")
    assert s.run("x = 5")
    assert not s.run("x = 1; y = a[tid + 100]")  # threads 2 and 3 raise in the second
    assert "x" not in s.state and s.globals["x"] == 1  # every thread has x = 1 (it was 5)
    assert "`y` was not defined before this input: in the 2 threads that raised before " in (
        buf.getvalue()
    )
    # run-time values: the raising threads keep the first statement's, the others the last's
    assert not s.run("x = tid * 10\ny = a[tid + 100]\nx = -1")
    assert s.values("x").tolist() == [-1, -1, 20, 30]
    # raised before the assignment: the value from before the input
    assert s.run("z = tid")
    assert not s.run("w = a[tid + 100]\nz = 7")
    assert s.values("z").tolist() == [7, 7, 2, 3]
    # a loop's updates before the raise are kept, and the echo is the finished threads'
    assert s.run("t = tid")
    buf.truncate(0)
    buf.seek(0)
    assert not s.run("for k in range(3):\n    t += 1\ny = a[tid + 100]\nt * 2")
    assert s.values("t").tolist() == [3, 4, 5, 6]
    assert "----- 1x -----\n6\n----- 1x -----\n8\n----- 2x -----\n" in buf.getvalue()
    # a value that cannot sit beside the others is said, with the statement that left it
    assert not s.run("u = tid * 0.5\nv = a[tid + 100]\nu = tid")
    assert s.values("u").tolist() == [0, 1, 0, 0]
    out = buf.getvalue()
    assert re.search(r"`u` was a float after <input \d+>:1, which cannot be kept beside its new "
                     r"int values: in the 2 threads that raised later it is 0", out)


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_a_statement_that_may_raise_does_not_widen_the_finished_threads_values(
    backend: str,
) -> None:
    # #27: after a statement that may raise, the front end merges the raising threads' path
    # into its view of the input's end, where `u` was a float: the threads that finished,
    # whose `u` is an int, showed 1.0 (and would without any thread raising)
    s, buf = new_session(backend, 4)
    assert s.run(
        "w = 0\nfor j in range(3):\n    w = [k * 0.5 for k in range(tid + 1)][0]\nw = tid\nw"
    )
    assert s.values("w").dtype.kind == "i" and "1.0" not in buf.getvalue()
    assert not s.run("u = tid * 0.5\nq = [k for k in range(tid + 1)][1]\nu = tid\nu")
    assert s.values("u").dtype.kind == "i" and s.values("u").tolist() == [0, 1, 2, 3]
    out = buf.getvalue()
    assert "1.0" not in out and "`u` was a float after <input" in out


def test_a_known_number_gets_an_array_only_where_a_thread_could_raise_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the array that lets a raising thread keep its own value costs a store per thread; an
    # input whose constants come before anything that can raise needs none
    from simt.repl.session import Session

    sources: list[str] = []
    define = Session._define

    def spy(self: Session, name: str, source: str, filename: str) -> object:
        sources.append(source)
        return define(self, name, source, filename)

    monkeypatch.setattr(Session, "_define", spy)
    s, _ = new_session("sim", 4)
    s.bind("a", (102,), np.dtype(np.int64))
    assert s.run("K = 3\nx = tid * K")
    assert "_o_K" not in sources[-1] and s.globals["K"] == 3
    assert not s.run("x = tid\ny = a[tid + 100]\nK = 4")
    assert "_o_K" in sources[-1] and s.values("K").tolist() == [4, 4, 3, 3]


def test_explain_of_an_input_that_raised_names_the_inputs_line() -> None:
    # %explain's "the launch raised: ..." named the generated kernel's line (<kernel 3>:6)
    s, buf = new_session("sim", 4)
    s.bind("a", (102,), np.dtype(np.int64))
    assert s.run("x = tid")
    s.explain_tid = 3
    assert not s.run("x = x * 2\ny = a[tid + 100]\nx")
    out = buf.getvalue()
    assert "thread tid=3, input <input 2>:" in out
    assert "the launch raised: 2 threads raised IndexError at <input 2>:2 (first: thread 2" in out
    assert "<kernel" not in out


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_an_input_that_assigns_tid_keeps_each_threads_own_values(backend: str) -> None:
    # the checkpoints and the stores were indexed by the user's `tid`: after `tid = 0` every
    # thread wrote thread 0's slot ([101, 101, 102, 103] and [0, 9, 6, 9] below)
    s, buf = new_session(backend, 4)
    s.bind("a", (102,), np.dtype(np.int64))
    assert s.run("x = tid")
    assert not s.run("x = x + 100\ntid = 0\ny = a[threadIdx + 100]")  # threads 2, 3 raise
    assert s.values("x").tolist() == [100, 101, 102, 103]
    assert "in the 2 threads that raised before assigning it" in buf.getvalue()
    assert s.run("x = tid * 3\ntid = 1\nz = x + 1")
    assert s.values("x").tolist() == [0, 3, 6, 9] and s.values("z").tolist() == [1, 4, 7, 10]


CHECKPOINTED = """
def k(out):
    x = 1.5
    if REACH:
        _simt_cp(0, 0)
    out[0] = x
"""


def test_a_checkpoint_sees_only_the_translation_it_is_in(tmp_path) -> None:
    # Checkpoint.seen kept what an earlier translation (a retry's) saw: a statement that one
    # reached and the next did not was still reported as seen
    from simt import types as T
    from simt.frontend.checkpoint import Checkpoint
    from simt.frontend.specialise import translate_with_names

    path = tmp_path / "checkpointed.py"
    path.write_text(CHECKPOINTED)
    cp = Checkpoint({0: ["x"]}, False)
    ns = {"_simt_cp": cp, "REACH": True}
    exec(compile(CHECKPOINTED, str(path), "exec"), ns)  # noqa: S102 - the test's own text
    specs = {"out": T.ArrayType(T.FLOAT64, 1, index=T.INT32)}
    translate_with_names(ns["k"], specs, fp64=True)
    assert list(cp.seen) == [(0, "x")]
    ns["REACH"] = False
    translate_with_names(ns["k"], specs, fp64=True)
    assert cp.seen == {}


def test_explain_leaves_a_line_of_ours_the_kernels() -> None:
    # %explain wrote a generated line (a load, a checkpoint, a store) as the input's file and
    # the kernel's own number: "<input 5>:5" for a checkpoint of a two-line input
    import ast

    from simt.repl import codegen, session

    text = "x = tid\ny = x + 1"
    b = codegen.checkpoints(codegen.body(text, ast.parse(text), False))
    # header 3: kernel lines 4 and 6 are the input's 1 and 2, 5 and 7 checkpoints, 2 a load
    said = "at <kernel 5>:4, <kernel 5>:5, <kernel 5>:6, <kernel 5>:7, <kernel 5>:2, <kernel 6>:4"
    assert session._input_lines(said, "<kernel 5>", "<input 5>", b, 3) == (
        "at <input 5>:1, <kernel 5>:5, <input 5>:2, <kernel 5>:7, <kernel 5>:2, <kernel 6>:4"
    )


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_a_thread_raising_inside_a_statement_keeps_what_it_assigned_before(backend: str) -> None:
    # #27: a raise in the middle of a loop rolled the thread back to before the whole loop
    # ([3, 4, 2, 3] below); Python keeps what the loop assigned before the raise
    s, buf = new_session(backend, 4)
    s.bind("a", (102,), np.dtype(np.int64))
    assert s.run("t = tid\ni = 0")
    assert not s.run("for k in range(3):\n    t += 1\n    i = max(i, k)\n    y = a[tid + 98 + k]")
    assert s.values("t").tolist() == [3, 4, 5, 5]
    assert s.values("i").tolist() == [2, 2, 2, 1]
    # a `while`, and an `if` inside it: only what ran before the raise
    assert s.run("n = tid")
    assert not s.run("while n < 50:\n    n += 10\n    if n > 20:\n        y = a[n * 3]")
    assert s.values("n").tolist() == [40, 41, 42, 43]
    # a `finally` the exception passes runs, and what it assigns is kept
    assert not s.run("try:\n    n = n * 2\n    y = a[tid + 100]\nfinally:\n    n = n - 1")
    assert s.values("n").tolist() == [79, 81, 83, 85]
    # a value that cannot go beside the others where the thread raised is said
    assert s.run("u = tid")
    assert not s.run("for k in range(3):\n    u = u + k * 0.5\n    y = a[tid + 98 + k]\n    u = k")
    assert s.values("u").tolist() == [2, 2, 0, 0]
    assert re.search(r"`u` was a float where the 2 threads raised inside the statement at "
                     r"<input \d+>:1, which cannot be kept beside its new int values: there it "
                     r"is 0", buf.getvalue())


def test_thread_errors_leave_a_line_of_ours_the_kernels() -> None:
    # the grouped report of threads that raised mapped every kernel line with _input_line's
    # fallback: a failure on a line of ours (a checkpoint, a store) was named as the input's
    # file with a line number the input does not have
    import ast

    from simt.errors import KernelError, ThreadFailure
    from simt.repl import codegen, session

    text = "x = tid\ny = x + 1"
    b = codegen.checkpoints(codegen.body(text, ast.parse(text), False))

    def failure(t: int, line: int) -> ThreadFailure:
        return ThreadFailure(t, (0, 0, 0), (t, 0, 0), "IndexError", "bad", "<kernel 5>", line)

    ours, theirs = failure(1, 7), failure(2, 6)  # (header 3: 7 is a checkpoint, 6 line 2)
    e = KernelError.grouped([ours, theirs], [(ours, 1), (theirs, 1)], 6, {})
    said = session._thread_errors(e, "<input 5>", text, {"<kernel 5>": (3, 4)}, 8, b)
    assert "1 thread raised IndexError at <kernel 5>:7 (first: thread 1: bad)" in said
    assert "1 thread raised IndexError at <input 5>:2 (first: thread 2: bad)\n    y = x + 1" in (
        said
    )
