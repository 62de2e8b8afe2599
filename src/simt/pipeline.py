"""The pipeline from a Python function to a backend's source text, one stage after another:
front end (typed IR), checks and passes (optimised IR), what one backend compiles of it
(`prepare`), the runtime's renderer (source text)."""

from __future__ import annotations

from typing import Any

from .frontend.raising import place_of
from .frontend.specialise import ArgSpec, translate
from .ir import Function, copy_function, format_function, verify, walk
from .passes.barriers import lift as lift_barriers
from .passes.barriers import strip_exits
from .passes.bounds import MAX_COPY_OPS, Site, prove_bounds
from .passes.bounds import judge as judge_bounds
from .passes.bounds.version import no_copy
from .passes.optimize import optimize
from .passes.uniformity import check_barriers
from .passes.view_checks import strip_view_checks
from .passes.warps import lower as lower_warps
from .runtime import registry
from .runtime.base import Runtime


def build(
    pyfunc: Any,
    specs: dict[str, ArgSpec],
    fp64: bool,
    debug: bool,
    optimise: bool = True,
    explain: bool = False,
    dynamic_shared: int | None = None,
    boundscheck: bool = True,
    heap: int | None = None,
    division: str = "numpy",
    int64: bool = False,
    raising: bool = True,
) -> Function:
    """Front end, checks and optimisation passes: the IR every backend starts from. Without
    `optimise` the IR is the front end's own, branch for branch; `explain` adds `note` ops
    for assignments that make no op (both for `kernel.explain`, on sim only). `boundscheck`
    False compiles the accesses unchecked (`Function.boundscheck`); `heap`: the bytes of
    per-thread arena per element type lists may use (`frontend.arena`); `int64`:
    Numba's typing of integers (`simt.cuda.jit`). `raising` False: the accesses the bounds
    pass cannot prove are left to the backends' own checks (`unproven`; for the tools that
    read what a kernel's own code does, `Kernel.specialised_ir`, and for tests)."""
    def front(raise_at: Any = None, after: bool = False, narrow: bool = False) -> Function:
        fn = translate(
            pyfunc, specs, fp64=fp64, debug=debug, explain=explain,
            dynamic_shared=dynamic_shared, heap=heap, division=division, int64=int64,
            raise_at=raise_at, raise_after=after, payload32=narrow,
        )  # fmt: skip
        fn.boundscheck = boundscheck
        return finish(fn, optimise)

    fn = front()
    if not (boundscheck or debug) or not raising:
        return fn
    meeting = meets(fn)
    if meeting and not debug and not may_loop_for_ever(fn):
        # a kernel whose threads meet stops a failing thread only where it could otherwise
        # loop for ever (a `while`): the stopping form carries the raising state (flag, site,
        # index, size) per thread through every loop, which costs bench/bounds.py's
        # histogram's grid-stride loop 1.20x on/off (1.04x so; a `for` over a range stays a
        # `for` in that form, its bounds proofs kept: `frontend.loops.range_loop`); without a
        # `while` a failing access keeps the backends' check (a load reads 0, the first
        # failing thread reported)
        return fn
    if unproven(fn, hoisted=debug or not meeting):
        # again, every access raising IndexError when out of bounds (the bounds pass proves
        # the checks of those it proved here: `passes.bounds`). A raising thread runs on
        # without effects (`Context.raise_after`), except in a kernel whose threads meet at
        # barriers or warp functions: there it stops as a thread that returns does (the rest
        # of each statement list skipped, an `exit` op where it raised), so that it leaves
        # the block's count at every later barrier (`passes.barriers`). (Outside debug mode
        # such a kernel whose unproven accesses are all tested once per block is left as it
        # is, so that the copy the test guards stays the code it was: `unproven`.)
        fn = front(True, not meeting, not wide_ints(fn))
    return fn


def wide_ints(fn: Function) -> bool:
    """Whether `fn` computes with 64-bit or uint32 integers (its IndexError checks then
    report the index in int64 words; else in int32, so that a device without int64 runs it)."""

    def wide(t: Any) -> bool:  # (a scalar type: arrays have no `is_int`)
        return bool(getattr(t, "is_int", False)) and t.bits >= 32 + 32 * t.is_signed

    return any(wide(r.type) for op in walk(fn.body) for r in op.results) or any(
        wide(p.value.type) for p in fn.params)  # fmt: skip


def meets(fn: Function) -> bool:
    """Whether the threads of `fn` meet at barriers or warp functions."""
    return any(op.opcode in ("barrier", "warp") for op in walk(fn.body))


def may_loop_for_ever(fn: Function) -> bool:
    """Whether `fn` has a loop whose trips no count bounds (a `while`; a `for` over a range,
    a list or an array ends whatever its body reads)."""
    return any(op.opcode == "while" for op in walk(fn.body))


