"""passes.clamp_split: a thread loop with clamped indices split by lanes; the lanes that reach
no clamp run in a copy without the clamps, the lanes at the edges in the original."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt.backends.llvm import render_lowered
from simt.ir import Op, walk, walk_blocks
from simt.passes.clamp_split import split_clamps
from simt.pipeline import build
from simt.runtime.cpu import lower
from simt.types import FLOAT32, INT32, ArrayType

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


def _lowered(fn: object) -> object:
    # (without the front end's IndexError checks: the copy of the body a launch runs when the
    # block-level test passes, `passes.bounds`, has them folded away)
    return lower(
        build(fn, {"a": ArrayType(FLOAT32, 2), "out": ArrayType(FLOAT32, 2)}, False, False,
              raising=False)
    )


def _clamps(loop: Op) -> list[Op]:
    return [
        o for o in walk(loop.regions[0])
        if o.opcode == "bin" and o.attrs["op"] in ("min", "max") and o.result.scalar == INT32
    ]  # fmt: skip


@pytest.fixture
def cpu(monkeypatch: pytest.MonkeyPatch) -> None:

    simt.use("cpu")


def test_nested_clamps_get_an_unclamped_copy() -> None:
    fn = _lowered(both_edges)
    (block,) = [b for b in walk_blocks(fn.body) if any(o.opcode == "for" and
                o.attrs.get("lanes") == "x" for o in b.ops)]  # fmt: skip
    low, mid, high = [o for o in block.ops if o.opcode == "for" and o.attrs.get("lanes") == "x"]
    # the lanes away from the edges index with x - 1 and x + 1 alone; the edges keep the clamps;
    # every block runs the middle (a block as wide as a row has edge lanes, and must not fall
    # back to gathers for all of them): the three loops follow each other, unguarded
    assert _clamps(mid) == [] and any(o.opcode == "store" for o in walk(mid.regions[0]))
    assert len(_clamps(low)) == len(_clamps(high)) == 4
    assert low.operands[1] is mid.operands[0] and mid.operands[1] is high.operands[0]
    assert split_clamps(fn) == 0  # the copies' clamps are at the edges: nothing left to split
    text = render_lowered(fn, frozenset({"a", "out"}), block=(16, 16, 1))[0]
    assert text.count("smax.i32(") >= 4  # the edges' clamps, in LLVM


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
