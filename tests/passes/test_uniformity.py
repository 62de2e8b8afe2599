"""Uniformity analysis and the barrier check, on hand-built IR."""

from __future__ import annotations

import pytest

from simt.errors import CompileError
from simt.ir import Block, Builder, Function, Loc, Param, Value, verify
from simt.passes.uniformity import BARRIER_HINT, check_barriers, divergent_ops, varying
from simt.types import BOOL, FLOAT32, INT32, LOCAL, SHARED, ArrayType

A = ArrayType(FLOAT32, 1)


def _fn() -> tuple[Function, Builder, Value]:
    a = Value(A, "a")
    fn = Function("k", [Param("a", 0, a)], Block(), filename="k.py")
    return fn, Builder(fn.body), a


def _if(b: Builder, cond: Value, then_ops, result_types=()):  # type: ignore[no-untyped-def]
    then, other = Block(), Block()
    with b.at(then):
        ys = then_ops()
        b.op("yield", ys)
    with b.at(other):
        ys2 = [b.const(0, t) for t in result_types]
        b.op("yield", ys2)
    return b.op("if", [cond], list(result_types), regions=[then, other])


def test_thread_idx_varies_and_block_values_do_not() -> None:
    fn, b, a = _fn()
    tid = b.special("thread_idx", 0)
    bid = b.special("block_idx", 0)
    bd = b.special("block_dim", 0)
    base = b.bin("mul", bid, bd)
    i = b.bin("add", base, tid)
    n = b.op("shape", [a], [INT32], dim=0).result
    c = b.const(2, INT32)
    scaled = b.bin("mul", n, c)
    v = varying(fn)
    assert tid.id in v and i.id in v
    assert not {bid.id, bd.id, base.id, n.id, c.id, scaled.id} & v


def test_loads_follow_their_indices_and_atomics_vary() -> None:
    fn, b, a = _fn()
    tid = b.special("thread_idx", 0)
    zero = b.const(0, INT32)
    u = b.op("load", [a, zero], [FLOAT32]).result
    w = b.op("load", [a, tid], [FLOAT32]).result
    old = b.op("atomic", [a, zero, u], [FLOAT32], op="add").result
    v = varying(fn)
    assert u.id not in v and w.id in v and old.id in v
    assert u.id in varying(fn, loads=False)


def test_local_arrays_are_per_thread_and_shared_are_not() -> None:
    fn, b, _ = _fn()
    loc = b.op("alloc", [], [ArrayType(FLOAT32, 1, LOCAL, (4,))]).result
    sh = b.op("alloc", [], [ArrayType(FLOAT32, 1, SHARED, (4,))]).result
    zero = b.const(0, INT32)
    x = b.op("load", [loc, zero], [FLOAT32]).result
    y = b.op("load", [sh, zero], [FLOAT32]).result
    v = varying(fn)
    assert x.id in v and y.id not in v and sh.id not in v


def test_if_on_thread_makes_results_and_inner_values_vary() -> None:
    fn, b, _ = _fn()
    tid = b.special("thread_idx", 0)
    cond = b.cmp("lt", tid, b.const(4, INT32))
    inner: list[Value] = []

    def then() -> list[Value]:
        inner.append(b.const(1, INT32))
        return [inner[0]]

    op = _if(b, cond, then, [INT32])
    verify(fn)
    v = varying(fn)
    assert op.result.id in v and inner[0].id in v
    v2 = varying(fn, divergence=False)
    assert op.result.id in v2 and inner[0].id not in v2


