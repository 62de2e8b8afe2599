"""SPMD lowering: structure of the lowered IR, and that it computes what the kernel did."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from simt.ir import Block, Function, Op, Value, verify, walk
from simt.passes.spmd import lower
from simt.types import FLOAT32, INT32, SHARED, ArrayType

from .ir_eval import evaluate, for_, function, if_, random_function, random_inputs

ONE_THREAD = {"block_dim.x": 1, "block_dim.y": 1, "block_dim.z": 1}


def _lane_loops(fn: Function) -> list[Op]:
    return [op for op in walk(fn.body) if op.opcode == "for" and op.attrs.get("lanes") == "x"]


def _colsum() -> Function:
    """out[j] = sum_i a[i, j] with j = block_idx.x * block_dim.x + thread_idx.x."""
    fn, b, (a, out) = function(ArrayType(FLOAT32, 2), ArrayType(FLOAT32, 1))
    j = b.bin("add", b.bin("mul", b.special("block_idx", 0), b.special("block_dim", 0)),
              b.special("thread_idx", 0))  # fmt: skip
    m = b.op("shape", [a], [INT32], dim=0).result
    n = b.op("shape", [a], [INT32], dim=1).result

    def then() -> list[Value]:
        zero, one = b.const(0, INT32), b.const(1, INT32)

        def body(i: Value, acc: Value) -> list[Value]:
            x = b.op("load", [a, i, j], [FLOAT32]).result
            return [b.bin("add", acc, x)]

        (acc,) = for_(b, zero, m, one, [b.const(0.0, FLOAT32)], body)
        b.op("store", [out, j, acc])
        return []

    if_(b, b.cmp("lt", j, n), then, lambda: [], [])
    verify(fn)
    return fn


def test_uniform_loop_becomes_outer_loop_with_thread_loop_inside() -> None:
    low = lower(_colsum())
    verify(low)
    assert not any(op.opcode == "special" and op.attrs["reg"] == "thread_idx"
                   for op in walk(low.body))  # fmt: skip
    # the row loop is at block level, with a thread loop in its body
    rows = [op for op in low.body.ops if op.opcode == "for" and "lanes" not in op.attrs]
    assert len(rows) == 1
    assert any(op.attrs.get("lanes") == "x" for op in walk(rows[0].regions[0]))
    # the bounds check became the lane range: no `if` inside the thread loops
    for loop in _lane_loops(low):
        assert not any(op.opcode == "if" for op in walk(loop.regions[0]))
    # the accumulator lives in a per-lane array
    lane_arrays = [op for op in low.body.ops if op.opcode == "alloc" and op.attrs.get("lane")]
    assert len(lane_arrays) == 1 and lane_arrays[0].result.array.dtype == FLOAT32


def test_lowered_colsum_computes_the_column_sums() -> None:
    rng = np.random.default_rng(0)
    a = rng.random((5, 7)).astype(np.float32)
    out = np.zeros(7, np.float32)
    low = lower(_colsum())
    for blk in range(2):  # two blocks of four threads: lanes past the end do nothing
        evaluate(low, [a, out], {**ONE_THREAD, "block_dim.x": 4, "block_idx.x": blk})
    np.testing.assert_allclose(out, a.sum(0), rtol=1e-6)


def _barrier_kernel(guarded: bool) -> Function:
    """s[t] = t * 10; barrier; out[t] = s[(t + 1) % n] (optionally under `if t < 4`)."""
    fn, b, (out,) = function(ArrayType(INT32, 1))
    s = b.op("alloc", [], [ArrayType(INT32, 1, SHARED, (8,))]).result
    t = b.special("thread_idx", 0)
    b.op("store", [s, t, b.bin("mul", t, b.const(10, INT32))])

    def sync() -> list[Value]:
        b.op("barrier")
        return []

    if guarded:
        if_(b, b.cmp("lt", t, b.const(4, INT32)), sync, lambda: [], [])
    else:
        sync()
    nxt = b.bin("mod", b.bin("add", t, b.const(1, INT32)), b.special("block_dim", 0))
    b.op("store", [out, t, b.op("load", [s, nxt], [INT32]).result])
    verify(fn)
    return fn


def test_barrier_splits_thread_loops_and_orders_memory() -> None:
    low = lower(_barrier_kernel(False))
    verify(low)
    assert len(_lane_loops(low)) == 2
    assert not any(op.opcode == "barrier" for op in walk(low.body))
    out = np.zeros(8, np.int32)
    evaluate(low, [out], {**ONE_THREAD, "block_dim.x": 8})
    np.testing.assert_array_equal(out, (np.arange(8) + 1) % 8 * 10)


def test_barrier_under_thread_condition_is_lifted_before_lowering() -> None:
    """The pipeline accepts it; `passes.barriers.lift` puts the barrier where every thread
    of the block meets it, and the lowering then runs as for any barrier."""
    from simt.passes.barriers import lift
    from simt.pipeline import finish

    low = lower(lift(finish(_barrier_kernel(True))))
    verify(low)
    assert not any(op.opcode == "barrier" for op in walk(low.body))


def test_varying_loop_stays_inside_the_thread_loop() -> None:
    fn, b, (out,) = function(ArrayType(INT32, 1))
    t = b.special("thread_idx", 0)
    zero, one = b.const(0, INT32), b.const(1, INT32)
    (total,) = for_(b, zero, t, one, [zero], lambda i, acc: [b.bin("add", acc, i)])
    b.op("store", [out, t, total])
    verify(fn)
    low = lower(fn)
    verify(low)
    (loop,) = _lane_loops(low)
    assert any(op.opcode == "for" and "lanes" not in op.attrs for op in walk(loop.regions[0]))
    res = np.zeros(6, np.int32)
    evaluate(low, [res], {**ONE_THREAD, "block_dim.x": 6})
    np.testing.assert_array_equal(res, [k * (k - 1) // 2 for k in range(6)])


def test_local_arrays_become_per_lane() -> None:
    fn, b, (out,) = function(ArrayType(INT32, 1))
    loc = b.op("alloc", [], [ArrayType(INT32, 1, "local", (2,))]).result
    t = b.special("thread_idx", 0)
    zero, one = b.const(0, INT32), b.const(1, INT32)
    b.op("store", [loc, zero, t])
    b.op("barrier")
    b.op("store", [loc, one, b.bin("mul", t, t)])
    x = b.bin("add", b.op("load", [loc, zero], [INT32]).result,
              b.op("load", [loc, one], [INT32]).result)  # fmt: skip
    b.op("store", [out, t, x])
    verify(fn)
    low = lower(fn)
    verify(low)
    res = np.zeros(5, np.int32)
    evaluate(low, [res], {**ONE_THREAD, "block_dim.x": 5})
    np.testing.assert_array_equal(res, [k + k * k for k in range(5)])


@pytest.mark.parametrize("seed", range(12))
def test_random_programs_compute_the_same(seed: int) -> None:
    """Random uniform programs (every op, if/for/while): one thread before and after."""
    build = random_function(seed)
    low = lower(build())
    verify(low)
    for args in random_inputs(random.Random(seed), 3):
        got: list[Any] = []
        for fn, special in ((build(), {}), (low, ONE_THREAD)):
            a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
            try:
                printed: Any = evaluate(fn, a, special)
            except Exception as e:  # noqa: BLE001 - an assert or bounds failure must agree
                printed = type(e).__name__
            got.append((printed, [x for x in a if isinstance(x, np.ndarray)]))
        assert got[0][0] == got[1][0]
        for x, y in zip(got[0][1], got[1][1]):
            np.testing.assert_array_equal(x, y)


def test_varying_while_runs_while_any_lane_is_active() -> None:
    """i = t; while i < n: total += i; i += block_dim.x (a grid-stride loop)."""
    fn, b, (out, nn) = function(ArrayType(INT32, 1), INT32)
    t = b.special("thread_idx", 0)
    bd = b.special("block_dim", 0)
    zero = b.const(0, INT32)
    cond = Block([Value(INT32, "i"), Value(INT32, "s")])
    body = Block([Value(INT32, "i"), Value(INT32, "s")])
    with b.at(cond):
        b.op("condition", [b.cmp("lt", cond.args[0], nn)])
    with b.at(body):
        s = b.bin("add", body.args[1], body.args[0])
        b.op("yield", [b.bin("add", body.args[0], bd), s])
    loop = b.op("while", [t, zero], [INT32, INT32], regions=[cond, body])
    b.op("store", [out, t, loop.results[1]])
    b.op("store", [out, b.bin("add", t, bd), loop.results[0]])
    verify(fn)
    low = lower(fn)
    verify(low)
    assert len([op for op in walk(low.body) if op.opcode == "while"]) == 1
    res = np.zeros(8, np.int32)
    evaluate(low, [res, 10], {**ONE_THREAD, "block_dim.x": 4})
    sums = [sum(range(k, 10, 4)) for k in range(4)]
    ends = [k + 4 * len(range(k, 10, 4)) for k in range(4)]
    np.testing.assert_array_equal(res, sums + ends)


def test_grid_stride_loop_becomes_a_shrinking_lane_range() -> None:
    """The same loop with `i` dead afterwards: no activity flags, one range per iteration."""
    fn, b, (out, nn) = function(ArrayType(INT32, 1), INT32)
    t = b.special("thread_idx", 0)
    bd = b.special("block_dim", 0)
    cond = Block([Value(INT32, "i"), Value(INT32, "s")])
    body = Block([Value(INT32, "i"), Value(INT32, "s")])
    with b.at(cond):
        b.op("condition", [b.cmp("lt", cond.args[0], nn)])
    with b.at(body):
        s = b.bin("add", body.args[1], body.args[0])
        b.op("yield", [b.bin("add", body.args[0], bd), s])
    loop = b.op("while", [t, b.const(0, INT32)], [INT32, INT32], regions=[cond, body])
    b.op("store", [out, t, loop.results[1]])
    verify(fn)
    low = lower(fn)
    verify(low)
    lane_arrays = [op for op in low.body.ops if op.opcode == "alloc" and op.attrs.get("lane")]
    assert len(lane_arrays) == 1  # the sum only: no activity flags, no copy of `i`
    for n in (0, 3, 10):
        res = np.zeros(4, np.int32)
        evaluate(low, [res, n], {**ONE_THREAD, "block_dim.x": 4})
        np.testing.assert_array_equal(res, [sum(range(k, n, 4)) for k in range(4)])


def _strided_for(step_of: Any, start_of: Any = None) -> Function:
    """out[t] = sum(range(start, n, step)) with a per-thread start (t by default)."""
    fn, b, (out, nn) = function(ArrayType(INT32, 1), INT32)
    t = b.special("thread_idx", 0)
    start = t if start_of is None else start_of(b, t, nn)
    (s,) = for_(b, start, nn if start_of is None else b.const(-1, INT32), step_of(b),
                [b.const(0, INT32)], lambda i, acc: [b.bin("add", acc, i)])  # fmt: skip
    b.op("store", [out, t, s])
    verify(fn)
    return fn


def test_grid_stride_for_runs_as_a_shrinking_lane_range() -> None:
    """for i in range(t, n, block_dim.x * grid_dim.x): the `while` it means (one vector loop
    over the lanes still in range per iteration), not a scalar loop in each lane."""
    fn = _strided_for(lambda b: b.bin("mul", b.special("block_dim", 0), b.special("grid_dim", 0)))
    low = lower(fn)
    verify(low)
    assert not [o for o in walk(low.body) if o.opcode == "for" and o.attrs.get("lanes") is None]
    lane_arrays = [op for op in low.body.ops if op.opcode == "alloc" and op.attrs.get("lane")]
    assert len(lane_arrays) == 1  # the sum only: no activity flags
    for n in (0, 3, 10):
        res = np.zeros(4, np.int32)
        evaluate(low, [res, n], {**ONE_THREAD, "block_dim.x": 4, "grid_dim.x": 1})
        np.testing.assert_array_equal(res, [sum(range(k, n, 4)) for k in range(4)])


@pytest.mark.parametrize("step", [3, -2])
def test_strided_for_with_a_constant_step_computes_the_same(step: int) -> None:
    start_of = None if step > 0 else (lambda b, t, nn: b.bin("add", t, nn))
    fn = _strided_for(lambda b: b.const(step, INT32), start_of)
    low = lower(fn)
    verify(low)
    assert not any(o.opcode == "for" and not o.attrs.get("lanes") for o in walk(low.body))
    for n in (0, 5, 11):
        res = np.zeros(4, np.int32)
        evaluate(low, [res, n], {**ONE_THREAD, "block_dim.x": 4})
        want = [sum(range(k, n, step)) if step > 0 else sum(range(k + n, -1, step))
                for k in range(4)]  # fmt: skip
        np.testing.assert_array_equal(res, want)


def test_strided_for_with_a_step_of_unknown_sign_stays_per_lane() -> None:
    fn, b, (out, nn) = function(ArrayType(INT32, 1), INT32)
    t = b.special("thread_idx", 0)
    (s,) = for_(b, t, nn, b.bin("sub", nn, b.const(7, INT32)), [b.const(0, INT32)],
                lambda i, acc: [b.bin("add", acc, i)])  # fmt: skip
    b.op("store", [out, t, s])
    low = lower(fn)
    assert any(o.opcode == "for" and not o.attrs.get("lanes") for o in walk(low.body))


def test_dot_product_loop_runs_inside_the_thread_loop_for_many_lanes() -> None:
    """c[row, col] = sum_k a[row, k] * b[k, col]: `a[row, k]` is shared by a row of lanes, so
    the k loop runs inside thread loops stepping over 4 x 16 lanes (plus the lanes left over)."""
    fn, b, (a, bb, c) = function(*(ArrayType(FLOAT32, 2),) * 3)
    row, col = b.special("thread_idx", 1), b.special("thread_idx", 0)
    kk = b.op("shape", [a], [INT32], dim=1).result
    zero, one = b.const(0, INT32), b.const(1, INT32)

    def body(k: Value, acc: Value) -> list[Value]:
        x = b.op("load", [a, row, k], [FLOAT32]).result
        y = b.op("load", [bb, k, col], [FLOAT32]).result
        return [b.bin("add", acc, b.bin("mul", x, y))]

    (acc,) = for_(b, zero, kk, one, [b.const(0.0, FLOAT32)], body)
    b.op("store", [c, row, col, acc])
    verify(fn)
    low = lower(fn)
    verify(low)
    assert any(op.opcode == "for" and op.attrs.get("lanes") == "xs" for op in walk(low.body))
    rng = np.random.default_rng(3)
    ma = rng.random((5, 3)).astype(np.float32)
    mb = rng.random((3, 18)).astype(np.float32)
    mc = np.zeros((5, 18), np.float32)
    evaluate(low, [ma, mb, mc], {**ONE_THREAD, "block_dim.x": 18, "block_dim.y": 5})
    np.testing.assert_allclose(mc, ma @ mb, rtol=1e-5)


def test_a_loop_whose_loads_are_all_shared_is_not_jammed() -> None:
    """out[t] = sum_k w[k] * x[t]: every lane reads the same `w[k]`, and no load runs along
    the lanes for the jammed copies to share, so the k loop stays outside a plain thread loop
    (LLVM vectorises that; jammed, its 64 copies stayed scalar code: nbody's tile loop, the
    same shape with a sqrt, ran about 40x slower on `cpu`)."""
    fn, b, (w, x, out) = function(*(ArrayType(FLOAT32, 1),) * 3)
    t = b.special("thread_idx", 0)
    kk = b.op("shape", [w], [INT32], dim=0).result
    zero, one = b.const(0, INT32), b.const(1, INT32)
    xi = b.op("load", [x, t], [FLOAT32]).result

    def body(k: Value, acc: Value) -> list[Value]:
        y = b.op("load", [w, k], [FLOAT32]).result
        return [b.bin("add", acc, b.bin("mul", y, xi))]

    (acc,) = for_(b, zero, kk, one, [b.const(0.0, FLOAT32)], body)
    b.op("store", [out, t, acc])
    verify(fn)
    low = lower(fn)
    verify(low)
    assert not any(op.opcode == "for" and op.attrs.get("jammed") for op in walk(low.body))
    assert any(o.opcode == "for" and not o.attrs.get("lanes") for o in walk(low.body))
    rng = np.random.default_rng(4)
    mw, mx = rng.random(7).astype(np.float32), rng.random(18).astype(np.float32)
    mo = np.zeros(18, np.float32)
    evaluate(low, [mw, mx, mo], {**ONE_THREAD, "block_dim.x": 18})
    np.testing.assert_allclose(mo, mw.sum() * mx, rtol=1e-5)


def test_coarsened_blocks_compute_the_same() -> None:
    """Four blocks of 4 threads run as one block of 16: same column sums, same lane range."""
    from simt.passes.spmd import can_coarsen, coarsen

    fn = _colsum()
    assert can_coarsen(fn)
    low = lower(coarsen(fn, 4))
    verify(low)
    rng = np.random.default_rng(0)
    a = rng.random((5, 14)).astype(np.float32)
    out = np.zeros(14, np.float32)
    evaluate(low, [a, out], {**ONE_THREAD, "block_dim.x": 16, "grid_dim.x": 1})
    np.testing.assert_allclose(out, a.sum(0), rtol=1e-6)
    assert not can_coarsen(_barrier_kernel(False))
