"""SPMD lowering for the CPU: the threads of a block become lanes of explicit thread loops.

The input runs once per thread; the output runs once per *block*. Driven by the uniformity
analysis (in its "recomputable" mode: loads never count as uniform), each op is placed:

- *once per block* (block level): pure ops whose operands are all block-level values, and every
  `if`/`for`/`while` whose condition or bounds are uniform: it stays control flow and the thread
  loops are pushed inside it ("deep fission"), so a uniform `for row in range(m)` becomes the
  outer loop with a contiguous loop over lanes inside;
- *per lane*: everything else, gathered into thread loops. Control flow with a varying condition
  stays inside the thread loop (LLVM if-converts it) unless it holds a uniform loop: then it is
  turned into masks, and each thread loop inside runs its lanes under `if mask`;
- `barrier` closes the current thread loop; the next op opens a new one;
- a per-lane value used by a later thread loop is recomputed there when it is pure arithmetic on
  thread indices and block-level values, and otherwise kept in a per-lane array ("spill");
  carried values and results of fissioned control flow that vary go through per-lane arrays too;
- shared arrays become per-block arrays at the top of the function; local arrays become per-lane
  arrays with the lane as their first index.

Refinements for speed, each with a test in tests/passes/test_spmd.py:

- a mask that bounds the thread index (`if i < n:` with `i = block_idx.x * block_dim.x +
  thread_idx.x`, `and` chains of such) becomes the range of the thread loop: no mask at all;
- a `while` whose condition varies runs as a block-level loop while any lane is active, each
  iteration one thread loop advancing the active lanes; carried values that grow by an
  invariant step from a thread-index start are recomputed from the iteration count, and when
  the condition bounds such a value (a grid-stride loop) the active lanes are one shrinking
  range, with no activity flags;
- a uniform loop that only reads memory and accumulates per lane, with a load shared by the
  lanes and one along them (a dot product: `a[row, k]` and `b[k, col]`), runs inside the
  thread loop instead, for JAM_Y x JAM_X lanes at once ("jammed"), so that their accumulators
  can live in vector registers.
  A loop marked `tile=True` (a register-tiled micro-kernel whose carried values are
  already a tile of accumulators per lane: `tensor.gemm`) runs inside the thread loop one lane
  at a time, so its tile stays in registers (and LLVM's SLP vectoriser makes its vectors).

The lowered form uses only ordinary opcodes, with attributes the CPU renderer reads:

- a thread loop is three nested `for` ops over `block_dim.z`, `.y`, `.x` (or a narrower range)
  with attribute `lanes="z"`, `"y"`, `"x"` (the innermost, `x`, is the one LLVM vectorises; its
  iterations are independent, which the renderer tells LLVM); a jammed loop's thread loops step
  by several lanes: `lanes="xs"`, `"ys"`;
- a per-lane array is an `alloc` of a `shared` array whose first dimension is `MAX_THREADS`, with
  attribute `lane=True` (the renderer sizes it by the actual threads per block);
- loads and stores of per-lane arrays made by this pass carry `spill=True` (never
  bounds-checked, never an error site).

So the lowered IR prints and verifies like any other, and `thread_idx` no longer occurs in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ir import Block, Builder, Function, Op, Value, walk, walk_blocks
from ..ir.ops import MEMORY, PURE
from ..types import BOOL, INT32, INT64, LOCAL, SHARED, ArrayType, Scalar, Type
from .uniformity import varying

MAX_THREADS = 1024
# lanes a jammed loop (see `_jam`) advances together: 4 rows of 16 (two AVX vectors of float32)
JAM_X = 16
JAM_Y = 4
_AXES = "xyz"


@dataclass(eq=False)
class _Group:
    """An open thread loop: where its lane ops go and what it has computed so far."""

    root: Op  # the outer (z) `for`
    ops: Block  # the block lane ops are appended to (inside the mask `if` when masked)
    lane: Value  # linear thread id within the block
    tid: tuple[Value, Value, Value]
    closers: list[Block] = field(default_factory=list)  # blocks to terminate, inner first
    env: dict[int, Value] = field(default_factory=dict)
    pre: Block | None = None  # the thread loop body outside the mask `if` (None: no mask)
    order: int = 0  # thread loops opened before this one
    mask: tuple[tuple[Value, bool], ...] = ()  # the mask it runs under
    seq_out: Block | None = None  # the block-level sequence it was opened in


@dataclass(eq=False)
class _Seq:
    """Lowering state of one block-level op sequence."""

    out: Block
    mask: tuple[tuple[Value, bool], ...]
    group: _Group | None = None
    ranges: tuple[list[Value], list[Value]] | None = None  # lane ranges given, not clipped


class _Lowering:
    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.var = varying(fn, loads=False, divergence=False)
        self.top: list[Op] = []  # ops hoisted to the top of the lowered body
        self.once: dict[int, Value] = {p.value.id: p.value for p in fn.params}
        self.spilled: dict[int, Value] = {}  # value id -> per-lane array holding it
        self.home: dict[int, _Group] = {}  # value id -> thread loop that defines it
        self.local: dict[int, Value] = {}  # local array id -> its per-lane array
        self.defs: dict[int, tuple[Op, list[Value]]] = {}  # pure op and its original operands
        # `a and b` as the front end writes it: `if a: yield b else: yield False`
        self.ands: dict[int, tuple[Value, Value]] = {}
        for op in walk(fn.body):
            if op.opcode in PURE:
                for r in op.results:
                    self.defs[r.id] = (op, list(op.operands))
        for op in walk(fn.body):
            if op.opcode == "if" and len(op.results) == 1 and op.result.type == BOOL:
                then_y, else_y = (r.ops[-1].operands[0] for r in op.regions)
                d = self.defs.get(else_y.id)
                if d is not None and d[0].opcode == "const" and d[0].attrs["value"] is False:
                    self.ands[op.result.id] = (op.operands[0], then_y)
        self._remat_ok: dict[int, bool] = {}
        self.clock = 0  # thread loops opened so far: their program order
        self.last_read: dict[int, int] = {}  # per-lane array id -> latest thread loop reading it
        self.last_write: dict[int, int] = {}  # ... and writing it
        self.used = {v.id for op in walk(fn.body) for v in op.operands}
        b = Builder(Block())
        self.bdim = tuple(b.special("block_dim", a) for a in range(3))
        self.zero = b.const(0, INT32)
        self.one = b.const(1, INT32)
        self.false = b.const(False, BOOL)
        self.true = b.const(True, BOOL)
        self.nthreads = b.bin("mul", b.bin("mul", self.bdim[0], self.bdim[1]), self.bdim[2])
        self.top.extend(b.block.ops)
        for op in b.block.ops:
            self.once[op.result.id] = op.result

    # ---- helpers -------------------------------------------------------------------------
    def _alloc_lane(self, dtype: Scalar, shape: tuple[int, ...] = (), hint: str = "") -> Value:
        t = ArrayType(dtype, 1 + len(shape), SHARED, (MAX_THREADS, *shape))
        op = Op("alloc", [], [Value(t, hint)], {"lane": True})
        self.top.append(op)
        self.once[op.result.id] = op.result
        return op.result

    def _hoist_allocs(self, block: Block) -> None:
        keep = []
        for op in block.ops:
            for r in op.regions:
                self._hoist_allocs(r)
            if op.opcode != "alloc":
                keep.append(op)
                continue
            t = op.result.array
            if t.space == LOCAL:
                assert t.shape is not None
                self.local[op.result.id] = self._alloc_lane(t.dtype, t.shape, op.result.hint)
            else:
                self.top.append(op)
                self.once[op.result.id] = op.result
        block.ops[:] = keep

    def _remat(self, v: Value) -> bool:
        """Whether `v` can be recomputed in any thread loop from block-level values."""
        ok = self._remat_ok.get(v.id)
        if ok is None:
            d = self.defs.get(v.id)
            ok = d is not None and all(o.id in self.once or self._remat(o) for o in d[1])
            self._remat_ok[v.id] = ok
        return ok

    # ---- thread loops --------------------------------------------------------------------
    def _open(self, seq: _Seq, x_step: Value | None = None, y_step: Value | None = None) -> _Group:
        if seq.group is not None:
            return seq.group
        lo, hi, rest = self._clip(seq)
        b = Builder(Block())
        ivs = []
        loops = []
        for axis in (2, 1, 0):
            body = Block([Value(INT32, f"t{_AXES[axis]}")])
            step = {0: x_step, 1: y_step}.get(axis) or self.one
            loop = b.op(
                "for", [lo[axis], hi[axis], step], [], regions=[body],
                sign=1, lanes=_AXES[axis] + ("" if step is self.one else "s"),
            )  # fmt: skip
            loops.append(loop)
            ivs.append(body.args[0])
            b.blocks.append(body)
        tz, ty, tx = ivs
        lane = b.bin("add", b.bin("mul", b.bin("add", b.bin("mul", tz, self.bdim[1]), ty),
                                  self.bdim[0]), tx)  # fmt: skip
        lane.hint = "lane"
        g = _Group(loops[0], b.block, lane, (tx, ty, tz), [r.regions[0] for r in loops[::-1]],
                   order=self.clock, mask=seq.mask, seq_out=seq.out)  # fmt: skip
        self.clock += 1
        g.env.update((v.id, v) for v in (lane, tx, ty, tz))
        seq.group = g
        if rest:
            m: Value | None = None
            for cond, polarity in rest:
                c = self.get(cond, g)
                if not polarity:
                    c = self._emit(g, "un", [c], [BOOL], op="not").result
                m = c if m is None else self._emit(g, "bin", [m, c], [BOOL], op="and").result
            assert m is not None
            then, other = Block(), Block([], [Op("yield")])
            self._emit(g, "if", [m], [], regions=[then, other])
            g.pre = g.ops
            g.ops = then
            g.closers.insert(0, then)
        return g

    def _clip(self, seq: _Seq) -> tuple[list[Value], list[Value], list[tuple[Value, bool]]]:
        """Turn mask conditions such as `block_idx.x * block_dim.x + thread_idx.x < n` into
        the range of the thread loop over that axis (no mask, so no masked loads and stores);
        returns each axis's lane range and the conditions left as a mask."""
        lo = list(seq.ranges[0]) if seq.ranges else [self.zero] * 3
        hi = list(seq.ranges[1]) if seq.ranges else list(self.bdim)
        rest: list[tuple[Value, bool]] = []
        for cond, polarity in seq.mask:
            parts = self._conjuncts(cond) if polarity else [cond]
            for c in parts:
                if not (polarity and self._clip_one(c, lo, hi, seq.out)):
                    rest.append((c, polarity))
        return lo, hi, rest

    def _guard(self, op: Op) -> bool:
        """Whether a varying `if` is a bounds guard (`if i < n:` with nothing else) whose
        condition becomes the thread loop's range: then it is worth its own thread loop."""
        if op.results or len(op.regions[1].ops) > 1:
            return False
        parts = self._conjuncts(op.operands[0])
        return all(self._clip_one(c, [], [], None) for c in parts)

    def _conjuncts(self, c: Value) -> list[Value]:
        d = self.defs.get(c.id)
        if d is not None and d[0].opcode == "bin" and d[0].attrs["op"] == "and" and c.type == BOOL:
            return [x for o in d[1] for x in self._conjuncts(o)]
        pair = self.ands.get(c.id)
        if pair is not None:
            # The right operand lives inside the `if`: split only when every part becomes
            # part of the lane range (a leftover part could not be evaluated out there).
            parts = [x for o in pair for x in self._conjuncts(o)]
            if all(self._clip_one(x, [], [], None) for x in parts):
                return parts
        return [c]

    def _lane_offset(self, v: Value) -> tuple[int, list[Value]] | None:
        """(axis, [c...]) when `v` is `thread_idx[axis] + c + ...` with block-level `c`s."""
        d = self.defs.get(v.id)
        if d is None:
            return None
        op, operands = d
        if op.opcode == "special" and op.attrs["reg"] == "thread_idx":
            return op.attrs["axis"], []
        if op.opcode == "bin" and op.attrs["op"] == "add":
            for t, c in (operands, operands[::-1]):
                inner = self._lane_offset(t)
                if inner is not None and c.id in self.once:
                    return inner[0], [*inner[1], self.once[c.id]]
        return None

    def _clip_one(self, c: Value, lo: list[Value], hi: list[Value], out: Block | None) -> bool:
        """Narrow the lane range `lo`/`hi` by condition `c` (ops go to `out`; with `out`
        None, only say whether `c` can be turned into a range)."""
        d = self.defs.get(c.id)
        if d is None or d[0].opcode != "cmp" or d[1][0].type != INT32:
            return False
        o = d[0].attrs["op"]
        a, b = d[1]
        # `eq` narrows the range to one lane (`if thread_idx.x == 0:`, a tile's halo loads)
        flip = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq"}
        if o not in flip:
            return False
        lane = self._lane_offset(a)
        bound = b
        if lane is None or b.id not in self.once:
            lane, bound, o = self._lane_offset(b), a, flip[o]
            if lane is None or a.id not in self.once:
                return False
        axis, offs = lane
        if out is None:
            return True
        bld = Builder(out)
        # thread_idx OP bound - offs, computed in int64 (`n - c` must not wrap) and clamped to
        # [0, block_dim] before it comes back to int32
        x = bld.cast(self.once[bound.id], INT64)
        for off in offs:
            x = bld.bin("sub", x, bld.cast(off, INT64))
        one = bld.const(1, INT64)

        def in_block(v: Value) -> Value:
            v = bld.bin("max", bld.bin("min", v, bld.cast(self.bdim[axis], INT64)),
                        bld.const(0, INT64))  # fmt: skip
            return bld.cast(v, INT32)

        if o == "eq":
            lo[axis] = bld.bin("max", lo[axis], in_block(x))
            hi[axis] = bld.bin("min", hi[axis], in_block(bld.bin("add", x, one)))
            return True
        if o in ("le", "gt"):
            x = bld.bin("add", x, one)
        if o in ("lt", "le"):
            hi[axis] = bld.bin("min", hi[axis], in_block(x))
        else:
            lo[axis] = bld.bin("max", lo[axis], in_block(x))
        return True

    def _close(self, seq: _Seq) -> None:
        g = seq.group
        if g is None:
            return
        seq.group = None
        for blk in g.closers:
            blk.ops.append(Op("yield"))
        seq.out.ops.append(g.root)

    def _emit(
        self, g: _Group, opcode: str, operands: list[Value], types: list[Type],
        regions: list[Block] | None = None, **attrs: Any,
    ) -> Op:  # fmt: skip
        op = Op(opcode, operands, [Value(t) for t in types], attrs, regions or [])
        self._append(g, op)
        return op

    @staticmethod
    def _append(g: _Group, op: Op) -> None:
        ops = g.ops.ops
        if ops and ops[-1].opcode == "yield":
            ops.insert(len(ops) - 1, op)  # a closed loop: keep its terminator last
        else:
            ops.append(op)

    def _spill_array(self, v: Value) -> Value:
        arr = self.spilled.get(v.id)
        if arr is None:
            arr = self._alloc_lane(v.scalar, (), v.hint)
            self.spilled[v.id] = arr
            home = self.home[v.id]
            self._append(home, Op("store", [arr, home.lane, v], [], {"spill": True}))
        return arr

    def get(self, v: Value, g: _Group) -> Value:
        """`v` as seen inside thread loop `g` (recomputed, loaded or as it is)."""
        got = g.env.get(v.id) or self.once.get(v.id)
        if got is not None:
            return got
        if v.id in self.local:
            return v  # only ever the array of a load or store, which `_localize` rewrites
        if v.id in self.spilled or v.id in self.home:
            arr = self._spill_array(v)
            self._read(arr, g.order)
            load = Op("load", [arr, g.lane], [Value(v.type, v.hint)], {"spill": True})
            if g.pre is not None:
                # per-lane arrays are always addressable: load outside the mask (no masked
                # vector loads), before the mask `if`
                g.pre.ops.insert(len(g.pre.ops) - 1 - (g.pre.ops[-1].opcode == "yield"), load)
            else:
                self._append(g, load)
            got = load.result
        elif self._remat(v):
            op, operands = self.defs[v.id]
            if op.opcode == "special":
                assert op.attrs["reg"] == "thread_idx", op
                got = g.tid[op.attrs["axis"]]
            else:
                args = [self.get(o, g) for o in operands]
                got = self._emit(g, op.opcode, args, [v.type], **op.attrs).result
        else:
            raise AssertionError(f"spmd: no way to reach %{v.id} from a thread loop")
        g.env[v.id] = got
        return got

    def need_once(self, v: Value, seq: _Seq) -> Value:
        """`v` as a block-level value; a uniform value computed per lane is read from lane 0."""
        got = self.once.get(v.id)
        if got is not None:
            return got
        assert not seq.mask, "a per-lane value is needed as block-level control under a mask"
        if v.id not in self.home and v.id not in self.spilled:
            g = self._open(seq)
            val = self.get(v, g)
            arr = self._alloc_lane(v.scalar, (), v.hint)
            self.spilled[v.id] = arr
            self._append(g, Op("store", [arr, g.lane, val], [], {"spill": True}))
        self._close(seq)
        arr = self._spill_array(v)
        self._read(arr, self.clock)
        op = Op("load", [arr, self.zero], [Value(v.type, v.hint)], {"spill": True})
        seq.out.ops.append(op)
        self.once[v.id] = op.result
        return op.result

    # ---- lane ops ------------------------------------------------------------------------
    def lane_op(self, op: Op, seq: _Seq) -> None:
        g = self._open(seq)
        inner_defs: set[int] = set()
        free: list[Value] = []
        for region in op.regions:
            _free_vars(region, inner_defs, free)
        mapping = {v.id: self.get(v, g) for v in free if v.id not in inner_defs}
        op.operands = [self.get(v, g) for v in op.operands]
        self._localize(op, g)
        for region in op.regions:
            self._rewrite(region, g, mapping)
        self._append(g, op)
        for r in op.results:
            self.home[r.id] = g
            g.env[r.id] = r

    def _localize(self, op: Op, g: _Group) -> None:
        if op.opcode == "shape" and op.operands[0].id in self.local:
            op.operands = [self.local[op.operands[0].id]]
            op.attrs = dict(op.attrs, dim=op.attrs["dim"] + 1)
        elif op.opcode in MEMORY and op.operands:
            arr = self.local.get(op.operands[0].id)
            if arr is not None:
                op.operands = [arr, g.lane, *op.operands[1:]]

    def _rewrite(self, block: Block, g: _Group, mapping: dict[int, Value]) -> None:
        keep = []
        for op in block.ops:
            if op.opcode == "special" and op.attrs.get("reg") == "thread_idx":
                mapping[op.result.id] = g.tid[op.attrs["axis"]]
                continue
            op.operands = [mapping.get(v.id, v) for v in op.operands]
            self._localize(op, g)
            for r in op.regions:
                self._rewrite(r, g, mapping)
            keep.append(op)
        block.ops[:] = keep

    # ---- block level ---------------------------------------------------------------------
    def seq(self, ops: list[Op], seq: _Seq) -> None:
        for op in ops:
            k = op.opcode
            if k == "barrier":
                self._close(seq)
            elif (
                k in PURE
                and all(v.id in self.once for v in op.operands)
                and not (k == "special" and op.attrs.get("reg") == "thread_idx")
            ):
                seq.out.ops.append(op)
                for r in op.results:
                    self.once[r.id] = r
            elif k in PURE and self._remat(op.result):
                pass  # recomputed in each thread loop that uses it
            elif k == "if":
                self._if(op, seq)
            elif k == "for":
                self._for(op, seq)
            elif k == "while":
                self._while(op, seq)
            else:
                self.lane_op(op, seq)

    def _read(self, arr: Value, when: int) -> None:
        self.last_read[arr.id] = max(self.last_read.get(arr.id, -1), when)

    def _store_lanes(
        self, seq: _Seq, pairs: list[tuple[Value, Value]], direct: bool = False
    ) -> None:
        """Store each value into its per-lane array (all loads first: swaps stay right).

        With `direct`, a value computed in an earlier (closed) thread loop under the same mask
        is stored into its array at the end of that loop instead, when nothing has read the
        array since that loop began: then no thread loop copies it over from a spill array (a
        per-lane sum carried around a barrier loop, a merge after a barrier)."""
        if direct:
            kept = []
            for v, arr in pairs:
                home = self.home.get(v.id)
                # (only a thread loop of this same sequence: one before it, say before the
                # `while` whose body this is, would store `v` over the slot's initial value
                # before the loop ran; fuzzer seed 24980)
                if (home is not None and home is not seq.group and v.id not in self.spilled
                        and home.seq_out is seq.out and home.mask == seq.mask
                        and self.last_read.get(arr.id, -1) <= home.order
                        and self.last_write.get(arr.id, -1) < home.order):  # fmt: skip
                    # (`v` itself is not read back from `arr`: another branch or a later
                    # iteration may overwrite the slot while `v` is still live)
                    self._append(home, Op("store", [arr, home.lane, v], [], {"spill": True}))
                    self.last_write[arr.id] = home.order
                else:
                    kept.append((v, arr))
            pairs = kept
        if not pairs:
            return
        g = self._open(seq)
        vals = [self.get(v, g) for v, _ in pairs]
        for val, (_, arr) in zip(vals, pairs):
            self._append(g, Op("store", [arr, g.lane, val], [], {"spill": True}))
            self.last_write[arr.id] = max(self.last_write.get(arr.id, -1), g.order)

    def _slots(self, values: list[Value]) -> list[Value | None]:
        """A per-lane array for each varying slot, None for block-level ones."""
        return [self._slot(v) for v in values]

    def _slot(self, v: Value, *same: Value) -> Value | None:
        """A per-lane array for a carried slot if any of its values varies, else None."""
        if any(x.id in self.var for x in (v, *same)):
            return self._alloc_lane(v.scalar, (), v.hint)
        return None

    def _pure_uniform(self, op: Op) -> bool:
        """Whether `op` computes only block-level values: then the open thread loop may stay
        open around it (nothing in it must wait for that loop's effects)."""
        return all(
            (o.opcode in PURE or o.opcode in ("if", "for", "while", "yield", "condition"))
            and not (o.opcode == "special" and o.attrs.get("reg") == "thread_idx")
            and all(r.id not in self.var for r in o.results)
            for o in (op, *(x for r in op.regions for x in walk(r)))
        ) and all(a.id not in self.var for r in op.regions for b in walk_blocks(r) for a in b.args)

    def _finish(self, seq: _Seq, yields: list[Value], slots: list[Value | None]) -> list[Value]:
        """Store the varying yields of a region, return its block-level ones."""
        self._store_lanes(seq, [(y, a) for y, a in zip(yields, slots) if a is not None], True)
        self._close(seq)
        return [self.need_once(y, seq) for y, a in zip(yields, slots) if a is None]

    def _bind(self, args: list[Value], slots: list[Value | None]) -> list[Value]:
        kept = []
        for a, s in zip(args, slots):
            if s is None:
                self.once[a.id] = a
                kept.append(a)
            else:
                self.spilled[a.id] = s
        return kept

    def _results(self, op: Op, slots: list[Value | None]) -> list[Value]:
        return self._bind(op.results, slots)

    def _if(self, op: Op, seq: _Seq) -> None:
        cond = op.operands[0]
        # With a barrier inside, the condition is uniform by the full analysis (checked before):
        # if it comes from memory, `need_once` reads it from lane 0.
        uniform = cond.id not in self.var or _has_barrier(op)
        if not uniform and not _wants_fission(op, self.var) and not self._guard(op):
            self.lane_op(op, seq)
            return
        if not self._pure_uniform(op):
            self._close(seq)
        slots = self._slots(op.results)
        if uniform:
            c = self.need_once(cond, seq)
            regions = []
            for r in op.regions:
                inner = _Seq(Block(), seq.mask, ranges=seq.ranges)
                self.seq(r.ops[:-1], inner)
                kept = self._finish(inner, list(r.ops[-1].operands), slots)
                inner.out.ops.append(Op("yield", kept))
                regions.append(inner.out)
            new = Op("if", [c], self._results(op, slots), dict(op.attrs), regions, op.loc)
            seq.out.ops.append(new)
            return
        # Varying condition around a uniform loop: each branch runs under a mask.
        for r, polarity in zip(op.regions, (True, False)):
            inner = _Seq(seq.out, (*seq.mask, (cond, polarity)), ranges=seq.ranges)
            self.seq(r.ops[:-1], inner)
            kept = self._finish(inner, list(r.ops[-1].operands), slots)
            assert not kept
        self._results(op, slots)

    def _for(self, op: Op, seq: _Seq) -> None:
        bounds = op.operands[:3]
        uniform = all(v.id not in self.var for v in bounds)
        if not uniform and not _has_barrier(op):
            self.lane_op(op, seq)
            return
        (body,) = op.regions
        carried = body.args[1:]
        slots = [self._slot(r, a, i) for r, a, i in zip(op.results, carried, op.operands[3:])]
        if self._jammable(op, slots, seq):
            self._jam(op, slots, seq)
            return
        lane_inits = [(i, s) for i, s in zip(op.operands[3:], slots) if s is not None]
        self._store_lanes(seq, lane_inits, True)
        if not self._pure_uniform(op):
            self._close(seq)
        new_bounds = [self.need_once(v, seq) for v in bounds]
        inits = [self.need_once(i, seq) for i, s in zip(op.operands[3:], slots) if s is None]
        iv = body.args[0]
        self.once[iv.id] = iv
        args = self._bind(carried, slots)
        inner = _Seq(Block([iv, *args]), seq.mask, ranges=seq.ranges)
        self.seq(body.ops[:-1], inner)
        kept = self._finish(inner, list(body.ops[-1].operands), slots)
        inner.out.ops.append(Op("yield", kept))
        new = Op("for", [*new_bounds, *inits], self._results(op, slots), dict(op.attrs),
                 [inner.out], op.loc)  # fmt: skip
        seq.out.ops.append(new)

    def _jammable(self, op: Op, slots: list[Value | None], seq: _Seq) -> bool:
        """Whether a uniform loop that only reads memory and accumulates per lane (naive
        matmul's `for k: acc += a[row, k] * b[k, col]`) can run *inside* the thread loop, for
        JAM lanes at once (see `_jam`)."""
        if not slots or any(s is None for s in slots) or _has_barrier(op):
            return False
        if op.attrs.get("tile"):
            return True  # a register tile: already as wide as the registers allow
        shared_load = lane_load = False
        for o in op.regions[0].ops[:-1]:
            if o.opcode == "load":
                if o.operands[0].id in self.local:
                    return False
                along_x = any(
                    self._uses_tid_x(v) for v in o.operands if v not in op.regions[0].args
                )
                shared_load = shared_load or not along_x
                lane_load = lane_load or along_x
            elif o.opcode not in PURE:
                return False
        if not (shared_load and lane_load):
            # nothing to share between lanes, or no load along the lanes' row for the jammed
            # copies to share: the thread loop inside is better. Without a load along x
            # (nbody's `sh_position[j, c]`, `acc += w[k] * x_i`) LLVM left the 64 copies
            # scalar: bench/user_kernels' nbody took 110 ms jammed, 2.7 ms not (cpu, under load)
            return False
        return all(pol and all(self._clip_one(c, [], [], None) for c in self._conjuncts(m))
                   for m, pol in seq.mask)  # fmt: skip

    def _jam(self, op: Op, slots: list[Value | None], seq: _Seq) -> None:
        """Run the loop inside the thread loop, for JAM_Y x JAM_X lanes at once: one loop over
        `k` carries all their accumulators, and LLVM turns the copies of the body into vector
        operations (SLP) with the accumulators in registers, each vector of `b[k, col...]`
        loaded once for JAM_Y rows. Lanes left over run in smaller steps."""
        self._close(seq)
        lo, hi, rest = self._clip(seq)
        assert not rest
        out = Builder(seq.out)
        mains = []
        # a register-tiled loop (`tile=True`) runs one lane at a time: its tile is the width
        jam_x, jam_y = (1, 1) if op.attrs.get("tile") else (JAM_X, JAM_Y)
        for axis, width in ((0, jam_x), (1, jam_y)):
            w = out.const(width, INT32)
            n = out.bin("max", out.bin("sub", hi[axis], lo[axis]), self.zero)
            mains.append((w, out.bin("add", lo[axis], out.bin("sub", n, out.bin("mod", n, w)))))
        (wx, mx), (wy, my) = mains
        # the main rectangle in steps of JAM_Y x JAM_X, then the lanes left over one by one:
        # the rows below it, and the columns right of it
        parts = [
            ((lo[0], mx, lo[1], my), jam_x, jam_y),
            ((lo[0], mx, my, hi[1]), 1, 1),
            ((mx, hi[0], lo[1], hi[1]), 1, 1),
        ]
        if op.attrs.get("tile"):  # one lane at a time: the main rectangle is every lane
            parts = [((lo[0], hi[0], lo[1], hi[1]), 1, 1)]
        for (x_lo, x_hi, y_lo, y_hi), jx, jy in parts:
            part = _Seq(seq.out, (), ranges=([x_lo, y_lo, lo[2]], [x_hi, y_hi, hi[2]]))
            g = self._open(part, x_step=wx if jx > 1 else None, y_step=wy if jy > 1 else None)
            self._jammed_loop(op, slots, g, jx, jy)
            self._close(part)
        for r, s_ in zip(op.results, slots):
            assert s_ is not None
            self.spilled[r.id] = s_

    def _jammed_loop(self, op: Op, slots: list[Value | None], g: _Group, jx: int, jy: int) -> None:
        body = op.regions[0]
        iv = body.args[0]
        inner = {r.id for o in body.ops for r in o.results} | {a.id for a in body.args}
        free: list[Value] = []
        for o in body.ops:
            for v in o.operands:
                if v.id not in inner and all(v is not f for f in free):
                    free.append(v)
        lanes = []
        for j in range(jx * jy):
            env: dict[int, Value] = {}
            dy, dx = divmod(j, jx)
            tx, ty, lane = g.tid[0], g.tid[1], g.lane
            if dx:
                tx = self._emit(g, "bin", [tx, self._const(dx, g)], [INT32], op="add").result
            if dy:
                ty = self._emit(g, "bin", [ty, self._const(dy, g)], [INT32], op="add").result
            if j:
                off = self._emit(g, "bin", [self._const(dy, g), self.bdim[0]], [INT32],
                                 op="mul").result  # fmt: skip
                off = self._emit(g, "bin", [off, self._const(dx, g)], [INT32], op="add").result
                lane = self._emit(g, "bin", [lane, off], [INT32], op="add").result
            lanes.append((env, (tx, ty), lane))
            for v in (*free, *op.operands[3:]):
                self._get_at(v, g, env, (tx, ty), lane)
        bounds = [self.once[v.id] for v in op.operands[:3]]
        inits = [env[v.id] for env, _, _ in lanes for v in op.operands[3:]]
        new_iv = Value(iv.type, iv.hint)
        args = [Value(a.type, a.hint) for _ in lanes for a in body.args[1:]]
        blk = Block([new_iv, *args])
        ncar = len(body.args) - 1
        ys: list[Value] = []
        for j, (env, _, _) in enumerate(lanes):
            dy, dx = divmod(j, jx)
            m = dict(env)
            m[iv.id] = new_iv
            for a, na in zip(body.args[1:], args[j * ncar : (j + 1) * ncar]):
                m[a.id] = na
            for o in body.ops[:-1]:
                attrs = dict(o.attrs)
                if j and o.opcode in MEMORY:  # a failing access names this copy's thread
                    attrs["lane_offset"] = (dx, dy)
                new = Op(o.opcode, [m.get(v.id, v) for v in o.operands],
                         [Value(r.type, r.hint) for r in o.results], attrs, [],
                         o.loc)  # fmt: skip
                for r, nr in zip(o.results, new.results):
                    m[r.id] = nr
                blk.ops.append(new)
            ys.extend(m.get(y.id, y) for y in body.ops[-1].operands)
        blk.ops.append(Op("yield", ys))
        types = [Value(r.type, r.hint) for _ in lanes for r in op.results]
        loop = Op("for", [*bounds, *inits], types, dict(op.attrs, jammed=True), [blk], op.loc)
        self._append(g, loop)
        for j, (_, _, lane) in enumerate(lanes):
            for k, s_ in enumerate(slots):
                assert s_ is not None
                res = loop.results[j * ncar + k]
                self._append(g, Op("store", [s_, lane, res], [], {"spill": True}))
                self.last_write[s_.id] = g.order

    def _uses_tid_x(self, v: Value) -> bool:
        d = self.defs.get(v.id)
        if d is None:
            return v.id not in self.once  # a per-lane value from memory: assume it does
        if d[0].opcode == "special":
            return d[0].attrs["reg"] == "thread_idx" and d[0].attrs["axis"] == 0
        return any(self._uses_tid_x(o) for o in d[1])

    def _const(self, value: int, g: _Group) -> Value:
        c = Op("const", [], [Value(INT32)], {"value": value})
        self._append(g, c)
        return c.result

    def _get_at(self, v: Value, g: _Group, env: dict[int, Value], txy: tuple[Value, Value],
                lane: Value) -> Value:  # fmt: skip
        """`v` for the lane `lane` (thread index x, y: `txy`) of thread loop `g`."""
        got = env.get(v.id) or self.once.get(v.id)
        if got is not None:
            env[v.id] = got
            return got
        if lane is g.lane:
            got = self.get(v, g)
        elif v.id in self.spilled or v.id in self.home:
            arr = self._spill_array(v)
            self._read(arr, g.order)
            got = self._emit(g, "load", [arr, lane], [v.type], spill=True).result
        else:
            assert self._remat(v), v
            d, operands = self.defs[v.id]
            if d.opcode == "special":
                got = (*txy, g.tid[2])[d.attrs["axis"]]
            else:
                args = [self._get_at(o, g, env, txy, lane) for o in operands]
                got = self._emit(g, d.opcode, args, [v.type], **d.attrs).result
        env[v.id] = got
        return got

    def _while(self, op: Op, seq: _Seq) -> None:
        cond_blk, body = op.regions
        term = cond_blk.ops[-1]
        uniform = term.operands[0].id not in self.var
        if not uniform and not _has_barrier(op):
            self._varying_while(op, seq)
            return
        slots = [self._slot(*vs) for vs in zip(op.results, cond_blk.args, body.args, op.operands)]
        lane_inits = [(i, s) for i, s in zip(op.operands, slots) if s is not None]
        self._store_lanes(seq, lane_inits, True)
        if not self._pure_uniform(op):
            self._close(seq)
        inits = [self.need_once(i, seq) for i, s in zip(op.operands, slots) if s is None]
        cseq = _Seq(Block(self._bind(cond_blk.args, slots)), seq.mask, ranges=seq.ranges)
        self.seq(cond_blk.ops[:-1], cseq)
        self._close(cseq)
        c = self.need_once(term.operands[0], cseq)
        cseq.out.ops.append(Op("condition", [c]))
        bseq = _Seq(Block(self._bind(body.args, slots)), seq.mask, ranges=seq.ranges)
        self.seq(body.ops[:-1], bseq)
        kept = self._finish(bseq, list(body.ops[-1].operands), slots)
        bseq.out.ops.append(Op("yield", kept))
        new = Op("while", inits, self._results(op, slots), dict(op.attrs),
                 [cseq.out, bseq.out], op.loc)  # fmt: skip
        seq.out.ops.append(new)

    def _varying_while(self, op: Op, seq: _Seq) -> None:
        """A `while` whose condition varies: a block-level loop that runs while any lane is
        active, over a thread loop that advances each active lane by one iteration (so the
        lanes of one iteration are vectorised together).

        Every active lane has run the same number of iterations `it`, so a carried value that
        starts at something recomputable from the thread index and grows by a loop-invariant
        step (`i += block_dim.x * grid_dim.x`) is recomputed as `start + it * step` instead of
        being kept per lane: its loads stay contiguous (vector loads, not gathers)."""
        cond_blk, body = op.regions
        yields = list(body.ops[-1].operands)
        fission = _wants_fission(op, self.var, regions=[body])
        steps = {} if fission else self._inductions(op)
        if steps and self._clipped_while(op, seq, steps):
            return
        slots: list[Value | None] = [self._alloc_lane(r.scalar, (), r.hint) for r in op.results]
        # activity flags as int32, not bool: AVX2 has masked stores of 32-bit lanes only
        act = self._alloc_lane(INT32, (), "active")
        self._close(seq)
        plain = _Seq(seq.out, ())
        g = self._open(plain)  # every lane inactive ...
        self._append(g, Op("store", [act, g.lane, self.zero], [], {"spill": True}))
        self._close(plain)
        self._store_lanes(seq, [(i, s) for k, (i, s) in enumerate(zip(op.operands, slots))
                                if k not in steps and s is not None])  # fmt: skip
        g = self._open(seq)  # ... but those that reach the loop
        self._append(g, Op("store", [act, g.lane, self.one], [], {"spill": True}))
        self._close(seq)
        # condition: is any lane still active?
        it_c, it_b = Value(INT32, "it"), Value(INT32, "it")
        cond = Block([it_c])
        b = Builder(cond)
        red = Block([Value(INT32, "l"), Value(INT32, "any")])
        with b.at(red):
            x = b.op("load", [act, red.args[0]], [INT32], spill=True).result
            b.op("yield", [b.bin("or", red.args[1], x)])
        # `lane_count`: it runs once a lane, at most a block's threads (no Ctrl-C poll)
        anyv = b.op("for", [self.zero, self.nthreads, self.one, self.zero], [INT32],
                    regions=[red], sign=1, lane_count=True).result  # fmt: skip
        b.op("condition", [b.cmp("ne", anyv, self.zero)])
        # body: one iteration of every active lane
        flag = Value(INT32, "active")
        self.spilled[flag.id] = act
        active = Value(BOOL, "active")
        fake = Op("cmp", [flag, self.zero], [active], {"op": "ne"})
        self.defs[active.id] = (fake, list(fake.operands))
        self._remat_ok[active.id] = True  # recomputed from the loaded flag in each thread loop
        bseq = _Seq(Block([it_b]), (*seq.mask, (active, True)), ranges=seq.ranges)
        bb = Builder(bseq.out)
        for k, step in steps.items():
            t = op.operands[k].scalar
            n = bb.cast(it_b, t)
            off = bb.bin("mul", n, self._materialize(step, bseq.out))
            self.once[off.id] = off
            if n is not it_b:
                self.once[n.id] = n
            for arg in (cond_blk.args[k], body.args[k]):
                fake = Op("bin", [op.operands[k], off], [arg], {"op": "add"})
                self.defs[arg.id] = (fake, list(fake.operands))
        carried = [s if k not in steps else None for k, s in enumerate(slots)]
        self._bind([a for k, a in enumerate(cond_blk.args) if k not in steps],
                   [s for k, s in enumerate(carried) if k not in steps])  # fmt: skip
        self._bind([a for k, a in enumerate(body.args) if k not in steps],
                   [s for k, s in enumerate(carried) if k not in steps])  # fmt: skip
        self.seq(cond_blk.ops[:-1], bseq)
        c = cond_blk.ops[-1].operands[0]
        if fission:
            self._close(bseq)
            tseq = _Seq(bseq.out, (*bseq.mask, (c, True)), ranges=bseq.ranges)
            self.seq(body.ops[:-1], tseq)
            self._store_lanes(tseq, list(zip(yields, slots)))  # type: ignore[arg-type]
            self._close(tseq)
            eseq = _Seq(bseq.out, (*bseq.mask, (c, False)), ranges=bseq.ranges)
            g = self._open(eseq)
            self._append(g, Op("store", [act, g.lane, self.zero], [], {"spill": True}))
            self._close(eseq)
        else:
            # one thread loop: `if c: body; store the carried values else: deactivate`
            g = self._open(bseq)
            then = Block([], body.ops[:-1])
            for k, (y, s) in enumerate(zip(yields, slots)):
                if k not in steps and s is not None:
                    then.ops.append(Op("store", [s, g.lane, y], [], {"spill": True}))
            then.ops.append(Op("yield"))
            other = Block([], [Op("store", [act, g.lane, self.zero], [], {"spill": True})])
            for k in steps:  # a lane leaving the loop keeps its induction values
                s = slots[k]
                assert s is not None
                other.ops.append(Op("store", [s, g.lane, cond_blk.args[k]], [], {"spill": True}))
            other.ops.append(Op("yield"))
            self.lane_op(Op("if", [c], [], {}, [then, other], op.loc), bseq)
        self._close(bseq)
        bseq.out.ops.append(Op("yield", [bb.bin("add", it_b, self.one)]))
        seq.out.ops.append(Op("while", [self.zero], [Value(INT32, "it")], {}, [cond, bseq.out],
                              op.loc))  # fmt: skip
        self._bind(op.results, slots)

    def _clipped_while(self, op: Op, seq: _Seq, steps: dict[int, Value]) -> bool:
        """The grid-stride loop (`while i < n: ...; i += stride`, `i` from the thread index):
        the lanes still in the loop are always one range of thread indices, narrowed each
        iteration, so each iteration is one plain thread loop over that range: no activity
        flags, no masks. Returns False (nothing emitted) when the loop is not of that form."""
        cond_blk, body = op.regions
        if any(op.results[k].id in self.used for k in steps):
            return False  # a lane's final induction value would have to be kept
        if any(not pol or not all(self._clip_one(c, [], [], None) for c in self._conjuncts(m))
               for m, pol in seq.mask):  # fmt: skip
            return False
        if not all(o.opcode in PURE for o in cond_blk.ops[:-1]):
            return False
        for o in body.ops[:-1]:  # everything in the body must run per lane, in one range
            if o.opcode in PURE or o.opcode not in ("if", "for", "while", "barrier"):
                continue
            if o.opcode == "barrier" or not self._var_control(o):
                return False
        local = {r.id for o in cond_blk.ops for r in o.results}
        ind_args = {cond_blk.args[k].id: op.operands[k] for k in steps}
        conds = self._split_and(cond_blk.ops[-1].operands[0])
        if not all(self._affine_cmp(c, local, ind_args) for c in conds):
            return False
        # -- emit -----------------------------------------------------------------------------
        slots: list[Value | None] = [
            None if k in steps else self._alloc_lane(r.scalar, (), r.hint)
            for k, r in enumerate(op.results)
        ]
        self._close(seq)
        self._store_lanes(seq, [(i, s) for i, s in zip(op.operands, slots) if s is not None])
        self._close(seq)
        lo0, hi0, rest = self._clip(seq)
        assert not rest
        it_c, go_c = Value(INT32, "it"), Value(BOOL, "go")
        it_b, go_b = Value(INT32, "it"), Value(BOOL, "go")
        rng_c = [Value(INT32, n) for n in ("lo_x", "lo_y", "lo_z", "hi_x", "hi_y", "hi_z")]
        rng_b = [Value(INT32, n) for n in ("lo_x", "lo_y", "lo_z", "hi_x", "hi_y", "hi_z")]
        cond = Block([it_c, go_c, *rng_c], [Op("condition", [go_c])])
        bseq = _Seq(Block([it_b, go_b, *rng_b]), ())
        bb = Builder(bseq.out)
        for k, step in steps.items():
            n = bb.cast(it_b, op.operands[k].scalar)
            off = bb.bin("mul", n, self._materialize(step, bseq.out))
            self.once[off.id] = off
            for arg in (cond_blk.args[k], body.args[k]):
                fake = Op("bin", [op.operands[k], off], [arg], {"op": "add"})
                self.defs[arg.id] = (fake, list(fake.operands))
                self._remat_ok.pop(arg.id, None)
        for args in (cond_blk.args, body.args):
            self._bind([a for k, a in enumerate(args) if k not in steps],
                       [s for k, s in enumerate(slots) if k not in steps])  # fmt: skip
        self.seq(cond_blk.ops[:-1], bseq)
        self._close(bseq)
        lo, hi = list(rng_b[:3]), list(rng_b[3:])
        for c in conds:
            ok = self._clip_one(c, lo, hi, bseq.out)
            assert ok
        live = None
        for axis in range(3):
            ne = bb.cmp("lt", lo[axis], hi[axis])
            live = ne if live is None else bb.bin("and", live, ne)
        assert live is not None
        bseq.ranges = (lo, hi)
        self.seq(body.ops[:-1], bseq)
        self._store_lanes(bseq, [(y, s) for y, s in zip(body.ops[-1].operands, slots)
                                 if s is not None])  # fmt: skip
        self._close(bseq)
        bseq.out.ops.append(Op("yield", [bb.bin("add", it_b, self.one), live, *lo, *hi]))
        types = [INT32, BOOL, *([INT32] * 6)]
        seq.out.ops.append(Op("while", [self.zero, self.true, *lo0, *hi0],
                              [Value(t) for t in types], {}, [cond, bseq.out], op.loc))  # fmt: skip
        for k, s in enumerate(slots):
            if s is not None:
                self.spilled[op.results[k].id] = s
        return True

    def _var_control(self, op: Op) -> bool:
        if op.opcode == "if":
            return op.operands[0].id in self.var
        if op.opcode == "for":
            return any(v.id in self.var for v in op.operands[:3])
        term = op.regions[0].terminator
        return term is not None and term.operands[0].id in self.var

    def _split_and(self, c: Value) -> list[Value]:
        d = self.defs.get(c.id)
        if d is not None and d[0].opcode == "bin" and d[0].attrs["op"] == "and" and c.type == BOOL:
            return [x for o in d[1] for x in self._split_and(o)]
        return [c]

    def _affine_cmp(self, c: Value, local: set[int], ind: dict[int, Value]) -> bool:
        """Whether `c` compares (thread index + block-level terms) with a block-level value,
        judged before the condition's ops are placed (`local`: defined in the condition,
        `ind`: induction arguments and their initial values)."""
        d = self.defs.get(c.id)
        if d is None or d[0].opcode != "cmp" or d[0].attrs["op"] not in ("lt", "le", "gt", "ge"):
            return False
        a, b = d[1]
        if a.type != INT32:
            return False

        def inv(v: Value) -> bool:
            if v.id in self.once:
                return True
            dv = self.defs.get(v.id)
            return (v.id in local and dv is not None and dv[0].opcode != "special"
                    and all(inv(o) for o in dv[1]))  # fmt: skip

        def aff(v: Value) -> bool:
            if v.id in ind:
                return aff(ind[v.id])
            dv = self.defs.get(v.id)
            if dv is None:
                return False
            if dv[0].opcode == "special" and dv[0].attrs["reg"] == "thread_idx":
                return True
            if dv[0].opcode == "bin" and dv[0].attrs["op"] == "add":
                x, y = dv[1]
                return (aff(x) and inv(y)) or (inv(x) and aff(y))
            return False

        return (aff(a) and inv(b)) or (inv(a) and aff(b))

    def _inductions(self, op: Op) -> dict[int, Value]:
        """Carried slots of a `while` that start recomputable and grow by an invariant step."""
        body = op.regions[1]
        inner = {r.id for o in walk(body) for r in o.results} | {a.id for a in body.args}
        out: dict[int, Value] = {}
        for k, (arg, y, init) in enumerate(zip(body.args, body.ops[-1].operands, op.operands)):
            d = self.defs.get(y.id)
            if not (isinstance(arg.type, Scalar) and arg.type.is_int):
                continue
            if d is None or d[0].opcode != "bin" or d[0].attrs["op"] != "add":
                continue
            a0, a1 = d[1]
            step = a1 if a0 is arg else (a0 if a1 is arg else None)
            if step is None or not self._invariant(step, inner):
                continue
            if init.id in self.once or self._remat(init):
                out[k] = step
        return out

    def _invariant(self, v: Value, inner: set[int]) -> bool:
        if v.id in self.once and v.id not in inner:
            return True
        d = self.defs.get(v.id)
        if (
            d is None
            or d[0].opcode not in PURE
            or (d[0].opcode == "special" and d[0].attrs["reg"] == "thread_idx")
        ):
            return False
        return all(self._invariant(o, inner) for o in d[1])

    def _materialize(self, v: Value, out: Block) -> Value:
        """A block-level copy of a loop-invariant pure value, computed in `out`."""
        got = self.once.get(v.id)
        if got is not None:
            return got
        op, operands = self.defs[v.id]
        args = [self._materialize(o, out) for o in operands]
        new = Op(op.opcode, args, [Value(v.type, v.hint)], dict(op.attrs))
        out.ops.append(new)
        return new.result

    def run(self) -> Function:
        self._hoist_allocs(self.fn.body)
        seq = _Seq(Block(), ())
        self.seq(list(self.fn.body.ops), seq)
        self._close(seq)
        body = Block([], [*self.top, *seq.out.ops])
        attrs = dict(self.fn.attrs, spmd=True)
        return Function(self.fn.name, self.fn.params, body, self.fn.filename, self.fn.fp64,
                        self.fn.debug, attrs, self.fn.boundscheck)  # fmt: skip


