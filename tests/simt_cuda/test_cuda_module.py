"""`simt.cuda`: numba.cuda's names, decorator, launch forms, host API and typing."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

import simt
from simt import cuda
from simt import types as numba_types

BACKENDS = ("sim", "cpu")


@cuda.jit(device=True)
def _square(x):
    return x * x


@cuda.jit("void(float32[:], float32[:], float32)")
def _scale(a, out, s):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = _square(a[i]) * s


@cuda.jit
def _brighten(img, out):
    i = cuda.grid(1)
    if i < img.size:
        out[i] = img[i] * 0.7 + 0.5  # Numba: float64 arithmetic, truncated to uint8


@simt.kernel
def _brighten_simt(img, out):
    i = simt.grid(1)
    if i < img.size:
        out[i] = img[i] * 0.7 + 0.5


@cuda.jit
def _axpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@simt.kernel
def _axpy_simt(a, x, y, out):
    i = simt.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


@cuda.jit
def _reverse_dynamic(a, out):
    buf = cuda.shared.array(0, dtype=np.float32)
    t = cuda.threadIdx.x
    buf[t] = a[t]
    cuda.syncthreads()
    out[t] = buf[cuda.blockDim.x - 1 - t]


@pytest.mark.parametrize("backend", BACKENDS)
def test_device_function_and_signature(backend: str) -> None:
    simt.use(backend)
    a = np.arange(10, dtype=np.float32)
    out = np.zeros_like(a)
    _scale[1, 16](a, out, 2.5)
    np.testing.assert_array_equal(out, a * a * np.float32(2.5))
    assert _square(3) == 9  # a device function is a plain function on the host


def test_signature_mismatch_is_a_launch_error() -> None:
    with pytest.raises(simt.LaunchError, match="float32"):
        _scale[1, 16](np.zeros(4, np.float64), np.zeros(4, np.float32), 1.0)


@cuda.jit(simt.void(simt.float32[:], simt.float32[:], simt.float32))
def _scale_typed(a, out, s):
    i = cuda.grid(1)
    if i < a.size:
        out[i] = _add_typed(a[i], s)


@cuda.jit(simt.float32(simt.float32, simt.float32), device=True)
def _add_typed(x, y):
    return x + y


# parameter types alone: a kernel's signature
@cuda.jit((numba_types.int32[:, ::1], numba_types.int32[:, ::1]))
def _copy2d(a, out):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        out[i, j] = a[i, j]


@pytest.mark.parametrize("backend", BACKENDS)
def test_signatures_of_type_objects(backend: str) -> None:
    """Numba's typed signatures, `void(float32[:], float32)`, read as their strings are."""
    simt.use(backend)
    a = np.arange(10, dtype=np.float32)
    out = np.zeros_like(a)
    _scale_typed[1, 16](a, out, 2.5)
    np.testing.assert_array_equal(out, a + np.float32(2.5))
    m = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = np.zeros_like(m)
    _copy2d[(1, 1), (4, 4)](m, got)
    np.testing.assert_array_equal(got, m)
    with pytest.raises(simt.LaunchError, match="float32"):
        _scale_typed[1, 16](np.zeros(4, np.float64), np.zeros(4, np.float32), 1.0)


def test_signature_objects_spell_numbas_strings() -> None:
    f32, i32 = simt.float32, simt.int32
    assert str(simt.void(f32[:], f32[:, ::1], i32)) == "void(float32[:], float32[:, ::1], int32)"
    assert str(f32(f32, numba_types.float64)) == "float32(float32, float64)"
    assert str(simt.void(numba_types.bool_[:])) == "void(boolean[:])"
    assert f32(3.5) == np.float32(3.5)  # a value, not a type: the host conversion
    with pytest.raises(TypeError, match="only `:` axes"):
        f32[1:3]
    with pytest.raises(TypeError, match="not a type"):
        simt.void(f32[:], 3)
    with pytest.raises(simt.CompileError, match="1 parameter"):
        cuda.jit(simt.void(f32[:]))(lambda a, b: None)


