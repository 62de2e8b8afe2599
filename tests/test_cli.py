"""The `simt` command follows the conventions of pip, pytest and ruff (issue 26 item 4):
`--version`, every command in `--help`, usage errors as one line on stderr with status 2,
failures as one line with status 1, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import simt
from simt.cli import main
from spawn_env import pythonpath

ROOT = Path(__file__).resolve().parents[1]
DEMO = str(ROOT / "examples" / "demo.py")
SOBEL = str(ROOT / "examples" / "sobel.py")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        rc = main(argv)
    except SystemExit as e:  # argparse's own exits (--help, --version, usage errors)
        rc = int(e.code or 0)
    out, err = capsys.readouterr()
    return rc, out, err


def test_version_and_every_command_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(["--version"], capsys)
    assert rc == 0 and out.strip() == f"simt {simt.__version__}"
    rc, out, _ = _run(["--help"], capsys)
    assert rc == 0
    for cmd in ("info", "show", "repl", "bench", "calibrate", "fuzz"):
        assert f"\n    {cmd}" in out, out


def test_bare_simt_is_a_usage_error_on_stderr() -> None:
    """Through the real entry point: `python -m simt` with nothing else."""
    env = dict(os.environ, PYTHONPATH=pythonpath())
    p = subprocess.run([sys.executable, "-m", "simt"], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("usage: simt") and "simt: error:" in p.stderr


@pytest.mark.parametrize(
    "argv,rc,message",
    [
        (["show", "missing.py:k"], 2, "simt show: error: no such file: missing.py"),
        (["show", "nocolon"], 2, "simt show: error: give FILE.py:KERNEL"),
        (["show", f"{DEMO}:vector_add", "--args", "garbage"], 2,
         "simt show: error: --args: cannot read 'garbage' as a parameter type"),
        (["show", f"{DEMO}:nosuch"], 1, f"simt show: error: {DEMO} has no nosuch"),
        (["show", f"{DEMO}:vector_add", "--backend", "nosuch"], 2, "invalid choice: 'nosuch'"),
        (["show", f"{SOBEL}:edgeDetect"], 1,
         "an image function whose parameters must be known is shown from Python"),
        (["bench", "/nonexistent"], 2, "simt bench: error: no such file or folder"),
        (["bench", "--workloads", "W9"], 2, "unknown workload 'w9'; choose from W1-W6"),
        (["fuzz", "--backends", "nosuch"], 2, "simt fuzz: error: unknown backend 'nosuch'"),
        (["fuzz", "--count", "-1"], 2, "simt fuzz: error: --count and --mutants are 0 or more"),
    ],
)
def test_errors_are_one_line_with_the_conventional_status(
    argv: list[str], rc: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    got, out, err = _run(argv, capsys)
    assert got == rc, err
    assert "Traceback" not in err and out == ""
    last = err.strip().splitlines()[-1]
    assert message in last, err


def test_show_prints_kernels_and_image_functions(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = _run(["show", f"{DEMO}:vector_add"], capsys)
    assert rc == 0 and "vector_add" in out
    rc, out, _ = _run(["show", f"{SOBEL}:scalarMul", "--backend", "cpu"], capsys)
    assert rc == 0 and "scalarMul" in out  # an image function, for an 8 x 8 grey image


def test_help_texts_have_no_python_names(capsys: pytest.CaptureFixture[str]) -> None:
    for cmd in ("bench", "fuzz", "show"):
        rc, out, _ = _run([cmd, "--help"], capsys)
        assert rc == 0
        assert "WITH_" not in out and "../shared" not in out, out
    rc, out, _ = _run(["bench", "--help"], capsys)
    assert "W1-W6" in out and "colsum" in out


def test_bench_takes_the_workload_ids_its_help_names(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _run(["bench", "--workloads", "W2", "--backend", "sim", "--quick",
                         "--no-baselines", "-q", "--reps", "1"], capsys)
    assert rc == 0, err
    assert "vecadd" in out


def test_a_benchmark_file_that_fails_is_one_line(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text('import numpy as np\nraise RuntimeError("oops")\n')
    rc, out, err = _run(["bench", str(broken), "--backend", "sim", "-q", "--no-baselines"], capsys)
    assert rc == 1 and "Traceback" not in err
    assert err.strip() == f"simt bench: error: {broken}:2: RuntimeError: oops"
    bad = tmp_path / "bad.py"
    bad.write_text("def bench_x(:\n")
    rc, out, err = _run(["bench", str(bad), "--backend", "sim", "-q", "--no-baselines"], capsys)
    assert rc == 1 and err.strip() == f"simt bench: error: {bad}:1: SyntaxError: invalid syntax"


def test_show_of_a_file_that_fails_names_its_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`simt show` runs the user's file to find the kernel: when the file raises, the one-line
    error names the file's line, as `simt bench` does (it named only the file)."""
    broken = tmp_path / "broken.py"
    broken.write_text("import simt\n\n@simt.kernel\ndef k(a):\n    a[0] = 1\n\nx = 1 / 0\n")
    rc, out, err = _run(["show", f"{broken}:k"], capsys)
    assert rc == 1 and "Traceback" not in err
    assert err.strip() == f"simt show: error: {broken}:7: ZeroDivisionError: division by zero"
