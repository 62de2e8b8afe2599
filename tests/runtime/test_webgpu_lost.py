"""WebGPU kernels that do not end, and a lost device: KernelErrors, never a number.

Mesa's llvmpipe (lavapipe, the CI adapter) runs at most 65535 loop iterations per invocation
(all loops together) and then leaves the loops silently; a kernel whose loop never ends
returned whatever its variables held. simt checks each loop's condition again after it on
that adapter. A device the driver resets (a kernel that ran too long on a GPU) is a
KernelError, and the device is opened again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import simt
from simt.runtime import registry
from simt.runtime.webgpu import WgslCaps, render_checked
from spawn_env import pythonpath

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _llvmpipe() -> None:
    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"webgpu not present: {why}")
    if registry.get("webgpu").caps.loop_limit is None:  # type: ignore[attr-defined]
        pytest.skip("the webgpu adapter is not llvmpipe: loops have no budget")


@simt.kernel
def count(out, n):
    i = simt.grid(1)
    k = 0
    for _ in range(n):
        k += 1
    out[i] = k


@simt.kernel
def two_loops(out, n):
    i = simt.grid(1)
    k = 0
    for _ in range(n):
        k += 1
    m = 0
    while m < n:
        m += 1
    out[i] = k + m


@simt.kernel
def forever(out, n):
    i = simt.grid(1)
    k = 0
    while n > 0:
        k = (k + 1) % 1000
    out[i] = k


def test_loops_up_to_the_budget_run_and_past_it_are_a_kernel_error() -> None:
    _llvmpipe()
    out = np.zeros(32, np.int32)
    with simt.using("webgpu"):
        count[1, 32](out, 65535)
        assert (out == 65535).all()
        with pytest.raises(simt.KernelError, match="stopped by the webgpu adapter") as e:
            count[1, 32](out, 65536)  # was 65535, silently
        assert e.value.line == count.pyfunc.__code__.co_firstlineno + 4  # the `for` line
        with pytest.raises(simt.KernelError, match="65535 loop iterations") as e:
            two_loops[1, 32](out, 40000)  # the second loop was cut at 25535
        assert e.value.source_line is not None and "while m < n" in e.value.source_line
        two_loops[1, 32](out, 30000)
        assert (out == 60000).all()


def test_a_loop_that_never_ends_is_a_kernel_error_not_a_number() -> None:
    _llvmpipe()
    out = np.zeros(32, np.int32)
    with simt.using("webgpu"):
        with pytest.raises(simt.KernelError, match="condition can become false"):
            forever[1, 32](out, 1)  # returned 535
        forever[1, 32](out, 0)  # the device goes on
        assert (out == 0).all()


def test_the_loop_checks_are_rendered_only_for_a_loop_budget() -> None:
    fn, _ = forever.specialised_ir(np.zeros(4, np.int32), 1)
    fn.boundscheck = False  # the loop's check alone (bounds checks are failure sites too)
    plain = render_checked(fn).source
    checked = render_checked(fn, WgslCaps(loop_limit=65535)).source
    assert "simt_fail" not in plain
    assert checked.count("simt_fail(0u)") == 1  # after the loop: its condition, again
    again = render_checked(fn, WgslCaps(loop_limit=65535)).source
    assert again == checked  # legalised in place once: a second time adds nothing


LOST = """
import numpy as np
import simt
from simt.runtime import registry

simt.use("webgpu")


@simt.kernel
def add1(a):
    i = simt.grid(1)
    a[i] += 1


a = np.zeros(64, np.float32)
kept = simt.to_device(np.zeros(64, np.float32))
add1[1, 64](a)
registry.get("webgpu").dev.device.destroy()  # as a driver reset would leave it
try:
    add1[1, 64](a)
except simt.KernelError as e:
    print("KernelError:", "was lost" in str(e) and "opened the device again" in str(e))
add1[1, 64](a)
print("next:", a[:2].tolist())
try:
    add1[1, 64](kept)
except simt.LaunchError as e:
    print("LaunchError:", str(e).startswith("argument 'a' lived on a webgpu device that was lost"))
