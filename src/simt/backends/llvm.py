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

Ctrl-C inside a block: every loop that could run long (a `while`, unless it halves a positive
counter each time round around only thread loops: `_halving`; a `for` whose trip count is
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

A body versioned on a block-level test (`passes.bounds`: `if <test>: <a copy with the hoisted
accesses unchecked> else: <the checked body>`, at the top of the kernel: `outlined_version`) is
rendered as two functions of blocks, each with the prologue and block loop above, `simt_fast`
(the unchecked copy) and `simt_checked` (the checked copy), and a third function,
`simt_block_test`, the test of one block. The entry (or the body, when loops poll) is the loop
between them (`llvm_helpers.VERSIONED_BLOCKS`): it tests blocks one after another (the test
inlined there: a few integer operations a block), gives each run of blocks that pass to
`simt_fast` in one call and each block that fails to `simt_checked`. So the copy nearly every
block runs is compiled as a function of its own, with no test in it: the unchecked kernel's
code, registers and layout. With both copies in one block loop, harris_reduce2
(`bench/user_kernels/reductions.py`) ran 1.2-1.45x the time of the unchecked kernel, though
every block took the unchecked copy with the same instructions; with the test inside
`simt_fast`, harris_reduce4 ran 1.05-1.14x (the test's operands live across its block loop),
1.00x with the test in the entry (#23). A failing block costs two calls and a prologue more.

The renderer is a table (`RULES`) over a chain of bases, one job each:
`llvm_ops.OpRenderer` writes the scalar ops (operators, comparisons, conversions, math rows:
docs/semantics.md's semantics) and the text; `llvm_interface.KernelInterface` the kernel's
interface (the prologue reading `args`, block and lane indices, where the kernel's own arrays
live); `llvm_failures.FailureRecords` what a failing thread leaves for the host (error sites,
the failure path, a thread loop's branch-free checks and deferred exception records);
`llvm_memory.MemoryAccess` loads, stores and atomics with their bounds checks. Here are the
entry around the blocks, prints and control flow (loops, their Ctrl-C polls and metadata).
"""

from __future__ import annotations

from typing import ClassVar

from ..ir import Block, Function, Op, Value, walk
from ..ir.ops import PURE
from ..types import INT64
from .llvm_abi import (
    BLOCK_TEST,
    BODY,
    CHECKED,
    CHECKED_THREADS,
    ENTRY,
    FAST,
    JMP_WORDS,
    NO_MEMORY,
    POLL_EVERY,
    POLL_FREE_TRIPS,
    POLL_FUNCTION,
    SITE_BITS,
    Meta,
    align,
    llvm_type,
    mem_type,
)
from .llvm_failures import SCALAR_LOOP, VECTOR_LOOP, walk_ops
from .llvm_helpers import ENTRY_WITH_JUMP, VERSIONED_BLOCKS
from .llvm_memory import MemoryAccess

# the parameters of every function of blocks (an entry, a body, a versioned body's copy)
ARGS = "ptr noalias %args, ptr noalias %ctx, i64 %begin, i64 %end"


def outlined_version(fn: Function) -> Op | None:
    """The `if` that versions `fn`'s body on a block-level test (`passes.bounds`), when its
    two copies are rendered as two functions: it is at the top, yields nothing, only pure
    ops and arrays come before it (what both copies may compute again), and its test reads
    none of the kernel's own arrays (`block_test_ops`)."""
    for op in fn.body.ops:
        if op.opcode == "if" and op.attrs.get("version") and not op.results:
            return op if block_test_ops(fn, op) is not None else None
        if op.opcode != "alloc" and op.opcode not in PURE:
            return None
    return None


def block_test_ops(fn: Function, version: Op) -> list[Op] | None:
    """The ops before `version` (an `if` at the top of `fn`'s body) that its test is computed
    from, in order; None when one is an array of the kernel's own (the test of one block is
    rendered without them: `BLOCK_TEST`)."""
    ops = fn.body.ops[: next(i for i, op in enumerate(fn.body.ops) if op is version)]
    need = {v.id for v in version.operands}
    used: list[Op] = []
    for op in reversed(ops):
        if any(r.id in need for r in op.results):
            if op.opcode == "alloc":
                return None
            used.append(op)
            need.update(v.id for v in op.operands)
    return used[::-1]


class _Renderer(MemoryAccess):
    """LLVM IR text of an SPMD-lowered kernel; ops dispatch through `RULES` (`ir.rules.Rules`)."""

    RULES: ClassVar[dict[str, str]] = {
        **MemoryAccess.RULES, "print": "_print", "if": "_if", "for": "_for",
        "while": "_while", "barrier": "_op_barrier", "fence": "_op_fence",
    }  # fmt: skip

    def __init__(
        self, fn: Function, unit_stride: frozenset[str], bounds: bool,
        block: tuple[int, int, int] | None = None, poll: bool = True,
    ) -> None:  # fmt: skip
        super().__init__(fn, unit_stride, bounds, block)
        self.poll = poll  # loops poll for Ctrl-C (see the module's doc)
        self.polled = False  # some loop polls (then the module declares the poll function)
        self.unlikely = ""  # the branch-weights node of the polls' cold branches
        # inside the checked copy of a versioned body (`passes.bounds`: the `else` of the `if`
        # marked `version`, run only by blocks that fail the block-level test): its loops are
        # neither vectorised nor unrolled (see `_if`)
        self.cold = 0
        # the copy of a versioned body the function being rendered is (`_blocks`), and per
        # copy its heap area's name
        self.side: str | None = None
        self.heap_of: dict[str | None, str] = {}

    # ---- module --------------------------------------------------------------------------
    def render(self) -> tuple[str, Meta]:
        version = outlined_version(self.fn)
        if version is None:
            functions = [self._blocks(None)]
        else:  # the unchecked copy first: it says whether the kernel has jammed loops
            functions = [self._blocks("fast"), self._blocks("checked")]
        jb, jbarg = (", ptr noalias %jb", ", ptr %jb") if self.polled else ("", "")
        lines: list[str] = []
        for side, text, heap_at in functions:
            if side is None:
                text[0] = (f"define internal void @{BODY}({ARGS}{jb}) noinline {{" if self.polled
                           else f"define void @{ENTRY}({ARGS}) {{")  # fmt: skip
            else:
                name = FAST if side == "fast" else CHECKED
                text[0] = f"define internal void @{name}({ARGS}{jb}) noinline {{"
            if self.polled and heap_at:  # freed by the entry if Ctrl-C jumps out of the body
                text[heap_at:heap_at] = [
                    f"  %heapslot = getelementptr i64, ptr %jb, i64 {JMP_WORDS}",
                    f"  store volatile ptr {self.heap_of[side]}, ptr %heapslot, align 8",
                ]
            lines += text
        if version is not None:
            lines += self._test_function(version)
            lines.append(VERSIONED_BLOCKS.format(
                linkage="internal " if self.polled else "", name=BODY if self.polled else ENTRY,
                attrs="noinline " if self.polled else "", jb=jb, jbarg=jbarg, fast=FAST,
                checked=CHECKED, test=BLOCK_TEST, site_bits=SITE_BITS, no_memory=NO_MEMORY,
                counter=CHECKED_THREADS,
            ))  # fmt: skip
            self.decls.add(f"@{CHECKED_THREADS} = global i64 0, align 8")
        if self.polled:  # the body gets the jump buffer; the entry is the wrapper with it
            lines.append(ENTRY_WITH_JUMP.format(entry=ENTRY, body=BODY, words=JMP_WORDS,
                                                slots=JMP_WORDS + 1))
            self.decls.add(
                f"declare void @{POLL_FUNCTION}(ptr, ptr) nounwind "
                "memory(argmem: readwrite, inaccessiblemem: readwrite)"
            )
            self.decls.add("declare i32 @_setjmp(ptr) returns_twice")
            self.decls.add("declare void @free(ptr)")
        out = [
            "; simt kernel " + self.fn.name,
            *sorted(self.decls),
            *self.helpers.values(),
            *lines,
            *(f"!{i} = {m}" for i, m in enumerate(self.md)),
        ]
        return "\n".join(out) + "\n", self.meta

    def _blocks(self, side: str | None) -> tuple[str | None, list[str], int]:
        """One function running the blocks `%begin <= b < %end`: the whole body (`side`
        None), or one copy of a body versioned on a block-level test: "fast" the copy the test
        guards, "checked" the checked copy (the entry gives each the blocks it is for:
        `VERSIONED_BLOCKS`). Its text with a placeholder first line (the signature: `render`
        knows it once every function is rendered and it is known whether any loop polls),
        and the line after its heap's `malloc` (0: no heap)."""
        self._fresh_function(side)
        self.lines.append("define")  # (the signature, written by `render`)
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
        # on to the next block unless a failure so far beats any of its threads' (the launch
        # reports the smallest thread's failure: blocks below a failing one still run) or
        # Ctrl-C stopped the launch (`STOPPED`, below every key)
        err = self.inst("load atomic i64, ptr %ctx monotonic, align 8")
        first = self.inst(f"mul i64 %bnext, {self.nthreads}")
        first = self.inst(f"shl i64 {first}, {SITE_BITS}")
        ok = self.inst(f"icmp sge i64 {err}, {first}")
        self.emit(f"br i1 {ok}, label %{head}, label %{done}")
        self.start(done)
        if self.heap is not None:
            self.emit(f"call void @free(ptr {self.heap})")
        self.emit("ret void")
        self.lines.append("}")
        before = len(self.lines)
        self._failure_slots(failkey_at)  # (lines above the heap's `malloc`)
        self.heap_of[side] = self.heap or ""
        heap_at = self.heap_at + len(self.lines) - before if self.heap is not None else 0
        return side, self.lines, heap_at

    def _test_function(self, version: Op) -> list[str]:
        """`BLOCK_TEST`, whether block `%b` passes the block-level test of the versioned body
        (`version`): the ops before it that the test is computed from, with the launch's
        dimensions and the parameters read as the copies read them (`alwaysinline`: the
        entry's loop over blocks computes it in place)."""
        self._fresh_function(None)
        ops = block_test_ops(self.fn, version)
        assert ops is not None  # (`outlined_version` said so)
        self.lines.append(
            f"define internal i1 @{BLOCK_TEST}(ptr noalias %args, i64 %b) alwaysinline {{"
        )
        self.start("entry")
        self._prologue(arrays=False)
        self._block_index()
        for op in ops:
            self._op(op)
        self.emit(f"ret i1 {self.v(version.operands[0])}")
        self.lines.append("}")
        return self.lines

    def _fresh_function(self, side: str | None) -> None:
        """Forget what the last function rendered defined (values, arrays, the checks' slots
        and keys); the module's declarations, helpers, metadata and error sites stay."""
        self.side = side
        self.lines = []
        self.vals = {}
        self.label = "entry"
        self.arrays = {}
        self.lane_arrays = set()
        self.heap = None
        self.heap_at = 0
        self.slot_at = 0
        self.lane_stack = []
        self.zero_products = {}
        self.keys = set()
        self.slots = {}
        self.scalar_sites = set()
        self.record_slots = []
        self.pending = []

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
            elif t.is_signed or t.is_bool:
                x = self.cast(x, t, INT64)
            elif t.bits < 64:  # an unsigned (uint64: its bits as they are)
                x = self.inst(f"zext i32 {x} to i64")
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
        if op.attrs.get("version") and self.side is not None:
            self._version_copy(op)
            return
        if (op.attrs.get("record") and self.loop_kinds and self.loop_kinds[-1] == VECTOR_LOOP
                and id(op) in self.loop_records[-1][0]):  # fmt: skip
            self._defer_record(op)
            return
        keys = self._deferrable(op) if self.lane_stack else {}
        olds: dict[tuple[int, int], str] = {}
        for key, store in keys.items():
            olds[key] = self._pending_value(key) or self._spill_load(store)
        c = self.v(op.operands[0])
        then, other, join = (self.new_label(x) for x in ("then", "else", "endif"))
        # the checked copy of a versioned body (`passes.bounds`) runs only where the block-level
        # test fails (arguments that do not fit, a block whose accesses analysis could not
        # bound): in a kernel with jammed loops (`passes.spmd`: compiled at O2 for its compile
        # time, `runtime.cpu._level`) its loops are neither vectorised nor unrolled. It was
        # ~55 % of the time LLVM took over W6 (naive matmul: ~110 of ~200 ms of CPU, for code
        # its launches never run), now ~40 %; the unchecked copy's inner loop is the same
        # instructions. Not in other kernels: there the unchecked copy's registers came out
        # otherwise, and the row softmax of `simt.tensor` ran 2-5 % slower. (Branch weights
        # saying the copy is cold cost W6's inner loop two reloads from the stack.)
        version = bool(op.attrs.get("version"))
        self.emit(f"br i1 {c}, label %{then}, label %{other}")
        ends = []
        finals = []
        for label, region in ((then, op.regions[0]), (other, op.regions[1])):
            self.start(label)
            if keys:
                self.pending.append(dict(olds))
            cold = version and region is op.regions[1] and self.meta.jammed  # (the unchecked
            # copy, rendered first, has said whether the kernel has jammed loops)
            self.cold += cold
            if version and region is op.regions[1]:  # a block that failed the test
                self.decls.add(f"@{CHECKED_THREADS} = global i64 0, align 8")
                self.inst(f"atomicrmw add ptr @{CHECKED_THREADS}, i64 {self.nthreads} "
                          "monotonic, align 8")  # fmt: skip
            ys = self._region(region)
            self.cold -= cold
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

    def _version_copy(self, op: Op) -> None:
        """The one copy of the versioned body (`outlined_version`) this function runs: the
        unchecked copy or the checked one, unconditionally: the entry gives each function the
        blocks it is for (`VERSIONED_BLOCKS`, by `BLOCK_TEST`)."""
        if self.side == "fast":
            self._region(op.regions[0])
            return
        # its loops are neither vectorised nor unrolled in a kernel with jammed loops (`_if`)
        cold = self.meta.jammed
        self.cold += cold
        self._region(op.regions[1])
        self.cold -= cold

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
        cond = self.counted_condition(t, iv, stop, step, op.attrs.get("sign", 0))
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
        self.loop_kinds.append(VECTOR_LOOP if thread_loop else SCALAR_LOOP if lanes == "x" else 0)
        if lanes == "x":
            self.loop_checks.append({})
        if thread_loop:
            defs = {a.id for a in body.args[1:]}
            defs.update(r.id for o in walk(body) for r in o.results)
            defs.update(a.id for o in walk(body) for r in o.regions for a in r.args)
            made = {o.result.id: o for o in walk(body) if o.opcode in ("select", "const")}
            self.loop_records.append((records, defs, [], made))
        ys = self._region(body)
        self.loop_kinds.pop()
        checks = self.loop_checks.pop() if lanes == "x" else {}
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
        if op.attrs.get("vector") and not self.cold:
            # a reduction over the loop (`tensor.gemm`'s dot micro-kernel): its accumulators
            # become vectors of this many lanes, its float adds reassociated (`reassoc`) —
            # the loop vectoriser's form, one vector load per row and k step, no shuffles
            self.meta.jammed = True
            on = self.mdnode('!{!"llvm.loop.vectorize.enable", i1 true}')
            width = self.mdnode(f'!{{!"llvm.loop.vectorize.width", i32 {op.attrs["vector"]}}}')
            once = self.mdnode('!{!"llvm.loop.interleave.count", i32 1}')
            self_ref = len(self.md)
            md = f", !llvm.loop !{self_ref}"
            self.md.append(f"distinct !{{!{self_ref}, {on}, {width}, {once}}}")
        elif op.attrs.get("jammed") or op.attrs.get("tile") or self.cold:
            # its body is already many lanes wide (SLP makes the vectors): neither vectorise
            # nor unroll it again, which would only multiply compile time (or it is cold)
            if op.attrs.get("jammed") or op.attrs.get("tile"):
                self.meta.jammed = True
            off = self.mdnode('!{!"llvm.loop.vectorize.enable", i1 false}')
            nounroll = self.mdnode('!{!"llvm.loop.unroll.disable"}')
            self_ref = len(self.md)
            md = f", !llvm.loop !{self_ref}"
            self.md.append(f"distinct !{{!{self_ref}, {off}, {nounroll}}}")
        if self.cold:
            pass  # the checked copy of a versioned body: as above, neither vectorised nor unrolled
        elif not lanes and any(o.opcode == "for" and o.attrs.get("lanes") == "z"
                               for o in body.ops):  # fmt: skip
            # a uniform loop around a thread loop (W1's rows): four rows per iteration keep
            # four memory streams in flight (about 12 % on W1)
            uj = self.mdnode('!{!"llvm.loop.unroll.count", i32 4}')
            self_ref = len(self.md)
            md = f", !llvm.loop !{self_ref}"
            self.md.append(f"distinct !{{!{self_ref}, {uj}}}")
        if lanes == "x" and not self.cold:
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

    def _halving(self, op: Op) -> bool:
        """Whether a `while` runs at most 64 times and has no loop inside but thread loops:
        it needs no poll for Ctrl-C (a block's size bounds each time round). That is the
        reduction tree's `while s > 0: ... s >>= 1` (or `s //= 2`): the test is that a
        carried integer `s` is positive (`s > c` with c >= 0, `s >= c` with c >= 1, or
        `s != 0` of an unsigned `s`) and each time round the body yields `s >> k` (k >= 1) or
        `s // k` (k >= 2) of it, which at least halves a positive `s`. Polling there cost
        monte_carlo's reduction 7 % more instructions with bounds checks on (#23): LLVM
        unrolls the tree and merges its polls only while nothing else counts."""
        cond, body = op.regions
        test, step = cond.terminator, body.terminator
        if test is None or step is None or any(
            o.opcode in ("for", "while") and not o.attrs.get("lanes")
            for o in (*walk(cond), *walk(body))
        ):
            return False

        def known(v: Value) -> int | None:
            try:
                return int(self.vals.get(v.id, ""))
            except ValueError:
                return None

        made = {r.id: o for blk in (cond, body) for o in blk.ops for r in o.results}
        cmp = made.get(test.operands[0].id)
        if cmp is None or cmp.opcode != "cmp":
            return False
        a, b = cmp.operands
        o = cmp.attrs["op"]
        flip = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}
        if a.id not in {x.id for x in cond.args}:  # `c < s`: as `s > c`
            a, b, o = b, a, flip.get(o, o)
        c = known(b)
        if a.id not in {x.id for x in cond.args} or c is None or not a.scalar.is_int:
            return False
        positive = ((o == "gt" and c >= 0) or (o == "ge" and c >= 1)
                    or (o == "ne" and c == 0 and not a.scalar.is_signed))  # fmt: skip
        j = [x.id for x in cond.args].index(a.id)
        shrink = made.get(step.operands[j].id) if j < len(step.operands) else None
        if not positive or shrink is None or shrink.opcode != "bin":
            return False
        s, k = shrink.operands
        by = known(k)
        return (s.id == body.args[j].id and by is not None
                and ((shrink.attrs["op"] == "shr" and 1 <= by < 64)
                     or (shrink.attrs["op"] == "floordiv" and by >= 2)))  # fmt: skip

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
        self.loop_kinds.append(0)
        self._ops(cond_blk)
        term = cond_blk.terminator
        assert term is not None
        self.emit(f"br i1 {self.v(term.operands[0])}, label %{loop}, label %{done}")
        self.start(loop)
        for a, c in zip(body.args, carried):
            self.vals[a.id] = c
        ys = self._region(body)
        self.loop_kinds.pop()
        self._back_edge(latch, not self._halving(op))
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
