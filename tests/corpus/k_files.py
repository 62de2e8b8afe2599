"""Files written by kernel threads: each thread opens a per-thread path for writing (an
f-string of its index), writes formatted values, a number and a line inside `with open`; the
files land after the launch (simt.filewrites) and must hold each thread's text."""

import tempfile

import numpy as np

import simt

from . import Case, rng, uniform

OUT = tempfile.mkdtemp(prefix="simt-corpus-files-")


@simt.kernel
def write_parts(a, n):
    i = simt.grid(1)
    if i < n:
        f = open(f"{OUT}/p{i}.txt", "w")
        f.write(f"{i}:{a[i]:.3f};")
        f.write(i * 7)
        f.close()
        g = open(f"{OUT}/w{i}.txt", "w")  # (`with open`: tests/test_kernel_files.py)
        g.write(f"{a[i] > 0.5}\n")


def _make():
    return uniform(rng(5), (40,)), 37


def _verify(before, after):
    a, n = before
    for i in range(n):
        want = f"{i}:{a[i]:.3f};{i * 7}"
        got = open(f"{OUT}/p{i}.txt").read()
        if got != want:
            return f"p{i}.txt holds {got!r}, expected {want!r}"
        want = f"{bool(a[i] > 0.5)}\n"
        got = open(f"{OUT}/w{i}.txt").read()
        if got != want:
            return f"w{i}.txt holds {got!r}, expected {want!r}"
    if not np.array_equal(after[0], a):
        return "the input changed"
    return None


CASES = [Case("files_write_parts", write_parts, _make, 2, 32, verify=_verify)]
