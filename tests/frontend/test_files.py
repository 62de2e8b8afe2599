"""Files read per thread in `@simt.kernel` (#27 item 3; frontend/files.py, simt.filereads):
`open(path)` with a path made per thread, `with`, `read`, `readline`, `for line in f`,
`close`, FileNotFoundError per thread, and the refusals, each naming the user's line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import simt
from simt.runtime import registry


def _use(backend: str) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"{backend} not present: {why}")
    simt.use(backend)


def _parts(tmp_path: Path, texts: dict[int, str]) -> str:
    for i, text in texts.items():
        (tmp_path / f"part{i}.txt").write_text(text, encoding="utf-8")
    return str(tmp_path)


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_each_thread_counts_the_lines_of_its_own_file(backend: str, tmp_path: Path) -> None:
    """The issue's example: a per-thread path, `with`, `for line in f`; a missing file is a
    FileNotFoundError the thread catches."""
    _use(backend)
    d = _parts(tmp_path, {0: "a\n", 1: "a\nbb\n", 2: "a\nbb\nccc", 4: ""})

    @simt.kernel
    def count_lines(out, chars):
        i = simt.grid(1)
        if i < len(out):
            try:
                with open(f"{d}/part{i}.txt") as f:
                    n = 0
                    for line in f:
                        n += 1
                        chars[i] += len(line)
                    out[i] = n
            except FileNotFoundError:
                out[i] = -1

    out, chars = np.zeros(6, np.int32), np.zeros(6, np.int32)
    count_lines[1, 8](out, chars)
    assert out.tolist() == [1, 2, 3, -1, 0, -1]
    assert chars.tolist() == [2, 5, 8, 0, 0, 0]


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_readlines_gives_the_rest_as_a_list_of_strings(
    backend: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # was refused ("a list of strings, which a kernel's lists cannot hold")
    _use(backend)
    texts = {0: "a\nbb\n\nccc", 1: "one\n", 2: "", 3: "x\r\ny\n"}
    d = _parts(tmp_path, texts)

    @simt.kernel
    def lines_of(out):
        i = simt.grid(1)
        if i < len(out):
            with open(f"{d}/part{i}.txt") as f:
                if i == 3:
                    f.readline()
                lines = f.readlines()
                n = 0
                for line in lines:
                    n = n * 10 + len(line)
                out[i, 0] = len(lines)
                out[i, 1] = n
                out[i, 2] = len(f.readlines()) + len(f.read())  # at the end: nothing left
                if i == 0:
                    print(lines, lines[-1], lines[1])

    out = np.zeros((4, 3), np.int32)
    lines_of[1, 4](out)
    want = []
    for i in range(4):
        lines = texts[i].replace("\r\n", "\n").splitlines(keepends=True)[1 if i == 3 else 0:]
        n = 0
        for line in lines:
            n = n * 10 + len(line)
        want.append([len(lines), n, 0])
    assert out.tolist() == want
    assert capfd.readouterr().out == "['a\\n', 'bb\\n', '\\n', 'ccc'] ccc bb\n\n"


def test_read_readline_and_close_behave_as_python(tmp_path: Path) -> None:
    _use("sim")
    d = _parts(tmp_path, {0: "first\nsecond\nthird", 1: "x\r\ny\n"})

    @simt.kernel
    def reads(out):
        i = simt.grid(1)
        if i < 2:
            f = open(f"{d}/part{i}.txt", "r")  # noqa: UP015 - the mode written out
            a = f.readline()
            b = f.read(3)
            c = f.read()
            out[i, 0] = len(a)
            out[i, 1] = len(b)
            out[i, 2] = len(c)
            out[i, 3] = len(f.readline())  # at the end: ""
            out[i, 4] = 1 if a == "first\n" or a == "x\n" else 0  # "\r\n" is read as "\n"
            out[i, 5] = 1 if c.strip().endswith("third") else 0
            f.close()
            try:
                f.read()
            except ValueError:
                out[i, 6] = 7

    out = np.zeros((2, 7), np.int32)
    reads[1, 2](out)
    assert out[0].tolist() == [6, 3, 9, 0, 1, 1, 7]  # "first\n", "sec", "ond\nthird"
    assert out[1].tolist() == [2, 2, 0, 0, 1, 0, 7]  # "x\n", "y\n", ""


def test_an_uncaught_file_not_found_ends_that_thread_and_names_the_path(tmp_path: Path) -> None:
    _use("cpu")
    d = _parts(tmp_path, {0: "a", 2: "bc"})

    @simt.kernel
    def sizes(out):
        i = simt.grid(1)
        if i < 3:
            with open(f"{d}/part{i}.txt") as f:
                out[i] = len(f.read())

    out = np.zeros(3, np.int32)
    with pytest.raises(simt.KernelError) as e:
        sizes[1, 4](out)
    msg = str(e.value)
    assert "1 thread raised FileNotFoundError" in msg and "test_files.py" in msg
    assert f"No such file or directory: '{d}/part1.txt'" in msg
    assert out.tolist() == [1, 0, 2]  # the other threads finished


def test_the_files_are_staged_at_each_launch_not_while_compiling(tmp_path: Path) -> None:
    """A known path reads the file as it is at the launch (the kernel is not recompiled)."""
    _use("sim")
    path = tmp_path / "shared.txt"
    path.write_text("one\ntwo\n")
    p = str(path)

    @simt.kernel
    def line_of(out):
        i = simt.grid(1)
        if i < len(out):
            with open(p) as f:
                k = 0
                for line in f:
                    if k == i:
                        out[i] = len(line)
                    k += 1

    out = np.zeros(3, np.int32)
    line_of[1, 3](out)
    assert out.tolist() == [4, 4, 0]
    path.write_text("three\nfour\nfive\n")
    line_of[1, 3](out)
    assert out.tolist() == [6, 5, 5]


def test_a_run_time_part_with_a_slash_is_not_staged(tmp_path: Path) -> None:
    """A run-time part stands for text inside one path component: `sub/part0` is not staged
    for `{d}/{name}.txt` and its thread's open raises FileNotFoundError (the documented
    rule), while a file of the directory itself is found."""
    _use("sim")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "part0.txt").write_text("deep")
    (tmp_path / "top.txt").write_text("top")
    d = str(tmp_path)

    @simt.kernel
    def opens(out):
        i = simt.grid(1)
        name = "top" if i == 0 else "sub/part0"
        try:
            with open(f"{d}/{name}.txt") as f:
                out[i] = len(f.read())
        except FileNotFoundError:
            out[i] = -1

    out = np.zeros(2, np.int32)
    opens[1, 2](out)
    assert out.tolist() == [3, -1]


def test_writing_a_file_the_launch_reads_is_an_error_and_nothing_lands(tmp_path: Path) -> None:
    _use("sim")
    d = _parts(tmp_path, {0: "old"})

    @simt.kernel
    def rewrite(n):
        i = simt.grid(1)
        if i < n:
            with open(f"{d}/part{i}.txt") as f:
                s = f.read()
            with open(f"{d}/part{i}.txt", "w") as g:
                g.write(s)

    with pytest.raises(simt.KernelError, match="also read"):
        rewrite[1, 1](1)
    assert (tmp_path / "part0.txt").read_text() == "old"


def test_a_file_that_is_not_utf8_is_a_launch_error_naming_it(tmp_path: Path) -> None:
    _use("sim")
    (tmp_path / "part0.txt").write_bytes(b"\xff\xfe\x00")
    d = str(tmp_path)

    @simt.kernel
    def reads(out):
        i = simt.grid(1)
        with open(f"{d}/part{i}.txt") as f:
            out[i] = len(f.read())

    with pytest.raises(simt.LaunchError, match="part0.txt' is not UTF-8 text"):
        reads[1, 1](np.zeros(1, np.int32))


@pytest.mark.parametrize(
    "line, words",
    [
        ("f = open(f'{D}/p{i}.txt', 'rb')", "binary mode is not supported"),
        ("f = open(f'{D}/p{i}.txt', 'r+')", "mode 'r+' is not supported"),
        ("f = open(f'{D}/p{i}.txt')\n    f.readlines(5)", "readlines() takes no arguments"),
        ("f = open(f'{D}/p{i}.txt')\n    f.seek(1, 1)", "can't do nonzero cur-relative seeks"),
        ("f = open(f'{D}/p{i}.txt')\n    f.seek(0, i)", "whence must be 0, 1 or 2 known"),
        ("f = open(f'{D}/p{i}.txt')\n    f.seek(1.5)", "position must be an integer"),
        ("f = open(f'{D}/p{i}.txt')\n    f.write('x')", "cannot be written"),
        ("p = f'{D}/p{i}.txt'\n    f = open(p)", "an f-string written in the call"),
        ("f = open(f'{i}')", "all run-time text"),
    ],
)  # fmt: skip
def test_what_is_not_supported_is_refused_at_the_users_line(
    tmp_path: Path, line: str, words: str
) -> None:
    _use("sim")
    src = (f"import simt\nD = {str(tmp_path)!r}\n\n@simt.kernel\ndef k(a):\n"
           f"    i = simt.grid(1)\n    {line}\n    a[i] = 1\n")  # fmt: skip
    path = tmp_path / "user_kernel.py"
    path.write_text(src)
    ns: dict = {}
    exec(compile(src, str(path), "exec"), ns)
    with pytest.raises(simt.CompileError) as e:
        ns["k"][1, 1](np.zeros(1, np.int32))
    assert e.value.filename == str(path)
    assert e.value.line is not None and e.value.line >= 7
    assert words in str(e.value), str(e.value)


def _length_of_w0(d: str, encoding: str) -> simt.Kernel:
    """A kernel that reads `{d}/w0.txt` with `encoding` and stores its length in `out[0]`."""

    @simt.kernel
    def k(out):
        i = simt.grid(1)
        if i < 1:
            with open(f"{d}/w{i}.txt", encoding=encoding) as f:
                out[0] = len(f.read())

    return k


@pytest.mark.parametrize("encoding", ["latin-1", "utf-16", "ascii"])
def test_an_encoding_other_than_utf8_is_refused(tmp_path: Path, encoding: str) -> None:
    """The host stages files as UTF-8 text: `encoding='latin-1'` would have read the bytes
    c3 a9 as one character (Python reads two), so any encoding but UTF-8's is refused at the
    user's line (#27 item 3)."""
    _use("sim")
    (tmp_path / "w0.txt").write_bytes("é".encode())
    k = _length_of_w0(str(tmp_path), encoding)
    with pytest.raises(simt.CompileError) as e:
        k[1, 1](np.zeros(1, np.int32))
    assert "UTF-8 text only" in str(e.value) and e.value.filename == __file__, str(e.value)


