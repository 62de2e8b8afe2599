"""The Numba-CUDA compatibility corpus timed three ways: simt on the `cpu` backend, Numba's
CUDA simulator (the way Numba users run these kernels without an NVIDIA GPU) and the corpus's
NumPy references, as ratios.

    PYTHONPATH=src python bench/numba_corpus.py                 # every case, table on stdout
    PYTHONPATH=src python bench/numba_corpus.py --cases dli_add lab_nbody --rounds 5
    PYTHONPATH=src python bench/numba_corpus.py --json out.json

Needs numba (`pip install numba`; the simulator needs no GPU). Each case is checked against
its reference before it is timed. simt: the median of `--rounds` warm launches (compiled once
before, the disk cache warm), arguments made fresh each time outside the timing. Numba's
simulator: one launch (it takes seconds; a first launch costs it nothing extra to compile).
NumPy: the median of `--rounds` calls of the reference. Times include the launch and the
copies a Numba program makes. Ratios are Numba-simulator time / simt time and NumPy time /
simt time (above 1: simt is faster). The corpus's sizes are small (the simulator runs one
Python thread per GPU thread), so simt's times are mostly launch overhead: the ratios are
what a course exercise feels like, not peak throughput.

Measured under load (cpu backend, `--rounds 3`, a 2-core machine shared with seven other
engineers' builds and tests, load average about 12, 2026-11-26 04:46 UTC; re-measure on an
idle machine): over the 53 cases Numba's simulator runs, simt was 1422x faster than the
simulator (geometric mean; 14x for a 2 x 2 puzzle to 78,578x for a shared-memory tree
reduction) and 0.18x the NumPy references (simt's launch costs about 40 microseconds, NumPy's
whole-array calls a few at these sizes; above 1 where the reference loops: Mandelbrot 178x,
bit functions 5.7x, n-body 3.5x).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import simt  # noqa: E402
from simt_cuda.numba_corpus import load  # noqa: E402
from simt_cuda.numba_corpus.case import NCase, check  # noqa: E402

RUNNER = ROOT / "tests" / "simt_cuda" / "numba_corpus" / "run_numba.py"


def _copy(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def time_simt(case: NCase, rounds: int) -> float:
    args = case.make_args()
    before = _copy(args)
    case.run(args)
    simt.synchronize()
    for pos, ref in case.reference(*before).items():
        why = check(case.tol, args[pos], ref)
        if why:
            raise SystemExit(f"{case.name}: wrong result on {simt.backend()}: {why}")
    times = []
    for _ in range(rounds):
        args = case.make_args()
        t0 = time.perf_counter()
        case.run(args)
        simt.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def time_numpy(case: NCase, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        args = case.make_args()
        t0 = time.perf_counter()
        case.reference(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def time_numba(names: list[str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "numba.npz"
        env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONWARNINGS="ignore")
        r = subprocess.run([sys.executable, str(RUNNER), str(out), *names], env=env,
                           capture_output=True, text=True)  # fmt: skip
        if r.returncode != 0:
            raise SystemExit(f"Numba's simulator failed:\n{r.stderr[-3000:]}")
        with np.load(out) as data:
            return {k.split("/")[0]: float(data[k]) for k in data.files if k.endswith("/seconds")}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", default="cpu")
    p.add_argument("--cases", nargs="*", help="case names (default: all that Numba runs)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--json", help="also write the figures to this file")
    a = p.parse_args(argv)
    cases = [c for c in load() if c.numba and (not a.cases or c.name in a.cases)]
    simt.use(a.backend)
    numba_s = time_numba([c.name for c in cases])
    rows = []
    print(f"{'case':32} {'simt ms':>9} {'Numba sim ms':>13} {'NumPy ms':>9} "
          f"{'sim/simt':>9} {'NumPy/simt':>10}")  # fmt: skip
    for c in cases:
        t = time_simt(c, a.rounds)
        n = numba_s[c.name]
        r = time_numpy(c, a.rounds)
        rows.append({"case": c.name, "simt_s": t, "numba_sim_s": n, "numpy_s": r})
        print(f"{c.name:32} {t * 1e3:9.3f} {n * 1e3:13.1f} {r * 1e3:9.3f} {n / t:9.0f} "
              f"{r / t:10.2f}")  # fmt: skip
    gm_sim = statistics.geometric_mean([r["numba_sim_s"] / r["simt_s"] for r in rows])
    gm_np = statistics.geometric_mean([r["numpy_s"] / r["simt_s"] for r in rows])
    print(f"geometric mean over {len(rows)} cases: Numba simulator / simt = {gm_sim:.0f}x, "
          f"NumPy reference / simt = {gm_np:.2f}x (backend {a.backend})")
    if a.json:
        Path(a.json).write_text(json.dumps({"backend": a.backend, "rows": rows,
                                            "gm_sim": gm_sim, "gm_numpy": gm_np}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
