"""The benchmark suite W1-W6: simt's GPU-style kernels timed beside NumPy and the C references.

    PYTHONPATH=src python bench/suite.py --backend cpu            # full sizes
    PYTHONPATH=src python bench/suite.py --backend sim --quick    # small sizes
    PYTHONPATH=src python bench/suite.py --json out.json --workloads colsum,matmul

Every result (simt's, NumPy's, each C reference's) is checked against a float64 NumPy reference
before it is timed; a wrong answer stops the run with a non-zero exit. The C references
(`c`: the plain per-thread kernel with OpenMP; `c-tuned`: threads mapped to SIMD lanes) are
built and called through the peer kit's own modules in `../shared/peers` when that folder
exists; the output says so plainly when it does not. The table shows first-call time
(compilation included) and the warm median, and simt's time as a ratio of each peer's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workloads as W  # noqa: E402 - a sibling module of this script

import simt  # noqa: E402
from simt.benchtool.suite import Kit  # noqa: E402 - the peer kit's C references
from simt.benchtool.suite_cli import WrongAnswer, busy_cpu_s, own_cpu_s  # noqa: E402
from simt.runtime import registry  # noqa: E402

DEFAULT_KIT = HERE.parent.parent / "shared" / "peers"

# issue 3's targets: workload -> (peer the ratio is taken against, the largest ratio allowed)
TARGETS: dict[str, tuple[str, float]] = {
    "colsum": ("c-tuned", 1.25),
    "vecadd": ("c", 1.2),
    "mandel": ("c-tuned", 1.25),
    "sobel": ("c-tuned", 1.25),
    "reduce": ("numpy", 1.5),
    "matmul": ("c-tuned", 1.25),
}
FIRST_CALL_TARGET_MS = 200.0
CACHED_READY_TARGET_MS = 50.0


def _time(run: Callable[[], None], reps: int, budget_s: float) -> dict[str, float]:
    times: list[float] = []
    while len(times) < reps:
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
        if len(times) >= 3 and sum(times) + times[-1] > budget_s:
            break  # slow cells (naive matmul) stop after the budget, with at least 3 runs
    return {"median_ms": statistics.median(times) * 1e3, "min_ms": min(times) * 1e3,
            "n": len(times)}  # fmt: skip


def _check(who: str, wl: str, out: Any, ref: Any) -> float:
    err = W.rel_err(wl, out, ref)
    if not err < W.TOL:
        raise WrongAnswer(
            f"FAIL: {who} on {W.LABELS[wl]} differs from the float64 reference: relative error "
            f"{err:.3g} >= {W.TOL}. Nothing was timed."
        )
    return err


def _measure(who: str, wl: str, run: Callable[[], None], result: Callable[[], Any], ref: Any,
             reps: int, budget_s: float) -> dict[str, Any]:  # fmt: skip
    """First call (checked), then warm runs (the last one checked too)."""
    t0 = time.perf_counter()
    run()
    first_ms = (time.perf_counter() - t0) * 1e3
    err = _check(who, wl, result(), ref)
    warm = _time(run, reps, budget_s)
    err = max(err, _check(who, wl, result(), ref))
    return {"first_ms": first_ms, "err": err, **warm}


# ------------------------------------------------------------------------------- the suite
def run_workload(wl: str, p: dict[str, int], kit: Kit, reps: int, budget_s: float,
                 log: Callable[[str], None]) -> dict[str, Any]:  # fmt: skip
    """simt, NumPy and the C references on one workload; every result checked first."""
    inp = W.make_inputs(wl, p)
    ref = W.reference(wl, inp, p)
    row: dict[str, Any] = {"workload": wl, "label": W.LABELS[wl], "size": p}

    t0 = time.perf_counter()
    s = W.make_simt(wl, inp, p)
    row["simt_setup_ms"] = (time.perf_counter() - t0) * 1e3
    row["simt"] = _measure("simt", wl, s.run, s.result, ref, reps, budget_s)
    log(f"  simt     {row['simt']['median_ms']:10.3f} ms (first {row['simt']['first_ms']:.1f})")

    run, result = W.make_numpy(wl, inp, p)
    row["numpy"] = _measure("numpy", wl, run, result, ref, reps, budget_s)
    log(f"  numpy    {row['numpy']['median_ms']:10.3f} ms")

    for name in ("c", "c-tuned"):
        made = kit.make(name, wl, inp, p)
        if made is None:
            continue
        row[name] = _measure(name, wl, made[0], made[1], ref, reps, budget_s)
        log(f"  {name:8s} {row[name]['median_ms']:10.3f} ms")
    return row


def _fmt_ms(ms: float) -> str:
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    return f"{ms:.3g}" if ms >= 1 else f"{ms:.3f}"


def table(rows: list[dict[str, Any]], peers: list[str], reps: int, targets: bool) -> str:
    """The markdown table: warm median ms (first-call ms) per tool, then simt's ratios, then
    issue 3's target for the workload when `targets` (they are the `cpu` backend's)."""
    head = ["workload", "simt", *peers] + [f"simt / {p}" for p in peers]
    head += ["target"] if targets else []
    head += ["other CPU"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["label"]]
        for who in ["simt", *peers]:
            m = r.get(who)
            if m is None:
                cells.append("—")
                continue
            cell = f"{_fmt_ms(m['median_ms'])} ({_fmt_ms(m['first_ms'])})"
            if m["n"] < reps:
                cell += f" n={m['n']}"
            cells.append(cell)
        for who in peers:
            m = r.get(who)
            cells.append(f"{r['simt']['median_ms'] / m['median_ms']:.2f}x" if m else "—")
        target, limit = TARGETS[r["workload"]]
        m = r.get(target)
        if not targets:
            pass
        elif m is None:
            cells.append(f"≤{limit}x {target}: not measured")
        else:
            ratio = r["simt"]["median_ms"] / m["median_ms"]
            verdict = "met" if ratio <= limit else f"MISSED by {ratio / limit:.2f}x"
            cells.append(f"≤{limit}x {target}: {verdict}")
        noise = f"{100 * r.get('other_cpu', 0.0):.0f} %"
        if r.get("attempts", 1) > 1:
            noise += f" ({r['attempts']} tries)"
        cells.append(noise)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def first_call_table(
    rows: list[dict[str, Any]], targets: bool, ready: dict[str, float] | None
) -> str:
    """First call (specialise, compile, launch, wait) and its cost over a warm run, judged
    against issue 3's 0.2 s per kernel when `targets` (the first run of a 1 s kernel cannot be
    under 0.2 s, so the target is read as the compile overhead); `ready` adds the time a fresh
    process takes to its first launch with the disk cache warm (target 50 ms)."""
    lines = ["| workload | first call ms | warm median ms | first - warm (compile) ms |"
             + (" target |" if targets else "")
             + (" fresh process, cached: ready ms |" if ready is not None else ""),
             "|---|---|---|---|" + ("---|" if targets else "")
             + ("---|" if ready is not None else "")]  # fmt: skip
    for r in rows:
        m = r["simt"]
        compile_ms = m["first_ms"] - m["median_ms"]
        line = f"| {r['label']} | {m['first_ms']:.1f} | {m['median_ms']:.2f} | {compile_ms:.1f} |"
        if targets:
            ok = "met" if compile_ms < FIRST_CALL_TARGET_MS else "MISSED"
            line += f" compile <{FIRST_CALL_TARGET_MS:.0f} ms: {ok} |"
        if ready is not None:
            ms = ready.get(r["workload"])
            if ms is None:
                line += " — |"
            else:
                verdict = "met" if ms < CACHED_READY_TARGET_MS else "MISSED"
                line += f" {ms:.1f}" + (f" (<{CACHED_READY_TARGET_MS:.0f}: {verdict})" if targets
                                        else "") + " |"  # fmt: skip
        lines.append(line)
    return "\n".join(lines)


def cached_ready(backend: str, cache: str | None, wls: list[str],
                 quick: bool = False) -> dict[str, float] | None:  # fmt: skip
    """In a fresh process whose disk cache holds the suite's kernels: ms from a kernel's first
    launch to its return (specialise, load the cached object, run on the run's own sizes, so
    that the launches ask for the code variants the run compiled), minus
    a second launch's time, so what is left is the time to get ready (interpreter start and
    `import simt` not included). None if it failed."""
    import subprocess

    env = dict(os.environ) if cache is None else dict(os.environ, SIMT_CACHE_DIR=cache)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--backend", backend,
           "--workloads", ",".join(wls), "--_ready", *(["--quick"] if quick else [])]  # fmt: skip
    try:
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - an optional measurement: the table says it is missing
        return None


def _ready(wls: list[str], size: str = "quick") -> dict[str, float]:
    """The child side of `cached_ready`."""
    ready = {}
    for wl in wls:
        p = W.SIZES[size][wl]
        s = W.make_simt(wl, W.make_inputs(wl, p), p)
        t0 = time.perf_counter()
        s.run()
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        s.run()
        ready[wl] = max(0.0, first - (time.perf_counter() - t0)) * 1e3
    return ready


def sources_compiled() -> bool:
    """Whether a new Python process here compiles simt's modules from source every time: bytecode
    is not written (PYTHONDONTWRITEBYTECODE) and none was written before (no .pyc of the
    pipeline, the first module a first launch imports)."""
    if not sys.flags.dont_write_bytecode:
        return False
    import importlib.util

    spec = importlib.util.find_spec("simt.pipeline")
    cached = spec.cached if spec is not None else None
    return not (cached and os.path.exists(cached))


def machine(backend: str) -> dict[str, Any]:
    """What ran the suite: CPU, cores, Python, NumPy, simt's backend and what it reports."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info: dict[str, Any] = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "simt": simt.__version__,
        "backend": backend,
    }
    try:
        info["backend_info"] = registry.get(backend).info()
    except Exception as e:  # noqa: BLE001 - the info line is a courtesy, never fatal
        info["backend_info"] = f"{type(e).__name__}: {e}"
    return info


