"""Each CPU lowering mechanism of issue #17 switched off and on, on the user kernels it is for,
in one process, the two builds taking turns: the speed-up each one brings, as a ratio.

    PYTHONPATH=src python bench/user_kernels/ablation.py [--rounds 5]

A build "without" a mechanism is the same kernel compiled while that mechanism is patched out
(`passes.lane_ranges.split_lane_ranges` doing nothing; no direct stores into loop slots in
`passes.spmd`; libm calls instead of `backends.llvm_math`; shared-memory atomics rendered as
atomics); the CPU disk cache is keyed on the LLVM text, so the two builds never share code.
Both builds' answers are checked against the float64 reference first.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import load_jobs, median_ms, rel_err, round_robin  # noqa: E402

import simt  # noqa: E402


@contextlib.contextmanager
def without(mechanism: str) -> Iterator[None]:
    """The CPU lowering with `mechanism` patched out, for the compilations inside."""
    from simt.backends import llvm, llvm_math
    from simt.passes import lane_ranges, spmd

    saved: list[tuple[Any, str, Any]] = []

    def patch(obj: Any, name: str, value: Any) -> None:
        saved.append((obj, name, getattr(obj, name)))
        setattr(obj, name, value)

    if mechanism == "lane ranges":
        patch(lane_ranges, "split_lane_ranges", lambda fn: 0)
    elif mechanism == "direct slot stores":
        plain = spmd._Lowering._store_lanes
        patch(spmd._Lowering, "_store_lanes",
              lambda self, seq, pairs, direct=False: plain(self, seq, pairs))  # fmt: skip
    elif mechanism == "vector math":
        patch(llvm_math, "NAMES", frozenset())
    elif mechanism == "plain shared atomics":
        patch(llvm._Renderer, "_block_rmw", llvm._Renderer._atomic)
    try:
        yield
    finally:
        for obj, name, value in reversed(saved):
            setattr(obj, name, value)


# mechanism -> the jobs it is for
CASES = {
    "lane ranges": ["reduce_classic", "harris_reduce3", "scan"],
    "direct slot stores": ["harris_reduce3", "harris_reduce4"],
    "vector math": ["black_scholes"],
    "plain shared atomics": ["histogram"],
}


def main(argv: list[str] | None = None) -> int:
    """Print one line per (mechanism, job): ms without, ms with, and their ratio."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=3)
    args = ap.parse_args(argv)
    simt.use("cpu")
    jobs = {j.name: j for j in load_jobs()}
    print("| mechanism | kernel | without ms | with ms | without / with |")
    print("|---|---|---|---|---|")
    for mech, names in CASES.items():
        for name in names:
            job = jobs[name]
            p = job.sizes["full"]
            inp = job.make(p)
            ref = job.reference(inp, p)
            runs: list[Callable[[], Any]] = []
            for off in (True, False):
                made = job.simt(inp, p)
                kernels = list({id(k): k for k, _, _, _ in made.launches}.values())
                for k in kernels:  # a fresh specialisation cache: this build compiles anew
                    k._cache = {}
                with without(mech) if off else contextlib.nullcontext():
                    made.run()  # compiles, inside the context
                err = rel_err(made.result(), ref)
                if not err < job.tol:
                    print(f"FAIL: {name} {'without' if off else 'with'} {mech}: {err:.3g}")
                    return 2
                runs.append(_with_caches(made.run, kernels))
            t_off, t_on = (median_ms(ts) for ts in round_robin(runs, args.rounds, args.calls))
            print(f"| {mech} | {name} | {t_off:.3g} | {t_on:.3g} | {t_off / t_on:.2f}x |",
                  flush=True)  # fmt: skip
    return 0


def _with_caches(run: Callable[[], Any], kernels: list[Any]) -> Callable[[], Any]:
    """`run` with the kernels' specialisation caches of its own build put back first."""
    caches = [k._cache for k in kernels]

    def go() -> None:
        for k, c in zip(kernels, caches):
            k._cache = c
        run()

    return go


if __name__ == "__main__":
    sys.exit(main())
