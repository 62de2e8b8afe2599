"""The cpu runtime's compilation: the disk cache (a hit compiles nothing), the fingerprint it is
keyed by, the optimisation level, and LLVM's diagnostics kept off the terminal."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.errors import KernelError
from simt.ir.nodes import FAILURE_BUFFER
from simt.runtime import registry

ok, why = registry.probe("cpu")
if not ok:
    pytest.skip(f"cpu backend not present: {why}", allow_module_level=True)

from simt.runtime import cpu, cpu_cache  # noqa: E402 - only once llvmlite is known to be there


@pytest.fixture
def cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[Any]:
    """The cpu backend with an empty disk cache of its own (the cache folder is returned)."""
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("SIMT_CACHE", raising=False)
    simt.use("cpu")
    yield tmp_path


def scale(a, out, k):  # type: ignore[no-untyped-def]
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(out):
        out[i] = a[i] * k


def talk(a):  # type: ignore[no-untyped-def]
    i = block_idx.x * block_dim.x + thread_idx.x
    if i % 3 == 1:
        print("thread", i, f"value {a[i]:.2f}")


def checked(a):  # type: ignore[no-untyped-def]
    i = block_idx.x * block_dim.x + thread_idx.x
    assert a[i] >= 0, "negative input"


def _forbid_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: Any, **__: Any) -> Any:
        raise AssertionError("optimised or compiled again despite the disk cache")

    for name in ("optimise", "_object"):
        monkeypatch.setattr(cpu.CpuRuntime, name, fail)


def test_a_cache_hit_optimises_and_compiles_nothing(
    cached: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = np.arange(300, dtype=np.float32)
    out = np.zeros_like(a)
    simt.kernel(scale)[2, 256](a, out, 2.0)
    assert len(list((cached / "cpu").iterdir())) == 1
    _forbid_compiling(monkeypatch)
    # a new kernel object has no compiled code in memory: as in a second process
    simt.kernel(scale)[2, 256](a, out, 3.0)
    np.testing.assert_array_equal(out, a * 3)


def test_prints_and_errors_of_a_cached_kernel_are_described_as_before(
    cached: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    a = np.linspace(0, 1, 12).astype(np.float32)
    simt.kernel(talk)[3, 4](a)
    simt.synchronize()
    first = capsys.readouterr().out
    bad = np.zeros(16, np.int32)
    bad[9] = -1
    with pytest.raises(KernelError) as e1:
        simt.kernel(checked)[2, 8](bad)
    # fresh kernel objects: code from the disk cache, formats and error sites rendered anew
    simt.kernel(talk)[3, 4](a)
    simt.synchronize()
    assert capsys.readouterr().out == first and "thread 1 value 0.09" in first
    with pytest.raises(KernelError) as e2:
        simt.kernel(checked)[2, 8](bad)
    assert (e2.value.block, e2.value.thread) == (e1.value.block, e1.value.thread) == (
        (1, 0, 0), (1, 0, 0))  # fmt: skip
    assert str(e2.value) == str(e1.value) and "negative input" in str(e2.value)


def _fn(f: Any, *args: Any) -> Any:
    k = simt.kernel(f)
    return k.specialised_ir(*args)[0]


def test_fingerprint_is_the_same_for_the_same_kernel_and_differs_for_another() -> None:
    a, out = np.zeros(8, np.float32), np.zeros(8, np.float32)
    one, two = _fn(scale, a, out, 2.0), _fn(scale, a, out, 2.0)
    assert one is not two and cpu.fingerprint(one) == cpu.fingerprint(two)
    assert cpu.fingerprint(_fn(scale, a, out.astype(np.float64), 2.0)) != cpu.fingerprint(one)
    i32 = np.zeros(8, np.int32)
    assert cpu.fingerprint(_fn(scale, i32, i32, 2)) != cpu.fingerprint(one)


def test_jammed_loops_are_optimised_at_o2_the_rest_at_o3() -> None:
    from corpus.k_matmul import matmul  # the naive matmul: a jammed dot product
    from simt.backends.llvm import render_lowered
    from simt.runtime.cpu import lower

    m = np.zeros((32, 32), np.float32)
    _, meta = render_lowered(lower(_fn(matmul.pyfunc, m, m, m)), block=(16, 16, 1))
    assert meta.jammed and cpu._level(meta) == 2
    v = np.zeros(8, np.float32)
    _, meta = render_lowered(lower(_fn(scale, v, v, 2.0)))
    assert not meta.jammed and cpu._level(meta) == 3


def test_register_tiled_kernels_are_optimised_at_o1(
    cached: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GEMM schedule's kernels (the packing kernels and the micro-kernel: `tile=True`
    loops, written out as they should run) compile at O1 with the vectorisers on."""
    from simt.tensor import i

    levels: list[int] = []
    compile_object = cpu.CpuRuntime._object

    def record(self: Any, text: str, level: int = 3) -> bytes:
        levels.append(level)
        return compile_object(self, text, level)

    monkeypatch.setattr(cpu.CpuRuntime, "_object", record)
    rng = np.random.default_rng(5)
    a, b = rng.random((37, 29), np.float32), rng.random((29, 41), np.float32)
    gemm = i("ik*kj~ijk") >> i("+ijk~ij | tile(i:4,j:16) pack(ik,kj)")
    np.testing.assert_allclose(gemm.exec(a, b), a @ b, rtol=1e-5)
    assert levels == [1, 1, 1]  # two packing kernels, the GEMM
    levels.clear()
    v = np.arange(300, dtype=np.float32)
    simt.kernel(scale)[2, 256](v, np.zeros_like(v), 2.0)
    assert levels == [3]


