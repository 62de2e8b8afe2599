"""Written-argument analysis: which array parameters a kernel writes.

Only those are copied back to the host after a launch with NumPy arguments.
"""

from __future__ import annotations

from ..ir import Function, walk
from ..ir.ops import STORES


def written_params(fn: Function) -> set[str]:
    """Names of the array parameters that some store or atomic may write."""
    by_id = {p.value.id: p.name for p in fn.params}
    out: set[str] = set()
    for op in walk(fn.body):
        if op.opcode in STORES:
            name = by_id.get(op.operands[0].id)
            if name is not None:
                out.add(name)
    return out
