"""CUDA benchmarks: simt against hand-written CUDA C (nvcc), CuPy and PyTorch, on a GPU.

    PYTHONPATH=src python3 bench/cuda/run.py [--quick] [--json out.json]

1. W1 column sum (256 x 262144 float32) against `colsum.cu` built by nvcc (loaded from its
   CUBIN and launched the same way), and against the device's copy-bandwidth floor;
2. W1-W6 (bench/workloads.py) against CuPy and PyTorch equivalents;
3. the launch overhead of a cached kernel against CuPy's `RawKernel` (the whole launch, the
   runtime's ordinary launch, and its cached launch `CudaFastLaunch` alone);
4. first compile and cached compile of a kernel in a fresh process.

Every result is checked against the float64 reference before it is timed. GPU times are CUDA
event times over back-to-back launches (median of 7 batches of 20): "simt ms" launches as a
user does (`k[grid, block](*args)`), so a kernel shorter than simt's host-side launch cost
shows that cost; "kernel ms" launches the compiled specialisation through the CUDA runtime
directly, leaving out the front end's per-launch lookup.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import workloads as W  # noqa: E402

import simt  # noqa: E402
from simt.runtime import registry  # noqa: E402
from simt.runtime.base import Dim3  # noqa: E402

RESULTS: dict[str, Any] = {}


def _cupy() -> Any:
    try:
        import cupy

        return cupy
    except ImportError:
        return None


def _torch() -> Any:
    try:
        import torch

        return torch if torch.cuda.is_available() else None
    except ImportError:
        return None


cp = _cupy()
torch = _torch()


def gpu_ms(launch: Callable[[], None], reps: int = 20, trials: int = 7) -> float:
    """Median GPU milliseconds per call of `launch`, timed by CUDA events on the legacy
    default stream (where simt, CuPy and PyTorch launch by default)."""
    for _ in range(3):
        launch()
    if cp is not None:
        start, end = cp.cuda.Event(), cp.cuda.Event()
        sync: Callable[[], None] = cp.cuda.runtime.deviceSynchronize
    else:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        sync = torch.cuda.synchronize
    sync()
    times = []
    for _ in range(trials):
        start.record()
        for _ in range(reps):
            launch()
        end.record()
        end.synchronize()
        if cp is not None:
            ms = cp.cuda.get_elapsed_time(start, end)
        else:
            ms = start.elapsed_time(end)
        times.append(ms / reps)
    return statistics.median(times)


def copy_bandwidth() -> float:
    """Device-to-device copy bandwidth (bytes read + written per second) of a 1 GiB copy."""
    if cp is not None:
        a = cp.ones(1 << 28, cp.float32)
        b = cp.empty_like(a)
        ms = gpu_ms(lambda: cp.copyto(b, a), reps=5)
    else:
        a = torch.ones(1 << 28, dtype=torch.float32, device="cuda")
        b = torch.empty_like(a)
        ms = gpu_ms(lambda: b.copy_(a), reps=5)
    return 2 * a.nbytes / (ms / 1e3)


def check(name: str, err: float) -> None:
    if not err <= W.TOL:
        raise SystemExit(f"WRONG ANSWER: {name} relative error {err:.3g} > {W.TOL}")


# ------------------------------------------------------------------------------ W1 vs nvcc
def bench_colsum_vs_nvcc(p: dict[str, int], bw: float) -> None:
    m, n = p["m"], p["n"]
    inp = W.make_inputs("colsum", p)
    ref = W.reference("colsum", inp, p)
    da = simt.to_device(inp["a"])
    out = simt.empty((n,), np.float32)
    g = (n + 255) // 256
    W.colsum[g, 256](da, out)
    check("simt colsum", W.rel_err("colsum", out.numpy(), ref))
    t_simt = gpu_ms(lambda: W.colsum[g, 256](da, out))
    row: dict[str, Any] = {"simt_ms": t_simt}
    nvcc = shutil.which("nvcc")
    if nvcc and cp is not None:
        cc = cp.cuda.Device().compute_capability
        tmp = Path(tempfile.mkdtemp())
        cubin = tmp / "colsum.cubin"
        subprocess.run(
            [nvcc, "-O3", f"-arch=sm_{cc}", "-cubin", "-o", str(cubin), str(HERE / "colsum.cu")],
            check=True,
        )
        fn = cp.RawModule(path=str(cubin)).get_function("colsum")
        a = cp.asarray(inp["a"])
        o = cp.empty(n, cp.float32)
        args = (a, o, np.int32(m), np.int32(n))
        fn((g,), (256,), args)
        check("nvcc colsum", W.rel_err("colsum", cp.asnumpy(o), ref))
        row["nvcc_ms"] = gpu_ms(lambda: fn((g,), (256,), args))
        row["ratio_vs_nvcc"] = t_simt / row["nvcc_ms"]
        exe = tmp / "colsum"
        subprocess.run(
            [nvcc, "-O3", f"-arch=sm_{cc}", "-o", str(exe), str(HERE / "colsum.cu")], check=True
        )
        res = subprocess.run([str(exe), str(m), str(n)], capture_output=True, text=True)
        row["nvcc_standalone"] = res.stdout.strip() or res.stderr.strip()
    floor_ms = (m * n * 4 + n * 4) / bw * 1e3
    row["bw_floor_ms"] = floor_ms
    row["ratio_vs_floor"] = t_simt / floor_ms
    RESULTS["colsum_vs_nvcc"] = row
    print(f"W1 colsum {m}x{n}: simt {t_simt:.4f} ms", end="")
    if "nvcc_ms" in row:
        print(f", nvcc {row['nvcc_ms']:.4f} ms, ratio {row['ratio_vs_nvcc']:.3f}", end="")
    print(f", copy floor {floor_ms:.4f} ms, ratio {row['ratio_vs_floor']:.3f}")
    if "nvcc_standalone" in row:
        print(f"   standalone nvcc binary: {row['nvcc_standalone']}")


# ------------------------------------------------------------------------------ W1-W6 peers
def _peers(wl: str, inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, Any]:
    """{name: (launch, result)} for the CuPy and PyTorch versions of workload `wl`."""
    return {**_cupy_peers(wl, inp, p), **_torch_peers(wl, inp, p)}


def _cupy_peers(wl: str, inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if cp is not None:
        c = {k: cp.asarray(v) for k, v in inp.items()}
        if wl == "colsum":
            r = cp.empty(p["n"], cp.float32)
            out["cupy"] = (lambda: cp.sum(c["a"], axis=0, out=r), lambda: cp.asnumpy(r))
        elif wl == "vecadd":
            r = cp.empty(p["n"], cp.float32)
            out["cupy"] = (lambda: cp.add(c["a"], c["b"], out=r), lambda: cp.asnumpy(r))
        elif wl == "mandel":
            h, w, it = p["h"], p["w"], p["max_iter"]
            ek = cp.ElementwiseKernel(
                "int32 w, int32 h, int32 max_iter",
                "int32 count",
                """
                int col = i % w, row = i / w;
                float x0 = (float)col / w * 0.13f - 0.62f, y0 = (float)row / h * 0.13f - 0.65f;
                float x = 0.0f, y = 0.0f; int k = 0;
                while (k < max_iter && x * x + y * y <= 4.0f) {
                    float xt = x * x - y * y + x0; y = 2.0f * x * y + y0; x = xt; k++;
                }
                count = k;
                """,
                "mandel_ek",
            )
            r = cp.empty((h, w), cp.int32)
            out["cupy"] = (lambda: ek(w, h, it, r), lambda: cp.asnumpy(r))
        elif wl == "sobel":
            img = c["img"]

            def sob() -> Any:
                q = cp.pad(img, 1, mode="edge")
                hh, ww = img.shape

                def s(dy: int, dx: int) -> Any:
                    return q[1 + dy : 1 + dy + hh, 1 + dx : 1 + dx + ww]

                gx = (s(-1, 1) + 2 * s(0, 1) + s(1, 1)) - (s(-1, -1) + 2 * s(0, -1) + s(1, -1))
                gy = (s(1, -1) + 2 * s(1, 0) + s(1, 1)) - (s(-1, -1) + 2 * s(-1, 0) + s(-1, 1))
                return cp.sqrt(gx * gx + gy * gy)

            box: dict[str, Any] = {}
            out["cupy"] = (lambda: box.__setitem__("r", sob()), lambda: cp.asnumpy(box["r"]))
        elif wl == "reduce":
            box2: dict[str, Any] = {}
            out["cupy"] = (
                lambda: box2.__setitem__("r", cp.sum(c["a"])),
                lambda: float(box2["r"]),
            )
        elif wl == "matmul":
            r = cp.empty((p["n"], p["n"]), cp.float32)
            out["cupy (cuBLAS)"] = (lambda: cp.matmul(c["a"], c["b"], out=r), lambda: cp.asnumpy(r))
            raw = cp.RawKernel(
                r"""extern "C" __global__ void mm(const float* a, const float* b, float* c, int n) {
                int row = blockIdx.y * blockDim.y + threadIdx.y;
                int col = blockIdx.x * blockDim.x + threadIdx.x;
                if (row < n && col < n) {
                    float acc = 0.0f;
                    for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
                    c[row * n + col] = acc;
                }}""",
                "mm",
            )
            n = p["n"]
            g = ((n + 15) // 16, (n + 15) // 16)
            r2 = cp.empty((n, n), cp.float32)
            out["cupy RawKernel (naive CUDA C)"] = (
                lambda: raw(g, (16, 16), (c["a"], c["b"], r2, np.int32(n))),
                lambda: cp.asnumpy(r2),
            )
    return out


def _torch_peers(wl: str, inp: dict[str, np.ndarray], p: dict[str, int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if torch is not None:
        t = {k: torch.from_numpy(v).cuda() for k, v in inp.items()}
        if wl == "colsum":
            r = torch.empty(p["n"], dtype=torch.float32, device="cuda")
            out["torch"] = (lambda: torch.sum(t["a"], 0, out=r), lambda: r.cpu().numpy())
        elif wl == "vecadd":
            r = torch.empty(p["n"], dtype=torch.float32, device="cuda")
            out["torch"] = (lambda: torch.add(t["a"], t["b"], out=r), lambda: r.cpu().numpy())
        elif wl == "mandel":
            h, w, it = p["h"], p["w"], p["max_iter"]
            x0 = (torch.arange(w, device="cuda", dtype=torch.float32) / w * 0.13 - 0.62)[None, :]
            y0 = (torch.arange(h, device="cuda", dtype=torch.float32) / h * 0.13 - 0.65)[:, None]
            x0 = x0.expand(h, w)
            y0 = y0.expand(h, w)
            box3: dict[str, Any] = {}

            def mand() -> None:
                x = torch.zeros((h, w), device="cuda")
                y = torch.zeros((h, w), device="cuda")
                cnt = torch.zeros((h, w), dtype=torch.int32, device="cuda")
                for _ in range(it):
                    inside = x * x + y * y <= 4.0
                    cnt += inside
                    x, y = (
                        torch.where(inside, x * x - y * y + x0, x),
                        torch.where(inside, 2.0 * x * y + y0, y),
                    )
                box3["r"] = cnt

            out["torch (vectorised)"] = (mand, lambda: box3["r"].cpu().numpy())
        elif wl == "sobel":
            kx = torch.tensor([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=torch.float32)
            ky = torch.tensor([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], dtype=torch.float32)
            k = torch.stack([kx, ky])[:, None].cuda()
            img = t["img"][None, None]
            box4: dict[str, Any] = {}

            def sob2() -> None:
                q = torch.nn.functional.pad(img, (1, 1, 1, 1), mode="replicate")
                g2 = torch.nn.functional.conv2d(q, k)
                box4["r"] = torch.sqrt(g2[0, 0] ** 2 + g2[0, 1] ** 2)

            out["torch (conv2d)"] = (sob2, lambda: box4["r"].cpu().numpy())
        elif wl == "reduce":
            box5: dict[str, Any] = {}
            out["torch"] = (
                lambda: box5.__setitem__("r", torch.sum(t["a"])),
                lambda: float(box5["r"]),
            )
        elif wl == "matmul":
            r = torch.empty((p["n"], p["n"]), dtype=torch.float32, device="cuda")
            out["torch (cuBLAS)"] = (
                lambda: torch.matmul(t["a"], t["b"], out=r),
                lambda: r.cpu().numpy(),
            )
    return out


Launch = tuple[Any, Any, Any, tuple[Any, ...]]  # kernel, grid, block, arguments


def _simt_gpu(
    wl: str, inp: dict[str, np.ndarray], p: dict[str, int]
) -> tuple[list[Launch], Callable]:
    """simt's launch(es) for `wl` and a result fetcher."""
    dev = {k: simt.to_device(v) for k, v in inp.items()}
    g = W._grid
    if wl == "colsum":
        o = simt.empty((p["n"],), np.float32)
        return [(W.colsum, g(p["n"], 256), 256, (dev["a"], o))], o.numpy
    if wl == "vecadd":
        o = simt.empty((p["n"],), np.float32)
        return [(W.vecadd, g(p["n"], 256), 256, (dev["a"], dev["b"], o))], o.numpy
    if wl == "mandel":
        h, w, it = p["h"], p["w"], p["max_iter"]
        o = simt.empty((h, w), np.int32)
        return [(W.mandel, (g(w, 16), g(h, 16)), (16, 16), (o, it))], o.numpy
    if wl == "sobel":
        h, w = p["h"], p["w"]
        o = simt.empty((h, w), np.float32)
        return [(W.sobel, (g(w, 16), g(h, 16)), (16, 16), (dev["img"], o))], o.numpy
    if wl == "reduce":
        blocks = min(W.REDUCE_MAX_BLOCKS, g(p["n"], W.REDUCE_THREADS))
        part = simt.empty((blocks,), np.float32)
        total = simt.empty((1,), np.float32)
        # two launches: partial sums per block, then one block sums the partial sums
        return [
            (W.reduce, blocks, W.REDUCE_THREADS, (dev["a"], part)),
            (W.reduce, 1, W.REDUCE_THREADS, (part, total)),
        ], lambda: float(total.numpy()[0])
    if wl == "matmul":
        n = p["n"]
        o = simt.empty((n, n), np.float32)
        return [(W.matmul, (g(n, 16), g(n, 16)), (16, 16), (dev["a"], dev["b"], o))], o.numpy
    raise KeyError(wl)


