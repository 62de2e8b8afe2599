"""`simt.bench`: time a launch (or any callable) with the clock of `timing.py`; for a launch
the result carries the cost model's counts and the advisor's warnings are given."""

from __future__ import annotations

from typing import Any

from ..errors import LaunchError
from .timing import BenchResult, device_timer, sample


def bench(
    target: Any,
    *args: Any,
    warmup: int = 3,
    repeat: int = 20,
    min_time: float = 0.0,
    max_time: float | None = None,
    name: str | None = None,
    **kwargs: Any,
) -> BenchResult:
    """Time `target(*args)`: a launch (`kernel[grid, block]`) or any callable.

    For a launch, every sample waits for the device (see the module doc), and the result
    carries the cost model's bytes and flops, hence GB/s, GFLOP/s and the fraction of the
    device profile's peak. Returns a `BenchResult` (mean, std, median, min, max, samples).
    """
    from ..kernel import Launcher
    from ..runtime import registry

    if not callable(target):
        raise LaunchError(
            f"simt.bench needs a launch (kernel[grid, block]) or a callable, got {target!r}"
        )
    rt = registry.current()
    cost = None
    prof = None
    if isinstance(target, Launcher):
        from .cost import estimate
        from .profile import load_profile

        prof = load_profile(rt.name)
        try:
            cost = estimate(target.kernel, target.grid, target.block, args, kwargs, prof)
        except Exception:  # noqa: BLE001 - a cost the model cannot make never stops a benchmark
            cost = None
        try:  # the advisor's warnings, once per kernel and launch shape
            from .advise import advise

            advise(target.kernel, target.grid, target.block, args, kwargs, prof=prof)
        except LaunchError:
            raise
        except Exception:  # noqa: BLE001 - advice never stops a benchmark
            pass
        label = name or f"{target.kernel.__name__}{tuple(target.grid)}x{tuple(target.block)}"
    else:
        label = name or str(getattr(target, "__name__", repr(target)))

    def run() -> None:
        target(*args, **kwargs)

    samples = sample(
        run, rt.synchronize, warmup, repeat, min_time, max_time, timer=device_timer(rt)
    )
    return BenchResult(
        label,
        rt.name,
        samples,
        warmup,
        cost,
        prof.copy_bandwidth if prof else None,
        prof.peak_flops if prof else None,
    )
