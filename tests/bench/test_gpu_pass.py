"""The prepared GPU pass (`bench/gpu_pass.sh`) in its dry mode: every step runs up to where it
needs an NVIDIA GPU (the test suite is collected, the fuzzer runs on sim, the matmul and
user-kernel benchmarks run at tiny sizes on cpu), so the one call on a lent GPU machine does
not fail on a typo. The real pass is run by hand on that machine (bench/RESULTS.md, "CUDA")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STEPS = ("device", "tests", "fuzz", "suite", "matmul", "users", "webgpu")


def test_dry_pass_runs_every_step(tmp_path: Path) -> None:
    env = dict(os.environ, OUT=str(tmp_path / "out"), PYTHON=sys.executable)
    res = subprocess.run(
        ["bash", str(ROOT / "bench" / "gpu_pass.sh"), "--dry"],
        env=env, capture_output=True, text=True, timeout=300,
    )
    log = (tmp_path / "out" / "pass.log").read_text()
    assert res.returncode == 0, res.stdout + res.stderr + log[-3000:]
    summary = (tmp_path / "out" / "summary.txt").read_text().splitlines()
    ran = {line.split()[0]: line for line in summary}
    for step in STEPS:
        assert step in ran and "rc=0" in ran[step] and "(dry)" in ran[step], summary
    # the benchmarks' checked results reached the merged JSON
    merged = (tmp_path / "out" / "results.json").read_text()
    assert '"matmul"' in merged and '"users"' in merged
    # the output stays within what the device tool brings back: at most 8 files
    assert len(list((tmp_path / "out").iterdir())) <= 8


def test_unknown_argument_is_a_usage_error(tmp_path: Path) -> None:
    res = subprocess.run(
        ["bash", str(ROOT / "bench" / "gpu_pass.sh"), "--nosuch"],
        env=dict(os.environ, OUT=str(tmp_path)), capture_output=True, text=True, timeout=30,
    )
    assert res.returncode == 2 and "unknown argument --nosuch" in res.stderr