@pytest.mark.parametrize("encoding", ["utf-8", "UTF8", "utf_8"])
def test_utf8_spelled_any_way_reads_as_python(tmp_path: Path, encoding: str) -> None:
    _use("sim")
    (tmp_path / "w0.txt").write_bytes("é\n".encode())
    k = _length_of_w0(str(tmp_path), encoding)
    out = np.zeros(1, np.int32)
    k[1, 1](out)
    assert out[0] == len((tmp_path / "w0.txt").read_text(encoding=encoding)) == 2


def test_opens_in_a_loop_run_out_of_heap_with_advice_that_fits(tmp_path: Path) -> None:
    """Each `open` keeps a word of the heap until the thread ends, closed or not: a file
    opened (and closed by `with`) 300 times runs out of the default 1 KiB, and the message
    says so rather than only "keep fewer" (the thread keeps none open); opened once before
    the loop, the same reads fit. (A path with run-time parts takes no more: its characters
    are given back once the file is found, test_a_path_built_per_thread_keeps_no_heap.)"""
    _use("sim")
    (tmp_path / "n0.txt").write_text("1\n", encoding="utf-8")
    d = str(tmp_path)

    @simt.kernel
    def each_time(out):
        i = simt.grid(1)
        for _r in range(300):
            with open(f"{d}/n0.txt") as f:
                out[i] += len(f.readline())

    with pytest.raises(simt.KernelError) as e:
        each_time[1, 1](np.zeros(1, np.int32))
    assert "MemoryError" in str(e.value) and "open a file once, outside a loop" in str(e.value)

    @simt.kernel
    def once(out):
        i = simt.grid(1)
        with open(f"{d}/n{i}.txt") as f:
            line = f.readline()
        for _r in range(300):
            out[i] += len(line)

    out = np.zeros(1, np.int32)
    once[1, 1](out)
    assert out[0] == 600


