"""Measure, predict, advise: `simt.bench`, the cost model, the launch advisor, the autotuner,
and the `simt bench` / `simt calibrate` commands (`main`)."""

from __future__ import annotations

from .timing import BenchResult, bench

__all__ = ["BenchResult", "bench", "main"]


def main(argv: list[str]) -> int:
    """Entry of `simt bench ARGS` (argv without "bench") and `simt calibrate ARGS` (argv[0] is
    "calibrate")."""
    from .cli import bench_main, calibrate_main

    if argv and argv[0] == "calibrate":
        return calibrate_main(argv[1:])
    return bench_main(argv)
