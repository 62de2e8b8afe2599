"""WGSL's loops, and the check of adapters that cut them.

WGSL has `loop {}` with `break`: a counted `for` opens one whose first statement leaves it when
the condition fails and whose last steps the counter; `while` is the C-like base's.

Mesa's llvmpipe (lavapipe) gives each invocation a budget of 65535 loop iterations, all its
loops together, and leaves a loop silently when it is spent: the kernel goes on with wrong
values. On such an adapter (`WgslCaps.loop_limit`) every loop's condition is evaluated again
after it, on the values it left: true means the driver cut the loop (or the loop never ends),
and the kernel fails with a KernelError at the loop's line (the loop becomes an error site).
A flag cleared at the loop's own exit does not work: the shader compiler knows that exit is
the only one and drops the check. Loops cannot be made to run past the budget (it counts every
loop of the invocation, nested ones too).
"""

from __future__ import annotations

from ..ir import Function, Op, walk
from ..types import Scalar
from .wgsl_layout import WgslCaps
from .wgsl_storage import StorageRenderer
from .wgsl_types import wgsl_type

# ops that do something besides giving a value (a `while` condition with one is not repeated)
_EFFECTS = frozenset({"store", "atomic", "cas", "print", "barrier", "for", "while", "alloc"})


class LoopRenderer(StorageRenderer):
    """The WGSL renderer's loop layer: `loop {}` forms and lavapipe's loop-budget check (which
    adds the loops it checks to the renderer's error sites, `errors` / `error_index`)."""

    LOOP = "loop {"
    caps: WgslCaps
    errors: list[Op]
    error_index: dict[int, int]

    def __init__(self, fn: Function) -> None:
        super().__init__(fn)
        self.open_loops: list[tuple[Op, str]] = []  # the loops open, with a `for`'s condition
        self.loop_op: Op | None = None
        self.loop_cond = ""

    def open_counted(self, counter: str, t: Scalar, start: str, cond: str, step: str) -> None:
        self.out.add(f"var {counter}: {wgsl_type(t)} = {start};")
        self.loop_cond = cond  # for `close_loop`
        assert self.loop_op is not None  # set by `for_`, the only caller
        self.open_loop(self.loop_op)
        self.out.add(f"if (!({cond})) {{ break; }}")

    def close_counted(self, counter: str, step: str) -> None:
        self.out.add(f"{counter} = {counter} + {step};")
        self.close_loop()

    def for_(self, op: Op) -> None:
        self.loop_op = op  # for `open_counted`
        super().for_(op)

    def open_loop(self, op: Op) -> None:
        self.open_loops.append((op, self.loop_cond if op.opcode == "for" else ""))
        self.out.open("loop {")

    def close_loop(self) -> None:
        self.out.close()
        op, cond = self.open_loops.pop()
        if self.caps.loop_limit is None:
            return
        if op.opcode == "while":
            cond_region = op.regions[0]
            if any(o.opcode in _EFFECTS for o in walk(cond_region)):
                return  # evaluating it again would repeat what it does
            self.out.open("{")
            self.bind_args(cond_region.args, [self.name(r) for r in op.results])
            (c,) = self.block(cond_region)
            cond = self.name(c)
        else:
            self.out.open("{")
        if id(op) not in self.error_index:
            self.error_index[id(op)] = len(self.errors)
            self.errors.append(op)
        self.out.add(f"if ({cond}) {{ simt_fail({self.error_index[id(op)]}u); }}")
        self.out.close()
