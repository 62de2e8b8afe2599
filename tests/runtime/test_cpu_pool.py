"""The cpu runtime's native work loop: every block of a large launch runs exactly once, on
several threads, and what a pool thread's blocks report (errors, prints) reaches the caller;
launches after the first share the pool from native code; idle workers sleep."""

from __future__ import annotations

import gc
import os
import threading
import time
import weakref

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


def test_launches_after_the_first_share_the_pool_natively(
    four_threads: CpuRuntime, ordinary: list[int]
) -> None:
    """A launch large enough for the pool, once it ran, takes the native fast path with the
    pool's workers (`cpu_fast`'s table names the pool): no further ordinary launch, every
    block once, launch after launch."""
    launch = count[2003, 128]
    for _ in range(20):
        hits = np.zeros(2003, np.int32)
        owner = np.full(2003 * 128, -1, np.int32)
        launch(hits, owner)
        np.testing.assert_array_equal(hits, np.full(2003, 128))
        np.testing.assert_array_equal(owner, np.repeat(np.arange(2003), 128))
    assert ordinary == [1]
    assert four_threads._pool is not None
    assert launch._fast._table[8] == four_threads._pool.address


def test_workers_sleep_after_their_spin_window(four_threads: CpuRuntime) -> None:
    """Idle workers spin about `SPIN_SECONDS` after a launch, then sleep (an idle process
    burns no CPU); a launch then wakes them and still runs every block."""
    from simt.runtime import cpu_pool

    hits = np.zeros(3000, np.int32)
    owner = np.zeros(3000 * 64, np.int32)
    count[3000, 64](hits, owner)
    pool = four_threads._pool
    assert pool is not None
    deadline = time.monotonic() + 30
    while pool.state[cpu_pool.SLEEPERS] < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.state[cpu_pool.SLEEPERS] == 3  # all three workers asleep
    time.sleep(0.05)  # (a thread's last run is counted once it is off its core)
    busy0 = [_cpu_ns(t) for t in pool._threads]
    time.sleep(0.2)
    assert [_cpu_ns(t) for t in pool._threads] == busy0  # and burning nothing
    for _ in range(3):
        hits[:] = 0
        count[3000, 64](hits, owner)
        np.testing.assert_array_equal(hits, np.full(3000, 64))


def _cpu_ns(t: threading.Thread) -> int:
    """CPU time a thread has run (ns; Linux's schedstat), or 0 where it cannot be read."""
    try:
        with open(f"/proc/self/task/{t.native_id}/schedstat") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def test_launches_from_two_python_threads(four_threads: CpuRuntime) -> None:
    """Two Python threads launching at once: one holds the pool, the other runs its blocks
    on its own thread (`simt_post` says busy); both see every block run once."""
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                hits = np.zeros(2000, np.int32)
                owner = np.zeros(2000 * 128, np.int32)
                count[2000, 128](hits, owner)
                np.testing.assert_array_equal(hits, np.full(2000, 128))
                np.testing.assert_array_equal(owner, np.repeat(np.arange(2000), 128))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_a_collected_pool_stops_its_workers() -> None:
    pool = Pool(3, _jit, 0)
    workers = list(pool._threads)
    assert all(t.is_alive() for t in workers)
    ref = weakref.ref(pool)
    del pool
    gc.collect()
    assert ref() is None
    for t in workers:
        t.join(timeout=60)  # (a loaded machine may not run them at once)
    assert not any(t.is_alive() for t in workers)


def test_no_spinning_at_all(four_threads: CpuRuntime) -> None:
    """With the spin window cut to one look, every launch wakes sleeping workers and the
    calling thread sleeps until the last worker in its job wakes it: still every block once
    (the paths a loaded machine takes when a thread is descheduled)."""
    from simt.runtime import cpu_pool

    hits = np.zeros(1999, np.int32)
    owner = np.zeros(1999 * 128, np.int32)
    count[1999, 128](hits, owner)  # (a launch shape of its own: no fast path of another pool)
    pool = four_threads._pool
    assert pool is not None
    pool.state[cpu_pool.SPIN] = 1
    for _ in range(30):
        hits[:] = 0
        count[1999, 128](hits, owner)
        np.testing.assert_array_equal(hits, np.full(1999, 128))
        np.testing.assert_array_equal(owner, np.repeat(np.arange(1999), 128))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_launches_without_its_parents_workers(four_threads: CpuRuntime) -> None:
    """A child made by fork has none of the parent's workers: a cached launch whose fast path
    names the parent's pool runs on the child's calling thread, and a new launch makes the
    child a pool of its own; every block once in both."""
    launch = count[2001, 128]
    hits = np.zeros(2001, np.int32)
    owner = np.zeros(2001 * 128, np.int32)
    for _ in range(2):  # the second through the fast path, with the pool
        launch(hits, owner)
    pid = os.fork()
    if pid == 0:  # the child: report by exit status only
        code = 1
        try:
            good = True
            for n, k in ((2001, launch), (2002, count[2002, 128]), (2002, count[2002, 128])):
                h, o = np.zeros(n, np.int32), np.zeros(n * 128, np.int32)
                k(h, o)
                good = good and bool((h == 128).all())
                good = good and bool((o == np.repeat(np.arange(n), 128)).all())
            pool = registry.current()._pool  # type: ignore[attr-defined]
            good = good and pool is not None and pool.pid == os.getpid()  # workers of its own
            code = 0 if good else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 120
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            raise AssertionError("the forked child's launches did not finish")
        time.sleep(0.05)
    assert os.waitstatus_to_exitcode(status) == 0
