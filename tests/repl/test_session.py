"""The REPL session without a terminal: per-thread state, host lines, grouping, errors."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

from simt.repl.console import PlainSink
from simt.repl.session import Session


def make(threads: int = 16) -> tuple[Session, io.StringIO]:
    buf = io.StringIO()
    return Session(PlainSink(buf), threads=threads, backend="sim"), buf


def run(s: Session, buf: io.StringIO, text: str) -> str:
    buf.seek(0)
    buf.truncate()
    s.run(text)
    return buf.getvalue()


def test_echo_groups_in_order_of_first_thread() -> None:
    s, buf = make(10)
    assert run(s, buf, "tid % 3") == ("----- 4x -----\n0\n----- 3x -----\n1\n----- 3x -----\n2\n")


def test_same_output_everywhere_has_no_banner() -> None:
    s, buf = make(8)
    assert run(s, buf, "tid * 0 + 7") == "7\n"
    assert run(s, buf, "print('hi', tid // 100)") == "hi 0\n"


def test_silent_threads_are_counted_last() -> None:
    s, buf = make(300)
    out = run(s, buf, "if int(threadIdx ** 0.125) ** 8 == threadIdx: print('8th power:', tid)")
    assert out == (
        "----- 1x -----\n8th power: 0\n----- 1x -----\n8th power: 1\n"
        "----- 1x -----\n8th power: 256\n----- 297x -----\n"
    )


def test_nobody_prints_nothing_shown() -> None:
    s, buf = make(8)
    assert run(s, buf, "x = tid * 2") == ""


def test_state_persists_per_thread_with_python_numbers() -> None:
    s, buf = make(4)
    run(s, buf, "x = tid * 2")
    assert s.state["x"].dtype == np.int64
    run(s, buf, "x += 1")
    assert s.state["x"].tolist() == [1, 3, 5, 7]
    run(s, buf, "x = x / 2")  # another type replaces the variable
    assert s.state["x"].dtype == np.float64
    assert run(s, buf, "x") == (
        "----- 1x -----\n0.5\n----- 1x -----\n1.5\n----- 1x -----\n2.5\n----- 1x -----\n3.5\n"
    )
    run(s, buf, "big = tid + 2**40")
    assert s.state["big"].tolist()[3] == 2**40 + 3


def test_host_lines_run_once_and_are_known_values() -> None:
    s, buf = make(4)
    assert run(s, buf, "print('once')") == "once\n"
    run(s, buf, "import math\nK = 30")
    assert "K" in s.globals and "K" not in s.state
    run(s, buf, "def sq(v):\n    return v * v\n")
    run(s, buf, "y = sq(tid) + K + int(math.sqrt(16))")
    assert s.state["y"].tolist() == [34, 35, 38, 43]
    assert run(s, buf, "nthreads, numThreads") == "(4, 4)\n"


def test_known_assignment_in_a_thread_input_becomes_a_host_value() -> None:
    s, buf = make(4)
    run(s, buf, "z = 5\nw = tid + z")
    assert s.globals["z"] == 5 and "z" not in s.state
    assert s.state["w"].tolist() == [5, 6, 7, 8]


def test_blocks_loops_and_tuples() -> None:
    s, buf = make(4)
    run(s, buf, "acc = 0\nfor i in range(tid):\n    acc += i\n")
    assert s.state["acc"].tolist() == [0, 0, 1, 3]
    assert run(s, buf, "tid % 2, acc > 0") == (
        "----- 1x -----\n(0, False)\n----- 1x -----\n(1, False)\n----- 2x -----\n(0, True)\n"
        if False
        else "----- 1x -----\n(0, False)\n"
        "----- 1x -----\n(1, False)\n----- 1x -----\n(0, True)\n----- 1x -----\n(1, True)\n"
    )


def test_tuple_echo_groups_rows() -> None:
    s, buf = make(4)
    assert run(s, buf, "tid % 2, tid // 2") == (
        "----- 1x -----\n(0, 0)\n----- 1x -----\n(1, 0)\n"
        "----- 1x -----\n(0, 1)\n----- 1x -----\n(1, 1)\n"
    )


def test_group_cap() -> None:
    s, buf = make(1000)
    out = run(s, buf, "tid")
    assert out.count("-----") == 2 * 256
    assert "744 more distinct outputs from 744 threads" in out


def test_compile_error_keeps_session_and_points_into_the_input() -> None:
    s, buf = make(4)
    run(s, buf, "x = tid")
    out = run(s, buf, "x = undefined_thing + 1")
    assert "CompileError: <input 2>:1:5: name `undefined_thing` is not defined" in out
    assert "    x = undefined_thing + 1\n        ^" in out
    assert s.state["x"].tolist() == [0, 1, 2, 3]


def test_syntax_error() -> None:
    s, buf = make(4)
    assert "SyntaxError" in run(s, buf, "x = (")


def test_kernel_error_names_the_thread_and_keeps_finished_threads_results() -> None:
    """An IndexError is an exception of the threads that raised it (since a1ec837): they keep
    what the statements before the one that raised assigned (#27), the threads that finished
    keep their results."""
    s, buf = make(8)
    s.bind("buf", (4,), np.dtype(np.int64))
    run(s, buf, "x = tid")
    out = run(s, buf, "x = x + 1\nbuf[tid] = x")
    assert out.startswith("KernelError: ")
    assert "thread 4" in out
    # threads 4-7 raised at buf[tid], after `x = x + 1`: they keep it, as Python would
    assert s.state["x"].tolist() == [1, 2, 3, 4, 5, 6, 7, 8]


def test_host_exception_keeps_session() -> None:
    s, buf = make(4)
    out = run(s, buf, "1 / 0")
    assert "ZeroDivisionError" in out
    assert run(s, buf, "2 + 3") == "5\n"


def test_bound_buffer_is_shared() -> None:
    s, buf = make(6)
    s.bind("out", (2, 3), np.dtype(np.float64))
    run(s, buf, "out[tid // 3, tid % 3] = tid * 0.5")
    assert s.bound["out"].tolist() == [[0.0, 0.5, 1.0], [1.5, 2.0, 2.5]]


@pytest.mark.parametrize("n", [1, 7, 300])
def test_thread_counts_not_multiple_of_block(n: int) -> None:
    s, buf = make(n)
    run(s, buf, "x = tid + 1")
    assert s.state["x"].tolist() == list(range(1, n + 1))


def test_a_million_threads_mod_3() -> None:
    s, buf = make(1 << 20)
    assert run(s, buf, "threadIdx % 3") == (
        "----- 349526x -----\n0\n----- 349525x -----\n1\n----- 349525x -----\n2\n"
    )


def test_top_level_prints_are_grouped_as_values() -> None:
    s, buf = make(10)
    run(s, buf, "x = tid * 2")
    rows = [
        ("0", "False", 1),
        ("2", "False", 1),
        ("1", "False", 1),
        ("0", "True", 3),
        ("2", "True", 2),
        ("1", "True", 2),
    ]
    assert run(s, buf, "print('v:', x % 3, 1.5, x > 4)") == "".join(
        f"----- {c}x -----\nv: {m} 1.5 {b}\n" for m, b, c in rows
    )
    out = run(s, buf, "print('a'); print(tid // 5); x > 100")
    assert out == "----- 5x -----\na\n0\nFalse\n----- 5x -----\na\n1\nFalse\n"


def test_print_end_keeps_banners_on_their_own_lines() -> None:
    s, buf = make(2)
    assert run(s, buf, "print(tid, end='')") == "----- 1x -----\n0\n----- 1x -----\n1\n"


def test_files_give_each_thread_its_slice(tmp_path: Any) -> None:
    path = tmp_path / "t.txt"
    path.write_bytes(b"abcdefghij" * 5 + b"needle" + b"xyz" * 10)
    s, buf = make(10)
    run(s, buf, f"f = open({str(path)!r})")
    run(s, buf, "f.seek(tid * 10)")
    run(s, buf, "chunk = f.read(12)")
    assert s.state["chunk__start"].tolist() == [10 * t for t in range(9)] + [86]  # clamped
    assert run(s, buf, "'needle' in chunk") == "----- 9x -----\nFalse\n----- 1x -----\nTrue\n"
    assert run(s, buf, "len(chunk)") == "----- 8x -----\n12\n----- 1x -----\n6\n----- 1x -----\n0\n"
    assert run(s, buf, "'ab' not in chunk[:2]") == ("----- 5x -----\nFalse\n----- 5x -----\nTrue\n")


def test_a_file_object_echoes_as_python_shows_it(tmp_path: Any) -> None:
    """Typing an open file's name said "File object has no attribute `start`" (the echo
    read it as a byte string); Python's REPL shows the file object."""
    path = tmp_path / "t.txt"
    path.write_bytes(b"hello\n")
    s, buf = make(2)
    run(s, buf, f"f = open({str(path)!r})")
    assert run(s, buf, "f") == f"<_io.BufferedReader name={str(path)!r}>\n"
    assert run(s, buf, "f, f.read(2)") == f"(<_io.BufferedReader name={str(path)!r}>, b'he')\n"


