"""What `import simt` takes from the benchtool (the top of its one-way chain): the warning class
(defined in `simt.errors`), `simt.bench` /
`simt.autotune` as thin functions that import the tool on first call (`import simt` stays
free of the cost model), and `kernel.cost` / `.advise` / `.autolaunch`, registered in
`simt.kernel.TOOLS` (the kernel layer below never imports this one)."""

from __future__ import annotations

from typing import Any

from .. import kernel
from ..errors import SimtPerformanceWarning

__all__ = ["SimtPerformanceWarning", "autotune", "bench"]


def bench(target: Any, *args: Any, **kwargs: Any) -> Any:
    """Time a launch (`kernel[grid, block]`) or a callable: see `simt.benchtool.bench.bench`.
    Returns a `BenchResult` (mean, std, median, min, max, samples; GB/s, GFLOP/s and the
    prediction for launches)."""
    from .bench import bench as run

    return run(target, *args, **kwargs)


def autotune(kernel: Any, *args: Any, **kwargs: Any) -> Any:
    """Time candidate block shapes (and tile values) of `kernel` on these arguments and keep
    the fastest: see `simt.benchtool.autotune.autotune`. Returns a `Tuned`."""
    from .autotune import autotune as run

    return run(kernel, *args, **kwargs)


def _cost(k: Any, grid: Any, block: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    from .cost import estimate

    return estimate(k, grid, block, args, kwargs)


def _advise(k: Any, grid: Any, block: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    from .advise import advise

    return advise(k, grid, block, args, kwargs)


def _autolaunch(k: Any, n: Any) -> Any:
    from .autotune import autolaunch

    return autolaunch(k, n)


def _launch_advice(k: Any, grid: Any, block: Any, rt: Any) -> Any:
    from .advise import quick

    return quick(grid, block, rt.name)


kernel.TOOLS.update(
    cost=_cost, advise=_advise, autolaunch=_autolaunch, launch_advice=_launch_advice
)
