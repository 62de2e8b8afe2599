"""int() of strings built at run time: each thread parses the lines of its own file (a number
per line, with the whitespace, signs and underscores Python takes, and lines Python refuses),
and a string it made itself (`int(f"{v}")` gives `v` back). A refused line is a ValueError the
thread catches and counts; a number past int32 an OverflowError it counts apart. `float()` of
the same lines (decimal points, exponents, inf and nan, as Python takes them) sums the ones it
parses into a float64 column."""

import os
import tempfile

import numpy as np

import simt

from . import Case

DIR = tempfile.mkdtemp(prefix="simt-corpus-parse-")
N = 24
WORDS = ["12", " -7", "+0", "1_000", "12a", "", " ", "-", "1__0", "_1", "1_", "2147483647",
         "-2147483648", "2147483648", "-2147483649", "\t 42\u00a0", "0099", "+-1", "\x1f1",
         "  -000", "3 4", "--2", "999999999", "7_7_7", "2.5", "-.75e1", "1_0.2_5", "1e", "Inf",
         "6.02214076e23", "1e23", ".", "5.", "-nan"]  # fmt: skip


def _lines(i: int) -> list[str]:
    return [WORDS[(i + k) % len(WORDS)] for k in range(i % 5 + 1)]


for _i in range(N):
    with open(os.path.join(DIR, f"n{_i}.txt"), "w", encoding="utf-8") as _f:
        _f.write("\n".join(_lines(_i)) + "\n")


@simt.kernel(fp64=True)
def parse_numbers(out, fl, n):
    i = simt.grid(1)
    if i < n:
        total = 0
        bad = 0
        big = 0
        fsum = 0.0
        fbad = 0
        with open(f"{DIR}/n{i}.txt") as f:
            for line in f:
                try:
                    total += int(line)
                except ValueError:
                    bad += 1
                except OverflowError:
                    big += 1
                try:
                    x = float(line)
                    if x == x and abs(x) < 1e300:  # not nan, not inf
                        fsum += x
                    else:
                        fbad += 100
                except ValueError:
                    fbad += 1
        fl[i, 0] = fsum
        fl[i, 1] = fbad
        out[i, 0] = total
        out[i, 1] = bad
        out[i, 2] = big
        out[i, 3] = int(f"{i * 37 - 400}") + int(f" {i}\n")


def _make():
    return np.zeros((N + 3, 4), np.int32), np.zeros((N + 3, 2), np.float64), N


def _reference(out, fl, n):
    ref = out.copy()
    fref = fl.copy()
    for i in range(n):
        total = bad = big = 0
        fsum, fbad = 0.0, 0
        for w in _lines(i):
            try:
                x = float(w)
                if x == x and abs(x) < 1e300:
                    fsum += x
                else:
                    fbad += 100
            except ValueError:
                fbad += 1
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
        fref[i] = (fsum, fbad)
    return {0: ref, 1: fref}


CASES = [Case("str_parse", parse_numbers, _make, 1, 32, reference=_reference,
              strided="a row of results per thread")]
