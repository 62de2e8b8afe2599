"""The CPU renderer's unclamped copy of a thread loop, for indices clamped at both edges."""

from __future__ import annotations

import re

import numpy as np
import pytest

import simt
from simt.backends.llvm import lower, render_lowered
from simt.pipeline import build
from simt.types import FLOAT32, ArrayType

pytest.importorskip("llvmlite.binding", reason="llvmlite (simt[cpu]) is not installed")


def both_edges(a, out):
    x, y = simt.grid(2)
    h, w = a.shape
    if y < h and x < w:
        xm = min(max(x - 1, 0), w - 1)  # how simt.image.Image clamps a read
        xp = min(max(x + 1, 0), w - 1)
        out[y, x] = a[y, xm] + a[y, xp]


def _text(fn: object) -> str:
    lowered = lower(
        build(fn, {"a": ArrayType(FLOAT32, 2), "out": ArrayType(FLOAT32, 2)}, False, False)
    )
    return render_lowered(lowered, frozenset({"a", "out"}), block=(16, 16, 1))[0]


def test_nested_clamps_get_an_unclamped_copy() -> None:
    text = _text(both_edges)
    assert "noclamp" in text
    # in the copy for blocks away from the edges, the loads index with x - 1 and x + 1 alone
    fast = re.split(r"\n(?:no)?clamp\d+:", text)[1]  # from the noclamp label to the clamp one
    assert "store float" in fast
    assert "smax" not in fast and "smin" not in fast


def test_nested_clamps_run_right_at_the_edges(monkeypatch: pytest.MonkeyPatch) -> None:
    from simt.runtime import registry

    monkeypatch.setattr(registry, "_current", registry._current)
    simt.use("cpu")
    k = simt.kernel(both_edges)
    a = np.random.default_rng(0).random((21, 70), dtype=np.float32)
    out = np.zeros_like(a)
    k[(5, 2), (16, 16)](a, out)
    pad = np.pad(a, ((0, 0), (1, 1)), mode="edge")
    np.testing.assert_array_equal(out, pad[:, :-2] + pad[:, 2:])