def _free_vars(block: Block, defined: set[int], free: list[Value]) -> None:
    defined.update(a.id for a in block.args)
    for op in block.ops:
        for v in op.operands:
            if v.id not in defined and all(v is not f for f in free):
                free.append(v)
        for r in op.regions:
            _free_vars(r, defined, free)
        defined.update(r.id for r in op.results)


def _has_barrier(op: Op) -> bool:
    return any(o.opcode == "barrier" for r in op.regions for o in walk(r))


def _wants_fission(op: Op, var: set[int], regions: list[Block] | None = None) -> bool:
    """Whether a varying `if` holds a uniform loop worth running with lanes inside."""
    for r in op.regions if regions is None else regions:
        for o in r.ops:
            if o.opcode == "for" and all(v.id not in var for v in o.operands[:3]):
                return True
            if o.opcode == "while":
                term = o.regions[0].terminator
                if term is not None and term.operands[0].id not in var:
                    return True
            if o.opcode == "if" and _wants_fission(o, var):
                return True
    return False


def one_thread(fn: Function) -> Function | None:
    """The SPMD form of a register-tiled kernel (a `tile=True` loop: `tensor.gemm`) for blocks
    of one thread, in place, when it needs no thread loops: no barrier and no array
    allocation (nothing per lane or per block to lay out). The thread index is then 0 and the
    body runs once per block as written, so values stay SSA values (no per-lane spills) and
    the tile loop keeps its accumulators in registers. None when the kernel needs the general
    lowering (every other kernel: the rule would hold for them too, but is only used where
    it was measured)."""
    ops = list(walk(fn.body))
    if any(o.opcode in ("barrier", "alloc") for o in ops):
        return None
    if not any(o.opcode == "for" and o.attrs.get("tile") for o in ops):
        return None
    for o in ops:
        if o.opcode == "special" and o.attrs["reg"] in ("thread_idx", "block_dim"):
            value = 0 if o.attrs["reg"] == "thread_idx" else 1
            o.opcode, o.operands, o.attrs = "const", [], {"value": value}
    return fn