def test_printing_a_file_object_advises_what_to_print(tmp_path: Any) -> None:
    """`print(f)` advised "print its fields" (a File's fields are simt's); it now says to
    print what the file gives."""
    path = tmp_path / "t.txt"
    path.write_bytes(b"hello\n")
    s, buf = make(2)
    run(s, buf, f"f = open({str(path)!r})")
    got = run(s, buf, "print(f)")
    assert "what f.read() returns" in got and "fields" not in got


def test_missing_file_is_an_error_that_keeps_the_session() -> None:
    s, buf = make(4)
    assert "OSError: cannot open" in run(s, buf, "f = open('/nonexistent/file')")
    assert run(s, buf, "tid * 0") == "0\n"


def test_byte_string_equality(tmp_path: Any) -> None:
    path = tmp_path / "w.txt"
    path.write_bytes(b"catdogcatcow")
    s, buf = make(4)
    run(s, buf, f"f = open({str(path)!r})")
    run(s, buf, "w = f.seek(tid * 3).read(3)")
    assert run(s, buf, "w == 'cat', w != b'dog', w == w[0:3]") == (
        "----- 2x -----\n(True, True, True)\n----- 1x -----\n(False, False, True)\n"
        "----- 1x -----\n(False, True, True)\n"
    )


def test_a_run_time_loop_variable_is_said_to_be_one() -> None:
    """Issue 26: a name every thread assigns in a run-time loop was "assigned only in some
    threads"; the reason is the loop, and a value before the loop keeps it."""
    s, buf = make(8)
    assert s.run("for i in range(tid % 3 + 1):\n    half = 8 >> (i + 1)\n")
    out = buf.getvalue()
    assert "`half` is assigned in a run-time loop" in out and "only in some threads" not in out
    assert "`i` is the variable of a run-time `for` loop" in out
    assert s.run("half = 0\nfor i in range(tid % 3 + 1):\n    half = 8 >> (i + 1)\n")
    assert s.run("print(half)")
    assert buf.getvalue().rstrip().endswith(("1", "2", "4"))


