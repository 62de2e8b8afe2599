"""Register-tiled GEMM kernels: the schedule primitives `tile`, `vector`, `block`, `pack` and
`unroll` of a contraction `+ijk~ij` over a fused product of two arrays (`ik*kj~ijk`).

    i("ik*kj~ijk") >> i("+ijk~ij | tile(i:6,j:32) block(k:256,i:96) pack(kj)")

The kernel follows the loop structure of BLIS (Van Zee and van de Geijn, "BLIS: A Framework
for Rapidly Instantiating BLAS Functionality", and the analytical model of Low et al., "Analytical
Modeling Is Enough for High-Performance BLIS"): around a *micro-kernel* that keeps an
m_r x n_r tile of the output in registers and, for each k, loads n_r contiguous values of one
operand (the *vector* axis), broadcasts m_r values of the other and multiplies-adds them into
the tile, sit loops over k blocks of k_c (the operands' panels stay in cache) and over m_c rows
(a thread sweeps m_c / m_r tiles of one column strip, which reuses the strip's k_c x n_r panel
from L1). Here that is written in simt IR, so every backend takes it:

- on the CPU (`lower_gemm`) a *thread* owns a strip of n_r columns of the vector axis and a
  block of m_c rows (x: the strip, y: the row block), and is a block of one thread;
- on GPUs (`lower_gemm_shared`) a block of 8 x 8 threads owns a (8 m_r) x (8 n_r) tile, its
  threads stage each k block of both operands in shared memory between barriers, and each
  runs the micro-kernel on its m_r x n_r register block from there;
- the micro-kernel's loop over k carries the m_r * n_r accumulators as loop values and is
  marked `tile=True`: the CPU's SPMD lowering runs it one thread (lane) at a time, so the
  accumulators stay registers, and LLVM's SLP vectoriser turns each row of n_r contiguous
  columns into vector registers (n_r / 16 of them with AVX-512); on CUDA and WebGPU they are
  a thread's register block;
- `pack(...)` copies an operand into the layout the micro-kernel reads before the kernel runs
  (a kernel of its own): the vector operand as [strip][k][n_r] (each k's n_r values one
  contiguous vector), the broadcast operand as [tile][m_r][k];
- edges need no second code path: row and column indices past the end are clamped to the
  last row or column (packing replicates them the same way), so an edge tile computes copies
  of the last row/column and stores each copy onto the element it copies, with the same bits
  (the tile's old values are all loaded before any is stored). Every access is then in
  bounds by construction and marked so (`inbounds`).

`unroll(k:u)` repeats the micro-kernel's body u times per iteration (a remainder loop after).
`vector(k)` (the reduced axis) selects the *dot* micro-kernel instead (`lower_dot`), for
operands that both run along k. Without directives, the CPU gives a large float contraction
`default_directives` (`run.effective_graph`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import types as T
from ..errors import CompileError
from ..ir import Block, Builder, Function, Param, Value
from . import ops
from .graph import Graph, Ref
from .parse import Expr

# the schedule a `tile` directive alone implies (`tile(i:6,j:32)`): whole k, 16 tiles a thread
DEFAULT_TILES_PER_THREAD = 16
DOT_LANES = 16  # `vector(k)`: lanes of the reduced axis per accumulator (an AVX-512 float32 vector)


@dataclass(frozen=True)
class Operand:
    """One array of the product: its reference and its axes (in the root's letters)."""

    ref: Ref
    pattern: str  # two letters: the reduced axis and one output axis


@dataclass(frozen=True)
class Tiling:
    """A contraction kernel's register-tiled schedule, checked against its expression."""

    u: str  # the broadcast axis of the tile (its m_r rows)
    v: str  # the vector axis of the tile (its n_r contiguous columns)
    r: str  # the reduced axis
    mr: int
    nr: int
    kc: int  # k block (0: all of k at once)
    mc: int  # rows of u one thread sweeps (a multiple of m_r)
    nc: int  # columns of v one thread sweeps (a multiple of n_r)
    pack_u: bool
    pack_v: bool
    unroll: int
    a: Operand  # the operand with axis u (broadcast)
    b: Operand  # the operand with axis v (vector)
    out: str  # the output's axes, in order
    # `vector(k)`: the reduced axis is the vector one, this many lanes wide (0: the tile's axis
    # v is, the broadcast form) — the *dot* micro-kernel (`lower_dot`)
    dot: int = 0

    def text(self) -> str:
        """The directives in expression syntax."""
        out = f"tile({self.u}:{self.mr},{self.v}:{self.nr})"
        if self.dot:
            lanes = f":{self.dot}" if self.dot != DOT_LANES else ""
            out += f" vector({self.r}{lanes})"
        blk = [f"{self.r}:{self.kc}"] if self.kc else []
        if self.mc != self.mr * DEFAULT_TILES_PER_THREAD:
            blk.append(f"{self.u}:{self.mc}")
        if self.nc != self.nr:
            blk.append(f"{self.v}:{self.nc}")
        if blk:
            out += f" block({','.join(blk)})"
        packs = [o.pattern for o, p in ((self.a, self.pack_u), (self.b, self.pack_v)) if p]
        if packs:
            out += f" pack({','.join(packs)})"
        if self.unroll > 1:
            out += f" unroll({self.r}:{self.unroll})"
        return out


def _fail(e: Expr, message: str, hint: str | None = None, pos: int | None = None) -> CompileError:
    col = pos if pos is not None else (e.text.find("|") + 1 if "|" in e.text else None)
    return CompileError(message, source_line=e.text, col=col, hint=hint)


def contraction(g: Graph, root: int, reads: list[Ref]) -> tuple[str, Operand, Operand] | None:
    """(reduced axis, operand 0, operand 1) when node `root` is a sum over one axis of a fused
    product of two arrays with two output axes (a matmul in any layout), else None."""
    node = g.nodes[root]
    e = node.expr
    if e.op != "+" or not e.unary or len(e.reduced) != 1 or len(e.output) != 2:
        return None
    src = node.args[0]
    if src[0] != "node" or src in reads:
        return None
    prod = g.nodes[src[1]]
    pe = prod.expr
    if pe.op != "*" or pe.unary or pe.reduced or len(pe.output) != len(e.inputs[0]):
        return None
    rename = dict(zip(pe.output, e.inputs[0]))  # the product's letters -> the root's
    (r,) = e.reduced
    operands = []
    for pattern, ref in zip(pe.inputs, prod.args):
        if ref not in reads or len(pattern) != 2:
            return None
        mine = "".join(rename[c] for c in pattern)
        if r not in mine or mine[0] == mine[1]:
            return None
        operands.append(Operand(ref, mine))
    outs = {next(c for c in o.pattern if c != r) for o in operands}
    if outs != set(e.output):
        return None
    return r, operands[0], operands[1]


def tiling(g: Graph, root: int, reads: list[Ref]) -> Tiling | None:
    """The register-tiled schedule of node `root` when its expression has a `tile` directive
    (None without one); a CompileError when the directives do not fit the expression."""
    e = g.nodes[root].expr
    if not e.directives:
        return None
    first = e.directives[0][2]
    tile = e.directive("tile")
    if tile is None:
        raise _fail(e, f"`{e.directives[0][0]}(...)` needs a `tile(...)` directive",
                    "write the register tile first, e.g. `tile(i:6,j:32)`", first)  # fmt: skip
    found = contraction(g, root, reads)
    if found is None:
        raise _fail(
            e, "`tile(...)` schedules a matmul: a sum over one axis of a product of two arrays "
            "with two output axes", "write it as i('ik*kj~ijk') >> i('+ijk~ij | tile(i:6,j:32)') "
            "(any axis order; inputs or materialised results)", first,
        )  # fmt: skip
    r, op0, op1 = found
    if len(tile) != 2 or any(f < 1 for _, f in tile) or {a for a, _ in tile} != set(e.output):
        raise _fail(e, f"`tile(...)` takes both output axes with a factor each, as in "
                    f"`tile({e.output[0]}:6,{e.output[1]}:32)`", pos=first)  # fmt: skip
    sizes = dict(tile)
    vec = e.directive("vector")
    v = tile[1][0]
    dot = 0
    if vec is not None:
        if len(vec) != 1 or (vec[0][0] not in sizes and vec[0][0] != r):
            raise _fail(e, f"`vector(...)` names one axis of the tile, or the reduced axis {r!r} "
                        "(a dot-product micro-kernel)", pos=first)  # fmt: skip
        if vec[0][0] == r:
            dot = vec[0][1] or DOT_LANES
            if not 1 <= dot <= 64:
                raise _fail(e, f"`vector({r}:{dot})`: 1 to 64 lanes", pos=first)
        else:
            v = vec[0][0]
    u = next(a for a in e.output if a != v)
    a, b = (op0, op1) if u in op0.pattern else (op1, op0)
    kc, mc, nc = 0, sizes[u] * DEFAULT_TILES_PER_THREAD, sizes[v]
    for axis, f in e.directive("block") or ():
        if axis == r and f:
            kc = f
        elif axis == u and f and f % sizes[u] == 0:
            mc = f
        elif axis == v and f and f % sizes[v] == 0:
            nc = f
        else:
            raise _fail(e, f"`block({axis}:{f})`: block the reduced axis {r!r} (k_c), or a "
                        f"tile axis by a multiple of its tile factor ({u!r}: {sizes[u]}, m_c; "
                        f"{v!r}: {sizes[v]}, n_c)", pos=first)  # fmt: skip
    pack_u = pack_v = False
    for pattern, f in e.directive("pack") or ():
        if f or pattern not in (a.pattern, b.pattern):
            raise _fail(e, f"`pack({pattern})` names no operand: pack `{a.pattern}` or "
                        f"`{b.pattern}`", pos=first)  # fmt: skip
        pack_u = pack_u or pattern == a.pattern
        pack_v = pack_v or pattern == b.pattern
    if dot and (kc or pack_u or pack_v):
        raise _fail(e, f"`vector({r})` reads both operands along {r!r} as they are: it takes no "
                    f"`block({r}:...)` or `pack(...)`", pos=first)  # fmt: skip
    unroll = 1
    for axis, f in e.directive("unroll") or ():
        if axis != r or f < 1 or f > 16:
            raise _fail(e, f"`unroll(...)` unrolls the reduced axis {r!r} by 1 to 16, as in "
                        f"`unroll({r}:2)`", pos=first)  # fmt: skip
        unroll = f
    if sizes[u] * sizes[v] * max(1, dot) > 512 or (dot and unroll > 1):
        if dot and unroll > 1:
            raise _fail(e, f"`vector({r})` takes no `unroll(...)` (its loop steps {dot} at a "
                        "time already)", pos=first)  # fmt: skip
        raise _fail(e, f"a register tile of {sizes[u]} x {sizes[v]}"
                    + (f" x {dot} lanes" if dot else "") + " is too large (at most 512 "
                    "accumulators)", "on AVX-512, 6 x 32 to 14 x 32 fit the registers; "
                    "with vector(k), 4 x 4", first)  # fmt: skip
    return Tiling(u, v, r, sizes[u], sizes[v], kc, mc, nc, pack_u, pack_v, unroll, a, b, e.output,
                  dot)  # fmt: skip


def packed_shape(t: Tiling, which: str, ext: dict[str, int]) -> tuple[int, int, int]:
    """The shape of a packed operand: "v" [strips][k][n_r], "u" [tiles][k][m_r]."""
    if which == "v":
        return (-(-ext[t.v] // t.nr), ext[t.r], t.nr)
    return (-(-ext[t.u] // t.mr), ext[t.r], t.mr)


def grid_of(t: Tiling, ext: dict[str, int]) -> tuple[int, int]:
    """Threads of the GEMM kernel: (column strips, row blocks)."""
    return -(-ext[t.v] // t.nc), -(-ext[t.u] // t.mc)


class _Emit:
    """IR building helpers over one Builder."""

    def __init__(self) -> None:
        self.entry = Block()
        self.b = Builder(self.entry)

    def i32(self, v: int) -> Value:
        return self.b.const(v, T.INT32)

    def gid(self, axis: int, per_block: bool = False) -> Value:
        """The thread's index along `axis` (its block's, when a thread is a block)."""
        b = self.b
        if per_block:
            return b.special("block_idx", axis)
        first = b.bin("mul", b.special("block_idx", axis), b.special("block_dim", axis))
        return b.bin("add", first, b.special("thread_idx", axis))

    def load(self, arr: Value, idx: list[Value]) -> Value:
        return self.b.op("load", [arr, *idx], [arr.array.dtype], inbounds=True).result

    def store(self, arr: Value, idx: list[Value], v: Value) -> None:
        self.b.op("store", [arr, *idx, self.b.cast(v, arr.array.dtype)], [], inbounds=True)

    def loop(
        self, start: Value, stop: Value, step: Value, init: list[Value],
        body: Callable[[Value, list[Value]], list[Value]], **attrs: Any,
    ) -> list[Value]:  # fmt: skip
        iv = Value(T.INT32, "k")
        carried = [Value(v.type, "acc") for v in init]
        block = Block(args=[iv, *carried])
        with self.b.at(block):
            self.b.op("yield", body(iv, carried))
        op = self.b.op("for", [start, stop, step, *init], [v.type for v in init], [block],
                       sign=1, **attrs)  # fmt: skip
        return list(op.results)

    def when(self, cond: Value, then: Callable[[], None]) -> None:
        self.b.when(cond, then)

    def either(self, cond: Value, then: Callable[[], None], other: Callable[[], None]) -> None:
        """An `if` with no results: `then()`'s ops where `cond` holds, `other()`'s elsewhere."""
        tb, eb = Block(), Block()
        for block, fill in ((tb, then), (eb, other)):
            with self.b.at(block):
                fill()
                self.b.op("yield")
        self.b.op("if", [cond], [], [tb, eb])

    def function(self, name: str, params: list[Value], fp64: bool) -> Function:
        ps = [Param(v.hint, i, v) for i, v in enumerate(params)]
        # every access is in bounds by construction and marked so (`load`, `store`): there is
        # nothing for the bounds pass to prove, and its search over a micro-kernel's hundreds
        # of accesses took most of a GEMM's compile (23 of 27 s for an 8 x 32 tile, under load)
        return Function(name, ps, self.entry, "<index expression>", fp64, False,
                        boundscheck=False)  # fmt: skip


def _index(pattern: str, at: dict[str, Value]) -> list[Value]:
    return [at[c] for c in pattern]


def _fma(b: Builder, acc: Value, x: Value, y: Value, reassoc: bool = False) -> Value:
    """acc + x * y, marked `contract`: a backend may fuse it into one multiply-add (the CPU's
    LLVM does: FMA instructions; CUDA contracts by default); `reassoc`: the add is part of a
    sum the CPU's LLVM may add up in another order (a vectorised reduction)."""
    p = b.op("bin", [x, y], [x.type], op="mul", contract=True).result
    if reassoc:
        return b.op("bin", [acc, p], [acc.type], op="add", contract=True, reassoc=True).result
    return b.op("bin", [acc, p], [acc.type], op="add", contract=True).result


PACK_K = 64  # values of k a packing thread copies where a thread is a block (the CPU)
PACK_LANES = 16  # of those, read at once from an operand that runs along k


def pack_launch(
    t: Tiling, which: str, ext: dict[str, int], per_block: bool
) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """(grid, block) of the kernel packing operand `which` ("u" or "v"; `lower_pack`), or None
    when there is nothing to pack (k empty). Where a thread is a block (the CPU), a block packs
    a unit (strip or tile) and PACK_K values of k; or the whole operand, when the GEMM itself
    is one thread (`grid_of`: the default for a small product, `default_directives`): then
    both run on the calling thread."""
    units, k, width = packed_shape(t, which, ext)
    if not (units and k):
        return None
    if per_block:
        if grid_of(t, ext) == (1, 1):
            return (1, 1), (1, 1)
        return (units, -(-k // PACK_K)), (1, 1)
    x, y = (units * width, k) if which == "v" else (k, units * width)
    return (-(-x // 16), -(-y // 16)), (16, 16)


def lower_pack(t: Tiling, which: str, elem: T.Scalar, out_type: T.Scalar, name: str,
               per_block: bool = False) -> Function:  # fmt: skip
    """The kernel packing one operand (see the module doc): a thread per packed element,
    x over the packed rows' contiguous axis; or, `per_block` (the CPU, where a thread is a
    block), a thread per unit (a strip of n_r or a tile of m_r) and PACK_K values of k, which
    copies each k's unit in a loop run one lane at a time — a unit that reaches no edge reads
    its values at consecutive indices, which LLVM turns into vector loads where the operand
    runs along the unit's axis (a thread per element made gathers: 35 µs to pack a 32 x 2048
    operand, 145 µs to transpose one). Per block, a thread takes its units and k chunks by
    grid stride, so a grid of one block packs the whole operand (`pack_launch`). Indices past
    the end are clamped (replicated)."""
    m = _Emit()
    b = m.b
    op = t.b if which == "v" else t.a
    src = Value(T.ArrayType(elem, 2), "x")
    out = Value(T.ArrayType(out_type, 3), "packed")
    axis = t.v if which == "v" else t.u
    width = t.nr if which == "v" else t.mr
    ext_axis = b.op("shape", [src], [T.INT32], dim=op.pattern.index(axis)).result
    ext_r = b.op("shape", [src], [T.INT32], dim=op.pattern.index(t.r)).result
    one = m.i32(1)
    if per_block:
        units = b.op("shape", [out], [T.INT32], dim=0).result

        def copy(unit: Value, k0: Value, clamp: bool) -> None:
            base = b.bin("mul", unit, m.i32(width))
            last = b.bin("sub", ext_axis, one)
            pos = [b.bin("add", base, m.i32(q)) for q in range(width)]
            if clamp:
                pos = [b.bin("min", p, last) for p in pos]

            def step(k: Value, _: list[Value]) -> list[Value]:
                for q in range(width):
                    v = m.load(src, _index(op.pattern, {axis: pos[q], t.r: k}))
                    m.store(out, [unit, k, m.i32(q)], v)
                return []

            kend = b.bin("min", ext_r, b.bin("add", k0, m.i32(PACK_K)))
            if op.pattern[-1] == t.r:
                # the operand runs along k (a transpose): for each PACK_LANES consecutive k, a
                # loop over the unit's positions reads them at once (one vector load each; the
                # body stays small: written out for every position, LLVM took seconds over
                # it), then the k left over one at a time
                n = b.bin("sub", kend, k0)
                main = b.bin("sub", kend, b.bin("mod", n, m.i32(PACK_LANES)))

                def lanes(k: Value, _: list[Value]) -> list[Value]:
                    def position(q: Value, _: list[Value]) -> list[Value]:
                        at = b.bin("add", base, q)
                        if clamp:
                            at = b.bin("min", at, last)
                        for j in range(PACK_LANES):
                            kj = b.bin("add", k, m.i32(j)) if j else k
                            v = m.load(src, _index(op.pattern, {axis: at, t.r: kj}))
                            m.store(out, [unit, kj, q], v)
                        return []

                    m.loop(m.i32(0), m.i32(width), one, [], position, tile=True)
                    return []

                m.loop(k0, main, m.i32(PACK_LANES), [], lanes, tile=True)
                k0_ = main
            else:
                k0_ = k0
            m.loop(k0_, kend, one, [], step, tile=True)

        def each_unit(unit: Value, _: list[Value]) -> list[Value]:
            end = b.bin("mul", b.bin("add", unit, one), m.i32(width))

            def each_chunk(k0: Value, _: list[Value]) -> list[Value]:
                m.when(b.cmp("le", end, ext_axis), lambda: copy(unit, k0, False))
                m.when(b.cmp("gt", end, ext_axis), lambda: copy(unit, k0, True))
                return []

            chunk = m.i32(PACK_K)
            m.loop(b.bin("mul", b.special("block_idx", 1), chunk), ext_r,
                   b.bin("mul", b.special("grid_dim", 1), chunk), [], each_chunk)  # fmt: skip
            return []

        m.loop(b.special("block_idx", 0), units, b.special("grid_dim", 0), [], each_unit)
        return m.function(name, [out, src], T.FLOAT64 in (elem, out_type))
    x, y = m.gid(0), m.gid(1)
    w = m.i32(width)
    if which == "v":  # x: strip * n_r + q (padded), y: k
        padded = b.bin("mul", b.op("shape", [out], [T.INT32], dim=0).result, w)
        cond = b.bin("and", b.cmp("lt", x, padded), b.cmp("lt", y, ext_r))
        pos, k = x, y
    else:  # x: k, y: tile * m_r + r (padded)
        padded = b.bin("mul", b.op("shape", [out], [T.INT32], dim=0).result, w)
        cond = b.bin("and", b.cmp("lt", x, ext_r), b.cmp("lt", y, padded))
        pos, k = y, x

    def then() -> None:
        clamped = b.bin("min", pos, b.bin("sub", ext_axis, one))
        v = m.load(src, _index(op.pattern, {axis: clamped, t.r: k}))
        blk, lane = b.bin("floordiv", pos, w), b.bin("mod", pos, w)
        m.store(out, [blk, k, lane], v)

    m.when(cond, then)
    return m.function(name, [out, src], T.FLOAT64 in (elem, out_type))


def _operands(
    m: _Emit, t: Tiling, out_type: T.Scalar, a_type: T.Scalar, b_type: T.Scalar
) -> tuple[Value, Value, Value, Value, Value, Value]:
    """A GEMM kernel's parameters (the output, operand `a` or its packing, operand `b` or its
    packing) and its extents U x V over K, read from their shapes."""
    b = m.b
    out = Value(T.ArrayType(out_type, 2), "out")
    pa = Value(T.ArrayType(a_type, 3 if t.pack_u else 2), "pa" if t.pack_u else "a")
    pb = Value(T.ArrayType(b_type, 3 if t.pack_v else 2), "pb" if t.pack_v else "b")
    U = b.op("shape", [out], [T.INT32], dim=t.out.index(t.u)).result
    V = b.op("shape", [out], [T.INT32], dim=t.out.index(t.v)).result
    k_dim = 1 if t.pack_u else t.a.pattern.index(t.r)
    K = b.op("shape", [pa], [T.INT32], dim=k_dim).result
    return out, pa, pb, U, V, K


def lower_gemm(
    t: Tiling, out_type: T.Scalar, a_type: T.Scalar, b_type: T.Scalar, name: str,
    per_block: bool = False,
) -> Function:  # fmt: skip
    """The register-tiled GEMM kernel (see the module doc). Parameters: the output, then
    operand `a` (the broadcast one: its array, or its packing), then `b` (the vector one).
    `per_block`: a thread is a block of one thread (launched so: the CPU, whose SPMD lowering
    then sees every index as the block's and keeps the tile loop in registers)."""
    m = _Emit()
    b = m.b
    acc_t = ops.float_result([a_type, b_type])
    out, pa, pb, U, V, K = _operands(m, t, out_type, a_type, b_type)
    one, zero = m.i32(1), m.i32(0)
    strips = b.bin("floordiv", b.bin("add", V, m.i32(t.nr - 1)), m.i32(t.nr))
    colblocks = b.bin("floordiv", b.bin("add", V, m.i32(t.nc - 1)), m.i32(t.nc))
    rowblocks = b.bin("floordiv", b.bin("add", U, m.i32(t.mc - 1)), m.i32(t.mc))
    x, y = m.gid(0, per_block), m.gid(1, per_block)

    def fma(acc: Value, x: Value, y: Value) -> Value:
        return _fma(b, acc, x, y)

    def thread() -> None:
        last_u, last_v = b.bin("sub", U, one), b.bin("sub", V, one)

        def sweep(k0: Value, _: list[Value]) -> list[Value]:
            # BLIS's order inside a thread: k block, then its n_r strips (the m_c x k_c block
            # of the broadcast operand stays in L2), then its m_r tiles (the strip's k_c x n_r
            # panel stays in L1)
            kend = b.bin("min", K, b.bin("add", k0, kc))
            first = b.cmp("eq", k0, zero)

            def strip_at(js: Value, _: list[Value]) -> list[Value]:
                s = b.bin("add", b.bin("mul", x, m.i32(t.nc // t.nr)), js)
                m.when(b.cmp("lt", s, strips), lambda: tiles(s, k0, kend, first))
                return []

            m.loop(zero, m.i32(t.nc // t.nr), one, [], strip_at)
            return []

        def tiles(s: Value, k0: Value, kend: Value, first: Value) -> None:
            v0 = b.bin("mul", s, m.i32(t.nr))

            def sweep_tiles(cols: list[Value]) -> None:
                def tile_at(it: Value, _: list[Value]) -> list[Value]:
                    u0 = b.bin("add", b.bin("mul", y, m.i32(t.mc)),
                               b.bin("mul", it, m.i32(t.mr)))  # fmt: skip
                    m.when(b.cmp("lt", u0, U), lambda: micro(s, v0, cols, u0, k0, kend, first))
                    return []

                m.loop(zero, m.i32(t.mc // t.mr), one, [], tile_at)

            clamped = [b.bin("min", b.bin("add", v0, m.i32(q)), last_v) for q in range(t.nr)]
            if t.pack_v:
                sweep_tiles(clamped)
                return
            # the vector operand read where it lies: a strip that reaches no edge reads its n_r
            # columns at consecutive 64-bit indices, which LLVM loads as whole vectors (at the
            # clamped indices they were gathers: P·v at 32 x 2048 took 152 against 37 µs
            # packed, one thread, under load; 32-bit sums, sign-extended, were gathers too)
            whole = b.cmp("le", b.bin("add", v0, m.i32(t.nr)), V)
            w0 = b.cast(v0, T.INT64)
            inside = [b.bin("add", w0, b.const(q, T.INT64)) if q else w0 for q in range(t.nr)]
            m.either(whole, lambda: sweep_tiles(inside), lambda: sweep_tiles(clamped))

        def micro(s: Value, v0: Value, cols: list[Value], u0: Value, k0: Value, kend: Value,
                  first: Value) -> None:  # fmt: skip
            rows = [b.bin("min", b.bin("add", u0, m.i32(r)), last_u) for r in range(t.mr)]
            tile_u = b.bin("floordiv", u0, m.i32(t.mr))

            def at(r: int, q: int) -> list[Value]:
                return _index(t.out, {t.u: rows[r], t.v: cols[q]})

            def at_inside(r: int, q: int) -> list[Value]:
                return _index(t.out, {t.u: b.bin("add", u0, m.i32(r)) if r else u0,
                                      t.v: b.bin("add", v0, m.i32(q)) if q else v0})  # fmt: skip

            # the tile starts at 0; after the loop it is stored (the first k block) or added to
            # the output (`inside`, `edge` below)
            zero_acc = b.const(0.0, acc_t)
            init = [zero_acc] * (t.mr * t.nr)

            def step(k: Value, acc: list[Value]) -> list[Value]:
                if t.pack_u:
                    av = [m.load(pa, [tile_u, k, m.i32(r)]) for r in range(t.mr)]
                else:
                    av = [m.load(pa, _index(t.a.pattern, {t.u: rows[r], t.r: k}))
                          for r in range(t.mr)]  # fmt: skip
                if t.pack_v:
                    bv = [m.load(pb, [s, k, m.i32(q)]) for q in range(t.nr)]
                else:
                    bv = [m.load(pb, _index(t.b.pattern, {t.v: cols[q], t.r: k}))
                          for q in range(t.nr)]  # fmt: skip
                av = [b.cast(x, acc_t) for x in av]
                bv = [b.cast(x, acc_t) for x in bv]
                return [fma(acc[r * t.nr + q], av[r], bv[q])
                        for r in range(t.mr) for q in range(t.nr)]  # fmt: skip

            def unrolled(k: Value, acc: list[Value]) -> list[Value]:
                for j in range(t.unroll):
                    acc = step(b.bin("add", k, m.i32(j)) if j else k, acc)
                return acc

            acc = init
            if t.unroll > 1:
                n = b.bin("sub", kend, k0)
                main = b.bin("add", k0, b.bin("sub", n, b.bin("mod", n, m.i32(t.unroll))))
                acc = m.loop(k0, main, m.i32(t.unroll), acc, unrolled, tile=True)
                k0 = main
            acc = m.loop(k0, kend, one, acc, step, tile=True)

            # a tile that reaches no edge stores its tile in the first k block and adds it to
            # the output's values after, its rows at consecutive columns: whole vectors. Written
            # as one form with the edge's clamped columns (LLVM merged the two, selecting the
            # indices), it was n_r scalar loads and stores a row, and a first block that read
            # the fresh output only to drop it: ~280 cycles a micro-kernel call
            def inside() -> None:
                def fresh() -> None:
                    for r, q in cells:
                        m.store(out, at_inside(r, q), acc[r * t.nr + q])

                def add() -> None:
                    prev = [b.cast(m.load(out, at_inside(r, q)), acc_t) for r, q in cells]
                    for (r, q), old in zip(cells, prev):
                        m.store(out, at_inside(r, q), b.bin("add", old, acc[r * t.nr + q]))

                if t.kc:
                    m.either(first, fresh, add)
                else:  # one k block: always the first (the add's code would be dead weight
                    fresh()  # that simt's passes and LLVM compile at every first call)

            def edge() -> None:
                # a row at a time, past the last row none: every load of a row before any of
                # its stores, so the clamped copies of its last column all add their (equal)
                # sums to the same old value and store the same bits
                for r in range(t.mr):
                    row = [(r, q) for q in range(t.nr)]

                    def one_row(row: list[tuple[int, int]] = row) -> None:
                        if not t.kc:  # one k block (see `inside`)
                            for r, q in row:
                                m.store(out, at(r, q), acc[r * t.nr + q])
                            return
                        prev = [b.select(first, zero_acc, b.cast(m.load(out, at(r, q)), acc_t))
                                for r, q in row]  # fmt: skip
                        for (r, q), old in zip(row, prev):
                            m.store(out, at(r, q), b.bin("add", old, acc[r * t.nr + q]))

                    m.when(b.cmp("lt", b.bin("add", u0, m.i32(r)) if r else u0, U), one_row)

            cells = [(r, q) for r in range(t.mr) for q in range(t.nr)]
            whole = b.bin("and", b.cmp("le", b.bin("add", u0, m.i32(t.mr)), U),
                          b.cmp("le", b.bin("add", v0, m.i32(t.nr)), V))  # fmt: skip
            m.either(whole, inside, edge)

        # k blocks of k_c (all of k at once without `block(k:...)`); one block when k is empty,
        # which stores the zeros of an empty sum
        kc = m.i32(t.kc) if t.kc else b.bin("max", K, one)
        m.loop(zero, b.bin("max", K, one), kc, [], sweep)

    m.when(b.bin("and", b.cmp("lt", x, colblocks), b.cmp("lt", y, rowblocks)), thread)
    fp64 = T.FLOAT64 in (out_type, a_type, b_type)
    return m.function(name, [out, pa, pb], fp64)


def lower_dot(
    t: Tiling, out_type: T.Scalar, a_type: T.Scalar, b_type: T.Scalar, name: str,
    per_block: bool = False,
) -> Function:  # fmt: skip
    """The dot-product micro-kernel (`vector(k)`): for operands that both run contiguously
    along the reduced axis (`ik*jk`, q·kᵀ), an m_r x n_r tile of outputs keeps `t.dot` partial
    sums each; every step loads `t.dot` consecutive k of m_r rows of one operand and n_r rows of
    the other (one vector each) and multiplies-adds them lane by lane. After the loop each
    output adds its lanes pairwise, then the k left over (fewer than `t.dot`) in order. On the
    CPU (`per_block`) the loop takes one k a step and LLVM's loop vectoriser makes those
    vectors (`vector` on the loop, `reassoc` on its adds: see `micro`). Rows
    and columns past the end are clamped as in `lower_gemm`; threads as there (a strip of n_c
    columns, a block of m_c rows; on the CPU a block of one thread). No packing: both operands
    are read as they lie. Parameters as `lower_gemm`'s."""
    m = _Emit()
    b = m.b
    acc_t = ops.float_result([a_type, b_type])
    out, pa, pb, U, V, K = _operands(m, t, out_type, a_type, b_type)
    one, zero = m.i32(1), m.i32(0)
    lanes = m.i32(t.dot)
    strips = b.bin("floordiv", b.bin("add", V, m.i32(t.nr - 1)), m.i32(t.nr))
    colblocks = b.bin("floordiv", b.bin("add", V, m.i32(t.nc - 1)), m.i32(t.nc))
    rowblocks = b.bin("floordiv", b.bin("add", U, m.i32(t.mc - 1)), m.i32(t.mc))
    x, y = m.gid(0, per_block), m.gid(1, per_block)

    def thread() -> None:
        last_u, last_v = b.bin("sub", U, one), b.bin("sub", V, one)
        main = b.bin("sub", K, b.bin("mod", K, lanes))  # k below this: whole vectors

        def strip_at(js: Value, _: list[Value]) -> list[Value]:
            s_ = b.bin("add", b.bin("mul", x, m.i32(t.nc // t.nr)), js)
            m.when(b.cmp("lt", s_, strips), lambda: tiles(s_))
            return []

        def tiles(s_: Value) -> None:
            v0 = b.bin("mul", s_, m.i32(t.nr))
            cols = [b.bin("min", b.bin("add", v0, m.i32(q)), last_v) for q in range(t.nr)]

            def tile_at(it: Value, _: list[Value]) -> list[Value]:
                u0 = b.bin("add", b.bin("mul", y, m.i32(t.mc)), b.bin("mul", it, m.i32(t.mr)))
                m.when(b.cmp("lt", u0, U), lambda: micro(cols, u0))
                return []

            m.loop(zero, m.i32(t.mc // t.mr), one, [], tile_at)

        def micro(cols: list[Value], u0: Value) -> None:
            rows = [b.bin("min", b.bin("add", u0, m.i32(r)), last_u) for r in range(t.mr)]
            cells = [(r, q) for r in range(t.mr) for q in range(t.nr)]

            def a_at(r: int, k: Value) -> Value:
                return b.cast(m.load(pa, _index(t.a.pattern, {t.u: rows[r], t.r: k})), acc_t)

            def b_at(q: int, k: Value) -> Value:
                return b.cast(m.load(pb, _index(t.b.pattern, {t.v: cols[q], t.r: k})), acc_t)

            if per_block:
                # the CPU: one k a step, each output's sum added up in any order (`reassoc`),
                # and the loop vectorised `t.dot` lanes wide by LLVM's loop vectoriser: one
                # vector load per row and step, a vector accumulator per output, each summed
                # across its lanes after the loop. Written out lane by lane (below), the SLP
                # vectoriser grouped the accumulators across outputs: ~90 shuffles around 16
                # FMAs a step, a quarter of the peak
                def one_k(k: Value, acc: list[Value]) -> list[Value]:
                    return [_fma(b, acc[c], a_at(r, k), b_at(q, k), reassoc=True)
                            for c, (r, q) in enumerate(cells)]  # fmt: skip

                zero_sum = b.const(0.0, acc_t)
                sums = m.loop(zero, K, one, [zero_sum] * len(cells), one_k, tile=True,
                              vector=t.dot)  # fmt: skip
                for (r, q), v in zip(cells, sums):
                    m.store(out, _index(t.out, {t.u: rows[r], t.v: cols[q]}), v)
                return

            def step(k: Value, acc: list[Value]) -> list[Value]:
                ks = [b.bin("add", k, m.i32(lane)) if lane else k for lane in range(t.dot)]
                av = [[a_at(r, kl) for kl in ks] for r in range(t.mr)]
                bv = [[b_at(q, kl) for kl in ks] for q in range(t.nr)]
                return [_fma(b, acc[(r * t.nr + q) * t.dot + lane], av[r][lane], bv[q][lane])
                        for r, q in cells for lane in range(t.dot)]  # fmt: skip

            zero_acc = b.const(0.0, acc_t)
            acc = m.loop(zero, main, lanes, [zero_acc] * (len(cells) * t.dot), step, tile=True)
            sums = []
            for c in range(len(cells)):  # each output's lanes, added pairwise
                part = acc[c * t.dot : (c + 1) * t.dot]
                while len(part) > 1:
                    pairs = [b.bin("add", part[j], part[j + 1]) for j in range(0, len(part) - 1, 2)]
                    part = pairs + ([part[-1]] if len(part) % 2 else [])
                sums.append(part[0])

            def rest(k: Value, acc: list[Value]) -> list[Value]:
                return [_fma(b, acc[c], a_at(r, k), b_at(q, k)) for c, (r, q) in enumerate(cells)]

            sums = m.loop(main, K, one, sums, rest, tile=True)
            for (r, q), v in zip(cells, sums):
                m.store(out, _index(t.out, {t.u: rows[r], t.v: cols[q]}), v)

        m.loop(zero, m.i32(t.nc // t.nr), one, [], strip_at)

    m.when(b.bin("and", b.cmp("lt", x, colblocks), b.cmp("lt", y, rowblocks)), thread)
    fp64 = T.FLOAT64 in (out_type, a_type, b_type)
    return m.function(name, [out, pa, pb], fp64)


SHARED_BYTES = 12 << 10  # the shared-memory tiles of a block (WebGPU guarantees 16 KiB)


def shared_k(t: Tiling, block: tuple[int, int], itemsize: int) -> int:
    """The k depth of the shared tiles of a GPU block (`block(k:...)`, at most what fits)."""
    per_k = (block[1] * t.mr + block[0] * t.nr + 2) * itemsize  # (+2: rows maybe padded)
    fit = max(1, SHARED_BYTES // per_k)
    want = t.kc or 16
    depth = 1
    while depth * 2 <= min(fit, want):
        depth *= 2
    return depth


def lower_gemm_shared(
    t: Tiling, out_type: T.Scalar, a_type: T.Scalar, b_type: T.Scalar, name: str,
    block: tuple[int, int],
) -> Function:  # fmt: skip
    """The GEMM kernel for GPUs (CUDA, WebGPU; `sim` runs it too): a block of bx x by threads
    computes a (by * m_r) x (bx * n_r) tile of the output; for every k block, its threads
    stage the two operands' panels in shared memory (clamped indices; past k's end zeros),
    meet at a barrier, and each runs the micro-kernel on its m_r x n_r register block from
    shared memory. Parameters as `lower_gemm`'s."""
    m = _Emit()
    b = m.b
    acc_t = ops.float_result([a_type, b_type])
    bx, by = block
    bm, bn = by * t.mr, bx * t.nr
    kc = shared_k(t, block, max(a_type.np.itemsize, b_type.np.itemsize))
    out, pa, pb, U, V, K = _operands(m, t, out_type, a_type, b_type)
    one, zero = m.i32(1), m.i32(0)
    # an operand read as it lies whose rows run along k (`ik`, q·kᵀ's `jk`) is staged k
    # fastest, so that neighbouring threads read neighbouring words; its shared rows are then
    # one word longer, so that their stores (a column of the tile each) hit distinct banks
    a_kfast = not t.pack_u and t.a.pattern[-1] == t.r
    b_kfast = not t.pack_v and t.b.pattern[-1] == t.r
    sa = b.op("alloc", [], [T.ArrayType(acc_t, 2, T.SHARED, (kc, bm + a_kfast))]).result
    sb = b.op("alloc", [], [T.ArrayType(acc_t, 2, T.SHARED, (kc, bn + b_kfast))]).result
    tx, ty = b.special("thread_idx", 0), b.special("thread_idx", 1)
    tid = b.bin("add", b.bin("mul", ty, m.i32(bx)), tx)
    u_base = b.bin("mul", b.special("block_idx", 1), m.i32(bm))
    v_base = b.bin("mul", b.special("block_idx", 0), m.i32(bn))
    last_u, last_v, last_k = b.bin("sub", U, one), b.bin("sub", V, one), b.bin("sub", K, one)

    def a_at(row: Value, k: Value) -> Value:
        if t.pack_u:
            tile = b.bin("floordiv", row, m.i32(t.mr))
            return m.load(pa, [tile, k, b.bin("mod", row, m.i32(t.mr))])
        return m.load(pa, _index(t.a.pattern, {t.u: row, t.r: k}))

    def b_at(col: Value, k: Value) -> Value:
        if t.pack_v:
            strip = b.bin("floordiv", col, m.i32(t.nr))
            return m.load(pb, [strip, k, b.bin("mod", col, m.i32(t.nr))])
        return m.load(pb, _index(t.b.pattern, {t.v: col, t.r: k}))

    def stage(k0: Value, shared: Value, width: int, base: Value, last: Value,
              get: Callable[[Value, Value], Value], k_fast: bool) -> None:  # fmt: skip
        """shared[kk, x] = operand at (base + x, k0 + kk), clamped; 0 past k's end. The
        block's threads take the elements in turn, x fastest, or kk (`k_fast`)."""
        total = kc * width

        def body(i: Value, _: list[Value]) -> list[Value]:
            if k_fast:
                kk, x = b.bin("mod", i, m.i32(kc)), b.bin("floordiv", i, m.i32(kc))
            else:
                kk, x = b.bin("floordiv", i, m.i32(width)), b.bin("mod", i, m.i32(width))
            k = b.bin("add", k0, kk)
            pos = b.bin("min", b.bin("add", base, x), last)
            v = b.cast(get(pos, b.bin("min", k, last_k)), acc_t)
            v = b.select(b.cmp("lt", k, K), v, b.const(0.0, acc_t))
            b.op("store", [shared, kk, x, v], [], inbounds=True)
            return []

        m.loop(tid, m.i32(total), m.i32(bx * by), [], body)

    def kblock(k0: Value, acc: list[Value]) -> list[Value]:
        stage(k0, sa, bm, u_base, last_u, a_at, a_kfast)
        stage(k0, sb, bn, v_base, last_v, b_at, b_kfast)
        b.op("barrier")

        def step(kk: Value, acc: list[Value]) -> list[Value]:
            av = [b.op("load", [sa, kk, b.bin("add", b.bin("mul", ty, m.i32(t.mr)), m.i32(r))],
                       [acc_t], inbounds=True).result for r in range(t.mr)]  # fmt: skip
            bv = [b.op("load", [sb, kk, b.bin("add", b.bin("mul", tx, m.i32(t.nr)), m.i32(q))],
                       [acc_t], inbounds=True).result for q in range(t.nr)]  # fmt: skip
            return [b.bin("add", acc[r * t.nr + q], b.bin("mul", av[r], bv[q]))
                    for r in range(t.mr) for q in range(t.nr)]  # fmt: skip

        acc = m.loop(zero, m.i32(kc), one, acc, step, tile=True)
        b.op("barrier")
        return acc

    init = [b.const(0.0, acc_t)] * (t.mr * t.nr)
    acc = m.loop(zero, K, m.i32(kc), init, kblock)
    u0 = b.bin("add", u_base, b.bin("mul", ty, m.i32(t.mr)))
    v0 = b.bin("add", v_base, b.bin("mul", tx, m.i32(t.nr)))
    for r in range(t.mr):
        for q in range(t.nr):
            row, col = b.bin("add", u0, m.i32(r)), b.bin("add", v0, m.i32(q))
            inside = b.bin("and", b.cmp("lt", row, U), b.cmp("lt", col, V))
            idx = _index(t.out, {t.u: row, t.v: col})

            def put(idx: list[Value] = idx, v: Value = acc[r * t.nr + q]) -> None:
                m.store(out, idx, v)

            m.when(inside, put)
    fp64 = T.FLOAT64 in (out_type, a_type, b_type)
    return m.function(name, [out, pa, pb], fp64)


# ------------------------------------------------------------------------------ the search
# Known-good micro-kernel shapes (m_r, n_r) to start from, and the k_c / m_c blockings, after
# BLIS's configurations (read, not copied: flame/blis config/zen4/bli_cntx_init_zen4.c, whose
# float32 micro-kernel is 32 x 12 with vectors along m, k_c 480, m_c 512, and whose kernel for
# small problems is 6 x 64 with k_c 512, m_c 192; the haswell AVX2 kernel is 6 x 16). Here the
# vectors run along n and the tile's size is a power of two (LLVM's SLP vectoriser makes one
# wide vector of the tile, which splits cleanly into registers only then), so the same
# register budget gives 8 x 32, 4 x 64 and 16 x 16 (16 vector accumulators). Threads of a GPU
# each compute a small register block.
CPU_TILES = ((8, 32), (4, 64), (16, 16), (8, 16), (4, 32), (2, 64))
# k blocks; the first is the default GEMM's (`default_directives`): 512 rather than 256 halves
# the output's updates, matmul 2048 178-179 against 186 ms and 1024 22.8 against 23.9 ms (one
# thread, CPU time, under load, after the tile's rows were stored as vectors)
CPU_KC = (512, 256, 384)
CPU_MC = (96, 128, 192)
CPU_NC = 256  # columns a thread sweeps (n_r strips) after each k block
# dot micro-kernels (`vector(k)`): m_r x n_r vector accumulators and m_r + n_r loads a step
DOT_TILES = ((4, 4), (2, 8), (8, 2), (5, 4), (3, 4))
GPU_TILES = ((4, 4), (8, 4), (4, 8), (8, 8))
L1_BYTES = 32 << 10  # the panels a micro-kernel sweeps should fit (typical L1 data cache)
L2_BYTES = 512 << 10  # a thread's block of the broadcast operand should fit (half an L2)


def candidates(u: str, v: str, r: str, spmd: bool, pattern_a: str, pattern_b: str) -> list[str]:
    """Directive strings worth trying for a contraction (u: broadcast axis, v: vector axis)."""
    out = []
    if spmd:
        for mr, nr in CPU_TILES:
            for kc in CPU_KC:
                for mc in CPU_MC:
                    if mc % mr == 0:
                        nc = max(nr, CPU_NC // nr * nr)
                        out.append(f"tile({u}:{mr},{v}:{nr}) block({r}:{kc},{u}:{mc},{v}:{nc}) "
                                   f"pack({pattern_a},{pattern_b})")  # fmt: skip
        if pattern_a[-1] == r and pattern_b[-1] == r:  # both along k: the dot micro-kernel
            for mr, nr in DOT_TILES:
                out.append(f"tile({u}:{mr},{v}:{nr}) vector({r})")
    else:
        for mr, nr in GPU_TILES:
            out.append(f"tile({u}:{mr},{v}:{nr}) block({r}:16)")
    return out


# The schedule a contraction gets when none is written (`default_directives`), on runtimes that
# run a block's threads as vector lanes (the CPU): the packed broadcast GEMM, in any operand
# layout (the dot micro-kernel that q·kᵀ's layout had by default until the packing kernels
# copied whole vectors: 1.6x NumPy at 32 x 2048 and 3.2x at 1024 ik*jk, against 1.15x and 1.19x
# packed, one thread each, idle), from GEMM_MIN_WORK multiply-adds, or from LONG_MIN_WORK when
# an axis is at least LONG_AXIS long (FlashAttention's q·kᵀ and P·v, 2M multiply-adds: 1.8x
# and 1.7x NumPy as thread kernels, 1.1x as GEMMs; a matmul of 128, also 2M, kept its thread
# kernel: 1.06x NumPy, against 1.3x for the GEMM's three launches). The tile is 4 x 32, not the
# 8 x 32 `tune` often picks: nearly as fast and about a third of its compile time. k is
# blocked for outputs of at least BLOCK_K_MIN_OUTPUTS (a small output's tiles then add up
# their k blocks for nothing: q·kᵀ 1.24x against 1.15x); a thread's rows are cut so that a
# small output still makes several threads (below SERIAL_MAX_WORK: see there).
DEFAULT_TILE = (4, 32)
# On GPUs (`lower_gemm_shared`) from GEMM_MIN_WORK: register blocks of 8 x 4 in blocks of 8 x 8
# threads, panels 16 deep in shared memory — what `tune` chose for matmul 2048 on an H100
# (1.70 ms against the thread kernel's 3.15 ms, bench/gpu/2026-11-26-h100; not measured
# since, nor on a GPU through WebGPU)
GPU_DEFAULT = (8, 4)
GEMM_MIN_WORK = 1 << 24
LONG_MIN_WORK = 1 << 20
# Below this many multiply-adds the default GEMM packs only its vector operand and, on one
# thread, is one block (`block` over the whole output) run, packing included, on the calling
# thread; on several, SMALL_PIECES blocks a thread, which the pool's workers share from the
# runtime's native fast path (`runtime.cpu_pool`). When the pool was handed launches from
# Python it cost 33-41 µs a launch more than the caller alone (2-core znver5 dev machine,
# 2026-11-27, under load), more than FlashAttention's q·kᵀ and P·v (2^21 each, ~20 µs of one
# core's FMAs): 224 and 191 µs a call as three pool launches, 42 and 34 µs on one thread
# (NumPy: 26.5 and 22.3 µs on two threads)
SERIAL_MAX_WORK = 1 << 23
SMALL_PIECES = 4  # blocks per thread of such a GEMM on several threads (a late worker's share)
# Below SERIAL_MAX_WORK, a product whose operands both run along k (q·kᵀ) takes the dot
# micro-kernel where vectors hold 16 floats (AVX-512: 16 vector accumulators and 8 loads fit
# its 32 registers) and k is long enough to pay for each output's sum across lanes: 4 x 4
# tiles, threads of 8 rows by 32 columns (q·kᵀ at 32 x 2048, one thread, under load: 26 µs
# against 30 for one thread over the whole output and 46 for the packed GEMM; two threads 23)
DOT_MIN_LANES = 16
DOT_MIN_K = 256
DOT_TILE = (4, 4)
DOT_BLOCK = (8, 32)
# Below SERIAL_MAX_WORK, a product whose vector operand runs along the tile's columns with a
# short k (its strip's panel of k x UNPACKED_VECTORS vectors at most UNPACKED_PANEL_BYTES:
# FlashAttention's P·v, k = 32) reads both operands where they lie, in tiles of
# UNPACKED_ROWS x 4 vectors, with no packing pass. P·v at 32 x 2048, one thread, under load,
# one process, the variants alternating; the first call after a 0.2 s pause, when v comes
# from memory (strips of 4 vectors read each row in runs of 256 bytes, which the prefetcher
# keeps up with, and no packing pass writes and reads 256 KB more), and CPU µs a call back to
# back: 4 x 64 143-152 and 39.1, the packed 4 x 32 of before 174-182 and 39.7, 8 x 32 173-180
# and 36.8 (6 x 64 was 31.5 back to back until the one-block stores of `lower_gemm`, then 49:
# LLVM's SLP vectoriser made a row of it one 64-lane vector); NumPy 124-130 and 38-39. The
# whole FlashAttention back to back: 74.4 against 75.4 packed (8 x 32: 69.5)
UNPACKED_ROWS = 4
UNPACKED_VECTORS = 4
UNPACKED_PANEL_BYTES = 8 << 10
LONG_AXIS = 1024
BLOCK_K_MIN_OUTPUTS = 1 << 16


def default_directives(g: Graph, root: int, reads: list[Ref], ext: dict[str, int],
                       itemsize: int, gpu: bool = False, threads: int = 1,
                       lanes: int = 0) -> str | None:  # fmt: skip
    """The GEMM directives node `root` runs with when it has none written (the CPU; `gpu`: a
    GPU, GPU_DEFAULT), or None: a sum over one axis of a product of two float arrays
    (`contraction`) with enough work. `itemsize`: the wider operand's bytes when both are
    floating point (the micro-kernels accumulate in floats), else 0; `threads` and `lanes`:
    the CPU's threads and float32 lanes a vector."""
    e = g.nodes[root].expr
    if e.directives or not itemsize:
        return None
    found = contraction(g, root, reads)
    if found is None or any(ext[a] == 0 for a in ext):
        return None
    r, op0, op1 = found
    u, v = e.output[0], e.output[-1]
    U, V, K = ext[u], ext[v], ext[r]
    work = U * V * K
    if gpu:
        if work < GEMM_MIN_WORK:
            return None
        mr, nr = GPU_DEFAULT
        return f"tile({u}:{mr},{v}:{nr}) block({r}:16)"
    if work < GEMM_MIN_WORK and (work < LONG_MIN_WORK or max(U, V, K) < LONG_AXIS):
        return None
    a = op0 if u in op0.pattern else op1
    b = op1 if a is op0 else op0
    if (work < SERIAL_MAX_WORK and lanes >= DOT_MIN_LANES and K >= DOT_MIN_K
            and a.pattern[-1] == r and b.pattern[-1] == r):  # fmt: skip
        # both operands run along k (q·kᵀ): the dot micro-kernel reads them as they lie
        dot = lanes * 4 // itemsize
        vec = f"{r}" if dot == DOT_LANES else f"{r}:{dot}"
        (mr, nr), (mc, nc) = DOT_TILE, DOT_BLOCK
        return f"tile({u}:{mr},{v}:{nr}) vector({vec}) block({u}:{mc},{v}:{nc})"
    mr, nr = DEFAULT_TILE
    blocks = [f"{r}:{CPU_KC[0]}"] if U * V >= BLOCK_K_MIN_OUTPUTS and K > CPU_KC[0] else []
    packs = f"{a.pattern},{b.pattern}"
    wide = lanes * 4 * UNPACKED_VECTORS // itemsize
    if (work < SERIAL_MAX_WORK and lanes >= DOT_MIN_LANES and b.pattern[-1] == v
            and K * wide * itemsize <= UNPACKED_PANEL_BYTES):  # fmt: skip
        # the vector operand runs along the tile's columns and k is short (P·v): both operands
        # are read where they lie, no packing pass (see UNPACKED_ROWS)
        mr, nr = UNPACKED_ROWS, wide
        rows, cols = _pieces(U, V, mr, nr, SMALL_PIECES * threads if threads > 1 else 1)
        return f"tile({u}:{mr},{v}:{nr}) block({u}:{rows},{v}:{cols})"
    if work < SERIAL_MAX_WORK:
        # the broadcast operand's m_r rows are read where they lie (q·kᵀ's q: 41 against 64 µs
        # a call with its packing pass, P·v's P 34 against 38 µs, one thread, under load); one
        # thread alone runs it and its packing on the calling thread, several share
        # SMALL_PIECES blocks each (`_pieces`)
        rows, cols = _pieces(U, V, mr, nr, SMALL_PIECES * threads if threads > 1 else 1)
        packs = b.pattern
    else:
        rows = min(CPU_MC[0], -(-U // (4 * mr)) * mr)  # at least 4 row blocks where U allows
        cols = min(CPU_NC, -(-V // nr) * nr)
    blocks += [f"{u}:{rows}", f"{v}:{cols}"]
    return f"tile({u}:{mr},{v}:{nr}) block({','.join(blocks)}) pack({packs})"


def _pieces(U: int, V: int, mr: int, nr: int, pieces: int) -> tuple[int, int]:
    """(rows, columns) of the blocks that cut a U x V output of m_r x n_r tiles into about
    `pieces` blocks (or as many as it has tiles): columns first (a column block packs and reads
    only its own strips), then rows."""
    strips, tiles = -(-V // nr), -(-U // mr)
    per_col = -(-strips // min(strips, pieces))
    across = -(-strips // per_col)
    per_row = -(-tiles // min(tiles, -(-pieces // across)))
    return per_row * mr, per_col * nr


def estimate(t: Tiling, ext: dict[str, int], lanes: int, cores: int, spmd: bool) -> float:
    """The analytic model's time of a tiling, in cycles of one core's two FMA pipes (after
    Low et al.: the micro-kernel's registers and loads, the panels' cache fit, the edge tiles'
    waste, the balance of threads over cores, the packing passes)."""
    U, V, K = max(1, ext[t.u]), max(1, ext[t.v]), max(1, ext[t.r])
    if t.dot:
        return _estimate_dot(t, U, V, K, lanes, cores)
    vecs = -(-t.nr // lanes)  # vector registers per tile row
    acc = t.mr * vecs  # vector accumulators
    regs = 32 if lanes >= 16 else 16
    eff = 1.0
    if acc + vecs + 1 > regs:
        eff *= 0.3  # spills in the micro-kernel
    eff *= min(1.0, acc / 8)  # two FMA pipes of latency 4: 8 accumulators in flight
    eff *= min(1.0, acc / (t.mr + vecs))  # loads per FMA: at most one load a FMA
    kc = t.kc or K
    if spmd:
        if kc * t.nr * 4 + t.mr * kc * 4 > L1_BYTES * 2:
            eff *= 0.7  # the strip's panel falls out of L1 (L2 still serves it)
        if t.mc * kc * 4 > L2_BYTES:
            eff *= 0.8
        if t.nc == t.nr and t.mc * K * 4 > L2_BYTES:
            eff *= 0.75  # one strip a thread: its rows of the broadcast operand, all of k, miss L2
        if not (t.pack_u and t.pack_v):
            eff *= 0.6  # strided operand panels (TLB, prefetch)
    padded = (-(-U // t.mr) * t.mr) * (-(-V // t.nr) * t.nr)
    threads = -(-V // t.nc) * -(-U // t.mc)
    rounds = -(-threads // cores)
    balance = threads / (rounds * cores)
    flops_cycles = padded * K / (2 * lanes) / cores  # 2 FMA pipes x lanes per cycle
    pack = ((U * K if t.pack_u else 0) + (V * K if t.pack_v else 0)) / max(1, lanes // 2) / cores
    return flops_cycles / (eff * balance) + pack


def _estimate_dot(t: Tiling, U: int, V: int, K: int, lanes: int, cores: int) -> float:
    """`estimate` of the dot micro-kernel (`vector(k)`): its m_r x n_r vector accumulators
    against the registers and the FMA latency, m_r + n_r loads a step, the lanes' pairwise sums
    after each tile, edge waste and the balance of threads."""
    vecs = -(-t.dot // lanes)
    acc, loads = t.mr * t.nr * vecs, (t.mr + t.nr) * vecs
    regs = 32 if lanes >= 16 else 16
    eff = 0.3 if acc + t.mr + t.nr > regs else 1.0
    eff *= min(1.0, acc / 8) * min(1.0, acc / loads)
    tiles = -(-U // t.mr) * -(-V // t.nr)
    threads = -(-V // t.nc) * -(-U // t.mc)
    rounds = -(-threads // cores)
    balance = threads / (rounds * cores)
    flops_cycles = tiles * t.mr * t.nr * K / (2 * lanes) / cores
    sums = tiles * t.mr * t.nr * t.dot / 2 / cores  # the lanes' sums: scalar adds, two a cycle
    return flops_cycles / (eff * balance) + sums
