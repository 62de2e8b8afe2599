"""The `%` commands: %bind, %save, %threads, %block, %heap, %stdin, %backend, %explain, %time,
%reset, %vars, %help."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from ..errors import SimtError
from .session import Session

HELP = """\
Each input runs on every thread; `tid` (alias `threadIdx`) is the thread's index and
`nthreads` (alias `numThreads`) their number. Variables are per-thread and kept between
inputs; inputs that do not depend on the thread (imports, constants, defs) run once.
Outputs are grouped: each distinct text once, after a banner with its count.
Files: f = open(PATH); f.seek(tid * 1024); chunk = f.read(1024) gives each thread its own
bytes; byte strings have len, slicing s[a:b], `in` (substring test), ==, startswith,
endswith, find, `a, b, c = s.split(" ")`, int(s), float(s), and print(s).
Writing: f = open(f"out/{tid}.txt", "w"); f.write(f"{tid} {x}\\n") writes real files when
the input ends: one thread per file opened with "w" (two are an error naming both); with
"a" every thread's writes are appended in thread order. Later inputs can read them; with
%block, so can the threads after a syncthreads() statement at the top level of the input
(the input then runs as one launch per part; a barrier inside for/if cannot be cut).
A byte string as an input's last line is echoed (b'...'), grouped by its bytes.
  %bind NAME SHAPE DTYPE   a buffer every thread sees, e.g. %bind outbuf 512,512,3 uint32
  %save NAME FILE.png      write a bound buffer as an image (RGB when the last axis is 3)
  %threads N               run on N threads (per-thread variables are dropped)
  %block N                 threads cooperate in blocks of N (`%block off`: one flat launch,
                           the default): `threadIdx` is then the index in the block,
                           `blockIdx` the block's, `blockDim` N; `syncthreads()` waits for the
                           block; `cache = shared(n, float64)` is an array per block, kept
                           from input to input
  %stdin FILE              input() gives each thread one line of FILE: thread t reads
                           line t, as a byte string (`%stdin off`: none)
  %heap N                  bytes per thread for each item type of lists (default 1024);
                           a list that outgrows it raises MemoryError
  %backend NAME            run on another backend: cpu, sim, cuda, webgpu
  %explain TID             after the next input, show thread TID's path through it: its
                           lines, values, reads and writes, loops (run again on sim)
  %time                    show the time of each input (again to stop)
  %reset                   forget every variable and buffer
  %vars                    list the variables
  %help                    this text
