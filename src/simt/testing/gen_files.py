"""The fuzz generator's `files` feature (registers its section in grammar.py): files read per
thread (#27 item 3, frontend/files.py): `with open(f"{FDIR}/f{...}.txt") as fh:` with a path
made from the thread's index, then `for line in fh` (or `enumerate(fh, start)`),
`readline()`, `readlines()` (a list of strings, walked), `read()`, `read(k)`, `tell()` and
`seek(...)` (back to a position `tell` gave,
to the end, to the start), and the strings they give measured, searched and stripped; or the
file opened again and again in a loop (each open by its run-time path: the heap the path
took is given back); with the exceptions feature, `int(line)` of each line
(frontend/str_parse.py), its ValueError and OverflowError caught.

The generated module writes its files when it is imported (`HELPER`: fixed texts in a fixed
directory under the system's temporary folder, each written whole with `os.replace`, so
processes running the same kernel at once never see half a file), and the kernel only reads
them, so every backend reads the same text. With the exceptions feature on, a thread may name
a file that does not exist, and its FileNotFoundError is caught (one open in five of those
names `g....txt`, which no file matches: then maybe nothing is staged); without it, every
path names a file that exists. Never with `numba` (Numba's kernels cannot open files).
"""

from __future__ import annotations

from .grammar import SECTIONS, Grammar

# the files' texts: f0.txt ... f8.txt; None: no such file (removed if there); f8.txt holds
# numbers (int(line)), one past int32
TEXTS = ("ab\ncd\n", "one\ntwo\nthree", "", None, "  t spaced  \n\nlast\n", "x" * 40 + "\n",
         None, "tab\there\r\nnext\n", "12\n -7 \n3_0\n99999999999\n+8")  # fmt: skip
PRESENT = [k for k, t in enumerate(TEXTS[:8]) if t is not None]

HELPER = f'''import os as _os
import tempfile as _tempfile

FDIR = _os.path.join(_tempfile.gettempdir(), "simt-fuzz-files-1")
_os.makedirs(FDIR, exist_ok=True)
for _k, _text in enumerate({TEXTS!r}):
    _p = _os.path.join(FDIR, f"f{{_k}}.txt")
    if _text is None:
        if _os.path.exists(_p):
            _os.remove(_p)
        continue
    _tmp = f"{{_p}}.{{_os.getpid()}}"
    with open(_tmp, "w", encoding="utf-8", newline="") as _f:
        _f.write(_text)
    _os.replace(_tmp, _p)
'''


