"""Files threads write in the REPL, byte-string methods and printing byte strings."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from simt.repl.console import PlainSink
from simt.repl.session import Session
from simt.runtime import registry


def _session(threads: int, backend: str = "sim") -> tuple[Session, io.StringIO]:
    if backend != "sim" and not registry.probe(backend)[0]:
        pytest.skip(f"{backend} not present")
    buf = io.StringIO()
    return Session(PlainSink(buf), threads=threads, backend=backend), buf


def _run(s: Session, buf: io.StringIO, text: str) -> str:
    buf.seek(0)
    buf.truncate()
    s.run(text)
    return buf.getvalue()


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_one_file_per_thread_and_an_appended_log(tmp_path: Path, backend: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    s, buf = _session(8, backend)
    _run(s, buf, "x = tid * 1.5")
    out = _run(s, buf, f'f = open(f"{tmp_path}/{{tid}}.txt", "w")\nf.write(f"{{tid}} {{x}}\\n")')
    assert out == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"{t}.txt" for t in range(8)]
    assert (tmp_path / "5.txt").read_text() == "5 7.5\n"
    log = tmp_path / "log.txt"
    log.write_text("start\n")
    src = (
        f'g = open("{log}", "a")\ng.write(f"t{{tid}}\\n")\nif tid == 3:\n    g.write("three\\n")\n'
    )
    assert _run(s, buf, src + "g.close()") == ""
    body = "".join(f"t{t}\n" + ("three\n" if t == 3 else "") for t in range(8))
    assert log.read_text() == "start\n" + body  # appended, in thread order
    # a later input reads what was written: each thread its own line of the log
    _run(s, buf, f'r = open("{log}")')
    _run(s, buf, "r = r.seek(6 + tid * 3)")
    out = _run(s, buf, "print(r.read(2))")
    assert out.split("\n")[1::2][:5] == ["t0", "t1", "t2", "t3", "th"], out


def test_two_writers_of_one_file_name_both_threads(tmp_path: Path) -> None:
    s, buf = _session(8)
    path = tmp_path / "one.txt"
    out = _run(s, buf, f'h = open("{path}", "w")\nif tid % 4 == 2:\n    h.write("x")\n')
    assert "threads 0 and 1 both open" in out and "no file was written" in out
    assert not path.exists()
    out = _run(s, buf, f'if tid == 6:\n    h = open("{path}", "w")\n    h.write("only six")\n')
    assert out == "" and path.read_text() == "only six"


def test_write_errors(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from simt import filewrites

    s, buf = _session(4)
    out = _run(s, buf, f'f = open(f"{tmp_path}/no/such/dir/{{tid}}.txt", "w")\nf.write("x")')
    assert "OSError: cannot write" in out and "No such file or directory" in out
    monkeypatch.setattr(filewrites, "MAX_BYTES", 10)  # shared with @simt.kernel
    out = _run(s, buf, f'f = open(f"{tmp_path}/{{tid}}.txt", "w")\nf.write("abcd")')
    assert "at most 10 bytes" in out and not any(tmp_path.iterdir())
    monkeypatch.setattr(filewrites, "MAX_FILES", 3)
    out = _run(s, buf, f'f = open(f"{tmp_path}/{{tid}}.txt", "w")\nf.write("")')
    assert "more than 3 files" in out and not any(tmp_path.iterdir())


def test_byte_string_methods_and_print(tmp_path: Path) -> None:
    lines = ["GET /a 200 12.5", "POST /bb 404 -7", "GET /c 500 1e2 ", "PUT /d 200 0.25"]
    assert all(len(x) == 15 for x in lines)
    log = tmp_path / "access.log"
    log.write_text("\n".join(lines) + "\n")
    s, buf = _session(4)
    _run(s, buf, f'f = open("{log}")')
    _run(s, buf, "f = f.seek(tid * 16)")
    _run(s, buf, "line = f.read(15)")
    _run(s, buf, 'method, path, code, size = line.split(" ")')
    out = _run(s, buf, "print(method, path, int(code) + 1, float(size) * 2)")
    shown = out.split("\n")[1::2]
    assert shown[:4] == ["GET /a 201 25.0", "POST /bb 405 -14.0", "GET /c 501 200.0",
                         "PUT /d 201 0.5"]  # fmt: skip
    out = _run(s, buf, 'line.startswith("GET"), line.endswith("5"), line.find("/"), line.find("?")')
    assert out.split("\n")[1::2][:4] == [
        "(True, True, 4, -1)", "(False, False, 5, -1)", "(True, False, 4, -1)",
        "(False, True, 4, -1)",
    ]  # fmt: skip
    assert _run(s, buf, 'print(f"<{method}>", len(line))').split("\n")[1::2][:2] == [
        "<GET> 15", "<POST> 15",
    ]  # fmt: skip


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_threads_read_after_syncthreads_what_their_block_wrote(
    tmp_path: Path, backend: str
) -> None:
    s, buf = _session(8, backend)
    s.set_block(4)
    msg, log = tmp_path / "msg.txt", tmp_path / "log.txt"
    src = (
        f'if tid == 0:\n    m = open("{msg}", "w")\n    m.write(f"hello from {{tid}}")\n'
        f'g = open("{log}", "a")\ng.write("ab")\nprint("before", tid)\n'
        "syncthreads()\n"
        f'r = open("{msg}")\nn = len(open("{log}").read())\nprint("after", r.read(10), n)\n'
        "r.read(5)"
    )
    out = _run(s, buf, src)
    # thread 0 wrote the message in block 0; every thread (of both blocks) reads
    # the whole message and the 16-byte log, its own prints in order, then the echo
    expected = "".join(
        f"----- 1x -----\nbefore {t}\nafter hello from 16\nb'hello'\n" for t in range(8)
    )
    assert out == expected, out
    assert msg.read_text() == "hello from 0" and log.read_text() == "ab" * 8
    # the per-thread variables of both phases are kept, as after two inputs
    assert _run(s, buf, "n + len(r.read())").endswith("28\n")


def test_a_failing_phase_leaves_the_session_as_it_was(tmp_path: Path) -> None:
    s, buf = _session(8)
    s.set_block(4)
    _run(s, buf, "x = 1")
    out = _run(
        s, buf, f'f = open(f"{tmp_path}/{{tid}}", "w")\nx = 2\nsyncthreads()\nassert tid < 3'
    )
    assert "KernelError" in out and "<input 2>:4" in out, out
    assert _run(s, buf, "x") == "1\n"  # not 2: the input failed as a whole
    assert (tmp_path / "5").exists()  # the files landed at the barrier stay written


def test_a_barrier_in_a_loop_cannot_make_files_visible(tmp_path: Path) -> None:
    s, buf = _session(8)
    s.set_block(4)
    src = (
        f'for i in range(2):\n    h = open(f"{tmp_path}/{{tid}}", "w")\n    syncthreads()\n'
        f'    r = open("{tmp_path}/2")'
    )
    out = _run(s, buf, src)
    assert out.startswith("CompileError: <input 1>:3: files this input writes become visible"), out
    assert not any(tmp_path.iterdir())


def test_byte_strings_are_echoed_grouped_by_their_bytes(tmp_path: Path) -> None:
    path = tmp_path / "abab.txt"
    path.write_bytes(b"abcabcxyz")
    s, buf = _session(4)
    _run(s, buf, f'f = open("{path}")')
    _run(s, buf, "line = f.read()")
    assert _run(s, buf, "line[0:3]") == "b'abc'\n"
    # threads 0 and 1 read "abc" at different places: one answer, counted twice
    out = _run(s, buf, "line[tid * 3 : tid * 3 + 3] if tid < 2 else line[6:]")
    assert out == "----- 2x -----\nb'abc'\n----- 2x -----\nb'xyz'\n", out
    out = _run(s, buf, "line[tid:tid + 1], len(line)")
    assert (
        out == "----- 2x -----\n(b'a', 9)\n----- 1x -----\n(b'b', 9)\n----- 1x -----\n(b'c', 9)\n"
    )
    assert _run(s, buf, 'b"lit"') == "b'lit'\n"


def test_a_per_thread_path_to_read_is_staged_or_refused_by_line(tmp_path: Path) -> None:
    """A path of the thread's other variables: an f-string in the call is read as a
    @simt.kernel reads files (staged: a missing one is FileNotFoundError per thread; #27
    item 3); any other expression is refused by line, as before."""
    s, buf = _session(4)
    _run(s, buf, f'D = "{tmp_path}"')
    (tmp_path / "a.txt").write_text("abc")
    (tmp_path / "2.txt").write_text("two\n")
    assert _run(s, buf, 'g = open(D + "/a.txt")\ng.read()') == "b'abc'\n"  # host values
    out = _run(s, buf, 'x = tid * 2\ng = open(f"{D}/{x}.txt")\nprint(g.read().upper())')
    assert out.startswith("KernelError: 3 threads raised FileNotFoundError at <input 3>:2"), out
    assert "TWO\n" in out, out  # thread 1's file, read as text
    out = _run(s, buf, 'g = open(D + "/" + str(x) + ".txt")')
    assert out.startswith("CompileError: <input 4>:1: open(D + '/' + str(x) + '.txt') reads a")
    assert "f.seek" in out and "tid" in out


def test_each_thread_reads_its_own_file(tmp_path: Path) -> None:
    """Issue 26: gpusnek's file-per-thread pattern: a path made of the thread's index and host
    values opens each thread's own file for reading (the host reads them all)."""
    for t in range(4):
        (tmp_path / f"{t}.txt").write_text(f"file {t}: " + "x" * t + "\n")
    s, buf = _session(4)
    _run(s, buf, f"D = {str(tmp_path)!r}")
    out = _run(s, buf, 'r = open(f"{D}/{tid}.txt")\nr.read()')
    assert out.split("\n")[1::2][:4] == ["b'file 0: \\n'", "b'file 1: x\\n'",
                                          "b'file 2: xx\\n'", "b'file 3: xxx\\n'"], out
    assert _run(s, buf, "r = r.seek(5)\nr.read(2)").count("b'") == 4  # seek in its own file
    out = _run(s, buf, "len(r.read())")  # the rest of its file, kept from the input before
    assert [ln for ln in out.splitlines() if not ln.startswith("-")] == ["4", "5", "6", "7"]
    out = _run(s, buf, 'q = open(f"{D}/{tid % 2}.txt")\nq.read(6)')
    assert out == "----- 2x -----\nb'file 0'\n----- 2x -----\nb'file 1'\n", out
    out = _run(s, buf, 'z = open(f"{D}/none{tid}.txt")')
    assert "FileNotFoundError: thread 0 opens" in out and "none0.txt" in out


