"""The REPL driven as a user would: `python -m simt.repl` under a pseudo-terminal.

TERM=dumb keeps the line reader plain (no prompt_toolkit screen control), so the transcript is
exactly what a user reads; the pseudo-terminal still echoes what is typed.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from spawn_env import pythonpath

SRC = str(Path(__file__).resolve().parents[2] / "src")


class Repl:
    """A REPL process on a pseudo-terminal, with expect-style reading."""

    def __init__(self, *args: str) -> None:
        self.master, slave = pty.openpty()
        # wide enough that the line editor never scrolls a long input sideways
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 400, 0, 0))
        env = dict(os.environ, TERM="dumb", PYTHONPATH=pythonpath(), SIMT_INTERNAL_ERRORS="0")

        def controlling_tty() -> None:
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            [sys.executable, "-m", "simt.repl", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            preexec_fn=controlling_tty,  # noqa: PLW1509 - Ctrl-C must reach the child
        )
        os.close(slave)
        self.out = ""

    def _read(self, timeout: float) -> bool:
        r, _, _ = select.select([self.master], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.master, 65536)
        except OSError:  # the child closed the terminal
            return False
        if not data:
            return False
        self.out += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def expect(self, pattern: str, timeout: float = 120.0) -> str:
        """Read until `pattern` (a regex) appears after what was consumed; return the text up
        to and including the match."""
        end = time.monotonic() + timeout
        while True:
            m = re.search(pattern, self.out)
            if m:
                text, self.out = self.out[: m.end()], self.out[m.end() :]
                return text
            left = end - time.monotonic()
            if left <= 0 or (not self._read(min(left, 1.0)) and self.proc.poll() is not None):
                raise AssertionError(f"no {pattern!r} in REPL output: {self.out!r}")

    def send(self, line: str) -> None:
        os.write(self.master, line.encode())

    def run(self, text: str) -> str:
        """Type `text` (lines), wait for the next `>>> ` prompt; the output in between, without
        the echo of what was typed."""
        self.send(text)
        out = self.expect(r"(?m)^>>> ")[: -len(">>> ")]
        # the terminal echoes each typed line, after a `... ` prompt from the second on
        for ln in text.split("\n")[:-1]:
            out = out.removeprefix("... ")
            assert out.startswith(ln + "\n"), (ln, out)
            out = out[len(ln) + 1 :]
        return out

    def close(self) -> int:
        self.send("\x04")
        try:
            rc = self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            os.close(self.master)
        return rc


@pytest.fixture
def repl_factory():  # type: ignore[no-untyped-def]
    made: list[Repl] = []

    def make(*args: str) -> Repl:
        r = Repl(*args)
        made.append(r)
        r.expect(r"REPL: .*\n")
        r.expect(r"(?m)^>>> ")
        return r

    yield make
    for r in made:
        if r.proc.poll() is None:
            r.proc.kill()


def test_a_million_threads_threadidx_mod_3(repl_factory) -> None:  # type: ignore[no-untyped-def]
    r = repl_factory("--backend", "sim")  # the default: 1,048,576 threads
    out = r.run("threadIdx % 3\n")
    assert out == "----- 349526x -----\n0\n----- 349525x -----\n1\n----- 349525x -----\n2\n"
    assert r.close() == 0


def test_eighth_powers(repl_factory) -> None:  # type: ignore[no-untyped-def]
    r = repl_factory("--backend", "sim")
    out = r.run("if int(threadIdx ** 0.125) ** 8 == threadIdx: print('8th power:', threadIdx)\n\n")
    powers = [0, 1, 256, 6561, 65536, 390625]
    expected = "".join(f"----- 1x -----\n8th power: {p}\n" for p in powers)
    assert out == expected + f"----- {(1 << 20) - len(powers)}x -----\n"
    assert r.close() == 0


def test_mandelbrot_beetle_saved_as_png(repl_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from PIL import Image

    r = repl_factory("--backend", "sim", "--threads", str(128 * 128))
    assert "outbuf: 128 x 128 x 3 uint32" in r.run("%bind outbuf 128,128,3 uint32\n")
    r.run("W = 128\n")
    r.run("px = tid % W\n")
    r.run("py = tid // W\n")
    r.run("cr = -2.2 + 3.2 * px / W\n")
    r.run("ci = -1.6 + 3.2 * py / W\n")
    r.run("zr = 0.0\n")
    r.run("zi = 0.0\n")
    r.run("n = 0\n")
    out = r.run(
        "while n < 50 and zr * zr + zi * zi < 4.0:\n"
        "    zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci\n"
        "    n += 1\n\n"
    )
    assert out == ""
    r.run("outbuf[py, px, 0] = 255 if n == 50 else n * 5\n")
    r.run("outbuf[py, px, 2] = 255 - n * 5\n")
    png = tmp_path / "beetle.png"
    assert "saved outbuf" in r.run(f"%save outbuf {png}\n")
    img = Image.open(png)
    assert img.size == (128, 128) and img.mode == "RGB"
    assert img.getpixel((80, 64)) == (255, 0, 5)  # inside the set: 50 iterations
    assert img.getpixel((0, 0))[0] < 50  # type: ignore[index]  # outside: escapes at once
    assert r.close() == 0


def test_errors_and_ctrl_c_keep_the_session(repl_factory) -> None:  # type: ignore[no-untyped-def]
    r = repl_factory("--backend", "sim", "--threads", "8")
    assert r.run("x = tid * 2\n") == ""
    out = r.run("y = x + nope\n")
    assert "CompileError: <input 2>:1:9: name `nope` is not defined" in out
    assert "    y = x + nope\n            ^" in out
    r.send("z = (x +\n")
    r.expect(r"\.\.\. ")
    time.sleep(0.3)  # let the line reader take the terminal before the key arrives
    r.send("\x03")  # Ctrl-C abandons the unfinished input
    r.expect("KeyboardInterrupt")
    r.expect(r"(?m)^>>> ")
    out = r.run("x[0]\n")
    assert "CompileError" in out  # a number cannot be indexed
    assert r.run("x % 4\n") == "----- 4x -----\n0\n----- 4x -----\n2\n"
    assert r.close() == 0


def test_substring_search_over_a_file_in_chunks(repl_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    words = [b"alpha", b"beta", b"gamma", b"kernel", b"thread"]
    parts = [words[(i * 7) % 5] for i in range(60000)]
    for i in range(0, 60000, 3000):
        parts[i] = b"needle"  # 20 needles, none across a chunk boundary the overlap misses
    path = tmp_path / "big.txt"
    path.write_bytes(b" ".join(parts))
    size = path.stat().st_size
    r = repl_factory("--backend", "sim", "--threads", str(-(-size // 256)))
    r.run(f"f = open({str(path)!r})\n")
    r.run("f.seek(tid * 256)\n")
    r.run("chunk = f.read(256 + 5)\n")
    out = r.run("'needle' in chunk\n")
    threads = -(-size // 256)
    assert out == f"----- {threads - 20}x -----\nFalse\n----- 20x -----\nTrue\n" or out == (
        f"----- 20x -----\nTrue\n----- {threads - 20}x -----\nFalse\n"
    )
    assert r.close() == 0


def test_explain_shows_one_threads_path_in_the_inputs_lines(repl_factory) -> None:  # type: ignore[no-untyped-def]
    r = repl_factory("--backend", "cpu", "--threads", "16")
    r.run("x = tid * 3\n")
    r.run("s = 0\n")
    assert "the next input shows the path of thread 5" in r.run("%explain 5\n")
    loop = "for j in range(x):\n    s += j\n    if s % 2 == 0:\n        y = s\n    else:\n"
    out = r.run(loop + "        y = -s\n\n")
    path = [ln.split() for ln in out[out.index("thread tid=5, input <input 3>:") :].split("\n")]
    assert path[2] == ["1", "for", "j", "in", "range(x):", "loop:", "15", "iterations"]
    assert path[3] == ["iteration", "1", "j", "=", "0"]
    assert path[4] == ["2", "s", "+=", "j", "s", "=", "0"]
    assert path[5] == ["3", "if", "s", "%", "2", "==", "0:"]
    assert path[6] == ["4", "y", "=", "s", "y", "=", "0"]  # an alias, shown with its value
    assert path[7] == ["iteration", "2", "j", "=", "1"]
    assert path[10] == ["6", "y", "=", "-s", "y", "=", "-1"]  # the else branch
    assert path[15] == ["...", "11", "more", "iterations", "folded"]
    assert path[16] == ["iteration", "15", "j", "=", "14"]
    assert path[17][-3:] == ["s", "=", "105"]
    assert "thread tid" not in r.run("s\n")  # once: the input after is not explained
    assert "between 0 and 15" in r.run("%explain 16\n")
    assert r.close() == 0


def test_figure3_block_average_typed_at_the_prompt(repl_factory) -> None:  # type: ignore[no-untyped-def]
    from tests.repl.test_blocks import FIGURE3

    r = repl_factory("--backend", "cpu")  # 2**20 threads
    for text in FIGURE3:
        if text.startswith("for "):  # a compound statement ends with an empty line
            out = r.run(text + "\n")
            assert "Error" not in out, out
            continue
        for line in text.split("\n"):  # simple statements: one input a line
            out = r.run(line + "\n")
            assert "Error" not in out, out
    assert r.run("data[0]\n") == "64.75\n"
    assert "%block N" in r.run("%help\n")
    assert r.close() == 0


def test_threads_write_files_and_a_later_input_reads_them(repl_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    r = repl_factory("--backend", "cpu", "--threads", "4")
    r.run("x = tid * tid\n")
    assert r.run(f'f = open(f"{tmp_path}/{{tid}}.txt", "w"); f.write(f"{{tid}}: {{x}}\\n")\n') == ""
    assert (tmp_path / "3.txt").read_text() == "3: 9\n"
    out = r.run(f'h = open("{tmp_path}/same.txt", "w"); h.write("x")\n')
    assert "threads 0 and 1 both open" in out
    r.run(f'g = open("{tmp_path}/2.txt")\n')
    r.run("s = g.read(10)\n")
    assert r.run("print(s, len(s), s.startswith('2:'), int(s[3:]) + 1)\n") == "2: 4\n 5 True 5\n"
    assert "f.write" in r.run("%help\n")
    assert r.close() == 0


@pytest.mark.parametrize("backend", ["cpu", "webgpu"])
def test_store_past_a_bound_array_on_a_million_threads(repl_factory, backend: str) -> None:  # type: ignore[no-untyped-def]
    """Was a segfault of the REPL on cpu (and nothing at all on webgpu): every store and load
    is checked against the array's extent, as on sim."""
    from simt.runtime import registry

    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"{backend} not present: {why}")
    r = repl_factory("--backend", backend)  # the default: 1,048,576 threads
    assert "buf: 10 int32" in r.run("%bind buf 10 int32\n")
    out = r.run("buf[tid] = 1\n")
    assert out == (
        "KernelError: 1,048,566 threads raised IndexError at <input 1>:1 (first: thread 10: "
        "index 10 is out of bounds of `buf` with size 10)\n"
        "    buf[tid] = 1\n"
        "10 threads finished\n"
    )
    out = r.run("x = buf[tid - 1]\n")
    assert "(first: thread 0: index -1 is out of bounds of `buf` with size 10)" in out
    assert r.run("buf[tid % 10] = 7\n") == ""
    assert r.run("buf[9]\n") == "7\n"
    assert r.close() == 0