def test_bad_signatures_and_options() -> None:
    def f(a):
        pass

    with pytest.raises(simt.CompileError, match="returns"):
        cuda.jit("int32(float32[:])")(f)
    with pytest.raises(simt.CompileError, match="1 parameter|2 parameter"):
        cuda.jit("void(float32[:], int32)")(f)
    with pytest.raises(simt.CompileError, match="unknown type"):
        cuda.jit("void(floot32[:])")(f)
    with pytest.raises(simt.CompileError, match="link"):
        cuda.jit(link=["kernels.cu"])(f)
    with pytest.raises(simt.CompileError, match="no option"):
        cuda.jit(warp_magic=True)(f)
    k = cuda.jit(inline=True, fastmath=True, cache=True, lineinfo=True, opt=False, debug=False)(f)
    assert isinstance(k, cuda.CUDAKernel)


@pytest.mark.parametrize("backend", BACKENDS)
def test_numba_typing_of_float_literals(backend: str) -> None:
    """A float literal times uint8 is float64 under cuda.jit (Numba) and float32 under
    simt.kernel (GPU practice): the truncating uint8 store sees the difference."""
    simt.use(backend)
    img = np.arange(256, dtype=np.uint8)
    out = np.zeros_like(img)
    _brighten[2, 128](img, out)
    np.testing.assert_array_equal(out, (img * 0.7 + 0.5).astype(np.uint8))
    out32 = np.zeros_like(img)
    _brighten_simt[2, 128](img, out32)
    ref32 = (img.astype(np.float32) * np.float32(0.7) + np.float32(0.5)).astype(np.uint8)
    np.testing.assert_array_equal(out32, ref32)
    assert not np.array_equal(out, out32)  # the two typings differ here, as documented


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kernel", [_axpy, _axpy_simt], ids=["cuda.jit", "simt.kernel"])
def test_python_float_argument_is_weak(backend: str, kernel: object) -> None:
    """NEP 50: a Python float next to float64 data keeps its float64 value; next to float32
    data it is float32 (the kernel stays float32)."""
    simt.use(backend)
    a = 1.0 + 2.0**-40
    x = np.full(8, 3.0)
    y = np.zeros(8)
    out = np.zeros(8)
    kernel[1, 8](a, x, y, out)  # type: ignore[index]
    np.testing.assert_array_equal(out, a * x)
    x32 = np.full(8, 3.0, np.float32)
    out32 = np.zeros(8, np.float32)
    kernel[1, 8](a, x32, np.zeros(8, np.float32), out32)  # type: ignore[index]
    np.testing.assert_array_equal(out32, np.float32(a) * x32)
    ir = kernel.ir(a, x32, np.zeros(8, np.float32), out32)  # type: ignore[attr-defined]
    assert "float64" not in ir


@pytest.mark.parametrize("backend", BACKENDS)
def test_dynamic_shared_memory_and_launch_forms(backend: str) -> None:
    simt.use(backend)
    a = np.arange(32, dtype=np.float32)
    for launch in (
        _reverse_dynamic[1, 32, 0, 128],
        _reverse_dynamic[1, 32, cuda.stream(), 32 * 4],
        _reverse_dynamic.configure(1, 32, 0, 256),
        _reverse_dynamic.forall(32, 32, 0, 128),
    ):
        out = np.zeros_like(a)
        launch(a, out)
        np.testing.assert_array_equal(out, a[::-1])
    with pytest.raises(simt.CompileError, match="fourth launch argument"):
        _reverse_dynamic[1, 32](a, np.zeros_like(a))
    with pytest.raises(simt.LaunchError, match="launch it with"):
        _reverse_dynamic(a, a)