def lower(fn: Function) -> Function:
    """The SPMD form of `fn` (which is consumed: its ops move into the result).

    `fn` has passed the barrier check (`uniformity.check_barriers`), which `pipeline.finish`
    runs once for every backend: a barrier under thread-dependent control is refused there.
    """
    from .lane_ranges import split_lane_ranges

    grid_stride_whiles(fn)
    out = _Lowering(fn).run()
    split_lane_ranges(out)
    return out


def grid_stride_whiles(fn: Function) -> None:
    """Rewrite each grid-stride `for` of `fn` as the `while` it means, in place.

    `for i in range(start, n, step)` whose start varies by thread while `n` and `step` do not
    (Numba's and CUDA's grid-stride loop) would otherwise run per lane, a scalar loop in each
    lane; as `i = start; while i < n: ...; i += step` it takes the varying `while`'s path and
    each iteration becomes one vector loop over the lanes still in range (`_clipped_while`).
    The two are the same program: a varying `for` steps its variable with a wrapping add
    (`sim` too). It needs the sign of the step: a constant, or `block_dim` and `grid_dim`
    (at least 1), or their product along one axis (positive: a launch has fewer than 2**31
    threads along an axis, `kernel.check_launch`)."""
    var = varying(fn, divergence=False)
    defs = {r.id: o for o in walk(fn.body) for r in o.results}

    def sign_of(v: Value) -> int:
        d = defs.get(v.id)
        if d is None:
            return 0
        if d.opcode == "const":
            return (d.attrs["value"] > 0) - (d.attrs["value"] < 0)  # type: ignore[no-any-return]
        if d.opcode == "special":
            return int(d.attrs["reg"] in ("block_dim", "grid_dim"))
        if d.opcode == "bin" and d.attrs["op"] == "mul":
            a, b = (defs.get(x.id) for x in d.operands)
            regs = {o.attrs.get("reg"): o.attrs.get("axis") for o in (a, b)
                    if o is not None and o.opcode == "special"}  # fmt: skip
            return int(regs.keys() == {"block_dim", "grid_dim"} and len(set(regs.values())) == 1)
        return 0

    for block in list(walk_blocks(fn.body)):
        for k, op in enumerate(block.ops):
            if op.opcode != "for" or _has_barrier(op):
                continue
            start, stop, step = op.operands[:3]
            sign = op.attrs.get("sign", 0) or sign_of(step)
            if sign and start.id in var and stop.id not in var and step.id not in var:
                block.ops[k] = _as_while(op, sign)


