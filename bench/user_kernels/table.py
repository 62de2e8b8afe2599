"""The user-kernel table: every job of this folder on one backend beside its CPU peers, the
variants taking turns (interleaved), each checked against the float64 reference first.

    PYTHONPATH=src python bench/user_kernels/table.py [--backend cpu] [--jobs a,b] [--rounds 5]

Cells: median warm ms over the turns; ratios are simt / peer (below 1: simt is faster).
`python -m simt bench bench/user_kernels` runs the same jobs through `simt bench` (simt and
peers timed one after the other, with the cost model's prediction and the advisor's notes).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import kit_status, load_jobs, median_ms, rel_err, round_robin  # noqa: E402

import simt  # noqa: E402
from simt.benchtool.suite_cli import busy_cpu_s, own_cpu_s  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the table; 0 on success, 2 on a wrong answer."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--jobs", default="", help="comma-separated job names (default: all)")
    ap.add_argument("--rounds", type=int, default=5, help="turns per variant (default 5)")
    ap.add_argument("--calls", type=int, default=3, help="calls per turn, first left out")
    ap.add_argument("--size", default="full", choices=("full", "test"))
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    simt.use(args.backend)
    want = {j for j in args.jobs.split(",") if j}
    jobs = [j for j in load_jobs() if not want or j.name in want]
    busy0, own0, wall0 = busy_cpu_s(), own_cpu_s(), time.perf_counter()
    rows = []
    for job in jobs:
        p = job.sizes[args.size]
        inp = job.make(p)
        ref = job.reference(inp, p)
        made = job.simt(inp, p)
        t0 = time.perf_counter()
        made.run()
        first = time.perf_counter() - t0
        variants = {"simt": (made.run, made.result), **job.peers(inp, p)}
        for name, (run, result) in variants.items():
            if name != "simt":
                run()
            err = rel_err(result(), ref)
            if not err < job.tol:
                print(f"FAIL: {name} on {job.name}: relative error {err:.3g} >= {job.tol}",
                      file=sys.stderr)  # fmt: skip
                return 2
        times = round_robin([r for r, _ in variants.values()], args.rounds, args.calls)
        for (name, (_, result)), _ts in zip(variants.items(), times):
            err = rel_err(result(), ref)
            if not err < job.tol:
                print(f"FAIL after timing: {name} on {job.name}: {err:.3g}", file=sys.stderr)
                return 2
        ms = {n: median_ms(ts) for n, ts in zip(variants, times)}
        rows.append({"job": job.name, "first_ms": first * 1e3, "ms": ms})
        peers = {n: v for n, v in ms.items() if n != "simt"}
        best = min(peers, key=peers.get)  # type: ignore[arg-type]
        print(f"{job.name}: simt {ms['simt']:.3g} ms; "
              + ", ".join(f"{n} {v:.3g} ms ({ms['simt'] / v:.2f}x)" for n, v in peers.items())
              + f"; best peer {best}", flush=True)  # fmt: skip
    wall = time.perf_counter() - wall0
    busy1, own1 = busy_cpu_s(), own_cpu_s()
    other = None if busy0 is None or busy1 is None else max(0.0, busy1 - busy0 - (own1 - own0))
    names: list[str] = []
    for r in rows:
        names += [n for n in r["ms"] if n != "simt" and n not in names]
    print(f"\n## user kernels on {args.backend} ({args.size} sizes)\n")
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, {os.cpu_count()} cores, "
          f"{wall:.0f} s; {kit_status()}.")  # fmt: skip
    if other is not None:
        print(f"Other processes used {other:.1f} CPU-seconds during the run.")
    print("\n| kernel | simt ms (first) | " + " | ".join(f"{n} ms" for n in names)
          + " | simt / best peer |")  # fmt: skip
    print("|---" * (3 + len(names)) + "|")
    for r in rows:
        ms = r["ms"]
        peers = {n: v for n, v in ms.items() if n != "simt"}
        best = min(peers, key=peers.get)  # type: ignore[arg-type]
        cells = [f"{ms[n]:.3g}" if n in ms else "—" for n in names]
        print(f"| {r['job']} | {ms['simt']:.3g} ({r['first_ms']:.0f}) | " + " | ".join(cells)
              + f" | {ms['simt'] / peers[best]:.2f}x {best} |")  # fmt: skip
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"backend": args.backend, "other_cpu_s": other, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
