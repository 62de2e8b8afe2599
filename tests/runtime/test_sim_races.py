"""The simulator's data-race watch on shared memory: a missing `syncthreads()` is a
KernelError naming the line and both threads; correct kernels, same-value writes and atomics
are not reported."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.errors import KernelError


@pytest.fixture(autouse=True)
def on_sim(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    simt.use("sim")
    yield


def _reduce(synced: bool):  # type: ignore[no-untyped-def]
    @simt.kernel
    def block_sum(a, out):
        sh = simt.shared.array(64, np.float32)
        t = thread_idx.x
        sh[t] = a[block_idx.x * block_dim.x + t]
        if synced:
            simt.syncthreads()
        s = 32
        while s > 0:
            if t < s:
                sh[t] += sh[t + s]
            if synced:
                simt.syncthreads()
            s //= 2
        if t == 0:
            out[block_idx.x] = sh[0]

    return block_sum


def test_a_tree_reduction_with_its_barriers_is_not_reported() -> None:
    a = np.arange(128, dtype=np.float32)
    out = np.zeros(2, np.float32)
    _reduce(True)[2, 64](a, out)
    np.testing.assert_allclose(out, [a[:64].sum(), a[64:].sum()])


def test_a_missing_barrier_is_a_race_naming_the_line_and_both_threads() -> None:
    a = np.arange(128, dtype=np.float32)
    with pytest.raises(KernelError) as e:
        _reduce(False)[2, 64](a, np.zeros(2, np.float32))
    err = e.value
    assert "data race on shared sh[32]" in str(err)
    assert "after thread (32, 0, 0) wrote it" in str(err)
    assert err.block == (0, 0, 0) and err.thread == (0, 0, 0)
    assert err.source_line is not None and "sh[t] += sh[t + s]" in err.source_line
    assert err.filename is not None and err.filename.endswith("test_sim_races.py")


@simt.kernel
def shift_left(out):
    sh = simt.shared.array(32, np.int32)
    t = thread_idx.x
    sh[t] = t
    simt.syncthreads()
    v = sh[(t + 1) % 32]
    sh[t] = v  # thread t - 1 read this element above: write-after-read with no barrier
    out[t] = v


def test_a_write_after_another_threads_read_is_a_race() -> None:
    with pytest.raises(
        KernelError,
        match=r"shared sh\[0\]: this thread writes it after thread \(31, 0, 0\) read it",
    ):
        shift_left[1, 32](np.zeros(32, np.int32))


@simt.kernel
def flags(out, same):
    sh = simt.shared.array(1, np.int32)
    if thread_idx.x == 0:
        sh[0] = 0
    simt.syncthreads()
    sh[0] = 1 if same else thread_idx.x  # every thread writes the one element
    simt.syncthreads()
    out[thread_idx.x] = sh[0]


def test_threads_writing_the_same_value_do_not_race() -> None:
    out = np.zeros(8, np.int32)
    flags[1, 8](out, True)
    np.testing.assert_array_equal(out, 1)


def test_threads_writing_different_values_race() -> None:
    with pytest.raises(KernelError, match="writes a value other than the one thread"):
        flags[1, 8](np.zeros(8, np.int32), False)


@simt.kernel
def shared_histogram(a, out):
    sh = simt.shared.array(4, np.int32)
    t = thread_idx.x
    if t < 4:
        sh[t] = 0
    simt.syncthreads()
    simt.atomic.add(sh, a[t] % 4, 1)
    simt.syncthreads()
    if t < 4:
        out[t] = sh[t]


def test_atomics_are_not_races() -> None:
    a = np.arange(32, dtype=np.int32)
    out = np.zeros(4, np.int32)
    shared_histogram[1, 32](a, out)
    np.testing.assert_array_equal(out, [8, 8, 8, 8])


@simt.kernel
def per_block_barrier(out):
    sh = simt.shared.array(2, np.int32)
    t = thread_idx.x
    sh[t] = t + 10 * block_idx.x
    if block_idx.x == 0:  # only block 0 waits: block 1 reads its neighbour's element racily
        simt.syncthreads()
    out[block_idx.x * 2 + t] = sh[1 - t]


def test_a_barrier_orders_only_the_blocks_that_reach_it() -> None:
    with pytest.raises(KernelError, match="data race") as e:
        per_block_barrier[2, 2](np.zeros(4, np.int32))
    assert e.value.block == (1, 0, 0)


def test_debug_mode_reports_two_blocks_writing_one_global_element() -> None:
    @simt.kernel(debug=True)
    def racy(out):
        out[thread_idx.x] = block_idx.x + 1

    with pytest.raises(KernelError) as e:
        racy[2, 4](np.zeros(4, np.float32))
    msg = str(e.value)
    assert "two blocks write out[0] in one launch" in msg
    assert "thread (0, 0, 0) of block (0, 0, 0)" in msg and "block (1, 0, 0)" in msg
    assert e.value.line is not None

    @simt.kernel
    def unwatched(out):
        out[thread_idx.x] = block_idx.x + 1

    out = np.zeros(4, np.float32)
    unwatched[2, 4](out)  # without debug=True: the highest block's value, no error
    assert (out == 2).all()


def test_debug_mode_allows_same_values_own_elements_and_atomics() -> None:
    @simt.kernel(debug=True)
    def fine(out, count):
        i = block_idx.x * block_dim.x + thread_idx.x
        out[i + 1] = 1.0
        out[0] = 5.0  # every block writes the same value
        simt.atomic.add(count, 0, 1)

    out, count = np.zeros(9, np.float32), np.zeros(1, np.int32)
    fine[2, 4](out, count)
    assert out[0] == 5 and (out[1:] == 1).all() and count[0] == 8


def test_debug_mode_two_blocks_in_one_gathered_store() -> None:
    @simt.kernel(debug=True)
    def gather(idx, out):
        i = block_idx.x * block_dim.x + thread_idx.x
        out[idx[i]] = i

    with pytest.raises(KernelError, match=r"two blocks write out\[1\]"):
        gather[2, 2](np.array([0, 1, 1, 2], np.int32), np.zeros(4, np.int32))
