"""simt: Python kernels on every GPU thread.

    @simt.kernel
    def vector_add(a, b, c):
        i = block_idx.x * block_dim.x + thread_idx.x
        if i < len(c):
            c[i] = a[i] + b[i]

    vector_add[4096, 256](a, b, c)

See README.md and docs/ for the language, the backends and the tools.
"""

from __future__ import annotations

__version__ = "0.1.0"

from . import image  # noqa: E402 - simt.image.Image without a separate import
from .api import (  # noqa: E402
    backend,
    empty,
    map_blocks,
    synchronize,
    to_device,
    use,
    using,
    zeros,
)
from .benchtool.api import autotune, bench  # noqa: E402
from .compiled import compile  # noqa: E402
from .errors import (  # noqa: E402
    BackendUnavailable,
    CompileError,
    KernelError,
    LaunchError,
    SimtPerformanceWarning,
)
from .kernel import Dim, Kernel, kernel, launch, launch_advice  # noqa: E402
from .lang import (  # noqa: E402
    In,
    Out,
    activemask,
    all_sync,
    any_sync,
    atomic,
    ballot_sync,
    block_dim,
    block_idx,
    blockDim,
    blockIdx,
    bool_,
    const,
    float16,
    float32,
    float64,
    grid,
    grid_dim,
    gridDim,
    gridsize,
    int8,
    int16,
    int32,
    int64,
    laneid,
    local,
    shared,
    shfl_down_sync,
    shfl_sync,
    shfl_up_sync,
    shfl_xor_sync,
    syncthreads,
    syncwarp,
    thread_idx,
    threadIdx,
    uint8,
    uint16,
    uint32,
    uint64,
    void,
    warpsize,
)
from .runtime.printing import stream_print  # noqa: E402

__all__ = [
    "SimtPerformanceWarning", "autotune", "bench",
    "BackendUnavailable", "CompileError", "Dim", "In", "Kernel", "KernelError", "LaunchError",
    "Out", "atomic", "backend", "block_dim", "block_idx", "bool_", "compile", "empty", "float32",
    "const", "float64", "grid", "grid_dim", "image", "int32", "int64", "kernel", "launch", "local",
    "map_blocks", "shared", "stream_print", "launch_advice",
    "synchronize", "syncthreads", "thread_idx", "to_device", "uint32", "use", "using", "zeros",
    "float16", "int8", "int16", "uint8", "uint16", "uint64",
    "threadIdx", "blockIdx", "blockDim", "gridDim", "gridsize",
    "syncwarp", "activemask", "ballot_sync", "all_sync", "any_sync", "shfl_sync",
    "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync", "laneid", "warpsize", "void",
]  # fmt: skip


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext simt` in Jupyter/IPython: the `%%simt` cell magic (see `simt.repl.magic`)."""
    from .repl.magic import load_ipython_extension as load

    load(ipython)
