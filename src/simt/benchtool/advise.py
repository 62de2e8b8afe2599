"""The launch advisor: `kernel.advise(grid, block, *args)` and `SimtPerformanceWarning`.

Each piece of advice says what was seen, why it matters on the device, and what to change,
with a launch shape where one is better. Checks: a block size that is not a multiple of the
warp width (32, the NVIDIA warp and the common subgroup; on `cpu` the SIMD width too); fewer
blocks than the device has cores or multiprocessors, and a grid too small to hide memory
latency (both only when the launch's work is worth more than a launch, so tiny launches stay
quiet); shared memory over the device limit (an error); global accesses whose addresses are not
contiguous in `thread_idx.x` (naming the source line); on `cpu`, a kernel LLVM did not
vectorise (no vector instruction in its optimised code), and what `cpu_hints` finds in the
lowered kernel (branches on the thread index that are not ranges, atomics on global arrays,
float64 transcendentals).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import LaunchError, SimtPerformanceWarning
from ..runtime import registry
from ..runtime.base import Dim3

if TYPE_CHECKING:  # (imported where used: an ordinary launch's `quick` needs neither)
    from .cost import Cost
    from .profile import Profile

WARP = 32  # portable group width: NVIDIA warps, most GPU subgroups
WORTH = 10.0  # launch-size advice only when the work is this many launch overheads or more
SCATTERED = 0.5  # fraction of group accesses not contiguous in thread_idx.x that is flagged


@dataclass(frozen=True)
class Advice:
    """One finding: `kind` (a short id), `severity` ("warning" or "error") and the message."""

    kind: str
    severity: str
    message: str
    line: int = 0
    recommended: tuple[tuple[int, ...], tuple[int, ...]] | None = None

    def __str__(self) -> str:
        return self.message


def _shape(d: Dim3) -> str:
    parts = [d.x, d.y, d.z]
    while len(parts) > 1 and parts[-1] == 1:
        parts.pop()
    return str(parts[0]) if len(parts) == 1 else "(" + ", ".join(map(str, parts)) + ")"


def recommend(
    grid: Dim3, block: Dim3, prof: Profile, extent: tuple[int, ...] = ()
) -> tuple[Dim3, Dim3]:
    """A launch covering the same threads with a block that is a multiple of the warp width:
    256 threads in 1-D, 16 x 16 in 2-D. `extent` (the data's size along x, y, when the launch
    was sized to it) lets the grid cover just the data."""
    return _recommend(grid, block, min(prof.max_block, 1024), extent)


def _recommend(
    grid: Dim3, block: Dim3, limit: int, extent: tuple[int, ...] = ()
) -> tuple[Dim3, Dim3]:
    nx, ny = grid.x * block.x, grid.y * block.y
    if len(extent) >= 1 and nx - block.x < extent[0] <= nx:
        nx = extent[0]
    if len(extent) >= 2 and ny - block.y < extent[1] <= ny:
        ny = extent[1]
    if block.y == 1 and block.z == 1:
        b = 256 if limit >= 256 else limit
        return Dim3((nx + b - 1) // b, grid.y, grid.z), Dim3(b)
    bx, by = (16, 16) if limit >= 256 else (16, max(1, limit // 16))
    return Dim3((nx + bx - 1) // bx, (ny + by - 1) // by, grid.z * block.z), Dim3(bx, by)


def quick(grid: Dim3, block: Dim3, backend: str) -> list[Advice]:
    """The advice an ordinary launch gets (once per kernel, `kernel.launch_advice`): only what
    is clearly wasteful from the launch's shape alone, no cost model, so it costs nothing
    measurable: blocks of one thread (every thread pays a block's overhead, and on a GPU uses
    one lane of its warp), and on a GPU blocks of fewer threads than a warp or not a multiple
    of it. `sim` (the reference) gets none."""
    caps = registry.runtime_class(backend)
    if caps.reference:
        return []
    rg, rb = _recommend(grid, block, 1024)
    shape = f"[{_shape(rg)}, {_shape(rb)}]"
    per = block.size
    if per == 1 and grid.size > 1:
        lanes = f"uses 1 of the {WARP} lanes of its warp and " if caps.latency_hiding else ""
        return [Advice("one-thread-blocks", "warning",
                       f"every block has one thread: each thread {lanes}pays a whole block's "
                       f"start-up. Launch blocks of {rb.size} threads: {shape} (kernel.advise "
                       "says more).", recommended=(tuple(rg), tuple(rb)))]  # fmt: skip
    if caps.latency_hiding and per % WARP and grid.size > 1:
        idle = WARP - per % WARP
        return [Advice("block-width", "warning",
                       f"a block of {per} threads is not a multiple of the {WARP}-thread warp: "
                       f"{idle} lanes of every block's last warp run empty. Launch blocks of "
                       f"{rb.size} threads: {shape} (kernel.advise says more).",
                       recommended=(tuple(rg), tuple(rb)))]  # fmt: skip
    return []


def analyse(
    cost: Cost,
    grid: Dim3,
    block: Dim3,
    prof: Profile,
    vectorised: bool | None = None,
    extent: tuple[int, ...] = (),
    report: str = "",
) -> list[Advice]:
    """The advice for one predicted launch (`extent`: see `recommend`)."""
    out: list[Advice] = []
    rg, rb = recommend(grid, block, prof, extent)
    shape = f"[{_shape(rg)}, {_shape(rb)}]"
    per = block.size
    widths = sorted({WARP, prof.group_width})
    odd = [w for w in widths if per % w]
    if odd and per > 1:
        w = max(odd)
        waste = (w - per % w) / ((per + w - 1) // w * w)
        out.append(
            Advice(
                "block-width",
                "warning",
                f"a block of {per} threads is not a multiple of {w} (the "
                f"{'warp/subgroup' if w == WARP else 'SIMD'} width): the last group of every block "
                f"runs {w - per % w} of its {w} lanes empty ({waste:.0%} of the lanes idle), and "
                f"no GPU schedules {per} threads as evenly as a power of two. "
                f"Use blocks of {rb.size} threads: launch as {shape}.",
                recommended=(tuple(rg), tuple(rb)),
            )
        )
    if cost.shared_bytes > prof.shared_bytes:
        out.append(
            Advice(
                "shared-limit",
                "error",
                f"the kernel asks for {cost.shared_bytes} bytes of shared memory per block, over "
                f"the {prof.shared_bytes} this device gives a block: it cannot launch. Use smaller "
                "tiles (a smaller shared.array) or fewer threads per block.",
            )
        )
    body = cost.time - prof.launch_overhead
    if body >= WORTH * prof.launch_overhead:
        blocks = grid.size
        caps = registry.runtime_class(prof.backend)
        what = caps.unit_word
        if blocks < prof.units:
            out.append(
                Advice(
                    "few-blocks",
                    "warning",
                    f"{blocks} block(s) for {prof.units} {what}: blocks are what the device "
                    f"spreads over its {what}, so {prof.units - blocks} of them sit idle. "
                    f"Launch at least {prof.units} blocks (smaller blocks, or a grid-stride "
                    "loop over more blocks).",
                )
            )
        elif caps.latency_hiding and cost.threads < prof.units * 1024:
            out.append(
                Advice(
                    "small-grid",
                    "warning",
                    f"{cost.threads} threads in all: a GPU hides memory latency by switching "
                    f"between warps, and {prof.units} multiprocessors want at least "
                    f"{prof.units * 1024} resident threads. Give each thread less work and launch "
                    "more of them.",
                )
            )
    for a in cost.accesses:
        if a.unknown_index or a.groups == 0 or a.internal:
            continue  # (an arena's layout is simt's: the user cannot change it)
        if a.scattered_fraction > SCATTERED and a.lines_per_group > 1.5:
            out.append(
                Advice(
                    "uncoalesced",
                    "warning",
                    f"line {a.line}: the {a.kind} of {a.array}[...] is not contiguous in "
                    f"thread_idx.x: each group of {prof.group_width} threads touches "
                    f"{a.lines_per_group:.1f} cache lines instead of one, so most of every "
                    f"{prof.line_bytes}-byte line fetched is thrown away. Make thread_idx.x index "
                    "the last (contiguous) dimension of the array, or stage the data through a "
                    "shared tile so that both the load and the store run along rows (a tiled "
                    "transpose).",
                    line=a.line,
                )
            )
    if vectorised is False and body >= WORTH * prof.launch_overhead:
        said = f" (LLVM: {report})" if report else ""
        out.append(
            Advice(
                "not-vectorised",
                "warning",
                "LLVM did not vectorise this kernel's thread loop: its optimised code has no "
                f"vector instruction{said}, so each core runs one thread at a time instead of "
                f"{prof.group_width}. Typical causes: math functions without a vector form, "
                "control flow that differs by thread, indices that do not follow "
                "thread_idx.x, a bounds check that could not be proven unnecessary (guard "
                "the index with `if i < len(a)`); keep the per-thread work uniform and the "
                "indices affine.",
            )
        )
    return out


def _vectorised(
    kernel: Any, rt: Any, args: Sequence[Any], kwargs: dict[str, Any]
) -> tuple[bool, str]:
    """(vectorised, the compiler's report) for an SPMD runtime's (cpu's) optimised code of
    this launch: LLVM's "loop not vectorized" remarks, which it writes to the process's
    stderr while optimising, are captured there."""
    from ..ir.nodes import walk

    fn, _ = kernel.specialised_ir(*args, **kwargs)
    if any(op.opcode in ("atomic", "cas", "print") for op in walk(fn.body)):
        return True, ""  # serial by nature: nothing the user could change
    text, report = _capture_stderr(lambda: rt.render(fn, stage="opt"))  # type: ignore[call-arg]
    vector = any(f" x {t}>" in text for t in ("float", "double", "i32", "i64", "i1"))
    reasons = sorted(
        {
            line.split("loop not vectorized:", 1)[1].strip()
            for line in report.splitlines()
            if line.startswith("remark:") and "loop not vectorized:" in line
        }
    )
    return vector, "; ".join(reasons)


def _capture_stderr(fn: Any) -> tuple[Any, str]:
    """Run `fn()` with file descriptor 2 sent to a temporary file; (result, what it wrote)."""
    import os
    import sys
    import tempfile

    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            result = fn()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        return result, tmp.read().decode(errors="replace")


def _extent(args: Sequence[Any]) -> tuple[int, ...]:
    """The largest array argument's extent along x (its last axis) and y (the rest)."""
    arrays = [a for a in args if len(getattr(a, "shape", ())) > 0]
    if not arrays:
        return ()
    big = max(arrays, key=lambda a: int(np.prod(a.shape)))
    shape = tuple(int(s) for s in big.shape)
    return shape if len(shape) == 1 else (shape[-1], int(np.prod(shape[:-1])))


_warned: set[Any] = set()


def advise(
    kernel: Any,
    grid: Any,
    block: Any,
    args: Sequence[Any],
    kwargs: dict[str, Any] | None = None,
    warn: bool = True,
    prof: Profile | None = None,
) -> list[Advice]:
    """`kernel.advise(grid, block, *args)`: the advice for this launch on the current backend.
    Warns (`SimtPerformanceWarning`) once per kernel and launch shape; raises LaunchError for
    what cannot launch (shared memory over the limit)."""
    g = grid if isinstance(grid, Dim3) else Dim3.of(grid, "grid")
    b = block if isinstance(block, Dim3) else Dim3.of(block, "block")
    if prof is None:
        from .profile import load_profile

        prof = load_profile(registry.current().name)
    kw = kwargs or {}
    from .cost import estimate

    cost = estimate(kernel, g, b, args, kw, prof)
    vec: bool | None = None
    report = ""
    spmd = registry.runtime_class(prof.backend).spmd
    if spmd and cost.time - prof.launch_overhead >= WORTH * prof.launch_overhead:
        try:
            vec, report = _vectorised(kernel, registry.get(prof.backend), args, kw)
        except Exception:  # noqa: BLE001 - the report is optional: no answer, no advice
            vec = None
    found = analyse(cost, g, b, prof, vec, _extent(args), report)
    if spmd and cost.time - prof.launch_overhead >= WORTH * prof.launch_overhead:
        from .cpu_hints import cpu_hints

        try:
            found += [Advice(k, "warning", m, line=ln) for k, ln, m in cpu_hints(kernel, args, kw)]
        except Exception:  # noqa: BLE001 - advice is a courtesy: no answer, no advice
            pass
    for a in found:
        if a.severity == "error":
            raise LaunchError(f"{kernel.__name__}[{_shape(g)}, {_shape(b)}]: {a.message}")
    if warn:
        key = (id(kernel), tuple(g), tuple(b), prof.backend)
        if key not in _warned and found:
            _warned.add(key)
            for a in found:
                warnings.warn(
                    f"{kernel.__name__}[{_shape(g)}, {_shape(b)}]: {a.message}",
                    SimtPerformanceWarning,
                    stacklevel=3,
                )
    return found
