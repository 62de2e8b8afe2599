"""The one WebGPU adapter and device of the process: choosing, describing, opening it.

`wgpu` is imported here lazily, never at `import simt`. Adapter and device creation cost
about a second, so the process opens one device, on first use, and keeps it.

`SIMT_WEBGPU_ADAPTER` picks the adapter: a backend name (`vulkan`, `metal`, `d3d12`, `gl` or
`opengl`), or any other text, matched against the adapter's name (`llvmpipe`, `nvidia`).
Without it the best adapter wins: a discrete GPU, then an integrated one, then anything else,
software (CPU) adapters last. An OpenGL adapter is never chosen by default: wgpu falls back to
one on Linux machines without a Vulkan driver (Mesa's llvmpipe GL, or a real GPU's GL driver),
and there simt's tests found wrong uint32 arithmetic and atomics, blocks of 32 threads
refused by validation, and no int64 or float64. With only such an adapter present, webgpu is
unavailable and says how to get a Vulkan driver (`OPENGL_REFUSED`);
`SIMT_WEBGPU_ADAPTER=gl` chooses it anyway.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import BackendUnavailable, LaunchError

ENV = "SIMT_WEBGPU_ADAPTER"
_BACKEND_ALIASES = {
    "vulkan": "Vulkan", "vk": "Vulkan", "metal": "Metal", "d3d12": "D3D12", "dx12": "D3D12",
    "gl": "OpenGL", "opengl": "OpenGL", "gles": "OpenGL",
}  # fmt: skip
_TYPE_RANK = {"DiscreteGPU": 0, "IntegratedGPU": 1, "VirtualGPU": 2, "Unknown": 3, "CPU": 4}
# Limits simt relies on: the device is opened with the adapter's own values (the WebGPU
# defaults are smaller: 8 storage buffers, 256 threads per workgroup).
LIMITS = (
    "max-storage-buffer-binding-size", "max-buffer-size", "max-storage-buffers-per-shader-stage",
    "max-compute-workgroup-storage-size", "max-compute-invocations-per-workgroup",
    "max-compute-workgroup-size-x", "max-compute-workgroup-size-y",
    "max-compute-workgroup-size-z", "max-compute-workgroups-per-dimension",
    "max-uniform-buffer-binding-size",
)  # fmt: skip
FEATURES = ("shader-f64", "shader-int64")


# Mesa's llvmpipe leaves the loops of an invocation after this many iterations in all (gallivm's
# LP_MAX_TGSI_LOOP_ITERATIONS): `passes.legalise` checks every loop after it (`WgslCaps.loop_limit`)
LLVMPIPE_LOOP_LIMIT = 65535
MIB = 1 << 20
_ALL = 1 << 30  # a limit no kernel or launch reaches: the defaults allow everything


@dataclass(frozen=True)
class WgslCaps:
    """What an adapter declares, for compiling a kernel and for launching it: its types (`f64`,
    `i64`), its limits (storage buffers a shader binds, workgroup memory in bytes; threads a
    workgroup has, in all and along each axis; workgroups a dispatch has along one axis; bytes
    one storage binding holds) and the loop iterations after which its driver leaves an
    invocation's loops (`loop_limit`, None: never). The defaults (used to show WGSL with no
    device open) allow everything. The webgpu runtime makes its legalisation target of it
    (`runtime.webgpu.wgsl_target`) and checks each launch's shape (`dispatch`) and each
    array's size (`check_binding`) against it; `caps_of` reads it from an opened device."""

    f64: bool = True
    i64: bool = True
    max_storage_buffers: int = _ALL
    max_workgroup_storage: int = _ALL
    adapter: str = "the WebGPU adapter"
    loop_limit: int | None = None
    max_block_threads: int = _ALL
    max_block: tuple[int, int, int] = (_ALL, _ALL, _ALL)
    max_groups_per_axis: int = _ALL
    max_binding_bytes: int = _ALL


@dataclass
class Device:
    """An opened device and what simt needs to know about its adapter."""

    device: Any
    name: str  # e.g. "llvmpipe (LLVM 15.0.6, 256 bits)"
    backend: str  # Vulkan, Metal, D3D12, OpenGL
    adapter_type: str  # DiscreteGPU, IntegratedGPU, CPU, ...
    features: frozenset[str]
    limits: dict[str, int]

    @property
    def is_cpu(self) -> bool:
        return self.adapter_type == "CPU"

    def describe(self) -> str:
        """One line naming the adapter (the registry looks for "CPU adapter" in it)."""
        kind = "CPU adapter" if self.is_cpu else _kind(self.adapter_type)
        return f"{self.name} ({self.backend}, {kind})"


