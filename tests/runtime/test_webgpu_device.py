"""The launch-shape limits of a WebGPU device as `WgslCaps` fields (runtime/webgpu_device.py):
`caps_of` reads them from an opened device, `dispatch` checks a launch's block and grid against
them and folds a wide grid into y and z, `check_binding` an array's size. Tested on made-up
devices (no adapter needed), then through the runtime where this machine has one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt
from simt.errors import LaunchError
from simt.runtime.webgpu_device import (
    LLVMPIPE_LOOP_LIMIT,
    MIB,
    Device,
    WgslCaps,
    caps_of,
    check_binding,
    dispatch,
)

SMALL = WgslCaps(
    adapter="a small GPU (Vulkan, discrete GPU)",
    max_block_threads=256,
    max_block=(256, 256, 64),
    max_groups_per_axis=100,
    max_binding_bytes=4 * MIB,
)


def _device(name: str, limits: dict[str, int], features: frozenset[str]) -> Device:
    return Device(None, name, "Vulkan", "DiscreteGPU", features, limits)


def test_caps_of_reads_the_limits_the_device_was_opened_with() -> None:
    limits = {
        "max-storage-buffers-per-shader-stage": 10,
        "max-compute-workgroup-storage-size": 32768,
        "max-compute-invocations-per-workgroup": 1024,
        "max-compute-workgroup-size-x": 1024,
        "max-compute-workgroup-size-y": 512,
        "max-compute-workgroup-size-z": 64,
        "max-compute-workgroups-per-dimension": 65535,
        "max-storage-buffer-binding-size": 1 << 31,
    }
    caps = caps_of(_device("NVIDIA H100", limits, frozenset({"shader-f64"})))
    assert (caps.f64, caps.i64) == (True, False)
    assert (caps.max_storage_buffers, caps.max_workgroup_storage) == (10, 32768)
    assert caps.max_block_threads == 1024 and caps.max_block == (1024, 512, 64)
    assert caps.max_groups_per_axis == 65535 and caps.max_binding_bytes == 1 << 31
    assert caps.loop_limit is None and caps.adapter == "NVIDIA H100 (Vulkan, discrete GPU)"
    soft = caps_of(_device("llvmpipe (LLVM 15.0.6, 256 bits)", {}, frozenset()))
    assert soft.loop_limit == LLVMPIPE_LOOP_LIMIT
    assert soft.max_block_threads == 256 and soft.max_groups_per_axis == 65535  # WebGPU's
    assert soft.max_binding_bytes == 128 * MIB


def test_dispatch_folds_a_wide_grid_into_y_and_z() -> None:
    assert dispatch(SMALL, (7, 3, 1), (64, 1, 1)) == (21, 1, 1)
    assert dispatch(SMALL, (250, 1, 1), (32, 1, 1)) == (100, 3, 1)  # 300 workgroups >= 250
    assert dispatch(SMALL, (100, 100, 5), (1, 1, 1)) == (100, 100, 5)
    assert dispatch(WgslCaps(), (70_001, 1, 1), (256, 1, 1)) == (70_001, 1, 1)


@pytest.mark.parametrize(
    ("grid", "block", "match"),
    [
        ((1, 1, 1), (512, 1, 1), r"\(512, 1, 1\) has 512 threads; a small GPU .* at most 256"),
        ((1, 1, 1), (1, 1, 128), r"block \(1, 1, 128\): z = 128 exceeds the adapter's 64"),
        ((1 << 24, 1, 1), (256, 1, 1), r"2\*\*32 threads or more"),
        ((100, 100, 101), (1, 1, 1), r"grid \(100, 100, 101\) has more blocks than webgpu"),
    ],
)
def test_dispatch_refuses_what_the_device_cannot_run(grid: Any, block: Any, match: str) -> None:
    with pytest.raises(LaunchError, match=match):
        dispatch(SMALL, grid, block)


def test_check_binding_names_the_array_and_the_limit() -> None:
    check_binding(SMALL, 4 * MIB, "an array")
    with pytest.raises(LaunchError, match=r"takes 4194305 bytes; a small GPU .* \(4 MiB\)"):
        check_binding(SMALL, 4 * MIB + 1, "an array")


def test_the_runtime_launches_within_its_caps(
    on_webgpu: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    caps = on_webgpu.caps
    assert caps is on_webgpu.caps  # read once per device
    with pytest.raises(LaunchError, match="binds at most"):
        simt.empty(caps.max_binding_bytes // 4 + 1, np.float32)

    @simt.kernel
    def ones(a):  # type: ignore[no-untyped-def]
        i = simt.grid(1)
        if i < len(a):
            a[i] = 1.0

    a = np.zeros(300, np.float32)
    ones[3, 128](a)
    np.testing.assert_array_equal(a, 1.0)
    # the launch path reads the caps: a device of 64-thread workgroups and 2 per axis
    small = WgslCaps(adapter="a small GPU", max_block_threads=64, max_groups_per_axis=2)
    monkeypatch.setattr(on_webgpu, "_caps", (on_webgpu.dev, small))
    with pytest.raises(LaunchError, match="a small GPU runs at most 64 per block"):
        ones[3, 128](a)
    a[:] = 0
    ones[5, 64](a)  # 5 workgroups folded into 2 x 2 x 2
    np.testing.assert_array_equal(a, 1.0)
    with pytest.raises(LaunchError, match="more blocks than webgpu can dispatch"):
        ones[9, 64](a)
    # the autotuner and profiles read the same limit (device_facts), not WebGPU's default
    assert on_webgpu.device_facts().max_block == 64
