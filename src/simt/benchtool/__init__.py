"""Measure, predict, advise: `simt.bench`, the cost model, the launch advisor, the autotuner,
and the `simt bench` / `simt calibrate` commands (`main`)."""

from __future__ import annotations

from typing import Any

from ..errors import SimtPerformanceWarning

# `simt.bench` and `simt.autotune` are in `.api`; the submodules `timing` and `autotune` keep
# their names here (a function of the same name would hide the module).
__all__ = ["BenchResult", "SimtPerformanceWarning", "main"]


def __getattr__(name: str) -> Any:
    if name == "BenchResult":  # imported on use: `import simt` does not load the timing code
        from .timing import BenchResult

        return BenchResult
    raise AttributeError(name)


def main(argv: list[str]) -> int:
    """Entry of `simt bench ARGS` (argv without "bench") and `simt calibrate ARGS` (argv[0] is
    "calibrate")."""
    from .cli import bench_main, calibrate_main

    if argv and argv[0] == "calibrate":
        return calibrate_main(argv[1:])
    return bench_main(argv)
