"""Targets of the sim backend, measured, not asserted in tests:

- a 2**20-thread vector add (4096 x 256 threads) within 10x of NumPy's `a + b`;
- rendering a corpus kernel to NumPy source and executing that text: well under 50 ms.

Run: python bench/sim_overhead.py
"""

from __future__ import annotations

import pathlib
import platform
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import simt  # noqa: E402
from simt import block_dim, block_idx, thread_idx  # noqa: E402
from simt.runtime.sim import SimRuntime  # noqa: E402


@simt.kernel
def vector_add(a, b, c):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(c):
        c[i] = a[i] + b[i]


def best(f: Callable[[], object], repeat: int = 7, number: int = 10) -> float:
    """The best mean time of `number` calls, over `repeat` tries (seconds)."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            f()
        times.append((time.perf_counter() - t0) / number)
    return min(times)


def vector_add_ratio() -> None:
    n = 1 << 20
    rng = np.random.default_rng(0)
    a = rng.random(n, np.float32)
    b = rng.random(n, np.float32)
    c = np.empty_like(a)
    simt.use("sim")
    vector_add[4096, 256](a, b, c)
    assert np.array_equal(c, a + b), "wrong result"
    t_sim = best(lambda: vector_add[4096, 256](a, b, c))
    t_np = best(lambda: np.add(a, b))
    print(f"vector add, 2**20 threads: sim {t_sim * 1e3:.3f} ms, NumPy a + b {t_np * 1e3:.3f} ms,"
          f" ratio {t_sim / t_np:.1f}x (target: within 10x)")  # fmt: skip
    partial = c[: n - 100]
    t_part = best(lambda: vector_add[4096, 256](a, b, partial))
    print(f"  with 100 inactive lanes (masked path): {t_part * 1e3:.3f} ms,"
          f" ratio {t_part / t_np:.1f}x")  # fmt: skip


def render_and_exec() -> None:
    from corpus import CASES  # the kernel corpus of tests/corpus

    rows = []
    from simt.pipeline import build

    for case in CASES:
        k = case.kernel  # the IR of the launch's specialisation, as bench/frontend_overhead.py
        specs, _ = k._specs(k._bind(tuple(case.make_args()), {}), "sim")
        fn = build(k.pyfunc, specs, k.fp64, k.debug)
        times = []
        for _ in range(5):
            rt = SimRuntime()  # a fresh program cache: every round renders and executes
            t0 = time.perf_counter()
            rt.compile(fn)
            times.append(time.perf_counter() - t0)
        lines = rt.render(fn).count("\n")
        rows.append((case.name, lines, min(times) * 1e3))
    print(f"\n{'corpus kernel':26s} {'lines':>6s} {'render+exec ms':>15s}")
    for name, lines, ms in rows:
        print(f"{name:26s} {lines:6d} {ms:15.2f}")
    worst = max(rows, key=lambda r: r[2])
    print(f"slowest: {worst[0]} {worst[2]:.2f} ms (target: well under 50 ms)")


def main() -> None:
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, "
          f"NumPy {np.__version__}")  # fmt: skip
    vector_add_ratio()
    render_and_exec()


if __name__ == "__main__":
    main()
