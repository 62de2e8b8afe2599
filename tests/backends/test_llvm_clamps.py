"""The CPU renderer's split of a thread loop with clamped indices: the lanes that reach no
clamp run in a copy without the clamps, the lanes at the edges in the original."""

from __future__ import annotations

import re

import numpy as np
import pytest

import simt
from simt.backends.llvm import render_lowered
from simt.pipeline import build
from simt.runtime.cpu import lower
from simt.types import FLOAT32, ArrayType

pytest.importorskip("llvmlite.binding", reason="llvmlite (simt[cpu]) is not installed")


def both_edges(a, out):
    x, y = simt.grid(2)
    h, w = a.shape
    if y < h and x < w:
        xm = min(max(x - 1, 0), w - 1)  # how simt.image.Image clamps a read
        xp = min(max(x + 1, 0), w - 1)
        out[y, x] = a[y, xm] + a[y, xp]


def one_sided(a, out):
    x = simt.grid(1)
    if x < out.shape[0]:
        out[x] = a[min(x, 5)] + a[max(x - 7, 0)]  # clamped on the right, on the left


def wraps(out):
    x = simt.grid(1)
    if x < out.shape[0]:
        # int32 wraps for x > 47: there max picks 0, so those lanes must keep the clamp
        out[x] = max(x + 2147483600, 0) + min(x - 2147483600, 5)


def _text(fn: object) -> str:
    lowered = lower(
        build(fn, {"a": ArrayType(FLOAT32, 2), "out": ArrayType(FLOAT32, 2)}, False, False)
    )
    return render_lowered(lowered, frozenset({"a", "out"}), block=(16, 16, 1))[0]


@pytest.fixture
def cpu(monkeypatch: pytest.MonkeyPatch) -> None:

    simt.use("cpu")


def test_nested_clamps_get_an_unclamped_copy() -> None:
    text = _text(both_edges)
    # in the copy for the lanes away from the edges, the loads index with x - 1 and x + 1 alone
    fast = re.split(r"\n(?:no)?clamp\d+:", text)[1]  # from the noclamp label to the clamp one
    assert "store float" in fast
    assert "smax.i32" not in fast and "smin.i32" not in fast
    slow = re.split(r"\nclamp\d+:", text)[1]
    assert "smax.i32" in slow and "smin.i32" in slow
    # every block runs it, over its interior lanes (a block as wide as a row has edge lanes,
    # and must not fall back to gathers for all of them)
    assert not re.search(r"br i1 [^,]+, label %noclamp", text)


@pytest.mark.parametrize("block", [(16, 16), (128, 2), (256, 1), (8, 1), (1, 4)])
def test_nested_clamps_run_right_at_the_edges(cpu: None, block: tuple[int, int]) -> None:
    k = simt.kernel(both_edges)
    a = np.random.default_rng(0).random((21, 70), dtype=np.float32)
    out = np.zeros_like(a)
    k[(-(-70 // block[0]), -(-21 // block[1])), block](a, out)
    pad = np.pad(a, ((0, 0), (1, 1)), mode="edge")
    np.testing.assert_array_equal(out, pad[:, :-2] + pad[:, 2:])


@pytest.mark.parametrize("threads", [1, 4, 16, 128])
def test_one_sided_clamps_split_the_lanes(cpu: None, threads: int) -> None:
    a = np.arange(40, dtype=np.float32) * 3
    out = np.zeros(37, np.float32)
    simt.kernel(one_sided)[-(-37 // threads), threads](a, out)
    x = np.arange(37)
    np.testing.assert_array_equal(out, a[np.minimum(x, 5)] + a[np.maximum(x - 7, 0)])


def test_clamps_of_wrapping_int32_stay_where_it_wraps(cpu: None) -> None:
    out = np.zeros(100, np.int32)
    simt.kernel(wraps)[1, 128](out)
    x = np.arange(100, dtype=np.int64)
    up = (x + 2147483600 + 2**31) % 2**32 - 2**31  # int32 wrap-around
    down = (x - 2147483600 + 2**31) % 2**32 - 2**31
    np.testing.assert_array_equal(out, np.maximum(up, 0) + np.minimum(down, 5))
