"""Matrix multiplication on the GPU against cuBLAS: W6's naive kernel, the tiled shared-memory
kernel of Numba's documentation (bench/user_kernels/matmul.py) and the index-expression
matmul (`simt.tensor`, default schedule and `tune`d), each checked against a float64 NumPy
reference before it is timed.

    PYTHONPATH=src python3 bench/cuda/matmul.py [--n 2048] [--json out.json]
    PYTHONPATH=src python3 bench/cuda/matmul.py --backend cpu --n 64     # the dry run's check
    PYTHONPATH=src python3 bench/cuda/matmul.py --schedules "tile(i:8,j:8) block(k:16); ..."

`--schedules` times the index expression under each schedule given (';' between them); on
`cuda` a sweep of register tiles and shared `k` depths runs by default (`SWEEP`), so that each
GPU pass says which schedule the GPU default should be (issue 28 item 4: within 2x cuBLAS).

On `cuda` the reference ceiling is cuBLAS through CuPy (`cp.matmul`, float32) and times are
CUDA events (bench/cuda/run.py's `gpu_ms`); on any other backend it is NumPy's BLAS and times
are wall-clock medians after `simt.synchronize()`. Ratios are simt / ceiling (1.0 = as fast).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "user_kernels"))

import workloads as W  # noqa: E402
from matmul import TPB, fast_matmul  # noqa: E402

import simt  # noqa: E402
from simt.tensor import i  # noqa: E402

MATMUL = i("ik*kj~ijk") >> i("+ijk~ij")
# GPU schedules to compare with the default `tile(i:8,j:4) block(k:16)` (blocks of 8 x 8
# threads, each a register tile; `block(k:..)` the depth staged in shared memory)
SWEEP = (
    "tile(i:8,j:8) block(k:16)",
    "tile(i:8,j:8) block(k:8)",
    "tile(i:4,j:8) block(k:16)",
    "tile(i:8,j:4) block(k:32)",
    "tile(i:16,j:4) block(k:16)",
    "tile(i:4,j:4) block(k:32)",
)
TOL = 1e-4


def wall_ms(run: Callable[[], None], reps: int = 5, trials: int = 5) -> float:
    """Median wall-clock milliseconds per call, the device drained around each batch."""
    run()
    simt.synchronize()
    times = []
    for _ in range(trials):
        t0 = time.perf_counter()
        for _ in range(reps):
            run()
        simt.synchronize()
        times.append((time.perf_counter() - t0) * 1e3 / reps)
    return statistics.median(times)


def rel_err(got: Any, want: np.ndarray) -> float:
    got = np.asarray(got, dtype=np.float64)
    return float(np.linalg.norm(got - want) / np.linalg.norm(want))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--no-tune", action="store_true", help="leave out the tuned expression")
    ap.add_argument("--schedules", default=None,
                    help="schedules of the index expression to time, ';' between them "
                    "(default on cuda: the SWEEP; elsewhere none)")  # fmt: skip
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    simt.use(args.backend)
    n = args.n
    g = np.random.default_rng(7)
    a = g.random((n, n), dtype=np.float32) - 0.5
    b = g.random((n, n), dtype=np.float32) - 0.5
    want = a.astype(np.float64) @ b.astype(np.float64)
    da, db = simt.to_device(a), simt.to_device(b)
    c = simt.empty((n, n), np.float32)
    blocks = (n + TPB - 1) // TPB
    timer = wall_ms
    rows: dict[str, Any] = {"backend": args.backend, "n": n}

    ceiling: tuple[str, Callable[[], None], Callable[[], Any]]
    if args.backend == "cuda":
        import run as cuda_run  # bench/cuda/run.py: CUDA-event timing through CuPy or PyTorch

        timer = cuda_run.gpu_ms
        cp = cuda_run.cp
        if cp is None:
            print("CuPy is absent: no cuBLAS ceiling", file=sys.stderr)
            return 1
        ca, cb = cp.asarray(a), cp.asarray(b)
        cr = cp.empty((n, n), cp.float32)
        ceiling = ("cuBLAS", lambda: cp.matmul(ca, cb, out=cr), lambda: cp.asnumpy(cr))
    else:
        out = np.empty((n, n), np.float32)
        ceiling = ("NumPy BLAS", lambda: np.matmul(a, b, out=out), lambda: out)

    variants: dict[str, tuple[Callable[[], None], Callable[[], Any]]] = {
        "W6 naive": (
            lambda: W.matmul[(blocks, blocks), (16, 16)](da, db, c),
            lambda: c.numpy(),
        ),
        "tiled (shared)": (
            lambda: fast_matmul[(blocks, blocks), (TPB, TPB)](da, db, c),
            lambda: c.numpy(),
        ),
    }
    got: dict[str, Any] = {}  # exec on device arrays returns a new device array each call
    variants["index expression"] = (
        lambda: got.__setitem__("expr", MATMUL.exec(da, db)),
        lambda: np.asarray(got["expr"].numpy()),
    )
    if not args.no_tune:
        t0 = time.perf_counter()
        tuned = MATMUL.tune(a, b)  # NumPy inputs: tune with device arrays runs them on sim
        rows["tune_s"] = time.perf_counter() - t0
        rows["tuned_schedule"] = tuned.text()
        variants["index expression, tuned"] = (
            lambda: got.__setitem__("tuned", tuned.exec(da, db)),
            lambda: np.asarray(got["tuned"].numpy()),
        )

    wanted = args.schedules if args.schedules is not None else (
        "; ".join(SWEEP) if args.backend == "cuda" else "")
    for sched in (x.strip() for x in wanted.split(";") if x.strip()):
        expr = i("ik*kj~ijk") >> i(f"+ijk~ij | {sched}")
        variants[f"schedule {sched}"] = (
            lambda e=expr, k=sched: got.__setitem__(k, e.exec(da, db)),
            lambda k=sched: np.asarray(got[k].numpy()),
        )

    name, run_ceiling, result_ceiling = ceiling
    run_ceiling()
    err = rel_err(result_ceiling(), want)
    if not err <= TOL:
        print(f"WRONG ANSWER: {name} relative error {err:.3g}", file=sys.stderr)
        return 2
    base = timer(run_ceiling)
    rows[name] = {"ms": base}
    print(f"matmul {n} on {args.backend}: {name} {base:.3f} ms")
    for label, (run, result) in variants.items():
        run()
        err = rel_err(result(), want)
        if not err <= TOL:
            print(f"WRONG ANSWER: {label} relative error {err:.3g}", file=sys.stderr)
            rows[label] = {"error": f"rel err {err:.3g}"}
            continue
        ms = timer(run)
        rows[label] = {"ms": ms, "ratio": ms / base}
        print(f"  {label:38s} {ms:9.3f} ms  {ms / base:6.2f}x {name}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2, default=str))
    return 2 if any("error" in v for v in rows.values() if isinstance(v, dict)) else 0


if __name__ == "__main__":
    sys.exit(main())
