"""The REPL idea's Figures 3-6, written in their spirit and run through the REPL as a library
(`simt.repl.Session`): every input runs on every thread, as at the `simt repl` prompt.

- Figure 3: the average of an array by the threads of a block, through a shared cache.
- Figure 4: one thread writes a file; after `syncthreads()` every thread of the block reads it.
- Figure 5: each thread writes its own file with `with open(path, "w") as f:`.
- Figure 6: each thread computes one pixel and stores its colour with
  `outbuf[3 * t : 3 * t + 3] = [r, g, b]` into an array the program already has.

Run: python examples/repl_figures.py [backend]   (default: the current backend)
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

import numpy as np

from simt.repl import PlainSink, Session


def session(threads: int, backend: str | None = None) -> tuple[Session, io.StringIO]:
    """A REPL session writing its grouped output into a string."""
    out = io.StringIO()
    return Session(PlainSink(out), threads=threads, backend=backend), out


def run(s: Session, out: io.StringIO, *inputs: str) -> str:
    """Run `inputs` one after the other; what the last one printed."""
    for text in inputs:
        out.seek(0)
        out.truncate()
        if not s.run(text):
            raise RuntimeError(f"input failed:\n{text}\n{out.getvalue()}")
    return out.getvalue()


def figure3(backend: str | None = None, n: int = 256) -> float:
    """The average of `data` computed by one block of `n` threads halving a shared cache."""
    s, out = session(n, backend)
    data = np.arange(n, dtype=np.float64) * 0.5 + 1  # an array the program already has
    s.bind_array("data", data)
    s.set_block(n)  # `%block N`: threads cooperate in blocks of n
    run(
        s, out,
        "import math",
        f"N = {n}",
        "cache = shared(N)",
        "cache[threadIdx] = data[threadIdx]",
        "syncthreads()",
        "steps = int(math.log(N, 2))",
        "for i in range(steps):\n"
        "    half = N >> (i + 1)\n"
        "    if threadIdx < half:\n"
        "        cache[threadIdx] += cache[threadIdx + half]\n"
        "    syncthreads()\n",
        "if tid == 0:\n    data[0] = cache[0] / len(data)\n",
    )  # fmt: skip
    return float(data[0])


def figure4(directory: Path, backend: str | None = None, n: int = 32) -> str:
    """Thread 0 writes a message; after the barrier every thread of the block reads it."""
    s, out = session(n, backend)
    s.set_block(n)
    path = directory / "msg.txt"
    return run(
        s, out,
        f'if tid == 0:\n    f = open("{path}", "w")\n    f.write("hello from thread 0")\n'
        f'syncthreads(); r = open("{path}"); r.read()',
    )  # fmt: skip


def figure5(directory: Path, backend: str | None = None, n: int = 8) -> list[str]:
    """Each thread writes its own file inside `with open(...)`; the texts, in thread order."""
    s, out = session(n, backend)
    run(
        s, out,
        "x = tid * tid",
        f'with open(f"{directory}/out{{tid}}.txt", "w") as f:\n'
        '    f.write(f"thread {tid}: {x}\\n")\n',
    )  # fmt: skip
    return [(directory / f"out{t}.txt").read_text() for t in range(n)]


def figure6(width: int = 32, height: int = 24, backend: str | None = None) -> np.ndarray:
    """One thread a pixel: a colour from the pixel's place in a Mandelbrot view, stored as
    three channels into a flat RGB buffer the program owns."""
    s, out = session(width * height, backend)
    outbuf = np.zeros(3 * width * height, np.float64)
    s.bind_array("outbuf", outbuf)
    run(
        s, out,
        f"W = {width}\nH = {height}",
        "t = tid\n"
        "cx = -2.0 + 2.6 * (t % W) / W\n"
        "cy = -1.2 + 2.4 * (t // W) / H\n"
        "zx = 0.0\nzy = 0.0\nk = 0\n"
        "while k < 40 and zx * zx + zy * zy < 4.0:\n"
        "    zx, zy = zx * zx - zy * zy + cx, 2.0 * zx * zy + cy\n"
        "    k += 1\n",
        "v = k / 40\n"
        "outbuf[3 * t : 3 * t + 3] = [v, v * v, 1.0 - v]\n",
    )  # fmt: skip
    return outbuf.reshape(height, width, 3)


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else None
    print("Figure 3: the average, by a block through a shared cache:", figure3(backend))
    with tempfile.TemporaryDirectory() as d:
        print("Figure 4: what every thread read after the barrier:")
        print(figure4(Path(d), backend), end="")
        print("Figure 5: the files the threads wrote:", figure5(Path(d), backend)[:3], "...")
    img = figure6(backend=backend)
    print(f"Figure 6: a {img.shape[1]} x {img.shape[0]} RGB image, mean colour",
          img.reshape(-1, 3).mean(0).round(3))  # fmt: skip


if __name__ == "__main__":
    main()
