"""`%stdin FILE` and `input()` in the REPL: thread t reads line t of the file, as a byte
string (empty past the last line); without `%stdin`, input() is refused with what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from simt.repl import commands

from .sessions import new_session


def _run(s, buf, text: str) -> str:  # type: ignore[no-untyped-def]
    buf.seek(0)
    buf.truncate()
    s.run(text)
    return buf.getvalue()


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_each_thread_reads_its_line(tmp_path: Path, backend: str) -> None:
    text = tmp_path / "in.txt"
    text.write_bytes(b"3 apples\r\n10 pears\n7 figs\n")
    s, buf = new_session(backend, 4)
    assert commands.run(s, f"%stdin {text}")
    assert "3 lines for 4 threads" in buf.getvalue()
    _run(s, buf, "line = input()")
    out = _run(s, buf, "line")
    assert "b'3 apples'" in out and "b'10 pears'" in out and "b'7 figs'" in out
    assert "b''" in out  # thread 3: past the last line
    out = _run(s, buf, 'n, what = line.split(" ")\nint(n) * 2')
    for v in ("6", "20", "14", "0"):
        assert v in out
    out = _run(s, buf, 'x = int(input("how many? ")) + tid\nx')  # a new input, read again
    for v in ("3", "11", "9"):
        assert v in out


def test_input_without_stdin_is_refused() -> None:
    s, buf = new_session("sim", 4)
    out = _run(s, buf, "x = input()")
    assert "name it first with %stdin FILE" in out
    assert not commands.run(s, "%stdin /no/such/file.txt")
    assert "No such file" in buf.getvalue()
