"""The optimisation pipeline: folding, copy propagation, CSE, DCE, unrolling and loop-invariant
code motion to a fixpoint."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from ..ir import Function, verify, walk
from .copyprop import copyprop
from .counted import counted_loops
from .cse import cse
from .dce import dce
from .fold import fold
from .forward import forward
from .licm import licm
from .records import sink_records
from .unroll import unroll

Pass = Callable[[Function], Function]

# The order of one round: folding makes constants (and inlines known branches) that the
# others feed on (then a raising thread's failure record sinks into the branch that can raise,
# and a `while` left counting once folding took a raise out of its condition is a `for` again);
# unrolling comes next and its copies are cleaned up by the next round; what is left invariant
# in the loops that remain is hoisted last.
PASSES: tuple[Pass, ...] = (
    fold, sink_records, counted_loops, copyprop, forward, cse, dce, unroll, licm,
)
MAX_ROUNDS = 8


def optimize(fn: Function, rounds: int = MAX_ROUNDS, check: bool = False) -> Function:
    """Run the passes over `fn` until nothing changes (at most `rounds` rounds); returns `fn`.

    With `check`, the IR is verified after every pass (tests use it; a failure names the pass).
    """
    before = _signature(fn)
    for _ in range(rounds):
        for p in PASSES:
            fn = p(fn)
            if check:
                try:
                    verify(fn)
                except AssertionError as e:
                    raise type(e)(f"after {p.__name__}: {e}") from e
        after = _signature(fn)
        if after == before:
            break
        before = after
    return fn


def _signature(fn: Function) -> Hashable:
    """A cheap fingerprint that changes whenever a pass changes `fn`."""
    return tuple(
        (id(op), op.opcode, tuple(v.id for v in op.operands), tuple(r.id for r in op.results))
        for op in walk(fn.body)
    )
