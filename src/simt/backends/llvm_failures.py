"""What a failing thread of a CPU kernel leaves for the host, as the LLVM renderer writes it
(`FailureRecords`): each check's error site (`Meta.sites`), the failure path that stores the
smallest `thread << SITE_BITS | site` into the context (and, for an access, its index and
extents through `@simt.fail.at`), `assert`, and the two forms that keep a thread loop
vectorisable: a kept bounds check directly in a thread loop's body records its failure without
a branch (`_note_failure`, reported after the loop by `_flush_checks`), and a raising thread's
exception record is deferred to after the loop (`_defer_record`, `_flush_records`); in a
thread loop LLVM keeps scalar (an atomic in it), a kept check's failure path makes no call
(`_note_failure_scalar`), so the loop can still be unrolled.
`llvm_memory.MemoryAccess` builds the accesses and their checks on it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..ir import Block, Function, Op, Value, walk
from .llvm_abi import RECORD_DIMS, SITE_BITS, align, llvm_type, mem_type
from .llvm_helpers import FAIL_AT
from .llvm_interface import KernelInterface

# what kind of thread loop a loop being rendered is (`FailureRecords.loop_kinds`; 0: none): one
# LLVM may vectorise, or one it keeps scalar (an atomic or a print in it)
VECTOR_LOOP, SCALAR_LOOP = 1, 2


def walk_ops(op: Op) -> list[Op]:
    """The ops nested in `op`'s regions."""
    return [o for r in op.regions for o in walk(r)]