# a loop LLVM is told to vectorise but cannot (it calls an unknown function): LLVM prints a
# remark and a warning to file descriptor 2 while optimising it
_UNVECTORISABLE = """
declare void @ext(i64)
define void @simt_run(ptr %args, ptr %ctx, i64 %begin, i64 %end) {
entry:
  br label %loop
loop:
  %i = phi i64 [%begin, %entry], [%i1, %loop]
  call void @ext(i64 %i)
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %end
  br i1 %c, label %loop, label %done, !llvm.loop !0
done:
  ret void
}
!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.vectorize.enable", i1 true}
"""


def test_llvm_remarks_and_warnings_never_reach_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    obj = cpu.CpuRuntime()._object(_UNVECTORISABLE)
    assert obj
    assert capfd.readouterr().err == ""


def test_other_stderr_output_during_compilation_is_passed_on(
    capfd: pytest.CaptureFixture[str],
) -> None:
    with cpu._quiet_llvm():
        os.write(2, b"remark: <unknown>:0:0: loop not vectorized: call instruction\n")
        os.write(2, b"someone else's line\n")
    assert capfd.readouterr().err == "someone else's line\n"


def test_the_disk_cache_is_keyed_by_the_rendered_llvm_text(
    cached: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same text hits (in a new kernel object, as in a second process); a renderer that
    writes different text for the same kernel misses: no hand-kept list of sources decides.
    (The entry that finds a variant by its IR, `cpu_cache`, is keyed on all of simt's source
    files: a renderer changed in this process stands for one whose file changed.)"""
    a = np.arange(300, dtype=np.float32)
    out = np.zeros_like(a)
    simt.kernel(scale)[2, 256](a, out, 2.0)
    simt.kernel(scale)[2, 256](a, out, 2.0)
    assert len(list((cached / "cpu").iterdir())) == 1
    render = cpu.render_lowered

    def changed(*args: Any, **kwargs: Any) -> Any:
        text, meta = render(*args, **kwargs)
        return text + "\n; a renderer that changed\n", meta

    monkeypatch.setattr(cpu, "render_lowered", changed)
    monkeypatch.setattr(cpu_cache, "lowering_digest", lambda: "a changed renderer's files")
    simt.kernel(scale)[2, 256](a, out, 2.0)
    assert len(list((cached / "cpu").iterdir())) == 2
    np.testing.assert_array_equal(out, a * 2)


def test_source_shows_the_lowering_a_launch_compiles() -> None:
    """`kernel.source("cpu")` and the launch path call the one lowering, `lower_and_render`."""
    k = simt.kernel(scale)
    a = np.arange(8, dtype=np.float32)
    fn = k.specialise(k.bind(a, a.copy(), 2.0), registry.get("cpu")).fn
    text = k.source("cpu", a, a.copy(), 2.0)
    # (`a[i]` keeps a check, the thread's IndexError: the launch's failure buffer is one
    # more contiguous array)
    assert text == cpu.lower_and_render(fn, frozenset({"a", "out", FAILURE_BUFFER}))[0]
    assert "define void @simt_run" in text


def _reduction_module(padding: int) -> str:
    """Eight loads summed in straight-line code (a horizontal reduction for the SLP
    vectoriser), and a function of `padding` more instructions beside it."""
    body = ["define i32 @sum8(ptr noalias %p) {"]
    for k in range(8):
        body += [f"  %a{k}.p = getelementptr i32, ptr %p, i64 {k}",
                 f"  %a{k} = load i32, ptr %a{k}.p, align 4"]  # fmt: skip
    body += ["  %s1 = add i32 %a0, %a1"]
    body += [f"  %s{k} = add i32 %s{k - 1}, %a{k}" for k in range(2, 8)]
    body += ["  ret i32 %s7", "}"]
    pad = ["define i64 @pad(i64 %x0) {"]
    pad += [f"  %x{k} = mul i64 %x{k - 1}, {k}" for k in range(1, padding + 1)]
    pad += [f"  ret i64 %x{padding}", "}"]
    return "\n".join(body + pad) + "\n"


def test_a_very_large_module_is_compiled_without_slp_horizontal_reductions() -> None:
    """LLVM's search for them grows faster than the module (the fuzzer's kernel 158 spent
    100 of its 116 s of compilation there): past `SLP_REDUCTIONS_MAX` instructions they are
    off, for that module only."""
    rt = registry.get("cpu")
    assert isinstance(rt, cpu.CpuRuntime)
    small = _reduction_module(10)
    big = _reduction_module(cpu.SLP_REDUCTIONS_MAX)
    assert cpu.instructions(small) < cpu.SLP_REDUCTIONS_MAX < cpu.instructions(big)
    assert "vector.reduce.add" in str(rt.optimise(small))
    assert "vector.reduce.add" not in str(rt.optimise(big))
    assert "vector.reduce.add" in str(rt.optimise(small))  # the option is back on
