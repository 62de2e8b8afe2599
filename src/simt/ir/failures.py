"""Which ops can fail at run time (a kernel's error sites), said once for every renderer, the
runtimes that read failures back and the passes that count what a kernel needs to report them
(`passes.legalise`)."""

from __future__ import annotations

from .nodes import Function, Op, walk
from .ops import MEMORY

# An `assert` attribute: the assert checks, after a loop, that the device did not leave the
# loop early (`passes.legalise`'s loop-budget checks); its value is the device's budget of
# loop iterations, and its failure says so.
LOOP_BUDGET = "loop_budget"


def checked(op: Op, bounds: bool) -> bool:
    """Whether access `op` gets a bounds check: a load, store, atomic or cas of a kernel whose
    accesses are checked (`bounds`: `Function.checks_bounds`), unless analysis proved it in
    bounds (`op.attrs["inbounds"]`, set by the proving pass) or it is the CPU lowering's own
    access to a per-lane array (`spill`)."""
    return (
        bounds
        and op.opcode in MEMORY
        and not op.attrs.get("inbounds")
        and not op.attrs.get("spill")
    )


def error_sites(fn: Function, bounds: bool, proven_too: bool = False) -> list[Op]:
    """The ops that can raise a KernelError, in program order: every `assert`, and with
    `bounds` (`fn.checks_bounds`) every load, store and atomic not proven in bounds (all of
    them with `proven_too`: `sim` checks every access). A site's id is its index + 1, so an
    error buffer holding 0 means no error."""
    return [
        op
        for op in walk(fn.body)
        if op.opcode == "assert"
        or checked(op, bounds)
        or (bounds and proven_too and op.opcode in MEMORY)
    ]