def files_section(g: Grammar) -> None:
    """One file opened per thread and read one of four ways into a new int32 variable."""
    r = g.r
    g.features.add("files")
    if HELPER not in g.helpers:
        g.helpers.append(HELPER)
    x, fh, ln = g.fresh("fr"), g.fresh("fh"), g.fresh("ln")
    missing = g.exceptions_on and r.random() < 0.7
    # a name no file has (`g...`): in a kernel with no other open, no file is staged at all
    stem = "g" if missing and r.random() < 0.2 else "f"
    # 0-3: read a way, 4: tell and seek, 5: opened in a loop, 6: int(line), which may raise
    k = r.randrange(7 if missing else 6)
    if k == 6:
        which = f"(t + {r.randrange(9)}) % 9"
    elif missing:
        which = f"(t + {r.randrange(8)}) % 8"
    else:
        which = f"({PRESENT!r}[(t + {r.randrange(6)}) % {len(PRESENT)}])"
    g.emit(f"{x} = {g.i32(1)}")
    pad = "    " if missing else ""
    if missing:
        g.emit("try:")
    path = f'f"{{FDIR}}/{stem}{{{which}}}.txt"'
    # many opens, each by its run-time path, in one thread; not after the lists section,
    # whose strings (float64 formats write hundreds of digits) share the thread's heap with
    # the opens' positions: a MemoryError here is not caught (seed 255 of the slice)
    if k == 5 and "lists" not in g.features:
        rr = g.fresh("rr")
        # (a run-time trip count: a known one would unroll the opens, 40 copies to compile)
        g.emit(f"{pad}for {rr} in range((t & 1) + {r.randrange(2, 40)}):")
        g.emit(f"{pad}    with open({path}) as {fh}:")
        g.emit(f"{pad}        {x} = {x} + len({fh}.readline()) * ({rr} + 1)")
        if r.random() < 0.5:
            g.emit(f"{pad}        {x} = {x} * 3 + {fh}.seek(0, 2)")
        _caught(g, x, missing)
        return
    g.emit(f"{pad}with open({path}) as {fh}:")
    body = pad + "    "
    if k == 0 and r.random() < 0.4:  # numbered lines
        n = g.fresh("n")
        g.emit(f"{body}for {n}, {ln} in enumerate({fh}, {r.randrange(3)}):")
        g.emit(f"{body}    {x} = {x} * 3 + len({ln}) * {n} + (5 if {ln}.startswith('t') else 0)")
    elif k == 0:
        g.emit(f"{body}for {ln} in {fh}:")
        g.emit(f"{body}    {x} = {x} * 3 + len({ln}) + (5 if {ln}.startswith('t') else 0)")
    elif k == 1:  # a line, the rest as a list of lines (readlines), then nothing left
        g.emit(f"{body}{x} = {x} + len({fh}.readline()) * 7")
        g.emit(f"{body}{ln} = {fh}.readlines()")
        g.emit(f"{body}for {ln}_k in {ln}:")
        g.emit(f"{body}    {x} = {x} * 3 + len({ln}_k) + ({ln}_k == 'cd\\n')")
        g.emit(f"{body}{x} = {x} + len({ln}) * 11 + len({fh}.read())")
    elif k == 2:
        g.emit(f"{body}{ln} = {fh}.read()")
        g.emit(f"{body}{x} = {x} + len({ln}.strip()) * 5 + {ln}.find('o') + ('\\n' in {ln})")
    elif k == 3:
        g.emit(f"{body}{ln} = {fh}.read({r.randrange(5)})")
        g.emit(f"{body}{x} = {x} * 7 + len({ln}) + len({fh}.readline()) + ({ln} == 'ab')")
    elif k == 4:  # tell, then back to it; the end; the start
        mk = g.fresh("mk")
        if r.random() < 0.5:
            g.emit(f"{body}{fh}.readline()")
        g.emit(f"{body}{mk} = {fh}.tell()")
        g.emit(f"{body}{ln} = {fh}.readline()")
        g.emit(f"{body}{x} = {x} * 5 + {mk} + len({ln}) + {fh}.seek(0, 2) * 3")
        g.emit(f"{body}{fh}.seek({mk})")
        g.emit(f"{body}{x} = {x} * 3 + len({fh}.read({r.randrange(4)})) + {fh}.tell()")
        g.emit(f"{body}{x} = {x} + {fh}.seek(0, 1) + {fh}.seek(0)")
        g.emit(f"{body}for {ln} in {fh}:")
        g.emit(f"{body}    {x} = {x} * 3 + len({ln})")
    else:
        g.emit(f"{body}for {ln} in {fh}:")
        g.emit(f"{body}    try:")
        g.emit(f"{body}        {x} = {x} * 3 + int({ln})")
        g.emit(f"{body}    except ValueError:")
        g.emit(f"{body}        {x} = {x} - 1")
        g.emit(f"{body}    except OverflowError:")
        g.emit(f"{body}        {x} = {x} + 1")
    _caught(g, x, missing)


def _caught(g: Grammar, x: str, missing: bool) -> None:
    """The handler of a missing file's FileNotFoundError (with exceptions on), and `x`."""
    if missing:
        g.emit("except FileNotFoundError:")
        g.emit(f"    {x} = {x} - 5")
    g.declare(x, "i32")


SECTIONS["files"] = files_section
