"""Lowering a planned kernel to simt IR, through the IR builder the Python front end uses.

A *thread* kernel runs one thread per output element: the output's axes map to the grid's x, y
and z (x the last, fastest axis; flattened when the output has more than three axes or a grid
dimension would overflow), and reductions are loops in each thread. A *row* kernel runs one
block of threads per row (32 to 256, more for longer rows; the rows flattened onto
block_idx.x): each row value is reduced cooperatively (each thread strides over the reduced
elements, then a tree through shared memory), and the row's output elements are spread over
the block's threads. The result is an ordinary `ir.Function`: the optimisation passes,
renderers and runtimes take it from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .. import types as T
from ..errors import CompileError
from ..ir import Block, Builder, Function, Param, Value
from . import ops
from .graph import Graph, Ref
from .parse import Expr
from .plan import KernelPlan

ROW_THREADS = 256  # the most threads a row kernel's block has
MAX_THREADS = 1024  # threads in a block, as CUDA allows (WebGPU: 256)
Env = dict[str, tuple[object, Value]]  # axis letter -> (axis identity, index value)


@dataclass(frozen=True)
class Layout:
    """How a thread kernel maps output axes to the grid (decided per shape, on the host)."""

    order: tuple[str, ...]  # parallel axes, slowest first: the last is x
    block: tuple[int, ...]  # block extent per grid dimension (x first)
    flat: bool  # one flattened dimension instead of one per axis


def param_name(ref: Ref) -> str:
    """The kernel parameter name of an array: `x0` for input 0, `t3` for node 3's buffer."""
    return f"x{ref[1]}" if ref[0] == "in" else f"t{ref[1]}"


def node_types(g: Graph, inputs: list[T.Scalar]) -> list[T.Scalar]:
    """The result type of every node, given the inputs' element types."""
    out: list[T.Scalar] = []

    def of(ref: Ref) -> T.Scalar:
        return inputs[ref[1]] if ref[0] == "in" else out[ref[1]]

    for node in g.nodes:
        out.append(ops.result_type(node.expr.op, [of(r) for r in node.args]))
    return out


def thread_layout(e: Expr, extents: dict[str, int]) -> Layout:
    """The default or scheduled mapping of a thread kernel's output axes onto the grid."""
    order = list(e.output)
    written = [a.axis for a in e.order if a.kind == "axis" and a.axis in e.output]
    if written:
        order = list(dict.fromkeys(written))
    n = len(order)
    if n == 0:
        return Layout((), (1,), True)
    default = {1: (256,), 2: (16, 16), 3: (16, 16, 1)}.get(n, (256,))
    block = list(default)
    if n <= 3:
        for d, axis in enumerate(reversed(order)):
            f = e.split_of(axis)
            if f:
                size = 1
                for x in f:
                    size *= x
                block[d] = size
    threads = 1
    for x in block:
        threads *= x
    if threads > MAX_THREADS:
        split = ", ".join(f"{a}:{':'.join(str(f) for f in e.split_of(a))}" for a in order
                          if e.split_of(a))  # fmt: skip
        raise CompileError(
            f"the splits {split} of {e.body()!r} make blocks of {threads} threads; a block "
            f"has at most {MAX_THREADS}",
            source_line=e.text, col=e.text.find("|") + 1 if "|" in e.text else None,
            hint="split the output's axes by smaller factors (at most 256 threads run on "
            "every backend, WebGPU included)",
        )  # fmt: skip
    flat = n > 3 or any(
        extents[a] >= 2**31 or (d > 0 and _blocks(extents[a], block[d]) > 65535)
        for d, a in enumerate(reversed(order))
    )
    if flat:
        block = [256]
    return Layout(tuple(order), tuple(block), flat)


