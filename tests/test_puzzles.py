"""simt.puzzles: every puzzle has a solution that `check` accepts, and `check` explains what
is wrong with a wrong one (the first wrong element, its thread's path, or the bounds error)."""

from __future__ import annotations

import io

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, puzzles, thread_idx


@simt.kernel
def map_add(a, out):
    i = thread_idx.x
    out[i] = a[i] + 10


@simt.kernel
def zip_add(a, b, out):
    i = thread_idx.x
    out[i] = a[i] + b[i]


@simt.kernel
def guarded_add(a, out):
    i = thread_idx.x
    if i < len(a):
        out[i] = a[i] + 10


@simt.kernel
def map_2d(a, out):
    i, j = thread_idx.y, thread_idx.x
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j] + 10


@simt.kernel
def broadcast_add(col, row, out):
    i, j = thread_idx.y, thread_idx.x
    if i < len(col) and j < len(row):
        out[i, j] = col[i] + row[j]


@simt.kernel
def blocks_add(a, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(a):
        out[i] = a[i] + 10


@simt.kernel
def shared_add(a, out):
    cache = simt.shared.array(4, simt.float32)
    i = block_idx.x * block_dim.x + thread_idx.x
    cache[thread_idx.x] = a[i]
    simt.syncthreads()
    out[i] = cache[thread_idx.x] + 10


@simt.kernel
def pool3(a, out):
    i = thread_idx.x
    total = a[i]
    if i >= 1:
        total += a[i - 1]
    if i >= 2:
        total += a[i - 2]
    out[i] = total


@simt.kernel
def dot(a, b, out):
    cache = simt.shared.array(8, simt.float32)
    t = thread_idx.x
    cache[t] = a[t] * b[t]
    simt.syncthreads()
    if t == 0:
        total = simt.float32(0.0)
        for k in range(8):
            total += cache[k]
        out[0] = total


@simt.kernel
def conv1d(a, w, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(a):
        total = simt.float32(0.0)
        for k in range(len(w)):
            if i + k < len(a):
                total += a[i + k] * w[k]
        out[i] = total


@simt.kernel
def scan(a, out):
    cache = simt.shared.array(8, simt.float32)
    t = thread_idx.x
    cache[t] = a[t]
    for d in (1, 2, 4):
        simt.syncthreads()
        v = cache[t]
        if t >= d:
            v += cache[t - d]
        simt.syncthreads()
        cache[t] = v
    out[t] = cache[t]


@simt.kernel
def matmul(a, b, out):
    sa = simt.shared.array((2, 2), simt.float32)
    sb = simt.shared.array((2, 2), simt.float32)
    tx, ty = thread_idx.x, thread_idx.y
    col = block_idx.x * 2 + tx
    row = block_idx.y * 2 + ty
    total = simt.float32(0.0)
    for t in range(2):
        sa[ty, tx] = a[row, t * 2 + tx]
        sb[ty, tx] = b[t * 2 + ty, col]
        simt.syncthreads()
        for k in range(2):
            total += sa[ty, k] * sb[k, tx]
        simt.syncthreads()
    out[row, col] = total


SOLUTIONS = [
    map_add, zip_add, guarded_add, map_2d, broadcast_add, blocks_add, shared_add, pool3, dot,
    conv1d, scan, matmul,
]  # fmt: skip


@pytest.mark.parametrize("number", range(1, 13))
def test_each_puzzle_has_a_solution(number: int) -> None:
    out = io.StringIO()
    assert puzzles.check(number, SOLUTIONS[number - 1], file=out), out.getvalue()
    assert out.getvalue() == f"puzzle {number} ({puzzles.puzzle(number).name}): solved\n"


def test_show_says_what_to_write_and_the_launch() -> None:
    text = puzzles.describe("guard")
    assert text.startswith("puzzle 3 (guard): Add 10")
    assert "def guarded_add(a, out):" in text
    assert "kernel[1, 8](a, out) with a: float32[6], out: float32[6]" in text


@simt.kernel
def map_forgets_ten(a, out):
    i = thread_idx.x
    if i == 5:
        out[i] = a[i]
    else:
        out[i] = a[i] + 10


def test_a_wrong_answer_names_the_element_and_explains_its_thread() -> None:
    out = io.StringIO()
    assert not puzzles.check(1, map_forgets_ten, file=out)
    text = out.getvalue()
    args = puzzles.puzzle(1).args()
    assert f"the first is out[5] = {args['a'][5]:g}, expected {args['a'][5] + 10:g}" in text
    assert "1 of 8 elements of `out` are wrong" in text
    assert "block 0, thread 5" in text  # explain's heading for the owner thread
    assert "out[i] = a[i]" in text  # the line that thread ran


def test_a_missing_guard_is_the_bounds_error() -> None:
    out = io.StringIO()
    assert not puzzles.check(3, map_add, file=out)
    text = out.getvalue()
    assert "puzzle 3 (guard): the launch failed" in text
    assert "raised IndexError" in text and "is out of bounds of `a`" in text


def test_the_wrong_2d_owner_is_named_as_x_column_y_row() -> None:
    @simt.kernel
    def swapped(a, out):
        i, j = thread_idx.x, thread_idx.y  # x picks the row: the transpose
        if i < a.shape[0] and j < a.shape[1]:
            out[i, j] = a[j, i] + 10

    out = io.StringIO()
    assert not puzzles.check(4, swapped, file=out)
    text = out.getvalue()
    args = puzzles.puzzle(4).args()
    wrong = np.argwhere(args["a"].T != args["a"])[0]
    assert f"out[{wrong[0]}, {wrong[1]}]" in text
    assert f"thread ({wrong[1]}, {wrong[0]}" in text


def test_an_unknown_puzzle_lists_them() -> None:
    with pytest.raises(simt.LaunchError, match="there is no puzzle 13; the puzzles are 1 'map'"):
        puzzles.puzzle(13)