def _as_while(op: Op, sign: int) -> Op:
    """`for iv in range(start, stop, step)` (step of sign `sign`) as a `while`."""
    start, stop, step, *inits = op.operands
    (body,) = op.regions
    iv = body.args[0]
    args = [Value(a.type, a.hint) for a in body.args]
    test = Value(BOOL)
    cond = Block(args, [Op("cmp", [args[0], stop], [test], {"op": "lt" if sign > 0 else "gt"}),
                        Op("condition", [test])])  # fmt: skip
    nxt = Value(iv.type, iv.hint)
    body.ops.insert(len(body.ops) - 1, Op("bin", [iv, step], [nxt], {"op": "add"}, [], op.loc))
    body.ops[-1].operands = [nxt, *body.ops[-1].operands]
    results = [Value(iv.type, iv.hint), *op.results]
    return Op("while", [start, *inits], results, {}, [cond, body], op.loc)


def can_coarsen(fn: Function) -> bool:
    """Whether adjacent blocks of `fn` may run as one wider block (see `coarsen`): no barrier
    or shared memory (blocks would share them), no print (its records name blocks and
    threads), no loop whose trip count varies by thread (wider blocks would wait longer for
    their slowest lane), no register-tiled loop (`tile=True`: a block is already a thread's
    worth of heavy work). A failing assert or access names the wide block's thread: the
    runtime maps it back to the block and thread of the launch (`coarse_thread`).

    The checked copy of a body versioned by `passes.bounds` (the `else` of its `if` marked
    `version`) counts for the first three only: its loops end early for a lane whose access
    failed, which makes every checked loop's trip count vary, but that copy runs only where
    the block-level test fails, and so it does not decide how fast the kernel runs (W6, the
    naive matmul, ran 16 x 16 blocks instead of rows of them: 1.2-1.5x slower with checks
    on than off)."""
    var = varying(fn, divergence=False)
    fallback: set[int] = set()  # the checked copies' ops (by id)
    for op in walk(fn.body):
        if op.opcode == "if" and op.attrs.get("version") and len(op.regions) > 1:
            fallback.update(id(o) for o in walk(op.regions[1]))
    for op in walk(fn.body):
        if op.opcode in ("barrier", "print") or op.attrs.get("tile"):
            return False
        if op.opcode == "alloc" and op.result.array.space == SHARED:
            return False
        if id(op) in fallback:
            continue
        if op.opcode == "for" and any(v.id in var for v in op.operands[:3]):
            return False
        if op.opcode == "while":
            term = op.regions[0].terminator
            if term is not None and term.operands[0].id in var:
                return False
    return True


