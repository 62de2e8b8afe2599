"""The CPU kernel's binary interface: what the LLVM renderer and the CPU runtime agree on.

The entry `void @simt_run(ptr %args, ptr %ctx, i64 %begin, i64 %end)` runs the blocks with
linear ids `begin <= b < end`. `args` is an array of 8-byte slots (`arg_layout`): grid x, y,
z, block x, y, z, then per parameter either one scalar slot or an array's data pointer, its
shape and its strides (in elements). `ctx` holds the error word, the print record counter,
the print buffer's capacity and address, the failing access's record (`ERROR_RECORD`) and the
count of Ctrl-C at the launch's start (`INTERRUPT_WORD`). `Meta` is what the runtime needs
besides the module text. See `backends/llvm.py`'s doc for how the entry uses them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..ir import Function, Op
from ..types import ArrayType, Scalar

SITE_BITS = 20
ENTRY = "simt_run"
BODY = "simt_blocks"  # the body of an entry that polls for Ctrl-C (see the module's doc)
# a body versioned on a block-level test (`passes.bounds`) is two functions of blocks, the copy
# whose hoisted accesses are unchecked and the checked copy, and the test of one block, which
# says which of the two runs it (see `backends.llvm`)
FAST = "simt_fast"
CHECKED = "simt_checked"
BLOCK_TEST = "simt_block_test"
# a module global of a kernel with a versioned body: how many threads (a block's threads per
# block) its launches have run through the checked copy, over every launch of that compiled
# variant (`CpuRuntime.checked_threads`); a few instructions per failing block, none per
# passing one
CHECKED_THREADS = "simt_checked_threads"
# the error word when the entry could not allocate its per-lane and per-block arrays
NO_MEMORY = 2**63 - 2
# Context words from here: a lock, the key (thread, site) of the failing access recorded,
# its number of dimensions, then RECORD_DIMS index values and RECORD_DIMS extents.
ERROR_RECORD = 4
RECORD_DIMS = 4
# the count of Ctrl-C (`simt_interrupts()`) when the launch started: a different count stops it
INTERRUPT_WORD = ERROR_RECORD + 3 + 2 * RECORD_DIMS
CONTEXT_WORDS = INTERRUPT_WORD + 1
# the error word of a launch stopped by Ctrl-C: below every error code (an atomic `min`)
STOPPED = -1
# loops poll for Ctrl-C every this many back-edges (a power of two), and a `for` with a constant
# trip count up to `POLL_FREE_TRIPS` and no loop inside is not polled at all
POLL_EVERY = 4096
POLL_FREE_TRIPS = 256
POLL_FUNCTION = "simt_poll"
# the entry's jump buffer (`setjmp`) has this many 8-byte words (more than any system's
# jmp_buf), then one word for the address of the block's heap area (freed after a `longjmp`)
JMP_WORDS = 80
# per-lane and per-block arrays up to this many bytes in all live on the stack (a pool
# thread's is 8 MiB); the rest in one area from malloc
STACK_BYTES = 1 << 19
HEADER_SLOTS = 6
CTX_SLOTS = 4


def llvm_type(t: Scalar) -> str:
    """The LLVM register type of a scalar."""
    if t.is_bool:
        return "i1"
    if t.is_float:
        return {16: "half", 32: "float"}.get(t.bits, "double")
    return f"i{t.bits}"


def mem_type(t: Scalar) -> str:
    """The LLVM type of a scalar stored in memory (bool is a byte)."""
    return "i8" if t.is_bool else llvm_type(t)


def arg_layout(fn: Function) -> list[int]:
    """The first slot of each parameter in the `args` array; the last entry is the total."""
    out, slot = [], HEADER_SLOTS
    for p in fn.params:
        out.append(slot)
        t = p.value.type
        slot += 1 + 2 * t.ndim if isinstance(t, ArrayType) else 1
    out.append(slot)
    return out


def align(t: Scalar) -> int:
    """The bytes (and alignment) of a scalar in memory."""
    return 1 if t.is_bool else t.bits // 8

@dataclass
class Meta:
    """What the runtime needs besides the module: prints, error sites, the argument layout."""

    formats: list[Any] = field(default_factory=list)  # parts of each print op
    print_types: list[list[Scalar]] = field(default_factory=list)
    record_slots: int = 2
    # error sites by number: `op.attrs["site"]` (`passes.sites`), or numbered as rendered
    # after the largest of those for an op without one; every copy of an op shares its site
    sites: dict[int, Op] = field(default_factory=dict)
    layout: list[int] = field(default_factory=list)
    # the module has jammed loops (`passes.spmd`): bodies many lanes wide, for which the
    # runtime uses a cheaper optimisation pipeline (see `runtime.cpu`)
    jammed: bool = False

