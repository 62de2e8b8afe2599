"""The first-failure report of a kernel whose threads meet at barriers (issue 23): every
backend names the failing thread with the smallest global id (block linear id x threads per
block + the thread's linear id in its block), whatever order the threads and blocks ran in
(docs/semantics.md, "Memory"). `sim` named the first failure in its execution order, and
`cpu` stopped taking blocks after any failure, so a pool thread's lower blocks went unrun."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt
from simt.errors import KernelError
from simt.runtime import registry


@simt.kernel
def late_low_thread(a, out):
    sh = simt.shared.array(64, np.float32)
    t = simt.grid(1)
    tid = simt.thread_idx.x
    j = t
    if t == 200:
        j = t + 1000  # thread 200 fails first in any lockstep order
    v = a[j]
    sh[tid] = v
    simt.syncthreads()
    m = t
    if t == 70:
        m = t + 1000  # thread 70 fails after the barrier: the one to report
    out[m] = sh[63 - tid]


@simt.kernel
def all_but_block_0(a, out):
    sh = simt.shared.array(64, np.float32)
    tid = simt.thread_idx.x
    b = simt.block_idx.x
    sh[tid] = a[tid]
    simt.syncthreads()
    m = tid
    if b > 0 and tid == 3:
        m = len(out) + b  # every block but block 0 fails at its thread 3
    out[m] = sh[63 - tid]


def _present() -> list[str]:
    return [b for b in ("sim", "cpu", "webgpu") if registry.probe(b)[0]]


@pytest.mark.parametrize("backend", _present())
def test_the_smallest_failing_thread_is_reported(backend: str) -> None:
    a, out = np.ones(256, np.float32), np.full(256, -1.0, np.float32)
    simt.use(backend)
    try:
        with pytest.raises(KernelError) as e:
            late_low_thread[4, 64](a, out)
            simt.synchronize()
    finally:
        simt.use("sim")
    assert (e.value.block, e.value.thread) == ((1, 0, 0), (6, 0, 0)), str(e.value)
    assert "write of `out` (index 1070, length 256)" in str(e.value)
    if backend != "sim":
        return  # how much of the rest of the launch ran is unspecified (cpu stops early)
    # sim runs every thread on, as if its failing access did nothing (as the compiled checks
    # do): thread 200 (block 3, thread 8) read 0, which thread 55 of block 3 stored; thread
    # 70 wrote nothing
    want = np.ones(256, np.float32)
    want[192 + 55] = 0.0
    want[70] = -1.0
    np.testing.assert_array_equal(out, want)


def test_a_pool_thread_runs_its_lower_blocks_after_another_failed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two pool threads, the one with the upper half of the blocks done first (as when the
    other was descheduled): the lower half still runs its blocks below the failure."""
    if not registry.probe("cpu")[0]:
        pytest.skip("cpu backend not present")
    from simt.runtime.cpu import CpuRuntime

    def upper_half_first(self: CpuRuntime, variant: Any, args: np.ndarray, ctx: np.ndarray,
                         nblocks: int, total: int) -> None:  # fmt: skip
        a, c = args.ctypes.data, ctx.ctypes.data
        variant.entry(a, c, nblocks // 2, nblocks)
        variant.entry(a, c, 0, nblocks // 2)

    monkeypatch.setattr(CpuRuntime, "_run", upper_half_first)
    simt.use("cpu")
    try:
        with pytest.raises(KernelError) as e:
            all_but_block_0[8, 64](np.ones(64, np.float32), np.zeros(8 * 64, np.float32))
    finally:
        simt.use("sim")
    assert (e.value.block, e.value.thread) == ((1, 0, 0), (3, 0, 0)), str(e.value)
