"""What Ctrl-C polling costs: W1-W6 on `cpu` with the loops' polls and without, side by side.

    PYTHONPATH=src python bench/interrupt_poll.py            # full sizes, 3 rounds
    PYTHONPATH=src python bench/interrupt_poll.py --quick --rounds 1

Kernels' long loops poll for Ctrl-C every few thousand iterations (`backends.llvm`,
`runtime.cpu_interrupt`); `SIMT_CPU_POLL=0` renders them without. Each round runs every
workload in two fresh processes, one each way, alternating which goes first. Both run on one
thread (`SIMT_NUM_THREADS=1`: the launch runs on the calling thread) and time its CPU time
(`time.thread_time`), which a busy machine disturbs far less than wall time; a cell is the
smallest warm run over all rounds (ms), and the ratio is with polls / without. Every result is
checked against the float64 reference first. The disk cache is a fresh one per run (the
two ways render different LLVM text, so neither reuses the other's code).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, sys, time
import simt
from simt.benchtool import workloads as W
simt.use("cpu")
size, wls, reps = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
out = {}
for wl in wls:
    p = W.SIZES[size][wl]
    inp = W.make_inputs(wl, p)
    run = W.make_simt(wl, inp, p)
    run.run()
    err = W.rel_err(wl, run.result(), W.reference(wl, inp, p))
    if err > W.TOL:
        sys.exit(f"{wl}: wrong answer (relative error {err})")
    times = []
    for _ in range(reps):
        t = time.thread_time()
        run.run()
        times.append(time.thread_time() - t)
    out[wl] = min(times) * 1e3
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=15, help="warm runs per workload and process")
    ap.add_argument("--workloads", default="colsum,vecadd,mandel,sobel,reduce,matmul")
    a = ap.parse_args(argv)
    size = "quick" if a.quick else "full"
    best: dict[str, dict[str, float]] = {"1": {}, "0": {}}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="simt-poll-bench-") as cache:
        for r in range(a.rounds):
            for poll in ("1", "0") if r % 2 == 0 else ("0", "1"):
                env = dict(
                    os.environ, SIMT_CPU_POLL=poll, SIMT_CACHE_DIR=cache, SIMT_NUM_THREADS="1"
                )
                res = subprocess.run(
                    [sys.executable, "-c", CHILD, size, a.workloads, str(a.reps)],
                    env=env, capture_output=True, text=True, check=False,
                )  # fmt: skip
                if res.returncode:
                    print(res.stderr, file=sys.stderr)
                    return 2
                for wl, ms in json.loads(res.stdout).items():
                    best[poll][wl] = min(best[poll].get(wl, float("inf")), ms)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    took = time.perf_counter() - t0
    print(f"## Ctrl-C polls on cpu: W1-W6 ({size} sizes), best of {a.rounds} rounds x "
          f"{a.reps} warm runs, 1 thread, CPU time; load average {load:.1f} at the end, "
          f"{took:.0f} s\n")  # fmt: skip
    print("| workload | polls (ms CPU) | no polls (ms CPU) | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for wl in a.workloads.split(","):
        on, off = best["1"][wl], best["0"][wl]
        print(f"| {wl} | {on:.2f} | {off:.2f} | {on / off:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