def test_uniform_for_with_varying_accumulator() -> None:
    fn, b, a = _fn()
    tid = b.special("thread_idx", 0)
    n = b.op("shape", [a], [INT32], dim=0).result
    zero, one = b.const(0, INT32), b.const(1, INT32)
    acc0 = b.const(0.0, FLOAT32)
    cnt0 = b.const(0, INT32)
    body = Block([Value(INT32, "i"), Value(FLOAT32, "acc"), Value(INT32, "cnt")])
    with b.at(body):
        x = b.op("load", [a, tid], [FLOAT32]).result
        acc = b.bin("add", body.args[1], x)
        cnt = b.bin("add", body.args[2], one)
        b.op("yield", [acc, cnt])
    loop = b.op("for", [zero, n, one, acc0, cnt0], [FLOAT32, INT32], regions=[body], sign=1)
    verify(fn)
    v = varying(fn)
    assert body.args[0].id not in v
    assert body.args[1].id in v and loop.results[0].id in v
    assert body.args[2].id not in v and loop.results[1].id not in v


def test_while_with_varying_condition_makes_everything_vary() -> None:
    fn, b, _ = _fn()
    tid = b.special("thread_idx", 0)
    k0 = b.const(0, INT32)
    cond = Block([Value(INT32, "k")])
    body = Block([Value(INT32, "k")])
    with b.at(cond):
        c = b.cmp("lt", cond.args[0], tid)
        b.op("condition", [c])
    with b.at(body):
        k = b.bin("add", body.args[0], b.const(1, INT32))
        b.op("yield", [k])
    loop = b.op("while", [k0], [INT32], regions=[cond, body])
    verify(fn)
    v = varying(fn)
    assert loop.result.id in v and body.args[0].id in v and k.id in v


def _barrier_under(fn: Function, b: Builder, cond: Value) -> None:
    b.loc = Loc("k.py", 7, 8, "        simt.syncthreads()")

    def then() -> list[Value]:
        b.op("barrier")
        return []

    _if(b, cond, then)
    verify(fn)


def test_barrier_under_thread_condition_is_accepted() -> None:
    # threads that returned leave the count, and a condition every thread takes is fine:
    # sim checks at run time, passes.barriers places it for the other backends
    fn, b, _ = _fn()
    tid = b.special("thread_idx", 0)
    cond = b.cmp("lt", tid, b.const(4, INT32))
    _barrier_under(fn, b, cond)
    check_barriers(fn)


def test_barrier_in_a_while_condition_is_a_compile_error() -> None:
    fn, b, _ = _fn()
    cond = Block([Value(BOOL, "go")])
    body = Block([Value(BOOL, "go")])
    with b.at(cond):
        b.loc = Loc("k.py", 7, 8, "    while sync():")
        b.op("barrier")
        b.op("condition", [cond.args[0]])
    with b.at(body):
        b.op("yield", [b.const(False, BOOL)])
    b.op("while", [b.const(True, BOOL)], [BOOL], regions=[cond, body])
    verify(fn)
    with pytest.raises(CompileError) as e:
        check_barriers(fn)
    assert e.value.line == 7 and e.value.filename == "k.py"
    assert e.value.hint == BARRIER_HINT
    assert "syncthreads()" in str(e.value)


def test_barrier_under_block_condition_is_fine() -> None:
    fn, b, _ = _fn()
    bid = b.special("block_idx", 0)
    cond = b.cmp("lt", bid, b.const(4, INT32))
    _barrier_under(fn, b, cond)
    check_barriers(fn)


def test_barrier_in_loop_whose_condition_depends_on_an_atomic() -> None:
    fn, b, a = _fn()
    zero = b.const(0, INT32)
    one = b.const(1.0, FLOAT32)
    old = b.op("atomic", [a, zero, one], [FLOAT32], op="add").result
    flag = b.cmp("lt", old, one)
    cond = Block([Value(BOOL, "go")])
    body = Block([Value(BOOL, "go")])
    with b.at(cond):
        b.op("condition", [cond.args[0]])
    with b.at(body):
        b.op("barrier")
        b.op("yield", [b.const(False, BOOL)])
    b.op("while", [flag], [BOOL], regions=[cond, body])
    verify(fn)
    check_barriers(fn)  # allowed: the loop's body holds the barrier
    assert any(op.opcode == "while" for op in divergent_ops(fn))
