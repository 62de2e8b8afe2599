"""The sim runtime: hand-built IR run over every thread at once, checked against NumPy/Python,
plus a few real kernels through `simt.kernel` on `sim`."""

from __future__ import annotations

import gc
import io
import linecache
import math
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import simt
from simt.errors import KernelError, LaunchError
from simt.ir import Block, Builder, Field, Function, Loc, Param, Value, verify
from simt.runtime import registry
from simt.runtime.base import Dim3
from simt.runtime.sim import SimRuntime
from simt.types import BOOL, FLOAT32, FLOAT64, INT32, INT64, UINT32, ArrayType, Scalar

I32_MIN, I32_MAX = -(2**31), 2**31 - 1

# -- building kernels by hand -------------------------------------------------------------------


class K:
    """A kernel under construction: typed parameters and a builder on its body."""

    def __init__(self, name: str, **params: Scalar | ArrayType) -> None:
        self.name = name
        self.params = [Param(n, k, Value(t, n)) for k, (n, t) in enumerate(params.items())]
        self.body = Block()
        self.b = Builder(self.body)

    def __getitem__(self, name: str) -> Value:
        return next(p.value for p in self.params if p.name == name)

    def at(self, line: int, text: str = "") -> None:
        """Stamp the next ops with a source line."""
        self.b.loc = Loc("kern.py", line, 4, text)

    def fn(self) -> Function:
        f = Function(self.name, self.params, self.body, filename="kern.py")
        verify(f)
        return f

    # shorthands
    def c(self, value: Any, t: Scalar = INT32) -> Value:
        return self.b.const(value, t)

    def gid(self, axis: int = 0) -> Value:
        b = self.b
        return b.bin(
            "add",
            b.bin("mul", b.special("block_idx", axis), b.special("block_dim", axis)),
            b.special("thread_idx", axis),
        )

    def load(self, arr: Value, *idx: Value) -> Value:
        return self.b.op("load", [arr, *idx], [arr.array.dtype]).result

    def store(self, arr: Value, *idx_and_value: Value) -> None:
        self.b.op("store", [arr, *idx_and_value])

    def shape(self, arr: Value, dim: int = 0) -> Value:
        return self.b.op("shape", [arr], [arr.array.index], dim=dim).result

    def if_(
        self,
        cond: Value,
        then: Callable[[], Sequence[Value]],
        other: Callable[[], Sequence[Value]] | None = None,
        types: Sequence[Scalar] = (),
    ) -> list[Value]:
        regions = []
        for fill in (then, other or (lambda: [])):
            r = Block()
            with self.b.at(r):
                ys = list(fill() or [])
                self.b.op("yield", ys)
            regions.append(r)
        return self.b.op("if", [cond], list(types), regions).results

    def for_(
        self,
        start: Value,
        stop: Value,
        step: Value,
        inits: Sequence[Value],
        body: Callable[..., Sequence[Value]],
        sign: int = 1,
    ) -> list[Value]:
        blk = Block(args=[Value(start.type, "i"), *(Value(v.type, "acc") for v in inits)])
        with self.b.at(blk):
            ys = list(body(*blk.args) or [])
            self.b.op("yield", ys)
        types = [v.type for v in inits]
        return self.b.op("for", [start, stop, step, *inits], types, [blk], sign=sign).results

    def while_(
        self,
        inits: Sequence[Value],
        cond: Callable[..., Value],
        body: Callable[..., Sequence[Value]],
    ) -> list[Value]:
        cblk = Block(args=[Value(v.type, "w") for v in inits])
        bblk = Block(args=[Value(v.type, "w") for v in inits])
        with self.b.at(cblk):
            self.b.op("condition", [cond(*cblk.args)])
        with self.b.at(bblk):
            self.b.op("yield", list(body(*bblk.args)))
        types = [v.type for v in inits]
        return self.b.op("while", list(inits), types, [cblk, bblk]).results


def arr(t: Scalar, ndim: int = 1) -> ArrayType:
    return ArrayType(t, ndim)


RT = SimRuntime()


def run(fn: Function, grid: Any, block: Any, *args: Any) -> None:
    g = grid if isinstance(grid, Dim3) else Dim3(*((grid,) if isinstance(grid, int) else grid))
    b = block if isinstance(block, Dim3) else Dim3(*((block,) if isinstance(block, int) else block))
    RT.launch(RT.compile(fn), g, b, list(args))


def elementwise(op: str, t: Scalar, kind: str = "bin") -> Function:
    """out[i] = a[i] OP b[i] for every i < len(out)."""
    k = K(f"{kind}_{op}", a=arr(t), b=arr(t), out=arr(BOOL if kind == "cmp" else t))
    i = k.gid()
    cond = k.b.cmp("lt", i, k.shape(k["out"]))

    def then() -> list[Value]:
        x, y = k.load(k["a"], i), k.load(k["b"], i)
        k.store(k["out"], i, k.b.bin(op, x, y) if kind == "bin" else k.b.cmp(op, x, y))
        return []

    k.if_(cond, then)
    return k.fn()


def scalar_op(op: str, t: Scalar) -> Function:
    """out[0] = x OP y on scalar parameters (the uniform path), stored by every thread."""
    k = K(f"scalar_{op}", x=t, y=t, out=arr(t))
    k.store(k["out"], k.c(0), k.b.bin(op, k["x"], k["y"]))
    return k.fn()


def wrap32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def py_floordiv(a: int, b: int) -> int:
    return 0 if b == 0 else a // b