def unproven(fn: Function, hoisted: bool = True) -> bool:
    """Whether an access of `fn` (one with a place, `raising.place_of`) is one that the
    bounds pass does not prove in bounds for every launch (`hoisted` False: one it does not
    prove in bounds, nor with a test once per block, in a body it may copy for that test).

    Where there is one, the front end translates the kernel again with every access checked
    as raising IndexError (`raising.check_index`; every one, not only those places: an access
    CSE merged into another in `fn` has a place of its own), so that an access out of bounds
    is a Python exception of its thread on every backend: the thread stops, the others
    finish, and the launch reports the threads that raised in one grouped KernelError. The
    checks the pass proves in bounds become True and go (`passes.bounds`); those it hoists to
    a block-level test go from the copy of the body that test guards.

    The pass's verdicts are read without running it (`bounds.judge`: no copy of `fn`, no
    versioned body, no optimisation after it), up to the first access not proven: one that a
    compiled backend checks, in the copy a block-level test does not guard at least."""
    if not hoisted and not no_copy(fn, MAX_COPY_OPS):
        _, sites = judge_bounds(fn, stop=_checked)
        return bool(sites) and _checked(sites[-1])
    _, sites = judge_bounds(fn, stop=_not_proven)
    return bool(sites) and _not_proven(sites[-1])


def _checked(s: Site) -> bool:
    """Whether `s` is an access with a place that the bounds pass leaves checked."""
    return s.check is None and s.status == "checked" and place_of(s.op.loc) is not None


def _not_proven(s: Site) -> bool:
    """Whether `s` is an access with a place that the bounds pass does not prove."""
    return s.check is None and s.status != "proven" and place_of(s.op.loc) is not None


def finish(fn: Function, optimise: bool = True) -> Function:
    """Checks and optimisation passes for IR from any front end (Python functions, index
    expressions): the IR every backend starts from. The barrier check runs here, once, for
    every backend (a barrier in a `while` condition is a `CompileError`); `exit` markers stay
    only in kernels with barriers."""
    verify(fn)
    if optimise:
        fn = optimize(fn)
        verify(fn)
    # (value ids, for `passes.forward` in the optimisation only: a fingerprint with them would
    # differ from process to process, `runtime.fingerprint`)
    fn.attrs.pop("arena_bases", None)
    check_barriers(fn)
    if not any(op.opcode in ("barrier", "warp") for op in walk(fn.body)):
        fn = strip_exits(fn)  # only barriers and warp votes care which threads returned
    return fn


def render(backend: str, fn: Function) -> str:
    """The source text `backend` compiles for `fn` (its runtime's `source`: no device), or
    the IR's text for "ir"."""
    if backend == "ir":
        return format_function(fn)
    rt = registry.runtime_class(backend)  # BackendUnavailable names the backends there are
    return rt.source(for_runtime(fn, rt))  # as a launch on that backend compiles it


def prepare(fn: Function, rt: str | type[Runtime] | Runtime | Any) -> Function:
    """The IR runtime `rt` (a runtime, its class or its name) compiles of `fn` (changed in
    place, and returned): one that checks every access and view itself (`checks_views`: sim)
    takes `fn` as it is; the others keep the views' checks (dropped with `boundscheck=False`)
    and get their accesses proven in bounds (`passes.bounds`: marked unchecked, or checked
    once per block), before any lowering of their own (the CPU's SPMD pass), so that CUDA,
    WGSL and LLVM compile the same proofs. (A stand-in runtime that only keeps the IR, as
    the fuzzer's NVRTC check uses, declares no capability.)"""
    if _has(rt, "checks_views") or fn.debug:
        return fn
    if getattr(fn, "boundscheck", True):
        prove_bounds(fn)
    else:  # the unsafe opt-out drops the views' checks with the arrays'
        fn = strip_view_checks(fn)
    return fn


def for_runtime(
    fn: Function, rt: str | type[Runtime] | Runtime | Any, shared: dict[Any, Any] | None = None
) -> Function:
    """`fn` as runtime `rt` compiles it, by its capabilities: `prepare`; then warp functions
    through shared memory and barriers unless it has warp instructions (`warp_native`: sim,
    CUDA; `passes.warps`); then, unless it runs a block's threads in lockstep (`lockstep`:
    sim), `passes.barriers.lift`'s form, in which every thread of a block reaches every
    barrier.

    With `shared` (a dict kept with `fn` for the runtimes it is compiled for: `Kernel`),
    `fn` is left as it is and the runtimes that prepare it alike share one `prepare` (the
    bounds pass's proofs: cpu, webgpu and cuda), each lowering a copy of it."""
    if shared is not None:
        alike = _has(rt, "checks_views") or fn.debug  # (`prepare` keeps those as they are)
        got = shared.get(alike)
        if got is None:
            got = shared[alike] = prepare(copy_function(fn), rt)
        fn = copy_function(got)
    else:
        fn = prepare(fn, rt)
    if not _has(rt, "warp_native"):
        fn = lower_warps(fn, _slots(rt))
    if not _has(rt, "lockstep"):
        fn = lift_barriers(fn, _slots(rt))
    return fn


def _slots(rt: str | type[Runtime] | Runtime | Any) -> int:
    """The most threads a block has on `rt` (its `warp_slots`)."""
    cls = registry.runtime_class(rt) if isinstance(rt, str) else rt
    return int(getattr(cls, "warp_slots", 1024))


def _has(rt: str | type[Runtime] | Runtime | Any, capability: str) -> bool:
    if isinstance(rt, str):
        return registry.has(rt, capability)
    return bool(getattr(rt, capability, False))
