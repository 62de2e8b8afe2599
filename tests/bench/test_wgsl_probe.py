"""`bench/gpu/wgsl_probe.py`, the WGSL constructs the next GPU pass compiles one by one on the
card: every probe's shader is valid WGSL (naga accepts it here), and a few run right on this
machine's adapter through the command the pass runs."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from simt.runtime import registry

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "bench" / "gpu" / "wgsl_probe.py"


def _probe_module() -> Any:
    spec = importlib.util.spec_from_file_location("wgsl_probe", PROBE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def webgpu() -> Any:
    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"webgpu not present: {why}")
    rt = registry.get("webgpu")
    if not {"shader-f64", "shader-int64"} <= rt.dev.features:  # type: ignore[attr-defined]
        pytest.skip("the adapter has no f64 or i64")
    return rt


def test_every_probe_is_valid_wgsl(webgpu: Any) -> None:
    probe = _probe_module()
    for name in probe.PROBES:
        webgpu.dev.device.create_shader_module(code=probe.shader(name))  # raises if invalid


def test_the_probe_command_runs_and_checks_values(webgpu: Any) -> None:
    names = ["fmod_f64", "mul_2p31_hidden", "div_f64"]
    res = subprocess.run([sys.executable, str(PROBE), *names], capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert [ln.split()[0] for ln in lines] == names, res.stdout
    assert all(ln.split()[1] == "ok" for ln in lines), res.stdout
