"""bench/cuda/run.py's compile step on a fake CUDA driver (`tests/runtime/test_cuda_fake.py`;
NVRTC compiles for real): the fresh process's snippet runs, and its timed run names the phases
a cached kernel's specialisation spends its time in, so that a GPU pass says where the time
goes (issues #28, #29: a cached W1 in a new process took 207 ms on the H100, 47 ms before)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.spawn_env import pythonpath

from simt.runtime import nvrtc

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")

FAKE = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
import simt
from simt.runtime import cuda as cuda_rt, registry
from tests.runtime.test_cuda_fake import FakeGpu
gpu = FakeGpu()
cuda_rt._core = lambda: gpu
cuda_rt._driver = lambda: gpu
_rt = cuda_rt.CudaRuntime()
registry.current = lambda: _rt
simt.use = lambda name: None
"""


def test_compile_snippet_reports_its_phases(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench" / "cuda"))
    try:
        import run  # type: ignore[import-not-found]
    finally:
        sys.path.pop(0)
    env = dict(os.environ, SIMT_CACHE_DIR=str(tmp_path), PYTHONPATH=pythonpath())
    got = []
    for phases in (False, True):  # compiled, then from the disk cache with its phases timed
        code = FAKE + run._COMPILE_SNIPPET.format(bench=str(ROOT / "bench"), phases=phases)
        res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, timeout=120)  # fmt: skip
        assert res.returncode == 0, res.stderr[-2000:]
        got.append(json.loads(res.stdout.strip().splitlines()[-1]))
    assert got[0]["ms"] > 0 and got[0]["phases"] == {}
    timed = got[1]["phases"]
    for phase in ("front end + passes (pipeline.build)", "bounds pass (pipeline.for_runtime)",
                  "render CUDA C++", "CUBIN: disk cache or NVRTC",
                  "mapped pinned memory (cuMemHostAlloc)"):  # fmt: skip
        assert phase in timed and timed[phase] >= 0, timed
    assert sum(v for k, v in timed.items() if "before the timer" not in k) <= got[1]["ms"] * 1.01


def test_pinned_snippet_runs(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench" / "cuda"))
    try:
        import run
    finally:
        sys.path.pop(0)
    env = dict(os.environ, SIMT_CACHE_DIR=str(tmp_path), PYTHONPATH=pythonpath())
    res = subprocess.run([sys.executable, "-c", FAKE + run._PINNED_SNIPPET.format()], env=env,
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["runtime_start_ms"] >= 0 and [n for n, _ in got["pinned_ms"]][-4:] == [
        4, 4, 1 << 20, 4]  # fmt: skip
