"""bench/bounds.py times what it says: its checks-off side launches the unchecked twins of a
job's kernels (W1-W6 looked their kernel up by name at each call, and the jobs made for one
kernel passed in kept it: both timed the checked kernel on both sides), and `--processes`
times each side in processes of its own. Quick sizes on `cpu`; timings are made, no figure
is asserted."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simt
from simt.runtime import registry

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _bounds() -> Any:
    spec = importlib.util.spec_from_file_location("_bench_bounds", BENCH / "bounds.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # (its dataclasses look their module up)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def bounds() -> Any:
    ok, why = registry.probe("cpu")
    if not ok:
        pytest.skip(f"backend 'cpu' not present: {why}")
    return _bounds()


# a workload of the suite, a job made for a kernel passed in (matmul.py, reductions.py),
# and a job whose module names its kernels (monte_carlo: two kernels)
@pytest.mark.parametrize("name", ["W4 sobel", "matmul_naive", "harris_reduce2", "monte_carlo"])
def test_the_off_side_runs_the_unchecked_twins(bounds: Any, name: str) -> None:
    simt.use("cpu")
    rt = registry.current()
    (e,) = bounds.suite_entries("quick", {name}) + bounds.job_entries("quick", {name})
    run, res, launches = bounds.build_off(e)
    run()
    assert e.check(res()) < e.tol
    assert launches and all(k.boundscheck is False for k, *_ in launches)
    assert bounds.wrong_side(launches, rt) is None
    # and the on side's kernels are the checked ones
    _, _, on = e.make()
    assert all(k.boundscheck is not False for k, *_ in on)


def test_wrong_side_names_a_checked_kernel(bounds: Any) -> None:
    simt.use("cpu")
    rt = registry.current()
    (e,) = bounds.suite_entries("quick", {"W2 vecadd"})
    _, _, on = e.make()
    assert "vecadd with checks on" in bounds.wrong_side(on, rt)
    twin = bounds.unchecked(on[0][0])
    assert "never ran" in bounds.wrong_side([(twin, None, None, None)], rt)


def test_processes_time_each_side_apart(bounds: Any, tmp_path: Path) -> None:
    out = tmp_path / "rows.json"
    assert bounds.main(["--size", "quick", "--only", "vecadd", "--processes", "2",
                        "--rounds", "1", "--calls", "2", "--json", str(out)]) == 0  # fmt: skip
    (row,) = json.loads(out.read_text())["rows"]
    assert len(row["on_each"]) == len(row["off_each"]) == 2
    # each side's spread is its slowest process over its fastest, as the row prints it
    for side in ("on", "off"):
        each = row[f"{side}_each"]
        assert row[f"{side}_spread"] == pytest.approx(max(each) / min(each))
    assert row["kernels"][0]["kernel"] == "vecadd"


def test_same_times_the_unchecked_build_in_both_columns(bounds: Any, tmp_path: Path,
                                                         monkeypatch: Any) -> None:  # fmt: skip
    """`--same` (an A/A run): every process of both columns times the checks-off build, so the
    ratio is what placement alone gives; without `--processes` it is refused."""
    sides: list[str] = []
    run = bounds.subprocess.run

    def spy(cmd: list[str], **kw: Any) -> Any:
        sides.append(cmd[cmd.index("--side") + 1])
        return run(cmd, **kw)

    monkeypatch.setattr(bounds.subprocess, "run", spy)
    out = tmp_path / "rows.json"
    assert bounds.main(["--size", "quick", "--only", "vecadd", "--processes", "2", "--same",
                        "--rounds", "1", "--calls", "2", "--json", str(out)]) == 0  # fmt: skip
    assert sides == ["off"] * 4
    got = json.loads(out.read_text())
    assert got["same"] and len(got["rows"][0]["on_each"]) == 2
    with pytest.raises(SystemExit):
        bounds.main(["--size", "quick", "--only", "vecadd", "--same"])


@simt.kernel
def _where_flagged(a, out, flags):
    i = simt.grid(1)
    if flags[simt.block_idx.x] != 0:  # a guard from the data: the test is the block's range
        out[i] = a[i]


def test_blocks_that_fail_the_block_test_are_reported(bounds: Any) -> None:
    """The kept-checks column says when the block-level test fails at the job's own launch,
    so that its blocks ran the checked copy (it said "—" then, and hid harris_reduce0's
    cause): here the last of 4 blocks (`a` has 1000 elements; that block's flag is off, so
    nothing is out of bounds)."""
    simt.use("cpu")
    rt = registry.current()
    a, out = np.ones(1000, np.float32), np.zeros(1024, np.float32)
    flags = np.array([1, 1, 1, 0], np.int32)
    launches = [(_where_flagged, 4, 256, (a, out, flags))]
    ran = bounds.checked_in_run(lambda: _where_flagged[4, 256](a, out, flags), launches, {}, rt)
    (rep,) = bounds.reports(launches, {}, rt, ran)
    assert rep["checked_threads"] == 256
    assert "the block test failed for 256 of 1024 threads a run" in rep["kept"][-1]
    np.testing.assert_array_equal(out[:768], 1.0)