def _dim(x: Any) -> Dim3:
    return Dim3(*x) if isinstance(x, tuple) else Dim3(x)


def _runners(launches: list[Launch]) -> tuple[Callable[[], None], Callable[[], None]]:
    """(the user's launch `k[grid, block](*args)`, the CUDA runtime's launch of the compiled
    specialisations alone: the GPU time with the front end's per-launch work left out)."""
    rt = registry.current()
    direct = []
    for k, grid, block, args in launches:
        spec = k.specialise(list(args), rt)
        dev_args = [
            a if not isinstance(a, (int, float)) else p.value.type.np.type(a)
            for a, p in zip(args, spec.fn.params)
        ]
        direct.append((spec.compiled, _dim(grid), _dim(block), dev_args))

    def user() -> None:
        for k, grid, block, args in launches:
            k[grid, block](*args)

    def runtime_only() -> None:
        for c, grid, block, args in direct:
            rt.launch(c, grid, block, args)

    return user, runtime_only


def bench_suite(sizes: dict[str, dict[str, int]]) -> None:
    RESULTS["suite"] = {}
    print(f"\n{'workload':16s} {'simt ms':>9s} {'kernel ms':>9s}  peers (ms, simt kernel/peer)")
    for wl in W.LABELS:
        p = sizes[wl]
        inp = W.make_inputs(wl, p)
        ref = W.reference(wl, inp, p)
        launches, result = _simt_gpu(wl, inp, p)
        user, runtime_only = _runners(launches)
        user()
        check(f"simt {wl}", W.rel_err(wl, result(), ref))
        row: dict[str, Any] = {"simt_ms": gpu_ms(user), "simt_kernel_ms": gpu_ms(runtime_only)}
        for name, (run, res) in _peers(wl, inp, p).items():
            run()
            err = W.rel_err(wl, res(), ref)
            if not err <= W.TOL:
                row[name] = {"error": f"rel err {err:.3g}"}
                continue
            row[name] = {"ms": gpu_ms(run)}
        RESULTS["suite"][wl] = row
        peers = [(k, v["ms"]) for k, v in row.items() if isinstance(v, dict) and "ms" in v]
        kms = row["simt_kernel_ms"]
        text = ", ".join(f"{k} {ms:.4f} ({kms / ms:.2f}x)" for k, ms in peers)
        print(f"{W.LABELS[wl]:16s} {row['simt_ms']:9.4f} {kms:9.4f}  {text}")