def test_os_path_join_of_a_per_thread_name_says_to_write_one_f_string(tmp_path: Path) -> None:
    """`open(os.path.join(folder, f"p{i}.txt"))`, the usual spelling on the host, said that
    posixpath.join() cannot be compiled and to use "math, min, max, abs"; it now says to write
    the path as one f-string. A join of known strings still runs while compiling."""
    import os

    _use("sim")
    (tmp_path / "p0.txt").write_text("abc", encoding="utf-8")
    d = str(tmp_path)

    @simt.kernel
    def joined(out):
        i = simt.grid(1)
        with open(os.path.join(d, f"p{i}.txt")) as f:
            out[i] = len(f.read())

    with pytest.raises(simt.CompileError) as e:
        joined[1, 1](np.zeros(1, np.int32))
    assert "one f-string in the call" in str(e.value) and e.value.filename == __file__

    @simt.kernel
    def known(out):
        i = simt.grid(1)
        with open(os.path.join(d, f"p{0}.txt")) as f:
            out[i] = len(f.read())

    out = np.zeros(1, np.int32)
    known[1, 1](out)
    assert out[0] == 3


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_enumerate_over_a_file_counts_its_lines_as_python(backend: str, tmp_path: Path) -> None:
    """`for n, line in enumerate(f)` (and `enumerate(f, start)`), the usual way to number
    lines, said "expected a tuple or a sequence known at compile time"; it counts as Python
    does, `continue` and `break` included, and leaves the count as Python does."""
    _use(backend)
    d = _parts(tmp_path, {0: "a\nbb\n\nccc\n", 1: "x\n" * 7, 2: ""})

    def py(i: int) -> list[int]:
        out = [0] * 4
        n = -1
        with open(f"{d}/part{i}.txt") as f:
            for n, line in enumerate(f):
                if not line.strip():
                    continue
                out[0] += n * len(line)
                if n == 5:
                    break
            out[1] = n
        with open(f"{d}/part{i}.txt") as g:
            for n, line in enumerate(g, 10):
                out[2] = n
                out[3] += len(line)
        return out

    @simt.kernel
    def numbered(out):
        i = simt.grid(1)
        if i < 3:
            n = -1
            with open(f"{d}/part{i}.txt") as f:
                for n, line in enumerate(f):
                    if not line.strip():
                        continue
                    out[i, 0] += n * len(line)
                    if n == 5:
                        break
                out[i, 1] = n
            with open(f"{d}/part{i}.txt") as g:
                for n, line in enumerate(g, start=10):
                    out[i, 2] = n
                    out[i, 3] += len(line)

    out = np.zeros((3, 4), np.int32)
    numbered[1, 4](out)
    assert out.tolist() == [py(i) for i in range(3)]


