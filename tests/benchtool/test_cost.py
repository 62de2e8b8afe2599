"""The cost model on small kernels: exact bytes, flops, trip counts, coalescing."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, grid_dim, thread_idx
from simt.benchtool.cost import estimate
from simt.benchtool.profile import Profile
from simt.benchtool.workloads import colsum


@simt.kernel  # its own kernel: the advisor warns once per kernel, so tests must not share it
def vadd(a, b, c):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(c):
        c[i] = a[i] + b[i]


@simt.kernel
def stride_sum(a, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    acc = 0.0
    while i < len(a):
        acc += a[i]
        i += block_dim.x * grid_dim.x
    out[block_idx.x * block_dim.x + thread_idx.x] = acc


@simt.kernel
def transpose_naive(a, out):
    x = block_idx.x * block_dim.x + thread_idx.x
    y = block_idx.y * block_dim.y + thread_idx.y
    h, w = a.shape
    if x < w and y < h:
        out[x, y] = a[y, x]


def f32(*shape: int) -> np.ndarray:
    return np.ones(shape, np.float32)


def test_vector_add_bytes_and_flops(prof: Profile) -> None:
    n = 1000
    c = estimate(vadd, 4, 256, (f32(n), f32(n), f32(n)), prof=prof)
    assert c.bytes_read == 2 * 4 * n  # the 24 threads past the end load nothing
    assert c.bytes_written == 4 * n
    assert c.flops == n
    assert c.dram_bytes == 3 * 4 * n
    assert c.threads == 1024
    assert [a.lines_per_group for a in c.accesses] == [1.0, 1.0, 1.0]  # coalesced
    assert c.far_accesses == 0


def test_prediction_is_a_roofline(prof: Profile) -> None:
    n = 1 << 20
    c = estimate(vadd, n // 256, 256, (f32(n), f32(n), f32(n)), prof=prof)
    assert c.bound == "memory"
    assert c.terms["memory"] == pytest.approx(3 * 4 * n / prof.copy_bandwidth)
    assert c.time == pytest.approx(c.terms["memory"] + prof.launch_overhead)
    tiny = estimate(vadd, 1, 32, (f32(32), f32(32), f32(32)), prof=prof)
    assert tiny.bound == "launch"


def test_loop_trip_counts_from_shapes(prof: Profile) -> None:
    # 8 rows: every iteration evaluated; 1000 rows: 16 sampled iterations, scaled
    for rows in (8, 1000):
        c = estimate(colsum, 1, 64, (f32(rows, 64), f32(64)), prof=prof)
        assert c.bytes_read == pytest.approx(rows * 64 * 4)
        assert c.bytes_written == 64 * 4
        assert c.flops == pytest.approx(rows * 64)


def test_column_walk_is_far_and_row_walk_is_not(prof: Profile) -> None:
    c = estimate(colsum, 4, 256, (f32(64, 1024), f32(1024)), prof=prof)
    (load,) = [a for a in c.accesses if a.kind == "load"]
    assert load.far == pytest.approx(load.groups)  # every step jumps a 4 KiB row
    assert c.far_accesses == pytest.approx(64 * 1024 / 8)


def test_grid_stride_while_loop(prof: Profile) -> None:
    n = 10_000
    c = estimate(stride_sum, 4, 64, (f32(n), f32(256)), prof=prof)
    assert c.bytes_read == n * 4
    assert c.bytes_written == 256 * 4


def test_uncoalesced_store_touches_a_line_per_thread(prof: Profile) -> None:
    a = f32(64, 64)
    c = estimate(transpose_naive, (4, 4), (16, 16), (a, f32(64, 64)), prof=prof)
    load, store = sorted(c.accesses, key=lambda x: x.kind)
    assert load.lines_per_group == 1.0 and load.scattered_fraction == 0.0
    assert store.lines_per_group == 8.0 and store.scattered_fraction == 1.0
    assert store.line > 0


def test_sampled_blocks_scale_to_the_launch(prof: Profile) -> None:
    n = 256 * 1000  # 1000 blocks, a few sampled
    c = estimate(vadd, 1000, 256, (f32(n), f32(n), f32(n)), prof=prof)
    assert c.bytes_read == pytest.approx(2 * 4 * n)
    assert c.flops == pytest.approx(n)


def test_kernel_cost_method_uses_the_current_backend() -> None:
    simt.use("sim")
    n = 512
    c = vadd.cost(2, 256, f32(n), f32(n), f32(n))
    assert c.backend == "sim" and c.bytes_read == 2 * 4 * n and c.time > 0
    assert "predicted" in str(c)
