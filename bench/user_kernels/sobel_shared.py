"""Sobel edge magnitude of a 2048 x 2048 image from a shared tile with a one-pixel halo.

Source: NVIDIA/cuda-samples `Samples/5_Domain_Specific/SobelFilter/SobelFilter_kernels.cu`,
kernel `SobelShared`: each block stages its pixels plus a one-pixel apron (halo) in shared
memory, waits, and computes the 3 x 3 Sobel from the tile. Translated to simt's API only, in
the form courses teach it (one pixel per thread rather than the sample's four-pixel `uchar4`
loads through a texture, 16 x 16 blocks, the apron loaded by the threads on the tile's
edges, borders clamped as the sample's texture addressing clamps), and computing the job of
the suite's W4 (`sqrt(gx^2 + gy^2)` in float32, nearest-edge borders) so that the peer kit's
tuned C Sobel does the same work.

Peers: the peer kit's `c-tuned` and `c` Sobels (W4) when the kit is present, and NumPy
(padded slices).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

import simt
from simt import block_idx, thread_idx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Job, Made, as_bench_functions, kit_peer, rng, uniform  # noqa: E402

BX = 16
BY = 16


@simt.kernel
def sobel_shared(img, out):
    tile = simt.shared.array((BY + 2, BX + 2), np.float32)
    h, w = img.shape
    tx = thread_idx.x
    ty = thread_idx.y
    x = block_idx.x * BX + tx
    y = block_idx.y * BY + ty
    # clamped coordinates of this pixel and of its neighbours
    cx = min(x, w - 1)
    cy = min(y, h - 1)
    xl = max(x - 1, 0)
    xr = min(x + 1, w - 1)
    yu = max(y - 1, 0)
    yd = min(y + 1, h - 1)
    tile[ty + 1, tx + 1] = img[cy, cx]
    if tx == 0:
        tile[ty + 1, 0] = img[cy, xl]
    if tx == BX - 1:
        tile[ty + 1, BX + 1] = img[cy, xr]
    if ty == 0:
        tile[0, tx + 1] = img[yu, cx]
    if ty == BY - 1:
        tile[BY + 1, tx + 1] = img[yd, cx]
    if tx == 0 and ty == 0:
        tile[0, 0] = img[yu, xl]
    if tx == BX - 1 and ty == 0:
        tile[0, BX + 1] = img[yu, xr]
    if tx == 0 and ty == BY - 1:
        tile[BY + 1, 0] = img[yd, xl]
    if tx == BX - 1 and ty == BY - 1:
        tile[BY + 1, BX + 1] = img[yd, xr]
    simt.syncthreads()
    if x < w and y < h:
        ul = tile[ty, tx]
        um = tile[ty, tx + 1]
        ur = tile[ty, tx + 2]
        ml = tile[ty + 1, tx]
        mr = tile[ty + 1, tx + 2]
        ll = tile[ty + 2, tx]
        lm = tile[ty + 2, tx + 1]
        lr = tile[ty + 2, tx + 2]
        gx = (ur + 2.0 * mr + lr) - (ul + 2.0 * ml + ll)
        gy = (ll + 2.0 * lm + lr) - (ul + 2.0 * um + ur)
        out[y, x] = math.sqrt(gx * gx + gy * gy)


SIZES = {"full": {"h": 2048, "w": 2048}, "test": {"h": 37, "w": 50}}


def _make(p: dict[str, int]) -> dict[str, np.ndarray]:
    return {"img": uniform(rng(10), (p["h"], p["w"]))}


def _ref(inp: dict[str, np.ndarray], p: dict[str, int]) -> np.ndarray:
    from simt.benchtool.workloads import sobel_numpy

    return sobel_numpy(inp["img"], np.float64)


def _simt(inp: dict[str, np.ndarray], p: dict[str, int]) -> Made:
    h, w = p["h"], p["w"]
    img = simt.to_device(inp["img"])
    out = simt.empty((h, w), np.float32)
    grid = ((w + BX - 1) // BX, (h + BY - 1) // BY)
    launch = sobel_shared[grid, (BX, BY)]

    def run() -> None:
        launch(img, out)
        simt.synchronize()

    return Made(run, out.numpy, [(sobel_shared, grid, (BX, BY), (img, out))])


def _peers(inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, object]:
    from simt.benchtool.workloads import sobel_numpy

    img = inp["img"]
    box = [img]

    def run() -> None:
        box[0] = sobel_numpy(img, np.float32)

    peers: dict[str, object] = {"numpy": (run, lambda: box[0])}
    for name in ("c-tuned", "c"):
        made = kit_peer(name, "sobel", inp, p)
        if made is not None:
            peers[name] = made
    return peers


JOBS = [Job("sobel_shared", SIZES, _make, _ref, _simt, _peers)]  # type: ignore[arg-type]
globals().update(as_bench_functions(JOBS))
