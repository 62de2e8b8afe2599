"""Memory accesses of a CPU kernel as the LLVM renderer writes them (`MemoryAccess`): an
element's address from the array's pointer, shape and strides (indices widened to 64 bits),
its bounds check where one is kept (`backends.common.checked`) with the failure path or, in a
thread loop LLVM may vectorise, the branch-free record of `llvm_failures`; loads, stores,
atomics (on shared memory a plain read-modify-write: a block's threads run one after another)
and compare-and-swap; and the per-lane array elements an `if` in a thread loop stores to, kept
in registers and stored once after it (`_deferrable`, `pending`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from ..ir import Block, Function, Op
from ..types import INT64, SHARED, Scalar
from .common import checked
from .llvm_abi import RECORD_DIMS, align, llvm_type, mem_type
from .llvm_failures import VECTOR_LOOP, FailureRecords, walk_ops


class MemoryAccess(FailureRecords):
    """Loads, stores, atomics and their bounds checks (see the module doc)."""

    RULES: ClassVar[dict[str, str]] = {
        **FailureRecords.RULES,
        "load": "_load", "store": "_store", "atomic": "_atomic_rule", "cas": "_cas",
    }  # fmt: skip

    def __init__(
        self, fn: Function, unit_stride: frozenset[str], bounds: bool,
        block: tuple[int, int, int] | None,
    ) -> None:  # fmt: skip
        super().__init__(fn, unit_stride, block)
        self.bounds = bounds
        self.last_index: tuple[list[str], list[str]] = ([], [])  # of the last access
        # stores to per-lane arrays deferred to the end of the enclosing `if` (see `_if`)
        self.pending: list[dict[tuple[int, int], str]] = []

    def _address(self, op: Op) -> tuple[str, str | None]:
        """(pointer, in-bounds flag or None) of a load/store/atomic's element."""
        arr = op.operands[0]
        t = arr.array
        ptr, shape, strides = self.arrays[arr.id]
        idx = []
        for v in op.operands[1 : 1 + t.ndim]:
            s = v.scalar
            x = self.v(v)
            if s.bits < 64:
                x = (
                    self.cast(x, s, INT64)
                    if s.is_signed
                    else self.inst(f"zext {llvm_type(s)} {x} to i64")
                )
            idx.append(x)
        off = None
        for x, st in zip(idx, strides):
            term = x if st == "1" else self.inst(f"mul i64 {x}, {st}")
            off = term if off is None else self.inst(f"add i64 {off}, {term}")
        flag = None
        self.last_index = (idx, shape)  # for the error record of a failing access (`_fail`)
        if checked(op, self.bounds):
            for x, n in zip(idx, shape):
                c = self.inst(f"icmp ult i64 {x}, {n}")
                flag = c if flag is None else self.inst(f"and i1 {flag}, {c}")
        mt = mem_type(t.dtype)
        addr = self.inst(f"getelementptr inbounds {mt}, ptr {ptr}, i64 {off or 0}")
        return addr, flag

    # ---------------------------------------------------------------- the rules
    def _load(self, op: Op) -> None:
        """A load: a per-lane element an enclosing `if` stores to, from its register
        (`pending`), else the element read."""
        if self.pending and op.attrs.get("spill"):
            pend = self._pending_value((op.operands[0].id, op.operands[1].id))
            if pend is not None:
                if op.result.scalar.is_bool:
                    pend = self.inst(f"trunc i8 {pend} to i1")
                self.vals[op.result.id] = pend
                return
        self._access(op, self._read)

    def _store(self, op: Op) -> None:
        """A store: to a per-lane element an enclosing `if` defers, into its register
        (`pending`, in memory form: a bool as i8), else to memory."""
        if self.pending and op.attrs.get("spill"):
            key = (op.operands[0].id, op.operands[1].id)
            if key in self.pending[-1]:
                val = self.v(op.operands[-1])
                if op.operands[-1].scalar.is_bool:
                    val = self.inst(f"zext i1 {val} to i8")
                self.pending[-1][key] = val
                return
        self._access(op, self._write)

    def _atomic_rule(self, op: Op) -> None:
        """An atomic: `atomicrmw`, or on shared memory a plain read-modify-write."""
        self._access(op, self._rmw)

    def _cas(self, op: Op) -> None:
        """A compare-and-swap: `cmpxchg`, or on shared memory a compare and a select."""
        self._access(op, self._compare_swap)

    # ---------------------------------------------------------------- one access
    def _access(self, op: Op, write: Callable[[Op, str], str | None]) -> None:
        """Access `op`: its element's address and, where it is checked, its bounds check
        with the failure path (or a thread loop's record of it); `write(op, address)` writes
        the access where it is in bounds and gives its result (0 where it is not)."""
        addr, flag = self._address(op)
        dtype = op.operands[0].array.dtype
        join = None
        if flag is not None and self.loop_kinds and self.loop_kinds[-1]:
            idx, shape = self.last_index
            if op.operands[0].id in self.lane_arrays:
                idx, shape = idx[1:], shape[1:]
            if 0 < len(idx) <= RECORD_DIMS and self.loop_kinds[-1] == VECTOR_LOOP:
                self._note_failure(op, flag, idx, shape)
                ok, join = self.new_label("inb"), self.new_label("acc")
                bad = self.label
                self.emit(f"br i1 {flag}, label %{ok}, label %{join}, !prof {self._likely()}")
                self.start(ok)
                flag = None
            elif 0 < len(idx) <= RECORD_DIMS:  # a scalar thread loop: no call in it
                ok, bad, join = (self.new_label(x) for x in ("inb", "oob", "acc"))
                self.emit(f"br i1 {flag}, label %{ok}, label %{bad}, !prof {self._likely()}")
                self.start(bad)
                self._note_failure_scalar(op, idx, shape)
                bad = self.label
                self.emit(f"br label %{join}")
                self.start(ok)
                flag = None
        if flag is not None:
            ok, bad, join = (self.new_label(x) for x in ("inb", "oob", "acc"))
            self.emit(f"br i1 {flag}, label %{ok}, label %{bad}, !prof {self._likely()}")
            self.start(bad)
            idx, shape = self.last_index
            if op.operands[0].id in self.lane_arrays:  # the user's array has no lane index
                idx, shape = idx[1:], shape[1:]
            self._fail(op, (idx, shape))
            bad = self.label  # the failure path's last block, for the phi below
            self.emit(f"br label %{join}")
            self.start(ok)
        result = write(op, addr)
        if join is not None:
            here = self.label
            self.emit(f"br label %{join}")
            self.start(join)
            if result is not None:
                zero = self.const(0, dtype)
                ty = llvm_type(dtype)
                result = self.inst(f"phi {ty} [{result}, %{here}], [{zero}, %{bad}]")
        if result is not None:
            self.vals[op.result.id] = result

    # ---------------------------------------------------------------- writing each access
    def _read(self, op: Op, addr: str) -> str:
        dtype = op.operands[0].array.dtype
        mt = mem_type(dtype)
        x = self.inst(f"load {mt}, ptr {addr}, align {align(dtype)}{self._access_md()}")
        return self.inst(f"trunc i8 {x} to i1") if dtype.is_bool else x

    def _write(self, op: Op, addr: str) -> None:
        dtype = op.operands[0].array.dtype
        mt = mem_type(dtype)
        val = self.v(op.operands[-1])
        if dtype.is_bool:
            val = self.inst(f"zext i1 {val} to i8")
        self.emit(f"store {mt} {val}, ptr {addr}, align {align(dtype)}{self._access_md()}")

    def _rmw(self, op: Op, addr: str) -> str:
        arr = op.operands[0].array
        rmw = self._block_rmw if arr.space == SHARED else self._atomic
        return rmw(op.attrs["op"], arr.dtype, addr, self.v(op.operands[-1]))

    def _compare_swap(self, op: Op, addr: str) -> str:
        arr = op.operands[0].array
        dtype = arr.dtype
        ty, mt = llvm_type(dtype), mem_type(dtype)
        cmp, new = self.v(op.operands[-2]), self.v(op.operands[-1])
        if arr.space == SHARED:  # a block's threads run one after another: no other writer
            old = self.inst(f"load {mt}, ptr {addr}, align {align(dtype)}")
            eq = self.inst(f"icmp eq {mt} {old}, {cmp}" if not dtype.is_float else
                           f"fcmp oeq {ty} {old}, {cmp}")  # fmt: skip
            if dtype.is_float:  # compare bit patterns, as the cmpxchg below does
                it = f"i{dtype.bits}"
                oi = self.inst(f"bitcast {ty} {old} to {it}")
                ci = self.inst(f"bitcast {ty} {cmp} to {it}")
                eq = self.inst(f"icmp eq {it} {oi}, {ci}")
            put = self.inst(f"select i1 {eq}, {mt} {new}, {mt} {old}")
            self.emit(f"store {mt} {put}, ptr {addr}, align {align(dtype)}")
            return old
        if dtype.is_float:
            it = f"i{dtype.bits}"
            cmp = self.inst(f"bitcast {ty} {cmp} to {it}")
            new = self.inst(f"bitcast {ty} {new} to {it}")
            pair = self.inst(f"cmpxchg ptr {addr}, {it} {cmp}, {it} {new} monotonic monotonic")
            old = self.inst(f"extractvalue {{ {it}, i1 }} {pair}, 0")
            return self.inst(f"bitcast {it} {old} to {ty}")
        pair = self.inst(f"cmpxchg ptr {addr}, {mt} {cmp}, {mt} {new} monotonic monotonic")
        return self.inst(f"extractvalue {{ {mt}, i1 }} {pair}, 0")

    def _block_rmw(self, o: str, t: Scalar, addr: str, val: str) -> str:
        """An atomic on shared memory: a plain read-modify-write. A block's threads run one
        after another on one CPU thread, so nothing else can touch its shared arrays between
        the load and the store (the accesses carry no `parallel_accesses` tag: LLVM keeps
        lanes that hit the same element in order; a histogram's loop stays scalar, without
        `lock` prefixes)."""
        ty = llvm_type(t)
        align = t.bits // 8
        old = self.inst(f"load {ty}, ptr {addr}, align {align}")
        if o == "exch":
            new = val
        elif t.is_float:
            new = (self.inst(f"f{o} {ty} {old}, {val}") if o in ("add", "sub") else
                   self._intrinsic("llvm.minnum" if o == "min" else "llvm.maxnum", t,
                                   [old, val]))  # fmt: skip
        elif o in ("min", "max"):
            sign = "s" if t.is_signed else "u"
            new = self._intrinsic(f"llvm.{sign}{o}", t, [old, val])
        else:
            new = self.inst(f"{o} {ty} {old}, {val}")
        self.emit(f"store {ty} {new}, ptr {addr}, align {align}")
        return old

    def _atomic(self, o: str, t: Scalar, addr: str, val: str) -> str:
        ty = llvm_type(t)
        if t.is_float:
            name = {"add": "fadd", "sub": "fsub", "min": "fmin", "max": "fmax",
                    "exch": "xchg"}[o]  # fmt: skip
        else:
            sign = "" if t.is_signed else "u"
            name = {"add": "add", "sub": "sub", "min": f"{sign}min", "max": f"{sign}max",
                    "exch": "xchg", "and": "and", "or": "or", "xor": "xor"}[o]  # fmt: skip
        return self.inst(f"atomicrmw {name} ptr {addr}, {ty} {val} monotonic")

    def _deferrable(self, op: Op) -> dict[tuple[int, int], Op]:
        """Per-lane array elements an `if` in a thread loop stores to, outside nested loops
        (and never touched inside them): stored once after the `if` (key: array, index)."""
        found: dict[tuple[int, int], Op] = {}
        banned: set[tuple[int, int]] = set()
        inner = {r.id for o in walk_ops(op) for r in o.results}

        def scan(block: Block, in_loop: bool) -> None:
            for o in block.ops:
                if (
                    o.opcode in ("load", "store")
                    and o.attrs.get("spill")
                    and len(o.operands) >= 2
                    and o.operands[1].id not in inner
                ):
                    key = (o.operands[0].id, o.operands[1].id)
                    if in_loop:
                        banned.add(key)
                    elif o.opcode == "store":
                        found.setdefault(key, o)
                for r in o.regions:
                    scan(r, in_loop or o.opcode in ("for", "while"))

        for r in op.regions:
            scan(r, False)
        return {k: v for k, v in found.items() if k not in banned}

    def _pending_value(self, key: tuple[int, int]) -> str | None:
        for d in reversed(self.pending):
            if key in d:
                return d[key]
        return None

    def _spill_load(self, store: Op) -> str:
        addr, _ = self._address(store)
        t = store.operands[-1].scalar
        return self.inst(f"load {mem_type(t)}, ptr {addr}, align {align(t)}{self._access_md()}")

