"""The CUDA runtime: what works without a GPU (probe, NVRTC, cache, print decoding, resource
parsing, interop plumbing) always; launches, memory and interop only where a GPU is present
(skipped elsewhere with the probe's reason)."""

from __future__ import annotations

import io
import math
import re

import numpy as np
import pytest

import simt
from simt import thread_idx
from simt.backends import cuda as cuda_renderer
from simt.backends import cuda_layout
from simt.errors import KernelError, LaunchError
from simt.runtime import nvrtc, registry
from simt.runtime.cuda import (
    CudaRuntime,
    cached_cubin,
    decode_records,
    nvrtc_options,
    resources,
)
from simt.runtime.cuda_interop import cai_dict, dlpack_capsule, read_cai
from simt.runtime.printing import emit

HAVE_GPU, WHY = CudaRuntime.probe()
gpu = pytest.mark.skipif(not HAVE_GPU, reason=f"no CUDA GPU here: {WHY}")
nvrtc_only = pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")


# ---------------------------------------------------------------- no GPU needed
def test_probe_never_raises_and_says_why() -> None:
    ok, why = CudaRuntime.probe()
    assert isinstance(ok, bool) and why
    assert "NVRTC" in why
    if not ok:
        assert "driver" in why or "GPU" in why or "cuda" in why.lower()


def test_registry_probe_matches() -> None:
    assert registry.probe("cuda") == CudaRuntime.probe()


@nvrtc_only
def test_supported_archs_include_ci_targets() -> None:
    archs = nvrtc.supported_archs()
    assert "sm_80" in archs and "sm_90" in archs


