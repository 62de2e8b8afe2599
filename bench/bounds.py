"""Bounds checks on against off: W1-W6, the shared-memory Sobel and every `bench/user_kernels`
job, each kernel compiled twice (as it is, checked where `passes/bounds/` has no proof;
and `boundscheck=False`), the two taking turns on the same inputs, each result checked
against the float64 NumPy reference before it is timed.

    PYTHONPATH=src python bench/bounds.py [--backend cpu] [--size full] [--rounds 5]
                                          [--only vecadd,sobel_shared] [--processes N]
                                          [--json FILE]

Prints one row per job: the fastest warm ms with checks on and with checks off, their ratio
(the goal is at most 1.05; the fastest of interleaved turns is what a machine shared with
other work still shows best, the ratio of medians is printed beside it), and per kernel of
the job how many accesses were proven in bounds, tested once per block (the kernel body
versioned on one block-level test), or left checked (the `gather` jobs keep a check on
purpose: what a kept check costs), with the block-level tests made and why
each remaining check was kept. `--size quick` runs small inputs (a smoke test, no figures
worth recording). Needs `@simt.kernel(boundscheck=False)` (exits 2 without it).

The off side is checked to be what it claims (`wrong_side`): every kernel a job launches
there is the unchecked twin, and each twin ran (a job that looked its kernel up by name at
each call, or kept the kernel it was made for, timed the checked kernel on both sides).

Both sides in one process share that process's luck: where its code and its arrays landed
(alignment, pages, which cache sets they share) can move one kernel's time by more than the
checks cost (W6 with checks off went from 26.3 to 17.0 ms between two runs ten minutes apart,
nothing else changed). `--processes N` times each side in N fresh processes of its own, the
sides taking turns (on, off, off, on, ...), each process its `--rounds` turns of one side
alone; the row then gives the fastest of each side over its processes, their ratio, and the
spread of each side (slowest / fastest of its processes' bests). A job whose spread exceeds
the difference of the sides is named at the end: there the ratio is placement, not checks.
`--same` (with `--processes`) times the checks-off build in both columns, each in processes of
its own: the ratio a job shows when nothing differs but the processes (an A/A run), the floor
under which an on / off ratio says nothing about the checks.
Each process compiles its side (the disk cache helps), so N = 3 to 5 is minutes for the table.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "user_kernels"))
from _harness import load_jobs, median_ms, rel_err, round_robin  # noqa: E402

import simt  # noqa: E402
from simt.benchtool import workloads as W  # noqa: E402
from simt.benchtool.suite_cli import busy_cpu_s, own_cpu_s  # noqa: E402
from simt.kernel import Kernel  # noqa: E402
from simt.runtime import registry  # noqa: E402

Run = Callable[[], Any]


@dataclass
class Entry:
    """One job: `make()` builds its simt side with the kernels its module names at that moment
    (so swapping them for unchecked twins builds the "off" side), returning (run, result,
    launches); `check(out)` is its relative error against the float64 reference."""

    name: str
    scope: dict[str, Any]  # the module globals its kernels are looked up in
    make: Callable[[], tuple[Run, Run, list[tuple[Any, Any, Any, tuple[Any, ...]]]]]
    check: Callable[[Any], float]
    tol: float
    rows: list[dict[str, Any]] = field(default_factory=list)
    # closure cells holding kernels its `make` launches (a job made for one kernel passed in:
    # bench/user_kernels' matmul and reductions), swapped with the module's names
    cells: list[Any] = field(default_factory=list)


def wanted(name: str, want: Collection[str]) -> bool:
    """Whether job `name` is one `--only` names (all where it names none)."""
    return not want or name in want or name.split()[-1] in want


def suite_entries(size: str, want: Collection[str] = ()) -> list[Entry]:
    """W1-W6 of `simt.benchtool.workloads` at its `full` or `quick` sizes (those `want`
    names: inputs and references are made for those only)."""
    out = []
    for wl in W.LABELS:
        if not wanted(W.LABELS[wl], want):
            continue
        p = W.SIZES["quick" if size == "quick" else "full"][wl]
        inp = W.make_inputs(wl, p)
        ref = W.reference(wl, inp, p)

        def make(wl: str = wl, inp: dict[str, Any] = inp, p: dict[str, int] = p) -> Any:
            r = W.make_simt(wl, inp, p)
            return r.run, r.result, [(r.kernel, None, None, None)]

        def check(out_: Any, wl: str = wl, ref: Any = ref) -> float:
            return W.rel_err(wl, out_, ref)

        out.append(Entry(W.LABELS[wl], vars(W), make, check, W.TOL))
    return out


def job_entries(size: str, want: Collection[str] = ()) -> list[Entry]:
    """Every job of `bench/user_kernels` (its `full` size, or `test` for --size quick) that
    `want` names."""
    out = []
    for job in load_jobs(HERE / "user_kernels"):
        if not wanted(job.name, want):
            continue
        p = job.sizes["test" if size == "quick" else "full"]
        inp = job.make(p)
        ref = job.reference(inp, p)

        def make(job: Any = job, inp: Any = inp, p: Any = p) -> Any:
            m = job.simt(inp, p)
            return m.run, m.result, m.launches

        def check(out_: Any, ref: Any = ref) -> float:
            return rel_err(out_, ref)

        cells = [c for c in job.simt.__closure__ or ()
                 if isinstance(c.cell_contents, Kernel)]  # fmt: skip
        out.append(Entry(job.name, job.simt.__globals__, make, check, job.tol, cells=cells))
    return out


@simt.kernel
def gather(out, a, idx):
    i = simt.grid(1)
    if i < len(out):
        out[i] = a[idx[i]] * 2.0  # a data-dependent index: a kept check


@simt.kernel
def gather_reuse(out, a, idx):
    i = simt.grid(1)
    if i < len(out):
        j = idx[i]
        out[i] = a[j] * a[j] + a[j]  # one kept check, three loads of the same element


def kept_entries(size: str, want: Collection[str] = ()) -> list[Entry]:
    """Jobs whose accesses no proof covers (a gather by data-dependent indices): what a kept
    check costs, the record of a failure included."""
    n = 20_000 if size == "quick" else 1 << 22
    g = np.random.default_rng(23)
    a = g.random(n, dtype=np.float32)
    idx = g.integers(0, n, n).astype(np.int32)
    out = []
    for name, k, ref in (
        ("gather", "gather", a[idx].astype(np.float64) * 2.0),
        ("gather_reuse", "gather_reuse", a[idx].astype(np.float64) ** 2 + a[idx]),
    ):
        if not wanted(name, want):
            continue

        def make(k: str = k) -> Any:
            kern = globals()[k]
            res = np.zeros(n, np.float32)
            grid = (n + 255) // 256

            def run() -> None:
                kern[grid, 256](res, a, idx)
                simt.synchronize()

            return run, lambda: res, [(kern, grid, 256, (res, a, idx))]

        def check(out_: Any, ref: Any = ref) -> float:
            return rel_err(out_, ref)

        out.append(Entry(name, globals(), make, check, 1e-5))
    return out


_TWINS: dict[int, Kernel] = {}


def unchecked(k: Kernel) -> Kernel:
    """`k` compiled with `boundscheck=False` (its other options kept), made once."""
    twin = _TWINS.get(id(k))
    if twin is None:
        twin = Kernel(k.pyfunc, fp64=k.fp64, debug=k.debug, static=tuple(k.static),
                      known=dict(k.known), strict=k.strict, boundscheck=False)  # fmt: skip
        _TWINS[id(k)] = twin
    return twin


def build_off(e: Entry) -> tuple[Run, Run, Any]:
    """`e` made with every kernel its module names (and its closure cells hold) replaced by
    its unchecked twin."""
    saved = {n: v for n, v in e.scope.items() if isinstance(v, Kernel)}
    held = [(c, c.cell_contents) for c in e.cells]
    try:
        e.scope.update({n: unchecked(v) for n, v in saved.items()})
        for c, k in held:
            c.cell_contents = unchecked(k)
        return e.make()
    finally:
        e.scope.update(saved)
        for c, k in held:
            c.cell_contents = k


def wrong_side(launches: list[Any], rt: Any) -> str | None:
    """Why the checks-off side of a job (its `launches`, after one run) did not time what it
    should, or None: every kernel it lists must be an unchecked twin, and each twin must
    have been compiled by that run (a job whose run looks its kernel up by name at each
    call, or keeps the kernel it was made for, would otherwise time the checked kernel
    twice: W1-W6 and eight user-kernel jobs did so before this check)."""
    for k, *_ in launches:
        if getattr(k, "boundscheck", True):
            return f"its launches list {k.__name__} with checks on"
        if not k.specialisations(rt.name):
            return f"{k.__name__}'s unchecked twin never ran"
    return None


def job_kernels(launches: list[Any], scope: dict[str, Any]) -> list[Kernel]:
    """The kernels a job launches: those of its listed launches, and the kernels of its
    module by those names (a job may launch beyond its listed launches)."""
    kernels: dict[int, Kernel] = {}
    for k, *_ in launches:
        kernels.setdefault(id(k), k)
    for v in scope.values():
        if isinstance(v, Kernel) and v.__name__ in {k.__name__ for k in kernels.values()}:
            kernels.setdefault(id(v), v)
    return list(kernels.values())


def checked_threads(kernels: list[Kernel], rt: Any) -> dict[str, int]:
    """Per kernel name, the threads its launches so far ran through the checked copy of a
    body versioned on a block-level test (the blocks that failed it), where the runtime
    counts them (`Runtime.checked_threads`: the cpu runtime does); empty elsewhere."""
    out: dict[str, int] = {}
    for k in kernels:
        for spec in k.specialisations(rt.name):
            n = rt.checked_threads(spec.compiled)
            if n is None:
                return {}
            out[k.__name__] = out.get(k.__name__, 0) + n
    return out


def checked_in_run(run: Callable[[], Any], launches: list[Any], scope: dict[str, Any],
                   rt: Any) -> dict[str, int]:  # fmt: skip
    """Per kernel name, the threads that one `run()` of the job sent through the checked copy
    (`checked_threads` before and after it)."""
    kernels = job_kernels(launches, scope)
    before = checked_threads(kernels, rt)
    run()
    return {name: n - before.get(name, 0) for name, n in checked_threads(kernels, rt).items()}


def reports(launches: list[Any], scope: dict[str, Any], rt: Any,
            checked: dict[str, int] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """What `passes/bounds/` did to each kernel of the job (from its compiled
    specialisations); `checked`: the threads of one run of the job that took the checked
    copy, per kernel (`checked_threads`), said beside the checks it kept."""
    out = []
    for k in job_kernels(launches, scope):
        for spec in k.specialisations(rt.name):
            rep = spec.fn.attrs.get("bounds")
            if rep is None:
                continue
            kept = [f"line {ln} `{arr}`: {why}" for ln, arr, why in rep.kept]
            n = (checked or {}).get(k.__name__, 0)
            if n:
                total = sum(_threads(g) * _threads(b) for kk, g, b, *_ in launches
                            if kk.__name__ == k.__name__)  # fmt: skip
                kept.append(f"the block test failed for {n} of {total} threads a run "
                            "(those blocks ran the checked copy)")  # fmt: skip
            out.append({
                "kernel": k.__name__,
                "proven": rep.proven,
                "per_block": rep.hoisted,
                "checked": rep.checked,
                "tests": rep.tests,
                "kept": kept,
                "checked_threads": n,
            })  # fmt: skip
            break
    return out


def _threads(dim: Any) -> int:
    """The count of a launch's blocks or threads (an int or a tuple)."""
    return int(np.prod(dim)) if isinstance(dim, (tuple, list)) else int(dim)


