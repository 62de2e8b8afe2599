"""Bounds checks on against off: W1-W6, the shared-memory Sobel and every `bench/user_kernels`
job, each kernel compiled twice (as it is, checked where `passes/bounds/` has no proof;
and `boundscheck=False`), the two taking turns on the same inputs, each result checked
against the float64 NumPy reference before it is timed.

    PYTHONPATH=src python bench/bounds.py [--backend cpu] [--size full] [--rounds 5]
                                          [--only vecadd,sobel_shared] [--json FILE]

Prints one row per job: the fastest warm ms with checks on and with checks off, their ratio
(the goal is at most 1.05; the fastest of interleaved turns is what a machine shared with
other work still shows best, the ratio of medians is printed beside it), and per kernel of
the job how many accesses were proven in bounds, tested once per block (the kernel body
versioned on one block-level test), or left checked (the `gather` jobs keep a check on
purpose: what a kept check costs), with the block-level tests made and why
each remaining check was kept. `--size quick` runs small inputs (a smoke test, no figures
worth recording). Needs `@simt.kernel(boundscheck=False)` (exits 2 without it).
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import platform
import sys
import time
from collections.abc import Callable
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


def suite_entries(size: str) -> list[Entry]:
    """W1-W6 of `simt.benchtool.workloads` at its `full` or `quick` sizes."""
    out = []
    for wl in W.LABELS:
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


def job_entries(size: str) -> list[Entry]:
    """Every job of `bench/user_kernels` (its `full` size, or `test` for --size quick)."""
    out = []
    for job in load_jobs(HERE / "user_kernels"):
        p = job.sizes["test" if size == "quick" else "full"]
        inp = job.make(p)
        ref = job.reference(inp, p)

        def make(job: Any = job, inp: Any = inp, p: Any = p) -> Any:
            m = job.simt(inp, p)
            return m.run, m.result, m.launches

        def check(out_: Any, ref: Any = ref) -> float:
            return rel_err(out_, ref)

        out.append(Entry(job.name, job.simt.__globals__, make, check, job.tol))
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


def kept_entries(size: str) -> list[Entry]:
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
    """`e` made with every kernel its module names replaced by its unchecked twin."""
    saved = {n: v for n, v in e.scope.items() if isinstance(v, Kernel)}
    try:
        e.scope.update({n: unchecked(v) for n, v in saved.items()})
        return e.make()
    finally:
        e.scope.update(saved)


def reports(launches: list[Any], scope: dict[str, Any], rt: Any) -> list[dict[str, Any]]:
    """What `passes/bounds/` did to each kernel of the job (from its compiled
    specialisations)."""
    kernels: dict[int, Kernel] = {}
    for k, *_ in launches:
        kernels.setdefault(id(k), k)
    for v in scope.values():  # kernels a job launches beyond its listed launches
        if isinstance(v, Kernel) and v.__name__ in {k.__name__ for k in kernels.values()}:
            kernels.setdefault(id(v), v)
    out = []
    for k in kernels.values():
        for spec in k.specialisations(rt.name):
            rep = spec.fn.attrs.get("bounds")
            if rep is None:
                continue
            out.append({
                "kernel": k.__name__,
                "proven": rep.proven,
                "per_block": rep.hoisted,
                "checked": rep.checked,
                "tests": rep.tests,
                "kept": [f"line {ln} `{arr}`: {why}" for ln, arr, why in rep.kept],
            })  # fmt: skip
            break
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the table; 0 on success, 2 on a wrong answer."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--size", default="full", choices=("full", "quick"))
    ap.add_argument("--rounds", type=int, default=5, help="turns per variant (default 5)")
    ap.add_argument("--calls", type=int, default=3, help="calls per turn, the first left out")
    ap.add_argument("--only", default="", help="comma-separated job names (default: all)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    if "boundscheck" not in inspect.signature(Kernel).parameters:
        print("this simt has no @simt.kernel(boundscheck=False): nothing to compare against",
              file=sys.stderr)  # fmt: skip
        return 2
    simt.use(args.backend)
    rt = registry.current()
    want = {x for x in args.only.split(",") if x}
    every = suite_entries(args.size) + job_entries(args.size) + kept_entries(args.size)
    entries = [e for e in every
               if not want or e.name in want or e.name.split()[-1] in want]  # fmt: skip
    busy0, own0, wall0 = busy_cpu_s(), own_cpu_s(), time.perf_counter()
    rows = []
    for e in entries:
        run_on, res_on, launches = e.make()
        run_off, res_off, _ = build_off(e)
        sides = {"on": (run_on, res_on), "off": (run_off, res_off)}
        for side, (run, res) in sides.items():
            run()  # compiles
            err = e.check(res())
            if not err < e.tol:
                print(f"FAIL: {e.name} with checks {side}: relative error {err:.3g}",
                      file=sys.stderr)  # fmt: skip
                return 2
        times = round_robin([run_on, run_off], args.rounds, args.calls)
        for side, (_, res) in sides.items():
            err = e.check(res())
            if not err < e.tol:
                print(f"FAIL after timing: {e.name} checks {side}: {err:.3g}", file=sys.stderr)
                return 2
        on, off = (min(ts) * 1e3 for ts in times)
        med = median_ms(times[0]) / median_ms(times[1])
        row = {"job": e.name, "on_ms": on, "off_ms": off, "ratio": on / off,
               "median_ratio": med, "kernels": reports(launches, e.scope, rt)}  # fmt: skip
        rows.append(row)
        counts = " ".join(
            f"{r['kernel']}: {r['proven']}/{r['per_block']}/{r['checked']}" for r in row["kernels"]
        )
        print(f"{e.name}: on {on:.3g} ms, off {off:.3g} ms, {on / off:.3f}x  "
              f"(proven/per block/checked {counts})", flush=True)  # fmt: skip
    wall = time.perf_counter() - wall0
    busy1, own1 = busy_cpu_s(), own_cpu_s()
    other = None if busy0 is None or busy1 is None else max(0.0, busy1 - busy0 - (own1 - own0))
    print(f"\n## bounds checks on / off on {args.backend} ({args.size} sizes)\n")
    print(f"Python {platform.python_version()}, NumPy {np.__version__}, {os.cpu_count()} cores, "
          f"{wall:.0f} s" + (f"; other processes used {other:.0f} CPU-seconds meanwhile"
                             if other is not None else "") + ".")  # fmt: skip
    print("\n| job | checks on ms | off ms | on / off | (medians) "
          "| kernel: proven / per block / checked | checks kept (why) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        ks = "; ".join(f"{k['kernel']}: {k['proven']} / {k['per_block']} / {k['checked']}"
                       for k in r["kernels"])  # fmt: skip
        kept = "; ".join(x for k in r["kernels"] for x in _merge(k["kept"])) or "—"
        print(f"| {r['job']} | {r['on_ms']:.3g} | {r['off_ms']:.3g} | {r['ratio']:.3f} "
              f"| {r['median_ratio']:.2f} | {ks} | {kept} |")  # fmt: skip
    worst = max(rows, key=lambda r: r["ratio"]) if rows else None
    if worst is not None:
        print(f"\nWorst ratio: {worst['job']} {worst['ratio']:.3f}x; "
              f"{sum(r['ratio'] <= 1.05 for r in rows)} of {len(rows)} jobs within 1.05x.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"backend": args.backend, "size": args.size, "other_cpu_s": other,
                       "rows": rows}, f, indent=1)  # fmt: skip
    return 0


def _merge(kept: list[str]) -> list[str]:
    """Identical reasons once, with a count."""
    seen: dict[str, int] = {}
    for k in kept:
        seen[k] = seen.get(k, 0) + 1
    return [k if n == 1 else f"{k} (x{n})" for k, n in seen.items()]


if __name__ == "__main__":
    sys.exit(main())
