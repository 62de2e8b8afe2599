"""The CPU renderer: SPMD-lowered IR to LLVM IR text.

`render_lowered(fn)` prints a kernel the CPU runtime has lowered with `passes.spmd` (it runs no
pass itself: `runtime.cpu.lower_and_render` is the whole CPU lowering) as an LLVM module (text,
no llvmlite needed) exporting one entry:

    void @simt_run(ptr %args, ptr %ctx, i64 %begin, i64 %end)

which runs the blocks with linear ids `begin <= b < end`. `args` is an array of 8-byte slots
(see `arg_layout`): grid x, y, z, block x, y, z, then per parameter either one scalar slot or
an array's data pointer, its shape and its strides (in elements). `ctx` holds the error word
(the smallest `thread << 20 | site` that failed, INT64_MAX when none: an atomic `min`), the
print record counter, the print buffer's capacity in records and its address, the failing
access's record (`ERROR_RECORD`) and, last, the process's count of Ctrl-C at the launch's start
(`INTERRUPT_WORD`).

Ctrl-C inside a block: every loop that could run long (a `while`, a `for` whose trip count is
not a small constant or whose body has a loop; never a thread loop, which a block's size bounds)
counts its back-edges in one counter and, every `POLL_EVERY`, calls `simt_poll(ctx, jb)`
(`runtime.cpu_interrupt`). That compares the count of SIGINTs the runtime's native handler has
seen with the launch's; when they differ it stores `STOPPED` into the error word and `longjmp`s
to `jb`, a `setjmp` in the entry, which then frees the block's heap area (if any) and returns;
the runtime turns the word into KeyboardInterrupt. So the poll adds no exit to any loop (LLVM
unrolls and vectorises exactly as without it): the kernel's own code is a wrapper, `simt_run`,
around the body, `simt_blocks`, which gets `jb` as a fifth argument. The poll is declared to
touch only its arguments and memory the kernel cannot see, on a cold path: an iteration pays
one add, one test and one predictable branch.

The renderer is a table (`RULES`) over two bases, one job each: `llvm_ops.OpRenderer` writes
the scalar ops (operators, comparisons, conversions, math rows: docs/semantics.md's semantics)
and the text, `llvm_interface.KernelInterface` the kernel's interface (the prologue reading
`args`, block indices, where the kernel's own arrays live). Here are the entry around the
blocks, memory accesses and their bounds checks, prints and control flow.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..ir import Block, Function, Op, Value, walk
from ..ir.ops import MEMORY
from ..types import INT64, SHARED, Scalar
from .common import checked
from .llvm_abi import (
    BODY,
    ENTRY,
    JMP_WORDS,
    POLL_EVERY,
    POLL_FREE_TRIPS,
    POLL_FUNCTION,
    RECORD_DIMS,
    SITE_BITS,
    Meta,
    align,
    llvm_type,
    mem_type,
)
from .llvm_helpers import ENTRY_WITH_JUMP, FAIL_AT
from .llvm_interface import KernelInterface


def walk_ops(op: Op) -> list[Op]:
    """The ops nested in `op`'s regions."""
    return [o for r in op.regions for o in walk(r)]


