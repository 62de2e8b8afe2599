"""The traceback of an error about the user's code ends at the user's line (issue #26 item 1).

Each case is a user script run by a fresh Python, as a user runs it; the traceback Python
prints for the uncaught error must name only the script's frames, the last one the line that
called simt. Internal errors (a bug in simt) keep simt's frames, and `SIMT_INTERNAL_ERRORS=1`
shows them for every error.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import simt
from spawn_env import pythonpath

SRC = str(Path(simt.__file__).resolve().parent.parent)
HEAD = """\
import numpy as np
import simt
a = np.zeros(8, np.float32)
"""

# (name, the script's body after HEAD, the error class printed); the failing line is the
# last line of the body
CASES = [
    ("compile", """
        @simt.kernel
        def k(a):
            a[simt.grid(1)] = {}
        k[1, 8](a)""", "CompileError"),
    ("compile_helper", """
        def helper(x):
            return x.nosuch
        @simt.kernel
        def k(a):
            a[simt.grid(1)] = helper(1.0)
        simt.launch(k, 1, 8, a)""", "CompileError"),
    ("launch_shape", """
        @simt.kernel
        def k(a):
            a[simt.grid(1)] = 1.0
        k[0, 8](a)""", "LaunchError"),
    ("launch_args", """
        @simt.kernel
        def k(a):
            a[simt.grid(1)] = 1.0
        k.config(1, 8)(a, a)""", "LaunchError"),
    ("call_kernel", """
        @simt.kernel
        def k(a):
            a[simt.grid(1)] = 1.0
        k(a)""", "LaunchError"),
    ("kernel_assert", """
        @simt.kernel
        def k(a):
            i = simt.grid(1)
            assert i < 4, "too far"
            a[i] = 1.0
        k[1, 8](a)""", "KernelError"),
    ("explain", """
        @simt.kernel
        def k(a):
            a[simt.grid(1)] = 1.0
        k.explain(1, 8, a, thread=(0, 99))""", "LaunchError"),
    ("compile_fn", """
        simt.compile(len, x=1)""", "CompileError"),
    ("image", """
        from simt.image import Image, Position
        def f(im: Image, p: Position):
            return im(p).nosuch
        simt.compile(f)(np.zeros((4, 4), np.float32))""", "CompileError"),
    ("tensor", """
        from simt.tensor import i
        i("ik*kj~ij") >> i("+ijk~")""", "CompileError"),
    ("tensor_exec", """
        from simt.tensor import i
        i("ij+ij~ij").exec(np.zeros((2, 2)), np.zeros((3, 3)))""", "Error"),
    ("use", """
        simt.use("nosuch")""", "BackendUnavailable"),
]


def _run(body: str, tmp_path: Path, env: dict[str, str] | None = None) -> tuple[str, Path]:
    script = tmp_path / "user_script.py"
    script.write_text(HEAD + textwrap.dedent(body).strip() + "\n")
    environ = dict(os.environ, PYTHONPATH=pythonpath(), SIMT_BACKEND="sim", **(env or {}))
    environ.pop("SIMT_INTERNAL_ERRORS", None)
    environ.update(env or {})
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=environ, timeout=120
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return proc.stderr, script


def _frames(stderr: str) -> list[tuple[str, int]]:
    return [(f, int(n)) for f, n in re.findall(r'^  File "([^"]+)", line (\d+)', stderr, re.M)]


@pytest.mark.parametrize("body,error", [(b, e) for _, b, e in CASES], ids=[c[0] for c in CASES])
def test_traceback_ends_at_the_users_line(body: str, error: str, tmp_path: Path) -> None:
    stderr, script = _run(body, tmp_path)
    frames = _frames(stderr)
    assert frames, stderr
    simt_frames = [f for f, _ in frames if f.startswith(SRC) or f.startswith("<")]
    assert not simt_frames, stderr
    last = len(script.read_text().splitlines())
    assert frames[-1] == (str(script), last), stderr
    assert re.search(rf"^simt\.errors\.\w*{error}: ", stderr, re.M), stderr
    assert "During handling of" not in stderr and "direct cause" not in stderr, stderr


def test_internal_frames_on_request(tmp_path: Path) -> None:
    """`SIMT_INTERNAL_ERRORS=1` shows simt's frames for a user error (for debugging simt)."""
    stderr, _ = _run(CASES[0][1], tmp_path, env={"SIMT_INTERNAL_ERRORS": "1"})
    assert any(f.startswith(SRC) for f, _ in _frames(stderr)), stderr


def test_internal_error_keeps_simts_frames(tmp_path: Path) -> None:
    """A bug in simt (here: the pipeline made to fail) says so and keeps simt's frames."""
    body = """
        import simt.pipeline
        def broken(*args, **kwargs):
            raise RuntimeError("boom")
        simt.pipeline.build = broken
        @simt.kernel
        def k(a):
            a[simt.grid(1)] = 1.0
        k[1, 8](a)"""
    stderr, _ = _run(body, tmp_path)
    assert "this is a bug in simt" in stderr, stderr
    assert any(f.startswith(SRC) for f, _ in _frames(stderr)), stderr


def test_renderer_bugs_are_internal() -> None:
    """NVRTC or the WebGPU driver refusing simt's own generated code is a bug in simt: those
    errors keep simt's frames."""
    from simt.errors import SimtError, is_internal, mark_internal
    from simt.runtime.nvrtc import NvrtcError

    assert is_internal(NvrtcError("NVRTC rejected it; this is a bug in simt", "src", "log"))
    assert is_internal(mark_internal(SimtError("x"))) and not is_internal(SimtError("x"))
