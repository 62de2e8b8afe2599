"""Ctrl-C during a long `cpu` launch: KeyboardInterrupt within a second, and the next launch
runs; also inside one block that loops for ever (the kernels' loops poll for it,
`runtime.cpu_interrupt`). In a child process, so that a launch that cannot be stopped fails
this test (by its timeout) instead of hanging the test run."""

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
from spawn_env import pythonpath

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


_pending: dict[int, bytes] = {}


def _line(proc: subprocess.Popen[bytes], timeout: float) -> str:
    """The child's next line, waiting at most `timeout` seconds (read from the pipe itself:
    a buffered reader would take two lines at once and leave `select` waiting on the second)."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    end = time.monotonic() + timeout
    while b"\n" not in _pending.get(fd, b""):
        r, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
        chunk = os.read(fd, 4096) if r else b""
        if not chunk:
            proc.kill()
            raise AssertionError(f"no output from the child within {timeout} s")
        _pending[fd] = _pending.get(fd, b"") + chunk
    line, _pending[fd] = _pending[fd].split(b"\n", 1)
    return line.decode().strip()


@pytest.mark.parametrize("threads", ["1", "2"])  # the calling thread alone; the thread pool
def test_ctrl_c_stops_a_cpu_launch_within_a_second(threads: str, tmp_path: Path) -> None:
    ok, why = registry.probe("cpu")
    assert ok, f"cpu is a core backend (llvmlite is a dependency): {why}"
    env = dict(os.environ, PYTHONPATH=pythonpath(), SIMT_NUM_THREADS=threads)
    script = tmp_path / "spin.py"  # simt reads a kernel's source from its file
    script.write_text(CHILD)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env=env)
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


FOREVER = """
import numpy as np
import simt

simt.use("cpu")


@simt.kernel
def forever(out):
    tid = simt.grid(1)
    y = tid
    while y >= 0:  # never ends
        y = (y + 1) % 1000
    out[tid] = y


@simt.kernel
def forever_big(out, n):  # per-thread arrays too large for the stack: the heap area
    tid = simt.grid(1)
    t = simt.local.array(4096, np.float32)
    for j in range(4096):
        t[j] = j
    k = 0
    while out[tid] >= 0:  # never ends: out holds zeros
        k = (k + 1) % n
        out[tid] = out[tid] + t[k] * 0
    out[tid] = k


@simt.kernel
def double(out):
    i = simt.grid(1)
    if i < out.size:
        out[i] = 2 * i


out = np.zeros(256, np.int64)
for name, k, args in (("forever", forever, (out,)), ("forever_big", forever_big, (out, 7))):
    print("start", name, flush=True)
    try:
        k[1, 256](*args)  # one block
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
small = np.zeros(300, np.int64)
double[2, 256](small)
print("next", small[:3].tolist(), small[-1], flush=True)
"""


@pytest.mark.parametrize("threads", ["1", "2"])
def test_ctrl_c_stops_one_block_looping_for_ever(threads: str, tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=pythonpath(), SIMT_NUM_THREADS=threads)
    script = tmp_path / "forever.py"
    script.write_text(FOREVER)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env=env)
    try:
        for name in ("forever", "forever_big"):
            assert _line(proc, 120) == f"start {name}"
            time.sleep(1.5)  # compiled (the first time) and inside the loop
            sent = time.monotonic()
            proc.send_signal(signal.SIGINT)
            assert _line(proc, 10) == "interrupted"
            assert time.monotonic() - sent < 1.0
        assert _line(proc, 60) == "next [0, 2, 4] 598"  # the next launch works
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_python_sigint_handler_still_runs_and_the_launch_stops(tmp_path: Path) -> None:
    """simt's native handler sits in front of Python's and calls it: a handler the user
    installed after simt's first launch still runs, and the launch still stops."""
    script = tmp_path / "handler.py"
    script.write_text(
        FOREVER.split("out = np.zeros")[0]
        + """
import signal
out = np.zeros(256, np.int64)
small = np.zeros(300, np.int64)
double[2, 256](small)  # simt's handler in place


def mine(sig, frame):
    print("handler", flush=True)
    raise KeyboardInterrupt


signal.signal(signal.SIGINT, mine)  # Python's C handler again, in front of simt's
print("start", flush=True)
try:
    forever[1, 256](out)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""
    )
    env = dict(os.environ, PYTHONPATH=pythonpath(), SIMT_NUM_THREADS="1")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env=env)
    try:
        assert _line(proc, 120) == "start"
        time.sleep(1.5)
        proc.send_signal(signal.SIGINT)
        assert _line(proc, 10) == "handler"
        assert _line(proc, 10) == "interrupted"
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