@pytest.mark.parametrize("backend", BACKENDS)
def test_host_arrays_streams_events(backend: str, capsys: pytest.CaptureFixture[str]) -> None:
    simt.use(backend)
    a = np.arange(32, dtype=np.float32)
    d_a = cuda.to_device(a)
    d_out = cuda.device_array_like(a)
    assert cuda.is_cuda_array(d_a) and not cuda.is_cuda_array(a)
    s = cuda.stream()
    start, end = cuda.event(), cuda.event()
    with s.auto_synchronize():
        start.record(s)
        _reverse_dynamic[1, 32, s, 128](d_a, d_out)
        end.record(s)
    end.synchronize()
    assert cuda.event_elapsed_time(start, end) >= 0 and start.elapsed_time(end) >= 0
    host = cuda.pinned_array(32, dtype=np.float32)
    assert d_out.copy_to_host(host) is host
    np.testing.assert_array_equal(host, a[::-1])
    d_out.copy_to_device(a)
    np.testing.assert_array_equal(d_out.copy_to_host(), a)
    cuda.to_device(a[::-1], to=d_out)
    np.testing.assert_array_equal(d_out.copy_to_host(), a[::-1])
    assert cuda.device_array(4).dtype == np.float64  # Numba's default
    m = cuda.mapped_array(32, dtype=np.float32)
    _reverse_dynamic[1, 32, 0, 128](a, m)
    cuda.synchronize()
    np.testing.assert_array_equal(m, a[::-1])
    assert cuda.is_available()
    assert len(cuda.gpus) == 1 and cuda.select_device(0).id == 0
    assert cuda.get_current_device().WARP_SIZE == 32 == cuda.warpsize
    with cuda.gpus[0]:
        pass
    with pytest.raises(simt.LaunchError, match="simt.use"):
        cuda.select_device(1)
    assert cuda.detect()
    assert backend in capsys.readouterr().out


def test_missing_names_say_what_they_are() -> None:
    with pytest.raises(NotImplementedError, match="cuda.reduce"):
        cuda.reduce  # noqa: B018
    from simt import lang

    for name in cuda.WARP_FUNCTIONS:  # simt.lang's where it has them, else a named refusal
        if hasattr(lang, name):
            assert getattr(cuda, name) is getattr(lang, name) and name in cuda.__all__
        else:
            with pytest.raises(NotImplementedError, match=f"{name} .a warp function"):
                getattr(cuda, name)
    with pytest.raises(AttributeError):
        cuda.not_a_numba_name  # noqa: B018


@cuda.jit
def _uses_cg(a):
    g = cuda.cg.this_grid()
    a[0] = g


def test_missing_name_in_a_kernel_is_a_compile_error() -> None:
    with pytest.raises(simt.CompileError, match="cooperative groups"):
        _uses_cg[1, 1](np.zeros(1, np.float32))


def test_bit_functions_on_the_host() -> None:
    assert cuda.popc(0b1011) == 3 and cuda.clz(1) == 31 and cuda.ffs(8) == 4
    assert cuda.ffs(0) == 0 and cuda.brev(1) == 2**31 and cuda.clz(np.int64(1)) == 63
    assert cuda.cbrt(27.0) == pytest.approx(3.0) and math.isclose(cuda.fp16.hadd(1.0, 2.0), 3)


_HAS_NUMBA = importlib.util.find_spec("numba") is not None


@pytest.mark.skipif(not _HAS_NUMBA, reason="numba is not installed (pip install numba)")
@pytest.mark.parametrize("n,seed,sub", [(1, 0, 0), (7, 42, 0), (300, 2**40 + 3, 2)])
def test_random_states_are_numbas(n: int, seed: int, sub: int) -> None:
    from numba.cuda.random import init_xoroshiro128p_states_cpu, xoroshiro128p_dtype

    from simt.cuda.random import init_states

    ref = np.empty(n, xoroshiro128p_dtype)
    init_xoroshiro128p_states_cpu(ref, seed, sub)
    mine = init_states(n, seed, sub)
    np.testing.assert_array_equal(mine[:, 0], ref["s0"])
    np.testing.assert_array_equal(mine[:, 1], ref["s1"])


@cuda.jit
def _draw(states, out32, out64):
    i = cuda.grid(1)
    if i < out32.shape[0]:
        for k in range(out32.shape[1]):
            out32[i, k] = cuda.random.xoroshiro128p_uniform_float32(states, i)
            out64[i, k] = cuda.random.xoroshiro128p_uniform_float64(states, i)