def py_mod(a: int, b: int) -> int:
    return 0 if b == 0 else a % b


def py_ipow(a: int, b: int) -> int:
    if b < 0:
        return 1 if a == 1 else (-1 if b % 2 else 1) if a == -1 else 0
    return wrap32(pow(a, b, 1 << 32))


INT_REF: dict[str, Callable[[int, int], int]] = {
    "add": lambda a, b: wrap32(a + b),
    "sub": lambda a, b: wrap32(a - b),
    "mul": lambda a, b: wrap32(a * b),
    "floordiv": lambda a, b: wrap32(py_floordiv(a, b)),
    "mod": py_mod,
    "pow": py_ipow,
    "min": min,
    "max": max,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "shl": lambda a, b: wrap32(a << (b & 31)),
    "shr": lambda a, b: a >> (b & 31),
}

_EDGE = [0, 1, -1, 2, -2, 3, -3, 7, -7, 31, 32, 33, -33, 100, I32_MAX, I32_MIN, I32_MIN + 1]
INT_PAIRS = [(a, b) for a in _EDGE for b in _EDGE]


# -- arithmetic ---------------------------------------------------------------------------------


@pytest.mark.parametrize("op", sorted(INT_REF))
def test_int32_ops_match_python_semantics(op: str) -> None:
    a = np.array([p[0] for p in INT_PAIRS], np.int32)
    b = np.array([p[1] for p in INT_PAIRS], np.int32)
    if op == "pow":
        b = np.clip(b, -3, 40).astype(np.int32)
    out = np.zeros_like(a)
    run(elementwise(op, INT32), 3, 128, a, b, out)
    expected = np.array([INT_REF[op](int(x), int(y)) for x, y in zip(a, b)], np.int32)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("op", sorted(INT_REF))
def test_int32_ops_on_uniform_scalars(op: str) -> None:
    fn = scalar_op(op, INT32)
    for x, y in [(7, -2), (-7, 2), (-7, 0), (I32_MAX, 1), (I32_MIN, -1), (-1, -3), (2, 33)]:
        out = np.zeros(1, np.int32)
        run(fn, 1, 4, np.int32(x), np.int32(y), out)
        assert out[0] == INT_REF[op](x, y), (op, x, y)


def test_uint32_and_int64_wrap() -> None:
    a = np.array([0, 1, 2**32 - 1], np.uint32)
    out = np.zeros(3, np.uint32)
    run(elementwise("sub", UINT32), 1, 3, a, np.ones(3, np.uint32), out)
    np.testing.assert_array_equal(out, [2**32 - 1, 0, 2**32 - 2])
    b = np.array([2**63 - 1, -(2**63)], np.int64)
    out64 = np.zeros(2, np.int64)
    run(elementwise("add", INT64), 1, 2, b, np.array([1, -1], np.int64), out64)
    np.testing.assert_array_equal(out64, [-(2**63), 2**63 - 1])


@pytest.mark.parametrize("t", [FLOAT32, FLOAT64])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "floordiv", "mod", "pow", "min"])
def test_float_ops_keep_their_type_and_python_floor_semantics(op: str, t: Scalar) -> None:
    dt = t.np
    a = np.array([7.5, -7.5, 7.5, -7.5, 0.1, 3.0, 1.0], dt)
    b = np.array([2.0, 2.0, -2.0, -2.0, 0.3, 0.0, 0.5], dt)
    out = np.zeros_like(a)
    run(elementwise(op, t), 1, 8, a, b, out)
    ref = {
        "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
        "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power, "min": np.minimum,
    }[op]  # fmt: skip
    with np.errstate(all="ignore"):
        expected = ref(a, b)  # NumPy's float32 ufuncs compute in float32, as a kernel must
    np.testing.assert_array_equal(out, expected)
    if op in ("floordiv", "mod"):
        py = [getattr(float(x), f"__{op}__")(float(y)) for x, y in zip(a[:5], b[:5])]
        np.testing.assert_allclose(out[:5], py, rtol=1e-6)


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparisons(op: str) -> None:
    a = np.array([1, 2, 3, -5], np.int32)
    b = np.array([2, 2, 2, -5], np.int32)
    out = np.zeros(4, bool)
    run(elementwise(op, INT32, kind="cmp"), 1, 4, a, b, out)
    names = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
             "gt": "greater", "ge": "greater_equal"}  # fmt: skip
    np.testing.assert_array_equal(out, getattr(np, names[op])(a, b))


def test_casts_truncate_toward_zero_and_wrap() -> None:
    k = K("casts", f=arr(FLOAT32), big=arr(INT64), oi=arr(INT32), of=arr(FLOAT64), ob=arr(BOOL))
    i = k.gid()
    x = k.load(k["f"], i)
    k.store(k["oi"], i, k.b.cast(x, INT32))
    k.store(k["of"], i, k.b.cast(k.b.cast(k.load(k["big"], i), INT32), FLOAT64))
    k.store(k["ob"], i, k.b.cast(x, BOOL))
    fn = k.fn()
    f = np.array([2.7, -2.7, 0.0, -0.5], np.float32)
    big = np.array([2**32 + 5, -(2**31) - 1, 7, -7], np.int64)
    oi, of, ob = np.zeros(4, np.int32), np.zeros(4), np.zeros(4, bool)
    run(fn, 1, 4, f, big, oi, of, ob)
    np.testing.assert_array_equal(oi, [2, -2, 0, 0])
    np.testing.assert_array_equal(of, [5, 2**31 - 1, 7, -7])
    np.testing.assert_array_equal(ob, [True, True, False, True])


