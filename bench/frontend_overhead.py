"""Compile-time targets of the core (issue 2), measured, not asserted in tests:

- front end + passes + sim rendering of each corpus kernel: under 50 ms;
- a cached specialisation found in under 20 us per launch (argument binding, type key,
  cache lookup: everything a launch does before it reaches the runtime).

Run: python bench/frontend_overhead.py
"""

from __future__ import annotations

import pathlib
import platform
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import simt  # noqa: E402
from simt.pipeline import build, render  # noqa: E402


def main() -> None:
    from corpus import CASES  # the kernel corpus of tests/corpus

    simt.use("sim")
    rows = []
    for case in CASES:
        k = case.kernel
        args = case.make_args()
        values = k._bind(tuple(args), {})
        specs, _ = k._specs(values, "sim")
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            fn = build(k.pyfunc, specs, k.fp64, k.debug)
            render("sim", fn)
            times.append(time.perf_counter() - t0)
        rt = simt.runtime.registry.current()
        k.specialise(values, rt)
        n = 2000
        t0 = time.perf_counter()
        for _ in range(n):
            k.specialise(k._bind(tuple(args), {}), rt)
        lookup = (time.perf_counter() - t0) / n
        rows.append((case.name, min(times) * 1e3, lookup * 1e6))
    print(
        f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
        f"Python {platform.python_version()}"
    )
    print(f"{'kernel':24s} {'compile ms':>10s} {'lookup us':>10s}")
    for name, c, lk in rows:
        print(f"{name:24s} {c:10.1f} {lk:10.1f}")
    cs = [r[1] for r in rows]
    ls = [r[2] for r in rows]
    print(f"{'median':24s} {statistics.median(cs):10.1f} {statistics.median(ls):10.1f}")
    print(f"{'max':24s} {max(cs):10.1f} {max(ls):10.1f}")
    print(
        f"targets: compile < 50 ms: {'met' if max(cs) < 50 else 'MISSED'}; "
        f"lookup < 20 us: {'met' if max(ls) < 20 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
