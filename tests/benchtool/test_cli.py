"""`simt bench --quick --json` end to end on sim and cpu, a user benchmark file, and
`simt calibrate` storing a profile that `simt info` can show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simt.benchtool import main
from simt.benchtool.profile import load_profile, profile_lines
from simt.runtime import registry

USER_FILE = """
import numpy as np
import simt
from simt import block_dim, block_idx, thread_idx


@simt.kernel
def double(a, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(out):
        out[i] = 2.0 * a[i]


A = np.arange(1, 2049, dtype=np.float32)
OUT = np.zeros_like(A)


def bench_double():
    return double[8, 256], (A, OUT), lambda: bool(np.all(OUT == 2 * A))
"""


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_bench_quick_json(backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"backend {backend} not present: {why}")
    out = tmp_path / "bench.json"
    user = tmp_path / "mybench.py"
    user.write_text(USER_FILE)
    rc = main([str(user), "--backend", backend, "--quick", "--json", str(out), "-q",
               "--reps", "2", "--budget", "0.05", "--kit", str(tmp_path / "no-kit"),
               "--workloads", "vecadd,sobel,reduce"])  # fmt: skip
    assert rc == 0
    data = json.loads(out.read_text())
    rows = {r["workload"]: r for r in data["rows"]}
    assert set(rows) == {"vecadd", "sobel", "reduce", "double"}
    for r in rows.values():
        assert r["simt"]["n"] >= 2 and r["simt"]["median"] > 0
        assert r["predicted_s"] > 0 and r["cost"]["bound"]
    assert rows["vecadd"]["cost"]["bytes_read"] == 2 * 4 * (1 << 16)
    assert "numpy" in rows["vecadd"]["baselines"]
    text = capsys.readouterr().out
    assert "| W2 vecadd |" in text and "predicted ms" in text and "simt / numpy" in text


def test_wrong_user_result_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wrong answer is a failed command: exit status 1, as every `simt` command fails (2 is
    for a command line that cannot be carried out)."""
    user = tmp_path / "bad.py"
    user.write_text(USER_FILE.replace("OUT == 2 * A", "OUT == 3 * A"))
    rc = main([str(user), "--backend", "sim", "--workloads", "none", "-q", "--reps", "1"])
    assert rc == 1 and "FAIL: simt/sim on double" in capsys.readouterr().err


def test_missing_backend_is_a_clear_failure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--backend", "nosuch", "-q"]) == 1
    assert "not available" in capsys.readouterr().err


def test_plot_without_matplotlib_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        rc = main(["--backend", "sim", "--quick", "--workloads", "vecadd", "-q", "--reps", "1",
                   "--no-baselines", "--plot", str(tmp_path / "x.png")])  # fmt: skip
        assert rc == 0 and "needs matplotlib" in capsys.readouterr().err
    else:
        rc = main(["--backend", "sim", "--quick", "--workloads", "vecadd", "-q", "--reps", "1",
                   "--no-baselines", "--plot", str(tmp_path / "x.png")])  # fmt: skip
        assert rc == 0 and (tmp_path / "x.png").stat().st_size > 0


def test_calibrate_stores_a_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert "nominal" in profile_lines("sim")[0]
    assert main(["calibrate", "--backend", "sim", "--quick"]) == 0
    prof = load_profile("sim")
    assert prof.calibrated and prof.copy_bandwidth > 0 and prof.peak_flops > 0
    assert prof.launch_overhead > 0 and prof.op_rate > 0
    assert profile_lines("sim")[0].startswith("profile: calibrated")
    assert "stored" in capsys.readouterr().out


def test_a_folder_stands_for_its_benchmark_files(tmp_path: Path) -> None:
    from simt.benchtool.suite_cli import bench_files

    for name in ("b_two.py", "a_one.py", "_helper.py", "notes.txt"):
        (tmp_path / name).write_text("")
    files = bench_files([str(tmp_path)])
    assert [Path(f).name for f in files] == ["a_one.py", "b_two.py"]