def coarsen(fn: Function, k: int) -> Function:
    """`fn` rewritten to run with blocks `k` times wider in x (and a grid `k` times narrower):
    thread `t` of wide block `b` is thread `t % bx` of block `b * k + t // bx`, where `bx` is
    the original block width. `block_idx.x * block_dim.x + thread_idx.x` (the global index)
    is the same in both launches and is kept as it is, so its lane ranges stay contiguous.
    Only for kernels `can_coarsen` accepts; `fn` is consumed."""
    specials: dict[int, str] = {}
    for op in walk(fn.body):
        if op.opcode == "special" and op.attrs["axis"] == 0:
            specials[op.result.id] = op.attrs["reg"]
    defs = {r.id: op for op in walk(fn.body) for r in op.results}

    def is_reg(v: Value, reg: str) -> bool:
        return specials.get(v.id) == reg

    def global_index(op: Op) -> bool:
        if op.opcode != "bin" or op.attrs["op"] != "add":
            return False
        for m, t in (op.operands, op.operands[::-1]):
            d = defs.get(m.id)
            if (is_reg(t, "thread_idx") and d is not None and d.opcode == "bin"
                    and d.attrs["op"] == "mul"):  # fmt: skip
                a, b = d.operands
                if (is_reg(a, "block_idx") and is_reg(b, "block_dim")) or (
                    is_reg(b, "block_idx") and is_reg(a, "block_dim")
                ):
                    return True
        return False

    def rewrite(block: Block) -> None:
        ops: list[Op] = []
        for op in block.ops:
            for r in op.regions:
                rewrite(r)
            if global_index(op):
                b = Builder(Block())
                b.loc = op.loc
                idx = b.bin("mul", b.special("block_idx", 0), b.special("block_dim", 0))
                op.operands = [idx, b.special("thread_idx", 0)]
                ops.extend(b.block.ops)
            elif op.opcode == "special" and op.attrs["axis"] == 0 and op.attrs["reg"] != "grid_dim":
                b = Builder(Block())
                b.loc = op.loc
                kk = b.const(k, INT32)
                bx = b.bin("floordiv", b.special("block_dim", 0), kk)  # the original width
                reg = op.attrs["reg"]
                if reg == "block_dim":
                    new = bx
                elif reg == "thread_idx":
                    new = b.bin("mod", b.special("thread_idx", 0), bx)
                else:
                    wide = b.bin("mul", b.special("block_idx", 0), kk)
                    new = b.bin("add", wide, b.bin("floordiv", b.special("thread_idx", 0), bx))
                ops.extend(b.block.ops)
                ops.append(Op("cast", [new], [op.result], {}, [], op.loc))  # keeps its uses
                continue
            elif op.opcode == "special" and op.attrs["reg"] == "grid_dim" and op.attrs["axis"] == 0:
                b = Builder(Block())
                b.loc = op.loc
                g = b.bin("mul", b.special("grid_dim", 0), b.const(k, INT32))
                ops.extend(b.block.ops)
                ops.append(Op("cast", [g], [op.result], {}, [], op.loc))
                continue
            ops.append(op)
        block.ops[:] = ops

    blocks = {r for r, reg in specials.items() if reg == "block_idx"}
    threads = {r for r, reg in specials.items() if reg == "thread_idx"}
    rewrite(fn.body)
    _widen_version_test(fn, k, blocks, threads)
    return fn


