"""`simt bench`: the W1-W6 suite (and user files) on chosen backends, a table of measured
against predicted, `--json` for the raw numbers and `--plot` for a bar chart."""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from . import workloads as W


class WrongAnswer(Exception):
    """A result is wrong: nothing of it is timed, and `simt bench` exits with 2."""


def busy_cpu_s() -> float | None:
    """CPU-seconds the machine has been busy (every process), from /proc/stat; None if unknown."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    steal = fields[7] if len(fields) > 7 else 0
    return (sum(fields[:8]) - idle - steal) / os.sysconf("SC_CLK_TCK")


def own_cpu_s() -> float:
    """CPU-seconds this process and its children have used."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _stats(samples: list[float]) -> dict[str, Any]:
    return {
        "median": statistics.median(samples),
        "mean": statistics.fmean(samples),
        "std": statistics.stdev(samples) if len(samples) > 1 else 0.0,
        "min": min(samples),
        "max": max(samples),
        "n": len(samples),
        "samples": samples,
    }


def _check(who: str, label: str, err: float, tol: float) -> float:
    if not err < tol:
        raise WrongAnswer(
            f"FAIL: {who} on {label}: relative error {err:.3g} >= {tol} against the float64 "
            "reference. Nothing was timed."
        )
    return err


def measure_one(b: Any, backend: str, reps: int, budget: float, prof: Any) -> dict[str, Any]:
    """First run (compiles; checked), then timed runs of simt and of each baseline."""
    from .timing import sample

    row: dict[str, Any] = {"workload": b.name, "label": b.label, "backend": backend,
                           "size": b.size}  # fmt: skip
    t0 = time.perf_counter()
    b.run()
    row["first_s"] = time.perf_counter() - t0
    row["err"] = _check(f"simt/{backend}", b.label, b.check_result(b.result()), b.tol)
    import simt

    from ..runtime import registry
    from .timing import device_timer

    timer = device_timer(registry.current())
    samples = sample(b.run, simt.synchronize, 0, reps, 0.0, max_time=budget, timer=timer)
    row["timer"] = "CUDA events" if timer is not None else "host clock, synchronised"
    row["simt"] = _stats(samples)
    _check(f"simt/{backend}", b.label, b.check_result(b.result()), b.tol)
    cost = None
    if b.cost_of is not None:
        try:
            cost = b.cost_of()
        except Exception as e:  # noqa: BLE001 - a kernel the model cannot read: say so
            row["cost_error"] = f"{type(e).__name__}: {e}"
    if cost is not None:
        row["cost"] = cost.as_dict()
        med = row["simt"]["median"]
        row["predicted_s"] = cost.time
        row["gbps"] = cost.bytes_moved / med / 1e9
        row["gflops"] = cost.flops / med / 1e9
        memory = cost.bound in ("memory", "memory latency")
        peak = prof.copy_bandwidth / 1e9 if memory else prof.peak_flops / 1e9
        # a memory-bound kernel against the bytes that must cross the memory bus (its
        # footprint), not the bytes its threads load, most of which a cache may serve
        dram_gbps = cost.dram_bytes / med / 1e9
        row["pct_peak"] = 100 * (dram_gbps if memory else row["gflops"]) / peak
        row["peak_kind"] = "bandwidth" if memory else "flops"
    if b.launch is not None and b.launch[0] is not None:
        try:
            from .advise import advise

            k, g, blk, args = b.launch
            row["advice"] = [a.message for a in advise(k, g, blk, args, warn=False, prof=prof)]
        except Exception:  # noqa: BLE001 - advice is a courtesy
            pass
    row["baselines"] = {}
    for name, (run, result) in b.baselines.items():
        t0 = time.perf_counter()
        run()
        first = time.perf_counter() - t0
        _check(name, b.label, b.check_result(result()), b.tol)
        if first > budget:
            samples = [first]  # a slow reference (the per-thread C matmul): one run is enough
        else:
            samples = sample(run, lambda: None, 0, reps, 0.0, max_time=budget, min_samples=1)
        _check(name, b.label, b.check_result(result()), b.tol)
        row["baselines"][name] = _stats(samples)
    return row


def _ms(s: float) -> str:
    ms = s * 1e3
    if ms >= 1000:
        return f"{ms / 1000:.2f} s"
    return f"{ms:.3g}" if ms >= 1 else f"{ms:.3f}"


