"""`s + 0.0 * x` (a known stencil's zero weight) as one fused multiply-add on cpu: the product
of a zero is exact, so the fused form rounds as the two operations do; results must be those
of `sim` bit for bit, infinities, NaN and signed zeros included. Only a sum or difference
with such a product is fused: a product of it (`m * (0.0 * x)`, fuzz seed 1012 with bigconst)
is a product."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import thread_idx
from simt.runtime import registry

W = np.array([0.0, -0.0, 2.0], np.float32)
SPECIAL = np.array([1.5, -2.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, -1e-45], np.float32)


def _mixed(x, y, out):
    i = thread_idx.x
    if i < len(out):
        s = y[i]
        for k in range(3):
            s += W[k] * x[i]  # 0.0 * x, -0.0 * x, 2.0 * x
        out[i, 0] = s
        out[i, 1] = y[i] - 0.0 * x[i]
        out[i, 2] = 0.0 * x[i] + y[i]
        out[i, 3] = x[i] * 0.0 - y[i]
        out[i, 4] = y[i] * (x[i] * 0.0)  # a product, not a sum: never fused
        out[i, 5] = (x[i] * -0.0) * y[i] + y[i]


def _run(backend: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.zeros((len(x), 6), np.float32)
    with simt.using(backend):
        simt.kernel(_mixed)[1, len(x)](x, y, out)
    return out


def test_zero_products_fuse_and_keep_ieee_results() -> None:
    if not registry.probe("cpu")[0]:
        pytest.skip("no cpu backend")
    x = np.repeat(SPECIAL, len(SPECIAL))
    y = np.tile(SPECIAL, len(SPECIAL))
    text = simt.kernel(_mixed).source("cpu", x, y, np.zeros((len(x), 6), np.float32))
    # the two zero weights of s, columns 1 and 2 (in each copy of the body the lowering makes)
    assert text.count("call float @llvm.fma.f32(") >= 4
    got, want = _run("cpu", x, y), _run("sim", x, y)
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    assert same.all(), np.argwhere(~same)[:5]