"""


def test_a_lost_device_is_a_kernel_error_and_is_opened_again(tmp_path: Path) -> None:
    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"webgpu not present: {why}")
    script = tmp_path / "lost.py"  # its own process: the device of this one stays
    script.write_text(LOST)
    env = dict(os.environ, PYTHONPATH=pythonpath())
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["KernelError: True", "next: [2.0, 2.0]", "LaunchError: True"]


# NVIDIA's Vulkan driver failing to compile a shader (H100, 2026-11-26: it printed "NVVM
# compilation failed: 1" at pipeline creation and wgpu said "Parent device is lost"; every
# later kernel of the process then failed as "a bug in simt"). Faked here on lavapipe: the
# wgpu calls of a kernel holding 12345.0 print the driver's line, destroy the device and raise
# wgpu's error, at pipeline creation, then at shader-module creation.
LOST_COMPILING = r'''
import os

import numpy as np

import simt
from wgpu.backends.wgpu_native import _api

simt.use("webgpu")
codes = {}
make_module = _api.GPUDevice.create_shader_module
make_pipeline = _api.GPUDevice.create_compute_pipeline
where = {"at": ""}


def lose(device, call):  # as NVIDIA's driver did: its compiler prints, the device is lost
    os.write(2, b"NVVM compilation failed: 1\n")
    device.destroy()
    raise RuntimeError(f"Validation Error\n\nCaused by:\n  In {call}\n    Parent device is lost")


def module(self, *args, **kw):
    if where["at"] == "module" and "12345.0" in kw.get("code", ""):
        lose(self, "wgpuDeviceCreateShaderModule")
    m = make_module(self, *args, **kw)
    codes[id(m)] = kw.get("code", "")
    return m


def pipeline(self, *args, **kw):
    if where["at"] == "pipeline" and "12345.0" in codes.get(id(kw["compute"]["module"]), ""):
        lose(self, "wgpuDeviceCreateComputePipeline")
    return make_pipeline(self, *args, **kw)


_api.GPUDevice.create_shader_module = module
_api.GPUDevice.create_compute_pipeline = pipeline


@simt.kernel
def bad(a):
    i = simt.grid(1)
    a[i] = a[i] * 12345.0


@simt.kernel
def good(a):
    i = simt.grid(1)
    a[i] += 1.0


def check(e):
    text = str(e)
    return (
        "failed while compiling bad()" in text and "NVVM compilation failed: 1" in text
        and "bug in simt" not in text and "refused a block" not in text
        and e.filename == __file__ and e.line == bad.pyfunc.__code__.co_firstlineno + 2
    )


a = np.zeros(64, np.float32)
for at in ("pipeline", "module"):
    where["at"] = at
    try:
        bad[1, 64](a)
        print(at, "no error")
    except simt.CompileError as e:
        print(at, "CompileError:", check(e) or repr((str(e), e.filename, e.line)))
    good[1, 64](a)
    print(at, "next:", a[:2].tolist())
where["at"] = ""
simt.runtime.registry.get("webgpu").dev.device.destroy()  # lost unnoticed, before a compile

@simt.kernel
def fresh(a):
    i = simt.grid(1)
    a[i] += 2.0


fresh[1, 64](a)  # compiled after the loss: on a device opened again
print("lost before:", a[:2].tolist())
'''


def test_a_driver_that_loses_the_device_compiling_is_a_compile_error(tmp_path: Path) -> None:
    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"webgpu not present: {why}")
    script = tmp_path / "lost_compiling.py"
    script.write_text(LOST_COMPILING)
    env = dict(os.environ, PYTHONPATH=pythonpath())
    run = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "pipeline CompileError: True",
        "pipeline next: [1.0, 1.0]",  # the device was opened again: the next kernel runs
        "module CompileError: True",
        "module next: [2.0, 2.0]",
        "lost before: [4.0, 4.0]",  # lost unnoticed before a compile: compiled on a new one
    ]
    assert "NVVM compilation failed: 1" in run.stderr  # what the driver printed still shows
