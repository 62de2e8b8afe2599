"""The cost model: predict a launch from the IR, without running it.

A few sampled blocks of the launch are evaluated lane-parallel on the IR (every thread of a
block at once, as the simulator does), with the real launch shape and the arguments' shapes,
strides and scalar values. Integer and float arithmetic on values that do not depend on the
contents of memory is computed exactly, so trip counts, bounds checks and addresses are
known; values loaded from memory are unknown (a branch on them runs both sides, a loop on them
runs until its known part ends). Loops past a few dozen iterations are sampled and scaled.

Counted per launch: bytes read and written by the threads, flops (float arithmetic of active
threads), group operations (one per SIMD group or warp with an active lane), the distinct
cache lines each group touches per access (coalescing), accesses that jump a page or more
from one loop iteration to the next ("far": no streaming, no prefetch), and the footprint of
each array (bytes that must come from memory at least once). The time is a roofline over the
device profile: launch overhead plus the largest of memory, compute, far-access and
divergent-loop time; the largest names the bound.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .. import types as T
from ..builtins import MATH
from ..builtins import weight as math_weight
from ..ir import Block, Function, Op, Value, semantics
from ..ir.rules import Rules
from ..runtime.base import Dim3
from .profile import Profile

MAX_SAMPLED_BLOCKS = 24  # a lattice over the grid: enough for work that varies in space
FULL_LOOP = 48  # loops with at most this many iterations are evaluated in full
SAMPLED_ITERS = 16  # longer ones: this many iterations, scaled
WHILE_CAP = 4096  # a while loop still running after this many iterations is cut (and noted)
UNKNOWN_TRIPS = 64  # what a loop whose end depends only on memory contents is assumed to run
FAR_BYTES = 4096  # an access that moves this far between iterations misses the page/prefetch


@dataclass
class Access:
    """What the model saw of one global load or store (per launch, scaled)."""

    line: int  # source line, 0 when unknown
    array: str
    kind: str  # "load", "store" or "atomic"
    lanes: float = 0.0  # thread accesses
    groups: float = 0.0  # group accesses (SIMD groups / warps with an active lane)
    lines: float = 0.0  # distinct cache lines summed over group accesses
    far: float = 0.0  # cache lines of accesses that jumped >= FAR_BYTES since the last iteration
    checked: float = 0.0  # cache lines of accesses that had a previous iteration to compare with
    array_bytes: int = 0  # the size of the array (does it fit in the device's cache?)
    spread: float = 0.0  # extra cache lines of uncoalesced group accesses (beyond one each)
    internal: bool = False  # of an array simt made (a list's arena), not one of the user's
    scalar_lanes: float = 0.0  # thread accesses made lane by lane (non-affine, not contiguous)
    tiled: float = 0.0  # distinct cache lines per tile of lanes run together, summed
    scattered: float = 0.0  # group accesses not contiguous (nor uniform) in thread_idx.x
    unknown_index: bool = False
    scalarised: bool = False  # the last index is not affine in the thread index

    @property
    def lines_per_group(self) -> float:
        """Average distinct cache lines per group access (1 is perfectly coalesced)."""
        return self.lines / self.groups if self.groups else 0.0

    @property
    def scattered_fraction(self) -> float:
        """Fraction of group accesses whose lanes are not contiguous in thread_idx.x."""
        return self.scattered / self.groups if self.groups else 0.0


@dataclass
class Cost:
    """A predicted launch: counts, the time they take on the profile's device, and the bound."""

    kernel: str
    backend: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    threads: int
    bytes_read: float = 0.0
    bytes_written: float = 0.0
    dram_bytes: float = 0.0  # footprint: bytes that must cross the memory bus at least once
    flops: float = 0.0
    group_ops: float = 0.0
    far_accesses: float = 0.0  # cache lines fetched by far accesses (see Access.far)
    scalar_accesses: float = 0.0  # thread accesses whose index is not affine (lane by lane)
    loop_iterations: float = 0.0  # group-iterations of loops whose trip varies by lane
    barriers: float = 0.0
    shared_bytes: int = 0
    accesses: list[Access] = field(default_factory=list)
    terms: dict[str, float] = field(default_factory=dict)
    time: float = 0.0
    bound: str = ""
    calibrated: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def bytes_moved(self) -> float:
        """Bytes read plus bytes written by the threads."""
        return self.bytes_read + self.bytes_written

    def as_dict(self) -> dict[str, Any]:
        """The numbers, for JSON."""
        return {
            "kernel": self.kernel,
            "backend": self.backend,
            "grid": self.grid,
            "block": self.block,
            "threads": self.threads,
            "bytes_read": self.bytes_read,
            "bytes_written": self.bytes_written,
            "dram_bytes": self.dram_bytes,
            "flops": self.flops,
            "group_ops": self.group_ops,
            "far_accesses": self.far_accesses,
            "scalar_accesses": self.scalar_accesses,
            "loop_iterations": self.loop_iterations,
            "time": self.time,
            "bound": self.bound,
            "terms": self.terms,
            "calibrated": self.calibrated,
            "notes": self.notes,
        }

    def __str__(self) -> str:
        mb = 1e6
        return (
            f"{self.kernel}[{self.grid}, {self.block}]: {self.bytes_read / mb:.2f} MB read, "
            f"{self.bytes_written / mb:.2f} MB written, {self.flops / 1e6:.2f} Mflop; "
            f"predicted {self.time * 1e3:.3f} ms, {self.bound}-bound"
            + ("" if self.calibrated else " (nominal profile: run `simt calibrate`)")
        )


