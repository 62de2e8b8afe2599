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
    from simt.repl import files

    s, buf = _session(4)
    out = _run(s, buf, f'f = open(f"{tmp_path}/no/such/dir/{{tid}}.txt", "w")\nf.write("x")')
    assert "OSError: cannot write" in out and "No such file or directory" in out
    monkeypatch.setattr(files, "MAX_BYTES", 10)
    out = _run(s, buf, f'f = open(f"{tmp_path}/{{tid}}.txt", "w")\nf.write("abcd")')
    assert "at most 10 bytes" in out and not any(tmp_path.iterdir())
    monkeypatch.setattr(files, "MAX_FILES", 3)
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