# ------------------------------------------------------------------------------ launch cost
@simt.kernel
def nothing(a, n):
    if simt.thread_idx.x > n:
        a[0] = 0.0


def bench_launch(n_launch: int = 20000) -> None:
    da = simt.to_device(np.zeros(32, np.float32))
    nothing[1, 32](da, 1 << 20)
    simt.synchronize()

    def host_us(fn: Callable[[], None]) -> float:
        best = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n_launch):
                fn()
            simt.synchronize()
            best.append((time.perf_counter() - t0) / n_launch * 1e6)
        return statistics.median(best)

    row: dict[str, float] = {}
    row["simt_us"] = host_us(lambda: nothing[1, 32](da, 1 << 20))
    rt = registry.current()
    spec = nothing.specialise([da, 1 << 20], rt)
    args = [da, np.int32(1 << 20)]
    g, b = Dim3(1), Dim3(32)
    row["simt_runtime_only_us"] = host_us(lambda: rt.launch(spec.compiled, g, b, args))
    # the cached launch `nothing[1, 32](...)` takes after its first call (CudaFastLaunch: one
    # cuLaunchKernel over a packed parameter buffer), alone: "simt_us" minus the launcher
    fast = rt.fast_launch(spec.compiled, g, b, [da, 1 << 20], set())
    row["simt_cached_launch_us"] = -1.0 if fast is None else host_us(
        lambda: fast.fn((da, 1 << 20)))  # fmt: skip
    if cp is not None:
        raw = cp.RawKernel(
            r'extern "C" __global__ void nothing(float* a, int n) '
            r"{ if ((int)threadIdx.x > n) a[0] = 0.0f; }",
            "nothing",
        )
        a = cp.zeros(32, cp.float32)
        nn = np.int32(1 << 20)
        raw((1,), (32,), (a, nn))
        row["cupy_rawkernel_us"] = host_us(lambda: raw((1,), (32,), (a, nn)))
        row["ratio"] = row["simt_us"] / row["cupy_rawkernel_us"]
    RESULTS["launch"] = row
    print("\nlaunch overhead (host us per launch of a cached kernel):", json.dumps(row))