def test_the_path_may_be_given_as_file_keyword(tmp_path: Path) -> None:
    """`open(file=..., mode="r")`, Python's keyword spelling, reads as `open(path)` does (the
    keyword was refused before the lookup that reads it)."""
    _use("sim")
    (tmp_path / "w0.txt").write_text("abc\n", encoding="utf-8")
    d = str(tmp_path)

    @simt.kernel
    def k(out):
        i = simt.grid(1)
        if i < 1:
            with open(file=f"{d}/w{i}.txt", mode="r") as f:  # noqa: UP015 - the keyword form
                out[0] = len(f.readline())

    out = np.zeros(1, np.int32)
    k[1, 1](out)
    assert out[0] == 4


def _walk(f, out, i):  # noqa: ANN001, ANN202 - run by the kernel and by Python on the host
    """tell and seek as a program uses them: come back to a line, skip to the end, rewind."""
    first = f.readline()
    mark = f.tell()
    second = f.readline()
    out[i, 0] = mark
    out[i, 1] = len(first) * 10 + len(second)
    out[i, 2] = f.seek(mark)
    out[i, 3] = 1 if f.readline() == second else 0
    out[i, 4] = f.seek(0, 2)
    out[i, 5] = len(f.read())
    out[i, 6] = f.seek(0)
    out[i, 7] = len(f.read(3))
    out[i, 8] = f.seek(0, 1)
    out[i, 9] = f.tell()
    n = 0
    for _line in f:
        n += 1
    f.seek(0)
    for _line in f:
        n += 1
    out[i, 10] = n


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_seek_and_tell_behave_as_python(backend: str, tmp_path: Path) -> None:
    """`tell()` gives a position that `seek` takes back, `seek(0, 2)` goes to the end,
    `seek(0)` rewinds, `seek(0, 1)` stays: the same numbers as Python's text files for ASCII
    text (they were refused: 'seek() on a file read in a kernel is not supported')."""
    _use(backend)
    texts = {0: "ab\ncd\nefg", 1: "hello\nworld\n", 2: "", 3: "x\n"}
    d = _parts(tmp_path, texts)

    @simt.kernel
    def walk(out):
        i = simt.grid(1)
        if i < len(out):
            with open(f"{d}/part{i}.txt") as f:
                _walk(f, out, i)

    out = np.zeros((4, 11), np.int32)
    walk[1, 4](out)
    ref = np.zeros_like(out)
    for i in texts:
        with open(f"{d}/part{i}.txt", encoding="utf-8") as f:
            _walk(f, ref, i)
    assert out.tolist() == ref.tolist()