def time_entry(e: Entry, sides: tuple[str, ...], rounds: int, calls: int,
               rt: Any) -> dict[str, Any] | str:  # fmt: skip
    """Time job `e` with checks on and/or off (`sides`), taking turns: its row (fastest ms
    and every time per side, what the bounds pass did), or why it failed."""
    made: dict[str, tuple[Run, Run, Any]] = {}
    if "on" in sides:
        made["on"] = e.make()
    if "off" in sides:
        made["off"] = build_off(e)
    for side, (run, res, launches) in made.items():
        run()  # compiles
        err = e.check(res())
        if not err < e.tol:
            return f"{e.name} with checks {side}: relative error {err:.3g}"
        if side == "off" and (why := wrong_side(launches, rt)) is not None:
            return f"{e.name} with checks off: {why}"
    times = round_robin([m[0] for m in made.values()], rounds, calls)
    for side, (_, res, _) in made.items():
        err = e.check(res())
        if not err < e.tol:
            return f"after timing: {e.name} checks {side}: {err:.3g}"
    row: dict[str, Any] = {"job": e.name}
    for side, ts in zip(made, times):
        row[f"{side}_ms"] = min(ts) * 1e3
        row[f"{side}_times"] = ts
    if len(made) == 2:
        row["ratio"] = row["on_ms"] / row["off_ms"]
        row["median_ratio"] = median_ms(times[0]) / median_ms(times[1])
    if "on" in made:  # one more run of the checked side: the threads that took its checked copy
        run, _, launches = made["on"]
        row["kernels"] = reports(launches, e.scope, rt, checked_in_run(run, launches, e.scope, rt))
    else:
        row["kernels"] = []
    return row


