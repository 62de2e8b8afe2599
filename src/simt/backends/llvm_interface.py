"""The CPU kernel's interface as the LLVM renderer writes it (`KernelInterface`): the prologue
that reads the argument slots (`llvm_abi.arg_layout`: the launch shape, each scalar, each
array's pointer, shape and strides), the block index of the block being run, where the
kernel's own arrays live (constant tables as globals; per-block and per-lane arrays on the
stack while small, else in one `malloc`ed area), and the rules of the ops that read them
(`special`, `shape`, `alloc`). `backends/llvm.py` builds the kernel renderer on it.
"""

from __future__ import annotations

from typing import ClassVar

from ..ir import Function, Op
from ..types import CONST, ArrayType
from .llvm_abi import NO_MEMORY, STACK_BYTES, Meta, align, arg_layout, llvm_type, mem_type
from .llvm_ops import OpRenderer


class KernelInterface(OpRenderer):
    """The kernel's arguments, indices and arrays (see the module doc), over the scalar ops."""

    RULES: ClassVar[dict[str, str]] = {
        **OpRenderer.RULES, "special": "_op_special", "shape": "_op_shape",
        "alloc": "_op_alloc",
    }  # fmt: skip

    def __init__(
        self, fn: Function, unit_stride: frozenset[str], block: tuple[int, int, int] | None
    ) -> None:
        super().__init__()
        self.fn = fn
        self.block = block  # the block shape when known at compile time
        self.unit = unit_stride  # arrays whose last stride is 1
        self.arrays: dict[int, tuple[str, list[str], list[str]]] = {}  # ptr, shape, strides
        self.lane_arrays: set[int] = set()  # per-lane arrays (`spmd`): the lane indexes first
        self.meta = Meta(layout=arg_layout(fn))
        self.heap: str | None = None  # the malloc'ed area of the large arrays, if any
        self.heap_at = 0  # the line after its malloc
        self.slot_at = 0  # where the entry block declares the checks' slot arrays
        self.tables: dict[int, str] = {}  # the constant tables' globals by alloc op id
        self.lane_stack: list[tuple[str, str, str, str]] = []  # tx, ty, tz, access group

    def _slot(self, k: int, ty: str = "i64") -> str:
        p = self.inst(f"getelementptr i64, ptr %args, i64 {k}")
        return self.inst(f"load {ty}, ptr {p}, align 8")

    def _prologue(self, arrays: bool = True) -> None:
        """Read the launch's dimensions and the parameters from `%args`; with `arrays`, also
        place the kernel's own arrays (per block, per lane, tables)."""
        dims = [self._slot(k) for k in range(6)]
        self.grid64 = dims[:3]
        # a block shape known when compiling gives LLVM constant thread-loop trip counts
        self.block64 = [str(b) for b in self.block] if self.block else dims[3:]
        self.grid32 = [self.inst(f"trunc i64 {d} to i32") for d in self.grid64]
        self.block32 = [self.inst(f"trunc i64 {d} to i32") for d in self.block64]
        n = self.inst(f"mul i64 {self.block64[0]}, {self.block64[1]}")
        self.nthreads = self.inst(f"mul i64 {n}, {self.block64[2]}")
        self.nthreads32 = self.inst(f"trunc i64 {self.nthreads} to i32")
        self.slot_at = len(self.lines)
        for p, slot in zip(self.fn.params, self.meta.layout):
            t = p.value.type
            if isinstance(t, ArrayType):
                ptr = self._slot(slot, "ptr")
                shape = [self._slot(slot + 1 + d) for d in range(t.ndim)]
                strides = [self._slot(slot + 1 + t.ndim + d) for d in range(t.ndim)]
                if p.name in self.unit and t.ndim:
                    strides[-1] = "1"
                self.arrays[p.value.id] = (ptr, shape, strides)
            else:
                self.vals[p.value.id] = self._slot(slot, mem_type(t))
                if t.is_bool:
                    self.vals[p.value.id] = self.inst(f"trunc i8 {self.vals[p.value.id]} to i1")
        if not arrays:
            return
        # per-block and per-lane arrays, reused by every block this call runs: on the stack
        # while they are small, else in one heap area (a block of 1024 threads with a local
        # array of 4096 floats needs 16 MiB: more than a thread's stack)
        on_heap: list[tuple[Op, str]] = []  # alloc, its element count
        stack = 0
        for op in self.fn.body.ops:
            if op.opcode != "alloc":
                continue
            t = op.result.array
            assert t.shape is not None
            if t.space == CONST:  # a table: a constant global, shared by every block
                self._place(op, self._table(op))
                continue
            inner = 1
            for d in t.shape[1:]:
                inner *= d
            mt = mem_type(t.dtype)
            if op.attrs.get("lane") and self.block is not None:
                count = str(self.block[0] * self.block[1] * self.block[2] * inner)
            elif op.attrs.get("lane"):
                count = self.inst(f"mul i64 {self.nthreads}, {inner}")
            else:
                count = str(inner * t.shape[0])
            size = int(count) * align(t.dtype) if count.isdigit() else None
            if size is not None and stack + size <= STACK_BYTES:
                stack += size
                self._place(op, self.inst(f"alloca {mt}, i64 {count}, align 64"))
            else:
                on_heap.append((op, count))
        if on_heap:
            self._heap(on_heap)

    def _place(self, op: Op, ptr: str) -> None:
        """Index `op`'s array (an alloc) at `ptr`, C order."""
        if op.attrs.get("lane"):  # a per-lane array: its first index is the lane's
            self.lane_arrays.add(op.result.id)
        t = op.result.array
        assert t.shape is not None
        strides, acc = [], 1
        for d in reversed(t.shape):
            strides.append(str(acc))
            acc *= d
        self.arrays[op.result.id] = (ptr, [str(d) for d in t.shape], strides[::-1])

    def _table(self, op: Op) -> str:
        """The constant global holding table `op`'s elements; its name."""
        made = self.tables.get(id(op))
        if made is not None:  # (both copies of a versioned body read it)
            return made
        t = op.result.array
        # numbered in the kernel (not by the value's process-wide id): the same kernel renders
        # the same text, which the compiled-object cache is keyed by
        name = self.tables[id(op)] = f"@simt.table.{len(self.tables)}"
        mt = mem_type(t.dtype)
        items = ", ".join(
            f"{mt} {self.const(x, t.dtype) if not t.dtype.is_bool else int(x)}"
            for x in op.attrs["data"]
        )
        n = len(op.attrs["data"])
        self.decls.add(f"{name} = private unnamed_addr constant [{n} x {mt}] [{items}], align 64")
        return name

    def _heap(self, arrays: list[tuple[Op, str]]) -> None:
        """One `malloc`ed area for `arrays`, each at a 64-byte aligned offset; freed when the
        entry returns. No memory: the error word says so (`NO_MEMORY`) and the entry returns."""
        offsets, total = [], "0"
        for op, count in arrays:
            offsets.append(total)
            nbytes = self.inst(f"mul i64 {count}, {align(op.result.array.dtype)}")
            padded = self.inst(f"add i64 {nbytes}, 63")
            padded = self.inst(f"and i64 {padded}, -64")
            total = self.inst(f"add i64 {total}, {padded}")
        self.decls.add("declare noalias ptr @malloc(i64)")
        self.decls.add("declare void @free(ptr)")
        self.heap = self.inst(f"call ptr @malloc(i64 {total})")
        self.heap_at = len(self.lines)  # where `render` tells the entry this address
        failed = self.inst(f"icmp eq ptr {self.heap}, null")
        oom, ok = self.new_label("nomemory"), self.new_label("memory")
        self.emit(f"br i1 {failed}, label %{oom}, label %{ok}")
        self.start(oom)
        self.emit(f"atomicrmw min ptr %ctx, i64 {NO_MEMORY} monotonic, align 8")
        self.emit("ret void")
        self.start(ok)
        for (op, _), off in zip(arrays, offsets):
            self._place(op, self.inst(f"getelementptr inbounds i8, ptr {self.heap}, i64 {off}"))

    def _block_index(self) -> None:
        gx, gy = self.grid64[0], self.grid64[1]
        bx = self.inst(f"urem i64 %b, {gx}")
        q = self.inst(f"udiv i64 %b, {gx}")
        by = self.inst(f"urem i64 {q}, {gy}")
        bz = self.inst(f"udiv i64 {q}, {gy}")
        self.bidx = [self.inst(f"trunc i64 {x} to i32") for x in (bx, by, bz)]

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

    def _access_md(self) -> str:
        if self.lane_stack and self.lane_stack[-1][3]:
            return f", !llvm.access.group {self.lane_stack[-1][3]}"
        return ""

    def _op_special(self, op: Op) -> None:
        reg, axis = op.attrs["reg"], op.attrs["axis"]
        if reg == "block_idx":
            self.vals[op.result.id] = self.bidx[axis]
        elif reg == "block_dim":
            self.vals[op.result.id] = self.block32[axis]
        elif reg == "grid_dim":
            self.vals[op.result.id] = self.grid32[axis]
        else:
            raise AssertionError("thread_idx left after SPMD lowering")

    def _op_shape(self, op: Op) -> None:
        arr = op.operands[0]
        _, shape, _ = self.arrays[arr.id]
        s = shape[op.attrs["dim"]]
        it = llvm_type(op.result.scalar)
        self.vals[op.result.id] = (
            s if s.isdigit() or it == "i64" else self.inst(f"trunc i64 {s} to {it}")
        )

    def _op_alloc(self, op: Op) -> None:
        pass  # made in the prologue
