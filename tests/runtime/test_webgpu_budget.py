"""A webgpu launch past its time budget (`SIMT_WEBGPU_TIMEOUT`) is a KernelError saying what
ran and how to raise the budget, not a wait for ever; once the device is done with it, the
next launch works. In a child process: the device goes on running the long kernel (no device
can stop a running shader), and ending the child ends it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from simt.runtime import registry
from spawn_env import pythonpath

SRC = str(Path(__file__).resolve().parents[2] / "src")

CHILD = """
import os, time
import numpy as np
import simt
from simt.runtime import registry

simt.use("webgpu")


@simt.kernel
def spin(out, n):
    i = simt.grid(1)
    if i < out.size:
        s = 0
        for j in range(n):
            for k in range(n):
                s = (s * 31 + j + k + i) % 1000003
        out[i] = s


out = np.zeros(1 << 16, np.int32)
spin[256, 256](out, 2)  # compiled before the timed launch
n = 250  # 62,500 turns a thread (llvmpipe's loop budget is 65,535): seconds on llvmpipe,
# well past the budget even on an idle machine (n = 100 was not)
if registry.get("webgpu").caps.loop_limit is None:
    # a GPU (no loop budget): the H100 ran n = 250 inside 0.5 s, so n grows until a launch
    # is measured to take ~3 s, whatever the GPU's speed
    os.environ["SIMT_WEBGPU_TIMEOUT"] = "0"
    took = 0.0
    while took < 0.2 and n < 1 << 16:
        n *= 2
        t = time.monotonic()
        spin[256, 256](out, n)
        simt.synchronize()
        took = time.monotonic() - t
    n = int(n * (3.0 / max(took, 1e-3)) ** 0.5)  # the time grows as n * n
    os.environ["SIMT_WEBGPU_TIMEOUT"] = "0.5"
t = time.monotonic()
try:
    spin[256, 256](out, n)
    print("finished", n, flush=True)
except simt.KernelError as e:
    print(f"KernelError after {time.monotonic() - t:.1f} s: {e}", flush=True)
os.environ["SIMT_WEBGPU_TIMEOUT"] = "0"  # now wait for ever: the next launch works
small = np.zeros(3, np.int32)
spin[1, 32](small, 2)
print("next", small.tolist(), flush=True)
os._exit(0)  # the device may still run the long kernel: do not wait for it at exit
"""


def test_a_launch_past_its_time_budget_is_reported(tmp_path: Path) -> None:
    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"webgpu not present: {why}")
    script = tmp_path / "spin.py"  # simt reads a kernel's source from its file
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=pythonpath(), SIMT_WEBGPU_TIMEOUT="0.5")
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, timeout=300)  # fmt: skip
    lines = res.stdout.splitlines()
    assert res.returncode == 0, res.stderr
    assert lines[0].startswith("KernelError after 0."), lines  # within the budget, not 20 s
    assert "launch of spin() ran longer than its time budget of 0.5 s" in lines[0]
    assert "SIMT_WEBGPU_TIMEOUT=<seconds>" in lines[0]
    assert lines[1] == "next [994, 31778, 62562]"


def test_a_budget_that_is_not_a_number_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    from simt.errors import LaunchError
    from simt.runtime.webgpu import time_budget

    monkeypatch.setenv("SIMT_WEBGPU_TIMEOUT", "soon")
    with pytest.raises(LaunchError, match="is not a number of seconds"):
        time_budget()
    monkeypatch.setenv("SIMT_WEBGPU_TIMEOUT", "0")
    assert time_budget() is None
    monkeypatch.delenv("SIMT_WEBGPU_TIMEOUT")
    assert time_budget() == 300.0