def test_unary_ops() -> None:
    k = K("unary", a=arr(INT32), o=arr(INT32), b=arr(BOOL), ob=arr(BOOL))
    i = k.gid()
    x = k.load(k["a"], i)
    s = k.b.bin("add", k.b.un("neg", x), k.b.bin("mul", k.b.un("abs", x), k.c(3)))
    k.store(k["o"], i, k.b.bin("xor", s, k.b.un("invert", x)))
    k.store(k["ob"], i, k.b.un("not", k.load(k["b"], i)))
    fn = k.fn()
    a = np.array([5, -5, 0, I32_MIN], np.int32)
    o, ob = np.zeros(4, np.int32), np.zeros(4, bool)
    run(fn, 1, 4, a, o, np.array([True, False, True, False]), ob)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(o, (-a + np.abs(a) * np.int32(3)) ^ ~a)
    np.testing.assert_array_equal(ob, [False, True, False, True])


@pytest.mark.parametrize("name", ["sqrt", "sin", "exp", "atan2", "erf", "floor", "hypot"])
def test_math_functions_stay_float32(name: str) -> None:
    from simt.builtins import MATH

    fn_info = MATH[name]
    k = K(f"math_{name}", a=arr(FLOAT32), b=arr(FLOAT32), o=arr(FLOAT32))
    i = k.gid()
    args = [k.load(k["a"], i), k.load(k["b"], i)][: fn_info.nargs]
    k.store(k["o"], i, k.b.op("math", args, [FLOAT32], fn=name).result)
    a = np.linspace(0.1, 2.0, 16, dtype=np.float32)
    b = np.linspace(-1.0, 1.0, 16, dtype=np.float32)
    o = np.zeros(16, np.float32)
    run(k.fn(), 2, 8, a, b, o)
    import math

    ref = {"erf": np.vectorize(math.erf)(a.astype(np.float64))}.get(name)
    if ref is None:
        ref = getattr(np, {"atan2": "arctan2"}.get(name, name))(*([a, b][: fn_info.nargs]))
    np.testing.assert_allclose(o, ref, rtol=2e-7, atol=1e-7)


def test_select_and_isnan() -> None:
    k = K("sel", a=arr(FLOAT32), o=arr(FLOAT32))
    i = k.gid()
    x = k.load(k["a"], i)
    nan = k.b.op("math", [x], [BOOL], fn="isnan").result
    k.store(k["o"], i, k.b.select(nan, k.c(-1.0, FLOAT32), x))
    a = np.array([1.0, np.nan, 3.0], np.float32)
    o = np.zeros(3, np.float32)
    run(k.fn(), 1, 3, a, o)
    np.testing.assert_array_equal(o, [1.0, -1.0, 3.0])


# -- threads and masks --------------------------------------------------------------------------


