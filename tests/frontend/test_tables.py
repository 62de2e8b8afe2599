"""Constant tables (frontend/tables.py): when a known array becomes one, its element type, and
the errors around it. The corpus (k_const_table) runs tables on every backend."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import cuda
from simt.runtime import registry

W = np.array([1.0, 2.0, 3.0, 4.0])
HUGE = np.zeros(300_000, np.float32)
BIG_INTS = np.array([1, 2**40], np.int64)
TEXT = b"hello, tables"


@simt.kernel
def unrolled(out):
    i = simt.grid(1)
    acc = 0.0
    for j in range(4):  # the loop's index is known once unrolled: W's items fold
        acc += W[j] * i
    out[i] = acc


@simt.kernel
def indexed(out):
    i = simt.grid(1)
    out[i] = W[i % 4]


@simt.kernel
def written(out):
    i = simt.grid(1)
    W[i] = 2.0


@simt.kernel
def too_big(out):
    i = simt.grid(1)
    out[i] = HUGE[i]


@simt.kernel
def wide(out):
    i = simt.grid(1)
    out[i] = BIG_INTS[i % 2]


def test_a_loop_that_can_unroll_folds_the_items_instead() -> None:
    out = np.zeros(4, np.float32)
    assert "alloc" not in unrolled.ir(out)
    assert "const float32[4] = alloc" in indexed.ir(out)  # float64 items: a float32 table


@simt.kernel
def derived(out):
    i = simt.grid(1)
    acc = 0.0
    for j in range(4):
        k = 3 - j  # known once unrolled too: read through a name the loop assigns
        acc += W[k] * i
    out[i] = acc


def _weight(j):
    return W[j]


@simt.kernel
def through_helper(out):
    i = simt.grid(1)
    acc = 0.0
    for j in range(4):
        acc += _weight(j) * i  # the helper's names say nothing about the loop: it unrolls
    out[i] = acc


def _loop_independent(trips: int) -> simt.Kernel:
    @simt.kernel
    def k(out):
        i = simt.grid(1)
        acc = 0.0
        for j in range(trips):
            acc += W[i % 4] * j  # an index the loop does not change
        out[i] = acc

    return k


def test_a_loop_unrolls_for_an_index_derived_from_it_or_read_in_a_helper() -> None:
    out = np.zeros(4, np.float32)
    assert "alloc" not in derived.ir(out)
    assert "alloc" not in through_helper.ir(out)


def test_an_index_the_loop_does_not_change_keeps_the_loop() -> None:
    """A table read by an index no loop changes, in a range loop, unrolled the loop (one copy
    of the body per trip: a fuzz kernel of 34 trips made 23,000 ops and 146,000 lines of
    LLVM) only to make the table after all; the loop now stays a loop."""
    out = np.zeros(4, np.float32)
    small, large = (len(_loop_independent(n).ir(out).splitlines()) for n in (100, 300))
    assert small == large
    assert "const float32[4] = alloc" in _loop_independent(300).ir(out)
    for backend in ("sim", "cpu"):
        got = np.zeros(8, np.float32)
        with simt.using(backend):
            _loop_independent(5)[1, 8](got)
        assert got.tolist() == [float(W[i % 4] * 10) for i in range(8)], backend


def test_int64_table_stays_int64_only_when_it_must() -> None:
    assert "const int64[2]" in wide.ir(np.zeros(2, np.int64))


def test_a_table_is_never_written() -> None:
    with pytest.raises(simt.CompileError, match="cannot assign into a ndarray known"):
        written.ir(np.zeros(4, np.float32))


def test_a_table_too_big_for_the_program_says_to_pass_an_argument() -> None:
    with pytest.raises(simt.CompileError, match="pass it to the kernel as an argument") as e:
        too_big.ir(np.zeros(4, np.float32))
    assert "test_tables.py" in str(e.value) and "HUGE[i]" in str(e.value)


def test_const_array_like_is_numbas_spelling() -> None:
    assert simt.const.array_like(W) is W
    assert cuda.const is simt.const


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_an_index_outside_the_table_is_a_kernel_error(backend: str) -> None:
    @simt.kernel
    def past(idx, out):
        i = simt.grid(1)
        out[i] = W[idx[i]]

    simt.use(backend)
    try:
        # the thread's IndexError (the other thread finishes)
        want = r"1 thread raised IndexError .*index 4 is out of bounds of `W` with size 4"
        with pytest.raises(simt.KernelError, match=want):
            past[1, 2](np.array([0, 4], np.int32), np.zeros(2, np.float32))
    finally:
        simt.use("sim")


@simt.kernel
def letters(out):
    i = simt.grid(1)
    if i < len(out):
        out[i] = TEXT[i % len(TEXT)]  # bytes known at compile time: a uint8 table


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_bytes_known_at_compile_time_are_a_uint8_table(backend: str) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"{backend} not present: {why}")
    simt.use(backend)
    out = np.zeros(20, np.int32)
    letters[1, 32](out)
    assert bytes(out.astype(np.uint8)) == (TEXT * 2)[:20]
    assert "const uint8[13]" in letters.ir(out)
