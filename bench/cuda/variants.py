"""Experiments behind the CUDA backend's choices, on a GPU (not part of the test suite).

    PYTHONPATH=src python3 bench/cuda/variants.py

1. Code generation: each suite kernel's generated CUDA C++ compiled as simt compiles it
   (`--fmad=false`: every float operation rounds on its own, as on `sim`), with FMA
   contraction allowed, and with signed arithmetic spelled plainly instead of wrapping
   through unsigned casts; GPU time of each.
2. Launch cost split: simt's whole launch, the CUDA runtime's `launch` alone, cuda.core's
   `launch` with arguments ready, and `cuLaunchKernel` with a pre-packed parameter block.
"""

from __future__ import annotations

import ctypes
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import run as R  # noqa: E402
import workloads as W  # noqa: E402

import simt  # noqa: E402
from simt.runtime import nvrtc, registry  # noqa: E402
from simt.runtime.base import Compiled, Dim3  # noqa: E402

_WRAP = re.compile(r"\((int|long long)\)\(\(unsigned (?:int|long long)\)(\w+) ([-+*]) "
                   r"\(unsigned (?:int|long long)\)(\w+)\)")  # fmt: skip


_SIGN = re.compile(r"\((\w+) > 0 \? (\w+) < (\w+) : \2 > \3\)")


def positive_step(src: str) -> str:
    """A `for` over a range whose step sign is unknown, as if the step were known positive."""
    return _SIGN.sub(r"\2 < \3", src)


def plain_signed(src: str) -> str:
    """`(int)((unsigned int)a + (unsigned int)b)` -> `a + b`."""
    return _WRAP.sub(r"\2 \3 \4", src)


@simt.kernel
def reduce_while(a, partial):
    """W5's kernel with its grid-stride loop written as a `while` (an int32 counter that wraps,
    whose trips the C++ compiler cannot count) instead of a `range`."""
    sh = simt.shared.array(W.REDUCE_THREADS, np.float32)
    tid = simt.thread_idx.x
    acc = 0.0
    i = simt.block_idx.x * simt.block_dim.x + tid
    while i < len(a):
        acc += a[i]
        i += simt.block_dim.x * simt.grid_dim.x
    sh[tid] = acc
    simt.syncthreads()
    s = simt.block_dim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        simt.syncthreads()
        s //= 2
    if tid == 0:
        partial[simt.block_idx.x] = sh[0]


def variants() -> None:
    rt = registry.current()
    sizes = W.SIZES["full"]
    g = W._grid
    cases: list[tuple[str, Any, list[Any], Dim3, Dim3]] = []
    inp = W.make_inputs("mandel", sizes["mandel"])
    h, w, it = sizes["mandel"]["h"], sizes["mandel"]["w"], sizes["mandel"]["max_iter"]
    cases.append(("mandel", W.mandel, [simt.empty((h, w), np.int32), it],
                  Dim3(g(w, 16), g(h, 16)), Dim3(16, 16)))  # fmt: skip
    inp = W.make_inputs("reduce", sizes["reduce"])
    blocks = min(W.REDUCE_MAX_BLOCKS, g(sizes["reduce"]["n"], W.REDUCE_THREADS))
    cases.append(("reduce", W.reduce, [simt.to_device(inp["a"]), simt.empty((blocks,))],
                  Dim3(blocks), Dim3(W.REDUCE_THREADS)))  # fmt: skip
    cases.append(("reduce, while loop", reduce_while, [simt.to_device(inp["a"]),
                  simt.empty((blocks,))], Dim3(blocks), Dim3(W.REDUCE_THREADS)))  # fmt: skip
    n = sizes["matmul"]["n"]
    inp = W.make_inputs("matmul", sizes["matmul"])
    cases.append(("matmul", W.matmul, [simt.to_device(inp["a"]), simt.to_device(inp["b"]),
                  simt.empty((n, n))], Dim3(g(n, 16), g(n, 16)), Dim3(16, 16)))  # fmt: skip
    inp = W.make_inputs("vecadd", sizes["vecadd"])
    nv = sizes["vecadd"]["n"]
    cases.append(("vecadd", W.vecadd, [simt.to_device(inp["a"]), simt.to_device(inp["b"]),
                  simt.empty((nv,))], Dim3(g(nv, 256)), Dim3(256)))  # fmt: skip
    heads = ("as simt", "fmad", "plain int", "both", "step > 0")
    print(f"{'kernel':18s} " + " ".join(f"{h:>9s}" for h in heads) + "  (ms)")
    for name, k, args, grid, block in cases:
        spec = k.specialise(args, rt)
        base = spec.compiled
        kname = base.meta["cuda"].name
        dev_args = [a if not isinstance(a, int) else np.int32(a) for a in args]
        row = []
        for src, opts in (
            (base.source, ("--fmad=false",)),
            (base.source, ("--fmad=true",)),
            (plain_signed(base.source), ("--fmad=false",)),
            (plain_signed(base.source), ("--fmad=true",)),
            (positive_step(base.source), ("--fmad=false",)),
        ):
            cubin, _, res = nvrtc.compile_cubin(src, rt.arch, opts)
            handle = rt.core.ObjectCode.from_cubin(cubin).get_kernel(kname)
            c = Compiled(base.fn, src, handle, dict(base.meta))
            row.append(R.gpu_ms(lambda c=c, g=grid, b=block, a=dev_args: rt.launch(c, g, b, a)))
        print(f"{name:18s} " + " ".join(f"{t:9.4f}" for t in row))


