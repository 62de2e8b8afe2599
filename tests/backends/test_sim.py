"""The sim renderer: the text it writes for hand-built IR (execution is tests/runtime/test_sim)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simt.backends.sim import render, typed_const, varying_values
from simt.builtins import MATH
from simt.ir import Block, Builder, Field, Function, Loc, Param, Value, verify
from simt.ir.ops import ATOMIC_OPS, BIN_OPS, CMP_OPS, UN_OPS
from simt.types import BOOL, FLOAT32, FLOAT64, INT32, INT64, UINT32, ArrayType, Scalar


def kernel(name: str, **params: Scalar | ArrayType) -> tuple[Builder, list[Param], Block]:
    body = Block()
    ps = [Param(n, k, Value(t, n)) for k, (n, t) in enumerate(params.items())]
    return Builder(body), ps, body


def finish(name: str, ps: list[Param], body: Block) -> Function:
    fn = Function(name, ps, body, filename="kern.py")
    verify(fn)
    return fn


def gid(b: Builder) -> Value:
    mul = b.bin("mul", b.special("block_idx", 0), b.special("block_dim", 0))
    return b.bin("add", mul, b.special("thread_idx", 0))


def region(b: Builder, *yields: Value, fill=None) -> Block:  # type: ignore[no-untyped-def]
    r = Block()
    with b.at(r):
        if fill is not None:
            fill()
        b.op("yield", list(yields))
    return r


def compiles(text: str) -> None:
    compile(text, "<sim>", "exec")


def test_typed_constants_never_promote() -> None:
    assert typed_const(3, INT32) == "np.int32(3)"
    assert typed_const(2**31, INT32) == "np.int32(-2147483648)"  # wrapped into range
    assert typed_const(-1, UINT32) == "np.uint32(4294967295)"
    assert typed_const(0.1, FLOAT32) == "np.float32(0.1)"
    assert typed_const(True, BOOL) == "np.True_"
    assert typed_const(math.inf, FLOAT64) == 'np.float64("inf")'
    assert np.isnan(eval(typed_const(math.nan, FLOAT32), {"np": np}))
    assert eval(typed_const(5, INT64), {"np": np}).dtype == np.int64


def test_vector_add_renders_readable_python_with_fast_paths() -> None:
    b, ps, body = kernel("vector_add", a=ArrayType(FLOAT32, 1), c=ArrayType(FLOAT32, 1))
    a, c = ps[0].value, ps[1].value
    b.loc = Loc("kern.py", 3, 4, "    i = block_idx.x * block_dim.x + thread_idx.x")
    i = gid(b)
    b.loc = Loc("kern.py", 4, 4, "    if i < len(c):")
    cond = b.cmp("lt", i, b.op("shape", [c], [INT32], dim=0).result)

    def then() -> None:
        b.loc = Loc("kern.py", 5, 8, "        c[i] = a[i] + a[i]")
        x = b.op("load", [a, i], [FLOAT32]).result
        b.op("store", [c, i, b.bin("add", x, x)])

    b.op("if", [cond], [], [region(b, fill=then), region(b)])
    text = render(finish("vector_add", ps, body))
    compiles(text)
    assert "def vector_add(_c, a_1, c_2):" in text
    assert "_c.global_idx(0)" in text  # the grid(1) pattern, not three array ops
    assert "_c.block_idx" not in text  # its parts were dropped as dead
    assert "# line 5: c[i] = a[i] + a[i]" in text
    assert "_split(mask, " in text  # a varying condition: masks
    assert "_ld_view(" in text  # consumed before any write: no copy needed
    assert "_st_op(_c, c_2, (v5,), np.add, " in text  # the add fused into the store


def test_uniform_control_flow_is_plain_python() -> None:
    b, ps, body = kernel("uniform", n=INT32, o=ArrayType(INT32, 1))
    n, o = ps[0].value, ps[1].value
    blk = Block(args=[Value(INT32, "j"), Value(INT32, "acc")])
    with b.at(blk):
        b.op("yield", [b.bin("add", blk.args[1], blk.args[0])])
    zero, one = b.const(0, INT32), b.const(1, INT32)
    (total,) = b.op("for", [zero, n, one, zero], [INT32], [blk], sign=1).results
    pos = b.cmp("gt", total, zero)
    (r,) = b.op("if", [pos], [INT32], [region(b, total), region(b, zero)]).results
    b.op("store", [o, zero, r])
    text = render(finish("uniform", ps, body))
    compiles(text)
    assert "for j_" in text and "in _urange(np.int32(0), n_1, np.int32(1)):" in text
    assert "if v" in text and "_split" not in text and "_narrow" not in text


def test_varying_loops_run_under_masks() -> None:
    b, ps, body = kernel("masked", o=ArrayType(INT32, 1))
    o = ps[0].value
    t = b.special("thread_idx", 0)
    blk = Block(args=[Value(INT32, "j"), Value(INT32, "acc")])
    with b.at(blk):
        b.op("yield", [b.bin("add", blk.args[1], blk.args[0])])
    zero, one = b.const(0, INT32), b.const(1, INT32)
    (s,) = b.op("for", [zero, t, one, zero], [INT32], [blk], sign=0).results
    cond, wbody = Block(args=[Value(INT32, "w")]), Block(args=[Value(INT32, "w")])
    with b.at(cond):
        b.op("condition", [b.cmp("lt", cond.args[0], s)])
    with b.at(wbody):
        b.op("yield", [b.bin("add", wbody.args[0], one)])
    (w,) = b.op("while", [zero], [INT32], [cond, wbody]).results
    b.op("store", [o, t, w])
    text = render(finish("masked", ps, body))
    compiles(text)
    assert "_in_range(" in text  # unknown step sign
    assert text.count("_narrow(") == 2 and text.count("_keep(") == 2


def test_uniformity_analysis_reaches_a_fixed_point_through_loops() -> None:
    b, ps, body = kernel("fix", o=ArrayType(INT32, 1))
    o = ps[0].value
    t = b.special("thread_idx", 0)
    bd = b.special("block_dim", 0)
    zero, one, ten = b.const(0, INT32), b.const(1, INT32), b.const(10, INT32)
    blk = Block(args=[Value(INT32, "j"), Value(INT32, "u"), Value(INT32, "v")])
    with b.at(blk):
        # u stays uniform; v is uniform on entry but picks up thread_idx in the body
        b.op("yield", [b.bin("add", blk.args[1], one), b.bin("add", blk.args[1], t)])
    u, v = b.op("for", [zero, ten, one, bd, zero], [INT32, INT32], [blk], sign=1).results
    b.op("store", [o, zero, b.bin("add", u, v)])
    fn = finish("fix", ps, body)
    vary = varying_values(fn)
    assert t.id in vary and bd.id not in vary
    assert u.id not in vary and blk.args[1].id not in vary
    assert v.id in vary and blk.args[2].id in vary
    assert blk.args[0].id not in vary


def test_a_store_between_load_and_use_forces_a_copy() -> None:
    b, ps, body = kernel("snap", a=ArrayType(FLOAT32, 1))
    a = ps[0].value
    i = gid(b)
    x = b.op("load", [a, i], [FLOAT32]).result
    b.op("store", [a, i, b.const(0.0, FLOAT32)])
    b.op("store", [a, i, b.bin("mul", x, x)])
    text = render(finish("snap", ps, body))
    assert "_ld(" in text and "_ld_view(" not in text


def test_same_ir_renders_the_same_text() -> None:
    def build() -> str:
        b, ps, body = kernel("k", a=ArrayType(INT32, 1))
        b.op("store", [ps[0].value, gid(b), b.const(1, INT32)])
        return render(finish("k", ps, body))

    assert build() == build()  # value ids differ, names do not: the program cache hits


def every_op_kernel() -> Function:
    """One op of every opcode and every variant, in a kernel that verifies."""
    b, ps, body = kernel(
        "everything",
        f=ArrayType(FLOAT32, 1),
        i=ArrayType(INT32, 2),
        bo=ArrayType(BOOL, 1),
        n=INT32,
    )
    f, iarr, bo, n = (p.value for p in ps)
    t = b.special("thread_idx", 0)
    for reg in ("thread_idx", "block_idx", "block_dim", "grid_dim"):
        for axis in range(3):
            b.special(reg, axis)
    x = b.op("load", [f, t], [FLOAT32]).result
    k = b.op("load", [iarr, t, n], [INT32]).result
    for op in BIN_OPS:
        if op != "div":
            b.op("store", [iarr, t, n, b.bin(op, k, n)])
        b.op("store", [f, t, b.bin(op, x, x)] if op not in ("and", "or", "xor", "shl", "shr")
             else [f, t, x])  # fmt: skip
    for op in CMP_OPS:
        b.op("store", [bo, t, b.cmp(op, k, n)])
    for op in UN_OPS:
        if op != "not":
            b.op("store", [iarr, t, n, b.un(op, k)])
    b.op("store", [bo, t, b.un("not", b.cmp("eq", k, n))])
    b.op("store", [iarr, t, n, b.cast(x, INT32)])
    b.op("store", [f, t, b.select(b.cmp("lt", k, n), x, b.const(1.5, FLOAT32))])
    for name, m in MATH.items():
        res = BOOL if m.result == "bool" else FLOAT32
        r = b.op("math", [x] * m.nargs, [res], fn=name).result
        b.op("store", [bo, t, r] if res == BOOL else [f, t, r])
    sh = b.op("alloc", [], [ArrayType(FLOAT32, 2, "shared", (4, 8))]).result
    lo = b.op("alloc", [], [ArrayType(INT32, 1, "local", (3,))]).result
    b.op("store", [sh, t, t, x])
    b.op("barrier")
    b.op("store", [lo, n, b.op("shape", [sh], [INT32], dim=1).result])
    b.op("store", [iarr, t, n, b.op("shape", [iarr], [INT32], dim=1).result])
    for op in ATOMIC_OPS:
        old = b.op("atomic", [iarr, t, n, k], [INT32], op=op).result
        b.op("store", [lo, n, old])
    b.op("cas", [iarr, t, n, k, n], [INT32])
    b.op("print", [k, x], parts=("k=", Field(0), " x=", Field(1, ".3f"), "\n"))
    b.op("assert", [b.cmp("ge", k, n)], msg="k >= n")
    return finish("everything", ps, body)


def test_every_opcode_renders_to_python_that_compiles() -> None:
    text = render(every_op_kernel())
    compiles(text)
    for needle in ("_ipow(", "np.minimum", " << (", " >> (", "_math_erf(", "_math_atan2(",
                   "_c.shared((4, 8), np.float32)", "_c.local((3,), np.int32)",
                   "_c.block_linear", "_atomic(_c, 'cas'", "_c.print(0, mask,",
                   "_c.check_assert("):  # fmt: skip
        assert needle in text, needle


@pytest.mark.parametrize("t", [INT32, UINT32, INT64])
def test_shift_amounts_are_masked_to_the_width(t: Scalar) -> None:
    b, ps, body = kernel("sh", a=ArrayType(t, 1))
    a = ps[0].value
    z = b.const(0, INT32)
    v = b.op("load", [a, z], [t]).result
    b.op("store", [a, z, b.bin("shl", v, v)])
    text = render(finish("sh", ps, body))
    assert f"& np.{t.name}({t.bits - 1}))" in text
