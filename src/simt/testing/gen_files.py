"""The fuzz generator's `files` feature (registers its section in grammar.py): files read per
thread (#27 item 3, frontend/files.py): `with open(f"{FDIR}/f{...}.txt") as fh:` with a path
made from the thread's index, then `for line in fh` (or `enumerate(fh, start)`),
`readline()`, `read()`, `read(k)`, and the strings they give measured, searched and
stripped; with the exceptions feature, `int(line)` of each line (frontend/str_parse.py),
its ValueError and OverflowError caught.

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
    k = r.randrange(5 if missing else 4)  # 4: int(line), which may raise
    if k == 4:
        which = f"(t + {r.randrange(9)}) % 9"
    elif missing:
        which = f"(t + {r.randrange(8)}) % 8"
    else:
        which = f"({PRESENT!r}[(t + {r.randrange(6)}) % {len(PRESENT)}])"
    g.emit(f"{x} = {g.i32(1)}")
    pad = "    " if missing else ""
    if missing:
        g.emit("try:")
    g.emit(f'{pad}with open(f"{{FDIR}}/{stem}{{{which}}}.txt") as {fh}:')
    body = pad + "    "
    if k == 0 and r.random() < 0.4:  # numbered lines
        n = g.fresh("n")
        g.emit(f"{body}for {n}, {ln} in enumerate({fh}, {r.randrange(3)}):")
        g.emit(f"{body}    {x} = {x} * 3 + len({ln}) * {n} + (5 if {ln}.startswith('t') else 0)")
    elif k == 0:
        g.emit(f"{body}for {ln} in {fh}:")
        g.emit(f"{body}    {x} = {x} * 3 + len({ln}) + (5 if {ln}.startswith('t') else 0)")
    elif k == 1:
        g.emit(f"{body}{x} = {x} + len({fh}.readline()) * 7")
        g.emit(f"{body}{x} = {x} + len({fh}.readline()) * 11 + len({fh}.read())")
    elif k == 2:
        g.emit(f"{body}{ln} = {fh}.read()")
        g.emit(f"{body}{x} = {x} + len({ln}.strip()) * 5 + {ln}.find('o') + ('\\n' in {ln})")
    elif k == 3:
        g.emit(f"{body}{ln} = {fh}.read({r.randrange(5)})")
        g.emit(f"{body}{x} = {x} * 7 + len({ln}) + len({fh}.readline()) + ({ln} == 'ab')")
    else:
        g.emit(f"{body}for {ln} in {fh}:")
        g.emit(f"{body}    try:")
        g.emit(f"{body}        {x} = {x} * 3 + int({ln})")
        g.emit(f"{body}    except ValueError:")
        g.emit(f"{body}        {x} = {x} - 1")
        g.emit(f"{body}    except OverflowError:")
        g.emit(f"{body}        {x} = {x} + 1")
    if missing:
        g.emit("except FileNotFoundError:")
        g.emit(f"    {x} = {x} - 5")
    g.declare(x, "i32")


SECTIONS["files"] = files_section
