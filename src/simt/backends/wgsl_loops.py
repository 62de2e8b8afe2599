"""WGSL's loops: WGSL has `loop {}` with `break`: a counted `for` opens one whose first
statement leaves it when the condition fails and whose last steps the counter; `while` is the
C-like base's. (A device that leaves loops after a budget of iterations, Mesa's llvmpipe, gets
its loops checked in the IR before rendering: `passes.legalise`.)
"""

from __future__ import annotations

from ..types import Scalar
from .wgsl_storage import StorageRenderer
from .wgsl_types import wgsl_type


class LoopRenderer(StorageRenderer):
    """The WGSL renderer's loop layer: `loop {}` forms."""

    LOOP = "loop {"

    def open_counted(self, counter: str, t: Scalar, start: str, cond: str, step: str) -> None:
        self.out.add(f"var {counter}: {wgsl_type(t)} = {start};")
        self.out.open("loop {")
        self.out.add(f"if (!({cond})) {{ break; }}")

    def close_counted(self, counter: str, step: str) -> None:
        self.out.add(f"{counter} = {counter} + {step};")
        self.out.close()