def test_special_registers_in_3d() -> None:
    k = K("regs", o=arr(INT32, 2))
    b = k.b
    regs = [b.special(r, a) for r in ("thread_idx", "block_idx", "block_dim", "grid_dim")
            for a in range(3)]  # fmt: skip

    def mad(x: Value, y: Value, z: Value) -> Value:
        return b.bin("add", x, b.bin("mul", y, z))

    tl = mad(regs[0], regs[6], mad(regs[1], regs[7], regs[2]))  # thread linear id, x fastest
    bl = mad(regs[3], regs[9], mad(regs[4], regs[10], regs[5]))  # block linear id
    lin = mad(tl, bl, b.bin("mul", regs[6], b.bin("mul", regs[7], regs[8])))
    for col, v in enumerate(regs):
        k.store(k["o"], lin, k.c(col), v)
    grid, block = Dim3(2, 3, 2), Dim3(4, 2, 3)
    o = np.zeros((grid.size * block.size, 12), np.int32)
    run(k.fn(), grid, block, o)
    lane = np.arange(len(o))
    t, bb = lane % block.size, lane // block.size
    exp = [t % 4, (t // 4) % 2, t // 8, bb % 2, (bb // 2) % 3, bb // 6]
    exp += [np.full_like(lane, v) for v in (4, 2, 3, 2, 3, 2)]
    np.testing.assert_array_equal(o, np.stack(exp, axis=1))


def test_vector_add_with_partial_last_block_and_inactive_out_of_range_lanes() -> None:
    fn = elementwise("add", FLOAT32)
    n = 1000
    a = np.random.default_rng(0).random(n, np.float32)
    b = np.random.default_rng(1).random(n, np.float32)
    out = np.zeros(n, np.float32)
    run(fn, 4, 256, a, b, out)  # 1024 lanes: 24 are inactive, with indices past the end
    np.testing.assert_array_equal(out, a + b)
    out2 = np.zeros(n, np.float32)
    run(fn, Dim3(2, 2), 256, a, b, out2)  # a 2-D grid: the x index is no longer the lane
    np.testing.assert_array_equal(out2[:512], (a + b)[:512])


def test_nested_varying_if_merges_values() -> None:
    k = K("classify", a=arr(INT32), o=arr(INT32))
    i = k.gid()
    x = k.load(k["a"], i)

    def pos() -> list[Value]:
        big = k.b.cmp("gt", x, k.c(10))
        return k.if_(big, lambda: [k.b.bin("mul", x, k.c(2))], lambda: [x], [INT32])

    (r,) = k.if_(k.b.cmp("gt", x, k.c(0)), pos, lambda: [k.b.un("neg", x)], [INT32])
    k.store(k["o"], i, r)
    a = np.array([-3, 5, 20, 0, 11, -12, 7, 10], np.int32)
    o = np.zeros(8, np.int32)
    run(k.fn(), 2, 4, a, o)
    np.testing.assert_array_equal(o, np.where(a > 0, np.where(a > 10, 2 * a, a), -a))


def test_branches_without_lanes_are_skipped() -> None:
    fn = elementwise("add", FLOAT32)
    empty = np.zeros(0, np.float32)
    run(fn, 2, 4, empty, empty, empty)  # no lane passes `i < len(out)`: nothing is touched
    k = K("skip", a=arr(FLOAT32), o=arr(FLOAT32))
    i = k.gid()

    def far() -> list[Value]:  # a uniform out-of-range read, in a branch no lane takes
        k.store(k["o"], k.c(0), k.load(k["a"], k.c(999)))
        return []

    k.if_(k.b.cmp("gt", i, k.c(1000)), far)
    a, o = np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
    run(k.fn(), 1, 4, a, o)
    assert not o.any()


def test_if_whose_lanes_all_take_one_side() -> None:
    k = K("oneside", a=arr(INT32), o=arr(INT32))
    i = k.gid()
    x = k.load(k["a"], i)
    cond = k.b.cmp("gt", x, k.c(0))
    (r,) = k.if_(cond, lambda: [k.b.bin("mul", x, k.c(2))], lambda: [k.b.un("neg", x)], [INT32])
    k.store(k["o"], i, r)
    fn = k.fn()
    for a in (np.arange(1, 9, dtype=np.int32), -np.arange(1, 9, dtype=np.int32)):
        o = np.zeros(8, np.int32)
        run(fn, 2, 4, a, o)
        np.testing.assert_array_equal(o, np.where(a > 0, 2 * a, -a))


def test_varying_while_collatz_steps() -> None:
    k = K("collatz", o=arr(INT32))
    i = k.gid()
    start = k.b.bin("add", i, k.c(1))

    def cond(n: Value, steps: Value) -> Value:
        return k.b.cmp("ne", n, k.c(1))

    def body(n: Value, steps: Value) -> list[Value]:
        even = k.b.cmp("eq", k.b.bin("mod", n, k.c(2)), k.c(0))
        (nxt,) = k.if_(
            even,
            lambda: [k.b.bin("floordiv", n, k.c(2))],
            lambda: [k.b.bin("add", k.b.bin("mul", n, k.c(3)), k.c(1))],
            [INT32],
        )
        return [nxt, k.b.bin("add", steps, k.c(1))]

    _, steps = k.while_([start, k.c(0)], cond, body)
    k.store(k["o"], i, steps)
    o = np.zeros(64, np.int32)
    run(k.fn(), 2, 32, o)

    def ref(n: int) -> int:
        s = 0
        while n != 1:
            n, s = (n // 2 if n % 2 == 0 else 3 * n + 1), s + 1
        return s

    np.testing.assert_array_equal(o, [ref(n + 1) for n in range(64)])


@pytest.mark.parametrize("sign", [1, 0])
def test_for_with_varying_bounds(sign: int) -> None:
    # sum(range(i, 2*i + 3, step)) with a step the lane picks: 1 or 2
    k = K("varfor", o=arr(INT32))
    i = k.gid()
    step = k.b.bin("add", k.b.bin("mod", i, k.c(2)), k.c(1))
    stop = k.b.bin("add", k.b.bin("mul", i, k.c(2)), k.c(3))
    (total,) = k.for_(i, stop, step, [k.c(0)], lambda j, acc: [k.b.bin("add", acc, j)], sign)
    k.store(k["o"], i, total)
    o = np.zeros(40, np.int32)
    run(k.fn(), 5, 8, o)
    np.testing.assert_array_equal(o, [sum(range(n, 2 * n + 3, n % 2 + 1)) for n in range(40)])


@pytest.mark.parametrize("sign", [-1, 0])
def test_for_with_uniform_negative_step_and_varying_carried_value(sign: int) -> None:
    k = K("downfor", n=INT32, o=arr(INT32))
    i = k.gid()

    def step(j: Value, acc: Value) -> list[Value]:
        return [k.b.bin("sub", k.b.bin("mul", acc, k.c(2)), j)]

    (r,) = k.for_(k["n"], k.c(0), k.c(-3), [i], step, sign)
    k.store(k["o"], i, r)
    o = np.zeros(16, np.int32)
    run(k.fn(), 1, 16, np.int32(10), o)

    def ref(x: int) -> int:
        for j in range(10, 0, -3):
            x = x * 2 - j
        return x

    np.testing.assert_array_equal(o, [ref(x) for x in range(16)])


def test_uniform_for_inside_varying_if_and_zero_step() -> None:
    k = K("inner", o=arr(INT32), step=INT32)
    i = k.gid()

    def then() -> list[Value]:
        (s,) = k.for_(k.c(0), k.c(5), k["step"], [i], lambda j, acc: [k.b.bin("add", acc, j)], 0)
        k.store(k["o"], i, s)
        return []

    k.if_(k.b.cmp("lt", i, k.c(6)), then)
    fn = k.fn()
    o = np.full(8, -1, np.int32)
    run(fn, 1, 8, o, np.int32(2))
    np.testing.assert_array_equal(o, [x + 6 for x in range(6)] + [-1, -1])
    run(fn, 1, 8, o, np.int32(0))  # a zero step runs no iteration
    np.testing.assert_array_equal(o, list(range(6)) + [-1, -1])


# -- memory ------------------------------------------------------------------------------------


def test_shared_memory_tree_reduction_with_barriers() -> None:
    bs = 64
    k = K("block_sum", a=arr(FLOAT32), out=arr(FLOAT32))
    b = k.b
    sh = b.op("alloc", [], [ArrayType(FLOAT32, 1, "shared", (bs,))]).result
    t = b.special("thread_idx", 0)
    i = k.gid()
    k.store(sh, t, k.load(k["a"], i))
    b.op("barrier")

    def cond(s: Value) -> Value:
        return b.cmp("gt", s, k.c(0))

    def body(s: Value) -> list[Value]:
        def add() -> list[Value]:
            k.store(sh, t, b.bin("add", k.load(sh, t), k.load(sh, b.bin("add", t, s))))
            return []

        k.if_(b.cmp("lt", t, s), add)
        b.op("barrier")
        return [b.bin("floordiv", s, k.c(2))]

    k.while_([k.c(bs // 2)], cond, body)

    def write_out() -> list[Value]:
        k.store(k["out"], b.special("block_idx", 0), k.load(sh, k.c(0)))
        return []

    k.if_(b.cmp("eq", t, k.c(0)), write_out)
    a = np.arange(8 * bs, dtype=np.float32)
    out = np.zeros(8, np.float32)
    run(k.fn(), 8, bs, a, out)
    np.testing.assert_array_equal(out, a.reshape(8, bs).sum(axis=1))


def test_local_arrays_are_per_thread() -> None:
    k = K("local", o=arr(INT32))
    b = k.b
    loc = b.op("alloc", [], [ArrayType(INT32, 1, "local", (4,))]).result
    i = k.gid()

    def fill(j: Value) -> list[Value]:
        k.store(loc, j, b.bin("mul", i, j))
        return []

    k.for_(k.c(0), k.c(4), k.c(1), [], fill)
    (s,) = k.for_(
        k.c(0), k.c(4), k.c(1), [k.c(0)], lambda j, acc: [b.bin("add", acc, k.load(loc, j))]
    )
    k.store(k["o"], i, s)
    o = np.zeros(12, np.int32)
    run(k.fn(), 3, 4, o)
    np.testing.assert_array_equal(o, np.arange(12) * 6)


def test_two_dimensional_arrays_and_snapshot_semantics_of_loads() -> None:
    k = K("swap2d", a=arr(FLOAT32, 2))
    i, j = k.gid(0), k.gid(1)
    x = k.load(k["a"], j, i)
    k.store(k["a"], j, i, k.c(0.0, FLOAT32))
    k.store(k["a"], j, i, k.b.bin("add", x, k.c(1.0, FLOAT32)))  # x was read before the zero
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    run(k.fn(), (1, 1), (4, 3), a)
    np.testing.assert_array_equal(a, np.arange(12).reshape(3, 4) + 1)
    k2 = K("copy1d", a=arr(FLOAT32), o=arr(FLOAT32))
    i = k2.gid()
    x = k2.load(k2["a"], i)
    k2.store(k2["a"], i, k2.c(5.0, FLOAT32))
    k2.store(k2["o"], i, x)
    a1, o1 = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    run(k2.fn(), 2, 4, a1, o1)
    np.testing.assert_array_equal(o1, np.arange(8))
    np.testing.assert_array_equal(a1, np.full(8, 5.0))


def test_store_conflict_last_thread_wins() -> None:
    k = K("last", o=arr(INT32))
    k.store(k["o"], k.c(0), k.gid())
    o = np.zeros(1, np.int32)
    run(k.fn(), 3, 5, o)
    assert o[0] == 14


# -- atomics -----------------------------------------------------------------------------------


def atomic_kernel(op: str, t: Scalar, used: bool, only_even: bool = False) -> Function:
    k = K(f"atomic_{op}", data=arr(t), bins=arr(INT32), table=arr(t), old=arr(t))
    i = k.gid()

    def body() -> list[Value]:
        v = k.load(k["data"], i)
        where = k.load(k["bins"], i)
        if op == "cas":
            r = k.b.op("cas", [k["table"], where, k.c(0, t), v], [t]).result
        else:
            r = k.b.op("atomic", [k["table"], where, v], [t], op=op).result
        if used:
            k.store(k["old"], i, r)
        return []

    cond = k.b.cmp("lt", i, k.shape(k["data"]))
    if only_even:
        even = k.b.cmp("eq", k.b.bin("mod", i, k.c(2)), k.c(0))
        cond = k.b.bin("and", cond, even)
    k.if_(cond, body)
    return k.fn()


def sequential_atomics(op: str, data: np.ndarray, bins: np.ndarray, table: np.ndarray,
                       active: np.ndarray) -> np.ndarray:  # fmt: skip
    """The reference: threads one after another in linear order."""
    old = np.zeros_like(data)
    rules: dict[str, Callable[[Any, Any], Any]] = {
        "add": lambda o, v: o + v,
        "sub": lambda o, v: o - v,
        "min": min,
        "max": max,
        "exch": lambda o, v: v,
        "and": lambda o, v: o & v,
        "or": lambda o, v: o | v,
        "xor": lambda o, v: o ^ v,
        "cas": lambda o, v: v if o == 0 else o,
    }
    apply = rules[op]  # fmt: skip
    with np.errstate(all="ignore"):
        for t in np.flatnonzero(active):
            old[t] = table[bins[t]]
            table[bins[t]] = apply(old[t], data[t])
    return old


@pytest.mark.parametrize("used", [True, False])
@pytest.mark.parametrize("op", ["add", "sub", "min", "max", "exch", "and", "or", "xor", "cas"])
def test_int_atomics_sequential_semantics(op: str, used: bool) -> None:
    rng = np.random.default_rng(7)
    n = 3000
    data = rng.integers(-50, 50, n).astype(np.int32)
    # A skewed address distribution: one bin gets over 1000 lanes (the long-group path).
    bins = np.where(rng.random(n) < 0.4, 0, rng.integers(0, 17, n)).astype(np.int32)
    table = rng.integers(-3, 3, 17).astype(np.int32)
    old = np.zeros(n, np.int32)
    ref_table = table.copy()
    active = np.arange(n) % 2 == 0
    ref_old = sequential_atomics(op, data, bins, ref_table, active)
    run(atomic_kernel(op, INT32, used, only_even=True), 12, 256, data, bins, table, old)
    np.testing.assert_array_equal(table, ref_table)
    if used:
        np.testing.assert_array_equal(old[active], ref_old[active])


def test_histogram_with_used_results_returns_ranks() -> None:
    rng = np.random.default_rng(3)
    n = 5000
    bins = rng.integers(0, 8, n).astype(np.int32)
    ones = np.ones(n, np.int32)
    table, old = np.zeros(8, np.int32), np.zeros(n, np.int32)
    run(atomic_kernel("add", INT32, True), 20, 256, ones, bins, table, old)
    np.testing.assert_array_equal(table, np.bincount(bins, minlength=8))
    # each thread's old value is the number of lower threads that hit its bin first
    expected = np.array([np.count_nonzero(bins[:t] == bins[t]) for t in range(n)])
    np.testing.assert_array_equal(old, expected)


@pytest.mark.parametrize("used", [True, False])
def test_float_atomic_add_adds_in_thread_order(used: bool) -> None:
    rng = np.random.default_rng(5)
    n = 700
    data = (rng.random(n) * 1000).astype(np.float32)
    bins = (rng.random(n) < 0.7).astype(np.int32)
    table, old = np.zeros(2, np.float32), np.zeros(n, np.float32)
    ref_table = table.copy()
    ref_old = sequential_atomics("add", data, bins, ref_table, np.ones(n, bool))
    run(atomic_kernel("add", FLOAT32, used), 3, 256, data, bins, table, old)
    np.testing.assert_array_equal(table, ref_table)  # bit-exact: same order of roundings
    if used:
        np.testing.assert_array_equal(old, ref_old)


def test_atomic_counter_on_one_address_hands_out_slots() -> None:
    k = K("slots", count=arr(INT32), o=arr(INT32))
    i = k.gid()
    r = k.b.op("atomic", [k["count"], k.c(0), k.c(1)], [INT32], op="add").result
    k.store(k["o"], r, i)
    count, o = np.zeros(1, np.int32), np.full(96, -1, np.int32)
    run(k.fn(), 3, 32, count, o)
    assert count[0] == 96
    np.testing.assert_array_equal(o, np.arange(96))


def test_atomic_value_read_from_the_same_array_is_a_snapshot() -> None:
    k = K("selfadd", a=arr(INT32))
    i = k.gid()
    v = k.load(k["a"], i)  # every lane reads its element before any lane adds
    nxt = k.b.bin("mod", k.b.bin("add", i, k.c(1)), k.c(8))
    k.b.op("atomic", [k["a"], nxt, v], [INT32], op="add")
    a = np.arange(1, 9, dtype=np.int32)
    run(k.fn(), 1, 8, a)
    np.testing.assert_array_equal(a, np.arange(1, 9) + np.roll(np.arange(1, 9), 1))


# -- errors ------------------------------------------------------------------------------------


def bounds_kernel(kind: str) -> Function:
    k = K(f"oob_{kind}", a=arr(FLOAT32), o=arr(FLOAT32))
    i = k.gid()
    k.at(3, "    j = i * 2")
    j = k.b.bin("mul", i, k.c(2))
    k.at(4, "    if i % 3 != 1:")
    cond = k.b.cmp("ne", k.b.bin("mod", i, k.c(3)), k.c(1))

    def body() -> list[Value]:
        if kind == "read":
            k.at(5, "        o[i] = a[j]")
            k.store(k["o"], i, k.load(k["a"], j))
        elif kind == "write":
            k.at(5, "        o[j] = 1.0")
            k.store(k["o"], j, k.c(1.0, FLOAT32))
        else:
            k.at(5, "        simt.atomic.add(o, j, 1.0)")
            k.b.op("atomic", [k["o"], j, k.c(1.0, FLOAT32)], [FLOAT32], op="add")
        return []

    k.if_(cond, body)
    return k.fn()


@pytest.mark.parametrize(("kind", "what"), [("read", "read"), ("write", "write"),
                                            ("atomic", "atomic")])  # fmt: skip
def test_out_of_bounds_names_first_failing_thread_and_line(kind: str, what: str) -> None:
    a, o = np.zeros(64, np.float32), np.zeros(64, np.float32)
    # j = 2i >= 64 first for i = 32, but i = 34 is the first lane with i % 3 != 1 (32 % 3 == 2:
    # i = 32 is active). Threads of 16: i = 32 is block 2, thread 0.
    with pytest.raises(KernelError) as e:
        run(bounds_kernel(kind), 4, 16, a, o)
    err = e.value
    assert (err.block, err.thread) == ((2, 0, 0), (0, 0, 0))
    assert err.line == 5 and err.filename == "kern.py"
    assert f"index out of bounds in array {what}" in str(err)
    assert "kern.py:5:" in str(err)


def test_out_of_bounds_skips_inactive_lanes() -> None:
    a, o = np.zeros(67, np.float32), np.zeros(67, np.float32)
    with pytest.raises(KernelError) as e:  # lane 34 fails first: lanes 33 (= 0 mod 3) ... no:
        run(bounds_kernel("read"), 3, 32, a, o)  # j = 2i >= 67 from i = 34; 34 % 3 == 1 skipped
    assert (e.value.block, e.value.thread) == ((1, 0, 0), (3, 0, 0))  # i = 35


def test_negative_index_and_2d_thread_naming() -> None:
    k = K("neg", a=arr(FLOAT32, 2))
    x, y = k.gid(0), k.gid(1)
    k.at(9, "    a[y - 1, x] = 0.0")
    k.store(k["a"], k.b.bin("sub", y, k.c(1)), x, k.c(0.0, FLOAT32))
    with pytest.raises(KernelError) as e:
        run(k.fn(), (2, 2), (2, 2), np.zeros((4, 4), np.float32))
    # lanes with y == 0: block (0, 0), threads (0, 0) first
    assert (e.value.block, e.value.thread) == ((0, 0, 0), (0, 0, 0))
    assert "write" in str(e.value) and e.value.line == 9


def test_a_bad_uniform_index_fails_the_first_active_thread() -> None:
    k = K("uni", a=arr(FLOAT32, 2), row=INT32)
    i = k.gid()
    k.at(4, "    a[row, i] = 1.0")
    k.store(k["a"], k["row"], k.b.bin("add", i, k.c(2)), k.c(1.0, FLOAT32))
    with pytest.raises(KernelError) as e:  # row 9 is out of bounds for every thread, i + 2
        run(k.fn(), 2, 4, np.zeros((3, 8), np.float32), np.int32(9))  # for threads 6 and 7
    assert (e.value.block, e.value.thread) == ((0, 0, 0), (0, 0, 0))


def test_assert_names_first_failing_thread_and_message() -> None:
    k = K("asserting", a=arr(INT32))
    i = k.gid()
    k.at(7, "        assert a[i] >= 0, 'negative input'")
    ok = k.b.cmp("ge", k.load(k["a"], i), k.c(0))

    def body() -> list[Value]:
        k.b.op("assert", [ok], msg="negative input")
        return []

    k.if_(k.b.cmp("ne", i, k.c(5)), body)  # lane 5 never asserts
    a = np.zeros(40, np.int32)
    a[[5, 21, 30]] = -1
    with pytest.raises(KernelError) as e:
        run(k.fn(), 5, 8, a)
    assert (e.value.block, e.value.thread) == ((2, 0, 0), (5, 0, 0))
    assert "assertion failed: negative input" in str(e.value)
    assert e.value.line == 7
    a[21] = a[30] = 0
    run(k.fn(), 5, 8, a)  # only lane 5 is negative, and it does not assert


# -- print -------------------------------------------------------------------------------------


def test_print_is_thread_major(capsys: pytest.CaptureFixture[str]) -> None:
    k = K("printer", a=arr(FLOAT32))
    i = k.gid()
    x = k.load(k["a"], i)
    odd = k.b.cmp("eq", k.b.bin("mod", i, k.c(2)), k.c(1))

    def loop(j: Value) -> list[Value]:
        k.b.op("print", [i, j], parts=("t", Field(0), " j", Field(1), "\n"))
        return []

    def say_odd() -> list[Value]:
        k.b.op("print", [i, x], parts=("odd ", Field(0), " ", Field(1, ".2f"), "\n"))
        return []

    k.if_(odd, say_odd)
    k.for_(k.c(0), k.b.bin("mod", i, k.c(3)), k.c(1), [], loop)
    k.b.op("print", [x], parts=("x=", Field(0), "\n"))
    a = np.array([0.1, 1.5, 2.25, 3.0], np.float32)
    run(k.fn(), 2, 2, a)
    out = capsys.readouterr().out
    expected = []
    for t in range(4):
        if t % 2:
            expected.append(f"odd {t} {a[t]:.2f}")
        expected += [f"t{t} j{j}" for j in range(t % 3)]
        expected.append(f"x={a[t]!s}")
    assert out == "\n".join(expected) + "\n"
    assert "x=0.1\n" in out  # float32 prints its shortest form


# -- runtime API -------------------------------------------------------------------------------


def test_compile_cache_memory_api_and_probe() -> None:
    rt = SimRuntime()
    ok, why = SimRuntime.probe()
    assert ok and "NumPy" in why
    c1 = rt.compile(elementwise("add", FLOAT32))
    c2 = rt.compile(elementwise("add", FLOAT32))
    assert c1.handle is c2.handle and c1.source == c2.source
    buf = rt.upload(np.arange(4, dtype=np.float32))
    out = np.zeros(4, np.float32)
    rt.download(buf, out)
    np.testing.assert_array_equal(out, np.arange(4))
    assert rt.empty((2, 3), np.dtype(np.int32)).shape == (2, 3)
    from simt.array import host_view

    a = host_view(rt, np.ones(8, np.float32))
    o = host_view(rt, np.zeros(8, np.float32))
    rt.launch(c1, Dim3(1), Dim3(8), [a, a, o])
    np.testing.assert_array_equal(o.numpy(), np.full(8, 2.0))


def test_launch_errors() -> None:
    rt = SimRuntime()
    c = rt.compile(elementwise("add", FLOAT32))
    x = np.zeros(4, np.float32)
    with pytest.raises(LaunchError, match="3 arguments"):
        rt.launch(c, Dim3(1), Dim3(4), [x, x])
    with pytest.raises(LaunchError, match="float32"):
        rt.launch(c, Dim3(1), Dim3(4), [x, x, np.zeros(4)])
    with pytest.raises(LaunchError, match="positive"):
        rt.launch(c, Dim3(0), Dim3(4), [x, x, x])


# -- through the front end ----------------------------------------------------------------------


@pytest.fixture
def on_sim(monkeypatch: pytest.MonkeyPatch) -> None:
    simt.use("sim")


@simt.kernel
def _gather(src, idx, out):
    i = simt.grid(1)
    if i < len(out):
        out[i] = src[idx[i]]


@simt.kernel
def _ranks(bins, counts, rank):
    i = simt.grid(1)
    if i < len(bins):
        rank[i] = simt.atomic.add(counts, bins[i], 1)


@simt.kernel
def _say(a):
    i = simt.grid(1)
    if i % 2 == 0:
        print("thread", i, "has", a[i])


@simt.kernel
def _checked_sqrt(a, out, step):
    i = simt.grid(1)
    if i < len(a):
        assert a[i] >= 0, "negative input"
        total = 0.0
        for j in range(i, 0, step):  # a step known only at run time
            total += math.sqrt(a[j])
        out[i] = total


def test_real_kernel_with_assert_and_runtime_step(on_sim: None) -> None:
    a = np.arange(10, dtype=np.float32)
    out = np.zeros(10, np.float32)
    _checked_sqrt[2, 8](a, out, -1)
    ref = [sum(math.sqrt(x) for x in range(i, 0, -1)) for i in range(10)]
    np.testing.assert_allclose(out, ref, rtol=1e-5)
    a[9] = -1.0
    with pytest.raises(KernelError) as e:
        _checked_sqrt[2, 8](a, out, -1)
    assert (e.value.block, e.value.thread) == ((1, 0, 0), (1, 0, 0))
    assert "raised AssertionError" in str(e.value) and "negative input" in str(e.value)
    assert 'assert a[i] >= 0, "negative input"' in str(e.value)


def test_real_kernels_on_sim(on_sim: None, capsys: pytest.CaptureFixture[str]) -> None:
    src = np.arange(10, dtype=np.float32)
    idx = np.array([3, 1, 4, 1, 5], np.int32)
    out = np.zeros(5, np.float32)
    _gather[1, 8](src, idx, out)
    np.testing.assert_array_equal(out, src[idx])
    idx[3] = 10
    with pytest.raises(KernelError) as e:
        _gather[1, 8](src, idx, out)
    assert e.value.thread == (3, 0, 0) and "out[i] = src[idx[i]]" in str(e.value)

    bins = np.array([2, 0, 2, 2, 1, 0], np.int32)
    counts, rank = np.zeros(3, np.int32), np.zeros(6, np.int32)
    _ranks[2, 4](bins, counts, rank)
    np.testing.assert_array_equal(counts, [2, 1, 3])
    np.testing.assert_array_equal(rank, [0, 0, 1, 2, 0, 1])

    capsys.readouterr()
    _say[1, 4](np.array([0.5, 1.0, 1.5, 2.0], np.float32))
    assert capsys.readouterr().out == "thread 0 has 0.5\nthread 2 has 1.5\n"


def test_sim_source_is_python(on_sim: None) -> None:
    text = _gather.source("sim", np.zeros(3, np.float32), np.zeros(3, np.int32),
                          np.zeros(3, np.float32))  # fmt: skip
    compile(text, "<sim>", "exec")
    assert "def _gather(_c," in text and "_c.global_idx(0)" in text


def test_print_stream_argument_is_not_needed() -> None:
    # emit writes to sys.stdout by default: make sure a launch with no prints writes nothing
    buf = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(buf):
        run(elementwise("add", FLOAT32), 1, 2, *(np.zeros(2, np.float32) for _ in range(3)))
    assert buf.getvalue() == ""


def test_a_dropped_kernel_takes_its_numpy_program_along(
    on_sim: None, fresh_kernel: Callable[[int], Any]
) -> None:
    """The runtime finds a program again by its text only while a compiled kernel holds it:
    dropped kernels' programs (and their lines in linecache) are not kept for ever (mem11)."""
    rt = registry.get("sim")
    gc.collect()  # what earlier tests dropped (in cycles) goes now, not during the count
    before = len(rt._programs)
    dead = []
    names = []
    for n in range(5):
        k = fresh_kernel(n + 2)
        a = np.ones(4, np.float32)
        k[1, 4](a)
        assert a.tolist() == [n + 3.0] * 4
        (spec,) = k.specialisations("sim")
        dead.append(weakref.ref(spec.compiled.handle))
        names.append(spec.compiled.handle.__code__.co_filename)
        assert names[-1] in linecache.cache
        del k, spec
    gc.collect()
    assert all(r() is None for r in dead)
    assert len(rt._programs) <= before
    assert not any(n in linecache.cache for n in names)