def test_a_thread_reads_after_syncthreads_what_another_wrote(repl_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    r = repl_factory("--backend", "cpu", "--threads", "8")
    r.run("%block 4\n")
    msg = tmp_path / "msg.txt"
    src = f'if tid == 0:\n    f = open("{msg}", "w")\n    f.write("hello")\n'
    # the prompt takes the lines after a block as one input when they share the dedented line
    out = r.run(src + f'syncthreads(); r = open("{msg}"); r.read()\n')
    assert out == "b'hello'\n", out  # all 8 threads read what thread 0 wrote
    assert (
        r.run("r.read()[tid % 2 : tid % 2 + 2]\n")
        == "----- 4x -----\nb'he'\n----- 4x -----\nb'el'\n"
    )
    assert "syncthreads() statement at the top level" in r.run("%help\n")
    assert r.close() == 0


def test_ctrl_c_stops_a_long_cpu_input_and_the_session_goes_on(repl_factory) -> None:  # type: ignore[no-untyped-def]
    from simt.runtime import registry

    ok, why = registry.probe("cpu")
    assert ok, f"cpu is a core backend (llvmlite is a dependency): {why}"
    r = repl_factory("--backend", "cpu")  # 1,048,576 threads
    r.run("n = tid * 0 + 1\n")  # a run-time value: the loop below compiles once
    r.run("s = 0\n")
    r.run("for j in range(n):\n    s = (s * 31 + j + tid) % 1000003\n\n")
    r.run("n = tid * 0 + (1 << 17)\n")  # minutes in all; a block of 256 threads, ~0.1 s
    r.send("for j in range(n):\n    s = (s * 31 + j + tid) % 1000003\n\n")
    r.expect(r"\.\.\. \n")  # the input is complete: it runs
    time.sleep(1.0)
    sent = time.monotonic()
    r.send("\x03")
    r.expect("KeyboardInterrupt")
    assert time.monotonic() - sent < 2.0
    r.expect(r"(?m)^>>> ")
    assert r.run("tid % 2\n") == "----- 524288x -----\n0\n----- 524288x -----\n1\n"
    assert r.close() == 0


def test_ctrl_c_stops_one_block_looping_for_ever(repl_factory) -> None:  # type: ignore[no-untyped-def]
    """Ctrl-C inside a loop that never ends (issue 23): the kernels' loops poll for it; the
    input is abandoned, and its message is true: the kernel's results never replaced `y`."""
    from simt.runtime import registry

    ok, why = registry.probe("cpu")
    assert ok, f"cpu is a core backend (llvmlite is a dependency): {why}"
    r = repl_factory("--backend", "cpu", "--threads", "256")  # one block
    r.run("y = tid\n")
    for _ in range(2):
        r.send("while y >= 0:\n    y = (y + 1) % 1000\n\n")
        r.expect(r"\.\.\. \n")  # the input is complete: it runs
        time.sleep(1.5)
        sent = time.monotonic()
        r.send("\x03")
        said = r.expect(r"KeyboardInterrupt.*\n")
        assert time.monotonic() - sent < 1.0
        r.expect(r"(?m)^>>> ")
        assert "(the input was abandoned; variables are unchanged)" in said, said
    assert r.run("y % 3\n").startswith("----- 86x -----\n0\n")  # y is still tid
    assert r.close() == 0
