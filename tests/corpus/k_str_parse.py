"""int() of strings built at run time: each thread parses the lines of its own file (a number
per line, with the whitespace, signs and underscores Python takes, and lines Python refuses),
and a string it made itself (`int(f"{v}")` gives `v` back). A refused line is a ValueError the
thread catches and counts; a number past int32 an OverflowError it counts apart."""

import os
import tempfile

import numpy as np

import simt

from . import Case

DIR = tempfile.mkdtemp(prefix="simt-corpus-parse-")
N = 24
WORDS = ["12", " -7", "+0", "1_000", "12a", "", " ", "-", "1__0", "_1", "1_", "2147483647",
         "-2147483648", "2147483648", "-2147483649", "\t 42\u00a0", "0099", "+-1", "\x1f1",
         "  -000", "3 4", "--2", "999999999", "7_7_7"]  # fmt: skip


def _lines(i: int) -> list[str]:
    return [WORDS[(i + k) % len(WORDS)] for k in range(i % 5 + 1)]


for _i in range(N):
    with open(os.path.join(DIR, f"n{_i}.txt"), "w", encoding="utf-8") as _f:
        _f.write("\n".join(_lines(_i)) + "\n")


@simt.kernel
def parse_numbers(out, n):
    i = simt.grid(1)
    if i < n:
        total = 0
        bad = 0
        big = 0
        with open(f"{DIR}/n{i}.txt") as f:
            for line in f:
                try:
                    total += int(line)
                except ValueError:
                    bad += 1
                except OverflowError:
                    big += 1
        out[i, 0] = total
        out[i, 1] = bad
        out[i, 2] = big
        out[i, 3] = int(f"{i * 37 - 400}") + int(f" {i}\n")


def _make():
    return np.zeros((N + 3, 4), np.int32), N


def _reference(out, n):
    ref = out.copy()
    for i in range(n):
        total = bad = big = 0
        for w in _lines(i):
            try:
                v = int(w)
            except ValueError:
                bad += 1
                continue
            if -(2**31) <= v < 2**31:
                total += v
            else:
                big += 1
        ref[i] = (np.int32(np.int64(total).astype(np.int32)), bad, big, i * 37 - 400 + i)
    return {0: ref}


CASES = [Case("str_parse", parse_numbers, _make, 1, 32, reference=_reference)]
