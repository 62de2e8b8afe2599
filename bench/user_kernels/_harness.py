"""What every file of `bench/user_kernels/` shares: a `Job` (inputs, float64 reference, the
simt launches, the CPU peers doing the same job) and the glue that turns jobs into the
`bench_*` functions `simt bench` runs, into interleaved timing turns (`table.py`) and into
correctness cases (`tests/bench/test_user_kernels.py`).

A job's `simt(inp)` uploads its inputs and returns a `Made`: `run()` launches the kernels and
waits, `result()` fetches the answer, `launches` lists `(kernel, grid, block, args)` of each
launch (for the advisor, the cost model and NVRTC). `peers(inp)` gives `{name: (run,
result)}` for NumPy / SciPy / the peer kit's C references; none of them is timed before its
result has been checked against the float64 reference.
"""

from __future__ import annotations

import math
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import simt

Run = Callable[[], Any]
SEED = 20261125


@dataclass
class Made:
    """A job's simt side on the current backend (inputs uploaded, nothing compiled yet)."""

    run: Run
    result: Run
    launches: list[tuple[Any, Any, Any, tuple[Any, ...]]]


@dataclass
class Job:
    """One user kernel's job (see the module doc). `sizes["full"]` is benchmarked,
    `sizes["test"]` is what the tests run on every backend."""

    name: str
    sizes: dict[str, dict[str, int]]
    make: Callable[[dict[str, int]], dict[str, Any]]
    reference: Callable[[dict[str, Any], dict[str, int]], Any]
    simt: Callable[[dict[str, Any], dict[str, int]], Made]
    peers: Callable[[dict[str, Any], dict[str, int]], dict[str, tuple[Run, Run]]]
    tol: float = 1e-4
    fp64: bool = False  # needs float64 (WebGPU refuses it)
    notes: dict[str, str] = field(default_factory=dict)


def rng(seed: int = SEED) -> np.random.Generator:
    """The seeded generator every job draws its inputs from."""
    return np.random.default_rng(seed)


def uniform(g: np.random.Generator, shape: Any, lo: float = 0.5, hi: float = 1.5) -> np.ndarray:
    """float32 inputs uniform in [lo, hi) (the peer kit's [0.5, 1.5) by default)."""
    return (g.random(shape, dtype=np.float32) * np.float32(hi - lo) + np.float32(lo)).astype(
        np.float32
    )


def rel_err(out: Any, ref: Any) -> float:
    """max|out - ref| / max|ref| (a scalar: |out - ref| / |ref|); inf on a shape mismatch or a
    non-finite difference."""
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if out.shape != ref.shape:
        return math.inf
    d = np.abs(out - ref)
    if not np.all(np.isfinite(d)):
        return math.inf
    scale = float(np.abs(ref).max()) if ref.size else 1.0
    return float(d.max() / scale) if d.size else 0.0


def grid1(n: int, block: int) -> int:
    """Blocks of `block` threads that cover `n`."""
    return (n + block - 1) // block


def kit_path() -> Path | None:
    """The peer kit (`../shared/peers` of the project), when present."""
    here = Path(__file__).resolve()
    for base in (Path.cwd(), *here.parents):
        for cand in (base / "shared" / "peers", base.parent / "shared" / "peers"):
            if (cand / "cbuild.py").exists():
                return cand
    return None


_KIT: Any = None


def kit_peer(name: str, wl: str, inp: dict[str, np.ndarray], p: dict[str, int]) -> Any:
    """(run, result) of the peer kit's `name` ("c", "c-tuned") on its workload `wl`, called
    through the kit's own modules; None when the kit is absent."""
    global _KIT
    if _KIT is None:
        from simt.benchtool.suite import Kit

        _KIT = Kit(kit_path())
    return _KIT.make(name, wl, inp, p)


def kit_status() -> str:
    """Whether the peer kit's C references were found."""
    kit_peer("c", "none", {}, {})
    return str(_KIT.status)


# ----------------------------------------------------------------------------- glue
def benchmark(job: Job, size: str = "full") -> Any:
    """The job as a `simt.benchtool.suite.Benchmark` (what a `bench_*` function returns)."""
    from simt.benchtool.cost import estimate
    from simt.benchtool.suite import Benchmark

    p = job.sizes[size]
    inp = job.make(p)
    ref = job.reference(inp, p)
    made = job.simt(inp, p)
    k, g, b, args = made.launches[0]  # the first launch does the bulk of the work
    return Benchmark(
        job.name,
        job.name,
        made.run,
        made.result,
        lambda out: rel_err(out, ref),
        tol=job.tol,
        cost_of=lambda: estimate(k, g, b, args),
        launch=(k, g, b, args),
        baselines=job.peers(inp, p),
        size=dict(p),
    )


def as_bench_functions(jobs: list[Job]) -> dict[str, Callable[[], Any]]:
    """`bench_<name>` for each job, for the module's globals (what `simt bench` looks for)."""
    out: dict[str, Callable[[], Any]] = {}
    for job in jobs:

        def f(job: Job = job) -> Any:
            return benchmark(job)

        f.__name__ = f"bench_{job.name}"
        f.__doc__ = f"The {job.name} user kernel against its CPU peers."
        out[f.__name__] = f
    return out


def round_robin(runs: list[Run], rounds: int, calls: int = 5) -> list[list[float]]:
    """Each run's warm times (s). The runs take turns, `calls` calls each per turn (the first
    of a turn left out), so every run sees the same states of a shared machine."""
    from simt.benchtool.timing import sample

    times: list[list[float]] = [[] for _ in runs]
    for _ in range(rounds):
        for run, ts in zip(runs, times):
            ts += sample(run, simt.synchronize, warmup=1, repeat=calls - 1, min_time=0.0)
    return times


def median_ms(ts: list[float]) -> float:
    """Median of times in seconds, in ms."""
    return statistics.median(ts) * 1e3


def load_jobs(folder: Path | None = None) -> list[Job]:
    """Every job of the folder's kernel files (not those starting with `_`), in file order."""
    import importlib.util

    folder = folder or Path(__file__).resolve().parent
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    jobs: list[Job] = []
    for path in sorted(folder.glob("[!_]*.py")):
        if path.stem == "table":
            continue
        spec = importlib.util.spec_from_file_location(f"_user_kernels_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        jobs.extend(getattr(mod, "JOBS", []))
    return jobs