PTXAS_LOG = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'simt_k' for 'sm_80'
ptxas info    : Function properties for simt_k
ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 392 bytes cmem[0]
ptxas info    : Function properties for __internal_accurate_pow
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
"""


def test_parse_resources() -> None:
    r = nvrtc.parse_resources(PTXAS_LOG)
    assert r == {
        "simt_k": {
            "registers": 40,
            "spill_stores": 8,
            "spill_loads": 4,
            "stack_frame": 16,
            "shared": 1024,
            "constant": 392,
            "barriers": 1,
        }
    }


@nvrtc_only
def test_nvrtc_error_carries_source_and_log() -> None:
    with pytest.raises(nvrtc.NvrtcError) as e:
        nvrtc.compile_cubin('extern "C" __global__ void k() { undeclared_thing(); }', "sm_80")
    assert "undeclared_thing" in e.value.log
    assert "undeclared_thing" in str(e.value) and "CUDA source" in str(e.value)


@nvrtc_only
def test_cubin_is_cached_on_disk(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path))
    src = 'extern "C" __global__ void k(float* a) { a[threadIdx.x] = 1.0f; }'
    cubin, log = cached_cubin(src, "sm_80")
    assert cubin[:4] == b"\x7fELF"
    calls: list[str] = []
    monkeypatch.setattr(nvrtc, "compile_cubin", lambda *a, **k: calls.append("x"))
    again, log2 = cached_cubin(src, "sm_80")
    assert again == cubin and log2 == log and not calls


@nvrtc_only
def test_a_log_without_resource_report_is_compiled_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """NVRTC 13.0 was seen answering a program it had compiled before with an empty log."""
    real = nvrtc._compile
    seen: list[tuple[str, ...]] = []

    def first_log_empty(src: str, arch: str, opts: tuple[str, ...], name: str) -> object:
        cubin, log = real(src, arch, opts, name)
        seen.append(opts)
        return (cubin, "") if len(seen) == 1 else (cubin, log)

    monkeypatch.setattr(nvrtc, "_compile", first_log_empty)
    src = 'extern "C" __global__ void k(float* a) { a[threadIdx.x] = 2.0f; }'
    _, _, res = nvrtc.compile_cubin(src, "sm_80")
    assert res["k"]["registers"] > 0 and len(seen) == 2
    assert any(name.startswith("simt_fresh_") for name in res)


@simt.kernel
def _shared_sum(a, out):
    sh = simt.shared.array(128, np.float32)
    sh[thread_idx.x] = a[thread_idx.x]
    simt.syncthreads()
    if thread_idx.x == 0:
        s = 0.0
        for i in range(128):
            s += sh[i]
        out[0] = s


@nvrtc_only
def test_resources_without_a_gpu() -> None:
    a = np.ones(128, np.float32)
    fn = _shared_sum.specialise([a, a], _IrOnly()).fn
    for arch in ("sm_80", "sm_90"):
        r = resources(fn, arch)
        assert r["registers"] > 0
        assert r["shared"] == 128 * 4
        assert r["spill_stores"] == 0


class _IrOnly:
    """A stand-in runtime for `Kernel.specialise` that only keeps the IR."""

    name = "ir-only"

    def has_int64(self) -> bool:  # a cuda.jit kernel asks (Numba's int64 typing needs it)
        return True

    def compile(self, fn: object) -> object:
        from simt.runtime.base import Compiled

        return Compiled(fn, "")  # type: ignore[arg-type]


def test_decode_records_and_format() -> None:
    class K:
        record_words = 8
        prints = [
            cuda_layout.PrintFormat(
                ("x=", simt.ir.Field(0), " y=", simt.ir.Field(1, ".2f"), "\n"),
                (simt.types.INT32, simt.types.FLOAT32),
            ),
            cuda_layout.PrintFormat(("flag ", simt.ir.Field(0), "\n"), (simt.types.BOOL,)),
        ]

    def rec(thread: int, seq: int, pid: int, vals: list[tuple[int, int]]) -> list[int]:
        words = [thread & 0xFFFFFFFF, thread >> 32, seq, pid]
        for lo, hi in vals:
            words += [lo, hi]
        return words + [0] * (8 - len(words))

    f = int(np.float32(0.1).view(np.uint32))
    words = np.array(
        rec(3, 0, 0, [(0xFFFFFFFF, 0xFFFFFFFF), (f, 0)])  # x = -1
        + rec(1, 1, 1, [(1, 0)])
        + rec(1, 0, 0, [(7, 0), (f, 0)]),
        np.uint32,
    )
    records = decode_records(words, K)  # type: ignore[arg-type]
    out = io.StringIO()
    emit(records, [p.parts for p in K.prints], out)  # type: ignore[misc]
    assert out.getvalue() == "x=7 y=0.10\nflag True\nx=-1 y=0.10\n"


def test_a_uint64_prints_whole() -> None:
    """A uint64 in a print record is its two words (the host kept the low one), and the
    device's `simt_put` has an overload for it (NVRTC refused the call as ambiguous)."""

    class K:
        record_words = 6
        prints = [cuda_layout.PrintFormat(("u=", simt.ir.Field(0), "\n"), (simt.types.UINT64,))]

    words = np.array([0, 0, 0, 0, 5, 1 << 31], np.uint32)  # 2**63 + 5
    out = io.StringIO()
    emit(decode_records(words, K), [p.parts for p in K.prints], out)  # type: ignore[arg-type, misc]
    assert out.getvalue() == f"u={2**63 + 5}\n"
    if nvrtc.version() is None:
        return

    @simt.kernel
    def show(a):  # type: ignore[no-untyped-def]
        i = simt.grid(1)
        if i < a.size:
            print(a[i])

    kern = cuda_renderer.build(show.specialised_ir(np.zeros(4, np.uint64))[0])
    nvrtc.compile_cubin(kern.source, "sm_80", nvrtc_options(kern))


def test_cai_roundtrip_with_strides() -> None:
    d = cai_dict(1234, (3, 4), np.dtype(np.float32), (1, 3))
    assert d["strides"] == (4, 12) and d["data"] == (1234, False) and d["version"] == 3

    class Foreign:
        __cuda_array_interface__ = d

    ptr, shape, dtype, strides, span = read_cai(Foreign())
    assert (ptr, shape, dtype, strides) == (1234, (3, 4), np.float32, (1, 3))
    assert span == (2 * 1 + 3 * 3 + 1) * 4


def test_cai_rejects_odd_strides() -> None:
    class Foreign:
        __cuda_array_interface__ = {
            "shape": (4,),
            "typestr": "<f4",
            "data": (8, False),
            "strides": (6,),
            "version": 3,
        }

    with pytest.raises(LaunchError):
        read_cai(Foreign())


