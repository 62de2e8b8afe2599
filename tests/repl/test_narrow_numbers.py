"""The REPL on a device without int64 or float64 (a WebGPU adapter without shader-int64 /
shader-f64, such as an OpenGL one): its numbers adopt the widest types the device has —
int32 and float32 — and it says so once; on a device with them they stay Python's."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from simt.runtime.sim import SimRuntime
from spawn_env import pythonpath

from .sessions import new_session

ROOT = Path(__file__).resolve().parents[2]


def test_numbers_are_python_s_where_the_device_has_int64() -> None:
    s, buf = new_session("sim", 8)
    assert s.run("x = tid * 3000000000")
    assert s.state["x"].dtype == np.int64 and int(s.state["x"][7]) == 21000000000
    assert "note:" not in buf.getvalue()


def test_without_int64_and_float64_numbers_are_int32_and_float32(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(SimRuntime, "has_int64", lambda self: False)
    monkeypatch.setattr(SimRuntime, "has_float64", lambda self: False)
    s, buf = new_session("sim", 8)
    assert s.run("x = tid + 2147483640")
    assert s.run("y = x + 1")
    assert s.run("z = tid / 2")
    assert s.run("y")
    out = buf.getvalue()
    assert s.state["x"].dtype == np.int32 and s.state["z"].dtype == np.float32
    # int32 wraps as in a kernel: thread 7's 2147483647 + 1
    assert int(s.state["y"][7]) == -(2**31) and int(s.state["y"][6]) == 2147483647
    assert out.count("note:") == 1, out
    assert "no int64 and no float64" in out and "int32 and float32" in out


def test_a_session_moved_to_a_narrower_device_converts_its_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    s, buf = new_session("sim", 4)
    assert s.run("x = tid * 2")
    assert s.state["x"].dtype == np.int64
    monkeypatch.setattr(SimRuntime, "has_int64", lambda self: False)
    s.set_backend("sim")
    assert s.run("x = x + 1")
    assert s.state["x"].dtype == np.int32 and list(s.state["x"]) == [1, 3, 5, 7]
    assert buf.getvalue().count("note:") == 1


# ------------------------------------------------------------- a real OpenGL adapter
_CHILD = textwrap.dedent(
    """
    import io
    from simt.repl.console import PlainSink
    from simt.repl.session import Session

    buf = io.StringIO()
    s = Session(PlainSink(buf), threads=64, backend="webgpu")
    inputs = ("x = tid * 3", "x + 1", "y = x / 2", "y",
              "t = 0\\nfor k in range(tid % 4):\\n    t += k\\n", "t")
    for line in inputs:
        print("OK" if s.run(line) else "FAILED", line)
    print(buf.getvalue())
    """
)


def test_the_repl_runs_on_an_opengl_adapter(tmp_path: Path) -> None:
    """Where this machine has an OpenGL adapter (Vulkan hidden; reported as skipped where
    not): every input runs, in int32 and float32, and the REPL says so once."""
    pytest.importorskip("wgpu")
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    env = dict(os.environ, PYTHONPATH=pythonpath(), SIMT_WEBGPU_ADAPTER="gl")
    env["VK_ICD_FILENAMES"] = env["VK_DRIVER_FILES"] = str(tmp_path / "none.json")
    r = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True,
                       timeout=300)  # fmt: skip
    if "BackendUnavailable" in r.stderr or "not available" in r.stderr:
        pytest.skip(f"no OpenGL adapter here: {r.stderr[-300:]}")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "FAILED" not in r.stdout, r.stdout
    assert r.stdout.count("note:") == 1 and "int32 and float32" in r.stdout, r.stdout
    assert "94.5" in r.stdout  # thread 63's y: 189 / 2, a float32
    assert "32x -----\n0\n" in r.stdout and r.stdout.count("16x") == 2  # t: 0, 0, 1, 3