# ------------------------------------------------------------------------------ compile cost
_COMPILE_SNIPPET = r"""
import functools, json, sys, time
sys.path.insert(0, {bench!r})
import numpy as np, simt
from simt.runtime import registry
simt.use("cuda"); rt = registry.current()
import workloads as W
a = simt.to_device(np.ones((256, 1024), np.float32)); o = simt.empty((1024,), np.float32)
phases = {{}}
def timed(owner, name, label):  # inclusive ms of each call of owner.name, summed
    f = getattr(owner, name)
    @functools.wraps(f)
    def g(*args, **kw):
        t = time.perf_counter()
        try:
            return f(*args, **kw)
        finally:
            phases[label] = phases.get(label, 0.0) + (time.perf_counter() - t) * 1e3
    setattr(owner, name, g)
if {phases!r}:  # where the time goes (the wrappers cost microseconds)
    t = time.perf_counter()
    import simt.pipeline as pl
    import simt.runtime.cuda as rc
    from simt.kernel import Kernel
    phases["import simt.pipeline (before the timer: not in ms)"] = (time.perf_counter() - t) * 1e3
    timed(Kernel, "build_ir", "front end + passes (pipeline.build)")
    timed(pl, "for_runtime", "bounds pass (pipeline.for_runtime)")
    timed(rc.renderer, "build", "render CUDA C++")
    timed(rc, "cached_cubin", "CUBIN: disk cache or NVRTC")
    timed(rc.CudaRuntime, "_mapped", "mapped pinned memory (cuMemHostAlloc)")
    timed(rc.CudaRuntime, "_alloc_raw", "device buffers (error record, prints)")
    timed(rc.CudaRuntime, "_reset_error", "error record initialised (copy)")
t0 = time.perf_counter(); spec = W.colsum.specialise([a, o], rt); t1 = time.perf_counter()
print(json.dumps({{"ms": (t1 - t0) * 1e3, "phases": phases}}))
"""