def caps_of(dev: Device) -> WgslCaps:
    """The caps of opened device `dev`: its features and the limits it was opened with (WebGPU's
    defaults where the adapter did not say)."""
    lim = dev.limits
    return WgslCaps(
        f64="shader-f64" in dev.features,
        i64="shader-int64" in dev.features,
        max_storage_buffers=lim.get("max-storage-buffers-per-shader-stage", 8),
        max_workgroup_storage=lim.get("max-compute-workgroup-storage-size", 16384),
        adapter=dev.describe(),
        loop_limit=LLVMPIPE_LOOP_LIMIT if "llvmpipe" in dev.name.lower() else None,
        max_block_threads=lim.get("max-compute-invocations-per-workgroup", 256),
        max_block=(
            lim.get("max-compute-workgroup-size-x", 1024),
            lim.get("max-compute-workgroup-size-y", 1024),
            lim.get("max-compute-workgroup-size-z", 1024),
        ),
        max_groups_per_axis=lim.get("max-compute-workgroups-per-dimension", 65535),
        max_binding_bytes=lim.get("max-storage-buffer-binding-size", 128 * MIB),
    )


Shape = tuple[int, int, int]


def dispatch(caps: WgslCaps, grid: Shape, block: Shape) -> Shape:
    """The workgroup counts that run a launch of `grid` blocks of `block` threads on a device
    with `caps`: a wide grid is folded into y and z (the shader rebuilds `block_idx` from the
    linear workgroup id). A LaunchError, naming the value and the limit, for a block or grid
    the device cannot run."""
    per_block = block[0] * block[1] * block[2]
    if per_block > caps.max_block_threads:
        raise LaunchError(
            f"block {tuple(block)} has {per_block} threads; {caps.adapter} runs at most "
            f"{caps.max_block_threads} per block"
        )
    for axis, n, m in zip("xyz", block, caps.max_block):
        if n > m:
            raise LaunchError(f"block {tuple(block)}: {axis} = {n} exceeds the adapter's {m}")
    total = grid[0] * grid[1] * grid[2]
    if total * per_block >= 2**32:
        raise LaunchError(
            f"a launch of {total} blocks of {per_block} threads has 2**32 threads or more, "
            "which webgpu cannot number; launch fewer threads (a grid-stride loop)"
        )
    m = caps.max_groups_per_axis
    dx = min(total, m)
    rest = -(-total // dx)
    dy = min(rest, m)
    dz = -(-rest // dy)
    if dz > m:
        raise LaunchError(f"grid {tuple(grid)} has more blocks than webgpu can dispatch")
    return dx, dy, dz


def check_binding(caps: WgslCaps, nbytes: int, what: str) -> None:
    """A LaunchError when `what` (an array of `nbytes` bytes) is larger than one storage binding
    of a device with `caps` holds."""
    limit = caps.max_binding_bytes
    if nbytes > limit:
        raise LaunchError(
            f"{what} takes {nbytes} bytes; {caps.adapter} binds at most {limit} bytes "
            f"({limit // MIB} MiB) per array: split the data into smaller arrays or use another "
            "backend"
        )


def _kind(adapter_type: str) -> str:
    return {"DiscreteGPU": "discrete GPU", "IntegratedGPU": "integrated GPU",
            "VirtualGPU": "virtual GPU"}.get(adapter_type, "GPU")  # fmt: skip


_device: Device | None = None
_failure: str | None = None


def _info(adapter: Any) -> dict[str, Any]:
    return dict(adapter.info)


OPENGL_REFUSED = (
    "only an OpenGL adapter was found ({found}); simt does not use WebGPU through OpenGL by "
    "default (wgpu's OpenGL backend gave wrong uint32 arithmetic and atomics and rejected "
    "valid shaders in simt's tests, and has no int64 or float64). Install a Vulkan driver: "
    "on Linux Mesa's, `sudo apt-get install mesa-vulkan-drivers` (or your GPU vendor's "
    "driver); or set {env}=gl to use the OpenGL adapter anyway (docs/backends.md)"
)


def _name(info: dict[str, Any]) -> str:
    return f"{info.get('device') or info.get('description') or '?'} ({info.get('backend_type')})"


def choose(infos: list[dict[str, Any]], want: str = "") -> int:
    """The index of the adapter to use among adapters described by `infos` (wgpu's
    `adapter.info`), by `want` (`SIMT_WEBGPU_ADAPTER`) or else by rank; never an OpenGL
    adapter unless `want` asks for it. BackendUnavailable, saying why, when none fits."""
    want = want.strip()
    if want:
        backend = _BACKEND_ALIASES.get(want.lower())
        for k, info in enumerate(infos):
            if backend is not None and info.get("backend_type") == backend:
                return k
            text = f"{info.get('device', '')} {info.get('vendor', '')}".lower()
            if backend is None and want.lower() in text:
                return k
        found = ", ".join(_name(i) for i in infos)
        raise BackendUnavailable(f"{ENV}={want!r} matches no WebGPU adapter; found: {found}")
    usable = [k for k, info in enumerate(infos) if info.get("backend_type") != "OpenGL"]
    if not usable:
        found = ", ".join(_name(i) for i in infos)
        raise BackendUnavailable(OPENGL_REFUSED.format(found=found, env=ENV))
    return min(usable, key=lambda k: _TYPE_RANK.get(str(infos[k].get("adapter_type")), 3))


def refusal(info: dict[str, Any], error: BaseException, printed: list[str]) -> str:
    """Why the adapter described by `info` could not be opened. An OpenGL driver whose GL
    version gives wgpu no compute shaders (NVIDIA's GL driver, H100 2026-11-26: wgpu logged
    "The selected version doesn't support Features(BUFFER_STORAGE | COMPUTE_SHADER | ...)"
    and the request said "Parent device is lost") is said as that."""
    name = info.get("device") or info.get("description") or "the adapter"
    text = " ".join([str(error), *printed])
    if info.get("backend_type") == "OpenGL" and "COMPUTE_SHADER" in text:
        said = next((ln for ln in printed if "COMPUTE_SHADER" in ln), str(error).strip())
        return (
            f"the OpenGL adapter has no compute shaders: wgpu could not run compute on "
            f"{name} through OpenGL (it said: {said}). Unset {ENV} to use a Vulkan "
            "adapter, or install a Vulkan driver (on Linux Mesa's, `sudo apt-get install "
            "mesa-vulkan-drivers`, or your GPU vendor's)"
        )
    return f"could not open {name}: {error}"


def open_device() -> Device:
    """The process's device, opened on first call; BackendUnavailable when there is none."""
    global _device, _failure
    if _device is not None:
        return _device
    if _failure is not None:
        raise BackendUnavailable(_failure)
    try:
        import wgpu
    except ImportError:
        _failure = "the wgpu package is not installed (pip install wgpu)"
        raise BackendUnavailable(_failure) from None
    if os.name == "posix" and not os.environ.get("XDG_RUNTIME_DIR"):
        # Mesa's Vulkan loader complains on stderr when this is unset, though compute never
        # touches a display; a private empty folder keeps `simt info` quiet.
        os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="simt-xdg-")
    try:
        adapters = list(wgpu.gpu.enumerate_adapters_sync())
    except Exception as e:  # noqa: BLE001 - no driver at all: say so, do not crash
        _failure = f"wgpu found no adapter: {e}"
        raise BackendUnavailable(_failure) from None
    if not adapters:
        _failure = "wgpu found no adapter (install a GPU driver, or mesa-vulkan-drivers)"
        raise BackendUnavailable(_failure)
    try:
        adapter = adapters[choose([_info(a) for a in adapters], os.environ.get(ENV, ""))]
    except BackendUnavailable as e:
        _failure = str(e)
        raise
    info = _info(adapter)
    features = frozenset(f for f in FEATURES if f in adapter.features)
    limits = {k: int(adapter.limits[k]) for k in LIMITS if k in adapter.limits}
    failure: Exception | None = None
    with driver_output() as said:  # wgpu-native's GL backend logs its reason on stderr
        try:
            device = adapter.request_device_sync(
                required_features=sorted(features), required_limits=dict(limits)
            )
        except Exception as e:  # noqa: BLE001 - said below, with what was printed
            failure = e
    if failure is not None:
        _failure = refusal(info, failure, said)
        raise BackendUnavailable(_failure) from None
    _device = Device(
        device=device,
        name=str(info.get("device") or info.get("description") or "unknown adapter"),
        backend=str(info.get("backend_type")),
        adapter_type=str(info.get("adapter_type")),
        features=features,
        limits=limits,
    )
    return _device


def reopen() -> Device:
    """A new device in place of a lost one (a driver reset after a kernel ran too long, a
    GPU removed): the next `open_device` opens the adapter again."""
    global _device, _failure
    _device, _failure = None, None
    return open_device()


def is_lost(e: BaseException) -> bool:
    """Whether a wgpu error says the device is lost (wgpu-native's text: "Parent device is
    lost", "Device is lost", "DeviceLost")."""
    text = str(e).lower()
    return "lost" in text and "device" in text


@contextlib.contextmanager
def driver_output() -> Iterator[list[str]]:
    """What the driver prints itself while the block runs (NVIDIA's Vulkan driver writes
    "NVVM compilation failed: 1" to the process's stdout/stderr when its shader compiler
    fails, and wgpu then reports only a lost device): file descriptors 1 and 2 go to a
    temporary file meanwhile; afterwards the text is written to stderr as it would have been,
    and its non-empty lines are put in the list the block received. Where the descriptors
    cannot be redirected, nothing is captured."""
    lines: list[str] = []
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        tmp = tempfile.TemporaryFile()
        saved = (os.dup(1), os.dup(2))
    except OSError:
        yield lines
        return
    try:
        os.dup2(tmp.fileno(), 1)
        os.dup2(tmp.fileno(), 2)
        yield lines
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved:
            os.close(fd)
        tmp.seek(0)
        data = tmp.read()
        tmp.close()
        if data:
            with contextlib.suppress(OSError):
                os.write(2, data)
        lines.extend(ln.strip() for ln in data.decode(errors="replace").splitlines() if ln.strip())