def test_seek_raises_as_python(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A negative position is Python's ValueError with the number; a closed file's seek and
    tell raise ValueError; a position past the end reads "" (and is the end)."""
    _use("sim")
    d = _parts(tmp_path, {0: "abc\n"})

    @simt.kernel
    def seeks(out, to):
        i = simt.grid(1)
        if i < len(out):
            f = open(f"{d}/part0.txt")
            try:
                out[i, 0] = f.seek(to[i])
                out[i, 1] = len(f.read())
            except ValueError as e:
                out[i, 0] = -1
                print(e)
            f.close()
            try:
                out[i, 2] = f.tell()
            except ValueError:
                out[i, 2] = -2

    out = np.zeros((3, 3), np.int32)
    seeks[1, 3](out, np.array([-7, 2, 100], np.int32))
    assert out.tolist() == [[-1, 0, -2], [2, 2, -2], [4, 0, -2]]
    assert "negative seek position -7" in capsys.readouterr().out


def test_a_path_built_per_thread_keeps_no_heap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The path an f-string makes per thread is looked up without building it (its pieces
    hashed and compared where they are): 100 opens of `f"{d}/n{i}.txt"` in a loop fit the
    default heap (each took the path's ~60 characters before: MemoryError after 4 opens). A
    path that names no file is built for the FileNotFoundError's message."""
    _use("sim")
    (tmp_path / "n0.txt").write_text("1\n", encoding="utf-8")
    d = str(tmp_path)

    @simt.kernel
    def reopen(out):
        i = simt.grid(1)
        if i < len(out):
            for _r in range(100):
                try:
                    with open(f"{d}/n{i}.txt") as f:
                        out[i] += len(f.readline())
                except FileNotFoundError as e:
                    out[i] = -1
                    print(e)
                    break

    out = np.zeros(2, np.int32)
    reopen[1, 2](out)
    assert out.tolist() == [200, -1]
    assert f"No such file or directory: '{d}/n1.txt'" in capsys.readouterr().out


def test_directories_and_hidden_files_match_as_pythons_glob(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A directory the path matches raises IsADirectoryError, as Python's open does (it was
    FileNotFoundError); a run-time part does not start a hidden file's name (Python's glob:
    `*` matches no leading "."), while a fixed "." in the path does."""
    _use("sim")
    (tmp_path / "p0.txt").mkdir()
    (tmp_path / ".p1.txt").write_text("hidden", encoding="utf-8")
    d = str(tmp_path)

    @simt.kernel
    def kinds(out):
        i = simt.grid(1)
        name = "p0" if i == 0 else ".p1"
        try:
            with open(f"{d}/{name}.txt") as f:
                out[i] = len(f.read())
        except IsADirectoryError as e:
            out[i] = -21
            print(e)
        except FileNotFoundError:
            out[i] = -2

    @simt.kernel
    def dotted(out):
        i = simt.grid(1)
        with open(f"{d}/.p{i + 1}.txt") as g:
            out[i] = len(g.read())

    out = np.zeros(2, np.int32)
    kinds[1, 2](out)
    assert out.tolist() == [-21, -2]
    assert f"[Errno 21] Is a directory: '{d}/p0.txt'" in capsys.readouterr().out
    dotted[1, 1](out)
    assert out[0] == 6


def test_files_over_the_webgpu_binding_limit_are_a_launch_error_naming_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The staged files go to the device in one array with the heap; WebGPU binds at most
    the adapter's maxStorageBufferBindingSize (128 MiB by default, less than the 2**26
    characters staging allows): past it, a LaunchError naming the pattern, the `open`'s line
    and the sizes, before any buffer is made (it was the upload's message about "an array of
    shape (...)", naming no file)."""
    _use("webgpu")
    from simt.runtime import webgpu

    rt = registry.get("webgpu")
    assert rt.max_array_bytes() == rt.caps.max_binding_bytes  # the adapter's own limit
    monkeypatch.setattr(webgpu.WebGPURuntime, "max_array_bytes", lambda self: 1 << 16)
    (tmp_path / "big0.txt").write_text("x" * 20000, encoding="utf-8")
    d = str(tmp_path)

    @simt.kernel
    def reads(out):
        i = simt.grid(1)
        with open(f"{d}/big{i}.txt") as f:
            out[i] = len(f.read())

    with pytest.raises(simt.LaunchError) as e:
        reads[1, 1](np.zeros(1, np.int32))
    msg = str(e.value)
    assert f"'{d}/big*.txt' (open at {__file__}:" in msg and "binds at most 65536 bytes" in msg
    assert "read fewer or smaller files" in msg, msg
    monkeypatch.undo()
    out = np.zeros(1, np.int32)
    reads[1, 1](out)
    assert out[0] == 20000


