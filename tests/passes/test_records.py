"""Sinking a raising thread's failure record into the branch that can raise
(`passes.records`): a guard whose body keeps an IndexError check stays a plain guard."""

from __future__ import annotations

from typing import Any

import numpy as np

import simt
from simt.ir import walk
from simt.passes.records import is_record
from simt.pipeline import build


@simt.kernel
def gather(out, a, idx):
    i = simt.grid(1)
    if i < len(out):  # a guard whose body may raise: the record sinks into it
        j = idx[i]
        if j < 0 or j >= len(a):
            raise IndexError("index out of range")
        out[i] = a[j] * 2.0


def _built(kernel: Any, *args: Any) -> Any:
    specs = kernel.arg_specs(*args, backend="cpu")
    return build(kernel.pyfunc, specs, False, False)


def test_the_record_sinks_into_the_guard_which_carries_no_state() -> None:
    fn = _built(gather, np.zeros(8, np.float32), np.zeros(8, np.float32),
                np.zeros(8, np.int32))  # fmt: skip
    (guard,) = [op for op in fn.body.ops if op.opcode == "if"]
    assert guard.results == []  # no exception state comes out of it
    (record,) = [op for op in walk(fn.body) if is_record(op)]
    assert record in list(walk(guard.regions[0]))  # made where the thread raised
    for backend in ("sim", "cpu"):
        out = np.zeros(8, np.float32)
        idx = np.array([0, 1, 2, 30, 4, 5, 6, -2], np.int32)
        a = np.arange(8, dtype=np.float32)
        with simt.using(backend):
            try:
                gather[1, 8](out, a, idx)
            except simt.KernelError as e:
                assert [f.thread for f in e.failures] == [3, 7] and e.finished == 6
            else:
                raise AssertionError("threads 3 and 7 should have raised IndexError")
        np.testing.assert_array_equal(out, [0, 2, 4, 0, 8, 10, 12, 0])


def test_a_record_two_branches_can_reach_stays_at_the_end() -> None:
    @simt.kernel
    def either(out, a, idx):
        i = simt.grid(1)
        if i < len(out):
            if i % 2 == 0:
                if idx[i] > 5:
                    raise ValueError("even")
            else:
                if idx[i] < 0:
                    raise ValueError("odd")
            out[i] = a[i]

    fn = _built(either, np.zeros(8, np.float32), np.zeros(8, np.float32),
                np.zeros(8, np.int32))  # fmt: skip
    (record,) = [op for op in walk(fn.body) if is_record(op)]
    (guard,) = [op for op in fn.body.ops if op.opcode == "if"]
    assert guard.results == [] and record in list(walk(guard.regions[0]))  # into the guard


@simt.kernel
def gather_checked(out, a, idx):
    i = simt.grid(1)
    if i < len(out):
        out[i] = a[idx[i]] * 2.0  # no proof: the thread's IndexError


def test_an_indexerror_checks_record_ends_the_guard_body() -> None:
    """The front end's check of `a[idx[i]]` sets the exception state without a branch of its
    own: the record sinks to the end of the guard's body (the CPU's thread loop), and the
    guard yields nothing."""
    fn = _built(gather_checked, np.zeros(8, np.float32), np.zeros(8, np.float32),
                np.zeros(8, np.int32))  # fmt: skip
    (guard,) = [op for op in fn.body.ops if op.opcode == "if"]
    assert guard.results == []
    (record,) = [op for op in walk(fn.body) if is_record(op)]
    assert record in guard.regions[0].ops
