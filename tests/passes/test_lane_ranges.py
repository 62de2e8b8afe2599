"""Lane ranges (passes/lane_ranges.py, and `eq` guards in passes/spmd.py): a branch on a
condition affine in the thread index becomes a range of lanes with no branch, wherever it
stands; the generated code has plain vector loads there, and the results match `sim`."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.ir import Function, Op, verify, walk
from simt.passes.lane_ranges import split_lane_ranges
from simt.passes.spmd import lower
from simt.pipeline import prepare
from simt.runtime import registry


def _ir(kernel: Any, *args: Any) -> Function:
    from simt.pipeline import build

    specs = kernel.arg_specs(*args, backend="cpu")
    return build(kernel.pyfunc, specs, False, False)  # type: ignore[no-any-return]


def _x_loops(fn: Function) -> list[Op]:
    return [op for op in walk(fn.body) if op.opcode == "for" and op.attrs.get("lanes") == "x"]


def _same_as_sim(kernel: Any, grid: Any, block: Any, *args: Any) -> list[np.ndarray]:
    outs = []
    for backend in ("sim", "cpu"):
        ok, why = registry.probe(backend)
        if not ok:
            pytest.skip(why)
        simt.use(backend)
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        kernel[grid, block](*copies)
        simt.synchronize()
        outs.append(copies)
    for x, y in zip(*outs):
        if isinstance(x, np.ndarray):
            np.testing.assert_allclose(y, x, rtol=1e-6)
    return outs[1]


@pytest.fixture(autouse=True)
def keep_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Restore the backend other tests see after `simt.use`."""


@simt.kernel
def four_apart(a, partial):
    """The classic reduction's first phase: guards that merge a sum, inside an unrolled loop."""
    sh = simt.shared.array(64, np.float32)
    tid = thread_idx.x
    i = block_idx.x * 256 + tid
    acc = 0.0
    for k in range(4):
        if i + k * 64 < len(a):
            acc += a[i + k * 64]
    sh[tid] = acc
    simt.syncthreads()
    s = 32
    while s > 0:
        if tid < s:  # after a barrier, merging a per-lane value: one comparison
            acc = acc + sh[tid + s]
            sh[tid] = acc
        simt.syncthreads()
        s //= 2
    if tid == 0:
        partial[block_idx.x] = acc


def test_merging_guards_in_a_loop_become_an_unguarded_middle() -> None:
    a = np.random.default_rng(1).random(1000, dtype=np.float32)
    low = lower(_ir(four_apart, a, np.zeros(4, np.float32)))
    verify(low)
    loops = _x_loops(low)
    # the four guards' middle: a thread loop with no comparison and no `if` left that LLVM
    # could not fold (each comparison is the constant True)
    unguarded = [lp for lp in loops if not any(o.opcode == "cmp" for o in walk(lp.regions[0]))
                 and sum(o.opcode == "load" for o in walk(lp.regions[0])) == 4]  # fmt: skip
    assert unguarded
    consts = [o for o in walk(unguarded[0].regions[0]) if o.opcode == "const"]
    assert any(o.attrs["value"] is True for o in consts)
    # the tree's `if tid < s` with a merged result: both sides known, neither keeps a cmp
    known = [lp for lp in loops if any(o.opcode == "const" and o.attrs["value"] is False
                                       for o in walk(lp.regions[0]))]  # fmt: skip
    assert known


def test_merging_guards_give_vector_loads_and_the_sims_answer() -> None:
    a = np.random.default_rng(2).random(1000, dtype=np.float32)
    partial = np.zeros(4, np.float32)
    out = _same_as_sim(four_apart, 4, 64, a, partial)
    np.testing.assert_allclose(out[1].sum(), a.astype(np.float64).sum(), rtol=1e-5)
    opt = registry.get("cpu").render(_ir(four_apart, a, partial), stage="opt")  # type: ignore[call-arg]
    # plain vector loads of `a` in the middle (the guarded edge keeps masked ones)
    assert len(re.findall(r"= load <\d+ x float>", opt)) >= 4


@simt.kernel
def nested(a, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    x = 0.0
    if thread_idx.x > 2:
        if i + 5 < len(a):
            x = a[i + 5]
        else:
            x = -1.0
    if i < len(out):
        out[i] = x


def test_nested_ifs_and_lower_bounds() -> None:
    a = np.random.default_rng(3).random(300, dtype=np.float32)
    out = np.zeros(300, np.float32)
    low = lower(prepare(_ir(nested, a, out), "cpu"))  # as a launch compiles it
    split = [lp for lp in _x_loops(low) if any(o.opcode == "const" and o.attrs["value"] is True
                                               for o in walk(lp.regions[0]))]  # fmt: skip
    assert split
    got = _same_as_sim(nested, 3, 128, a, out)[1]
    assert got[0] == 0.0 and got[3] == a[8] and got[299] == -1.0


@simt.kernel
def halo(img, out):
    tile = simt.shared.array(34, np.float32)
    tx = thread_idx.x
    x = block_idx.x * 32 + tx
    n = len(img)
    tile[tx + 1] = img[min(x, n - 1)]
    if tx == 0:
        tile[0] = img[max(x - 1, 0)]
    if tx == 31:
        tile[33] = img[min(x + 1, n - 1)]
    simt.syncthreads()
    if x < n:
        out[x] = tile[tx] + tile[tx + 1] + tile[tx + 2]


def test_one_lane_guards_become_one_lane_ranges() -> None:
    img = np.random.default_rng(4).random(100, dtype=np.float32)
    out = np.zeros(100, np.float32)
    low = lower(_ir(halo, img, out))
    # every thread loop is branch-free: the halo loads run in loops of one lane
    for lp in _x_loops(low):
        assert not any(o.opcode == "if" for o in walk(lp.regions[0]))
    got = _same_as_sim(halo, 4, 32, img, out)[1]
    p = np.pad(img, 1, mode="edge")
    np.testing.assert_allclose(got, p[:-2] + p[1:-1] + p[2:], rtol=1e-6)


def test_loops_with_atomics_or_in_debug_mode_are_left_alone() -> None:
    @simt.kernel
    def counts(a, hist):
        i = block_idx.x * block_dim.x + thread_idx.x
        v = 0
        if i + 1 < len(a):
            v = 1
        simt.atomic.add(hist, 0, v)

    fn = lower(_ir(counts, np.zeros(10, np.float32), np.zeros(1, np.int32)))
    assert split_lane_ranges(fn) == 0
    assert any(o.opcode == "cmp" for lp in _x_loops(fn) for o in walk(lp.regions[0]))


@simt.kernel
def far_bounds(out, n, c):
    t = thread_idx.x
    x = -1
    if t - c < n:  # n + c does not fit in int32: the range's bounds are computed in int64
        x = t
    out[t] = x


def test_range_bounds_do_not_wrap() -> None:
    big = np.int32(2_000_000_000)
    out = _same_as_sim(far_bounds, 1, 64, np.zeros(64, np.int32), big, big)[0]
    np.testing.assert_array_equal(out, np.arange(64))


@simt.kernel
def far_guard(out, n, c):
    t = thread_idx.x
    if t + c < n:  # a bounds guard of its own (the SPMD pass's lane range), n - c past int32
        out[t] = t


def test_guard_range_bounds_do_not_wrap() -> None:
    big = np.int32(2_000_000_000)
    out = _same_as_sim(far_guard, 1, 64, np.full(64, -1, np.int32), big, -big)[0]
    np.testing.assert_array_equal(out, np.arange(64))
