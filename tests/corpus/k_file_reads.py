"""Files read by kernel threads (#27 item 3): each thread opens its own file, a path made at
run time (an f-string of its index), with `with open(...)`; reads the first line with
`readline()`, the rest with `for n, line in enumerate(f, 2)` (and `read()` in a second
open), and compares, strips and measures the lines. Some threads' files do not exist: their
FileNotFoundError is caught. `readlines()` gives the rest as a list of strings (walked, indexed,
printed). The host stages the files matching `part*.txt` before the
launch (simt.filereads)."""

import os
import tempfile

import numpy as np

import simt

from . import Case

DIR = tempfile.mkdtemp(prefix="simt-corpus-reads-")
N = 40


def _text(i: int) -> str:
    lines = [f"# part {i}"] + [" " * (k % 3) + "x" * ((i * 7 + k) % 11) for k in range(i % 6)]
    end = "" if i % 4 == 1 else "\n"  # some files end without a newline
    return "\n".join(lines) + end


for _i in range(N):
    if _i % 5 != 3:  # every fifth file is missing
        with open(os.path.join(DIR, f"part{_i}.txt"), "w", encoding="utf-8") as _f:
            _f.write(_text(_i))


@simt.kernel
def read_parts(out, n):
    i = simt.grid(1)
    if i < n:
        try:
            with open(f"{DIR}/part{i}.txt") as f:
                head = f.readline()
                lines = 1
                chars = 0
                for n, line in enumerate(f, 2):  # numbered from the second line
                    lines = n
                    chars += len(line.strip())
                out[i, 0] = lines
                out[i, 1] = chars
                out[i, 2] = 1 if head == f"# part {i}\n" else 0
            g = open(f"{DIR}/part{i}.txt", "r")  # noqa: UP015 - the mode written out
            out[i, 3] = len(g.read())
            out[i, 4] = len(g.read())  # at the end: the empty string
            g.close()
        except FileNotFoundError:
            out[i, 0] = -1


@simt.kernel
def read_absent(out, n):
    """A path no file matches at all (the host stages no file): every thread's open raises
    FileNotFoundError (it was an IndexError of simt's heap array: the lookup read an entry
    past an empty block)."""
    i = simt.grid(1)
    if i < n:
        out[i, 0] = 1
        try:
            with open(f"{DIR}/absent{i}.txt") as f:
                out[i, 1] = len(f.read())
        except FileNotFoundError:
            out[i, 0] = -1


def _reference_absent(out, n):
    ref = out.copy()
    ref[:n, 0] = -1
    return {0: ref}


S = 12  # seek{0..11}.txt: some missing, one a directory

for _i in range(S):
    if _i % 4 == 3:
        continue  # missing: FileNotFoundError
    if _i == 10:
        os.makedirs(os.path.join(DIR, f"seek{_i}.txt"), exist_ok=True)  # IsADirectoryError
        continue
    with open(os.path.join(DIR, f"seek{_i}.txt"), "w", encoding="utf-8") as _f:
        _f.write(_text(_i + 2))


@simt.kernel
def seek_tell(out, n):
    """tell/seek (#27 item 3): come back to a line with seek(tell()), skip to the end with
    seek(0, 2), rewind with seek(0) and count the lines again; then open the file 30 times
    in a loop by its run-time path (each open gives the path's characters back: 8 opens ran
    out of the default heap before). A directory the path matches raises
    IsADirectoryError."""
    i = simt.grid(1)
    if i < n:
        try:
            with open(f"{DIR}/seek{i}.txt") as f:
                f.readline()
                mark = f.tell()
                second = f.readline()
                out[i, 0] = mark
                out[i, 1] = 1 if f.seek(mark) == mark and f.readline() == second else 0
                out[i, 2] = f.seek(0, 2)
                out[i, 3] = len(f.read())
                f.seek(0)
                lines = 0
                for _line in f:
                    lines += 1
                out[i, 4] = lines
            total = 0
            for _r in range(30):
                with open(f"{DIR}/seek{i}.txt") as g:
                    g.seek(mark)
                    total += len(g.readline())
            out[i, 5] = total
        except FileNotFoundError:
            out[i, 0] = -1
        except IsADirectoryError:
            out[i, 0] = -2


def _reference_seek(out, n):
    ref = out.copy()
    for i in range(n):
        if i % 4 == 3:
            ref[i, 0] = -1
            continue
        if i == 10:
            ref[i, 0] = -2
            continue
        lines = _text(i + 2).splitlines(keepends=True)
        mark = len(lines[0])
        second = lines[1] if len(lines) > 1 else ""
        ref[i, :6] = (mark, 1, sum(map(len, lines)), 0, len(lines), 30 * len(second))
    return {0: ref}


def _make():
    return np.zeros((N + 2, 5), np.int32), N


def _reference(out, n):
    ref = out.copy()
    for i in range(n):
        if i % 5 == 3:
            ref[i, 0] = -1
            continue
        text = _text(i)
        lines = text.splitlines(keepends=True)
        ref[i] = (len(lines), sum(len(s.strip()) for s in lines[1:]),
                  int(lines[0] == f"# part {i}\n"), len(text), 0)  # fmt: skip
    return {0: ref}


@simt.kernel
def read_lines(out, n):
    i = simt.grid(1)
    if i < n:
        try:
            with open(f"{DIR}/part{i}.txt") as f:
                f.readline()
                lines = f.readlines()
                total = 0
                for line in lines:
                    total = total * 3 + len(line)
                out[i, 0] = len(lines)
                out[i, 1] = total % 100000
                out[i, 2] = len(lines[-1]) if lines else -5
                if i % 8 == 2:
                    print(i, lines)
        except FileNotFoundError:
            out[i, 0] = -1


def _lines_of(i):
    return _text(i).splitlines(keepends=True)[1:]


def _reference_lines(out, n):
    ref = out.copy()
    for i in range(n):
        if i % 5 == 3:
            ref[i, 0] = -1
            continue
        lines, total = _lines_of(i), 0
        for line in lines:
            total = total * 3 + len(line)
        ref[i, :3] = (len(lines), total % 100000, len(lines[-1]) if lines else -5)
    return {0: ref}


CASES = [Case("file_reads", read_parts, _make, 2, 32, reference=_reference,
              strided="a row of results per thread"),
         Case("file_readlines", read_lines, _make, 2, 32, reference=_reference_lines,
              stdout=lambda out, n: "".join(f"{i} {_lines_of(i)}\n" for i in range(n)
                                            if i % 8 == 2 and i % 5 != 3),
              strided="a row of results per thread"),
         Case("file_reads_none_staged", read_absent, _make, 2, 32,
              reference=_reference_absent, strided="a row of results per thread"),
         Case("file_seek_tell", seek_tell, lambda: (np.zeros((S + 2, 6), np.int32), S), 1, 16,
              reference=_reference_seek, strided="a row of results per thread")]  # fmt: skip
