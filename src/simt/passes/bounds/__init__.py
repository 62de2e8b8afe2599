"""Bounds-check elimination: proving array accesses in bounds, and hoisting the checks that
cannot be proven to one test per block.

Every `load`, `store`, `atomic` and `cas` is checked by the renderers unless it carries
`op.attrs["inbounds"] = True`; this pass sets that attribute where it can show, for every
index `i` of an access to array `a` along dimension `d`, that `0 <= i < a.shape[d]` on every
path that reaches the access. It works the way Julia's, Rust's and the JVM's range-check
elimination does: each index gets symbolic lower and upper bounds, linear forms over values
the whole block shares (`len(a)`, `block_idx.x * block_dim.x`, scalar arguments, constants):

- *dominating guards*: inside `if i < len(a):` (also `<=`, `>`, `>=`, `==`, `and` chains,
  `not`, the `else` branch of the negation, an early `if i >= n: return`, a `while`'s
  condition in its body) `i <= len(a) - 1`;
- *definitions*: `min(x, len(a) - 1)` is at most `len(a) - 1`, `max(x, 0)` at least 0;
  `x % n` lies in `[0, n - 1]` when `n >= 1` (Python's floor modulo); sums, differences and
  multiples by constants of bounded values are bounded (`i + 1`, `row * 3 + k`);
- *thread and loop ranges*: `thread_idx.x` lies in `[0, block_dim.x - 1]`, `block_idx.x` in
  `[0, grid_dim.x - 1]`; `block_idx.x * block_dim.x + thread_idx.x` in `[0, 2**31 - 2]` (a
  launch of 2**31 threads along x is refused, `kernel.check_launch`); the variable of
  `for k in range(lo, hi)` lies in `[lo, hi - 1]` (at least `lo` only when `k + step` cannot
  wrap around past `hi`), at most `lo + step * last` with `last` the number of its last
  iteration, `(hi - lo - 1) // step` (a leaf computed at the top, `("k", ...)`), for a
  constant `step`; a value carried by such a loop that grows by a constant `c` in each
  iteration (`tile += 1`) lies in `[init, init + c * last]`; a value times a block-level one
  that is never negative lies between its bounds times that value (products of leaves: nbody's
  `tile * block_dim.x`); numeric ranges of every integer value (interval arithmetic that
  gives up, to the type's whole range, wherever an operation may wrap);
- *alignment*: under `if x % m == 0:` with `m` a power of two (`Ranges.pow2_or_zero`), `x + r`
  for `r <= m - 1` is at most `E - 1` for an extent `E` that is a power of two, where `x <= E - 1`
  and `m <= 2 * E - 1` (a tree reduction's interleaved step, `sites._aligned`).

An access whose bounds hold for every value the block's values may take is *proven*. One
whose bounds are linear forms of block-level values only — `i <= len(c) - 1` for `a[i]`, where
the guard was on `c`; `thread_idx.x <= block_dim.x - 1` for a shared array of 256 — is
*hoisted*: the kernel's body is versioned (a pure IR transform, no renderer support needed),
`if <every hoisted condition holds>: <the body with those accesses unchecked> else: <the
body with them checked>`. The test is made of block-level values only, so it is uniform: one
branch per block on a GPU, and on the CPU the SPMD pass keeps it as control flow outside the
thread loops (one test per block; `backends.llvm` renders the two copies as two functions of
blocks and the test in the loop that calls them, so the unchecked copy compiles as the
unchecked kernel does). Bodies over `MAX_COPY_OPS`
are not copied (their checks stay), so compile times stay bounded. Every other access is
*checked*, and the renderers keep its per-access test.

Wrapping arithmetic is where such proofs go wrong, so it is tracked: a bound through an
operation is used only where that operation provably does not wrap (its operands' numeric
ranges fit its type), except for the index itself, whose sums and products are bounded as
exact integers: there the check `0 <= i < min(len, 2**(bits-1))` also proves that the
wrapped value the kernel computes equals that integer. A hoisted test `lhs <= rhs` is
computed in int32, or in uint32, where the ranges of both sides fit that type (every backend
has 32-bit integers; not every WebGPU adapter has 64-bit ones); a test that fits neither is
not made, and its access stays checked.

Where it runs (`pipeline.prepare`): after the optimisation passes, on the IR a non-`sim`
backend compiles, *before* the CPU's SPMD lowering. Before, because the facts it reads
(guards, `range` loops, thread and block indices) are still the user's; because CUDA and WGSL
compile this IR without any SPMD lowering and need the same proofs; and because the hoisted
test is then an ordinary uniform `if` that the SPMD pass keeps outside the thread loops,
which a test placed after lowering would have to rebuild. `sim` checks every access itself
(it is the reference) and is left alone, as are kernels compiled with `debug=True` (their
checks stay, and their IR stays the front end's) and with `boundscheck=False` (nothing is
checked there).

The front end checks an access itself, as raising IndexError, where a first run of this pass
on a copy could not prove it (`pipeline.unproven`; inside a `try`, always): two comparisons per
index, `i >= 0` and `i < n`, marked `check` (`frontend.raising.check_index`), the access itself
under their `if` and marked in bounds. The pass judges each such comparison as it judges an
access: one it proves becomes True, one it hoists becomes True in the copy the block-level test
guards; folding then removes the exception state it fed (`prove_bounds` runs `optimize`).

The pass is one package, a module a job: `forms` (linear forms, bounds, facts), `ranges`
(numeric ranges, leaf keys, block-level values, guard facts), `blocktest` (what a block-level
test of a form can be, and its text), `search` (the symbolic bound search), `sites` (each
access's verdict), `version` (the versioned body and its test); `prove_bounds` here runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...ir import Function, Op
from ..optimize import optimize
from .fuse import fuse_checks
from .search import Analysis
from .sites import Site, is_check, judge_block
from .version import MAX_COPY_OPS, no_copy, strictest, version_body


@dataclass
class Report:
    """What the pass did to one kernel: accesses proven, hoisted and left checked, with the
    reason for each kept check (`(line, array, why)`)."""

    proven: int = 0
    hoisted: int = 0
    checked: int = 0
    kept: list[tuple[int, str, str]] = field(default_factory=list)
    versioned: bool = False
    tests: list[str] = field(default_factory=list)  # the block-level test, one part a line


def prove_bounds(fn: Function) -> Report:
    """Mark the accesses of `fn` proven in bounds (`attrs["inbounds"]`), and version its body
    on a block-level test where that proves more; changes `fn` in place. The report is also
    kept in `fn.attrs["bounds"]`."""
    an, sites = judge(fn)
    # an access that keeps a comparison of its check keeps the others too: hoisting them
    # would save a comparison (the two of one index fuse into one, `fuse_checks`) at the
    # price of a block-level test of bounds its index has no good reason to keep (`idx[t] +
    # j < len(b)` for a loaded `idx[t]`: `len(a) - len(b) + 2147483647 <= 0`, never true,
    # so the copy that test guards never ran)
    kept = {s.check: s.why for s in sites if s.check is not None and s.status == "checked"}
    for s in sites:
        if s.status == "hoisted" and s.check in kept:
            s.status, s.why = "checked", kept[s.check]
    for s in sites:
        if s.status == "proven":
            prove(s.op)
    hoisted = [s for s in sites if s.status == "hoisted"]
    rep = Report()
    if hoisted:
        why = no_copy(fn, MAX_COPY_OPS)  # read here: a test may lower it
        if why:
            for s in hoisted:
                s.status, s.why = "checked", why
        else:
            conds = strictest(c for s in hoisted for c in s.conds)
            version_body(an, fn, {id(s.op) for s in hoisted}, conds, prove)
            rep.versioned = True
            rep.tests = [an.show(c) for c in conds]
    # an access the front end checks counts once: checked if one of its comparisons is,
    # else hoisted if one is, else proven
    order = {"proven": 0, "hoisted": 1, "checked": 2}
    verdict: dict[object, Site] = {}
    for s in sites:
        key = s.check if s.check is not None else id(s)
        if key not in verdict or order[s.status] > order[verdict[key].status]:
            verdict[key] = s
    for s in verdict.values():
        if s.status == "proven":
            rep.proven += 1
        elif s.status == "hoisted":
            rep.hoisted += 1
        else:
            rep.checked += 1
            line = s.op.loc.line if s.op.loc is not None else 0
            rep.kept.append((line, s.array, s.why))
    fused = fuse_checks(fn)  # the two comparisons of an index left checked: one, unsigned
    if fused or any(s.check is not None and s.status != "checked" for s in sites):
        optimize(fn)  # a check made True: its IndexError's state and branches go
    fn.attrs["bounds"] = rep
    return rep


def judge(fn: Function, stop: Callable[[Site], bool] | None = None) -> tuple[Analysis, list[Site]]:
    """The verdict of every access and check of `fn` (proven, hoisted or checked), `fn` left
    as it is: what `prove_bounds` acts on, and what `pipeline.unproven` needs to know (which
    stops at the first verdict `stop` holds true of)."""
    an = Analysis(fn)
    sites: list[Site] = []
    judge_block(an, fn.body, (), sites, stop)
    return an, sites


def prove(op: Op) -> None:
    """Mark access `op` in bounds; a check of the front end's (`is_check`) becomes True."""
    if is_check(op):
        op.opcode, op.operands, op.attrs = "const", [], {"value": True}
    else:
        op.attrs["inbounds"] = True


__all__ = ["MAX_COPY_OPS", "Report", "Site", "judge", "prove", "prove_bounds"]
