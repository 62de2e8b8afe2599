"""Which WebGPU adapter simt chooses (runtime/webgpu_device.choose): never an OpenGL adapter
by default, with a refusal that says what was found and how to get a Vulkan driver; the
explicit opt-in `SIMT_WEBGPU_ADAPTER=gl`. Tested on fake adapter descriptions (no GL
needed), then for real where this machine has an OpenGL adapter (Vulkan hidden from wgpu by
pointing the Vulkan loader at no driver)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from simt.errors import BackendUnavailable
from simt.runtime.webgpu_device import ENV, choose
from spawn_env import pythonpath

ROOT = Path(__file__).resolve().parents[2]


def _info(device: str, backend: str, kind: str) -> dict[str, Any]:
    return {"device": device, "vendor": "", "backend_type": backend, "adapter_type": kind}


GL_SOFT = _info("llvmpipe (LLVM 15.0.6, 256 bits)", "OpenGL", "CPU")
GL_GPU = _info("AMD Radeon RX 6600 (radeonsi)", "OpenGL", "DiscreteGPU")
VK_SOFT = _info("llvmpipe (LLVM 15.0.6, 256 bits)", "Vulkan", "CPU")
VK_IGPU = _info("Intel(R) UHD Graphics 620", "Vulkan", "IntegratedGPU")


def test_a_vulkan_adapter_wins_over_any_opengl_one() -> None:
    # even a software Vulkan adapter over a real GPU's GL driver
    assert choose([GL_GPU, VK_SOFT]) == 1
    assert choose([GL_SOFT, GL_GPU, VK_SOFT, VK_IGPU]) == 3


@pytest.mark.parametrize("gl", [[GL_SOFT], [GL_GPU], [GL_SOFT, GL_GPU]])
def test_only_opengl_adapters_is_a_refusal_saying_how_to_get_vulkan(gl: list[Any]) -> None:
    with pytest.raises(BackendUnavailable) as e:
        choose(gl)
    msg = str(e.value)
    assert "only an OpenGL adapter was found" in msg and gl[0]["device"] in msg
    assert "mesa-vulkan-drivers" in msg and f"{ENV}=gl" in msg


@pytest.mark.parametrize("want", ["gl", "opengl", "GL "])
def test_the_opt_in_chooses_opengl(want: str) -> None:
    assert choose([VK_SOFT, GL_GPU], want) == 1
    assert choose([GL_SOFT], want) == 0


class _GLWithoutCompute:
    """An OpenGL adapter whose driver gives wgpu no compute shaders, as NVIDIA's GL driver did
    on the H100 (wgpu logged the reason on stderr; the request said the device was lost)."""

    info = {"device": "NVIDIA H100 80GB HBM3/PCIe/SSE2", "vendor": "", "backend_type": "OpenGL",
            "adapter_type": "DiscreteGPU"}  # fmt: skip
    features: tuple[str, ...] = ()
    limits: dict[str, int] = {}

    def request_device_sync(self, **kw: Any) -> Any:
        os.write(2, b"indirect-validation error: ComputePipeline(Internal(\"The selected version "
                 b"doesn't support Features(BUFFER_STORAGE | COMPUTE_SHADER | "
                 b"DYNAMIC_ARRAY_SIZE)\"))\n")  # fmt: skip
        raise RuntimeError("Request device failed (3): Validation Error\n\nCaused by:\n"
                           "  Parent device is lost\n")  # fmt: skip


def test_an_opengl_adapter_without_compute_shaders_is_said_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wgpu = pytest.importorskip("wgpu")
    from simt.runtime import webgpu_device

    monkeypatch.setattr(wgpu.gpu, "enumerate_adapters_sync", lambda: [_GLWithoutCompute()])
    monkeypatch.setattr(webgpu_device, "_device", None)
    monkeypatch.setattr(webgpu_device, "_failure", None)
    monkeypatch.setenv(ENV, "gl")
    with pytest.raises(BackendUnavailable) as e:
        webgpu_device.open_device()
    msg = str(e.value)
    assert "the OpenGL adapter has no compute shaders" in msg, msg
    assert "COMPUTE_SHADER" in msg and f"Unset {ENV}" in msg and "mesa-vulkan-drivers" in msg


def test_a_name_or_backend_that_matches_nothing_is_named() -> None:
    with pytest.raises(BackendUnavailable, match="matches no WebGPU adapter.*OpenGL"):
        choose([GL_SOFT], "vulkan")
    assert choose([GL_SOFT, VK_IGPU], "intel") == 1


# ---------------------------------------------------------------- a real OpenGL adapter
_CHILD = textwrap.dedent(
    """
    import numpy as np
    import simt
    from simt.runtime import registry

    ok, why = registry.probe("webgpu")
    print("PROBE", ok, why)
    if ok:
        @simt.kernel
        def saxpy(a, x, y):
            i = simt.grid(1)
            if i < len(y):
                y[i] = a * x[i] + y[i]

        simt.use("webgpu")
        y = np.ones(100, np.float32)
        saxpy[4, 32](np.float32(2.0), np.arange(100, dtype=np.float32), y)
        print("RESULT", bool(np.array_equal(y, 2 * np.arange(100) + 1)))
    else:
        try:
            simt.use("webgpu")
        except simt.BackendUnavailable as e:
            print("REFUSED", e)
    """
)


def _without_vulkan(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    env = dict(os.environ, PYTHONPATH=pythonpath(), **extra)
    env.pop(ENV, None)
    env.update(extra)
    # the Vulkan loader then finds no driver, as on a machine without mesa-vulkan-drivers
    env["VK_ICD_FILENAMES"] = str(tmp_path / "no-vulkan-driver.json")
    env["VK_DRIVER_FILES"] = env["VK_ICD_FILENAMES"]
    return subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=180
    )


@pytest.fixture(scope="module")
def gl_here(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Skips (reported) where this machine has no OpenGL adapter for wgpu without Vulkan."""
    pytest.importorskip("wgpu")
    r = _without_vulkan(tmp_path_factory.mktemp("gl"), **{ENV: "gl"})
    if "PROBE True" not in r.stdout:
        pytest.skip(f"no OpenGL adapter here without Vulkan: {r.stdout.strip()} {r.stderr[-300:]}")


def test_without_vulkan_webgpu_is_refused_and_simt_info_says_why(
    gl_here: None, tmp_path: Path
) -> None:
    r = _without_vulkan(tmp_path)
    assert "PROBE False" in r.stdout and "REFUSED" in r.stdout, r.stdout + r.stderr
    assert "mesa-vulkan-drivers" in r.stdout and "OpenGL" in r.stdout
    env = dict(os.environ, PYTHONPATH=pythonpath())
    env.pop(ENV, None)
    env["VK_ICD_FILENAMES"] = env["VK_DRIVER_FILES"] = str(tmp_path / "none.json")
    info = subprocess.run([sys.executable, "-m", "simt", "info"], env=env, capture_output=True,
                          text=True, timeout=180)  # fmt: skip
    line = next(x for x in info.stdout.splitlines() if x.strip().startswith("webgpu"))
    assert "no " in line and "only an OpenGL adapter" in line and "mesa-vulkan-drivers" in line


def test_without_vulkan_the_opt_in_runs_on_opengl(gl_here: None, tmp_path: Path) -> None:
    r = _without_vulkan(tmp_path, **{ENV: "gl"})
    assert "PROBE True" in r.stdout and "OpenGL" in r.stdout, r.stdout + r.stderr
    assert "RESULT True" in r.stdout, r.stdout + r.stderr
