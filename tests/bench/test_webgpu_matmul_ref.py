"""`bench/webgpu/matmul_ref.py`, the hand-written WGSL matmul that `bench/tensor.py --backend
webgpu` compares simt's GEMM schedules against: its products equal NumPy's at edge sizes
(tiles cut by every edge, an empty k) on this machine's adapter (lavapipe here: correctness
only), and its command checks itself."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from simt.runtime import registry

ROOT = Path(__file__).resolve().parents[2]
REF = ROOT / "bench" / "webgpu" / "matmul_ref.py"


@pytest.fixture(scope="module")
def ref() -> Any:
    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"webgpu not present: {why}")
    spec = importlib.util.spec_from_file_location("matmul_ref", REF)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (70, 33, 90), (64, 16, 64), (65, 17, 129),
                                   (5, 0, 9)])  # fmt: skip
def test_hand_matmul_matches_numpy(ref: Any, m: int, k: int, n: int) -> None:
    rng = np.random.default_rng(m * 1000 + k)
    a = rng.standard_normal((m, k), dtype=np.float32)
    b = rng.standard_normal((k, n), dtype=np.float32)
    mm = ref.HandMatmul(a, b)
    mm.run()
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(mm.result(), want, rtol=1e-5, atol=1e-5)


def test_the_command_checks_and_times_it(ref: Any) -> None:
    res = subprocess.run([sys.executable, str(REF), "--n", "96", "--reps", "2"],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert res.returncode == 0, res.stdout + res.stderr
    assert "hand WGSL matmul 96: correct" in res.stdout
