"""A per-lane value carried around a barrier loop (Harris's `mySum`) or merged after a barrier
is stored into its loop's per-lane array where it is computed, not copied there by a thread
loop of its own; the results match `sim`."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.ir import Function, Op, walk
from simt.passes.spmd import lower
from simt.runtime import registry


@simt.kernel
def carried_sum(a, out):
    sh = simt.shared.array(128, np.float32)
    tid = thread_idx.x
    i = block_idx.x * block_dim.x * 2 + tid
    my_sum = 0.0
    if i < len(a):
        my_sum = a[i]
    if i + block_dim.x < len(a):
        my_sum += a[i + block_dim.x]
    sh[tid] = my_sum
    simt.syncthreads()
    s = block_dim.x // 2
    while s > 0:
        if tid < s:
            my_sum = my_sum + sh[tid + s]
            sh[tid] = my_sum
        simt.syncthreads()
        s >>= 1
    if tid == 0:
        out[block_idx.x] = my_sum


def _copy_loops(fn: Function) -> list[Op]:
    """Thread loops that only move per-lane values from one per-lane array to another."""
    out = []
    for op in walk(fn.body):
        if op.opcode == "for" and op.attrs.get("lanes") == "x":
            mem = [o for o in walk(op.regions[0]) if o.opcode in ("load", "store")]
            if mem and all(o.attrs.get("spill") for o in mem) and len(mem) == 2:
                out.append(op)
    return out


def test_no_thread_loop_copies_the_carried_sum() -> None:
    from simt.pipeline import build

    a = np.ones(1000, np.float32)
    specs = carried_sum.arg_specs(a, np.zeros(4, np.float32), backend="cpu")
    low = lower(build(carried_sum.pyfunc, specs, False, False))
    assert _copy_loops(low) == []


def test_carried_sum_matches_sim(monkeypatch: pytest.MonkeyPatch) -> None:
    a = np.random.default_rng(5).random(1000, dtype=np.float32)
    outs = []
    for backend in ("sim", "cpu"):
        if not registry.probe(backend)[0]:
            pytest.skip(backend)
        simt.use(backend)
        out = np.zeros(4, np.float32)
        carried_sum[4, 128](a, out)
        simt.synchronize()
        outs.append(out)
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)
    np.testing.assert_allclose(outs[1].sum(), a.astype(np.float64).sum(), rtol=1e-5)
