"""The differential runner's comparison rules for the optional features' arrays, and the
webgpu refusals it records instead of failing (docs/testing.md)."""

from __future__ import annotations

import numpy as np
import pytest

from simt.errors import CompileError
from simt.runtime import nvrtc
from simt.testing.differential import _launch, _refusal_ok, compare
from simt.testing.generator import Generator, generate


def test_complex_parts_compare_exactly() -> None:
    w = np.array([1 + 2j, 3 - 1j], np.complex64)
    assert compare(0, "cpu", [w], [w.copy()], ("cz",)) == []
    g = w.copy()
    g[1] = 3 - 1.0000001j
    (f,) = compare(0, "cpu", [w], [g], ("cz",))
    assert f.kind == "mismatch" and "cz[3]" in f.detail  # the imaginary part of element 1


def test_float16_subnormals_may_flush_but_nothing_else_differs() -> None:
    w = np.array([1.5, 2.0**-20, 0.0], np.float16)
    g = np.array([1.5, 0.0, 2.0**-24], np.float16)
    assert compare(0, "webgpu", [w], [g], ("hf",)) == []
    g[0] = np.float16(1.5009765625)  # the next float16 after 1.5
    assert compare(0, "webgpu", [w], [g], ("hf",))


def test_two_dimensional_outputs_compare_element_by_element() -> None:
    w = np.zeros((3, 2), np.int32)
    g = w.copy()
    g[2, 1] = 1
    (f,) = compare(0, "cpu", [w], [g], ("vo",))
    assert "vo[5]" in f.detail


def test_only_a_refusal_naming_a_type_the_kernel_uses_is_recorded() -> None:
    p = Generator(5, dtypes=True, complexes=False, views=False).program()
    used = sorted(p.refusable_types)
    assert used
    named = CompileError(f"{used[0]} arrays and values are not supported on webgpu yet")
    assert _refusal_ok(p, "webgpu", named)
    assert not _refusal_ok(p, "cpu", named)
    other = {"int8", "uint8", "int16", "uint16", "float16", "uint64", "complex128"} - set(used)
    if other:
        t = sorted(other)[0]
        wrong = CompileError(f"{t} arrays and values are not supported on webgpu yet")
        assert not _refusal_ok(p, "webgpu", wrong)
    assert not _refusal_ok(p, "webgpu", CompileError("expected a number, got an array"))


def test_printed_zeros_compare_without_their_sign() -> None:
    from simt.testing.differential import _unsigned_zeros

    assert _unsigned_zeros("p -0.0 (-0.0, 3)") == _unsigned_zeros("p 0.0 (0.0, 3)")
    assert _unsigned_zeros("p -0.05 -1.0 -0.001") == "p -0.05 -1.0 -0.001"


def test_out_of_bounds_kernels_expect_a_kernel_error_naming_the_array() -> None:
    """The `oob` option's verdicts: the grouped KernelError of threads that raised
    IndexError naming the access's array passes (and the first-failure report of a kernel
    with barriers); no error is `silent`, another array or another error `wrong-error`."""
    from simt.errors import KernelError, LaunchError, ThreadFailure
    from simt.testing.differential import _form, _oob_finding
    from simt.testing.generator import generate

    p = generate(5, oob=True, size=4)
    assert p.oob is not None
    array = p.oob[0]
    msg = f"index 64 is out of bounds of `{array}` with size 64"
    first = ThreadFailure(64, (1, 0, 0), (0, 0, 0), "IndexError", msg, "k.py", 9)
    ok = KernelError.grouped([first], [(first, 1)], 63, {})
    assert _oob_finding(p, "cpu", ok) is None
    # the first-failure report (kept by kernels whose threads meet at barriers and whose
    # unproven accesses are all tested once per block) names the array too; a backend whose
    # form differs from sim's is a `mismatch` (`expect_oob`)
    old = KernelError(f"index out of bounds in array read of `{array}` (index 64, length 64)")
    assert _oob_finding(p, "cpu", old) is None
    assert _form(old) != _form(ok)
    odd = KernelError(f"assertion failed reading `{array}`")
    assert _oob_finding(p, "cpu", odd).kind == "wrong-error"  # type: ignore[union-attr]
    silent = _oob_finding(p, "cpu", None)
    assert silent is not None and silent.kind == "silent" and f"`{array}`" in silent.detail
    other = KernelError("index out of bounds in array read of `zz` (index 64, length 64)")
    wrong = _oob_finding(p, "webgpu", other)
    assert wrong is not None and wrong.kind == "wrong-error"
    wrong = _oob_finding(p, "webgpu", LaunchError("bad grid"))
    assert wrong is not None and wrong.kind == "wrong-error"


def test_a_worker_that_crashes_or_hangs_is_a_finding_and_the_next_kernel_runs() -> None:
    import sys

    from simt.testing.isolated import Child

    dies = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"  # no core dump: quick
    crash = Child((), False, 60, (sys.executable, "-c", dies))
    found, _ = crash.check(7, {}, [])
    assert [f.kind for f in found] == ["crash"] and "status" in found[0].detail
    found, _ = crash.check(8, {}, [])  # a new worker for the next kernel
    assert found[0].seed == 8 and found[0].kind == "crash"
    hang = Child((), False, 1, (sys.executable, "-c", "import time; time.sleep(60)"))
    found, _ = hang.check(9, {}, [])
    assert [f.kind for f in found] == ["hang"]
    real = Child(("cpu",), False, 300)
    refused: list = []
    found, features = real.check(3, {"oob": True, "size": 4}, refused)
    real.close()
    assert found == [], found