def in_processes(e: Entry, args: argparse.Namespace) -> dict[str, Any] | str:
    """Job `e` timed in `args.processes` fresh processes per side, the sides taking turns
    (on, off, off, on, ...): each process compiles and times one side alone (its own
    `--rounds` turns), so what differs from process to process (where the code and the
    arrays land) shows as a spread of each side's times, beside the difference of the sides."""
    best: dict[str, list[float]] = {"on": [], "off": []}
    kernels: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="simt-bounds-") as tmp:
        for i in range(args.processes):
            for side in ("on", "off") if i % 2 == 0 else ("off", "on"):
                out = Path(tmp) / f"{side}{i}.json"
                build = "off" if args.same else side  # --same: the "on" column unchecked too
                cmd = [sys.executable, str(Path(__file__).resolve()), "--backend", args.backend,
                       "--size", args.size, "--rounds", str(args.rounds), "--calls",
                       str(args.calls), "--only", e.name, "--side", build, "--json", str(out)]
                done = subprocess.run(cmd, capture_output=True, text=True)  # noqa: S603
                if done.returncode != 0 or not out.exists():
                    return (f"{e.name} checks {side} in process {i + 1}: exit "
                            f"{done.returncode}\n{done.stderr.strip()}")  # fmt: skip
                row = json.loads(out.read_text())["rows"][0]
                best[side].append(row[f"{build}_ms"])
                kernels = row["kernels"] or kernels
    on, off = min(best["on"]), min(best["off"])
    return {"job": e.name, "on_ms": on, "off_ms": off, "ratio": on / off,
            "median_ratio": statistics.median(best["on"]) / statistics.median(best["off"]),
            "on_spread": max(best["on"]) / on, "off_spread": max(best["off"]) / off,
            "on_each": best["on"], "off_each": best["off"], "kernels": kernels}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Run the table; 0 on success, 2 on a wrong answer."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--size", default="full", choices=("full", "quick"))
    ap.add_argument("--rounds", type=int, default=5, help="turns per variant (default 5)")
    ap.add_argument("--calls", type=int, default=3, help="calls per turn, the first left out")
    ap.add_argument("--only", default="", help="comma-separated job names (default: all)")
    ap.add_argument("--processes", type=int, default=0, metavar="N",
                    help="time each side in N fresh processes, taking turns (default: both "
                         "sides in this process)")  # fmt: skip
    ap.add_argument("--same", action="store_true",
                    help="with --processes: both columns time the checks-off build (an A/A "
                         "run: the ratio placement alone gives)")  # fmt: skip
    ap.add_argument("--side", default="both", choices=("both", "on", "off"),
                    help=argparse.SUPPRESS)  # (one side alone: the processes of --processes)
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    if args.same and not args.processes:
        ap.error("--same needs --processes N (one build in one process has one ratio: 1)")
    if "boundscheck" not in inspect.signature(Kernel).parameters:
        print("this simt has no @simt.kernel(boundscheck=False): nothing to compare against",
              file=sys.stderr)  # fmt: skip
        return 2
    simt.use(args.backend)
    rt = registry.current()
    want = {x for x in args.only.split(",") if x}
    entries = (suite_entries(args.size, want) + job_entries(args.size, want)
               + kept_entries(args.size, want))  # fmt: skip
    unknown = sorted(w for w in want if not any(wanted(e.name, {w}) for e in entries))
    if unknown:
        every = [e.name for make in (suite_entries, job_entries, kept_entries)
                 for e in make("quick")]  # fmt: skip
        print(f"no job named {', '.join(unknown)}; the jobs: {', '.join(every)}",
              file=sys.stderr)  # fmt: skip
        return 2
    sides = ("on", "off") if args.side == "both" else (args.side,)
    busy0, own0, wall0 = busy_cpu_s(), own_cpu_s(), time.perf_counter()
    rows = []
    for e in entries:
        got = (in_processes(e, args) if args.processes > 0
               else time_entry(e, sides, args.rounds, args.calls, rt))  # fmt: skip
        if isinstance(got, str):
            print(f"FAIL: {got}", file=sys.stderr)
            return 2
        rows.append(got)
        if args.side != "both":
            continue
        counts = " ".join(
            f"{r['kernel']}: {r['proven']}/{r['per_block']}/{r['checked']}" for r in got["kernels"]
        )
        spread = ""
        if args.processes:
            spread = (f"; slowest/fastest of {args.processes} processes: on "
                      f"{got['on_spread']:.2f}x, off {got['off_spread']:.2f}x")  # fmt: skip
        print(f"{e.name}: on {got['on_ms']:.3g} ms, off {got['off_ms']:.3g} ms, "
              f"{got['ratio']:.3f}x{spread}  (proven/per block/checked {counts})", flush=True)
    if args.side != "both":  # a process of --processes: its row for the parent
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"rows": rows}, f)
        return 0
    wall = time.perf_counter() - wall0
    busy1, own1 = busy_cpu_s(), own_cpu_s()
    other = None if busy0 is None or busy1 is None else max(0.0, busy1 - busy0 - (own1 - own0))
    where = (f"each side in {args.processes} fresh processes taking turns"
             if args.processes else "both sides in one process, taking turns")  # fmt: skip
    what = ("A/A: the checks-off build in both columns" if args.same
            else "bounds checks on / off")  # fmt: skip
    print(f"\n## {what} on {args.backend} ({args.size} sizes; {where})\n")
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, {os.cpu_count()} cores, "
          f"{wall:.0f} s" + (f"; other processes used {other:.0f} CPU-seconds meanwhile"
                             if other is not None else "") + ".")  # fmt: skip
    last = "spread on / off" if args.processes else "(medians)"
    cols = "off (A) ms | off (B) ms | A / B" if args.same else "checks on ms | off ms | on / off"
    print(f"\n| job | {cols} | {last} | kernel: proven / per block / checked | checks kept (why) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        ks = "; ".join(f"{k['kernel']}: {k['proven']} / {k['per_block']} / {k['checked']}"
                       for k in r["kernels"])  # fmt: skip
        kept = "; ".join(x for k in r["kernels"] for x in _merge(k["kept"])) or "—"
        extra = (f"{r['on_spread']:.2f} / {r['off_spread']:.2f}" if args.processes
                 else f"{r['median_ratio']:.2f}")  # fmt: skip
        print(f"| {r['job']} | {r['on_ms']:.3g} | {r['off_ms']:.3g} | {r['ratio']:.3f} "
              f"| {extra} | {ks} | {kept} |")  # fmt: skip
    worst = max(rows, key=lambda r: r["ratio"]) if rows else None
    if worst is not None:
        print(f"\nWorst ratio: {worst['job']} {worst['ratio']:.3f}x; "
              f"{sum(r['ratio'] <= 1.05 for r in rows)} of {len(rows)} jobs within 1.05x.")
    if args.processes:
        moved = [r["job"] for r in rows
                 if max(r["on_spread"], r["off_spread"]) - 1 > abs(r["ratio"] - 1)]  # fmt: skip
        if moved:
            print("Placement, not checks: one side's time moved more between its processes "
                  f"than the sides differ in {', '.join(moved)}.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"backend": args.backend, "size": args.size, "other_cpu_s": other,
                       "processes": args.processes, "same": args.same, "rows": rows}, f,
                      indent=1)  # fmt: skip
    return 0


def _merge(kept: list[str]) -> list[str]:
    """Identical reasons once, with a count."""
    seen: dict[str, int] = {}
    for k in kept:
        seen[k] = seen.get(k, 0) + 1
    return [k if n == 1 else f"{k} (x{n})" for k, n in seen.items()]


if __name__ == "__main__":
    sys.exit(main())