class _Arr:
    """A global array argument as the model sees it: shape, element strides, item size."""

    def __init__(self, name: str, value: Any, internal: bool = False) -> None:
        self.name = name
        self.internal = internal  # simt's own (an arena): not the user's layout to advise on
        self.shape = tuple(int(s) for s in value.shape)
        item = int(np.dtype(value.dtype).itemsize)
        self.itemsize = item
        strides = getattr(value, "strides", None)
        if strides is not None and isinstance(value, np.ndarray):
            self.strides = tuple(int(s) // item for s in strides)
        elif strides is not None:
            self.strides = tuple(int(s) for s in strides)  # DeviceArray: element strides
        else:
            st, acc = [], 1
            for s in reversed(self.shape):
                st.append(acc)
                acc *= s
            self.strides = tuple(reversed(st))
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * item


class _Stats:
    """Counts of one sampled block (before scaling to the launch)."""

    def __init__(self) -> None:
        self.flops = 0.0
        self.group_ops = 0.0
        self.loop_iters = 0.0
        self.barriers = 0.0
        self.accesses: dict[int, Access] = {}
        self.footprint: dict[str, float] = {}  # array -> new distinct lines (scaled)


class _Eval(Rules[Callable[[Op, np.ndarray], None]]):
    """Lane-parallel evaluation of one block of a launch (see the module doc); ops dispatch
    through `RULES` (`ir.rules.Rules`), `other` for the rest (print, assert, warp, ...)."""

    RULES: ClassVar[dict[str, str]] = {
        "const": "op_const", "special": "op_special", "shape": "op_shape",
        "alloc": "op_alloc", "load": "op_load", "store": "op_store",
        "atomic": "op_atomic", "cas": "op_cas", "barrier": "op_barrier",
        "fence": "op_fence",
        "if": "op_if", "for": "op_for", "while": "op_while",
        "bin": "op_operator", "un": "op_operator", "cmp": "op_cmp",
        "cast": "op_cast", "select": "op_select", "math": "op_math",
    }  # fmt: skip

    def __init__(
        self,
        fn: Function,
        arrays: dict[Value, _Arr],
        scalars: dict[Value, Any],
        grid: Dim3,
        block: Dim3,
        width: int,
        line: int,
        tile: int = 0,
    ) -> None:
        super().__init__()
        self.fn = fn
        self.arrays = arrays
        self.scalars = scalars
        self.grid = grid
        self.block = block
        self.width = width
        self.line = line
        self.n = block.size
        t = np.arange(self.n, dtype=np.int64)
        self.tid = (t % block.x, (t // block.x) % block.y, t // (block.x * block.y))
        self.group_of = t // width
        self.tile_of = t // max(tile, width)
        self.ngroups = int(self.group_of[-1]) + 1 if self.n else 0
        self.notes: set[str] = set()

    # -- helpers ----------------------------------------------------------------------------
    def groups(self, mask: np.ndarray) -> int:
        if mask.all():
            return self.ngroups
        return int(np.unique(self.group_of[mask]).size)

    def run_block(self, bidx: tuple[int, int, int]) -> _Stats:
        self.st = _Stats()
        self.loop_depth = 0
        self.bidx = bidx
        self.scale = 1.0
        self.env: dict[Value, Any] = {}
        self.last_addr: dict[int, np.ndarray] = {}
        self.seen_lines: dict[str, set[int]] = {}
        for v, val in self.scalars.items():
            self.env[v] = np.full(self.n, val)
        self.block_ops(self.fn.body, np.ones(self.n, bool))
        return self.st

    def val(self, v: Value) -> Any:
        return self.env.get(v)

    # -- evaluation -------------------------------------------------------------------------
    def block_ops(self, blk: Block, mask: np.ndarray) -> list[Any] | None:
        """Evaluate `blk` under `mask`; the terminator's operand values (None if none)."""
        for op in blk.ops:
            if op.opcode in ("yield", "condition"):
                return [self.val(o) for o in op.operands]
            self.op(op, mask)
        return None

    def op(self, op: Op, mask: np.ndarray) -> None:
        oc = op.opcode
        if not mask.any() and oc not in ("const", "special", "shape", "alloc"):
            for r in op.results:
                self.env[r] = None
            return
        (self.rule(op) or self.other)(op, mask)

    def other(self, op: Op, mask: np.ndarray) -> None:
        """print, assert: one group op, no result."""
        self.st.group_ops += self.groups(mask) * self.scale
        for r in op.results:
            self.env[r] = None

    def op_const(self, op: Op, mask: np.ndarray) -> None:
        t = op.result.type
        dt = t.np if isinstance(t, T.Scalar) else np.float64
        self.env[op.result] = np.full(self.n, op.attrs["value"], dtype=dt)

    def op_special(self, op: Op, mask: np.ndarray) -> None:
        axis = op.attrs["axis"]
        reg = op.attrs["reg"]
        if reg == "thread_idx":
            v = self.tid[axis]
        elif reg == "block_idx":
            v = np.full(self.n, self.bidx[axis])
        elif reg == "block_dim":
            v = np.full(self.n, tuple(self.block)[axis])
        else:
            v = np.full(self.n, tuple(self.grid)[axis])
        self.env[op.result] = v.astype(np.int32)

    def op_shape(self, op: Op, mask: np.ndarray) -> None:
        arr = self.arrays.get(op.operands[0])
        t = op.operands[0].type
        dim = op.attrs["dim"]
        if arr is not None:
            size = arr.shape[dim]
        elif isinstance(t, T.ArrayType) and t.shape is not None:
            size = t.shape[dim]
        else:
            self.env[op.result] = None
            return
        self.env[op.result] = np.full(self.n, size, dtype=op.result.scalar.np)

    def op_alloc(self, op: Op, mask: np.ndarray) -> None:
        self.env[op.result] = None

    def op_operator(self, op: Op, mask: np.ndarray) -> None:
        """`bin`, `un`: the IR's executable semantics (ir/semantics.py), as sim and folding
        have them; a flop (a math row's weight of them for `**` of floats) where it computes
        a float."""
        self.arith(op, mask, op.result.scalar.is_float)

    def op_cmp(self, op: Op, mask: np.ndarray) -> None:
        """A comparison (ir/semantics.py): a flop where it compares floats."""
        self.arith(op, mask, op.operands[0].scalar.is_float)

    def op_math(self, op: Op, mask: np.ndarray) -> None:
        """A math row (its reference): its weight in flops where it computes a float."""
        self.arith(op, mask, op.result.scalar.is_float)

    def op_cast(self, op: Op, mask: np.ndarray) -> None:
        self.arith(op, mask, False)

    def op_select(self, op: Op, mask: np.ndarray) -> None:
        self.arith(op, mask, False)

    def arith(self, op: Op, mask: np.ndarray, flop: bool) -> None:
        """A scalar op: its operations counted (and its flops: `flop`), its value on the
        sampled lanes (`compute`; None where an operand is not known) kept."""
        t = op.result.type if op.results else None
        g = self.groups(mask)
        row = math_row(op)  # a math op, or `**` of floats (the pow row on every backend)
        weight = math_weight(row) if row is not None else 1
        self.st.group_ops += g * weight * self.scale
        if flop:
            self.st.flops += int(mask.sum()) * weight * self.scale
        args = [self.val(o) for o in op.operands]
        if any(a is None for a in args) or not isinstance(t, T.Scalar):
            for r in op.results:
                self.env[r] = None
            return
        try:
            with np.errstate(all="ignore"):
                res = compute(op, args, t)
        except (ArithmeticError, ValueError, TypeError):
            res = None
        self.env[op.result] = res

    # memory ---------------------------------------------------------------------------------
    def _addresses(self, op: Op, arr: _Arr, nidx: int) -> np.ndarray | None:
        idx = [self.val(o) for o in op.operands[1 : 1 + nidx]]
        if any(i is None for i in idx):
            return None
        off = np.zeros(self.n, np.int64)
        for i, s in zip(idx, arr.strides):
            off += i.astype(np.int64) * s
        return off * arr.itemsize

    def memory(self, op: Op, mask: np.ndarray, kind: str) -> None:
        target = op.operands[0]
        arr = self.arrays.get(target)
        g = self.groups(mask)
        self.st.group_ops += g * self.scale
        if arr is None:  # shared or local memory: an operation, no bus traffic
            if op.results:
                self.env[op.result] = None
            return
        if self.loop_depth == 0 and len(arr.shape) > 1:
            # the flat offset of an n-d access is n-1 multiply-adds the IR does not show;
            # inside a loop the compiler strength-reduces them away
            self.st.group_ops += g * 2 * (len(arr.shape) - 1) * self.scale
        key = id(op)
        acc = self.st.accesses.get(key)
        if acc is None:
            acc = self.st.accesses[key] = Access(
                op.loc.line if op.loc else 0, arr.name, kind, internal=arr.internal
            )
            acc.scalarised = not _affine(op.operands[len(arr.shape)])
        active = int(mask.sum())
        acc.lanes += active * self.scale
        acc.groups += g * self.scale
        addr = self._addresses(op, arr, len(arr.shape))
        if addr is None:
            acc.unknown_index = True
            acc.scalar_lanes += active * self.scale
            acc.lines += active * self.scale  # a gather: assume a line per thread
            acc.scattered += g * self.scale
            self.st.footprint[arr.name] = self.st.footprint.get(arr.name, 0.0) + active * self.scale
        else:
            lines = addr[mask] // self.line
            grp = self.group_of[mask]
            pairs = np.unique(grp * (1 << 40) + lines)
            # lanes the device runs together share a line fetched once (a warp; on a CPU the
            # few SIMD groups the thread loop runs at once)
            tiled = np.unique(self.tile_of[mask] * (1 << 40) + lines).size
            acc.tiled += tiled * self.scale
            acc.lines += pairs.size * self.scale
            seen = self.seen_lines.setdefault(arr.name, set())
            new = set(np.unique(lines).tolist()) - seen
            seen |= new
            self.st.footprint[arr.name] = (
                self.st.footprint.get(arr.name, 0.0) + len(new) * self.scale
            )
            bad_groups = self._scattered(addr, mask, arr.itemsize)
            bad = int(bad_groups.size)
            acc.scattered += bad * self.scale
            if acc.scalarised and bad:
                # a non-affine index only costs lane by lane where the lanes are not contiguous
                acc.scalar_lanes += int(np.isin(grp, bad_groups).sum()) * self.scale
            if bad and pairs.size > g:
                # lanes of a group on different lines: each line is a separate, non-streaming
                # access, as a far one is
                acc.spread += (pairs.size - g) * self.scale
            last = self.last_addr.get(key)
            if last is not None:
                both = mask & (last >= 0)
                if both.any():
                    acc.checked += tiled * self.scale
                    jump = np.abs(addr[both] - last[both])
                    if float(np.median(jump)) >= FAR_BYTES:
                        acc.far += tiled * self.scale
            cur = self.last_addr.get(key, np.full(self.n, -1, np.int64)).copy()
            cur[mask] = addr[mask]
            self.last_addr[key] = cur
        if op.results:
            self.env[op.result] = None

    def _scattered(self, addr: np.ndarray, mask: np.ndarray, item: int) -> np.ndarray:
        """The groups whose neighbouring active lanes (in thread_idx.x) are neither one
        element apart nor at the same address."""
        if self.n < 2:
            return np.zeros(0, np.int64)
        d = np.diff(addr)
        same_row = np.diff(self.tid[0]) == 1
        pair = mask[1:] & mask[:-1] & same_row
        bad = pair & (d != item) & (d != 0)
        if not bad.any():
            return np.zeros(0, np.int64)
        return np.unique(self.group_of[1:][bad])

    def op_load(self, op: Op, mask: np.ndarray) -> None:
        self.memory(op, mask, "load")

    def op_store(self, op: Op, mask: np.ndarray) -> None:
        self.memory(op, mask, "store")

    def op_atomic(self, op: Op, mask: np.ndarray) -> None:
        self.memory(op, mask, "atomic")

    def op_cas(self, op: Op, mask: np.ndarray) -> None:
        self.memory(op, mask, "atomic")

    def op_barrier(self, op: Op, mask: np.ndarray) -> None:
        self.st.barriers += self.scale

    def op_fence(self, op: Op, mask: np.ndarray) -> None:
        pass  # orders memory; the model counts no time for it

    # control flow ---------------------------------------------------------------------------
    def op_if(self, op: Op, mask: np.ndarray) -> None:
        c = self.val(op.operands[0])
        if c is None:
            tm, em = mask, mask
        else:
            cb = c.astype(bool)
            tm, em = mask & cb, mask & ~cb
        tv = self.block_ops(op.regions[0], tm) or []
        ev = self.block_ops(op.regions[1], em) if len(op.regions) > 1 else []
        ev = ev or []
        for i, r in enumerate(op.results):
            a = tv[i] if i < len(tv) else None
            b = ev[i] if i < len(ev) else None
            if c is None or a is None or b is None:
                self.env[r] = (
                    a
                    if (c is not None and b is None and not em.any())
                    else (b if (c is not None and a is None and not tm.any()) else None)
                )
            else:
                self.env[r] = np.where(c.astype(bool), a, b)

    def op_for(self, op: Op, mask: np.ndarray) -> None:
        start, stop, step = (self.val(o) for o in op.operands[:3])
        init = [self.val(o) for o in op.operands[3:]]
        body = op.regions[0]
        if start is None or stop is None or step is None:
            self.notes.add("a for loop with bounds from memory: its body was counted once")
            self.block_ops_bind(body, [None] + init, mask)
            for r in op.results:
                self.env[r] = None
            return
        s = step.astype(np.int64)
        s = np.where(s == 0, 1, s)
        trips = np.maximum(0, -((start.astype(np.int64) - stop.astype(np.int64)) // s))
        trips = np.where(mask, trips, 0)
        tmax = int(trips.max()) if trips.size else 0
        uniform = bool((trips[mask] == tmax).all()) if mask.any() else True
        if not uniform:
            self.st.loop_iters += self._loop_groups(trips) * self.scale
        carried = list(init)
        done = min(tmax, FULL_LOOP) if tmax <= FULL_LOOP else SAMPLED_ITERS
        saved = self.scale
        if tmax > done:
            # the sampled iterations stand for all of them, lane by lane on average
            self.scale = saved * float(trips[mask].mean()) / done if mask.any() else 0.0
        iv = start.astype(np.int64)
        self.loop_depth += 1
        for k in range(done):
            m = mask & (k < trips)
            if not m.any():
                break
            cur = (iv + k * s).astype(op.operands[0].scalar.np)
            out = self.block_ops_bind(body, [cur, *carried], m)
            carried = [
                None if (o is None or c is None) else np.where(m, o, c)
                for o, c in zip(out or [None] * len(carried), carried)
            ]
        self.scale = saved
        self.loop_depth -= 1
        for i, r in enumerate(op.results):
            self.env[r] = carried[i] if tmax <= done else None

    def _known_conjuncts(self, v: Value, mask: np.ndarray) -> np.ndarray | None:
        """For a condition built with `and` from parts some of which are known (a counter
        against a bound, next to a test on loaded data): the conjunction of the known parts,
        an upper bound of the condition (False where any known part is False)."""
        op = _defs.get(v)
        known = self.val(v)
        if known is not None:
            return known.astype(bool)  # type: ignore[no-any-return]
        if op is None or op.opcode != "bin" or op.attrs.get("op") != "and":
            return None
        parts = [self._known_conjuncts(o, mask) for o in op.operands]
        got = [p for p in parts if p is not None]
        if not got:
            return None
        out = got[0]
        for p in got[1:]:
            out = out & p
        return out

    def _loop_groups(self, trips: np.ndarray) -> float:
        """Group-iterations of a loop whose trip count varies by lane (each group runs as long
        as its longest lane)."""
        per = np.zeros(self.ngroups, np.int64)
        np.maximum.at(per, self.group_of, trips.astype(np.int64))
        return float(per.sum())

    def block_ops_bind(self, blk: Block, values: Sequence[Any], mask: np.ndarray) -> Any:
        for a, v in zip(blk.args, values):
            self.env[a] = v
        return self.block_ops(blk, mask)

    def op_while(self, op: Op, mask: np.ndarray) -> None:
        cond_blk, body = op.regions[0], op.regions[1]
        carried = [self.val(o) for o in op.operands]
        active = mask.copy()
        trips = np.zeros(self.n, np.int64)
        final: list[Any] = list(carried)
        it = 0
        uncertain = False
        self.loop_depth += 1
        while active.any() and it < WHILE_CAP:
            out = self.block_ops_bind(cond_blk, carried, active) or [None]
            c = out[0]
            if c is None:
                c = self._known_conjuncts(cond_blk.ops[-1].operands[0], active)
            if c is None:
                uncertain = True
                stay = active.copy()
                # the loop ends on memory contents: with nothing known it could run forever
                if it >= UNKNOWN_TRIPS:
                    self.notes.add(
                        "a while loop whose end depends on memory contents was assumed to run "
                        f"{UNKNOWN_TRIPS} iterations"
                    )
                    break
            else:
                stay = active & c.astype(bool)
            leaving = active & ~stay
            if leaving.any():
                final = [
                    None if (f is None or v is None) else np.where(leaving, v, f)
                    for f, v in zip(final, carried)
                ]
            active = stay
            if not active.any():
                break
            trips += active
            nxt = self.block_ops_bind(body, carried, active) or [None] * len(carried)
            carried = [
                None if (o is None or v is None) else np.where(active, o, v)
                for o, v in zip(nxt, carried)
            ]
            it += 1
        self.loop_depth -= 1
        if active.any():
            final = [None] * len(final)
            if it >= WHILE_CAP:
                self.notes.add(f"a while loop was cut at {WHILE_CAP} iterations")
        uniform = mask.any() and bool((trips[mask] == trips[mask].max()).all())
        if not uniform or uncertain:
            # trips that differ by lane: a group runs as long as its longest lane, masked
            self.st.loop_iters += self._loop_groups(trips) * self.scale
        for i, r in enumerate(op.results):
            self.env[r] = final[i] if i < len(final) else None


_AFFINE_BIN = {"add", "sub", "mul", "shl"}
_defs: dict[Value, Op] = {}


def _index_defs(fn: Function) -> None:
    from ..ir.nodes import walk

    for op in walk(fn.body):
        for r in op.results:
            _defs[r] = op


def _affine(v: Value, depth: int = 0) -> bool:
    """Whether an index is built only from adds, subtractions and multiplications of thread
    and block indices, constants, shapes and loop variables: what a vectoriser turns into
    one contiguous vector access. min/max/select/division/loads make it lane by lane."""
    op = _defs.get(v)
    if op is None or depth > 24:
        return True  # a parameter, a loop variable or a block argument
    oc = op.opcode
    if oc in ("const", "special", "shape"):
        return True
    if oc == "cast":
        return _affine(op.operands[0], depth + 1)
    if oc == "bin" and op.attrs.get("op") in _AFFINE_BIN:
        return all(_affine(o, depth + 1) for o in op.operands)
    return False


def math_row(op: Op) -> str | None:
    """The name of the math row IR op `op` computes: a `math` op's, and `pow` for a `bin`
    `pow` of floats (`**`, which every backend writes as that row); None for any other op."""
    if op.opcode == "math":
        return str(op.attrs["fn"])
    if op.opcode == "bin" and op.attrs["op"] == "pow" and op.operands[0].scalar.is_float:
        return "pow"
    return None


# The value of a scalar op on the sampled lanes' operand values, its result of type `t`.
Compute = Callable[[Op, list[np.ndarray], T.Scalar], np.ndarray]


def _operator(op: Op, args: list[np.ndarray], t: T.Scalar) -> np.ndarray:
    r = semantics.evaluate(op.opcode, str(op.attrs["op"]), *args)
    with np.errstate(all="ignore"):
        return np.asarray(r).astype(t.np)


def _cast(op: Op, args: list[np.ndarray], t: T.Scalar) -> np.ndarray:
    """The IR's one conversion (ir/semantics.py)."""
    a = args[0]
    if t.is_int and a.dtype.kind == "f":  # where the semantics leave it unspecified: 0
        a = np.nan_to_num(a, nan=0.0, posinf=0.0, neginf=0.0)
        a = np.clip(a, -(2.0**62), 2.0**62)
    return semantics.cast(a, t.np)  # type: ignore[no-any-return]


def _select(op: Op, args: list[np.ndarray], t: T.Scalar) -> np.ndarray:
    """The IR's semantics (ir/semantics.py), as sim and folding have them."""
    return np.asarray(semantics.select(args[0].astype(bool), args[1], args[2])).astype(t.np)


def _math(op: Op, args: list[np.ndarray], t: T.Scalar) -> np.ndarray:
    """The math row's reference, as sim and folding evaluate it."""
    with np.errstate(all="ignore"):
        return np.asarray(MATH[op.attrs["fn"]].ref(*args)).astype(t.np)


# the value of each scalar opcode on the sampled lanes (`_Eval`'s rules and `compute`)
COMPUTE: dict[str, Compute] = {
    "bin": _operator, "cmp": _operator, "un": _operator,
    "cast": _cast, "select": _select, "math": _math,
}  # fmt: skip


def compute(op: Op, args: list[np.ndarray], t: T.Scalar) -> np.ndarray:
    """Scalar op `op` of the evaluator on the sampled lanes' operand values `args`, its result
    of type `t` (its opcode's `COMPUTE`)."""
    return COMPUTE[op.opcode](op, args, t)


# ------------------------------------------------------------------------------ the launch
def _sample_blocks(grid: Dim3) -> list[int]:
    """Linear ids of the sampled blocks: all of a small grid, else a lattice spread over every
    axis the grid has (the first and last block included)."""
    total = grid.size
    if total <= MAX_SAMPLED_BLOCKS:
        return list(range(total))
    axes = [d for d in (grid.x, grid.y, grid.z) if d > 1]
    per = max(2, int(round(MAX_SAMPLED_BLOCKS ** (1 / len(axes)))))
    picks: set[int] = set()
    coords = [
        np.unique(np.linspace(0, d - 1, min(d, per)).round().astype(int)) if d > 1 else [0]
        for d in (grid.x, grid.y, grid.z)
    ]
    for z in coords[2]:
        for y in coords[1]:
            for x in coords[0]:
                picks.add(int(x) + grid.x * (int(y) + grid.y * int(z)))
    return sorted(picks)


def _unflat(b: int, grid: Dim3) -> tuple[int, int, int]:
    return (b % grid.x, (b // grid.x) % grid.y, b // (grid.x * grid.y))


def count(
    fn: Function,
    grid: Dim3,
    block: Dim3,
    values: dict[str, Any],
    width: int,
    line: int,
    tile: int = 0,
) -> Cost:
    """The launch's counts (no time yet): `values` maps parameter names to the arguments."""
    arrays: dict[Value, _Arr] = {}
    scalars: dict[Value, Any] = {}
    names = list(values)
    for p in fn.params:
        if p.hidden:  # the failure buffer, an arena: zeros, as a launch makes them
            v = fn.hidden_zeros(p, grid.size * block.size)
        else:
            v = p.argument(values[names[p.index]]) if p.part else values[p.name]
        if isinstance(p.value.type, T.ArrayType):
            arrays[p.value] = _Arr(p.name, v, internal=p.hidden is not None)
        else:
            scalars[p.value] = p.value.scalar.np.type(v)
    _defs.clear()
    _index_defs(fn)
    ev = _Eval(fn, arrays, scalars, grid, block, width, line, tile)
    picks = _sample_blocks(grid)
    total, nsampled = grid.size, len(picks)

    def factor_of(x: float) -> float:  # multiply first: whole counts stay whole
        return x * total / nsampled

    cost = Cost(fn.name, "", tuple(grid), tuple(block), grid.size * block.size)  # type: ignore[arg-type]
    merged: dict[int, Access] = {}
    footprint: dict[str, float] = {}
    for b in picks:
        st = ev.run_block(_unflat(b, grid))
        cost.flops += st.flops
        cost.group_ops += st.group_ops
        cost.loop_iterations += st.loop_iters
        cost.barriers += st.barriers
        for k, a in st.accesses.items():
            m = merged.get(k)
            if m is None:
                m = merged[k] = Access(
                    a.line, a.array, a.kind, unknown_index=a.unknown_index,
                    scalarised=a.scalarised, internal=a.internal,
                )
            m.lanes += a.lanes
            m.groups += a.groups
            m.lines += a.lines
            m.far += a.far
            m.checked += a.checked
            m.scattered += a.scattered
            m.spread += a.spread
            m.scalar_lanes += a.scalar_lanes
            m.tiled += a.tiled
            m.unknown_index |= a.unknown_index
        for name, n in st.footprint.items():
            footprint[name] = footprint.get(name, 0.0) + n
    for fld in ("flops", "group_ops", "loop_iterations", "barriers"):
        setattr(cost, fld, factor_of(getattr(cost, fld)))
    for m in merged.values():
        for fld in (
            "lanes",
            "groups",
            "lines",
            "far",
            "checked",
            "scattered",
            "spread",
            "scalar_lanes",
            "tiled",
        ):
            setattr(m, fld, factor_of(getattr(m, fld)))
    footprint = {k: factor_of(v) for k, v in footprint.items()}
    by_name = {a.name: a for a in arrays.values()}
    for a in merged.values():
        item = by_name[a.array].itemsize
        if a.kind in ("load", "atomic"):
            cost.bytes_read += a.lanes * item
        if a.kind in ("store", "atomic"):
            cost.bytes_written += a.lanes * item
        a.array_bytes = by_name[a.array].nbytes
        if a.checked:  # the first iteration has nothing to jump from: judge it as the rest
            a.far = a.tiled * a.far / a.checked
        a.far = min(max(a.lines, a.tiled), a.far + a.spread)
        cost.far_accesses += a.far
        cost.scalar_accesses += a.scalar_lanes
    for name, nlines in footprint.items():
        cost.dram_bytes += min(float(by_name[name].nbytes), nlines * line)
    cost.accesses = sorted(merged.values(), key=lambda a: (a.line, a.array))
    cost.notes = sorted(ev.notes)
    cost.shared_bytes = _shared_bytes(fn)
    return cost


def _shared_bytes(fn: Function) -> int:
    from ..ir.nodes import walk

    total = 0
    for op in walk(fn.body):
        if op.opcode == "alloc":
            t = op.result.type
            if isinstance(t, T.ArrayType) and t.space == T.SHARED and t.shape is not None:
                total += int(np.prod(t.shape)) * t.dtype.np.itemsize
    return total


def predict(cost: Cost, prof: Profile) -> Cost:
    """Fill in `cost.terms`, `time` and `bound` from the device profile (roofline): launch
    overhead plus the largest of memory (footprint over copy bandwidth), far accesses (over
    their measured rate) and execution (group operations, divergent-loop iterations and
    lane-by-lane accesses, each over its measured rate)."""
    ops = (
        cost.group_ops / prof.op_rate
        if prof.op_rate
        else cost.group_ops * prof.group_width / (prof.peak_flops / 2)
    )
    loop = cost.loop_iterations / prof.loop_rate if prof.loop_rate else 0.0
    gather = cost.scalar_accesses / prof.gather_rate if prof.gather_rate else 0.0
    # far accesses into an array the last-level cache holds cost a cache walk, not a DRAM one
    near = sum(a.far for a in cost.accesses if 0 < a.array_bytes <= prof.cache_bytes)
    far = cost.far_accesses - near
    far_t = far / prof.far_rate if prof.far_rate else 0.0
    if prof.cache_far_rate:
        far_t += near / prof.cache_far_rate
    elif prof.far_rate:
        far_t += near / prof.far_rate
    terms = {
        "memory": cost.dram_bytes / prof.copy_bandwidth,
        "far": far_t,
        "compute": ops + loop + gather,
    }
    bound = max(terms, key=lambda k: terms[k])
    body = terms[bound]
    if bound == "compute" and max(loop, gather) > ops:
        bound = "loop" if loop >= gather else "gather"
    terms.update({"ops": ops, "loop": loop, "gather": gather, "launch": prof.launch_overhead})
    cost.terms = terms
    cost.time = body + prof.launch_overhead
    if prof.launch_overhead > body:
        bound = "launch"
    names = {"far": "memory latency", "loop": "divergent loop", "gather": "lane-by-lane access"}
    cost.bound = names.get(bound, bound)
    cost.backend = prof.backend
    cost.calibrated = prof.calibrated
    return cost


def estimate(
    kernel: Any,
    grid: Any,
    block: Any,
    args: Sequence[Any],
    kwargs: dict[str, Any] | None = None,
    prof: Profile | None = None,
) -> Cost:
    """`kernel.cost(grid, block, *args)`: the predicted cost of that launch on the current
    backend (or `prof`'s)."""
    from ..runtime import registry
    from .profile import load_profile

    g = grid if isinstance(grid, Dim3) else Dim3.of(grid, "grid")
    b = block if isinstance(block, Dim3) else Dim3.of(block, "block")
    if prof is None:
        prof = load_profile(registry.current().name)
    fn, values = kernel.specialised_ir(*args, **(kwargs or {}))
    cost = count(fn, g, b, values, prof.group_width, prof.line_bytes, prof.tile_lanes)
    return predict(cost, prof)