def test_a_line_read_is_a_str(tmp_path: Path) -> None:
    """`isinstance(line, str)` of a string built at run time (a line read) is True, as in
    Python (it was False: the front end asked its own marker class); the REPL's int(...)
    of a line (files.r_int) tells a str from a number so."""
    _use("sim")
    d = _parts(tmp_path, {0: "12\n"})

    @simt.kernel
    def kinds(out):
        i = simt.grid(1)
        if i < 1:
            with open(f"{d}/part{i}.txt") as f:
                line = f.readline()
                out[0] = 1 if isinstance(line, str) else 0
                out[1] = 1 if isinstance(line, (int, float)) else 0

    out = np.zeros(2, np.int32)
    kinds[1, 1](out)
    assert out.tolist() == [1, 0]


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_paths_of_numbers_strings_and_specs_find_their_files(backend: str, tmp_path: Path) -> None:
    """The pieces of a path hashed where they are spell it as Python formats it: negative
    numbers, the int32 minimum, zero, a run-time string; a spec (`{i:03d}`) builds the path
    in the heap and gives it back. A string takes most of the heap, and every open still
    finds its file (the path took the heap before: MemoryError)."""
    _use(backend)
    vals = [-12, 0, 7, 123456789, -(2**31), 5]
    for v in vals[:5]:
        (tmp_path / f"n{v}.txt").write_text(f"v{v}\n", encoding="utf-8")
    (tmp_path / "nabc.txt").write_text("named", encoding="utf-8")
    (tmp_path / "s007.txt").write_text("padded", encoding="utf-8")
    d = str(tmp_path)

    @simt.kernel
    def opens(out, vals):
        i = simt.grid(1)
        if i < len(vals):
            pad = str(i % 10) * 200  # 200 of the heap's 240 words: the paths cannot fit
            v = vals[i] + len(pad) - 200
            try:
                with open(f"{d}/n{v}.txt") as f:
                    out[i, 0] = len(f.read())
            except FileNotFoundError:
                out[i, 0] = -1
            name = "abc" if i == 0 else "xyz"
            try:
                with open(f"{d}/n{name}.txt") as g:
                    out[i, 1] = len(g.read())
            except FileNotFoundError:
                out[i, 1] = -1

    @simt.kernel
    def padded(out):
        i = simt.grid(1)
        if i < 1:
            with open(f"{d}/s{i + 7:03d}.txt") as f:
                out[0, 0] = len(f.read())

    out = np.zeros((6, 2), np.int32)
    opens[1, 8](out, np.array(vals, np.int32))
    assert out[:, 0].tolist() == [len(f"v{v}\n") for v in vals[:5]] + [-1]
    assert out[:, 1].tolist() == [5, -1, -1, -1, -1, -1]
    padded[1, 1](out)
    assert out[0, 0] == 6
