"""Where a kernel's compile time goes, per phase, in CPU seconds (`time.process_time`: the
figures hold under load, which wall time does not): the front end, `optimize`, the runtimes'
preparation (`pipeline.for_runtime`), and each backend's own compile (the CPU's lowering and
LLVM, WebGPU's shader module and pipeline on the adapter, CUDA's rendering and NVRTC).

    python bench/compile_phases.py --seeds 15,23      # the fuzzer's check of those kernels
                                                      # (`--with lists,exceptions --size 8`)
    python bench/compile_phases.py --corpus 10        # the corpus's 10 slowest cases to compile

`--seeds` runs the fuzzer's whole check of each kernel (sim, every backend present, NVRTC), as
`python -m simt fuzz` does; `--corpus` times each case's first launch less a second one on
sim, cpu and webgpu (their compile; the IR is shared between them) and CUDA's rendering. A
fresh disk cache each run. Results: bench/RESULTS.md, "Compile time of Python-per-thread
kernels".
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

os.environ["SIMT_CACHE_DIR"] = tempfile.mkdtemp(prefix="simt-phases-")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import simt  # noqa: E402
import simt.pipeline as P  # noqa: E402
from simt.backends import cuda as BC  # noqa: E402
from simt.runtime import cpu as RC  # noqa: E402
from simt.runtime import nvrtc as NV  # noqa: E402
from simt.runtime import registry  # noqa: E402
from simt.runtime import sim as RS  # noqa: E402
from simt.runtime import webgpu as RW  # noqa: E402

TIMES: dict[str, list[float]] = {}
PHASES = [
    (P, "translate", "front end"),
    (P, "optimize", "optimize"),
    (P, "for_runtime", "for_runtime (bounds proofs, warps, barriers)"),
    (RS.SimRuntime, "compile", "sim compile"),
    (RC, "lower_and_render", "cpu lowering + LLVM text"),
    (RC.CpuRuntime, "_object", "cpu LLVM (optimise + object code)"),
    (RW.WebGPURuntime, "compile", "webgpu shader module"),
    (RW.WebGPURuntime, "_make_pipeline", "webgpu pipeline (adapter's compiler)"),
    (BC, "build", "cuda rendering"),
    (NV, "compile_cubin", "NVRTC"),
]


def _wrap(owner: Any, name: str, label: str) -> None:
    orig = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        t = time.process_time()
        try:
            return orig(*args, **kwargs)
        finally:
            d = TIMES.setdefault(label, [0.0, 0])
            d[0] += time.process_time() - t
            d[1] += 1

    setattr(owner, name, timed)


def seeds(which: list[int]) -> None:
    from simt.testing import differential
    from simt.testing.campaign import backends_present, nvrtc_present
    from simt.testing.generator import generate

    for seed in which:
        TIMES.clear()
        program = generate(seed, lists=True, exceptions=True, size=8)
        t = time.process_time()
        found = differential.check(program, backends_present(None), nvrtc_present(), [])
        total = time.process_time() - t
        print(f"seed {seed}: the fuzzer's check {total:.2f} s CPU ({len(found)} findings)")
        for label, (s, n) in TIMES.items():
            print(f"  {label:46s} {s:7.2f} s  x{n}")


def _first_less_warm(case: Any, backend: str) -> float:
    simt.use(backend)
    spent = []
    for _ in range(2):
        args = case.make_args()
        t = time.process_time()
        with contextlib.suppress(Exception), contextlib.redirect_stdout(io.StringIO()):
            case.kernel[case.grid, case.block](*args)
            simt.synchronize()
        spent.append(time.process_time() - t)
    return max(0.0, spent[0] - spent[1])


def corpus(top: int) -> None:
    from corpus import CASES

    backs = ["sim"] + [b for b in ("cpu", "webgpu") if registry.probe(b)[0]]
    rows = []
    for case in CASES:
        if not hasattr(case.kernel, "_bind") or case.kernel.fn is not None:
            continue
        row = {b: _first_less_warm(case, b) for b in backs}
        t = time.process_time()
        with contextlib.suppress(Exception):
            case.kernel.source("cuda", *case.make_args())
        row["cuda rendering"] = time.process_time() - t
        rows.append((sum(row.values()), case.name, row))
    rows.sort(reverse=True)
    print("| case | " + " | ".join(rows[0][2]) + " | total s |")
    print("|---|" + "---|" * (len(rows[0][2]) + 1))
    for total, name, row in rows[:top]:
        print(f"| {name} | " + " | ".join(f"{v:.2f}" for v in row.values()) + f" | {total:.2f} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", default="", help="fuzz seeds, comma-separated (e.g. 15,23)")
    p.add_argument("--corpus", type=int, default=0, help="the N slowest corpus cases")
    a = p.parse_args()
    warnings.simplefilter("ignore")
    for owner, name, label in PHASES:
        _wrap(owner, name, label)
    if a.seeds:
        seeds([int(s) for s in a.seeds.split(",")])
    if a.corpus:
        corpus(a.corpus)


if __name__ == "__main__":
    main()