def test_dlpack_capsule_is_made_and_freed() -> None:
    owner = object()
    cap = dlpack_capsule(owner, 4096, (2, 3), np.dtype(np.float32), (3, 1), 0)
    assert type(cap).__name__ == "PyCapsule"
    from simt.runtime import cuda_interop

    assert any(v[-1] is owner for v in cuda_interop._alive.values())
    del cap  # an unconsumed capsule frees what it holds
    assert not any(v[-1] is owner for v in cuda_interop._alive.values())


# ---------------------------------------------------------------- on a GPU
@pytest.fixture
def on_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    simt.use("cuda")


@simt.kernel
def _scale(a, out, k):
    i = simt.grid(1)
    if i < len(a):
        out[i] = a[i] * k


@gpu
def test_device_arrays_stay_on_device(on_cuda: None) -> None:
    a = np.arange(1000, dtype=np.float32)
    da = simt.to_device(a)
    dout = simt.empty(1000, np.float32)
    _scale[4, 256](da, dout, 2.0)
    np.testing.assert_array_equal(dout.numpy(), a * 2)
    cai = dout.__cuda_array_interface__
    assert cai["shape"] == (1000,) and cai["typestr"] == "<f4"


@gpu
def test_cupy_and_torch_arguments_without_copies(on_cuda: None) -> None:
    n = 4096
    try:
        import cupy as cp
    except ImportError:
        cp = None
    if cp is not None:
        a = cp.arange(n, dtype=cp.float32)
        out = cp.zeros(n, dtype=cp.float32)
        _scale[n // 256, 256](a, out, 3.0)
        np.testing.assert_array_equal(cp.asnumpy(out), np.arange(n, dtype=np.float32) * 3)
        # a strided view: every other element
        v = cp.zeros(2 * n, dtype=cp.float32)[::2]
        _scale[n // 256, 256](a, v, 1.0)
        np.testing.assert_array_equal(cp.asnumpy(v), np.arange(n, dtype=np.float32))
        # and back: CuPy reads a simt array without a copy
        d = simt.to_device(np.arange(n, dtype=np.float32))
        np.testing.assert_array_equal(cp.asnumpy(cp.asarray(d)), np.arange(n))
        np.testing.assert_array_equal(cp.asnumpy(cp.from_dlpack(d)), np.arange(n))
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        t = torch.arange(n, dtype=torch.float32, device="cuda")
        o = torch.zeros(n, dtype=torch.float32, device="cuda")
        _scale[n // 256, 256](t, o, 0.5)
        assert torch.equal(o.cpu(), torch.arange(n, dtype=torch.float32) * 0.5)
        d = simt.to_device(np.arange(n, dtype=np.float32))
        assert torch.equal(torch.from_dlpack(d).cpu(), torch.arange(n, dtype=torch.float32))
    if cp is None and torch is None:
        pytest.skip("neither CuPy nor PyTorch is installed")


@simt.kernel(debug=True)
def _oob(a):
    i = simt.grid(1)
    a[i + 5] = 1.0


@gpu
def test_debug_bounds_check_names_block_thread_line(on_cuda: None) -> None:
    a = np.zeros(100, np.float32)
    with pytest.raises(KernelError) as e:
        _oob[1, 128](a)
    err = e.value
    assert err.block == (0, 0, 0) and err.thread == (95, 0, 0)
    assert "out of bounds" in str(err) and "a[i + 5] = 1.0" in str(err)


@simt.kernel
def _check(a):
    i = simt.grid(1)
    if i < len(a):
        assert a[i] >= 0.0, "negative input"


@gpu
def test_assert_reports_first_failing_thread(on_cuda: None) -> None:
    a = np.ones(300, np.float32)
    a[[170, 250]] = -1
    with pytest.raises(KernelError) as e:
        _check[3, 128](a)
        simt.synchronize()
    assert e.value.block == (1, 0, 0) and e.value.thread == (42, 0, 0)
    assert "negative input" in str(e.value)


@gpu
def test_math_and_int_semantics_match_numpy(on_cuda: None) -> None:
    @simt.kernel
    def k(x, y, out):
        i = simt.grid(1)
        if i < len(x):
            out[0, i] = x[i] // y[i]
            out[1, i] = x[i] % y[i]
            out[2, i] = math.sqrt(abs(x[i]))

    x = np.array([-7.5, 7.5, -7.5, 7.5, 3.0], np.float32)
    y = np.array([2.0, -2.0, -2.0, 2.0, 0.0], np.float32)
    out = np.zeros((3, 5), np.float32)
    k[1, 32](x, y, out)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out[0], np.floor_divide(x, y))
        np.testing.assert_array_equal(out[1], np.remainder(x, y))
    np.testing.assert_allclose(out[2], np.sqrt(np.abs(x)), rtol=1e-6)


@simt.kernel
def _tail(a):
    i = simt.grid(1)
    if i < 8:
        a[len(a) - 8 + i] = True  # len(a) is int64: the array has 2**31 elements or more


@gpu
def test_arrays_over_2_to_the_31_elements(on_cuda: None) -> None:
    cp = pytest.importorskip("cupy")
    n = 2**31 + 8
    a = cp.zeros(n, dtype=cp.bool_)
    _tail[1, 32](a)
    simt.synchronize()
    assert bool(a[-8:].all()) and not bool(a[-9]) and int(a.sum()) == 8
    src = _tail.source("cuda", a)
    assert re.search(r"long long a_\d+_shape0", src)


@simt.kernel
def _affine(a, x, out, n, shift):
    i, j = simt.grid(2)
    if i < n and j < out.shape[1]:
        out[i, j] = a * x[i, j] + shift


@gpu
def test_cached_launches_pass_each_launchs_arguments(on_cuda: None) -> None:
    """The cached launch (`CudaFastLaunch`: one cuLaunchKernel over a packed parameter
    buffer) with other numbers and other arrays of other shapes each time: every result as
    NumPy's. The fake-driver tests check its bytes; this checks the GPU reads them."""
    rng = np.random.default_rng(3)
    host = rng.standard_normal((40, 30)).astype(np.float32)
    launch = _affine[(8, 8), (8, 8)]
    for k in range(6):
        cols = 30 - 6 * (k % 2)
        xs = np.ascontiguousarray(host[:, :cols] * (k + 1))
        x = simt.to_device(xs)
        out = simt.to_device(np.zeros((40, cols), np.float32))
        a, n, shift = 0.5 + k, 40 - 3 * k, k - 2
        launch(a, x, out, n, shift)
        want = np.zeros((40, cols), np.float32)
        want[:n] = np.float32(a) * xs[:n] + np.float32(shift)
        np.testing.assert_array_equal(out.numpy(), want)


_STICKY_SCRIPT = """
import numpy as np, simt
simt.use("cuda")

@simt.kernel(boundscheck=False)
def wild(a):
    a[simt.grid(1) + (1 << 40)] = 1.0   # far outside any allocation: an illegal address

@simt.kernel
def fine(a):
    i = simt.grid(1)
    if i < len(a):
        a[i] = 2.0

a = simt.to_device(np.zeros(32, np.float32))
for step in ("first", "later launch", "later compile", "later copy"):
    try:
        if step == "first":
            wild[1, 32](a); simt.synchronize()
        elif step == "later launch":
            wild[1, 32](a)
        elif step == "later compile":
            fine[1, 32](a)
        else:
            a.numpy()
        print(step, "NO ERROR", flush=True)
    except simt.KernelError as e:
        print(step, "|", e, flush=True)
"""


@gpu
def test_a_sticky_error_on_the_gpu_is_named_afterwards(tmp_path: object) -> None:
    """A real illegal address (boundscheck=False) in a fresh process: the first error names
    the kernel, every later use names it again and says to restart; never 'bug in simt'."""
    import pathlib
    import subprocess
    import sys

    script = pathlib.Path(str(tmp_path)) / "sticky.py"
    script.write_text(_STICKY_SCRIPT)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    lines = run.stdout.splitlines()
    assert len(lines) == 4, run.stdout + run.stderr
    assert lines[0].startswith("first |") and "wild()" in lines[0] and "ILLEGAL" in lines[0]
    for line in lines[1:]:
        assert "wild()" in line and "restart the Python process" in line, line
    assert "bug in simt" not in run.stdout and "internal error" not in run.stdout