def test_printed_strings_compare_whole_even_when_a_launch_would_stream(monkeypatch) -> None:
    """Under load a launch runs past SIMT_STREAM_PRINT and would stream its prints, whose
    batches of two threads may interleave (a run-time string prints a character a record):
    the runner takes each backend's whole output instead (seed 10 printed three threads'
    strings interleaved on sim and failed the gate's fuzz run on a loaded machine)."""
    from simt.testing.differential import load
    from simt.testing.generator import from_source

    monkeypatch.setenv("SIMT_STREAM_PRINT", "0")  # stream from the first record on
    src = (
        '"""three threads print a run-time string."""\n\nimport simt\n'
        "from simt import thread_idx\n\nLAUNCH = {'seed': 0, 'grid': 3, 'block': 4, "
        "'fp64': False}\nNSLOT_fo = 1\nNSLOT_io = 1\nNSLOT_uo = 1\nNSLOT_fx = 1\n\n@simt.kernel\n"
        "def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1):\n    i = simt.grid(1)\n"
        "    s = '<' + str(i) + '>'\n    if thread_idx.x == 1:\n        print(s)\n"
        "    io[i] = i\n"
    )
    program = from_source(src)
    kernel = load(program)
    outs = {b: _launch(kernel, program, b)[1] for b in ("sim", "cpu")}
    assert outs["sim"] == outs["cpu"] == "<1>\n<5>\n<9>\n"


@pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")
def test_nvrtc_compiles_what_the_cuda_runtime_would(monkeypatch) -> None:
    """The NVRTC check compiles the IR the CUDA runtime compiles, by its capabilities: warp
    functions as CUDA's intrinsics (not through shared memory, as for a runtime without warp
    instructions), and a Numba-spelled kernel under Numba's typing (the check's stand-in
    runtime had no device answers: an AttributeError finding for every such kernel)."""
    from simt.backends import cuda
    from simt.testing.differential import load, nvrtc_findings

    sources: list[str] = []
    build = cuda.build
    monkeypatch.setattr(cuda, "build", lambda fn: sources.append(build(fn).source) or build(fn))
    p = generate(2, lang=True)
    assert "warp" in p.features
    assert nvrtc_findings(load(p), p) == []
    assert any(w in sources[-1] for w in ("__shfl", "__ballot", "__all_sync", "__any_sync"))
    p = generate(0, numba=True)
    assert p.numba
    assert nvrtc_findings(load(p), p) == []


def test_a_loaded_program_goes_when_its_kernel_does() -> None:
    """`load` does not keep the program's module in sys.modules: a fuzz slice kept every
    kernel it made, and all each compiled on every backend, for the rest of the run (mem11)."""
    import gc
    import sys
    import weakref

    from simt.testing.differential import load

    p = generate(3)
    kernel = load(p)
    assert not any(m.startswith(f"simt_fuzz_{p.seed}_") for m in sys.modules)
    _launch(kernel, p, "sim")
    gone = weakref.ref(kernel)
    del kernel
    gc.collect()
    assert gone() is None


_SCALARS = (
    '"""scalar arguments into every output."""\n\nimport simt\n\n'
    "LAUNCH = {'seed': 0, 'grid': 2, 'block': 32, 'fp64': False}\nNSLOT_fo = 1\nNSLOT_io = 1\n"
    "NSLOT_uo = 1\nNSLOT_fx = 1\n\n@simt.kernel\n"
    "def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1):\n    i = simt.grid(1)\n"
    "    io[i] = ia[i] * s0\n    uo[i] = ua[i] + s1\n    fo[i] = fa[i]\n"
)


def test_the_second_launch_takes_the_cached_path_and_is_judged(monkeypatch, ordinary) -> None:
    """Each backend runs the kernel twice through one launcher: on cpu the second launch is the
    native fast launch (no ordinary `Kernel.launch`), and a wrong answer there is a finding."""
    from simt.runtime import cpu_fast
    from simt.testing.differential import check
    from simt.testing.generator import from_source

    program = from_source(_SCALARS)
    assert check(program, ("cpu",), False) == []
    assert len(ordinary) == 2  # sim's launch and cpu's first; cpu's second was the fast one

    real_function = cpu_fast.function

    def off_by_one(method: object, table: object) -> object:  # a fast path with a bug
        run = real_function(method, table)

        def wrong(args: tuple) -> int:
            status = run(args)
            args[4][0] += 1  # io[0]
            return status

        return wrong

    monkeypatch.setattr(cpu_fast, "function", off_by_one)
    found = check(from_source(_SCALARS), ("cpu",), False)
    assert [f.kind for f in found] == ["mismatch"], found
    assert found[0].detail.startswith("second launch: io[0]"), found


def test_an_out_of_bounds_kernel_must_fail_at_its_second_launch_too(monkeypatch) -> None:
    """What a failed launch leaves behind must not change the next one: a second launch that
    raised nothing is a `silent` finding of that launch."""
    from simt.testing import differential
    from simt.testing.generator import generate

    program = generate(5, oob=True, size=4)
    assert differential.check(program, ("cpu",), False) == []
    real = differential._launch
    calls: list[str] = []

    def second_is_silent(kernel: object, program: object, backend: str) -> object:
        calls.append(backend)
        if calls.count("cpu") == 2:
            return [], ""
        return real(kernel, program, backend)  # type: ignore[arg-type]

    monkeypatch.setattr(differential, "_launch", second_is_silent)
    found = differential.check(program, ("cpu",), False)
    assert [(f.backend, f.kind) for f in found] == [("cpu", "silent")], found
    assert found[0].detail.startswith("second launch: no KernelError"), found
