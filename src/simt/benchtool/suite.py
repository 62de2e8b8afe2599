"""What `simt bench` runs: the W1-W6 workloads, their baselines, and user benchmark files.

A user file is a Python file whose functions named `bench_*` each return a `Benchmark`, or a
tuple `(launch, args)` / `(launch, args, check)` where `launch` is `kernel[grid, block]` and
`check()` (optional) returns True when the launch's result is right; it is called after the
first run, before anything is timed.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime import registry
from . import workloads as W

Run = Callable[[], Any]


@dataclass
class Benchmark:
    """One benchmark: a simt launch (`launch(*args)`), its check, and baselines by name, each
    a `(run, result)` pair whose result is checked with `check_result`."""

    name: str
    label: str
    run: Run  # the simt run: launches and waits
    result: Run  # fetches the simt result
    check_result: Callable[[Any], float]  # relative error of a result (must be < tol)
    tol: float = W.TOL
    cost_of: Callable[[], Any] | None = None  # the cost model's Cost for the launch
    launch: Any = None  # (kernel, grid, block, args) for the advisor
    baselines: dict[str, tuple[Run, Run]] = field(default_factory=dict)
    size: dict[str, int] = field(default_factory=dict)


def _kit_default() -> Path | None:
    for base in (Path.cwd(), Path(__file__).resolve().parents[3]):
        for cand in (base / "shared" / "peers", base.parent / "shared" / "peers"):
            if (cand / "cbuild.py").exists():
                return cand
    return None


class Kit:
    """The peer kit's C references (`c`, `c-tuned`), run through its own modules."""

    def __init__(self, path: Path | None) -> None:
        self.peers: dict[str, Any] = {}
        if path is None or not (path / "cbuild.py").exists():
            self.status = "peer kit not found: no C baselines (give --kit PATH)"
            return
        sys.path.insert(0, str(path))
        try:
            import peer_c  # type: ignore[import-not-found]
            import peer_c_tuned  # type: ignore[import-not-found]

            for mod in (peer_c, peer_c_tuned):
                mod.init()
                self.peers[mod.NAME] = mod
            self.status = f"C baselines from {path}: " + "; ".join(
                f"{m.NAME} = {m.version()}" for m in self.peers.values()
            )
        except Exception as e:  # noqa: BLE001 - no gcc or no OpenMP: say so and go on
            self.peers.clear()
            self.status = f"C baselines unavailable ({type(e).__name__}: {e})"

    def make(self, name: str, wl: str, inp: dict[str, np.ndarray], p: dict[str, int]) -> Any:
        """(run, result) of peer `name` on `wl`, or None where it has no such workload."""
        mod = self.peers.get(name)
        make = getattr(mod, f"make_{wl}", None) if mod is not None else None
        if make is None:
            return None
        made = make(inp, p)
        return made[0], made[1]


def gpu_baselines(wl: str, inp: dict[str, np.ndarray]) -> dict[str, tuple[Run, Run]]:
    """CuPy and PyTorch versions of the workloads they have a one-call form of (on a GPU)."""
    out: dict[str, tuple[Run, Run]] = {}
    try:
        import cupy as cp  # type: ignore[import-not-found]

        dev = {k: cp.asarray(v) for k, v in inp.items()}
        fns = {
            "colsum": lambda: dev["a"].sum(axis=0),
            "vecadd": lambda: dev["a"] + dev["b"],
            "reduce": lambda: float(dev["a"].sum()),
            "matmul": lambda: dev["a"] @ dev["b"],
        }
        if wl in fns:
            box: dict[str, Any] = {}
            f = fns[wl]

            def run_cp() -> None:
                box["r"] = f()
                cp.cuda.Device().synchronize()

            out["cupy"] = (run_cp, lambda: cp.asnumpy(box["r"]) if wl != "reduce" else box["r"])
    except Exception:  # noqa: BLE001 - optional baseline
        pass
    try:
        import torch  # type: ignore[import-not-found]

        if torch.cuda.is_available():
            tdev = {k: torch.from_numpy(v).cuda() for k, v in inp.items()}
            tfns = {
                "colsum": lambda: tdev["a"].sum(dim=0),
                "vecadd": lambda: tdev["a"] + tdev["b"],
                "reduce": lambda: float(tdev["a"].sum()),
                "matmul": lambda: tdev["a"] @ tdev["b"],
            }
            if wl in tfns:
                tbox: dict[str, Any] = {}
                g = tfns[wl]

                def run_t() -> None:
                    tbox["r"] = g()
                    torch.cuda.synchronize()

                out["torch"] = (
                    run_t,
                    lambda: tbox["r"].cpu().numpy() if wl != "reduce" else tbox["r"],
                )
    except Exception:  # noqa: BLE001 - optional baseline
        pass
    return out


def workload(wl: str, size: str, kit: Kit | None, baselines: bool, backend: str) -> Benchmark:
    """Workload `wl` ready to run on the current backend (inputs uploaded, nothing compiled)."""
    from .cost import estimate

    p = W.SIZES[size][wl]
    inp = W.make_inputs(wl, p)
    ref = W.reference(wl, inp, p)
    s = W.make_simt(wl, inp, p)
    kernel, grid, block, args = W.launch_of(wl, p, inp)
    b = Benchmark(
        wl,
        W.LABELS[wl],
        s.run,
        s.result,
        lambda out: W.rel_err(wl, out, ref),
        cost_of=lambda: estimate(kernel, grid, block, args),
        launch=(kernel, grid, block, args),
        size=dict(p),
    )
    if baselines:
        b.baselines["numpy"] = W.make_numpy(wl, inp, p)
        caps = registry.runtime_class(backend)
        if kit is not None and caps.host_memory:  # C on the processor the backend runs on
            for name in ("c", "c-tuned"):
                made = kit.make(name, wl, inp, p)
                if made is not None:
                    b.baselines[name] = made
        if caps.cuda_arrays:  # CuPy and PyTorch on the same GPU
            b.baselines.update(gpu_baselines(wl, inp))
    return b


def user_benchmarks(path: str) -> list[Benchmark]:
    """The benchmarks of a user file (see the module doc)."""
    from .cost import estimate

    spec = importlib.util.spec_from_file_location(f"_simt_bench_{Path(path).stem}", path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"cannot load benchmark file {path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out: list[Benchmark] = []
    for name in sorted(dir(mod)):
        if not name.startswith("bench_") or not callable(getattr(mod, name)):
            continue
        made = getattr(mod, name)()
        if isinstance(made, Benchmark):
            out.append(made)
            continue
        launch, args = made[0], tuple(made[1])
        check = made[2] if len(made) > 2 else None
        label = name[len("bench_") :]

        def run(launch: Any = launch, args: tuple[Any, ...] = args) -> None:
            import simt

            launch(*args)
            simt.synchronize()

        def err(_out: Any, check: Any = check) -> float:
            return 0.0 if check is None or check() else float("inf")

        kernel = getattr(launch, "kernel", None)
        cost_of = None
        if kernel is not None:

            def cost_of(launch: Any = launch, args: tuple[Any, ...] = args) -> Any:
                return estimate(launch.kernel, launch.grid, launch.block, args)

        out.append(
            Benchmark(
                label,
                label,
                run,
                lambda: None,
                err,
                cost_of=cost_of,
                launch=(kernel, launch.grid, launch.block, args) if kernel is not None else None,
            )
        )
    return out