@pytest.mark.skipif(not _HAS_NUMBA, reason="numba is not installed (pip install numba)")
@pytest.mark.parametrize("backend", BACKENDS)
def test_random_stream_is_numbas(backend: str) -> None:
    """The same seed gives Numba's numbers: each generator's stream, drawn on the host by
    Numba's own (CPU-compiled) functions, equals what simt's kernel drew."""
    from numba.cuda import random as nr

    simt.use(backend)
    n, draws = 16, 5
    states = cuda.random.create_xoroshiro128p_states(n, seed=1234)
    out32 = np.zeros((n, draws), np.float32)
    out64 = np.zeros((n, draws), np.float64)
    _draw[1, n](states, out32, out64)
    ref = np.empty(n, nr.xoroshiro128p_dtype)
    nr.init_xoroshiro128p_states_cpu(ref, 1234, 0)
    exp32 = np.zeros_like(out32)
    exp64 = np.zeros_like(out64)
    for i in range(n):
        for k in range(draws):
            exp32[i, k] = nr.xoroshiro128p_uniform_float32(ref, i)
            exp64[i, k] = nr.xoroshiro128p_uniform_float64(ref, i)
    np.testing.assert_array_equal(out32, exp32)
    np.testing.assert_array_equal(out64, exp64)


@cuda.jit
def _double_first(a):
    a[0] = a[0] * 2


@cuda.jit
def _calls_a_kernel(a):
    if cuda.grid(1) == 0:
        _double_first(a)


def test_a_kernel_called_from_a_kernel_is_a_device_function() -> None:
    a = np.array([3, 5], np.int32)
    _calls_a_kernel[1, 4](a)
    assert a.tolist() == [6, 5]


def test_explain_and_inspect_types(capsys: pytest.CaptureFixture[str]) -> None:
    a = np.arange(10, dtype=np.float32)
    _scale.explain(1, 16, a, np.zeros_like(a), 2.0, thread=(0, 3))
    _scale.inspect_types(a, np.zeros_like(a), np.float32(2.0))
    out = capsys.readouterr().out
    assert "block 0, thread 3" in out and "kernel _scale" in out


@cuda.jit
def _fences(a):
    a[0] = 1
    cuda.threadfence_block()
    a[1] = 2
    cuda.threadfence()
    a[2] = 3
    cuda.threadfence_system()


def test_fences_reach_the_renderers() -> None:
    """threadfence* are IR `fence` ops: CUDA's three fences, an LLVM fence on cpu (blocks run
    on several threads there), nothing on sim and WGSL (no equivalent outside barriers)."""
    a = np.zeros(3, np.int32)
    src = _fences.source("cuda", a)
    for f in ("__threadfence_block();", "__threadfence();", "__threadfence_system();"):
        assert f in src
    assert _fences.source("cpu", a).count("fence seq_cst") >= 3  # (bodies may be versioned)
    assert _fences.ir(a).count("scope=") == 3
    for backend in BACKENDS:
        simt.use(backend)
        _fences[1, 1](a)
        assert a.tolist() == [1, 2, 3]


def test_boundscheck_option() -> None:
    """Bounds checks are on by default under cuda.jit too; boundscheck=False turns them off."""

    def write_past(a):
        a[cuda.grid(1)] = 1

    checked = cuda.jit(write_past)
    with pytest.raises(simt.KernelError, match="out of bounds"):
        checked[1, 8](np.zeros(4, np.int32))
    assert cuda.jit(boundscheck=False)(write_past).kernel(0).boundscheck is False


@cuda.jit
def _numba_types_shared(v, out):
    tmp = cuda.shared.array(8, dtype=numba_types.float32)
    i = cuda.threadIdx.x
    tmp[i] = v[i]
    cuda.syncthreads()
    out[i] = tmp[7 - i]


def test_numba_type_names_are_dtypes() -> None:
    """`from numba import types` -> `from simt import types`: Numba's names are simt's scalar
    types, usable as dtypes in kernels and in NumPy as Numba's are."""
    assert np.dtype(numba_types.float32) == np.float32
    assert np.zeros(3, numba_types.int64).dtype == np.int64
    assert numba_types.intp is numba_types.int64 and numba_types.float_ is numba_types.float32
    simt.use("sim")
    out = np.zeros(8, np.float32)
    _numba_types_shared[1, 8](np.arange(8, dtype=np.float32), out)
    assert list(out) == list(range(7, -1, -1))
