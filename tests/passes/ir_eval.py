"""A tiny IR interpreter for pass tests: one thread, NumPy scalar semantics (docs/semantics.md).

Tests run a function before and after a pass on random inputs and compare what it stored and
printed. Written independently of the passes so that it checks them rather than repeats them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from simt.builtins import MATH
from simt.ir import Block, Builder, Field, Function, Loc, Op, Param, Value, verify, walk
from simt.runtime.printing import format_print
from simt.types import BOOL, FLOAT32, FLOAT64, INT32, INT64, UINT32, ArrayType, Scalar, Type

Body = Callable[..., Any]


class EvalAssert(Exception):
    """An `assert` op failed."""


class EvalBounds(Exception):
    """A load or store was out of bounds (`op` is the access)."""

    def __init__(self, msg: str, op: Op | None = None) -> None:
        super().__init__(msg)
        self.op = op


def evaluate(fn: Function, args: list[Any], special: dict[str, int] | None = None) -> list[str]:
    """Run `fn` on `args` (NumPy arrays are written in place); returns the printed lines."""
    env: dict[int, Any] = {}
    for p, a in zip(fn.params, args):
        env[p.value.id] = a if isinstance(a, np.ndarray) else p.value.scalar.np.type(a)
    out: list[str] = []
    _run(fn.body, env, out, special or {})
    return out


def _np(t: Scalar, v: Any) -> Any:
    return t.np.type(v)


def _wrap(v: int, t: Scalar) -> Any:
    return np.array(v & ((1 << t.bits) - 1), dtype=np.uint64).astype(t.np)[()]


def _bin(name: str, t: Scalar, a: Any, b: Any) -> Any:
    if t.is_bool:
        return np.bool_({"and": a & b, "or": a | b, "xor": a ^ b, "min": a & b, "max": a | b}[name])
    if t.is_int:
        x, y = int(a), int(b)
        if name in ("shl", "shr"):
            y &= t.bits - 1
            return _wrap(x << y if name == "shl" else x >> y, t)
        if name == "pow":
            if y < 0:
                return _np(t, 1 if x == 1 else (-1 if x == -1 and y % 2 else (1 if x == -1 else 0)))
            return _wrap(pow(x, y, 1 << t.bits), t)
    if name == "pow":
        return _np(t, np.float64(a) ** np.float64(b))
    f = {
        "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
        "floordiv": np.floor_divide, "mod": np.remainder, "min": np.minimum,
        "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    }[name]  # fmt: skip
    return _np(t, f(a, b))


def _cast(t: Scalar, v: Any) -> Any:
    if t.is_bool:
        return np.bool_(v != 0)
    if t.is_int and isinstance(v, np.floating):
        f = float(v)
        return _wrap(math.trunc(f) if math.isfinite(f) else 0, t)  # unspecified: any value
    if t.is_int:
        return _wrap(int(v), t)
    return np.array(v).astype(t.np)[()]


def _op(op: Op, env: dict[int, Any], out: list[str], special: dict[str, int]) -> list[Any]:
    k = op.opcode
    a = [env[v.id] for v in op.operands]
    t = op.results[0].type if op.results else None
    if k == "const":
        return [_np(t, op.attrs["value"])]  # type: ignore[arg-type]
    if k == "bin":
        return [_bin(op.attrs["op"], t, a[0], a[1])]  # type: ignore[arg-type]
    if k == "cmp":
        f = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
             "gt": np.greater, "ge": np.greater_equal}[op.attrs["op"]]  # fmt: skip
        return [np.bool_(f(a[0], a[1]))]
    if k == "un":
        name, x = op.attrs["op"], a[0]
        if name in ("not", "invert") and t.is_bool:  # type: ignore[union-attr]
            return [np.bool_(not x)]
        if name == "not":
            return [_np(t, x == 0)]  # type: ignore[arg-type]
        if name == "invert":
            return [_np(t, ~x)]  # type: ignore[arg-type]
        return [_np(t, -x if name == "neg" else abs(x))]  # type: ignore[arg-type]
    if k == "cast":
        return [_cast(t, a[0])]  # type: ignore[arg-type]
    if k == "select":
        return [a[1] if a[0] else a[2]]
    if k == "math":
        row = MATH[op.attrs["fn"]]  # the table's reference, on float64 (int64 for ints)
        xs = [np.float64(x) if k == "float" else np.int64(x) for x, k in zip(a, row.operand_kinds)]
        with np.errstate(all="ignore"):
            return [_np(t, row.ref(*xs))]  # type: ignore[arg-type]
    if k == "special":
        return [np.int32(special.get(f"{op.attrs['reg']}.{'xyz'[op.attrs['axis']]}", 0))]
    if k == "shape":
        return [_np(op.operands[0].array.index, a[0].shape[op.attrs["dim"]])]
    if k == "alloc":
        at = op.results[0].array
        return [np.zeros(at.shape, at.dtype.np)]
    if k in ("load", "store", "atomic", "cas"):
        arr = a[0]
        nd = arr.ndim
        idx = tuple(int(i) for i in a[1 : 1 + nd])
        if any(not 0 <= i < n for i, n in zip(idx, arr.shape)):
            raise EvalBounds(f"{k} {idx} out of bounds {arr.shape}", op)
        old = arr[idx]
        if k == "store":
            arr[idx] = a[-1]
        elif k == "cas":
            if old == a[-2]:
                arr[idx] = a[-1]
        elif k == "atomic":
            name, v = op.attrs["op"], a[-1]
            new = v if name == "exch" else _bin(name, op.operands[0].array.dtype, old, v)
            arr[idx] = new
        return [] if k == "store" else [old]
    if k == "print":
        out.append(format_print(op.attrs["parts"], a))
        return []
    if k == "assert":
        if not a[0]:
            raise EvalAssert(op.attrs.get("msg"))
        return []
    if k in ("barrier", "exit", "fence"):
        return []  # (one thread at a time: a barrier waits for no one)
    if k == "warp":
        # one thread at a time: the thread is alone in its warp (lane 0), every lane it reads
        # gives its own value, and only it votes
        kind = op.attrs["op"]
        if kind.startswith("shfl"):
            return [a[1]]
        if kind == "activemask":
            return [np.uint32(1)]
        if kind == "ballot":
            return [np.uint32(int(a[0]) & int(bool(a[1])))]
        return [] if kind == "syncwarp" else [np.bool_(a[1])]
    if k == "if":
        return _run(op.regions[0 if a[0] else 1], env, out, special)
    if k == "for":
        start, stop, step = (int(x) for x in a[:3])
        carried = a[3:]
        body = op.regions[0]
        for i in range(start, stop, step):
            carried = _run(body, env, out, special, [_np(body.args[0].scalar, i), *carried])
        return carried
    if k == "while":
        cond, body = op.regions
        carried = a
        for _ in range(100_000):
            if not _run(cond, env, out, special, carried)[0]:
                return carried
            carried = _run(body, env, out, special, carried)
        raise RuntimeError("while loop did not end")
    raise NotImplementedError(k)


def _run(
    block: Block,
    env: dict[int, Any],
    out: list[str],
    special: dict[str, int],
    args: list[Any] | None = None,
) -> list[Any]:
    for v, x in zip(block.args, args or []):
        env[v.id] = x
    with np.errstate(all="ignore"):
        for op in block.ops:
            if op.opcode in ("yield", "condition"):
                return [env[v.id] for v in op.operands]
            for r, x in zip(op.results, _op(op, env, out, special)):
                env[r.id] = x
    return []


# --- Building test IR --------------------------------------------------------------------


def function(*params: Type) -> tuple[Function, Builder, list[Value]]:
    """An empty kernel with parameters `p0, p1, ...` of the given types, and a builder for it."""
    ps = [Param(f"p{i}", i, Value(t, f"p{i}")) for i, t in enumerate(params)]
    fn = Function("k", ps, Block())
    b = Builder(fn.body)
    b.loc = Loc("test.py", 1, 0)
    return fn, b, [p.value for p in ps]


def if_(b: Builder, cond: Value, then: Body, other: Body, types: list[Type]) -> list[Value]:
    """Append an `if`; `then` and `other` append their ops and return what they yield."""
    regions = []
    for fill in (then, other):
        region = Block()
        with b.at(region):
            b.op("yield", fill())
        regions.append(region)
    return b.op("if", [cond], types, regions).results


def for_(
    b: Builder, start: Value, stop: Value, step: Value, init: list[Value], body: Body
) -> list[Value]:
    """Append a `for`; `body(iv, *carried)` appends the body and returns what it yields."""
    region = Block([Value(start.type, "i"), *(Value(v.type, "c") for v in init)])
    with b.at(region):
        b.op("yield", body(*region.args))
    types = [v.type for v in init]
    return b.op("for", [start, stop, step, *init], types, [region], sign=0).results


def while_(b: Builder, init: list[Value], cond: Body, body: Body) -> list[Value]:
    """Append a `while`; `cond(*carried)` returns the bool, `body(*carried)` the next values."""
    types = [v.type for v in init]
    c, d = Block([Value(t) for t in types]), Block([Value(t) for t in types])
    with b.at(c):
        b.op("condition", [cond(*c.args)])
    with b.at(d):
        b.op("yield", body(*d.args))
    return b.op("while", init, types, [c, d]).results


def store(b: Builder, arr: Value, i: int, v: Value) -> None:
    """Append `arr[i] = v` with a constant index."""
    b.op("store", [arr, b.const(i, INT32), v])


def count(fn: Function, opcode: str) -> int:
    """How many `opcode` ops `fn` holds, nested ones included."""
    return sum(1 for op in walk(fn.body) if op.opcode == opcode)


def same_behaviour(
    build: Callable[[], Function],
    transform: Callable[[Function], Function],
    inputs: list[list[Any]],
) -> Function:
    """Check that `transform(build())` verifies and does what `build()` does on every input.

    Array inputs are copied for each run; stores, prints, failed asserts and out-of-bounds
    errors must agree. Returns the transformed function.
    """
    after = transform(build())
    verify(after)
    for args in inputs:
        results = []
        for fn in (build(), after):
            a = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
            try:
                printed: Any = evaluate(fn, a)
            except (EvalAssert, EvalBounds) as e:
                printed = type(e).__name__
            results.append((printed, [x for x in a if isinstance(x, np.ndarray)]))
        (p0, a0), (p1, a1) = results
        assert p0 == p1, (args, p0, p1)
        for x, y in zip(a0, a1):
            np.testing.assert_array_equal(x, y, err_msg=str(args))
    return after


# --- Random programs ---------------------------------------------------------------------

TYPES = (BOOL, INT32, INT64, UINT32, FLOAT32, FLOAT64)
_EDGES: dict[Scalar, list[Any]] = {
    BOOL: [True, False],
    INT32: [0, 1, -1, 2, 3, -7, 31, 32, 2**31 - 1, -(2**31)],
    INT64: [0, 1, -1, 5, 63, 2**63 - 1, -(2**63), 2**40],
    UINT32: [0, 1, 2, 31, 2**32 - 1, 2**31],
    FLOAT32: [0.0, -0.0, 1.0, -1.0, 0.5, 3.25, -7.5, 1e30, 0.1],
    FLOAT64: [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.0, 1e300, 0.1],
}
_BIN = {
    "b": ["and", "or", "xor"],
    "i": ["add", "sub", "mul", "floordiv", "mod", "pow", "min", "max", "and", "or", "xor",
          "shl", "shr"],
    "f": ["add", "sub", "mul", "div", "floordiv", "mod", "min", "max", "pow"],
}  # fmt: skip
N_OUT = 16
# Parameters of a random program: one output array per type, then scalar inputs.
RANDOM_PARAMS: list[Type] = [ArrayType(t, 1) for t in TYPES] + [INT32, INT32, FLOAT32, UINT32]


def random_inputs(rng: random.Random, n: int) -> list[list[Any]]:
    """`n` argument lists for a random program: zeroed outputs, edge-case and random scalars."""
    out = []
    for _ in range(n):
        arrays = [np.zeros(N_OUT, t.np) for t in TYPES]
        scalars = [rng.choice(_EDGES[INT32] + [rng.randint(-100, 100)]),
                   rng.randint(-5, 5), rng.choice(_EDGES[FLOAT32] + [rng.uniform(-9, 9)]),
                   rng.choice(_EDGES[UINT32] + [rng.randint(0, 100)])]  # fmt: skip
        out.append([*arrays, *scalars])
    return out


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.indices: list[Value] = []  # indices defined in the function's top-level block
        self.mem_t = self.rng.choice([INT32, FLOAT32])

    def const(self, b: Builder, t: Scalar) -> Value:
        r = self.rng
        v = r.choice(_EDGES[t]) if r.random() < 0.7 else (
            r.random() < 0.5 if t.is_bool else r.randint(0, 9) if t.is_int else r.uniform(-4, 4)
        )  # fmt: skip
        return b.const(v, t)

    def index(self, b: Builder, pool: dict[Scalar, list[Value]]) -> Value:
        """An index into the output arrays, always in bounds; often one used before, so that
        loads and stores meet at the same place."""
        if self.indices and self.rng.random() < 0.6:
            return self.rng.choice(self.indices)
        # computed as i & 15, or known
        if self.rng.random() < 0.5:
            idx = b.bin("and", self.pick(b, pool, INT32), b.const(N_OUT - 1, INT32))
        else:
            idx = b.const(self.rng.randrange(N_OUT), INT32)
        if len(b.blocks) == 1:  # visible everywhere after this point
            self.indices.append(idx)
        return idx

    def pick(self, b: Builder, pool: dict[Scalar, list[Value]], t: Scalar) -> Value:
        if pool[t] and self.rng.random() < 0.75:
            return self.rng.choice(pool[t])
        return self.const(b, t)

    def block(self, b: Builder, pool: dict[Scalar, list[Value]], n: int, depth: int) -> None:
        r = self.rng
        for _ in range(n):
            kind = r.choice(["bin"] * 4 + ["cmp", "un", "cast", "select", "store", "const"]
                            + ["load"] * 2 + ["atomic", "print", "assert", "barrier"]
                            + ["if", "for", "while"] * (depth > 0))  # fmt: skip
            t = r.choice(TYPES)
            if kind in ("load", "store", "atomic") and r.random() < 0.6:
                t = self.mem_t  # mostly one array, so that loads and stores meet
            new: list[Value] = []
            if kind == "const":
                new = [self.const(b, t)]
            elif kind == "bin":
                name = r.choice(_BIN[t.kind if t.kind != "u" else "i"])
                new = [b.bin(name, self.pick(b, pool, t), self.pick(b, pool, t))]
            elif kind == "cmp":
                c = b.cmp(r.choice(["eq", "ne", "lt", "le", "gt", "ge"]),
                          self.pick(b, pool, t), self.pick(b, pool, t))  # fmt: skip
                new = [c]
            elif kind == "un":
                name = r.choice(["not", "invert"] if t.is_bool else ["neg", "abs", "not"]
                                + ["invert"] * t.is_int)  # fmt: skip
                new = [b.un(name, self.pick(b, pool, t))]
            elif kind == "cast":
                new = [b.op("cast", [self.pick(b, pool, r.choice(TYPES))], [t]).result]
            elif kind == "select":
                x = b.select(self.pick(b, pool, BOOL), self.pick(b, pool, t), self.pick(b, pool, t))
                new = [x]
            elif kind == "store":
                arr = pool_arrays(pool)[TYPES.index(t)]
                b.op("store", [arr, self.index(b, pool), self.pick(b, pool, t)])
            elif kind in ("load", "atomic"):
                arr = pool_arrays(pool)[TYPES.index(t)]
                idx = self.index(b, pool)
                if kind == "load":
                    new = [b.op("load", [arr, idx], [t]).result]
                elif t.is_int:
                    op = r.choice(["add", "min", "max", "exch"])
                    new = [b.op("atomic", [arr, idx, self.pick(b, pool, t)], [t], op=op).result]
            elif kind == "print":
                v = self.pick(b, pool, t)
                b.op("print", [v], [], parts=("v=", Field(0, ".3g" if t.is_float else ""), "\n"))
            elif kind == "assert":
                # Mostly true: a failing one ends the run, and later code is not compared.
                c = b.cmp("ne", self.pick(b, pool, INT32), b.const(-(2**31) + 3, INT32))
                b.op("assert", [c], [], msg="m")
            elif kind == "barrier":
                b.op("barrier")
            elif kind == "if":
                types = [r.choice(TYPES) for _ in range(r.randint(0, 2))]
                new = if_(b, self.pick(b, pool, BOOL), self.region(b, pool, types, depth),
                          self.region(b, pool, types, depth), list(types))  # fmt: skip
            elif kind == "for":
                it = r.choice([INT32, INT64])
                stop = (b.const(r.randint(-3, 9), it) if r.random() < 0.7
                        else b.cast(pool[INT32][1], it))  # fmt: skip
                step = b.const(r.choice([1, 2, -1, 3]), it)
                bounds = [b.const(r.randint(-3, 3), it), stop, step]
                init = [self.pick(b, pool, r.choice(TYPES)) for _ in range(r.randint(0, 2))]
                types = [v.scalar for v in init]

                def body(iv: Value, *args: Value, types: list[Scalar] = types) -> list[Value]:
                    inner = {k: list(v) for k, v in pool.items()}
                    inner[iv.scalar].append(iv)
                    for a in args:
                        inner[a.scalar].append(a)
                    self.block(b, inner, r.randint(1, 5), depth - 1)
                    return [self.pick(b, inner, x) for x in types]

                new = for_(b, *bounds, init, body)
            elif kind == "while":
                limit = r.randint(0, 4)
                acc = self.pick(b, pool, t)

                def wbody(i: Value, a: Value, t: Scalar = t) -> list[Value]:
                    inner = {k: list(v) for k, v in pool.items()}
                    inner[t].append(a)
                    self.block(b, inner, r.randint(1, 4), depth - 1)
                    return [b.bin("add", i, b.const(1, INT32)), self.pick(b, inner, t)]

                def wcond(i: Value, a: Value, n: int = limit) -> Value:
                    return b.cmp("lt", i, b.const(n, INT32))

                new = while_(b, [b.const(0, INT32), acc], wcond, wbody)
            for v in new:
                pool[v.scalar].append(v)

    def region(self, b: Builder, pool: dict[Scalar, list[Value]], types: list[Scalar],
               depth: int) -> Body:  # fmt: skip
        def fill() -> list[Value]:
            inner = {k: list(v) for k, v in pool.items()}
            self.block(b, inner, self.rng.randint(0, 4), depth - 1)
            return [self.pick(b, inner, t) for t in types]

        return fill


def pool_arrays(pool: dict[Scalar, list[Value]]) -> list[Value]:
    """The output arrays of a random program (kept in the pool under None)."""
    return pool[None]  # type: ignore[index]


def random_function(seed: int, n_ops: int = 25, depth: int = 2) -> Callable[[], Function]:
    """A builder of a random program (the same one on every call) over RANDOM_PARAMS.

    The program mixes every scalar op, `if`, `for` (mostly known bounds) and `while`, and
    stores values of every type into the output arrays so that what it computes is observable.
    """

    def build() -> Function:
        fn, b, params = function(*RANDOM_PARAMS)
        gen = _Gen(seed)
        pool: dict[Any, list[Value]] = {t: [] for t in TYPES}
        pool[None] = params[: len(TYPES)]
        x, y, f, u = params[len(TYPES) :]
        pool[INT32] += [x, y]
        pool[FLOAT32].append(f)
        pool[UINT32].append(u)
        gen.block(b, pool, n_ops, depth)
        for t, arr in zip(TYPES, pool[None]):
            for j, v in enumerate(pool[t][-4:]):
                store(b, arr, N_OUT - 1 - j, v)
        return fn

    return build


def run_ops(ops: list[Op], env: dict[int, Any], special: dict[str, int] | None = None) -> None:
    """Run `ops` (a function's leading ops, say) with the values in `env`, adding theirs."""
    _run(Block([], list(ops)), env, [], special or {})
