"""What every renderer needs to agree on: which print op is which and which op can fail (the
one way a renderer dispatches an op to its rule is `ir.rules.Rules`)."""

from __future__ import annotations

from ..ir import Function, Op, walk
from ..ir.failures import LOOP_BUDGET, checked, error_sites

__all__ = ["checked", "describe_failure", "error_sites", "print_ops"]


def print_ops(fn: Function) -> list[Op]:
    """The kernel's print ops in program order: a print's id is its index here, and
    `[op.attrs["parts"] for op in print_ops(fn)]` is the format table the host formats with."""
    return [op for op in walk(fn.body) if op.opcode == "print"]


def describe_failure(op: Op, index: list[int] | None = None, shape: list[int] | None = None) -> str:
    """The message of a KernelError raised at `op`; for an access, with the index it used
    and the array's shape when the runtime recorded them."""
    if op.opcode == "assert" and op.attrs.get(LOOP_BUDGET):
        return (
            "this loop was stopped by the webgpu adapter: Mesa's llvmpipe runs at most "
            f"{op.attrs[LOOP_BUDGET]} loop iterations in a thread (all its loops together) and "
            "then leaves its loops, "
            "which would give wrong results; run this kernel on the cpu backend or a GPU (and "
            "if the loop never ends, check that its condition can become false)"
        )
    if op.opcode == "assert":
        msg = op.attrs.get("msg")
        if op.attrs.get("view_check"):
            return str(msg)
        return f"assertion failed: {msg}" if msg else "assertion failed"
    what = {"load": "read", "store": "write", "atomic": "atomic", "cas": "atomic"}[op.opcode]
    name = op.operands[0].hint if op.operands else ""
    msg = f"index out of bounds in array {what}" + (f" of `{name}`" if name else "")
    if index is not None and shape is not None and len(index) == len(shape):
        if len(index) == 1:
            msg += f" (index {index[0]}, length {shape[0]})"
        else:
            msg += f" (index {tuple(index)}, shape {tuple(shape)})"
    return msg
