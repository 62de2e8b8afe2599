"""Public Numba-CUDA course programs run unchanged but for their import lines (issue 25's
"done when"): each program in course/ runs on sim, cpu and webgpu and its own checks hold,
and the very same file run by Numba's CUDA simulator gives the same results. The programs
(`course/p_*.py`) name their source (repository, path) at their top."""

from __future__ import annotations

import importlib.util
import os
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simt
from simt.runtime import registry

HERE = Path(__file__).with_name("course")
PROGRAMS = sorted(p.name for p in HERE.glob("p_*.py"))  # each a program, as its source wrote it


def run_program(name: str) -> dict[str, Any]:
    return runpy.run_path(str(HERE / name))["RESULTS"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
@pytest.mark.parametrize("program", PROGRAMS)
def test_course_program_runs(program: str, backend: str) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"backend {backend!r} not present: {why}")
    simt.use(backend)
    results = run_program(program)
    failed = [k for k, v in results.items() if isinstance(v, bool) and not v]
    assert not failed, f"{program} on {backend}: its checks failed: {failed}"


@pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                    reason="numba is not installed (pip install numba, or the dev extra)")
@pytest.mark.parametrize("program", PROGRAMS)
def test_course_program_agrees_with_numba(program: str, tmp_path: Path) -> None:
    out = tmp_path / "numba.npz"
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    r = subprocess.run(
        [sys.executable, str(HERE / "run_numba.py"), str(HERE / program), str(out)],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, f"Numba's run of {program} failed:\n{r.stderr[-4000:]}"
    simt.use("cpu")
    ours = run_program(program)
    with np.load(out) as theirs:
        assert sorted(theirs.files) == sorted(ours)
        for k in theirs.files:
            assert np.array_equal(np.asarray(ours[k]), theirs[k]), f"{program}: {k} differs"
