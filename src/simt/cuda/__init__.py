"""`numba.cuda`'s names on simt: a Numba-CUDA program runs with one line changed,
`from numba import cuda` -> `from simt import cuda`, on every backend (cpu, sim, webgpu, cuda).

    from simt import cuda

    @cuda.jit
    def axpy(a, x, y, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i] + y[i]

    axpy[blocks, threads](2.0, x, y, out)

Kernels made by `cuda.jit` follow Numba's typing (floats made from integers and float literals
alone are float64); `simt.kernel` keeps simt's GPU-first rules (docs/numba.md, "Typing").
A name of `numba.cuda` that simt does not have raises `NotImplementedError` naming the
feature (never an AttributeError); docs/numba.md has the table of every name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import lang
from ..errors import BackendUnavailable as CudaSupportError
from ..errors import KernelError as KernelRuntimeError
from ..lang import (
    atomic,
    blockDim,
    blockIdx,
    brev,
    clz,
    ffs,
    float16,
    float32,
    float64,
    fma,
    gridDim,
    gridsize,
    int8,
    int16,
    int32,
    int64,
    laneid,
    local,
    nanosleep,
    popc,
    selp,
    shared,
    syncthreads,
    syncthreads_and,
    syncthreads_count,
    syncthreads_or,
    threadfence,
    threadfence_block,
    threadfence_system,
    threadIdx,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ..lang import (
    bool_ as boolean,
)
from . import fp16, random
from .dispatch import CUDAKernel, jit
from .host import (
    Device,
    Event,
    In,
    InOut,
    Out,
    Stream,
    close,
    default_stream,
    detect,
    device_array,
    device_array_like,
    event,
    event_elapsed_time,
    external_stream,
    get_current_device,
    gpus,
    is_available,
    is_cuda_array,
    is_supported_version,
    legacy_default_stream,
    list_devices,
    mapped,
    mapped_array,
    mapped_array_like,
    per_thread_default_stream,
    pinned,
    pinned_array,
    pinned_array_like,
    profile_start,
    profile_stop,
    profiling,
    select_device,
    stream,
    synchronize,
    to_device,
)

grid = lang.grid
warpsize = 32  # simt's warps are 32 lanes on every backend, as NVIDIA's
cbrt = np.cbrt  # the math table's cube root


const = lang.const  # `cuda.const.array_like(a)`: a constant table (simt.const)

# numba.cuda names simt does not have (yet), with what to use instead
MISSING: dict[str, str] = {
    "reduce": "cuda.reduce (Numba's reduction kernel generator) is not in simt; write the "
    "reduction as a kernel (docs/numba.md has one) or use NumPy",
    "Reduce": "cuda.Reduce is not in simt; write the reduction as a kernel",
    "declare_device": "cuda.declare_device (linking foreign CUDA device functions) is not in "
    "simt: kernels are Python on every backend",
    "cg": "cuda.cg (cooperative groups, grid.sync()) is not in simt; split the kernel into "
    "two launches",
    "libdevice": "cuda.libdevice is not in simt; use the math module's functions",
    "compile_ptx": "cuda.compile_ptx is not in simt; kernel.source('cuda', *args) shows the "
    "CUDA C++ simt makes",
    "compile_ptx_for_current_device": "not in simt; use kernel.source('cuda', *args)",
    "compile": "cuda.compile is not in simt; use kernel.source('cuda', *args)",
    "as_cuda_array": "cuda.as_cuda_array is not in simt; pass the object to a kernel "
    "directly (anything with __cuda_array_interface__ is an array)",
    "from_cuda_array_interface": "not in simt; pass the object to a kernel directly",
    "open_ipc_array": "CUDA IPC is not in simt",
    "current_context": "CUDA contexts are not in simt (one device per backend)",
    "require_context": "CUDA contexts are not in simt",
    "defer_cleanup": "not in simt: device memory is freed with its array",
    "gpus_context": "not in simt",
    "cudadrv": "the CUDA driver API is not in simt",
    "simulator": "Numba's simulator is not part of simt: simt.use('sim') runs the explaining "
    "simulator",
    "vectorize": "cuda.vectorize (numba.vectorize(target='cuda')) is not in simt; write the "
    "element-wise kernel",
    "fp8": "cuda.fp8 is not in simt",
    "bf16": "bfloat16 is not in simt",
    "runtime": "the CUDA runtime API object is not in simt",
    "driver": "the CUDA driver API is not in simt",
    "set_memory_manager": "external memory managers are not in simt",
    "HostOnlyCUDAMemoryManager": "external memory managers are not in simt",
    "GetIpcHandleMixin": "external memory managers are not in simt",
    "BaseCUDAMemoryManager": "external memory managers are not in simt",
    "device_array_ptr": "raw device pointers are not in simt",
}
for _vec in (
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
):
    for _n in (2, 3, 4):
        MISSING[f"{_vec}x{_n}"] = (
            f"CUDA's vector types ({_vec}x{_n}) are not in simt; use a tuple or a row of an array"
        )


def __getattr__(name: str) -> Any:
    why = MISSING.get(name)
    if why is not None:
        raise NotImplementedError(f"numba.cuda.{name}: {why} (docs/numba.md lists every name)")
    raise AttributeError(f"module 'simt.cuda' has no attribute {name!r}")


__all__ = [
    "CUDAKernel", "CudaSupportError", "Device", "Event", "In", "InOut", "KernelRuntimeError",
    "Out", "Stream", "atomic", "blockDim", "blockIdx", "boolean", "brev", "cbrt", "close",
    "clz", "const", "default_stream", "detect", "device_array", "device_array_like", "event",
    "event_elapsed_time", "external_stream", "ffs", "float16", "float32", "float64", "fma",
    "fp16", "get_current_device", "gpus", "grid", "gridDim", "gridsize", "int16", "int32",
    "int64", "int8", "is_available", "is_cuda_array", "is_supported_version", "jit", "laneid",
    "legacy_default_stream", "list_devices", "local", "mapped", "mapped_array",
    "mapped_array_like", "nanosleep", "per_thread_default_stream", "pinned", "pinned_array",
    "pinned_array_like", "popc", "profile_start", "profile_stop", "profiling", "random",
    "select_device", "selp", "shared", "stream", "synchronize", "syncthreads",
    "syncthreads_and", "syncthreads_count", "syncthreads_or", "threadIdx", "threadfence",
    "threadfence_block", "threadfence_system", "to_device", "uint16", "uint32", "uint64",
    "uint8", "warpsize",
]  # fmt: skip


# Numba's warp functions: simt.lang's, under the same names, where simt has them (issue 25's
# warp functions land there); each one missing is a named refusal
WARP_FUNCTIONS = (
    "syncwarp", "activemask", "lanemask_lt", "ballot_sync", "all_sync", "any_sync", "eq_sync",
    "shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "match_any_sync",
    "match_all_sync",
)  # fmt: skip
for _warp in WARP_FUNCTIONS:
    if hasattr(lang, _warp):
        globals()[_warp] = getattr(lang, _warp)
        __all__.append(_warp)
    else:
        MISSING[_warp] = (
            f"{_warp} (a warp function) is not in simt yet; a reduction can go through "
            "shared memory and syncthreads() instead"
        )
