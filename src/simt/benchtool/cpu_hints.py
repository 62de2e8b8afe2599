"""The advisor's CPU-specific findings: what in a kernel will run badly on the `cpu` backend
for a reason the user can change, read from the kernel's SPMD-lowered IR.

- `masked-branch`: a branch inside a thread loop whose condition depends on the thread index
  in a way that is not a range of threads (`tid % (2 * s) == 0`, Harris's interleaved
  reduction) and that reads or writes memory: every thread of the block runs it under a
  mask. Conditions that compare `thread_idx + uniform` with a uniform value become lane ranges
  (`passes/lane_ranges.py`) and are never flagged; conditions on loaded data are the
  algorithm's and are not flagged either.
- `global-atomic`: an atomic on a global array in a thread loop: a locked read-modify-write
  per thread, and a thread loop that stays scalar; per-block counts in shared memory (plain
  on the CPU) added once per block are the fix.
- `scalar-math`: `exp`, `log`, `sin`, `cos`, `tanh`, `erf` or `pow` (`**` too) on float64
  values: one C library call per thread, while their float32 versions are vectorised.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from ..builtins import MATH
from ..ir import Function, Op, Value, walk
from ..passes.lane_ranges import affine_offsets
from ..types import FLOAT64, SHARED
from .cost import math_row


def _x_loops(fn: Function) -> Iterator[Op]:
    for op in walk(fn.body):
        if op.opcode == "for" and op.attrs.get("lanes") in ("x", "xs"):
            yield op


def _line(op: Op) -> int:
    if op.loc is not None:
        return op.loc.line
    for r in op.regions:
        for o in walk(r):
            if o.loc is not None:
                return o.loc.line
    return 0


def _lane_condition(v: Value, iv: Value, defs: dict[int, Op]) -> bool:
    """Whether `v` is computed from the thread loop's index and loop-invariant values only,
    and does use the index (no memory read on the way)."""
    seen: set[int] = set()
    uses_iv = False

    def ok(x: Value) -> bool:
        nonlocal uses_iv
        if x is iv:
            uses_iv = True
            return True
        d = defs.get(x.id)
        if d is None or x.id in seen:
            return True  # defined outside the loop (or already checked)
        seen.add(x.id)
        if d.opcode in ("load", "atomic", "cas", "if", "for", "while"):
            return False
        return all(ok(o) for o in d.operands)

    if not (ok(v) and uses_iv):
        return False
    d = defs.get(v.id)
    if d is not None and d.opcode == "cmp":  # `tx + c < n`: a range of lanes, not a mask
        a, b = d.operands
        inner = {k: o for k, o in defs.items()}
        if (affine_offsets(a, iv, inner) is not None and b.id not in inner) or (
            affine_offsets(b, iv, inner) is not None and a.id not in inner
        ):
            return False
    return True


def hints(lowered: Function, lines: dict[int, int] | None = None) -> list[tuple[str, int, str]]:
    """(kind, line, message) for each finding in SPMD-lowered `lowered`, one per kind and
    line; `lines` maps `id()` of an `if` op to the line of its condition (the lowering
    recomputes conditions in each thread loop, without their source lines)."""
    lines = lines or {}
    out: dict[tuple[str, int], str] = {}
    # simt's own arrays (the failure records of raising threads, the per-thread heap): their
    # atomics are not the user's to move
    hidden = {p.value.id for p in lowered.params if p.hidden is not None}
    for loop in _x_loops(lowered):
        body = loop.regions[0]
        iv = body.args[0]
        defs = {r.id: o for o in walk(body) for r in o.results}
        for op in walk(body):
            if op.opcode == "if" and _lane_condition(op.operands[0], iv, defs):
                if any(o.opcode in ("load", "store") and not o.attrs.get("spill")
                       for r in op.regions for o in walk(r)):  # fmt: skip
                    line = lines.get(id(op)) or _line(op)
                    out.setdefault(("masked-branch", line), (
                        f"line {line}: this branch depends on the thread index in a way that "
                        "is not a range of threads (such as `tid % (2 * s) == 0`), so on the "
                        "CPU every thread of the block runs it under a mask. Choose the active "
                        "threads as a range instead (`if tid < s: sh[tid] += sh[tid + s]`, "
                        "sequential addressing): a range runs only its own threads, "
                        "vectorised."))  # fmt: skip
            elif (op.opcode in ("atomic", "cas") and op.operands[0].array.space != SHARED
                  and op.operands[0].id not in hidden):  # fmt: skip
                line = _line(op)
                out.setdefault(("global-atomic", line), (
                    f"line {line}: an atomic on the global array from every thread: on the CPU "
                    "each is a locked read-modify-write and the thread loop stays scalar. "
                    "Accumulate per block in a simt.shared.array (atomics there are plain "
                    "memory operations on the CPU) and add each block's result to the global "
                    "array once, after a syncthreads()."))  # fmt: skip
            elif ((row := math_row(op)) is not None and MATH[row].llvm_f32 is not None
                  and op.operands[0].type == FLOAT64):  # fmt: skip
                line = _line(op)
                what = f"math.{row}" if op.opcode == "math" else "** of floats"
                out.setdefault(("scalar-math", line), (
                    f"line {line}: {what} on float64 values is one C library "
                    "call per thread on the CPU; on float32 values it is vectorised (and "
                    "correctly rounded but for 1 input in 10^6). Use float32 data (or "
                    "simt.float32(x)) where float32 precision will do."))  # fmt: skip
    return [(k, line, msg) for (k, line), msg in out.items()]


def cpu_hints(kernel: Any, args: Any, kwargs: dict[str, Any]) -> list[tuple[str, int, str]]:
    """The findings for a launch of `kernel` with `args` on the cpu backend."""
    from ..passes.barriers import lift
    from ..passes.spmd import lower as spmd_lower
    from ..passes.warps import lower as lower_warps

    fn, _ = kernel.specialised_ir(*args, **kwargs)
    # as a cpu launch lowers it: warp functions through shared memory, barriers lifted
    fn = lift(lower_warps(copy.deepcopy(fn)))
    defs = {r.id: o for o in walk(fn.body) for r in o.results}
    lines = {}
    for op in walk(fn.body):
        cond = defs.get(op.operands[0].id) if op.opcode == "if" else None
        if cond is not None and cond.loc is not None:
            lines[id(op)] = cond.loc.line
    return hints(spmd_lower(fn), lines)


__all__ = ["cpu_hints", "hints"]
