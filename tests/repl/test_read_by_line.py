"""#27: a file the REPL opens by a literal path, a path of host values or one of the thread's
index, read by line (`readline`, `readlines`, `tell`, `for line in f`), is read as a
@simt.kernel reads files: text lines, as Python gives them. The REPL's own reading of those
paths (bytes by offset: `read(k)`, `seek(n)`) has none of these and refused them."""

from __future__ import annotations

from pathlib import Path

import pytest

from .sessions import new_session


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_a_file_read_by_line_gives_text_lines(backend: str, tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("hello\nworld\n")
    for t in range(2):
        (tmp_path / f"{t}.txt").write_text(f"line{t}\nmore\n")
    s, buf = new_session(backend, 2)
    assert s.run(f"D = {str(tmp_path)!r}")
    # a literal path (was: "a file the REPL opened for reading has no `readline`")
    assert s.run(f'f = open({str(tmp_path / "in.txt")!r})\nx = f.readline()\nprint(x, len(x))')
    # a path of host values, a `with`, readlines and tell
    assert s.run('with open(D + "/in.txt") as w:\n    n = len(w.readlines()) * 10 + w.tell()\nn')
    # a path of the thread's index, walked by a for loop (was: "cannot loop over a File")
    assert s.run('h = open(f"{D}/{tid}.txt")\nfor ln in h:\n    print(ln.strip(), tid)')
    # open(...) itself in the loop
    assert s.run('c = 0\nfor ln in open(D + "/in.txt"):\n    c += len(ln)\nc')
    out = buf.getvalue()
    assert "hello\n 6\n" in out
    assert "\n32\n" in out  # 2 lines, then at the end: 12 characters
    assert "line0 0\nmore 0\n" in out and "line1 1\nmore 1\n" in out
    assert "\n12\n" in out
    assert "not kept after this input" in out  # the file is the input's own (a note says so)
    # read by offset, the REPL's own reading stays: bytes, kept from input to input
    assert s.run('r = open(D + "/in.txt")\nr.read(3)')
    assert "b'hel'" in buf.getvalue()


def test_a_byte_string_in_a_string_built_at_run_time_is_refused(tmp_path: Path) -> None:
    # was echoed as the print record's marker, '\x00b0:0:3\x00', and counted as its length
    (tmp_path / "in.txt").write_text("hello\n")
    s, buf = new_session("sim", 2)
    assert s.run(f'r = open({str(tmp_path / "in.txt")!r})\nx = r.read(3)')
    assert not s.run('y = f"<{x}>"\nlen(y)')
    out = buf.getvalue()
    assert "CompileError: <input 2>:1:5: a byte string the REPL read from a file cannot go " \
        "into a string built at run time" in out and "\\x00" not in out
    assert "print(f'...{x}...')" in out
    assert s.run('print(f"<{x}>")')  # the advice: the host writes its text
    assert buf.getvalue().endswith("<hel>\n")


def test_a_byte_string_added_to_a_string_or_given_to_str_is_named(tmp_path: Path) -> None:
    # were: "`add` of a string and this value", "str() in a kernel takes a number or a string"
    (tmp_path / "in.txt").write_text("hello\n")
    s, buf = new_session("sim", 2)
    assert s.run(f'r = open({str(tmp_path / "in.txt")!r})\nx = r.read(3)')
    assert not s.run('x + "!"')
    assert "`add` of a string and a byte string the REPL read from a file (it has len(), " in (
        buf.getvalue()
    )
    assert not s.run("str(x)")
    assert "str() in a kernel takes a number or a string, not a byte string the REPL read " in (
        buf.getvalue()
    )