def test_ctrl_c_in_host_code_says_which_names_it_had_changed() -> None:
    """An input interrupted while it ran on the host has changed what it bound before: the
    message names those (issue 23: "variables are unchanged" was said whatever happened)."""
    from tests.repl.sessions import new_session

    s, buf = new_session("sim", 4)
    assert s.run("a = 1\nb = 2\n")
    s.run("a = 10\nc = 3\nraise KeyboardInterrupt\n")  # as Ctrl-C in the middle would
    assert (
        "KeyboardInterrupt (the input was abandoned; the part that ran on the host had "
        "already changed a, c)"
    ) in buf.getvalue()
    s.run("b = b\nraise KeyboardInterrupt\n")
    assert "bound no name, but what it changed in place stays changed" in buf.getvalue()


def test_ctrl_c_in_a_kernel_names_the_buffers_it_was_writing() -> None:
    """A kernel stopped by Ctrl-C (on cpu, inside a loop that never ends) leaves a `%bind`
    buffer it wrote into partly written, and the message says so; the next input runs."""
    import os
    import signal
    import threading
    import time

    from tests.repl.sessions import new_session

    s, buf = new_session("cpu", 256)
    s.bind("h", (256,), np.dtype(np.int64))
    assert s.run("y = tid\n")
    # The first Ctrl-C is pressed once the kernel runs (its `h[tid] = 1` is in the buffer): one
    # pressed while Python still compiles can land in a weakref callback, where CPython
    # drops the KeyboardInterrupt ("Exception ignored in ..."), as it once did in CI
    h = s.values("h")

    def press_when_running() -> None:
        for _ in range(6000):
            if h.any():
                break
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Thread(target=press_when_running, daemon=True)
    again = threading.Event()  # a second Ctrl-C, so that a lost first one fails, not hangs

    def press_again() -> None:
        again.set()
        os.kill(os.getpid(), signal.SIGINT)

    watchdog = threading.Timer(60.0, press_again)
    timer.start()
    watchdog.start()
    try:
        s.run("h[tid] = 1\nwhile y >= 0:\n    y = (y + 1) % 1000\n")
    finally:
        watchdog.cancel()
    assert not again.is_set(), "the first Ctrl-C was lost: the launch ran on until the second"
    assert "KeyboardInterrupt (the input was abandoned; h may be partly written)" in buf.getvalue()
    assert s.run("y + 1\n")


