"""The fuzzer's fixed CI slice: generated kernels on every backend present against `sim`, the
CUDA C++ of each compiled by NVRTC, and front-end mutants (docs/testing.md).

The seeds are fixed so a failure here reproduces with
`python -m simt fuzz --seed SEED --count 1` (the failing seed is in the message). The kernels
are checked in worker processes, one for each core this pytest worker has to itself (the
cores divided among pytest-xdist's workers; up to four): a kernel that hangs or crashes a
backend is a finding naming its seed, not the end of the test run.
"""

from __future__ import annotations

import io
import os

import pytest

from simt.testing import campaign

CHUNKS = [(k * 25, 25) for k in range(12)]  # (first seed, kernels): 300 in all
# pytest-xdist's workers share the cores (PYTEST_XDIST_WORKER_COUNT): a chunk's kernels
# past the cores would only make each take longer, toward the campaign's hang limit
PYTEST_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
WORKERS = max(1, min(4, (os.cpu_count() or 1) // PYTEST_WORKERS))
pytestmark = pytest.mark.slow
MUTANT_CHUNKS = [(0, 75), (75, 75)]  # 150 mutants: every construct five times over


@pytest.fixture(autouse=True)
def _keep_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """The backend comes back after the test (tests/conftest.py)."""


@pytest.mark.parametrize("seed, count", CHUNKS, ids=[f"seeds{s}-{s + n - 1}" for s, n in CHUNKS])
def test_generated_kernels_agree_with_sim(seed: int, count: int) -> None:
    out = io.StringIO()
    s = campaign.run(seed, count, out=out, isolate=True, workers=WORKERS)
    print(out.getvalue())
    assert s.kernels == count
    assert not s.findings, out.getvalue()


def test_kernels_with_big_constants_agree_with_sim() -> None:
    """The `bigconst` option forced on (it is also drawn for about one kernel in four):
    constants int32 cannot hold keep Python's value on every backend (issue 23)."""
    out = io.StringIO()
    s = campaign.run(1000, 24, out=out, options={"bigconst": True}, isolate=True,
                     workers=WORKERS)
    assert s.kernels == 24 and s.features["int64"] >= 20, out.getvalue()
    assert not s.findings, out.getvalue()


@pytest.mark.parametrize(
    "seed, count", MUTANT_CHUNKS, ids=[f"mutants{s}-{s + n - 1}" for s, n in MUTANT_CHUNKS]
)
def test_mutants_get_located_compile_errors(seed: int, count: int) -> None:
    out = io.StringIO()
    s = campaign.run(seed, 0, mutants=count, out=out)
    assert s.mutants == count
    assert not s.mutant_failures, out.getvalue()


def test_the_slice_covers_every_feature() -> None:
    from simt.testing.generator import generate

    seen: set[str] = set()
    for seed in range(sum(n for _, n in CHUNKS)):
        seen |= generate(seed).features
    assert seen >= {"atomics", "fp64", "helpers", "local", "print", "shared"}
    # the optional features (testing/grammar.py), each drawn for about one kernel in four
    assert seen >= {"small_int", "f16", "u64", "complex", "views", "exceptions", "files"}
    assert "math" in seen  # the math rows WGSL lacks, pow of negative bases


def test_out_of_bounds_kernels_raise_a_kernel_error_naming_the_array() -> None:
    """The `oob` option (issue 23): each kernel has one access outside an array; on `sim`,
    every backend present and NVRTC, each in a worker process, the launch must raise a
    KernelError naming that array: never a crash, never a silent result."""
    out = io.StringIO()
    s = campaign.run(5000, 8, out=out, options={"oob": True, "size": 5}, isolate=True,
                     workers=WORKERS)
    assert s.kernels == 8
    assert not s.findings, out.getvalue()