def _widen_version_test(fn: Function, k: int, blocks: set[int], threads: set[int]) -> None:
    """After `coarsen`: the block-level test of `passes.bounds` (its `if` marked `version`)
    read `block_idx.x`, which in a wide block differs by thread (`b * k + t // bx`): left so,
    the test would be made per lane, inside the thread loops, with both copies of the body
    there (add_block_sums in bench/user_kernels/scan.py ran 20x slower). It becomes the test
    for every one of the `k` blocks the wide block runs, `all(test(b * k + j) for j in
    range(k))`, a small uniform loop before the `if`. `blocks` and `threads` are the ids of
    the values `block_idx.x` and `thread_idx.x` had before the rewrite."""
    ops = fn.body.ops
    at = next((i for i, o in enumerate(ops) if o.opcode == "if" and o.attrs.get("version")), None)
    if at is None:
        return
    test = ops[at]
    defs = {r.id: o for o in ops[:at] for r in o.results}
    slice_: set[int] = set()  # ops (by id) between the test and `block_idx.x`

    def reaches(v: Value) -> bool:
        if v.id in blocks:
            return True
        if v.id in threads:
            raise ValueError  # the test is not a block-level one: leave it
        d = defs.get(v.id)
        if d is None or d.opcode not in PURE:
            return False
        hit = False
        for x in d.operands:
            hit = reaches(x) or hit
        if hit:
            slice_.add(id(d))
        return hit

    try:
        if not reaches(test.operands[0]):
            return
    except ValueError:
        return
    iv, acc = Value(INT32, "j"), Value(BOOL, "ok")
    body = Block([iv, acc])
    b = Builder(body)
    b.loc = test.loc
    sub = b.bin("add", b.bin("mul", b.special("block_idx", 0), b.const(k, INT32)), iv)
    vmap = dict.fromkeys(blocks, sub)

    def moved(v: Value) -> Value:
        return vmap.get(v.id, v)

    for o in ops[:at]:
        if id(o) in slice_:
            r = Value(o.result.type, o.result.hint)
            body.ops.append(Op(o.opcode, [moved(x) for x in o.operands], [r], dict(o.attrs),
                               [], o.loc))  # fmt: skip
            vmap[o.result.id] = r
    b.op("yield", [b.bin("and", acc, moved(test.operands[0]))])
    pre = Builder(Block())
    pre.loc = test.loc
    lo, hi, one = pre.const(0, INT32), pre.const(k, INT32), pre.const(1, INT32)
    yes = pre.const(True, BOOL)
    every = pre.op("for", [lo, hi, one, yes], [BOOL], [body], sign=1).result
    test.operands = [every]
    ops[at:at] = pre.block.ops