def test_a_path_of_the_threads_variables_is_read_as_a_kernel_reads_it(tmp_path: Any) -> None:
    """`open(f"...{k}...")` with `k` a per-thread variable (not the thread's index) was
    refused ("reads a file whose path depends on the thread's variables"); it is now read as
    a @simt.kernel reads files (simt.filereads: staged at the launch, text, `readline`,
    `for line in f`, `tell`/`seek`, `int(line)`), within the input that opens it (#27 item 3:
    one feature in the REPL and in kernels)."""
    for k in range(2):
        (tmp_path / f"p{k}.txt").write_text(f"line {k}\nsecond\n{10 + k}\n", encoding="utf-8")
    d = str(tmp_path)
    s, buf = make(4)
    run(s, buf, "k = tid % 2")
    loop = f"with open(f'{d}/p{{k}}.txt') as g:\n    n = 0\n    for line in g:\n        n += 1\nn"
    assert run(s, buf, loop).endswith("3\n")
    text = (f"f = open(f'{d}/p{{k}}.txt')\nfirst = f.readline()\nt = f.tell()\nf.seek(0)\n"
            "x = f.readline() == first\nt, x")  # fmt: skip
    out = run(s, buf, text)
    assert "(7, True)" in out and "`f` is a file the launch staged as a @simt.kernel's (opened " \
        "by a path of the thread's variables" in out, out
    numbers = (f"with open(f'{d}/p{{k}}.txt') as g:\n    g.readline()\n    g.readline()\n"
               "    v = int(g.readline())\nv - k")  # fmt: skip
    assert run(s, buf, numbers) == "10\n"
    assert run(s, buf, "t + v - k") == "17\n"  # both kept: numbers


def test_refusals_in_rewritten_inputs_name_the_line_and_construct(tmp_path: Any) -> None:
    # #27: an input rebuilt before compiling (statements sharing a line, files and byte
    # strings) lost its refusals' file:line and caret; `print(..., s.title(), ...)` said only
    # the message
    (tmp_path / "a.txt").write_text("hello world\n")
    path = str(tmp_path / "a.txt")
    s, buf = make(4)
    out = run(s, buf, "s = 'ab' + str(tid); print(1, s.swapcase(), 2)")
    assert out.startswith("CompileError: <input 1>:1:31: strings built at run time have"), out
    assert "    s = 'ab' + str(tid); print(1, s.swapcase(), 2)\n" + " " * 34 + "^" in out
    out = run(s, buf, "s = str(tid); t = 1; print(f'{t} {s.center(9)}')")
    assert out.startswith("CompileError: <input 2>:1:35:"), out
    out = run(s, buf, f"f = open({path!r})\nw = f.read(5)\nprint(1, w.title(), 2)")
    assert out.startswith(
        "CompileError: <input 3>:3:10: a byte string the REPL read from a file has no `title`: "
        "it has len(), slicing"
    ), out
    assert "    print(1, w.title(), 2)\n             ^" in out
    out = run(s, buf, f"f = open({path!r})\nprint(f.readable())")
    assert out.startswith("CompileError: <input 4>:2:7: a file the REPL opened for reading has "
                          "no `readable`: it has read(k) and seek(n) (an input that reads it "
                          "by line"), out  # fmt: skip
    # a thread's exception in a rewritten input: the input's line, not the rebuilt text's
    out = run(s, buf, f"f = open({path!r})\nw = f.read(5); assert tid != 2")
    assert "raised AssertionError at <input 5>:2 (first: thread 2)" in out, out
    assert "    w = f.read(5); assert tid != 2\n" in out