def test_a_file_stays_open_across_inputs_until_closed(tmp_path: Path) -> None:
    """Issue 26: `f = open(..., "w")` in one input and `f.write(...)` in the next said "name
    `f` is not defined": as in Python, the file stays open until `f.close()`."""
    s, buf = _session(4)
    s.run(f"D = {str(tmp_path)!r}")
    assert s.run('f = open(f"{D}/{tid}.txt", "w")'), buf.getvalue()
    assert s.run('f.write(f"{tid} hello\\n")'), buf.getvalue()
    assert s.run('if tid % 2 == 0:\n    f.write("more\\n")\n'), buf.getvalue()
    assert (tmp_path / "2.txt").read_text() == "2 hello\nmore\n"
    assert (tmp_path / "3.txt").read_text() == "3 hello\n"
    assert s.run("if tid == 1:\n    f.close()\n"), buf.getvalue()
    assert s.run('if tid != 1:\n    f.write("end")\n'), buf.getvalue()
    assert (tmp_path / "0.txt").read_text() == "0 hello\nmore\nend"
    out = _run(s, buf, 'f.write("after close")')  # thread 1 closed its file
    assert "thread 1 writes to 'f', which is not open for writing" in out, out
    assert (tmp_path / "0.txt").read_text() == "0 hello\nmore\nend"  # nothing written
    assert s.run('g = open(D + "/all.txt", "a")') and s.run('g.write(f"{tid};")')
    assert s.run('g.write("|")')
    assert (tmp_path / "all.txt").read_text() == "0;1;2;3;||||"
    s.reset()
    assert not s.run('g.write("x")')  # %reset closes every file