class FailureRecords(KernelInterface):
    """Error sites, failure paths and a thread loop's deferred checks and records (see the
    module doc), over the kernel's interface."""

    RULES: ClassVar[dict[str, str]] = {**KernelInterface.RULES, "assert": "_assert"}

    def __init__(
        self, fn: Function, unit_stride: frozenset[str], block: tuple[int, int, int] | None
    ) -> None:
        super().__init__(fn, unit_stride, block)
        numbered = [int(o.attrs["site"]) for o in walk(fn.body) if "site" in o.attrs]
        self.next_site = max(numbered, default=0)  # the last site number given out here
        self.site_ids: dict[int, int] = {}  # id of an op without a site number -> its number
        self.likely: str | None = None  # the branch-weights node of `_likely`
        # kept checks directly in a thread loop's body record a failure without a call in
        # the loop (`_note_failure`, `_note_failure_scalar`): per enclosing loop being
        # rendered, its kind (`VECTOR_LOOP`, `SCALAR_LOOP` or 0: not a thread loop); per
        # thread loop being rendered, its checks (site -> op, index extents)
        self.loop_kinds: list[int] = []
        # (site -> op, index extents, the key it records its failure in)
        self.loop_checks: list[dict[int, tuple[Op, list[str], str]]] = []
        self.slots: dict[int, list[str]] = {}  # site -> a slot array of indices per dimension
        self.scalar_sites: set[int] = set()  # sites whose slots are one index, not one a lane
        # the smallest failure keys: `%failkey` (scalar loops' checks) and one per site of a
        # vectorisable loop (`_note_failure`: LLVM vectorises a loop with one min reduction
        # per accumulator, and none with two mins chained on one)
        self.keys: set[str] = set()
        # a thread's failure record (the front end's `if raised: <record>`, attr `record`)
        # directly in a vectorisable thread loop's body is deferred (`_defer_record`): per
        # thread loop being rendered, its record ops' ids, the values its body defines, the
        # records deferred (op, flag slot, [(value, slot, type)], [(value, value it reads as)])
        # and its body's selects and constants by result id
        self.loop_records: list[tuple[set[int], set[int], list[Any], dict[int, Op]]] = []
        self.record_slots: list[tuple[str, str]] = []  # (slot array, element type)

    def _region(self, block: Block) -> list[str]:
        """The ops of `block`, rendered, and its terminator's operand values (the renderer's
        control flow; a deferred record's region is rendered again after its loop)."""
        raise NotImplementedError

    def _failure_slots(self, failkey_at: int) -> None:
        """The entry block's slot arrays and flags the checks and records of thread loops
        used (`failkey_at`: where the entry block's own declarations go)."""
        self.lines[self.slot_at:self.slot_at] = [
            f"  {p} = alloca i64, i64 {1 if s in self.scalar_sites else self.nthreads}, align 64"
            for s, ps in self.slots.items() for p in ps
        ]
        self.lines[self.slot_at:self.slot_at] = [
            f"  {p} = alloca {ty}, i64 {self.nthreads}, align 64" for p, ty in self.record_slots
        ]
        if self.record_slots:  # any lane of the thread loop deferred a record
            self.lines[failkey_at:failkey_at] = [
                "  %anyrecord = alloca i8, align 1",
                "  store i8 0, ptr %anyrecord, align 1",
            ]
        for key in sorted(self.keys):  # the keys of checks recorded without a branch
            self.lines[failkey_at:failkey_at] = [
                f"  {key} = alloca i64, align 8",
                f"  store i64 9223372036854775807, ptr {key}, align 8",
            ]

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
        the site's own `%failkey.<site>`, the smallest key of the loop (a min LLVM keeps as a
        vector reduction: with two sites' mins chained on one key, a loop of two checked
        loads ran scalar), when `ok` is false, and its index into the lane's slot of the site's slot
        arrays, always (a plain vector store). After the loop, `_flush_checks` reports the
        smallest key with its lane's slots. A site in a loop inside the thread loop's body
        would overwrite its slots before the flush: those keep the failure branch (`_fail`)."""
        site = self._site(op)
        lane = self._lane(op.attrs.get("lane_offset", (0, 0)))
        tid = self.inst(f"add i64 {self.inst(f'mul i64 %b, {self.nthreads}')}, {lane}")
        key = self.inst(f"or i64 {self.inst(f'shl i64 {tid}, {SITE_BITS}')}, {site}")
        cand = self.inst(f"select i1 {ok}, i64 9223372036854775807, i64 {key}")
        acc = f"%failkey.{site}"
        self.keys.add(acc)
        cur = self.inst(f"load i64, ptr {acc}, align 8")
        low = self.inst(f"call i64 @llvm.smin.i64(i64 {cur}, i64 {cand})")
        self.decls.add("declare i64 @llvm.smin.i64(i64, i64)")
        self.emit(f"store i64 {low}, ptr {acc}, align 8")
        slots = self.slots.setdefault(site, [f"%fslot{site}.{d}" for d in range(len(idx))])
        md = self._access_md()
        for p, x in zip(slots, idx):
            at = self.inst(f"getelementptr i64, ptr {p}, i64 {lane}")
            self.emit(f"store i64 {x}, ptr {at}, align 8{md}")
        self.loop_checks[-1][site] = (op, shape, acc)

    def _note_failure_scalar(self, op: Op, idx: list[str], shape: list[str]) -> None:
        """A kept check's failure path directly in the body of a thread loop LLVM keeps
        scalar (an atomic or a print in it: a histogram's `smem[bin]`), without a call: a call
        in a loop keeps LLVM from unrolling it (the histogram's loop ran unrolled 4x unchecked
        and not at all with `@simt.fail.at` in it). The access's key goes into `%failkey` as
        in `_note_failure`, and where it is the smallest so far its index into the site's
        slots (one index a dimension: LLVM keeps them in registers); after the loop,
        `_flush_checks` reports it. A failing thread's later failures in the loop have the
        same key or a larger one, so the failure reported is the one `_fail` would report."""
        site = self._site(op)
        tid = self._thread_id(op.attrs.get("lane_offset", (0, 0)))
        key = self.inst(f"or i64 {self.inst(f'shl i64 {tid}, {SITE_BITS}')}, {site}")
        self.keys.add("%failkey")
        cur = self.inst("load i64, ptr %failkey, align 8")
        less = self.inst(f"icmp slt i64 {key}, {cur}")
        self.emit(f"store i64 {self.inst(f'select i1 {less}, i64 {key}, i64 {cur}')}, "
                  "ptr %failkey, align 8")  # fmt: skip
        slots = self.slots.setdefault(site, [f"%fslot{site}.{d}" for d in range(len(idx))])
        self.scalar_sites.add(site)
        for p, x in zip(slots, idx):
            old = self.inst(f"load i64, ptr {p}, align 8")
            self.emit(f"store i64 {self.inst(f'select i1 {less}, i64 {x}, i64 {old}')}, "
                      f"ptr {p}, align 8")  # fmt: skip
        self.loop_checks[-1][site] = (op, shape, "%failkey")

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
        go = self.counted_condition(t, iv, stop, step, loop.attrs.get("sign", 0))
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

    def _flush_checks(self, checks: dict[int, tuple[Op, list[str], str]]) -> None:
        """After a thread loop with `_note_failure` or `_note_failure_scalar` checks: if one
        failed, the smallest key of the loop's keys, with its index and extents, to the context
        (`@simt.fail.at`, out of line), and the keys empty again."""
        keys = list(dict.fromkeys(acc for _, _, acc in checks.values()))
        k = self.inst(f"load i64, ptr {keys[0]}, align 8")
        if len(keys) > 1:
            self.decls.add("declare i64 @llvm.smin.i64(i64, i64)")
        for acc in keys[1:]:
            k = self.inst(f"call i64 @llvm.smin.i64(i64 {k}, i64 "
                          f"{self.inst(f'load i64, ptr {acc}, align 8')})")  # fmt: skip
        none = self.inst(f"icmp eq i64 {k}, 9223372036854775807")
        flush, done = self.new_label("flush"), self.new_label("flushed")
        self.emit(f"br i1 {none}, label %{done}, label %{flush}, !prof {self._likely()}")
        self.start(flush)
        for acc in keys:
            self.emit(f"store i64 9223372036854775807, ptr {acc}, align 8")
        tid = self.inst(f"ashr i64 {k}, {SITE_BITS}")
        lane = self.inst(f"sub i64 {tid}, {self.inst(f'mul i64 %b, {self.nthreads}')}")
        site = self.inst(f"and i64 {k}, {(1 << SITE_BITS) - 1}")
        self.helpers["simt.fail.at"] = FAIL_AT
        for s, (_, shape, _) in checks.items():
            this, other = self.new_label("report"), self.new_label("notsite")
            self.emit(f"br i1 {self.inst(f'icmp eq i64 {site}, {s}')}, label %{this}, "
                      f"label %{other}")  # fmt: skip
            self.start(this)
            idx = []
            for p in self.slots[s]:
                at = p if s in self.scalar_sites else self.inst(
                    f"getelementptr i64, ptr {p}, i64 {lane}")  # fmt: skip
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

