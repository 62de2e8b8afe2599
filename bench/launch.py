"""Launch overhead (issue 28 item 2): a cached tiny launch against a NumPy ufunc call on the same
arrays (NumPy arrays; and device arrays with a NumPy scalar, as Numba's examples launch), a
cached tiny index-expression `exec`, CUDA's whole launch against CuPy's `RawKernel`
(where a GPU is), and the first result of a new process with the disk cache warm.

    PYTHONPATH=src .venv/bin/python bench/launch.py [--backend cpu] [--rounds 7] [--json FILE]

Every result is checked against a float64 NumPy reference before anything is timed. The
variants take turns (`--rounds` turns of `--calls` calls each; per call: the turn's time
divided by its calls; short turns, so that on a machine shared with other work some turns
run without being descheduled); printed: the median turn and the fastest, and the ratios of each to
NumPy's `np.add(x, y, out=z)` on the same 16-element float32 arrays. Targets: a cached launch
<= 10x that call, a cached `exec` <= 20x, a CUDA launch <= 1.3x `RawKernel`. Also printed: the
load (other processes' CPU-seconds during the run, from /proc/stat), so that a figure measured
on a shared machine says so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import simt
from simt import block_dim, block_idx, thread_idx
from simt.benchtool.suite_cli import busy_cpu_s, own_cpu_s
from simt.runtime import registry
from simt.tensor import i

N = 16
TARGETS = {"launch": 10.0, "exec": 20.0, "cuda": 1.3}


@simt.kernel
def add(x, y, z):
    k = block_idx.x * block_dim.x + thread_idx.x
    if k < len(z):
        z[k] = x[k] + y[k]


@simt.kernel
def axpy(a, x, y, z):
    k = block_idx.x * block_dim.x + thread_idx.x
    if k < len(z):
        z[k] = a * x[k] + y[k]


CUDA_ADD = r"""
extern "C" __global__ void add(const float* x, const float* y, float* z, int n) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) z[k] = x[k] + y[k];
}
"""


def check(got: Any, x: np.ndarray, y: np.ndarray, what: str) -> None:
    """Stop (exit 2) unless `got` is x + y within float32 rounding of the float64 answer."""
    ref = x.astype(np.float64) + y.astype(np.float64)
    got = np.asarray(got, np.float64)
    err = float(np.max(np.abs(got - ref)) / max(1e-30, float(np.max(np.abs(ref)))))
    if not err < 1e-6:
        print(f"{what}: wrong result (relative error {err:.2e}); nothing timed", file=sys.stderr)
        raise SystemExit(2)


def turns(variants: dict[str, Callable[[], Any]], rounds: int, calls: int,
          sync: Callable[[], Any] = lambda: None) -> dict[str, list[float]]:  # fmt: skip
    """Seconds per call of each variant, one sample per turn; the variants take turns."""
    out: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(rounds):
        for name, f in variants.items():
            f()
            sync()
            t = time.perf_counter()
            for _ in range(calls):
                f()
            sync()
            out[name].append((time.perf_counter() - t) / calls)
    return out


def fresh_process(backend: str) -> float | None:
    """Milliseconds from a new process's first launch (import done) to its result, with the disk
    cache warm (this process compiled the kernel already), or None where it failed."""
    code = (
        "import time, numpy as np, simt\n"
        f"simt.use({backend!r})\n"
        "from launch import add\n"
        "x = np.ones(16, np.float32); z = np.zeros(16, np.float32)\n"
        "t = time.perf_counter(); add[1, 16](x, x, z); simt.synchronize()\n"
        "print((time.perf_counter() - t) * 1e3)\n"
    )
    here = Path(__file__).resolve().parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(here), *filter(None, [os.environ.get("PYTHONPATH")])])}  # fmt: skip
    try:
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, timeout=120, check=True)  # fmt: skip
        return float(r.stdout.split()[-1])
    except (subprocess.SubprocessError, ValueError, IndexError):
        return None


def cuda_rows(rounds: int, calls: int) -> list[dict[str, Any]]:
    """CUDA's whole launch against CuPy's `RawKernel` on the same device arrays, or a row saying
    why it was not measured."""
    ok, why = registry.probe("cuda")
    if not ok:
        return [{"name": "cuda launch vs RawKernel", "skipped": f"no GPU here: {why}"}]
    try:
        import cupy as cp  # type: ignore[import-not-found]
    except ImportError:
        return [{"name": "cuda launch vs RawKernel", "skipped": "CuPy is not installed"}]
    with simt.using("cuda"):
        x = np.random.default_rng(1).random(N).astype(np.float32)
        y = np.random.default_rng(2).random(N).astype(np.float32)
        dx, dy, dz = simt.to_device(x), simt.to_device(y), simt.zeros(N, np.float32)
        add[1, N](dx, dy, dz)
        check(dz.numpy(), x, y, "simt cuda")
        raw = cp.RawKernel(CUDA_ADD, "add")
        cx, cy, cz = cp.asarray(x), cp.asarray(y), cp.zeros(N, cp.float32)
        n = np.int32(N)
        raw((1,), (N,), (cx, cy, cz, n))
        check(cp.asnumpy(cz), x, y, "CuPy RawKernel")
        t = turns(
            {"simt": lambda: add[1, N](dx, dy, dz),
             "RawKernel": lambda: raw((1,), (N,), (cx, cy, cz, n))},
            rounds, calls, simt.synchronize,
        )  # fmt: skip
    return [ratio_row("cuda launch vs RawKernel", t["simt"], t["RawKernel"], "cuda")]


def ratio_row(name: str, ours: list[float], base: list[float], target: str) -> dict[str, Any]:
    med, fast = statistics.median(ours), min(ours)
    bmed, bfast = statistics.median(base), min(base)
    return {
        "name": name, "us": med * 1e6, "us_fastest": fast * 1e6, "base_us": bmed * 1e6,
        "base_us_fastest": bfast * 1e6, "ratio": med / bmed, "ratio_fastest": fast / bfast,
        "target": TARGETS[target],
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--rounds", type=int, default=101)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--json", help="write the rows here too")
    args = ap.parse_args(argv)
    busy0, own0, t0 = busy_cpu_s(), own_cpu_s(), time.time()
    simt.use(args.backend)
    rng = np.random.default_rng(0)
    x, y = rng.random(N).astype(np.float32), rng.random(N).astype(np.float32)
    z = np.zeros(N, np.float32)
    add[1, N](x, y, z)  # compiled here, cached from now on
    check(z, x, y, "launch")
    # as Numba's examples launch: device arrays (`cuda.to_device`) and a NumPy scalar
    dx, dy, dz, one = simt.to_device(x), simt.to_device(y), simt.zeros(N, np.float32), np.float32(1)
    axpy[1, N](one, dx, dy, dz)
    check(dz.numpy(), x, y, "launch with device arrays")
    expr = i("i+i~i")
    check(expr.exec(x, y), x, y, "exec")
    np.add(x, y, out=z)
    check(z, x, y, "np.add")
    t = turns(
        {"np.add": lambda: np.add(x, y, out=z), "launch": lambda: add[1, N](x, y, z),
         "device": lambda: axpy[1, N](one, dx, dy, dz), "exec": lambda: expr.exec(x, y)},
        args.rounds, args.calls,
    )  # fmt: skip
    check(z, x, y, "launch after timing")
    check(dz.numpy(), x, y, "launch with device arrays after timing")
    rows = [
        ratio_row(f"cached launch add[1, {N}] ({args.backend})", t["launch"], t["np.add"],
                  "launch"),
        ratio_row(f"cached launch axpy[1, {N}](np.float32, device arrays) ({args.backend})",
                  t["device"], t["np.add"], "launch"),
        ratio_row(f'cached i("i+i~i").exec, {N} elements ({args.backend})', t["exec"],
                  t["np.add"], "exec"),
    ]  # fmt: skip
    rows += cuda_rows(args.rounds, args.calls // 5)
    fresh = {b: fresh_process(b) for b in ("cpu", "webgpu") if registry.probe(b)[0]}
    busy1, own1, t1 = busy_cpu_s(), own_cpu_s(), time.time()
    other = None if busy0 is None or busy1 is None else busy1 - busy0 - (own1 - own0)
    print(f"simt {args.backend}: {N}-element float32 arrays; per call, median turn (fastest) "
          f"of {args.rounds} turns x {args.calls} calls")  # fmt: skip
    print("| | simt µs | NumPy / peer µs | ratio (fastest) | target |")
    print("|---|---|---|---|---|")
    for r in rows:
        if "skipped" in r:
            print(f"| {r['name']} | — | — | skipped: {r['skipped']} | |")
            continue
        met = "met" if r["ratio"] <= r["target"] else "missed"
        print(f"| {r['name']} | {r['us']:.2f} ({r['us_fastest']:.2f}) | {r['base_us']:.3f} "
              f"({r['base_us_fastest']:.3f}) | {r['ratio']:.1f}x ({r['ratio_fastest']:.1f}x) | "
              f"<= {r['target']:g}x: {met} |")  # fmt: skip
    for b, ms in fresh.items():
        shown = "failed" if ms is None else f"{ms:.1f} ms"
        print(f"new process, disk cache warm, first launch on {b}: {shown}")
    load = "unknown" if other is None else f"{other:.1f} CPU-seconds in {t1 - t0:.1f} s"
    print(f"other processes used {load} during the run (load average "
          f"{os.getloadavg()[0]:.2f})")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"rows": rows, "fresh_ms": fresh, "other_cpu_s": other}, indent=1))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
