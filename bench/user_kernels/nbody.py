"""All-pairs n-body accelerations with positions staged through shared-memory tiles.

Source: Lars Nyland, Mark Harris, Jan Prins, "Fast N-Body Simulation with CUDA", GPU Gems 3,
chapter 31 (NVIDIA, 2007), listings 31-1 to 31-3 (`bodyBodyInteraction`, `tile_calculation`,
`calculate_forces`; also the `nbody` sample of NVIDIA/cuda-samples): each block of p = 256
threads loads one body per thread into shared memory, waits, accumulates the accelerations
from the whole tile, waits again, for every tile; `invDistCube = 1 / sqrtf(distSqr^3)` with
a softening `EPS2`. Translated to simt's API only: the float4 positions (x, y, z, mass) are an
(N, 4) array and the shared tile a (p, 4) array.

Peer: NumPy, all pairs vectorised in chunks of 256 bodies (float32).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Job, Made, as_bench_functions, rng  # noqa: E402

P = 256
EPS2 = 0.01


def body_body_interaction(bi, bj, ax, ay, az):  # type: ignore[no-untyped-def]
    # r_ij  [3 FLOPS]
    rx = bj[0] - bi[0]
    ry = bj[1] - bi[1]
    rz = bj[2] - bi[2]
    # distSqr = dot(r_ij, r_ij) + EPS^2  [6 FLOPS]
    dist_sqr = rx * rx + ry * ry + rz * rz + EPS2
    # invDistCube = 1/distSqr^(3/2)  [4 FLOPS (2 mul, 1 sqrt, 1 inv)]
    dist_sixth = dist_sqr * dist_sqr * dist_sqr
    inv_dist_cube = 1.0 / math.sqrt(dist_sixth)
    # s = m_j * invDistCube [1 FLOP]
    s = bj[3] * inv_dist_cube
    # a_i = a_i + s * r_ij [6 FLOPS]
    return ax + rx * s, ay + ry * s, az + rz * s


@simt.kernel
def calculate_forces(global_x, global_a):
    sh_position = simt.shared.array((P, 4), np.float32)
    gtid = block_idx.x * block_dim.x + thread_idx.x
    my_x = global_x[gtid, 0]
    my_y = global_x[gtid, 1]
    my_z = global_x[gtid, 2]
    my_w = global_x[gtid, 3]
    ax = 0.0
    ay = 0.0
    az = 0.0
    n = global_x.shape[0]
    tile = 0
    for _i in range(0, n, P):
        idx = tile * block_dim.x + thread_idx.x
        for c in range(4):
            sh_position[thread_idx.x, c] = global_x[idx, c]
        simt.syncthreads()
        # tile_calculation
        for j in range(block_dim.x):
            ax, ay, az = body_body_interaction(
                (my_x, my_y, my_z, my_w),
                (sh_position[j, 0], sh_position[j, 1], sh_position[j, 2], sh_position[j, 3]),
                ax, ay, az,
            )  # fmt: skip
        simt.syncthreads()
        tile += 1
    global_a[gtid, 0] = ax
    global_a[gtid, 1] = ay
    global_a[gtid, 2] = az
    global_a[gtid, 3] = 0.0


SIZES = {"full": {"n": 4096}, "test": {"n": 512}}


def _make(p: dict[str, int]) -> dict[str, np.ndarray]:
    g = rng(8)
    x = g.standard_normal((p["n"], 4)).astype(np.float32)
    x[:, 3] = g.random(p["n"]).astype(np.float32) + np.float32(0.5)  # masses
    return {"x": x}


def _forces(x: np.ndarray, dtype: type, chunk: int = 256) -> np.ndarray:
    x = x.astype(dtype, copy=False)
    out = np.zeros_like(x)
    pos, m = x[:, :3], x[:, 3]
    for lo in range(0, len(x), chunk):
        r = pos[None, :, :] - pos[lo : lo + chunk, None, :]
        d2 = (r * r).sum(-1) + dtype(EPS2)
        s = m[None, :] / np.sqrt(d2 * d2 * d2)
        out[lo : lo + chunk, :3] = (r * s[:, :, None]).sum(1)
    return out


def _ref(inp: dict[str, np.ndarray], p: dict[str, int]) -> np.ndarray:
    return _forces(inp["x"], np.float64)


def _simt(inp: dict[str, np.ndarray], p: dict[str, int]) -> Made:
    n = p["n"]
    x = simt.to_device(inp["x"])
    a = simt.empty((n, 4), np.float32)
    launch = calculate_forces[n // P, P]

    def run() -> None:
        launch(x, a)
        simt.synchronize()

    return Made(run, a.numpy, [(calculate_forces, n // P, P, (x, a))])


def _peers(inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, object]:
    x = inp["x"]
    box = [x]

    def run() -> None:
        box[0] = _forces(x, np.float32)

    return {"numpy": (run, lambda: box[0])}


JOBS = [Job("nbody", SIZES, _make, _ref, _simt, _peers)]  # type: ignore[arg-type]
globals().update(as_bench_functions(JOBS))
