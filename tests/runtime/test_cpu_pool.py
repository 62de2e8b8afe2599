"""The cpu runtime's native work loop: every block of a large launch runs exactly once, on
several threads, and what a pool thread's blocks report (errors, prints) reaches the caller."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.errors import KernelError
from simt.runtime import registry

ok, why = registry.probe("cpu")
if not ok:
    pytest.skip(f"cpu backend not present: {why}", allow_module_level=True)

from simt.runtime.cpu import CpuRuntime, _jit  # noqa: E402 - after the skip
from simt.runtime.cpu_pool import Pool  # noqa: E402


@simt.kernel
def count(hits, owner):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(owner):
        simt.atomic.add(hits, block_idx.x, 1)
        owner[i] = block_idx.x


@simt.kernel
def fails_late(a):
    i = block_idx.x * block_dim.x + thread_idx.x
    assert a[i] < 1000000, "too big"


def _cpu(monkeypatch: pytest.MonkeyPatch, threads: int, pool: Pool | None = None) -> CpuRuntime:
    simt.use("cpu")
    rt = registry.current()
    assert isinstance(rt, CpuRuntime)
    monkeypatch.setattr(rt, "threads", threads)
    monkeypatch.setattr(rt, "_pool", pool)
    return rt


@pytest.fixture
def four_threads(monkeypatch: pytest.MonkeyPatch) -> CpuRuntime:
    """The cpu runtime with four threads (more than CI's cores: some wake late)."""
    return _cpu(monkeypatch, 4)


def test_every_block_runs_once_on_several_threads(four_threads: CpuRuntime) -> None:
    blocks, per = 3001, 128  # not a multiple of the chunk size
    for _ in range(5):  # launches back to back, while pool threads from the last may be late
        hits = np.zeros(blocks, np.int32)
        owner = np.full(blocks * per, -1, np.int32)
        count[blocks, per](hits, owner)
        np.testing.assert_array_equal(hits, np.full(blocks, per))
        np.testing.assert_array_equal(owner, np.repeat(np.arange(blocks), per))
    assert four_threads._pool is not None


def test_an_error_in_the_last_blocks_is_reported(four_threads: CpuRuntime) -> None:
    a = np.zeros(1 << 19, np.float32)
    a[-3] = 2e6
    with pytest.raises(KernelError, match="too big") as e:
        fails_late[(1 << 19) // 256, 256](a)
    assert e.value.block == ((1 << 19) // 256 - 1, 0, 0)


def test_the_caller_waits_for_a_slow_pool_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """When `simt_wait` gives up spinning (made to here, every time) the caller waits on the
    pool's futures: the launch must still see every block done."""
    pool = Pool(3, _jit)
    waits: list[int] = []

    def gives_up(work: int, spins: int) -> int:
        waits.append(spins)
        return 0

    monkeypatch.setattr(pool, "_wait", gives_up)
    _cpu(monkeypatch, 3, pool)
    for _ in range(3):
        hits = np.zeros(2000, np.int32)
        owner = np.zeros(2000 * 128, np.int32)
        count[2000, 128](hits, owner)
        np.testing.assert_array_equal(hits, np.full(2000, 128))
        np.testing.assert_array_equal(owner, np.repeat(np.arange(2000), 128))
    assert len(waits) == 3