Ctrl-C abandons the current input (also a kernel in a loop that never ends; the message says
what it had already changed); Ctrl-D (or exit()) leaves."""

_DTYPES = {
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
}  # fmt: skip


def run(session: Session, line: str) -> bool:
    """Execute one `%` command line; False when it failed."""
    word, _, rest = line[1:].strip().partition(" ")
    handler = _COMMANDS.get(word)
    if handler is None:
        session.out.error(f"unknown command %{word}; %help lists the commands")
        return False
    try:
        handler(session, rest.strip())
    except (ValueError, SimtError, OSError) as e:
        session.out.error(f"%{word}: {e}")
        return False
    return True


def _bind(s: Session, args: str) -> None:
    parts = args.split()
    if len(parts) < 2:
        raise ValueError("usage: %bind NAME SHAPE [DTYPE], e.g. %bind outbuf 512,512,3 uint32")
    name, dtype = parts[0], "float64"
    last = parts[-1].removeprefix("np.")
    if len(parts) > 2 and not re.fullmatch(r"[\d,()\[\]]+", last):
        if last not in _DTYPES:
            raise ValueError(f"the dtype must be one of {', '.join(sorted(_DTYPES))}, not {last!r}")
        dtype = last
        parts.pop()
    shape_text = " ".join(parts[1:])
    # 512,512,3 or 512 512 3 or (512, 512, 3): every number an axis
    words = [w for w in re.split(r"[\s,()\[\]]+", shape_text) if w]
    if not words or not all(w.isdigit() and int(w) > 0 for w in words):
        raise ValueError(
            f"the shape must be positive whole numbers like 512,512,3 (or 512 512 3), not "
            f"{shape_text!r}"
        )
    shape = tuple(int(w) for w in words)
    s.bind(name, shape, np.dtype(dtype))
    s.out.warning(f"{name}: {' x '.join(map(str, shape))} {dtype}, zeros, shared by every thread")


def _save(s: Session, args: str) -> None:
    parts = args.split()
    if len(parts) != 2:
        raise ValueError("usage: %save NAME FILE.png")
    name, path = parts
    arr = s.bound.get(name)
    if arr is None:
        raise ValueError(f"{name} is not a bound buffer (make one with %bind)")
    save_image(arr, path)
    s.out.warning(f"saved {name} ({' x '.join(map(str, arr.shape))}) to {path}")


def save_image(arr: np.ndarray, path: str) -> None:
    """Write `arr` as an image: 2-d is grey, a last axis of 3 is RGB (4: RGBA). Floats up to
    1 are scaled to 0..255; other values are clipped to 0..255."""
    try:
        from PIL import Image
    except ImportError:
        raise ValueError("%save needs Pillow: pip install pillow") from None
    a = np.asarray(arr)
    if not (a.ndim == 2 or (a.ndim == 3 and a.shape[2] in (3, 4))):
        raise ValueError(f"an image is H x W, H x W x 3 or H x W x 4, not {a.shape}")
    if a.dtype.kind == "f" and np.nanmax(a, initial=0.0) <= 1.0:
        a = a * 255.0
    img = np.clip(np.nan_to_num(a), 0, 255).astype(np.uint8)
    Image.fromarray(img).save(path)


def _threads(s: Session, args: str) -> None:
    try:
        n = int(args.replace("_", "").replace(",", ""))
    except ValueError:
        raise ValueError("usage: %threads N") from None
    if n < 1 or n >= 2**31:
        raise ValueError("the thread count must be between 1 and 2**31 - 1")
    s.set_threads(n)
    s.out.warning(f"{n} threads on {s.backend}; per-thread variables were dropped")


def _block(s: Session, args: str) -> None:
    if not args:
        s.out.warning(f"block: {s.block or 'off (one flat launch)'}")
        return
    if args == "off":
        s.set_block(None)
        s.out.warning("one flat launch; threadIdx is tid again")
        return
    try:
        n = int(args)
    except ValueError:
        raise ValueError("usage: %block N (threads per block) or %block off") from None
    s.set_block(n)
    s.out.warning(
        f"{s.threads} threads in {s.threads // n} blocks of {n}: syncthreads() and shared(n) "
        "are available"
    )


def _stdin(s: Session, args: str) -> None:
    if not args:
        s.out.warning(f"stdin: {s.stdin or 'none (input() is refused)'}")
        return
    if args == "off":
        s.stdin = None
        s.out.warning("input() is refused until %stdin FILE")
        return
    path = args.strip().strip("'\"")
    with open(path, "rb") as f:  # an OSError is the command's error
        lines = len(f.read().splitlines())
    s.stdin = path
    s.out.warning(
        f"input() gives thread t line t of {path} ({lines} lines for {s.threads} threads; "
        "threads past the last line read an empty line)"
    )


def _heap(s: Session, args: str) -> None:
    from ..frontend.arena import DEFAULT_HEAP, MIN_HEAP

    if not args:
        s.out.warning(f"heap: {s.heap or DEFAULT_HEAP} bytes per thread for each item type")
        return
    try:
        n = int(args.replace("_", "").replace(",", ""))
    except ValueError:
        raise ValueError("usage: %heap N (bytes per thread for each item type of lists)") from None
    if n < MIN_HEAP:
        raise ValueError(f"the heap is at least {MIN_HEAP} bytes (the default is {DEFAULT_HEAP})")
    s.heap = n
    s.out.warning(f"lists have {n} bytes per thread for each item type")


def _backend(s: Session, args: str) -> None:
    if not args:
        s.out.warning(f"backend: {s.backend}")
        return
    s.set_backend(args)
    s.out.warning(f"{s.threads} threads on {s.backend}")


def _explain(s: Session, args: str) -> None:
    try:
        tid = int(args)
    except ValueError:
        raise ValueError("usage: %explain TID (a thread index)") from None
    if not 0 <= tid < s.threads:
        raise ValueError(f"the thread index must be between 0 and {s.threads - 1}")
    s.explain_tid = tid
    s.out.warning(f"the next input shows the path of thread {tid}")


def _time(s: Session, args: str) -> None:
    s.timing = not s.timing
    s.out.warning("timing " + ("on" if s.timing else "off"))


def _reset(s: Session, args: str) -> None:
    s.reset()
    s.out.warning("all variables and buffers forgotten")


def _vars(s: Session, args: str) -> None:
    for name, a in s.state.items():
        s.out.text(f"{name}: per-thread {a.dtype}\n")
    for name, (cls, idx) in s.objects.items():
        kind = "file" if cls == "File" else "byte string"
        s.out.text(f"{name}: per-thread {kind} of {s.file_paths[idx]}\n")
    for name, a in s.bound.items():
        s.out.text(f"{name}: shared {' x '.join(map(str, a.shape))} {a.dtype}\n")
    for name, v in s.globals.items():
        if not name.startswith("__") and name not in ("simt", "nthreads", "numThreads"):
            s.out.text(f"{name}: host {type(v).__name__}\n")


def _help(s: Session, args: str) -> None:
    s.out.text(HELP + "\n")


_COMMANDS: dict[str, Callable[[Session, str], None]] = {
    "bind": _bind,
    "save": _save,
    "threads": _threads,
    "backend": _backend,
    "explain": _explain,
    "block": _block,
    "heap": _heap,
    "stdin": _stdin,
    "time": _time,
    "reset": _reset,
    "vars": _vars,
    "help": _help,
}