class _Renderer(KernelInterface):
    """LLVM IR text of an SPMD-lowered kernel; ops dispatch through `RULES` (`ir.rules.Rules`)."""

    RULES: ClassVar[dict[str, str]] = {
        **KernelInterface.RULES,
        **dict.fromkeys(MEMORY, "_memory"), "print": "_print", "assert": "_assert",
        "if": "_if", "for": "_for", "while": "_while", "barrier": "_op_barrier",
        "fence": "_op_fence",
    }  # fmt: skip

    def __init__(
        self, fn: Function, unit_stride: frozenset[str], bounds: bool,
        block: tuple[int, int, int] | None = None, poll: bool = True,
    ) -> None:  # fmt: skip
        super().__init__(fn, unit_stride, block)
        self.poll = poll  # loops poll for Ctrl-C (see the module's doc)
        self.bounds = bounds
        self.last_index: tuple[list[str], list[str]] = ([], [])  # of the last access
        self.lane_stack: list[tuple[str, str, str, str]] = []  # tx, ty, tz, access group
        numbered = [int(o.attrs["site"]) for o in walk(fn.body) if "site" in o.attrs]
        self.next_site = max(numbered, default=0)  # the last site number given out here
        self.site_ids: dict[int, int] = {}  # id of an op without a site number -> its number
        # stores to per-lane arrays deferred to the end of the enclosing `if` (see `_if`)
        self.pending: list[dict[tuple[int, int], str]] = []
        self.print_ids: dict[int, int] = {}
        self.polled = False  # some loop polls (then the module declares the poll function)
        self.unlikely = ""  # the branch-weights node of the polls' cold branches
        self.likely: str | None = None  # the branch-weights node of `_likely`
        # kept checks directly in a thread loop's body record a failure without a branch
        # (`_note_failure`): per enclosing loop being rendered, whether it is a thread loop;
        # per thread loop being rendered, its checks (site -> op, index extents)
        self.loop_kinds: list[bool] = []
        self.loop_checks: list[dict[int, tuple[Op, list[str]]]] = []
        self.slots: dict[int, list[str]] = {}  # site -> a slot array of indices per dimension
        # a thread's failure record (the front end's `if raised: <record>`, attr `record`)
        # directly in a vectorisable thread loop's body is deferred (`_defer_record`): per
        # thread loop being rendered, its record ops' ids, the values its body defines, the
        # records deferred (op, flag slot, [(value, slot, type)], [(value, value it reads as)])
        # and its body's selects and constants by result id
        self.loop_records: list[tuple[set[int], set[int], list[Any], dict[int, Op]]] = []
        self.record_slots: list[tuple[str, str]] = []  # (slot array, element type)

    # ---- module --------------------------------------------------------------------------
    def render(self) -> tuple[str, Meta]:
        self.lines.append(f"define void @{ENTRY}(ptr noalias %args, ptr noalias %ctx, "
                          "i64 %begin, i64 %end) {")  # fmt: skip
        self.start("entry")
        failkey_at = len(self.lines)  # `%failkey` goes here when a check uses it
        if self.poll:  # the back-edge counter (in the entry block: promoted to registers)
            self.emit("%polls = alloca i32, align 4")
            self.emit("store i32 0, ptr %polls, align 4")
        self._prologue()
        pre = self.label
        head = self.new_label("blocks")
        body = self.new_label("block")
        done = self.new_label("done")
        self.emit(f"br label %{head}")
        self.start(head)
        self.emit(f"%b = phi i64 [%begin, %{pre}], [%bnext, %{head}.latch]")
        c = self.inst("icmp slt i64 %b, %end")
        self.emit(f"br i1 {c}, label %{body}, label %{done}")
        self.start(body)
        self._block_index()
        self._ops(self.fn.body)
        self.emit(f"br label %{head}.latch")
        self.start(f"{head}.latch")
        self.emit("%bnext = add i64 %b, 1")
        err = self.inst("load atomic i64, ptr %ctx monotonic, align 8")
        ok = self.inst(f"icmp eq i64 {err}, 9223372036854775807")
        self.emit(f"br i1 {ok}, label %{head}, label %{done}")
        self.start(done)
        if self.heap is not None:
            self.emit(f"call void @free(ptr {self.heap})")
        self.emit("ret void")
        self.lines.append("}")
        if self.polled:  # the body gets the jump buffer; the entry is the wrapper with it
            if self.heap is not None:  # freed by the entry if Ctrl-C jumps out of the body
                self.lines[self.heap_at:self.heap_at] = [
                    f"  %heapslot = getelementptr i64, ptr %jb, i64 {JMP_WORDS}",
                    f"  store volatile ptr {self.heap}, ptr %heapslot, align 8",
                ]
            self.lines[0] = (f"define internal void @{BODY}(ptr noalias %args, ptr noalias %ctx, "
                             "i64 %begin, i64 %end, ptr noalias %jb) noinline {")  # fmt: skip
            self.lines.append(ENTRY_WITH_JUMP.format(entry=ENTRY, body=BODY, words=JMP_WORDS,
                                                     slots=JMP_WORDS + 1))
            self.decls.add(
                f"declare void @{POLL_FUNCTION}(ptr, ptr) nounwind "
                "memory(argmem: readwrite, inaccessiblemem: readwrite)"
            )
            self.decls.add("declare i32 @_setjmp(ptr) returns_twice")
            self.decls.add("declare void @free(ptr)")
        self.lines[self.slot_at:self.slot_at] = [
            f"  {p} = alloca i64, i64 {self.nthreads}, align 64"
            for ps in self.slots.values() for p in ps
        ]
        self.lines[self.slot_at:self.slot_at] = [
            f"  {p} = alloca {ty}, i64 {self.nthreads}, align 64" for p, ty in self.record_slots
        ]
        if self.record_slots:  # any lane of the thread loop deferred a record
            self.lines[failkey_at:failkey_at] = [
                "  %anyrecord = alloca i8, align 1",
                "  store i8 0, ptr %anyrecord, align 1",
            ]
        if self.slots:  # a check recorded without a branch (`_note_failure`) uses it
            self.lines[failkey_at:failkey_at] = [
                "  %failkey = alloca i64, align 8",
                "  store i64 9223372036854775807, ptr %failkey, align 8",
            ]
        out = [
            "; simt kernel " + self.fn.name,
            *sorted(self.decls),
            *self.helpers.values(),
            *self.lines,
            *(f"!{i} = {m}" for i, m in enumerate(self.md)),
        ]
        return "\n".join(out) + "\n", self.meta

    # ---- ops -----------------------------------------------------------------------------
    def _ops(self, block: Block) -> None:
        for op in block.ops:
            if op.opcode in ("yield", "condition"):
                continue
            self._op(op)

    def _op(self, op: Op) -> None:
        rule = self.rule(op)
        if rule is None:
            raise AssertionError(f"cpu renderer: unknown opcode {op.opcode}")
        rule(op)

    def _op_barrier(self, op: Op) -> None:
        raise AssertionError("barrier left after SPMD lowering")

    def _op_fence(self, op: Op) -> None:
        # blocks run on several CPU threads: order this thread's memory accesses around it
        self.emit("fence seq_cst")

    # ---- memory --------------------------------------------------------------------------
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
                    self._cast(x, s, INT64)
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

    def _access_md(self) -> str:
        if self.lane_stack and self.lane_stack[-1][3]:
            return f", !llvm.access.group {self.lane_stack[-1][3]}"
        return ""

    def _memory(self, op: Op) -> None:
        k = op.opcode
        if self.pending and op.attrs.get("spill") and k in ("load", "store"):
            key = (op.operands[0].id, op.operands[1].id)
            if k == "store" and key in self.pending[-1]:
                val = self.v(op.operands[-1])
                if op.operands[-1].scalar.is_bool:
                    val = self.inst(f"zext i1 {val} to i8")
                self.pending[-1][key] = val  # pending values are in memory form (bool: i8)
                return
            pend = self._pending_value(key) if k == "load" else None
            if pend is not None:
                if op.result.scalar.is_bool:
                    pend = self.inst(f"trunc i8 {pend} to i1")
                self.vals[op.result.id] = pend
                return
        addr, flag = self._address(op)
        dtype = op.operands[0].array.dtype
        ty, mt = llvm_type(dtype), mem_type(dtype)
        join = None
        if flag is not None and self.loop_kinds and self.loop_kinds[-1]:
            idx, shape = self.last_index
            if op.operands[0].id in self.lane_arrays:
                idx, shape = idx[1:], shape[1:]
            if 0 < len(idx) <= RECORD_DIMS:
                self._note_failure(op, flag, idx, shape)
                ok, join = self.new_label("inb"), self.new_label("acc")
                bad = self.label
                self.emit(f"br i1 {flag}, label %{ok}, label %{join}, !prof {self._likely()}")
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
        align = dtype.bits // 8 if not dtype.is_bool else 1
        result = None
        if k == "load":
            x = self.inst(f"load {mt}, ptr {addr}, align {align}{self._access_md()}")
            result = self.inst(f"trunc i8 {x} to i1") if dtype.is_bool else x
        elif k == "store":
            val = self.v(op.operands[-1])
            if dtype.is_bool:
                val = self.inst(f"zext i1 {val} to i8")
            self.emit(f"store {mt} {val}, ptr {addr}, align {align}{self._access_md()}")
        elif k == "atomic" and op.operands[0].array.space == SHARED:
            result = self._block_rmw(op.attrs["op"], dtype, addr, self.v(op.operands[-1]))
        elif k == "atomic":
            result = self._atomic(op.attrs["op"], dtype, addr, self.v(op.operands[-1]))
        elif op.operands[0].array.space == SHARED:
            cmp, new = self.v(op.operands[-2]), self.v(op.operands[-1])
            old = self.inst(f"load {mt}, ptr {addr}, align {align}")
            eq = self.inst(f"icmp eq {mt} {old}, {cmp}" if not dtype.is_float else
                           f"fcmp oeq {ty} {old}, {cmp}")  # fmt: skip
            if dtype.is_float:  # compare bit patterns, as the cmpxchg below does
                it = f"i{dtype.bits}"
                oi = self.inst(f"bitcast {ty} {old} to {it}")
                ci = self.inst(f"bitcast {ty} {cmp} to {it}")
                eq = self.inst(f"icmp eq {it} {oi}, {ci}")
            put = self.inst(f"select i1 {eq}, {mt} {new}, {mt} {old}")
            self.emit(f"store {mt} {put}, ptr {addr}, align {align}")
            result = old
        else:
            cmp, new = self.v(op.operands[-2]), self.v(op.operands[-1])
            if dtype.is_float:
                it = f"i{dtype.bits}"
                cmp = self.inst(f"bitcast {ty} {cmp} to {it}")
                new = self.inst(f"bitcast {ty} {new} to {it}")
                pair = self.inst(f"cmpxchg ptr {addr}, {it} {cmp}, {it} {new} monotonic monotonic")
                old = self.inst(f"extractvalue {{ {it}, i1 }} {pair}, 0")
                result = self.inst(f"bitcast {it} {old} to {ty}")
            else:
                pair = self.inst(f"cmpxchg ptr {addr}, {mt} {cmp}, {mt} {new} monotonic monotonic")
                result = self.inst(f"extractvalue {{ {mt}, i1 }} {pair}, 0")
        if join is not None:
            here = self.label
            self.emit(f"br label %{join}")
            self.start(join)
            if result is not None:
                zero = self.const(0, dtype)
                result = self.inst(f"phi {ty} [{result}, %{here}], [{zero}, %{bad}]")
        if result is not None:
            self.vals[op.result.id] = result

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

    def _thread_id(self, offset: tuple[int, int] = (0, 0)) -> str:
        """The launch-wide linear id of the current lane (i64); `offset` (x, y) is added to
        the thread index (an op of a jammed loop's copy for another lane: `passes.spmd`)."""
        base = self.inst(f"mul i64 %b, {self.nthreads}")
        return self.inst(f"add i64 {base}, {self._lane(offset)}")

    def _lane(self, offset: tuple[int, int] = (0, 0)) -> str:
        """The current lane's linear thread index in its block (i64), see `_thread_id`."""
        tx, ty, tz, _ = self.lane_stack[-1] if self.lane_stack else ("0", "0", "0", "")
        if offset[0]:
            tx = self.inst(f"add i32 {tx}, {offset[0]}")
        if offset[1]:
            ty = self.inst(f"add i32 {ty}, {offset[1]}")
        a = self.inst(f"mul i32 {tz}, {self.block32[1]}")
        a = self.inst(f"add i32 {a}, {ty}")
        a = self.inst(f"mul i32 {a}, {self.block32[0]}")
        a = self.inst(f"add i32 {a}, {tx}")
        return self.inst(f"zext i32 {a} to i64")

    def _site(self, op: Op) -> int:
        """The error site number of `op` (see `Meta.sites`)."""
        site = op.attrs.get("site")
        if site is None:
            site = self.site_ids.get(id(op))
            if site is None:
                self.next_site += 1
                site = self.site_ids[id(op)] = self.next_site
        self.meta.sites.setdefault(int(site), op)
        return int(site)

    def _likely(self) -> str:
        """Branch weights saying the first successor is the one taken (a check that passes)."""
        if self.likely is None:
            self.likely = self.mdnode('!{!"branch_weights", i32 2000, i32 1}')
        return self.likely

    def _fail(self, op: Op, index: tuple[list[str], list[str]] | None = None) -> None:
        site = self._site(op)
        tid = self._thread_id(op.attrs.get("lane_offset", (0, 0)))
        key = self.inst(f"shl i64 {tid}, {SITE_BITS}")
        key = self.inst(f"or i64 {key}, {site}")
        if index is None or not index[0] or len(index[0]) > RECORD_DIMS:
            self.inst(f"atomicrmw min ptr %ctx, i64 {key} monotonic")
            return
        # a failing access: out of line (`FAIL_AT`), so a checked loop's body stays small
        idx, shape = index
        pad = ["0"] * (RECORD_DIMS - len(idx))
        args = ", ".join(f"i64 {w}" for w in [*idx, *pad, *shape, *pad])
        self.helpers["simt.fail.at"] = FAIL_AT
        self.emit(f"call void @simt.fail.at(ptr %ctx, i64 {key}, i64 {len(idx)}, {args})")

    def _note_failure(self, op: Op, ok: str, idx: list[str], shape: list[str]) -> None:
        """A kept check directly in a thread loop's body, without a branch of its own (a
        failure path with a call or an atomic in it keeps LLVM from vectorising the loop; on
        this path's own stores it makes masked stores, which some x86 cores run very slowly
        when hardly a lane stores): the access's key (`thread << SITE_BITS | site`) goes into
        `%failkey`, the smallest key of the loop (a min LLVM keeps as a vector reduction), when
        `ok` is false, and its index into the lane's slot of the site's slot arrays, always
        (a plain vector store). After the loop, `_flush_checks` reports the smallest key with
        its lane's slots. A site in a loop inside the thread loop's body would overwrite its
        slots before the flush: those keep the failure branch (`_fail`)."""
        site = self._site(op)
        lane = self._lane(op.attrs.get("lane_offset", (0, 0)))
        tid = self.inst(f"add i64 {self.inst(f'mul i64 %b, {self.nthreads}')}, {lane}")
        key = self.inst(f"or i64 {self.inst(f'shl i64 {tid}, {SITE_BITS}')}, {site}")
        cand = self.inst(f"select i1 {ok}, i64 9223372036854775807, i64 {key}")
        cur = self.inst("load i64, ptr %failkey, align 8")
        low = self.inst(f"call i64 @llvm.smin.i64(i64 {cur}, i64 {cand})")
        self.decls.add("declare i64 @llvm.smin.i64(i64, i64)")
        self.emit(f"store i64 {low}, ptr %failkey, align 8")
        slots = self.slots.setdefault(site, [f"%fslot{site}.{d}" for d in range(len(idx))])
        md = self._access_md()
        for p, x in zip(slots, idx):
            at = self.inst(f"getelementptr i64, ptr {p}, i64 {lane}")
            self.emit(f"store i64 {x}, ptr {at}, align 8{md}")
        self.loop_checks[-1][site] = (op, shape)

    def _defer_record(self, op: Op) -> None:
        """The failure record of a raising thread (`frontend.raising.epilogue`'s `if raised:
        <record>`) directly in the body of a thread loop LLVM may vectorise: its atomics on
        the failure buffer would keep the loop scalar, so the lane stores, without a branch,
        whether it raised and the values the record reads (plain vector stores into per-lane
        slot arrays) and ors the flag into `%anyrecord` (a reduction); after the loop,
        `_flush_records` makes the records of the lanes that raised, in lane order.

        Only what the record cannot have otherwise is stored: a value `select(flag, a, b)` is
        `a` wherever a record is made (the front end's exception state is such selects: an
        IndexError's kind, index and length), and a constant or a value from before the loop
        is read as it is after the loop. An IndexError of a gather then stores its flag and
        its index, not three selected words (with which LLVM ran out of registers and
        reloaded pointers inside the vector loop)."""
        _, defs, deferred, made = self.loop_records[-1]
        raised = op.operands[0]

        def recorded(x: Value) -> Value:
            while (m := made.get(x.id)) is not None and m.opcode == "select" and (
                m.operands[0] is raised
            ):
                x = m.operands[1]
            return x

        lane = self._lane()
        inner = {r.id for o in walk_ops(op) for r in o.results}
        inner.update(a.id for o in [op, *walk_ops(op)] for r in o.regions for a in r.args)
        used: dict[int, Value] = {}
        for o in walk_ops(op):
            for x in o.operands:
                if x.id in defs and x.id not in inner:
                    used.setdefault(x.id, x)
        k = len(self.record_slots)
        flag = f"%recflag{k}"
        self.record_slots.append((flag, "i8"))
        f8 = self.inst(f"zext i1 {self.v(op.operands[0])} to i8")
        self.emit(f"store i8 {f8}, ptr {self.inst(f'getelementptr i8, ptr {flag}, i64 {lane}')}"
                  f", align 1{self._access_md()}")  # fmt: skip
        cur = self.inst("load i8, ptr %anyrecord, align 1")
        self.emit(f"store i8 {self.inst(f'or i8 {cur}, {f8}')}, ptr %anyrecord, align 1")
        kept: list[tuple[Value, str, str]] = []
        bound: list[tuple[Value, Value]] = []
        slots: dict[int, str] = {}
        for x in used.values():
            y = recorded(x)
            m = made.get(y.id)
            if y.id not in defs or (m is not None and m.opcode == "const"):
                bound.append((x, y))  # the same value after the loop
                continue
            ty = mem_type(y.scalar)
            slot = slots.get(y.id)
            if slot is None:
                slot = slots[y.id] = f"%recval{k}.{len(slots)}"
                self.record_slots.append((slot, ty))
                val = self.v(y)
                if y.scalar.is_bool:
                    val = self.inst(f"zext i1 {val} to i8")
                at = self.inst(f"getelementptr {ty}, ptr {slot}, i64 {lane}")
                self.emit(f"store {ty} {val}, ptr {at}, align {align(y.scalar)}"
                          f"{self._access_md()}")  # fmt: skip
            kept.append((x, slot, ty))
        deferred.append((op, flag, kept, bound))

    def _flush_records(self, loop: Op, deferred: list[Any], bounds: tuple[str, str, str]) -> None:
        """After a thread loop with deferred records (`_defer_record`): if a lane raised, the
        loop's lanes again, scalar, making the record of each lane whose flag is set (its
        values read back from the slots, the loop's index bound to the lane)."""
        start, stop, step = bounds
        t = loop.operands[0].scalar
        ty = llvm_type(t)
        s = "s" if t.is_signed else "u"
        cur = self.inst("load i8, ptr %anyrecord, align 1")
        none = self.inst(f"icmp eq i8 {cur}, 0")
        head, done = self.new_label("records"), self.new_label("recorded")
        self.emit(f"br i1 {none}, label %{done}, label %{head}, !prof {self._likely()}")
        self.start(head)
        self.emit("store i8 0, ptr %anyrecord, align 1")
        pre = self.label
        top, body, latch, end = (
            self.new_label(x) for x in ("rec", "recbody", "reclatch", "recend"))
        self.emit(f"br label %{top}")
        self.start(top)
        iv, nxt = self.tmp(), self.tmp()
        self.emit(f"{iv} = phi {ty} [{start}, %{pre}], [{nxt}, %{latch}]")
        up = self.inst(f"icmp {s}gt {ty} {step}, 0")
        lt = self.inst(f"icmp {s}lt {ty} {iv}, {stop}")
        gt = self.inst(f"icmp {s}gt {ty} {iv}, {stop}")
        go = self.inst(f"select i1 {up}, i1 {lt}, i1 {gt}")
        self.emit(f"br i1 {go}, label %{body}, label %{end}")
        self.start(body)
        outer = self.lane_stack[-1] if self.lane_stack else ("0", "0", "0", "")
        self.lane_stack.append((iv, outer[1], outer[2], ""))
        arg = loop.regions[0].args[0]
        saved = self.vals.get(arg.id)
        self.vals[arg.id] = iv
        lane = self._lane()
        for op, flag, kept, bound in deferred:
            f = self.inst(f"load i8, ptr {self.inst(f'getelementptr i8, ptr {flag}, i64 {lane}')}"
                          ", align 1")  # fmt: skip
            yes, no = self.new_label("rec"), self.new_label("norec")
            self.emit(f"br i1 {self.inst(f'icmp ne i8 {f}, 0')}, label %{yes}, label %{no}")
            self.start(yes)
            for x, slot, mt in kept:
                at = self.inst(f"getelementptr {mt}, ptr {slot}, i64 {lane}")
                val = self.inst(f"load {mt}, ptr {at}, align {align(x.scalar)}")
                self.vals[x.id] = self.inst(f"trunc i8 {val} to i1") if x.scalar.is_bool else val
            for x, y in bound:
                self.vals[x.id] = self.v(y)
            self._region(op.regions[0])
            self.emit(f"br label %{no}")
            self.start(no)
        if saved is not None:
            self.vals[arg.id] = saved
        self.lane_stack.pop()
        self.emit(f"br label %{latch}")
        self.start(latch)
        self.emit(f"{nxt} = add {ty} {iv}, {step}")
        self.emit(f"br label %{top}")
        self.start(end)
        self.emit(f"br label %{done}")
        self.start(done)

    def _flush_checks(self, checks: dict[int, tuple[Op, list[str]]]) -> None:
        """After a thread loop with `_note_failure` checks: if one failed, its key, index and
        extents to the context (`@simt.fail.at`, out of line), and `%failkey` empty again."""
        k = self.inst("load i64, ptr %failkey, align 8")
        none = self.inst(f"icmp eq i64 {k}, 9223372036854775807")
        flush, done = self.new_label("flush"), self.new_label("flushed")
        self.emit(f"br i1 {none}, label %{done}, label %{flush}, !prof {self._likely()}")
        self.start(flush)
        self.emit("store i64 9223372036854775807, ptr %failkey, align 8")
        tid = self.inst(f"ashr i64 {k}, {SITE_BITS}")
        lane = self.inst(f"sub i64 {tid}, {self.inst(f'mul i64 %b, {self.nthreads}')}")
        site = self.inst(f"and i64 {k}, {(1 << SITE_BITS) - 1}")
        self.helpers["simt.fail.at"] = FAIL_AT
        for s, (_, shape) in checks.items():
            this, other = self.new_label("report"), self.new_label("notsite")
            self.emit(f"br i1 {self.inst(f'icmp eq i64 {site}, {s}')}, label %{this}, "
                      f"label %{other}")  # fmt: skip
            self.start(this)
            idx = []
            for p in self.slots[s]:
                at = self.inst(f"getelementptr i64, ptr {p}, i64 {lane}")
                idx.append(self.inst(f"load i64, ptr {at}, align 8"))
            pad = ["0"] * (RECORD_DIMS - len(idx))
            args = ", ".join(f"i64 {w}" for w in [*idx, *pad, *shape, *pad])
            self.emit(f"call void @simt.fail.at(ptr %ctx, i64 {k}, i64 {len(idx)}, {args})")
            self.emit(f"br label %{done}")
            self.start(other)
        self.emit(f"br label %{done}")
        self.start(done)

    def _assert(self, op: Op) -> None:
        c = self.v(op.operands[0])
        ok, bad = self.new_label("ok"), self.new_label("fail")
        self.emit(f"br i1 {c}, label %{ok}, label %{bad}")
        self.start(bad)
        self._fail(op)
        self.emit(f"br label %{ok}")
        self.start(ok)

    def _print(self, op: Op) -> None:
        pid = len(self.meta.formats)
        self.meta.formats.append(op.attrs["parts"])
        types = [v.scalar for v in op.operands]
        self.meta.print_types.append(types)
        self.meta.record_slots = max(self.meta.record_slots, 2 + len(types))
        cnt = self.inst("getelementptr i64, ptr %ctx, i64 1")
        idx = self.inst(f"atomicrmw add ptr {cnt}, i64 1 monotonic")
        capp = self.inst("getelementptr i64, ptr %ctx, i64 2")
        cap = self.inst(f"load i64, ptr {capp}, align 8")
        fits = self.inst(f"icmp ult i64 {idx}, {cap}")
        yes, no = self.new_label("rec"), self.new_label("norec")
        self.emit(f"br i1 {fits}, label %{yes}, label %{no}")
        self.start(yes)
        bufp = self.inst("getelementptr i64, ptr %ctx, i64 3")
        buf = self.inst(f"load ptr, ptr {bufp}, align 8")
        rec = self.inst(f"mul i64 {idx}, @RECORD_SLOTS@")
        base = self.inst(f"getelementptr i64, ptr {buf}, i64 {rec}")
        self.emit(f"store i64 {self._thread_id()}, ptr {base}, align 8")
        for i, (v, t) in enumerate(zip(op.operands, types)):
            x = self.v(v)
            if t.is_float:
                x = x if t.bits == 64 else self.inst(f"fpext float {x} to double")
                x = self.inst(f"bitcast double {x} to i64")
            else:
                x = (
                    self._cast(x, t, INT64)
                    if t.is_signed or t.is_bool
                    else self.inst(f"zext i32 {x} to i64")
                )
            p = self.inst(f"getelementptr i64, ptr {base}, i64 {2 + i}")
            self.emit(f"store i64 {x}, ptr {p}, align 8")
        # the print id last, released: the record is complete once it is there (a launch
        # streaming its prints reads records while the kernel runs: runtime.printing)
        p1 = self.inst(f"getelementptr i64, ptr {base}, i64 1")
        self.emit(f"store atomic i64 {pid}, ptr {p1} release, align 8")
        self.emit(f"br label %{no}")
        self.start(no)

    # ---- control flow --------------------------------------------------------------------
    def _phis(self, results: list[Value], incoming: list[list[tuple[str, str]]]) -> None:
        for r, inc in zip(results, incoming):
            ty = llvm_type(r.scalar)
            arms = ", ".join(f"[{x}, %{lbl}]" for x, lbl in inc)
            self.vals[r.id] = self.inst(f"phi {ty} {arms}")

    def _region(self, block: Block) -> list[str]:
        self._ops(block)
        term = block.terminator
        return [self.v(x) for x in term.operands] if term is not None else []

    def _if(self, op: Op) -> None:
        if op.attrs.get("record") and self.loop_kinds and self.loop_kinds[-1] and (
            id(op) in self.loop_records[-1][0]
        ):
            self._defer_record(op)
            return
        keys = self._deferrable(op) if self.lane_stack else {}
        olds: dict[tuple[int, int], str] = {}
        for key, store in keys.items():
            olds[key] = self._pending_value(key) or self._spill_load(store)
        c = self.v(op.operands[0])
        then, other, join = (self.new_label(x) for x in ("then", "else", "endif"))
        self.emit(f"br i1 {c}, label %{then}, label %{other}")
        ends = []
        finals = []
        for label, region in ((then, op.regions[0]), (other, op.regions[1])):
            self.start(label)
            if keys:
                self.pending.append(dict(olds))
            ys = self._region(region)
            if keys:
                finals.append(self.pending.pop())
            ends.append((ys, self.label))
            self.emit(f"br label %{join}")
        self.start(join)
        self._phis(op.results, [[(ys[i], lbl) for ys, lbl in ends] for i in
                                range(len(op.results))])  # fmt: skip
        merged = {}
        for key, store in keys.items():
            # the per-lane array's element, as either branch left it: one unconditional store
            # (a blend) instead of a masked store in each branch
            arms = ", ".join(f"[{f[key]}, %{lbl}]" for f, (_, lbl) in zip(finals, ends))
            merged[key] = self.inst(f"phi {mem_type(store.operands[-1].scalar)} {arms}")
        for key, store in keys.items():
            val = merged[key]
            if self.pending and key in self.pending[-1]:
                self.pending[-1][key] = val
            else:
                addr, _ = self._address(store)
                self.emit(
                    f"store {mem_type(store.operands[-1].scalar)} {val}, ptr {addr}, "
                    f"align {align(store.operands[-1].scalar)}{self._access_md()}"
                )

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

    def _for(self, op: Op) -> None:
        """A `for` loop (a thread loop with clamped indices comes split by lanes:
        `passes.clamp_split`)."""
        start, stop, step = (self.v(x) for x in op.operands[:3])
        t = op.operands[0].scalar
        ty = llvm_type(t)
        inits = [self.v(x) for x in op.operands[3:]]
        (body,) = op.regions
        pre = self.label
        head, loop, latch, done = (self.new_label(x) for x in ("for", "body", "latch", "endfor"))
        self.emit(f"br label %{head}")
        self.start(head)
        iv = self.tmp()
        carried = [self.tmp() for _ in inits]
        next_iv = self.tmp()
        self.emit(f"{iv} = phi {ty} [{start}, %{pre}], [{next_iv}, %{latch}]")
        phi_at = len(self.lines)
        sign = op.attrs.get("sign", 0)
        # the bounds compare as their type does: unsigned for uint32 (as sim, WGSL and CUDA)
        s = "s" if t.is_signed else "u"
        if sign == 1:
            cond = self.inst(f"icmp {s}lt {ty} {iv}, {stop}")
        elif sign == -1:
            cond = self.inst(f"icmp {s}gt {ty} {iv}, {stop}")
        else:
            up = self.inst(f"icmp {s}gt {ty} {step}, 0")
            lt = self.inst(f"icmp {s}lt {ty} {iv}, {stop}")
            dn = self.inst(f"icmp {s}lt {ty} {step}, 0")
            gt = self.inst(f"icmp {s}gt {ty} {iv}, {stop}")
            a = self.inst(f"and i1 {up}, {lt}")
            b = self.inst(f"and i1 {dn}, {gt}")
            cond = self.inst(f"or i1 {a}, {b}")
        self.emit(f"br i1 {cond}, label %{loop}, label %{done}")
        self.start(loop)
        lane = iv
        self.vals[body.args[0].id] = lane
        for arg, c in zip(body.args[1:], carried):
            self.vals[arg.id] = c
        lanes = op.attrs.get("lanes")
        group = ""
        if lanes in ("x", "xs"):  # "xs": lanes in steps, several per iteration (jammed)
            group = self.mdnode("distinct !{}") if lanes == "x" else ""
            outer = self.lane_stack[-1] if self.lane_stack else ("0", "0", "0", "")
            self.lane_stack.append((lane, outer[1], outer[2], group))
        elif lanes in ("y", "ys", "z"):
            tx, ty_, tz, _ = self.lane_stack[-1] if self.lane_stack else ("0", "0", "0", "")
            if lanes in ("y", "ys"):
                self.lane_stack.append((tx, iv, tz, ""))
            else:
                self.lane_stack.append((tx, ty_, iv, ""))
        # a thread loop LLVM may vectorise (atomics and prints keep it scalar, and a jammed
        # one is many lanes wide already): its checks record failures without a branch, and
        # the failure record of a raising thread (the front end's `if raised: <record>`,
        # directly in the body) is deferred to after the loop (`_defer_record`)
        records = {id(o) for o in body.ops if o.opcode == "if" and o.attrs.get("record")}
        in_records = {id(o) for o in body.ops if id(o) in records for o in walk_ops(o)}
        thread_loop = lanes == "x" and not any(
            o.opcode in ("atomic", "cas", "print") and id(o) not in in_records
            for o in walk(body))  # fmt: skip
        self.loop_kinds.append(thread_loop)
        if thread_loop:
            self.loop_checks.append({})
            defs = {a.id for a in body.args[1:]}
            defs.update(r.id for o in walk(body) for r in o.results)
            defs.update(a.id for o in walk(body) for r in o.regions for a in r.args)
            made = {o.result.id: o for o in walk(body) if o.opcode in ("select", "const")}
            self.loop_records.append((records, defs, [], made))
        ys = self._region(body)
        self.loop_kinds.pop()
        checks = self.loop_checks.pop() if thread_loop else {}
        deferred = self.loop_records.pop()[2] if thread_loop else []
        if lanes:
            self.lane_stack.pop()
        self._back_edge(latch, not lanes and not self._bounded(op, start, stop, step))
        self.start(latch)
        self.emit(f"{next_iv} = add {ty} {iv}, {step}")
        self.lines[phi_at:phi_at] = [
            f"  {c} = phi {llvm_type(a.scalar)} [{x}, %{pre}], [{y}, %{latch}]"
            for c, a, x, y in zip(carried, body.args[1:], inits, ys)
        ]
        md = ""
        if op.attrs.get("jammed") or op.attrs.get("tile"):
            self.meta.jammed = True
            # its body is already many lanes wide (SLP makes the vectors): neither vectorise
            # nor unroll it again, which would only multiply compile time
            off = self.mdnode('!{!"llvm.loop.vectorize.enable", i1 false}')
            nounroll = self.mdnode('!{!"llvm.loop.unroll.disable"}')
            self_ref = len(self.md)
            md = f", !llvm.loop !{self_ref}"
            self.md.append(f"distinct !{{!{self_ref}, {off}, {nounroll}}}")
        if not lanes and any(o.opcode == "for" and o.attrs.get("lanes") == "z" for o in body.ops):
            # a uniform loop around a thread loop (W1's rows): four rows per iteration keep
            # four memory streams in flight (about 12 % on W1)
            uj = self.mdnode('!{!"llvm.loop.unroll.count", i32 4}')
            self_ref = len(self.md)
            md = f", !llvm.loop !{self_ref}"
            self.md.append(f"distinct !{{!{self_ref}, {uj}}}")
        if lanes == "x":
            # independent iterations (no run-time alias checks); whether to vectorise is left
            # to LLVM's cost model (forcing it only earns a warning on stderr where it cannot)
            par = self.mdnode(f'!{{!"llvm.loop.parallel_accesses", {group}}}')
            self_ref = len(self.md)
            md = f", !llvm.loop !{self_ref}"
            self.md.append(f"distinct !{{!{self_ref}, {par}}}")
        self.emit(f"br label %{head}{md}")
        self.start(done)
        for r, c in zip(op.results, carried):
            self.vals[r.id] = c
        if checks:
            self._flush_checks(checks)
        if deferred:
            self._flush_records(op, deferred, (start, stop, step))

    @staticmethod
    def _bounded(op: Op, start: str, stop: str, step: str) -> bool:
        """Whether a `for` runs at most `POLL_FREE_TRIPS` times (or once a lane of the block:
        `lane_count`) and has no loop inside: it needs no poll for Ctrl-C (a loop around it
        polls). A register-tiled loop (`tile`, `tensor.gemm`) is not polled either: the loops
        around it poll, and a poll inside would keep its products alive across a branch,
        beyond the registers."""
        if op.attrs.get("lane_count") or op.attrs.get("tile"):
            return not any(o.opcode in ("for", "while") for o in walk(op.regions[0]))
        try:
            a, b, c = int(start), int(stop), int(step)
        except ValueError:
            return False
        trips = len(range(a, b, c)) if c else POLL_FREE_TRIPS + 1
        return trips <= POLL_FREE_TRIPS and not any(
            o.opcode in ("for", "while") for o in walk(op.regions[0])
        )

    def _back_edge(self, latch: str, poll: bool) -> None:
        """End a loop's body: on to `latch`, polling for Ctrl-C every `POLL_EVERY` times
        round (when `poll` and the kernel polls at all; see the module's doc)."""
        if not (poll and self.poll):
            self.emit(f"br label %{latch}")
            return
        if not self.polled:
            self.polled = True
            self.unlikely = self.mdnode('!{!"branch_weights", i32 1, i32 100000}')
        c = self.inst("load i32, ptr %polls, align 4")
        c = self.inst(f"add i32 {c}, 1")
        self.emit(f"store i32 {c}, ptr %polls, align 4")
        due = self.inst(f"and i32 {c}, {POLL_EVERY - 1}")
        due = self.inst(f"icmp eq i32 {due}, 0")
        check = self.new_label("poll")
        self.emit(f"br i1 {due}, label %{check}, label %{latch}, !prof {self.unlikely}")
        self.start(check)
        self.emit(f"call void @{POLL_FUNCTION}(ptr %ctx, ptr %jb)")
        self.emit(f"br label %{latch}")

    def _while(self, op: Op) -> None:
        cond_blk, body = op.regions
        inits = [self.v(x) for x in op.operands]
        pre = self.label
        head, loop, done = (self.new_label(x) for x in ("while", "do", "endwhile"))
        self.emit(f"br label %{head}")
        self.start(head)
        carried = [self.tmp() for _ in inits]
        latch = self.new_label("wlatch")
        phi_at = len(self.lines)
        for a, c in zip(cond_blk.args, carried):
            self.vals[a.id] = c
        self.loop_kinds.append(False)
        self._ops(cond_blk)
        term = cond_blk.terminator
        assert term is not None
        self.emit(f"br i1 {self.v(term.operands[0])}, label %{loop}, label %{done}")
        self.start(loop)
        for a, c in zip(body.args, carried):
            self.vals[a.id] = c
        ys = self._region(body)
        self.loop_kinds.pop()
        self._back_edge(latch, True)
        self.start(latch)
        self.lines[phi_at:phi_at] = [
            f"  {c} = phi {llvm_type(r.scalar)} [{x}, %{pre}], [{y}, %{latch}]"
            for c, r, x, y in zip(carried, op.results, inits, ys)
        ]
        self.emit(f"br label %{head}")
        self.start(done)
        for r, c in zip(op.results, carried):
            self.vals[r.id] = c



def render_lowered(
    fn: Function,
    unit_stride: frozenset[str] = frozenset(),
    bounds: bool | None = None,
    block: tuple[int, int, int] | None = None,
    poll: bool = True,
) -> tuple[str, Meta]:
    """LLVM IR text of an SPMD-lowered function, and what its runtime needs to know.

    `unit_stride` names the array parameters whose last dimension is contiguous; `block`, when
    given, is the block shape the code is specialised for (the launch must use it); `poll`
    (default) makes long loops poll for Ctrl-C."""
    r = _Renderer(fn, unit_stride, fn.checks_bounds if bounds is None else bounds, block, poll)
    text, meta = r.render()
    text = text.replace("@RECORD_SLOTS@", str(meta.record_slots))
    return text, meta