def main(argv: list[str] | None = None) -> int:
    """Run the suite and print the table; 1 if the backend is missing, 2 on a wrong answer."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--backend", default="cpu", choices=["cpu", "sim", "cuda", "webgpu"])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    ap.add_argument("--json", metavar="FILE", help="also write the raw results as JSON")
    ap.add_argument("--workloads", default=",".join(W.LABELS), help="comma-separated ids")
    ap.add_argument("--reps", type=int, default=10, help="warm runs per cell (default 10)")
    ap.add_argument(
        "--budget",
        type=float,
        default=8.0,
        help="seconds of warm runs per cell before stopping (at least 3 runs)",
    )
    ap.add_argument(
        "--kit",
        type=Path,
        default=DEFAULT_KIT,
        help=f"the peer kit with the C references (default {DEFAULT_KIT})",
    )
    ap.add_argument(
        "--warm-cache",
        action="store_true",
        help="keep simt's disk cache (default: a fresh one, so first calls compile cold)",
    )
    ap.add_argument(
        "--retries",
        type=int,
        default=0,
        help="redo a workload up to N times while other processes keep the machine busy",
    )
    ap.add_argument(
        "--max-noise",
        type=float,
        default=0.05,
        help="share of the machine other processes may take before a retry (default 0.05)",
    )
    ap.add_argument("--_ready", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    ok, why = registry.probe(args.backend)
    if not ok:
        print(f"backend {args.backend!r} is not available here: {why}", file=sys.stderr)
        return 1
    simt.use(args.backend)
    wls = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = [w for w in wls if w not in W.LABELS]
    if unknown:
        ap.error(f"unknown workloads {unknown}; choose from {', '.join(W.LABELS)}")
    if args._ready:
        print(json.dumps(_ready(wls, "quick" if args.quick else "full")))
        return 0
    with tempfile.TemporaryDirectory(prefix="simt-bench-cache-") as cache:
        if not args.warm_cache:
            os.environ["SIMT_CACHE_DIR"] = cache
        return _suite(args, wls)


def _quietest(
    wl: str, p: dict[str, int], kit: Kit, args: argparse.Namespace, log: Callable[[str], None]
) -> dict[str, Any]:
    """`run_workload`, repeated up to `--retries` times while other processes took more than
    `--max-noise` of the machine; the warm timings of the quietest attempt are kept, the first
    calls of the first attempt (the only cold compile)."""
    best: dict[str, Any] | None = None
    first: dict[str, Any] | None = None
    for attempt in range(1 + args.retries):
        busy0, own0, t0 = busy_cpu_s(), own_cpu_s(), time.perf_counter()
        log(f"{W.LABELS[wl]} {p}" + (f" (retry {attempt}: busy machine)" if attempt else ""))
        row = run_workload(wl, p, kit, args.reps, args.budget, log)
        busy1, own1, wall = busy_cpu_s(), own_cpu_s(), time.perf_counter() - t0
        if busy0 is not None and busy1 is not None:
            other = max(0.0, (busy1 - busy0) - (own1 - own0))
            row["other_cpu"] = other / (wall * (os.cpu_count() or 1))
        else:
            row["other_cpu"] = 0.0
        first = first or row
        if best is None or row["other_cpu"] < best["other_cpu"]:
            best = row
        if best["other_cpu"] <= args.max_noise:
            break
    assert best is not None and first is not None
    for who in ("simt", "numpy", "c", "c-tuned"):
        if who in best and who in first:
            best[who]["first_ms"] = first[who]["first_ms"]
    best["attempts"] = attempt + 1
    return best


def _suite(args: argparse.Namespace, wls: list[str]) -> int:
    """The suite proper (see `main`)."""
    size = "quick" if args.quick else "full"

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    kit = Kit(args.kit)
    log(kit.status)
    busy0, own0, wall0 = busy_cpu_s(), own_cpu_s(), time.perf_counter()
    rows = []
    try:
        for wl in wls:
            rows.append(_quietest(wl, W.SIZES[size][wl], kit, args, log))
    except WrongAnswer as e:
        print(e, file=sys.stderr)
        return 2

    busy1, own1, wall = busy_cpu_s(), own_cpu_s(), time.perf_counter() - wall0
    peers = ["numpy", *[p for p in ("c", "c-tuned") if p in kit.peers]]
    mach = machine(args.backend)
    if busy0 is not None and busy1 is not None:
        other = max(0.0, (busy1 - busy0) - (own1 - own0))
        mach["other_cpu_s"] = round(other, 1)
        noise = (f"Noise: OTHER processes used {other:.1f} CPU-seconds during the {wall:.1f} s "
                 f"run (rerun if that is not about 0: on a 2-core machine one busy neighbour "
                 f"makes 2-thread timings several times worse).")  # fmt: skip
    else:
        noise = "Noise: /proc/stat unreadable, other processes' CPU use unknown."
    print(f"## simt suite W1-W6 on `{args.backend}` ({size} sizes)\n")
    print(f"Machine: {mach['cpu']}, {mach['cores']} cores; {mach['os']}; Python "
          f"{mach['python']}, NumPy {mach['numpy']}, simt {mach['simt']}.")  # fmt: skip
    print(f"Backend: {mach['backend_info']}")
    print(f"{kit.status}.")
    print(f"{noise}\n")
    print("Cells: warm median (first call), ms unless marked; every result checked against "
          "a float64 NumPy reference (relative error < 1e-4) before timing. 'other CPU': the "
          "share of the machine other processes used while the row ran.\n")  # fmt: skip
    targets = args.backend == "cpu" and not args.quick
    ready = cached_ready(args.backend, os.environ.get("SIMT_CACHE_DIR"), wls, args.quick)
    if not args.warm_cache:
        log("(first calls compiled into a fresh, empty disk cache)")
    print(table(rows, peers, args.reps, targets))
    print()
    print(first_call_table(rows, targets, ready))
    if ready is not None and sources_compiled():
        print(
            "\n(this environment sets PYTHONDONTWRITEBYTECODE and simt has no .pyc files: the "
            "fresh process compiles the modules its first launch imports from source, 25-45 "
            "ms of 'ready' on the 2-core dev machine; an installed simt has its .pyc files)"
        )
    if not targets:
        print("\n(issue 3's targets are for the `cpu` backend at full sizes; not judged here)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": mach, "size": size, "kit": kit.status, "rows": rows}, f,
                      indent=1)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