# a fresh process: how long its runtime takes to start, and each allocation of mapped pinned host
# memory (the first: the runtime's background chunk, `CudaRuntime._mapped`; then four more)
_PINNED_SNIPPET = r"""
import json, time
import simt
import simt.runtime.cuda as rc
from simt.runtime import registry
pinned = []
made = rc.CudaRuntime._pinned
def timed(self, size, check):
    t = time.perf_counter()
    try:
        return made(self, size, check)
    finally:
        pinned.append([size, (time.perf_counter() - t) * 1e3])
rc.CudaRuntime._pinned = timed
t = time.perf_counter()
simt.use("cuda"); rt = registry.current()
start = (time.perf_counter() - t) * 1e3
if rt._chunk_thread is not None:
    rt._chunk_thread.join()
for n in (4, 4, 1 << 20, 4):
    t = time.perf_counter()
    rt._drv(rt.driver.cuMemHostAlloc(n, 0x02), "cuMemHostAlloc")
    pinned.append([n, (time.perf_counter() - t) * 1e3])
print(json.dumps({{"runtime_start_ms": start, "pinned_ms": pinned}}))
"""


def bench_compile() -> None:
    """W1's kernel specialised in a fresh process: the first time into an empty disk cache,
    then again in a new process (CUBIN cached), then once more with each phase timed; and how
    long a fresh process's pinned allocations take (`CudaRuntime._mapped`)."""
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, SIMT_CACHE_DIR=tmp)
    row: dict[str, Any] = {}
    runs = (("first_compile_ms", False), ("cached_new_process_ms", False),
            ("cached_phases", True))  # fmt: skip
    for label, phases in runs:
        code = _COMPILE_SNIPPET.format(bench=str(HERE.parent), phases=phases)
        res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        if res.returncode != 0:
            row[label] = res.stderr[-500:]
            continue
        got = json.loads(res.stdout.strip().splitlines()[-1])
        row[label] = got if phases else got["ms"]
    res = subprocess.run([sys.executable, "-c", _PINNED_SNIPPET.format()], env=env,
                         capture_output=True, text=True)  # fmt: skip
    row["pinned"] = (
        json.loads(res.stdout.strip().splitlines()[-1]) if res.returncode == 0
        else res.stderr[-500:]
    )  # fmt: skip
    RESULTS["compile"] = row
    print("\ncompile (colsum, front end + passes + NVRTC + module load):", json.dumps(row))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--skip", default="", help="comma-separated: nvcc,suite,launch,compile")
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    simt.use("cuda")
    rt = registry.current()
    RESULTS["device"] = rt.info()
    print("device:", RESULTS["device"])
    sizes = W.SIZES["quick" if args.quick else "full"]
    bw = copy_bandwidth()
    RESULTS["copy_bandwidth_GBps"] = bw / 1e9
    print(f"device-to-device copy bandwidth: {bw / 1e9:.0f} GB/s (read + write)")
    if "nvcc" not in skip:
        bench_colsum_vs_nvcc(sizes["colsum"], bw)
    if "suite" not in skip:
        bench_suite(sizes)
    if "launch" not in skip:
        bench_launch()
    if "compile" not in skip:
        bench_compile()
    if args.json:
        Path(args.json).write_text(json.dumps(RESULTS, indent=2, default=str))


if __name__ == "__main__":
    main()