def launch_split(n_launch: int = 20000) -> None:
    rt = registry.current()
    da = simt.to_device(np.zeros(32, np.float32))
    R.nothing[1, 32](da, 1 << 20)
    simt.synchronize()
    spec = R.nothing.specialise([da, 1 << 20], rt)
    comp = spec.compiled
    g, b = Dim3(1), Dim3(32)
    args = [da, np.int32(1 << 20)]

    def host_us(fn: Any) -> float:
        out = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n_launch):
                fn()
            rt.synchronize()
            out.append((time.perf_counter() - t0) / n_launch * 1e6)
        return statistics.median(out)

    vals = [np.uint64(da.buf.ptr), np.int32(32), np.int64(1), np.int32(1 << 20)]
    cfg = rt.core.LaunchConfig(grid=(1, 1, 1), block=(32, 1, 1))
    row = {
        "simt kernel[1, 32](...)": host_us(lambda: R.nothing[1, 32](da, 1 << 20)),
        "CudaRuntime.launch": host_us(lambda: rt.launch(comp, g, b, args)),
        "cuda.core launch, args ready": host_us(
            lambda: rt.core.launch(rt.stream, cfg, comp.handle, *vals)
        ),
    }
    drv = rt.driver
    cvals = [ctypes.c_uint64(int(da.buf.ptr)), ctypes.c_int32(32), ctypes.c_int64(1),
             ctypes.c_int32(1 << 20)]  # fmt: skip
    ptrs = (ctypes.c_void_p * 4)(*[ctypes.addressof(v) for v in cvals])
    try:
        err, fn = drv.cuKernelGetFunction(comp.handle.handle)
        st = drv.CUstream(rt.stream_handle)
        addr = ctypes.addressof(ptrs)

        def raw() -> None:
            drv.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, st, addr, 0)

        raw()
        row["cuLaunchKernel, params packed"] = host_us(raw)
    except Exception as e:  # noqa: BLE001 - an experiment: say what failed and go on
        print("cuLaunchKernel path failed:", type(e).__name__, e)
    if R.cp is not None:
        raw_k = R.cp.RawKernel(
            r'extern "C" __global__ void nothing(float* a, int n) '
            r"{ if ((int)threadIdx.x > n) a[0] = 0.0f; }",
            "nothing",
        )
        a = R.cp.zeros(32, R.cp.float32)
        nn = np.int32(1 << 20)
        row["cupy RawKernel"] = host_us(lambda: raw_k((1,), (32,), (a, nn)))
    for k, v in row.items():
        print(f"  {k:34s} {v:7.2f} us")


if __name__ == "__main__":
    simt.use("cuda")
    variants()
    launch_split()