def _blocks(n: int, per: int) -> int:
    return max(1, -(-n // per))



def in_order(parts: list[tuple[str, int]]) -> bool:
    """Whether loop parts [(axis, part), ...] (outermost first) visit each axis's parts
    0, 1, 2, ... one directly inside the other: then they enumerate the axis in its order."""
    for k, (axis, part) in enumerate(parts):
        if part != (0 if k == 0 or parts[k - 1][0] != axis else parts[k - 1][1] + 1):
            return False
    return len({a for a, p in parts if p == 0}) == len({a for a, _ in parts})


class Lowerer:
    """Builds the IR of one kernel of a plan."""

    def __init__(
        self,
        g: Graph,
        kp: KernelPlan,
        types: list[T.Scalar],
        input_types: list[T.Scalar],
        input_ranks: list[int],
        layout: Layout | None,
    ) -> None:
        self.g = g
        self.kp = kp
        self.types = types
        self.input_types = input_types
        self.input_ranks = input_ranks
        self.layout = layout
        self.entry = Block()
        self.b = Builder(self.entry)
        self.arrays: dict[Ref, Value] = {}
        self.shapes: dict[tuple[Ref, int], Value] = {}
        self.rows: dict[tuple[int, tuple[str, ...]], Value] = {}
        self.tokens = 0
        self.staged: tuple[int, str, str] = (-1, "", "")  # node E, root's pattern, sum's pattern
        self.staged_ready = False

    # ------------------------------------------------------------------ arrays and extents
    def _array_type(self, ref: Ref) -> T.ArrayType:
        if ref[0] == "in":
            return T.ArrayType(self.input_types[ref[1]], max(1, self.input_ranks[ref[1]]))
        return T.ArrayType(self.types[ref[1]], max(1, len(self.g.nodes[ref[1]].expr.output)))

    def shape(self, ref: Ref, dim: int) -> Value:
        """The extent of dimension `dim` of array `ref` (computed once, at the kernel's top)."""
        key = (ref, dim)
        if key not in self.shapes:
            with self.b.at(self.entry):
                self.shapes[key] = self.b.op("shape", [self.arrays[ref]], [T.INT32], dim=dim).result
        return self.shapes[key]

    def extent(self, n: int, axis: str) -> Value:
        """The extent of `axis` of node n's expression, from an array that carries it."""
        node = self.g.nodes[n]
        for pattern, ref in zip(node.expr.inputs, node.args):
            if axis in pattern:
                d = pattern.index(axis)
                if ref in self.arrays:
                    return self.shape(ref, d)
                return self.extent(ref[1], self.g.nodes[ref[1]].expr.output[d])
        raise AssertionError(f"axis {axis} not found in {node.expr}")

    def fresh(self) -> object:
        self.tokens += 1
        return ("r", self.tokens)

    # ------------------------------------------------------------------ values
    def load(self, ref: Ref, idx: list[Value]) -> Value:
        arr = self.arrays[ref]
        if not idx:
            idx = [self.b.const(0, T.INT32)]
        return self.b.op("load", [arr, *idx], [arr.array.dtype]).result

    def ref_value(self, ref: Ref, pattern: str, env: Env) -> Value:
        """The value of `ref` at the indices its pattern names in `env`."""
        ids = [env[c][0] for c in pattern]
        vals = [env[c][1] for c in pattern]
        if ref in self.arrays:
            return self.load(ref, vals)
        n = ref[1]
        if all(isinstance(i, tuple) and i[0] == "o" for i in ids):
            key = (n, tuple(str(i[1]) for i in ids))  # type: ignore[index]
            if key in self.rows:
                return self.rows[key]
            if self.staged_ready and key == (self.staged[0], tuple(self.staged[1])):
                buf = self.arrays[("node", self.kp.root)]
                return self.b.op("load", [buf, *self._out_index(env)], [buf.array.dtype]).result
        out = self.g.nodes[n].expr.output
        return self.value(n, {out[d]: (ids[d], vals[d]) for d in range(len(out))})

    def value(self, n: int, env: Env, scheduled: bool = False) -> Value:
        """Node n's value where `env` binds its output axes (reductions loop here)."""
        e = self.g.nodes[n].expr
        if e.reduced:
            return self.reduce(n, env, scheduled)
        args = [self.ref_value(r, p, env) for p, r in zip(e.inputs, self.g.nodes[n].args)]
        if e.unary:
            return ops.emit(self.b, e.op, None, args[0])
        return ops.emit(self.b, e.op, args[0], args[1])

    def for_loop(
        self, start: Value, stop: Value, step: Value, init: list[Value],
        body: Callable[[Value, list[Value]], list[Value]],
    ) -> list[Value]:  # fmt: skip
        """A `for` op: body(iv, carried) returns the next carried values."""
        iv = Value(T.INT32, "i")
        carried = [Value(v.type, "acc") for v in init]
        block = Block(args=[iv, *carried])
        with self.b.at(block):
            nxt = body(iv, carried)
            self.b.op("yield", nxt)
        op = self.b.op("for", [start, stop, step, *init], [v.type for v in init], [block], sign=1)
        return list(op.results)

    def decode(self, t: Value, axes: list[str], ext: dict[str, Value]) -> dict[str, Value]:
        """A flat index over `axes` (the last fastest) split into one index per axis."""
        out: dict[str, Value] = {}
        for k in range(len(axes) - 1, -1, -1):
            a = axes[k]
            if k == 0:
                out[a] = t  # the outermost axis takes what is left: no `mod` needed
            else:
                out[a] = self.b.bin("mod", t, ext[a])
                t = self.b.bin("floordiv", t, ext[a])
        return out

    def block_stride(
        self, total: Value, tid: Value, init: list[Value],
        body: Callable[[Value, list[Value]], list[Value]], start: Value | None = None,
    ) -> list[Value]:  # fmt: skip
        """`for t in range(tid, total, threads)` written as a loop every thread of the block
        runs alike (`for base in range(0, total, threads)`, masked at the end), so the CPU
        backend runs the block's threads as contiguous SIMD lanes inside it."""
        b = self.b
        zero, step = b.const(0, T.INT32), b.const(self.kp.threads, T.INT32)

        def outer(base: Value, carried: list[Value]) -> list[Value]:
            t = b.bin("add", base, tid)
            tb, eb = Block(), Block()
            with b.at(tb):
                b.op("yield", body(t, carried))
            with b.at(eb):
                b.op("yield", carried)
            op = b.op("if", [b.cmp("lt", t, total)], [v.type for v in carried], [tb, eb])
            return list(op.results)

        return self.for_loop(start or zero, total, step, init, outer)

    def if_then(self, cond: Value, then: Callable[[], None]) -> None:
        """An `if` with no results: `then()` runs where cond holds."""
        self.b.when(cond, then)

    def reduce(self, n: int, env: Env, scheduled: bool = False) -> Value:
        """A reduction computed by one thread: loops over node n's reduced axes."""
        e = self.g.nodes[n].expr
        b = self.b
        t = self.types[n]
        arg, pattern = self.g.nodes[n].args[0], e.inputs[0]
        parts = self._loop_parts(e, scheduled)
        if scheduled and in_order(parts):
            # each axis's parts run outermost first, one after another: the same additions in
            # the same order as one loop per axis, which every backend runs at least as fast (a
            # tile loop of a few iterations inside each thread stopped LLVM's vectoriser on the
            # CPU: a peer's `j:16` split of a row made a 32 x 2048 product 24x slower)
            parts, scheduled = [(a, 0) for a, p in parts if p == 0], False
        ext = {a: self.extent(n, a) for a in e.reduced}
        zero, one = b.const(0, T.INT32), b.const(1, T.INT32)
        split = scheduled and any(e.split_of(a) for a in e.reduced)

        def nest(
            k: int, loops: dict[tuple[str, int], Value], acc: Value, bounded: frozenset[str]
        ) -> Value:
            if k == len(parts):
                inner = dict(env)
                conds = []
                for a in e.reduced:
                    idx = self._combine_parts(a, e.split_of(a) if scheduled else (), loops)
                    inner[a] = (self.fresh(), idx)
                    if split and e.split_of(a) and a not in bounded:
                        conds.append(b.cmp("lt", idx, ext[a]))
                if not conds:
                    return ops.accumulate(b, e.op, acc, self.ref_value(arg, pattern, inner))
                cond = conds[0]
                for c in conds[1:]:
                    cond = b.bin("and", cond, c)
                tb, eb = Block(), Block()
                with b.at(tb):
                    nxt = ops.accumulate(b, e.op, acc, self.ref_value(arg, pattern, inner))
                    b.op("yield", [nxt])
                with b.at(eb):
                    b.op("yield", [acc])
                return b.op("if", [cond], [t], [tb, eb]).result
            axis, part = parts[k]
            factors = e.split_of(axis) if scheduled else ()
            if part == 0:
                size = 1
                for f in factors:
                    size *= f
                stop = ext[axis]
                if size > 1:
                    stop = b.bin("floordiv", b.bin("add", ext[axis], b.const(size - 1, T.INT32)),
                                 b.const(size, T.INT32))  # fmt: skip
            else:
                stop = b.const(factors[part - 1], T.INT32)
                if len(factors) == 1 and (axis, 0) in loops:
                    # the tile's own loop inside its outer loop: stop at the edge, no guard
                    left = b.bin("sub", ext[axis], b.bin("mul", loops[(axis, 0)], stop))
                    stop = b.bin("min", stop, left)
                    bounded = bounded | {axis}
            return self.for_loop(
                zero, stop, one, [acc],
                lambda iv, c: [nest(k + 1, {**loops, (axis, part): iv}, c[0], bounded)],
            )[0]  # fmt: skip

        return nest(0, {}, ops.identity(b, e.op, t), frozenset())

    def _loop_parts(self, e: Expr, scheduled: bool) -> list[tuple[str, int]]:
        """The reduction's loops, outermost first: (axis, part) pairs."""
        if scheduled:
            written = [
                (a.axis, a.part) for a in e.order if a.kind == "axis" and a.axis in e.reduced
            ]
            if written:
                return written
            return [(a, p) for a in e.reduced for p in range(len(e.split_of(a)) + 1)]
        return [(a, 0) for a in e.reduced]

    def _combine_parts(
        self, axis: str, factors: tuple[int, ...], loops: dict[tuple[str, int], Value]
    ) -> Value:
        """axis = part0 * (f1*...*fm) + part1 * (f2*...*fm) + ... + part_m."""
        b = self.b
        idx = loops[(axis, 0)]
        for p, f in enumerate(factors, start=1):
            idx = b.bin("add", b.bin("mul", idx, b.const(f, T.INT32)), loops[(axis, p)])
        return idx

    # ------------------------------------------------------------------ kernels
    def build(self, name: str) -> Function:
        """The kernel as an IR function: `out` first, then the arrays it reads."""
        root = self.kp.root
        params: list[Param] = []
        refs: list[Ref] = [("node", root), *self.kp.reads]
        if self.kp.form == "finish":
            refs = [("node", root), ("part", root)]
        for i, ref in enumerate(refs):
            at = self._array_type(ref)
            if (i == 0 and self.kp.form == "split") or ref[0] == "part":
                at = T.ArrayType(self.types[root], 2)  # the partial results: rows x chunks
            v = Value(at, "out" if i == 0 else "part" if ref[0] == "part" else param_name(ref))
            self.arrays[ref] = v
            params.append(Param(v.hint, i, v))
        body = Block()
        with self.b.at(body):
            if self.kp.form == "split":
                self._split_kernel()
            elif self.kp.form == "finish":
                self._finish_kernel()
            elif self.kp.form == "row":
                self._row_kernel()
            else:
                self._thread_kernel()
        self.entry.ops.extend(body.ops)
        fp64 = any(t == T.FLOAT64 for t in [*self.types, *self.input_types])
        return Function(name, params, self.entry, "<index expression>", fp64, False)

    def _out_index(self, env: Env) -> list[Value]:
        out = self.g.nodes[self.kp.root].expr.output
        return [env[a][1] for a in out] or [self.b.const(0, T.INT32)]

    def _store(self, env: Env, v: Value) -> None:
        out = self.arrays[("node", self.kp.root)]
        v = self.b.cast(v, out.array.dtype)
        self.b.op("store", [out, *self._out_index(env), v], [])

    def _thread_kernel(self) -> None:
        b = self.b
        root = self.kp.root
        e = self.g.nodes[root].expr
        lay = self.layout
        assert lay is not None
        outref: Ref = ("node", root)
        ext = {a: self.shape(outref, d) for d, a in enumerate(e.output)}
        env: Env = {}
        cond: Value | None
        if not e.output:
            self._store(env, self.value(root, env, scheduled=True))
            return
        if lay.flat:
            gid = b.bin("add", b.bin("mul", b.special("block_idx", 0), b.special("block_dim", 0)),
                        b.special("thread_idx", 0))  # fmt: skip
            total = ext[e.output[0]]
            for a in e.output[1:]:
                total = b.bin("mul", total, ext[a])
            cond = b.cmp("lt", gid, total)
            rest = gid
            decoded: dict[str, Value] = {}
            for a in reversed(e.output):
                decoded[a] = b.bin("mod", rest, ext[a])
                rest = b.bin("floordiv", rest, ext[a])
            env = {a: (("o", a), decoded[a]) for a in e.output}
        else:
            cond = None
            for d, a in enumerate(reversed(lay.order)):
                first = b.bin("mul", b.special("block_idx", d), b.special("block_dim", d))
                gid = b.bin("add", first, b.special("thread_idx", d))
                env[a] = (("o", a), gid)
                c = b.cmp("lt", gid, ext[a])
                cond = c if cond is None else b.bin("and", cond, c)
        assert cond is not None
        self.if_then(cond, lambda: self._store(env, self.value(root, env, scheduled=True)))

    def _row_kernel(self) -> None:
        b = self.b
        kp = self.kp
        root = kp.root
        e = self.g.nodes[root].expr
        outref: Ref = ("node", root)
        ext = {a: self.shape(outref, d) for d, a in enumerate(e.output)}
        tid = b.special("thread_idx", 0)
        rest = b.special("block_idx", 0)
        env: Env = {}
        for a in reversed(kp.row):
            if a == kp.row[0]:
                env[a] = (("o", a), rest)
            else:
                env[a] = (("o", a), b.bin("mod", rest, ext[a]))
                rest = b.bin("floordiv", rest, ext[a])
        inner = [a for a in e.output if a not in kp.row]
        staged = self._staging(inner)
        for n, letters in kp.row_values:
            out = self.g.nodes[n].expr.output
            nenv = {out[d]: env[letters[d]] for d in range(len(out))}
            self.rows[(n, letters)] = self._cooperative(n, nenv, tid, n == staged)
        if (root, tuple(e.output)) in self.rows:
            v = self.rows[(root, tuple(e.output))]
            self.if_then(b.cmp("eq", tid, b.const(0, T.INT32)), lambda: self._store(env, v))
            return
        total = b.const(1, T.INT32)
        for a in inner:
            total = b.bin("mul", total, ext[a])

        def body(iv: Value, _: list[Value]) -> list[Value]:
            full = dict(env)
            for a, v in self.decode(iv, inner, ext).items():
                full[a] = (("o", a), v)
            self._store(full, self.value(root, full))
            return []

        self.block_stride(total, tid, [], body)

    def _split_kernel(self) -> None:
        """First pass of a split reduction: block b reduces chunk b % chunks of row
        b // chunks and writes the partial result to out[row, chunk]."""
        b = self.b
        root = self.kp.root
        e = self.g.nodes[root].expr
        c = b.const(self.kp.chunks, T.INT32)
        bid = b.special("block_idx", 0)
        row, chunk = b.bin("floordiv", bid, c), b.bin("mod", bid, c)
        ext = {a: self.extent(root, a) for a in e.output}
        env: Env = {a: (("o", a), v) for a, v in self.decode(row, list(e.output), ext).items()}
        tid = b.special("thread_idx", 0)
        r = self._cooperative(root, env, tid, chunk=chunk)
        out = self.arrays[("node", root)]

        def store() -> None:
            b.op("store", [out, row, chunk, r], [])

        self.if_then(b.cmp("eq", tid, b.const(0, T.INT32)), store)

    def _finish_kernel(self) -> None:
        """Second pass: a thread per output element combines its row's partial results."""
        b = self.b
        root = self.kp.root
        e = self.g.nodes[root].expr
        t = self.types[root]
        part = self.arrays[("part", root)]
        outref: Ref = ("node", root)
        ext = {a: self.shape(outref, d) for d, a in enumerate(e.output)}
        gid = b.bin("add", b.bin("mul", b.special("block_idx", 0), b.special("block_dim", 0)),
                    b.special("thread_idx", 0))  # fmt: skip
        rows = b.op("shape", [part], [T.INT32], dim=0).result
        chunks = b.op("shape", [part], [T.INT32], dim=1).result

        def then() -> None:
            env: Env = {a: (("o", a), v) for a, v in self.decode(gid, list(e.output), ext).items()}

            def step(k: Value, acc: list[Value]) -> list[Value]:
                v = b.op("load", [part, gid, k], [t]).result
                return [ops.combine(b, e.op, acc[0], v)]

            zero, one = b.const(0, T.INT32), b.const(1, T.INT32)
            r = self.for_loop(zero, chunks, one, [ops.identity(b, e.op, t)], step)[0]
            self._store(env, r)

        self.if_then(b.cmp("lt", gid, rows), then)

    def _staging(self, inner: list[str]) -> int | None:
        """A row value whose loop can keep its input in the output buffer for the root to read
        back instead of recomputing it (softmax: `exp(x - max)` is computed once, by the sum's
        loop, and divided in place). The input must be a pointwise node E that the root reads
        at its own output index, with the sum's reduced axes on the same dimensions of E, in
        the same order, as the root's per-row axes (so each thread meets the same elements in
        both loops), and of the output's type. Returns that row value's node (or None)."""
        root = self.g.nodes[self.kp.root]
        if root.expr.reduced:
            return None
        for n, letters in reversed(self.kp.row_values):
            node = self.g.nodes[n]
            src = node.args[0]
            if src in self.arrays or src[0] != "node" or self.g.nodes[src[1]].expr.reduced:
                continue
            if self.types[src[1]] != self.types[self.kp.root]:
                continue
            rename = dict(zip(node.expr.output, letters))  # n's output letters -> root letters
            for pattern, ref in zip(root.expr.inputs, root.args):
                if ref != src or sorted(pattern) != sorted(root.expr.output):
                    continue
                mine = node.expr.inputs[0]
                ok = all(
                    (c in inner and r in node.expr.reduced)
                    or (c not in inner and rename.get(r) == c)
                    for c, r in zip(pattern, mine)
                )
                if ok and [mine.index(r) for r in node.expr.reduced] == [
                    pattern.index(c) for c in inner
                ]:
                    self.staged = (src[1], pattern, mine)
                    return n
        return None

    def _cooperative(
        self, n: int, env: Env, tid: Value, stage: bool = False, chunk: Value | None = None
    ) -> Value:
        """Node n's reduction at this row, by all threads of the block; every thread gets it.
        With `stage`, each value reduced is also stored in the output (see `_staging`)."""
        b = self.b
        e = self.g.nodes[n].expr
        t = self.types[n]
        arg, pattern = self.g.nodes[n].args[0], e.inputs[0]
        ext = {a: self.extent(n, a) for a in e.reduced}
        total = b.const(1, T.INT32)
        for a in e.reduced:
            total = b.bin("mul", total, ext[a])

        def body(iv: Value, acc: list[Value]) -> list[Value]:
            full = dict(env)
            for a, v in self.decode(iv, list(e.reduced), ext).items():
                full[a] = (self.fresh(), v)
            v = self.ref_value(arg, pattern, full)
            if stage:
                _, root_pattern, mine = self.staged
                at = {c: full[r] for c, r in zip(root_pattern, mine)}
                self._store(at, v)
                self.staged_ready = True
            return [ops.accumulate(b, e.op, acc[0], v)]

        init = [ops.identity(b, e.op, t)]
        if len(e.reduced) > 1 and not stage:
            # a loop over the first reduced axis that every thread runs alike, the threads
            # striding over the others: no division per element to find the first index
            first, rest = e.reduced[0], list(e.reduced[1:])
            inner = b.const(1, T.INT32)
            for a in rest:
                inner = b.bin("mul", inner, ext[a])
            lo, hi = b.const(0, T.INT32), ext[first]
            if chunk is not None:  # a split reduction: this block takes a range of `first`
                size = b.bin("floordiv", b.bin("add", hi, b.const(self.kp.chunks - 1, T.INT32)),
                             b.const(self.kp.chunks, T.INT32))  # fmt: skip
                lo = b.bin("mul", chunk, size)
                hi = b.bin("min", hi, b.bin("add", lo, size))

            def row(o: Value, acc: list[Value]) -> list[Value]:
                def cell(iv: Value, acc2: list[Value]) -> list[Value]:
                    full = dict(env)
                    full[first] = (self.fresh(), o)
                    for a, v in self.decode(iv, rest, ext).items():
                        full[a] = (self.fresh(), v)
                    return [ops.accumulate(b, e.op, acc2[0], self.ref_value(arg, pattern, full))]

                return self.block_stride(inner, tid, acc, cell)

            part = self.for_loop(lo, hi, b.const(1, T.INT32), init, row)[0]
        else:
            start = None
            if chunk is not None:  # a split reduction: this block reduces one chunk
                c = b.const(self.kp.chunks, T.INT32)
                size = b.bin("floordiv", b.bin("add", total, b.const(self.kp.chunks - 1, T.INT32)),
                             c)  # fmt: skip
                start = b.bin("mul", chunk, size)
                total = b.bin("min", total, b.bin("add", start, size))
            part = self.block_stride(total, tid, init, body, start)[0]
        sh = b.op("alloc", [], [T.ArrayType(t, 1, T.SHARED, (self.kp.threads,))]).result
        b.op("store", [sh, tid, part], [])
        b.op("barrier")
        # the tree as a loop over its levels (half = threads/2, threads/4, ..., 1): every
        # thread runs it alike, so its barriers are legal, and the kernel stays small
        levels = self.kp.threads.bit_length() - 1
        top = b.const(self.kp.threads // 2, T.INT32)

        def level(k: Value, _: list[Value]) -> list[Value]:
            half = b.bin("shr", top, k)

            def step() -> None:
                other = b.bin("add", tid, half)
                mine = b.op("load", [sh, tid], [t]).result
                theirs = b.op("load", [sh, other], [t]).result
                b.op("store", [sh, tid, ops.combine(b, e.op, mine, theirs)], [])

            self.if_then(b.cmp("lt", tid, half), step)
            b.op("barrier")
            return []

        zero, one = b.const(0, T.INT32), b.const(1, T.INT32)
        self.for_loop(zero, b.const(levels, T.INT32), one, [], level)
        return b.op("load", [sh, zero], [t]).result


def lower(
    g: Graph,
    kp: KernelPlan,
    types: list[T.Scalar],
    input_types: list[T.Scalar],
    input_ranks: list[int],
    layout: Layout | None,
    name: str,
) -> Function:
    """The IR of one planned kernel (not yet optimised)."""
    return Lowerer(g, kp, types, input_types, input_ranks, layout).build(name)