def table(rows: list[dict[str, Any]]) -> str:
    """The markdown table: measured, spread, GB/s, % of peak, predicted, and the ratio of
    simt's time to each baseline's."""
    names: list[str] = []
    for r in rows:
        for n in r.get("baselines", {}):
            if n not in names:
                names.append(n)
    head = ["workload", "backend", "simt ms", "± std", "min ms", "GB/s", "% peak",
            "predicted ms", "pred / meas", "bound"] + [f"simt / {n}" for n in names]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        m = r["simt"]
        cells = [r["label"], r["backend"], _ms(m["median"]), _ms(m["std"]), _ms(m["min"])]
        if "predicted_s" in r:
            c = r["cost"]
            cells += [
                f"{r['gbps']:.2f}",
                f"{r['pct_peak']:.0f}% {'FLOP/s' if r['peak_kind'] == 'flops' else 'BW'}",
                _ms(r["predicted_s"]),
                f"{r['predicted_s'] / m['median']:.2f}",
                c["bound"],
            ]
        else:
            cells += ["—"] * 5
        for n in names:
            bl = r.get("baselines", {}).get(n)
            cells.append(f"{m['median'] / bl['median']:.2f}x" if bl else "—")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: str) -> str | None:
    """A bar chart (log scale) of every tool's median with std error bars; None on success,
    else why not."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "--plot needs matplotlib (pip install matplotlib); no chart written"
    tools: list[str] = ["simt"]
    for r in rows:
        for n in r.get("baselines", {}):
            if n not in tools:
                tools.append(n)
    labels = [f"{r['label']} ({r['backend']})" for r in rows]
    x = np.arange(len(rows))
    width = 0.8 / len(tools)
    fig, ax = plt.subplots(figsize=(max(6, 1.4 * len(rows)), 4))
    for i, t in enumerate(tools):
        vals, errs = [], []
        for r in rows:
            m = r["simt"] if t == "simt" else r.get("baselines", {}).get(t)
            vals.append(m["median"] * 1e3 if m else np.nan)
            errs.append(m["std"] * 1e3 if m else 0.0)
        ax.bar(x + i * width, vals, width, yerr=errs, capsize=2, label=t)
    ax.set_xticks(x + width * (len(tools) - 1) / 2, labels, rotation=20, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("median ms (log)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return None


class _Progress:
    """A rich progress bar on stderr when rich is installed, else one line per step."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.quiet = quiet
        self.bar: Any = None
        if quiet:
            return
        try:
            from rich.progress import Progress

            self.bar = Progress(transient=True)
            self.bar.start()
            self.task = self.bar.add_task("simt bench", total=total)
        except ImportError:
            self.bar = None

    def step(self, what: str) -> None:
        if self.quiet:
            return
        if self.bar is not None:
            self.bar.update(self.task, description=what)
        else:
            print(f"  {what} ...", file=sys.stderr, flush=True)

    def done(self) -> None:
        if self.bar is not None:
            self.bar.advance(self.task)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def bench_files(paths: list[str]) -> list[str]:
    """The benchmark files named: a folder stands for its `*.py` files (not those whose name
    starts with `_`, which are its helpers), in name order."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            out += [str(f) for f in sorted(path.glob("*.py")) if not f.name.startswith("_")]
        else:
            out.append(p)
    return out


def run(argv: list[str]) -> int:
    """`simt bench [FILES] [--backend B] [--quick] [--json F] [--plot F.png]`; 0 on success,
    1 when no backend asked for is present or an answer is wrong."""
    from ..errors import SimtError, file_error
    from ..runtime import registry
    from .profile import load_profile
    from .suite import Kit, _kit_default, user_benchmarks, workload

    ap = argparse.ArgumentParser(prog="simt bench", description=__doc__)
    ap.add_argument(
        "files",
        nargs="*",
        help="user benchmark files (functions named bench_*), or folders of them",
    )
    ap.add_argument(
        "--backend",
        action="append",
        help="backend(s), repeatable or comma-separated (default: the current one)",
    )
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke test")
    ap.add_argument(
        "--workloads",
        default=None,
        help="comma-separated workloads, by id (W1-W6) or name (colsum, vecadd, mandel, "
        "sobel, reduce, matmul); 'none' for only the files given (the default when files are "
        "given; else all six)",
    )
    ap.add_argument("--reps", type=int, default=10, help="timed runs per cell (default 10)")
    ap.add_argument(
        "--budget",
        type=float,
        default=2.0,
        help="seconds of timed runs per cell before stopping (default 2)",
    )
    ap.add_argument("--json", metavar="FILE", help="write the raw numbers as JSON")
    ap.add_argument("--plot", metavar="FILE.png", help="a bar chart with error bars (matplotlib)")
    ap.add_argument("--no-baselines", action="store_true", help="time simt only")
    ap.add_argument(
        "--kit",
        type=Path,
        default=None,
        metavar="FOLDER",
        help="a folder of C reference programs to time beside simt (its cbuild.py builds "
        "them); without one, simt is timed against NumPy only",
    )
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    args = ap.parse_args(argv)  # fmt: skip

    import simt

    backends: list[str] = []
    for item in args.backend or [registry.current().name]:
        backends += [b.strip() for b in item.split(",") if b.strip()]
    if args.workloads is None:
        args.workloads = "none" if args.files else ",".join(W.LABELS)
    by_id = {label.split()[0].lower(): name for name, label in W.LABELS.items()}
    wls = [] if args.workloads == "none" else [
        by_id.get(w.strip().lower(), w.strip().lower()) for w in args.workloads.split(",")
    ]  # fmt: skip
    missing = [f for f in args.files if not Path(f).exists()]
    if missing:
        ap.error(f"no such file or folder: {missing[0]}")
    args.files = bench_files(args.files)
    unknown = [w for w in wls if w not in W.LABELS]
    if unknown:
        ap.error(
            f"unknown workload {unknown[0]!r}; choose from W1-W6 or "
            f"{', '.join(W.LABELS)}"
        )
    size = "quick" if args.quick else "full"
    kit = None
    if not args.no_baselines and any(registry.has(b, "host_memory") for b in backends):
        kit = Kit(args.kit or _kit_default())
    present = []
    for b in backends:
        ok, why = registry.probe(b)
        if ok:
            present.append(b)
        else:
            print(f"simt bench: backend {b!r} is not available: {why}", file=sys.stderr)
    if not present:
        return 1
    busy0, own0, wall0 = busy_cpu_s(), own_cpu_s(), time.perf_counter()
    rows: list[dict[str, Any]] = []
    total = len(present) * (len(wls) + 0) + len(present) * len(args.files) * 4
    bar = _Progress(max(total, 1), args.quiet)
    profiles: dict[str, Any] = {}
    try:
        for backend in present:
            simt.use(backend)
            prof = profiles[backend] = load_profile(backend)
            bench_list = []
            for wl in wls:
                bar.step(f"{backend}: {W.LABELS[wl]} (setup)")
                bench_list.append(workload(wl, size, kit, not args.no_baselines, backend))
                bar.step(f"{backend}: {W.LABELS[wl]}")
                rows.append(measure_one(bench_list[-1], backend, args.reps, args.budget, prof))
                bench_list.clear()  # free the inputs before the next workload
                bar.done()
            for f in args.files:
                try:
                    user = user_benchmarks(f)
                except (SimtError, WrongAnswer):
                    raise
                except Exception as e:  # noqa: BLE001 - the user's file failed: one line
                    bar.stop()
                    print(f"simt bench: error: {file_error(f, e)}", file=sys.stderr)
                    return 1
                for ub in user:
                    bar.step(f"{backend}: {ub.label}")
                    rows.append(measure_one(ub, backend, args.reps, args.budget, prof))
                    bar.done()
    except WrongAnswer as e:
        bar.stop()
        print(e, file=sys.stderr)
        return 1  # the command failed (2 is for a command line that cannot be carried out)
    except SimtError as e:
        bar.stop()
        print(f"simt bench: {e}", file=sys.stderr)
        return 1
    bar.stop()
    wall = time.perf_counter() - wall0
    busy1, own1 = busy_cpu_s(), own_cpu_s()
    other = None
    if busy0 is not None and busy1 is not None:
        other = max(0.0, (busy1 - busy0) - (own1 - own0))
    print(f"## simt bench ({size} sizes) on {', '.join(present)}\n")
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, simt {simt.__version__}, "
          f"{os.cpu_count()} cores; {wall:.1f} s in all.")  # fmt: skip
    for b, prof in profiles.items():
        print(f"Profile {b}: " + "; ".join(prof.lines()))
    if kit is not None:
        print(kit.status + ".")
    if other is not None:
        print(f"Noise: other processes used {other:.1f} CPU-seconds during the run "
              "(about 0 on a quiet machine; more means the times are inflated).")  # fmt: skip
    print("\nCells: median of the timed runs; every result was checked against a float64 "
          "reference first. pred / meas = predicted / measured (median) time; % peak is the "
          "footprint's bandwidth over the profile's copy bandwidth for memory-bound kernels, "
          "else GFLOP/s over its FMA peak.\n")  # fmt: skip
    print(table(rows))
    notes = [(r["label"], a) for r in rows for a in r.get("advice", [])]
    if notes:
        print("\nAdvice:")
        for label, a in notes:
            print(f"- {label}: {a}")
    if args.json:
        data = {
            "size": size, "backends": present, "wall_s": wall, "other_cpu_s": other,
            "profiles": {b: p.as_dict() for b, p in profiles.items()},
            "kit": kit.status if kit else None, "rows": rows,
        }  # fmt: skip
        with open(args.json, "w") as fh:
            json.dump(data, fh, indent=1, default=str)
    if args.plot:
        problem = plot(rows, args.plot)
        if problem:
            print(f"simt bench: {problem}", file=sys.stderr)
    return 0
