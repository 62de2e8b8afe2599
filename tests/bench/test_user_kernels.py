"""The user-kernel corpus of `bench/user_kernels/` (public teaching kernels translated to simt)
checked at small sizes: on `sim` against the float64 reference, on every other backend
present against both the reference and `sim`'s answer, and compiled to CUBIN by NVRTC.
Nothing is timed here (the timings are `bench/user_kernels/table.py`'s)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simt
from simt.runtime import registry

FOLDER = Path(__file__).resolve().parents[2] / "bench" / "user_kernels"


def _jobs() -> list[Any]:
    import sys

    sys.path.insert(0, str(FOLDER))
    from _harness import load_jobs  # type: ignore[import-not-found]

    return load_jobs(FOLDER)  # type: ignore[no-any-return]


JOBS = _jobs()
_sim_answers: dict[str, Any] = {}


def _rel_err(out: Any, ref: Any) -> float:
    from _harness import rel_err  # type: ignore[import-not-found]

    return rel_err(out, ref)  # type: ignore[no-any-return]


def _answer(job: Any, backend: str) -> tuple[Any, Any]:
    """(result, reference) of `job` at its test size on `backend`."""
    p = job.sizes["test"]
    inp = job.make(p)
    simt.use(backend)
    made = job.simt(inp, p)
    made.run()
    return np.asarray(made.result()), job.reference(inp, p)


@pytest.fixture
def keep_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Restore the backend other tests see after `simt.use`."""


def test_the_corpus_has_the_kernels_the_issue_names() -> None:
    names = {j.name for j in JOBS}
    assert len(names) >= 10
    assert {"matmul_tiled", "reduce_classic", "black_scholes", "sobel_shared", "scan"} <= names


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
@pytest.mark.parametrize("job", JOBS, ids=[j.name for j in JOBS])
def test_user_kernel(job: Any, backend: str, keep_backend: None) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"backend {backend!r} not present: {why}")
    got, ref = _answer(job, backend)
    err = _rel_err(got, ref)
    assert err < job.tol, f"{job.name} on {backend}: relative error {err:.3g} >= {job.tol}"
    if backend == "sim":
        _sim_answers[job.name] = got
        return
    sim = _sim_answers.get(job.name)
    if sim is None:
        sim, _ = _answer(job, "sim")
    # as close to sim as both are to the reference (twice the tolerance)
    assert _rel_err(got, sim) < 2 * job.tol, f"{job.name}: {backend} and sim differ"


@pytest.mark.parametrize("job", JOBS, ids=[j.name for j in JOBS])
def test_user_kernel_compiles_for_cuda(job: Any, keep_backend: None) -> None:
    from simt.backends import cuda
    from simt.runtime import nvrtc
    from simt.runtime.base import Compiled
    from simt.runtime.cuda import nvrtc_options

    if nvrtc.version() is None:
        pytest.skip("NVRTC is not installed")

    class IrOnly:
        name = "cuda"

        def compile(self, fn: Any) -> object:
            return Compiled(fn, "")

    p = job.sizes["test"]
    simt.use("sim")
    made = job.simt(job.make(p), p)
    seen = set()
    for kernel, _grid, _block, args in made.launches:
        if id(kernel) in seen:
            continue
        seen.add(id(kernel))
        host = [a.numpy() if hasattr(a, "numpy") else a for a in args]
        fn = kernel.specialise(host, IrOnly()).fn
        kern = cuda.build(fn)
        try:
            nvrtc.compile_cubin(kern.source, "sm_80", nvrtc_options(kern))
        except nvrtc.NvrtcError as e:
            pytest.fail(f"{job.name}: {e}", pytrace=False)


def test_scan_of_three_levels_on_cpu(keep_backend: None) -> None:
    """Past 1024 * 1024 elements the block sums are themselves scanned in several blocks."""
    ok, why = registry.probe("cpu")
    if not ok:
        pytest.skip(why)
    job = next(j for j in JOBS if j.name == "scan")
    p = {"n": (1 << 20) + 4099}
    inp = job.make(p)
    simt.use("cpu")
    made = job.simt(inp, p)
    made.run()
    assert np.array_equal(made.result(), job.reference(inp, p))


def test_simt_bench_finds_one_benchmark_per_job() -> None:
    """`simt bench bench/user_kernels` runs the `bench_*` functions of the folder's files:
    exactly one per job (nothing else there may start with `bench_`)."""
    import importlib.util

    from simt.benchtool.suite_cli import bench_files

    found = set()
    for path in bench_files([str(FOLDER)]):
        spec = importlib.util.spec_from_file_location(f"_probe_{Path(path).stem}", path)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        found |= {n for n in dir(mod) if n.startswith("bench_") and callable(getattr(mod, n))}
    assert found == {f"bench_{j.name}" for j in JOBS}
