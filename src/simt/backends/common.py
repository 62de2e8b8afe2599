"""What every renderer needs to agree on: which print op is which and which op can fail (the
one way a renderer dispatches an op to its rule is `ir.rules.Rules`)."""

from __future__ import annotations

from ..ir import Function, Op, walk
from ..ir.ops import MEMORY


def print_ops(fn: Function) -> list[Op]:
    """The kernel's print ops in program order: a print's id is its index here, and
    `[op.attrs["parts"] for op in print_ops(fn)]` is the format table the host formats with."""
    return [op for op in walk(fn.body) if op.opcode == "print"]


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


def describe_failure(op: Op, index: list[int] | None = None, shape: list[int] | None = None) -> str:
    """The message of a KernelError raised at `op`; for an access, with the index it used
    and the array's shape when the runtime recorded them."""
    if op.opcode == "assert":
        msg = op.attrs.get("msg")
        if op.attrs.get("view_check"):
            return str(msg)
        return f"assertion failed: {msg}" if msg else "assertion failed"
    if op.opcode in ("for", "while"):
        return (
            "this loop was stopped by the webgpu adapter: Mesa's llvmpipe runs at most 65535 "
            "loop iterations in a thread (all its loops together) and then leaves its loops, "
            "which would give wrong results; run this kernel on the cpu backend or a GPU (and "
            "if the loop never ends, check that its condition can become false)"
        )
    what = {"load": "read", "store": "write", "atomic": "atomic", "cas": "atomic"}[op.opcode]
    name = op.operands[0].hint if op.operands else ""
    msg = f"index out of bounds in array {what}" + (f" of `{name}`" if name else "")
    if index is not None and shape is not None and len(index) == len(shape):
        if len(index) == 1:
            msg += f" (index {index[0]}, length {shape[0]})"
        else:
            msg += f" (index {tuple(index)}, shape {tuple(shape)})"
    return msg
