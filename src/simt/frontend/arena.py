"""The per-thread arena: a bounded heap for values that grow at run time (lists).

Each element type a kernel's growable values use has a hidden kernel parameter, a 1-D array
of `threads x words` elements (`words = heap // itemsize`; `heap` is the bytes each thread
has per element type: `@simt.kernel(heap=N)`) that the launch allocates, zeroed. A thread's
region of it starts at `linear thread id x words` (the id `PrintRecord.thread` uses).

The int32 region's first `RESERVED` words are bookkeeping: word `slot(t)` counts the elements
of type `t` in use (a bump pointer; zero, as the launch leaves it, means empty), and words
`DUMMY..DUMMY+2` are a list header that stays empty, handed out when a header cannot be
allocated. Allocation moves the bump pointer up; memory comes back when the thread ends (a
scratch value that nothing refers to is given back at once: `release`).

Every offset an allocation returns lies inside the thread's region, even when it fails (a
failed allocation returns a zero-length block; the caller raises `MemoryError`), so no arena
access leaves the region whatever the user's program does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import types as T
from ..ir import Block, Builder, Param, Value
from ..ir.nodes import Hidden, heap_words

DEFAULT_HEAP = 1024  # bytes per thread and element type; docs/language.md, "Lists"
MIN_HEAP = 128
RESERVED = 16  # int32 words of bookkeeping at the start of a thread's int32 region
DUMMY = 12  # the always-empty list header (3 words) inside the reserved words
SINK = 15  # a reserved word no value lives in: a failed one-word allocation's (frontend/files)
PARAM_PREFIX = "__simt_heap_"  # hidden parameters are named `__simt_heap_<dtype>`
# the element types a growable value may hold, in slot order (slot k counts type k's elements)
TYPES = (T.INT32, T.FLOAT32, T.INT64, T.FLOAT64, T.UINT32, T.UINT64, T.BOOL, T.UINT8)


@dataclass
class Arena:
    """The arena state of one specialisation: the hidden parameters made so far and the
    per-thread region starts, whose ops go into `prologue` (put first in the kernel)."""

    heap: int
    params: dict[T.Scalar, Value] = field(default_factory=dict)
    bases: dict[T.Scalar, Value] = field(default_factory=dict)
    prologue: Block = field(default_factory=Block)
    linear: Value | None = None
    # the offset of the staged files' block from this thread's region (`frontend/files.py`)
    files: Value | None = None

    # -- the hidden parameters and each thread's region -------------------------------------
    def array(self, b: Builder, t: T.Scalar) -> tuple[Value, Value]:
        """The hidden array of element type `t` and the start of this thread's region."""
        if t not in self.params:
            self.params[t] = Value(T.ArrayType(t, 1), f"{PARAM_PREFIX}{t.name}")
            saved = b.loc
            b.loc = None
            with b.at(self.prologue):
                if self.linear is None:
                    self.linear = _linear_id(b)
                per_thread = b.const(heap_words(t, self.heap), T.INT32)
                self.bases[t] = b.bin("mul", self.linear, per_thread)
            b.loc = saved
            if t != T.INT32:
                self.array(b, T.INT32)  # the bump pointers live there
        return self.params[t], self.bases[t]

    def hidden_params(self) -> list[Param]:
        """The hidden parameters, int32 first (after the kernel's own, in this order)."""
        order = sorted(self.params, key=TYPES.index)
        return [Param.made(Hidden.ARENA, self.params[t]) for t in order]

    # -- loads and stores at offsets into this thread's region ------------------------------
    # (their ops' `arena` attribute: True, or "count" for a bump pointer's word, which only
    # `top` and `alloc` read and write, at a constant offset: `passes.forward` relies on no
    # other access reaching those words)
    def load(self, b: Builder, t: T.Scalar, off: Value, count: bool = False) -> Value:
        arr, base = self.array(b, t)
        mark = "count" if count else True
        return b.op("load", [arr, b.bin("add", base, off)], [t], arena=mark).result

    def store(self, b: Builder, t: T.Scalar, off: Value, v: Value, count: bool = False) -> None:
        arr, base = self.array(b, t)
        b.op("store", [arr, b.bin("add", base, off), v], arena="count" if count else True)

    # -- allocation ---------------------------------------------------------------------------
    def top(self, b: Builder, t: T.Scalar) -> Value:
        """The offset the next allocation of type `t` would return."""
        self.array(b, t)
        top = self.load(b, T.INT32, b.const(TYPES.index(t), T.INT32), count=True)
        return b.bin("add", top, b.const(RESERVED, T.INT32)) if t == T.INT32 else top

    def free(self, b: Builder, t: T.Scalar) -> Value:
        """How many elements of type `t` the thread has left."""
        end = b.const(heap_words(t, self.heap), T.INT32)
        return b.bin("sub", end, self.top(b, t))

    def alloc(self, b: Builder, t: T.Scalar, n: Value) -> tuple[Value, Value]:
        """Take `n` (an int32 >= 0) elements of type `t`: (their offset in the region, ok).
        When the thread has too few left, `ok` is False (the caller raises MemoryError) and
        the offset is that of an empty block, still inside the region."""
        self.array(b, t)
        slot = b.const(TYPES.index(t), T.INT32)
        top = self.load(b, T.INT32, slot, count=True)
        new = b.bin("add", top, n)
        first = RESERVED if t == T.INT32 else 0
        limit = b.const(heap_words(t, self.heap) - first, T.INT32)
        ok = b.bin("and", b.cmp("le", new, limit), b.cmp("ge", new, top))
        self.store(b, T.INT32, slot, b.select(ok, new, top), count=True)
        at = b.bin("add", top, b.const(first, T.INT32)) if first else top
        return b.select(ok, at, b.const(0 if t != T.INT32 else DUMMY, T.INT32)), ok

    def mark(self, b: Builder, t: T.Scalar) -> Value:
        """The bump pointer of type `t` now, for `release` to give back what is taken after."""
        self.array(b, t)
        return self.load(b, T.INT32, b.const(TYPES.index(t), T.INT32), count=True)

    def release(self, b: Builder, t: T.Scalar, mark: Value, cond: Value) -> None:
        """Where `cond` holds, give back every element of type `t` taken since `mark` (a
        scratch value no other value refers to: the path an `open` looked up)."""
        slot = b.const(TYPES.index(t), T.INT32)
        now = self.load(b, T.INT32, slot, count=True)
        self.store(b, T.INT32, slot, b.select(cond, mark, now), count=True)

    def exhausted(self, t: T.Scalar, what: str) -> str:
        """The MemoryError message of `what` running out of type `t`'s region."""
        return (
            f"out of per-thread heap: {what} needs more than the {self.heap} bytes each thread "
            f"has for {t.name} values; give it more with @simt.kernel(heap=N) (in the REPL: "
            "%heap N) or keep fewer"
        )


def _linear_id(b: Builder) -> Value:
    """The launch-wide linear thread id: block linear id x threads per block + thread
    linear id (x fastest), as the runtimes number threads."""
    tx, ty, tz = (b.special("thread_idx", k) for k in range(3))
    bx, by, bz = (b.special("block_idx", k) for k in range(3))
    dx, dy, dz = (b.special("block_dim", k) for k in range(3))
    gx, gy = (b.special("grid_dim", k) for k in range(2))
    block = b.bin("add", b.bin("mul", b.bin("add", b.bin("mul", bz, gy), by), gx), bx)
    per_block = b.bin("mul", b.bin("mul", dx, dy), dz)
    thread = b.bin("add", b.bin("mul", b.bin("add", b.bin("mul", tz, dy), ty), dx), tx)
    return b.bin("add", b.bin("mul", block, per_block), thread)
