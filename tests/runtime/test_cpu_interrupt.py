"""Ctrl-C during a long `cpu` launch: KeyboardInterrupt within a second, and the next launch
runs. In a child process, so that a launch that cannot be stopped fails this test (by its
timeout) instead of hanging the test run."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simt.runtime import registry

SRC = str(Path(__file__).resolve().parents[2] / "src")

CHILD = """
import time
import numpy as np
import simt

simt.use("cpu")


@simt.kernel
def spin(out, n):
    i = simt.grid(1)
    if i < out.size:
        s = 0
        for j in range(n):
            s = (s * 31 + j + i) % 1000003
        out[i] = s


out = np.zeros(1 << 20, np.int32)
spin[out.size // 256, 256](out, 1)  # compiled before the timed launch
print("start", flush=True)
t = time.monotonic()
try:
    spin[out.size // 256, 256](out, 1 << 14)  # minutes uninterrupted; a block: ~50 ms
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
small = np.zeros(1000, np.int32)
spin[4, 256](small, 3)
print("next", small[:3].tolist(), flush=True)
"""


def _line(proc: subprocess.Popen[str], timeout: float) -> str:
    assert proc.stdout is not None
    r, _, _ = select.select([proc.stdout], [], [], timeout)
    if not r:
        proc.kill()
        raise AssertionError(f"no output from the child within {timeout} s")
    return proc.stdout.readline().strip()


@pytest.mark.parametrize("threads", ["1", "2"])  # the calling thread alone; the thread pool
def test_ctrl_c_stops_a_cpu_launch_within_a_second(threads: str, tmp_path: Path) -> None:
    ok, why = registry.probe("cpu")
    assert ok, f"cpu is a core backend (llvmlite is a dependency): {why}"
    env = dict(os.environ, PYTHONPATH=SRC, SIMT_NUM_THREADS=threads)
    script = tmp_path / "spin.py"  # simt reads a kernel's source from its file
    script.write_text(CHILD)
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert _line(proc, 120) == "start"
        time.sleep(0.3)  # inside the launch
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert _line(proc, 10) == "interrupted"
        assert time.monotonic() - sent < 1.0
        assert _line(proc, 30) == "next [33, 1026, 2019]"  # the next launch works
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
