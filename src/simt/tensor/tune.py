"""Timing and schedule search for components."""

from __future__ import annotations

from typing import Any

from ..benchtool.timing import BenchResult


class TensorBench(BenchResult):
    """A `BenchResult` printed the way the peer prints its benchmarks."""

    def __str__(self) -> str:
        mean, std = self.mean, self.std
        for unit, scale in (("s", 1.0), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)):
            if mean * scale >= 1 or unit == "ns":
                break
        runs = len(self.samples)
        return (
            f"{mean * scale:.3g}±{std * scale:.2g} {unit}, warmups = {self.warmup}, runs = {runs}"
        )

    __repr__ = __str__


def bench(comp: Any, inputs: tuple[Any, ...], warmups: int, runs: int) -> TensorBench:
    """Time `comp.exec(*inputs)` (each sample waits for the device)."""
    from ..benchtool.timing import sample
    from ..runtime import registry

    rt = registry.current()
    samples = sample(lambda: comp.exec(*inputs), rt.synchronize, warmups, runs, 0.0)
    return TensorBench(repr(comp), rt.name, samples, warmups)
