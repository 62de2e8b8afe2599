"""Loop-invariant code motion moves pure invariant ops before the loop, and nothing else."""

import numpy as np

import simt
from simt.ir import Block, Builder, Function, Param, Value, format_function, verify
from simt.passes.licm import licm
from simt.types import FLOAT32, INT32, ArrayType


def _grid_stride(dependent: list[Value] | None = None) -> Function:
    a = Value(ArrayType(FLOAT32, 1), "a")
    n = Value(INT32, "n")
    body = Block()
    b = Builder(body)
    start = b.special("thread_idx", 0)
    loop = Block()
    iv = Value(INT32, "i")
    loop.args.append(iv)
    with b.at(loop):
        stride = b.bin("mul", b.special("block_dim", 0), b.special("grid_dim", 0))  # invariant
        size = b.op("shape", [a], [INT32], dim=0).result  # invariant
        x = b.op("load", [a, iv], [FLOAT32]).result  # a load: stays
        b.op("store", [a, iv, x], [])
        b.op("store", [a, b.bin("sub", size, b.const(1, INT32)), x], [])  # invariant index
        if dependent is not None:
            dependent.append(b.bin("add", iv, stride))  # changes every iteration
        del stride
        b.op("yield", [])
    b.op("for", [start, n, b.const(1, INT32)], [], [loop], sign=1)
    return Function("k", [Param("a", 0, a), Param("n", 1, n)], body)


def test_invariant_pure_ops_move_before_the_loop() -> None:
    fn = _grid_stride()
    verify(fn)
    licm(fn)
    verify(fn)
    loop = next(op for op in fn.body.ops if op.opcode == "for")
    inside = [op.opcode for op in loop.regions[0].ops]
    assert "special" not in inside and "shape" not in inside and "const" not in inside
    assert inside.count("load") == 1 and inside.count("store") == 2
    text = format_function(fn)
    assert text.index("block_dim.x") < text.index("for ")


def test_values_that_change_each_iteration_stay() -> None:
    dep: list[Value] = []
    fn = _grid_stride(dep)
    licm(fn)
    verify(fn)
    loop = next(op for op in fn.body.ops if op.opcode == "for")
    assert any(op.results and op.results[0] is dep[0] for op in loop.regions[0].ops)


def test_grid_stride_kernel_still_right_on_sim() -> None:
    @simt.kernel
    def saxpy(a, x, y):
        i = simt.grid(1)
        while i < len(y):
            y[i] = a * x[i] + y[i]
            i += simt.block_dim.x * simt.grid_dim.x

    simt.use("sim")
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, np.float32)
    text = saxpy.ir(2.0, x, y)
    body = text[text.index("do(") :]
    assert "grid_dim" not in body and "shape" not in body
    saxpy[4, 32](2.0, x, y)
    np.testing.assert_array_equal(y, 2 * x + 1)
