"""Produce examples/repl_session.txt by running the REPL, never by typing it.

    python examples/make_repl_session.py            # rewrite examples/repl_session.txt
    python examples/make_repl_session.py --check    # exit 1 if the file differs from a run

The lines below are fed to the REPL's own read loop (`simt.repl.console.loop`) as a user
would type them, each echoed after its prompt as a terminal shows it, with the REPL's plain
output between them; the session runs on the `cpu` backend with 2**20 threads, in a
temporary folder holding the text file the last inputs read.
"""

from __future__ import annotations

import argparse
import difflib
import io
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import simt
from simt.repl.console import PlainSink, loop
from simt.repl.session import Session

HERE = Path(__file__).resolve().parent
TRANSCRIPT = HERE / "repl_session.txt"
THREADS = 1 << 20

# what the user types, line by line ("" ends a block, as at Python's prompt)
TYPED = """\
threadIdx % 3
x = tid * 2
x += 1
x % 4
if int(threadIdx ** 0.125) ** 8 == threadIdx: print('8th power:', threadIdx)

import math
def digits(v):
    s = 0
    while v > 0:
        s += v % 10
        v //= 10
    return s

digits(tid) == 9, tid < 1000
y = x + nope
%bind outbuf 256 256 3 uint32
px = tid % 256
py = tid // 256
cr = -2.2 + 3.2 * px / 256
ci = -1.6 + 3.2 * py / 256
zr = 0.0
zi = 0.0
n = 0
while n < 100 and zr * zr + zi * zi < 4.0:
    zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
    n += 1

if py < 256: outbuf[py, px, 0] = 255 if n == 100 else n * 8 % 256

n == 100
%save outbuf beetle.png
f = open("huge.txt")
f = f.seek(tid * 64)
chunk = f.read(64 + 6)
b"needle" in chunk
b"kernel simt" in chunk
"""


def _text_file(path: Path) -> None:
    """64 bytes a thread of sentences, one `needle` in them (what the last inputs search)."""
    words = b"a kernel simt compiles runs on every thread of the machine and "
    data = bytearray((words * (THREADS * 64 // len(words) + 2))[: THREADS * 64 + 6])
    data[777_777 : 777_777 + 6] = b"needle"
    path.write_bytes(bytes(data))


def transcript() -> str:
    """The session, run now: prompts, what was typed, and what the REPL printed."""
    out = io.StringIO()
    typed: Iterator[str] = iter(TYPED.splitlines())

    def read(prompt: str) -> str:
        line = next(typed, None)
        if line is None:
            raise EOFError
        out.write(prompt + line + "\n")
        return line

    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp, simt.using("cpu"):
        os.chdir(tmp)
        try:
            _text_file(Path(tmp) / "huge.txt")
            session = Session(PlainSink(out), threads=THREADS, backend="cpu")
            out.write("$ python -m simt repl\n")
            out.write(
                f"simt {simt.__version__} REPL: {THREADS:,} threads on cpu. `tid` is each "
                "thread's index, `nthreads` their number; %help for more.\n"
            )
            loop(session, read)
        finally:
            os.chdir(here)
    return out.getvalue().rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="compare instead of writing")
    args = p.parse_args(argv)
    text = transcript()
    if args.check:
        old = TRANSCRIPT.read_text()
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), str(TRANSCRIPT), "a run now"))
            return 1
        return 0
    TRANSCRIPT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
