"""The compatibility corpus under real Numba agrees with simt: the same kernel files, run by
Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, in a subprocess, where `simt.cuda` is made to
mean `numba.cuda`) and by simt on `cpu`, give the same results (within each case's `agree`
tolerance: transcendental functions may round differently). Numba is a test-only
dependency: without it the test is skipped, saying so."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simt

from .numba_corpus import load
from .numba_corpus.case import NCase, check

CASES = [c for c in load() if c.numba]
RUNNER = Path(__file__).with_name("numba_corpus") / "run_numba.py"
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("numba") is None,
    reason="numba is not installed (pip install numba, or the dev extra)",
)


@pytest.fixture(scope="module")
def numba_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, np.ndarray]:
    out = tmp_path_factory.mktemp("numba") / "corpus.npz"
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    r = subprocess.run(
        [sys.executable, str(RUNNER), str(out)], env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, f"Numba's run of the corpus failed:\n{r.stderr[-4000:]}"
    with np.load(out) as data:
        return {k: data[k] for k in data.files}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_simt_agrees_with_numba(case: NCase, numba_results: dict[str, np.ndarray]) -> None:
    simt.use("cpu")
    before = case.make_args()
    args: tuple[Any, ...] = case.make_args()
    case.run(args)
    simt.synchronize()
    written = case.reference(*before).keys()
    tol = case.agree or case.tol
    for pos in written:
        theirs = numba_results[f"{case.name}/{pos}"]
        why = check(tol, args[pos], theirs.astype(args[pos].dtype))
        assert why is None, f"{case.name}: argument {pos} differs from Numba's: {why}"


def test_every_case_ran_under_numba(numba_results: dict[str, np.ndarray]) -> None:
    ran = {k.split("/")[0] for k in numba_results}
    assert ran == {c.name for c in CASES}
    skipped = [c for c in load() if not c.numba]
    assert all(c.why for c in skipped), "a case kept from Numba must say why"
