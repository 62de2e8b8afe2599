"""The CPU's kept bounds checks (an index no proof covers, `passes/bounds/`). The front end
checks such an access as raising IndexError (`frontend/raising.py`): the failing thread stops,
the others finish, and the launch raises one grouped KernelError naming the array, the index,
the extent, the first failing thread and the line. The renderer's own checks (for accesses the
front end does not check: `build(..., raising=False)`) record a failure in a thread loop LLVM
may vectorise without a branch of their own (the smallest key in a min reduction, the index in
a per-lane slot: `_note_failure`), so the loop is still vector code."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt
from simt.pipeline import build, prepare
from simt.runtime import registry

pytest.importorskip("llvmlite.binding", reason="llvmlite (simt[cpu]) is not installed")


@simt.kernel
def gather(out, a, idx):
    i = simt.grid(1)
    if i < len(out):
        out[i] = a[idx[i]] * 2.0


@simt.kernel
def scatter(out, idx, x):
    i = simt.grid(1)
    if i < len(idx):
        out[idx[i]] = x[i]


@simt.kernel
def gather_2d(out, m, rows):
    x, y = simt.grid(2)
    if x < out.shape[1] and y < out.shape[0]:
        out[y, x] = m[rows[y, x], x]


def _opt(kernel: Any, *args: Any, raising: bool = True) -> str:
    specs, _ = kernel._specs(kernel._bind(args, {}), "cpu")
    fn = prepare(build(kernel.pyfunc, specs, False, False, raising=raising), "cpu")  # as a launch
    return registry.get("cpu").render(fn, stage="opt")  # type: ignore[call-arg,no-any-return]


def test_a_thread_loop_with_a_kept_check_is_vectorised() -> None:
    n = 4096
    a, out = np.ones(256, np.float32), np.zeros(n, np.float32)
    opt = _opt(gather, out, a, np.zeros(n, np.int32), raising=False)
    assert "x float>" in opt and "masked.gather" in opt  # a vector gather, masked by the check
    assert "masked.store" not in opt  # the failure record is plain stores and a reduction


def test_the_first_failing_thread_is_reported_with_its_index() -> None:
    n, m = 5000, 300
    a = np.arange(m, dtype=np.float32)
    idx = np.arange(n, dtype=np.int32) % m
    idx[[4321, 1234, 1235, 3000]] = [-7, m + 5, m, -1]  # in two blocks of the launch
    out = np.zeros(n, np.float32)
    with simt.using("cpu"):
        with pytest.raises(simt.KernelError) as e:
            gather[(n + 127) // 128, 128](out, a, idx)
        msg = str(e.value)
        assert msg.startswith("4 threads raised IndexError at ")
        assert f"(first: thread 1234: index {m + 5} is out of bounds of `a` with size {m})" in msg
        assert (e.value.block, e.value.thread) == ((9, 0, 0), (82, 0, 0))  # 1234 = 9 * 128 + 82
        assert e.value.finished == n - 4 + (-n) % 128
        assert [f.thread for f in e.value.failures] == [1234, 1235, 3000, 4321]
        good = np.ones(n, bool)
        good[[4321, 1234, 1235, 3000]] = False
        np.testing.assert_array_equal(out[good], a[idx[good]] * 2)  # the others finished
        assert (out[~good] == 0).all()  # the failing threads stored nothing
        ok = idx.copy()
        ok[[4321, 1234, 1235, 3000]] = 0
        gather[(n + 127) // 128, 128](out, a, ok)  # the next launch is fine
    np.testing.assert_array_equal(out, a[ok] * 2)


def test_a_failing_store_writes_nothing() -> None:
    n = 3000
    out = np.full(n + 16, -1.0, np.float32)  # the last 16 stand for memory after the array
    view = out[:n]
    idx = np.arange(n, dtype=np.int32)[::-1].copy()
    idx[[10, 2000]] = [n + 3, n]
    with simt.using("cpu"):
        want = rf"2 threads raised IndexError .* index {n + 3} is out of bounds of `out` with "
        with pytest.raises(simt.KernelError, match=want + f"size {n}"):
            scatter[(n + 255) // 256, 256](view, idx, np.ones(n, np.float32))
    assert (out[n:] == -1.0).all()
    assert (out[:n] == 1.0).sum() == n - 2  # every other thread wrote its element


def test_two_dimensional_blocks_name_the_thread_and_both_indices() -> None:
    h, w = 12, 40
    m = np.arange(5 * w, dtype=np.float32).reshape(5, w)
    rows = np.zeros((h, w), np.int32)
    rows[7, 13] = 5
    rows[9, 2] = 6
    out = np.zeros((h, w), np.float32)
    with simt.using("cpu"):
        with pytest.raises(simt.KernelError) as e:
            gather_2d[(3, 2), (16, 8)](out, m, rows)
    assert "index 5 is out of bounds for axis 0 of `m` with size 5" in str(e.value)
    assert (e.value.block, e.value.thread) == ((0, 0, 0), (13, 7, 0))
    assert sorted(f.message for f in e.value.failures) == [
        "index 5 is out of bounds for axis 0 of `m` with size 5",
        "index 6 is out of bounds for axis 0 of `m` with size 5",
    ]


def _llvm(kernel: Any, *args: Any, raising: bool = True) -> str:
    specs, _ = kernel._specs(kernel._bind(args, {}), "cpu")
    fn = prepare(build(kernel.pyfunc, specs, False, False, raising=raising), "cpu")
    return registry.get("cpu").render(fn)  # type: ignore[no-any-return]


def test_the_failure_key_slot_is_made_only_where_a_check_uses_it() -> None:
    """`%failkey` (the branch-free checks' smallest failing key) was allocated in every cpu
    kernel; now only in one whose renderer records a check without a branch."""
    n = 4096
    out, a, idx = np.zeros(n, np.float32), np.ones(256, np.float32), np.zeros(n, np.int32)
    assert "%failkey" not in _llvm(gather, out, a, idx)  # the front end checks `a[idx[i]]`
    assert "%failkey" in _llvm(gather, out, a, idx, raising=False)  # the renderer checks it
