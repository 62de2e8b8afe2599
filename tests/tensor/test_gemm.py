"""The register-tiled GEMM schedule (`tile`, `vector`, `block`, `pack`, `unroll`): the same
results as NumPy on every backend, at edge sizes and in every operand layout; CUDA's source
compiles with NVRTC; the CPU's tile loop stays one lane wide; bad directives are errors."""

from __future__ import annotations

import copy
import re
from dataclasses import replace

import numpy as np
import pytest

import simt
from simt.backends import cuda
from simt.ir import walk
from simt.runtime import nvrtc, registry
from simt.runtime.cuda import nvrtc_options
from simt.tensor import i
from simt.tensor.run import compile_for, prepare_inputs


def rand(shape: tuple[int, ...], seed: int, dtype: type = np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# (product, reduction with its schedule, how NumPy computes it from the two inputs)
CASES = [
    ("ik*kj~ijk", "+ijk~ij | tile(i:4,j:8)", lambda a, b: a @ b),
    ("ik*kj~ijk", "+ijk~ij | tile(i:3,j:8) pack(kj)", lambda a, b: a @ b),
    (
        "ik*kj~ijk",
        "+ijk~ij | tile(i:2,j:4) block(k:3,i:4) pack(ik,kj) unroll(k:2)",
        lambda a, b: a @ b,
    ),
    ("ik*kj~ijk", "+ijk~ij | tile(i:4,j:2) vector(i) pack(kj)", lambda a, b: a @ b),
    ("ik*jk~ijk", "+ijk~ij | tile(i:2,j:8) pack(jk) unroll(k:3)", lambda a, b: a @ b.T),
    ("ik*kj~ijk", "+ijk~ij | tile(i:2,j:4) block(k:4,i:4,j:12) pack(ik,kj)", lambda a, b: a @ b),
    ("ki*kj~ijk", "+ijk~ij | tile(i:4,j:4) block(k:5) pack(ki)", lambda a, b: a.T @ b),
    ("ij*jk~ikj", "+ikj~ik | tile(i:2,k:8) pack(ij,jk)", lambda a, b: a @ b),
    ("ik*kj~ijk", "+ijk~ji | tile(i:4,j:8) pack(kj)", lambda a, b: (a @ b).T),
    ("ik*jk~ijk", "+ijk~ij | tile(i:4,j:4) vector(k)", lambda a, b: a @ b.T),  # the dot form
    ("ik*kj~ijk", "+ijk~ij | tile(i:2,j:3) vector(k:4) block(i:4,j:6)", lambda a, b: a @ b),
]


def _inputs(product: str, m: int, k: int, n: int, dtype: type = np.float32) -> tuple:
    sizes = {"ik*kj": ((m, k), (k, n)), "ik*jk": ((m, k), (n, k)), "ki*kj": ((k, m), (k, n)),
             "ij*jk": ((m, k), (k, n))}  # fmt: skip
    sa, sb = sizes[product.split("~")[0]]
    return rand(sa, 1, dtype), rand(sb, 2, dtype)


@pytest.mark.parametrize("product,schedule,ref", CASES, ids=[c[1] for c in CASES])
@pytest.mark.parametrize("size", [(1, 1, 1), (13, 10, 9), (33, 17, 40), (5, 0, 9)])
def test_tiled_matmul_matches_numpy(product, schedule, ref, size, backend) -> None:  # type: ignore[no-untyped-def]
    a, b = _inputs(product, *size)
    got = (i(product) >> i(schedule)).exec(a, b)
    want = ref(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_float64_and_mixed_types(backend: str) -> None:
    a, b = rand((9, 7), 1, np.float64), rand((7, 11), 2)
    mm = i("ik*kj~ijk") >> i("+ijk~ij | tile(i:2,j:4) pack(ik,kj)")
    try:
        got = mm.exec(a, b)
    except simt.CompileError as e:  # an adapter without float64
        pytest.skip(str(e))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, a @ b.astype(np.float64), rtol=1e-12)


def test_schedule_text_round_trips() -> None:
    mm = i("ik*kj~ijk") >> i("+ijk~ij | tile(i:6,j:32) block(k:256,i:96) pack(ik,kj) unroll(k:2)")
    text = mm.text()
    assert "tile(i:6,j:32) block(k:256,i:96) pack(ik,kj) unroll(k:2)" in text
    a, b = rand((5, 4), 1), rand((4, 3), 2)
    again = eval(text, {"i": i})  # noqa: S307 - the component's own text
    np.testing.assert_allclose(again.exec(a, b), mm.exec(a, b))


def test_source_names_the_kernels() -> None:
    a, b = rand((8, 8), 1), rand((8, 8), 2)
    src = (i("ik*kj~ijk") >> i("+ijk~ij | tile(i:2,j:4) pack(kj)")).source("ir", a, b)
    assert "register-tiled GEMM: tile(i:2,j:4) pack(kj)" in src
    assert "tile=True" in src  # the micro-kernel's loop
    assert src.count("kernel t1") == 2  # the packing kernel, then the GEMM


def test_cpu_tile_loop_runs_one_lane_at_a_time() -> None:
    """The SPMD lowering keeps the tile loop one lane wide (its accumulators in registers)
    and runs it inside the thread loop; the kernel is never coarsened."""
    from simt.passes.spmd import can_coarsen
    from simt.runtime.cpu import lower

    a = rand((16, 16), 1)
    mm = i("ik*kj~ijk") >> i("+ijk~ij | tile(i:2,j:4) pack(ik,kj)")
    prog, _ = compile_for(mm.graph, prepare_inputs([a, a], registry.get("sim")), "cpu")
    fn = prog.steps[0].kernel.fn
    assert fn is not None and not can_coarsen(fn)
    loops = [o for o in walk(lower(fn).body) if o.opcode == "for" and o.attrs.get("tile")]
    assert len(loops) == 1 and loops[0].attrs.get("jammed")
    assert len(loops[0].results) == 2 * 4  # one copy of the tile: a lane at a time


@pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")
@pytest.mark.parametrize("product,schedule,ref", CASES, ids=[c[1] for c in CASES])
def test_compiles_to_cubin(product, schedule, ref) -> None:  # type: ignore[no-untyped-def]
    a, b = _inputs(product, 8, 8, 8)
    comp = i(product) >> i(schedule)
    prog, _ = compile_for(comp.graph, prepare_inputs([a, b], registry.get("sim")), "cuda")
    for step in prog.steps:
        for kernel in [*(k for _, k in step.packs), step.kernel]:
            assert kernel.fn is not None
            kern = cuda.build(kernel.fn)
            nvrtc.compile_cubin(kern.source, "sm_90", nvrtc_options(kern))


BAD = [
    ("+ijk~ij | pack(kj)", "needs a `tile(...)` directive"),
    ("+ijk~ij | tile(i:4)", "takes both output axes"),
    ("+ijk~ij | tile(i:4,j:8) block(j:12)", "block the reduced axis"),
    ("+ijk~ij | tile(i:4,j:8) block(i:6)", "multiple of its tile factor"),
    ("+ijk~ij | tile(i:4,j:8) pack(ij)", "names no operand"),
    ("+ijk~ij | tile(i:4,j:8) unroll(i:2)", "unrolls the reduced axis"),
    ("+ijk~ij | tile(i:4,j:8) vector(i,j)", "names one axis of the tile"),
    ("+ijk~ij | tile(i:4,j:8) vector(k) pack(kj)", "takes no `block"),
    ("+ijk~ij | tile(i:4,j:8) vector(k) unroll(k:2)", "takes no `unroll"),
    ("+ijk~ij | tile(i:8,j:8) vector(k)", "8 x 8 x 16 lanes is too large"),
    ("+ijk~ij | tile(i:32,j:32)", "too large"),
]


@pytest.mark.parametrize("schedule,message", BAD, ids=[b[0] for b in BAD])
def test_bad_directives_are_compile_errors(schedule: str, message: str) -> None:
    a = rand((4, 4), 1)
    with pytest.raises(simt.CompileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        (i("ik*kj~ijk") >> i(schedule)).exec(a, a)


@pytest.mark.parametrize(
    "expr,message",
    [
        ("+ijk~ij | tiles(i:4,j:8)", "unknown schedule directive `tiles`"),
        ("+ijk~ij | tile(i:4,j:8) tile(i:2,j:2)", "appears twice"),
        ("+ijk~ij | tile(i:4 j:8)", "expected `,` or `\\)`"),
    ],
)
def test_directive_syntax_errors(expr: str, message: str) -> None:
    with pytest.raises(simt.CompileError, match=message):
        i(expr)


def test_tile_needs_a_contraction() -> None:
    with pytest.raises(simt.CompileError, match="schedules a matmul"):
        i("ij*ij~ij | tile(i:2,j:2)").exec(rand((3, 3), 1), rand((3, 3), 2))


def test_model_prefers_a_full_register_tile() -> None:
    """The analytic model ranks an 8 x 32 AVX-512 tile (16 vector accumulators) above a thin
    one (2 x 64: 8 accumulators, latency-bound) and above one that spills (16 x 32)."""
    from simt.tensor import gemm
    from simt.tensor.graph import Graph

    def est(sched: str) -> float:
        g: Graph = (i("ik*kj~ijk") >> i("+ijk~ij | " + sched)).graph
        reads = [("in", 0), ("in", 1)]
        t = gemm.tiling(g, 1, reads)  # type: ignore[arg-type]
        assert t is not None
        return gemm.estimate(t, {"i": 1024, "j": 1024, "k": 1024}, 16, 2, True)

    good = est("tile(i:8,j:32) block(k:256,i:96) pack(ik,kj)")
    assert good < est("tile(i:2,j:64) block(k:256,i:96) pack(ik,kj)")
    assert good < est("tile(i:16,j:32) block(k:256,i:96) pack(ik,kj)")
    assert good < est("tile(i:8,j:32) block(k:256,i:96)")  # unpacked panels


def test_tune_measures_gemm_schedules_and_the_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    """tune() on a contraction measures register-tiled candidates against the default (small
    tiles here, to compile fast), and a written schedule against no schedules at all."""
    from simt.tensor import gemm, tune

    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(gemm, "CPU_TILES", ((2, 16), (4, 16)))
    monkeypatch.setattr(gemm, "CPU_KC", (16,))
    monkeypatch.setattr(gemm, "CPU_MC", (8,))
    monkeypatch.setattr(tune, "GEMM_MIN_WORK", 0)
    simt.use("cpu")
    a, b = rand((40, 24), 1), rand((24, 40), 2)
    peer = i("ik*kj~ijk | i:4,j:4 | ii'jj'k") >> i("+ijk~ij | i:4,j:4 | ii'jj'!k0")
    found = peer.tune(a, b, budget=30.0)
    times = found.tuning.times  # type: ignore[attr-defined]
    assert "default" in times and "no schedules" in times
    assert any("tile(i:" in label for label in times)
    np.testing.assert_allclose(found.exec(a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_cpu_one_thread_blocks_need_no_thread_loops() -> None:
    """Launched with blocks of one thread (as tensor launches it), the GEMM kernel's CPU form
    is its body as written: no thread loops, no per-lane spills, thread index 0."""
    from simt.runtime.cpu import lower

    a = rand((16, 16), 1)
    mm = i("ik*kj~ijk") >> i("+ijk~ij | tile(i:2,j:4) pack(ik,kj)")
    prog, _ = compile_for(mm.graph, prepare_inputs([a, a], registry.get("sim")), "cpu")
    fn = prog.steps[0].kernel.fn
    assert fn is not None
    ops = list(walk(lower(fn, 1, (1, 1, 1)).body))
    assert not any(o.attrs.get("lanes") or o.attrs.get("spill") for o in ops)
    assert not any(o.opcode == "special" and o.attrs["reg"] == "thread_idx" for o in ops)
    assert any(o.opcode == "for" and o.attrs.get("tile") for o in ops)


def test_no_launch_advice_for_one_thread_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CPU runs a GEMM thread as a block of one thread on purpose: no advice about it."""
    import warnings

    monkeypatch.setenv("SIMT_ADVICE", "on")
    simt.use("cpu")
    a = rand((20, 20), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (i("ik*kj~ijk") >> i("+ijk~ij | tile(i:2,j:8) pack(ik,kj)")).exec(a, a)


@pytest.mark.parametrize("backend_name", ["cuda", "webgpu"])
def test_gpu_form_stages_panels_in_shared_memory(backend_name: str) -> None:
    """On GPUs the same schedule is blocks of 8 x 8 threads, each with its register block,
    staging both operands' k panels in shared memory between barriers."""
    a = rand((16, 16), 1)
    mm = i("ik*kj~ijk") >> i("+ijk~ij | tile(i:4,j:4) block(k:16)")
    prog, _ = compile_for(mm.graph, prepare_inputs([a, a], registry.get("sim")), backend_name)
    fn = prog.steps[0].kernel.fn
    assert fn is not None
    ops = list(walk(fn.body))
    shared = [o for o in ops if o.opcode == "alloc" and o.result.array.space == "shared"]
    assert len(shared) == 2 and sum(o.opcode == "barrier" for o in ops) == 2
    assert any(o.opcode == "for" and o.attrs.get("tile") and len(o.results) == 16 for o in ops)
    # `ik` runs along k: staged k fastest (neighbouring threads, neighbouring words), its
    # shared rows one word longer (the stores of a column hit distinct banks); `kj` as it lies
    assert sorted(o.result.array.shape for o in shared) == [(16, 32), (16, 33)]


def test_cpu_micro_kernel_multiply_adds_may_fuse() -> None:
    """The micro-kernel's multiply-adds are marked `contract`, which the CPU's LLVM fuses
    into FMA instructions (other kernels' arithmetic is not marked)."""
    a = rand((16, 16), 1)
    src = (i("ik*kj~ijk") >> i("+ijk~ij | tile(i:2,j:4) pack(ik,kj)")).source("cpu", a, a)
    assert "fmul contract" in src and "fadd contract" in src
    plain = (i("ik*kj~ijk") >> i("+ijk~ij")).source("cpu", a, a)
    assert "contract" not in plain


def test_gemm_kernels_skip_the_bounds_search() -> None:
    """A GEMM's and its packings' accesses are in bounds by construction and marked so: the
    kernels say `boundscheck=False`, so the bounds pass (whose search over a micro-kernel's
    hundreds of accesses was most of its compile) has nothing to do, and no access is left
    unmarked."""
    from simt.pipeline import for_runtime

    a = rand((20, 20), 1)
    mm = i("ik*kj~ijk") >> i("+ijk~ij | tile(i:4,j:8) pack(ik,kj)")
    prog, _ = compile_for(mm.graph, prepare_inputs([a, a], registry.get("sim")), "cpu")
    kernels = [prog.steps[0].kernel, *(k for _, k in prog.steps[0].packs)]
    assert len(kernels) == 3
    for kernel in kernels:
        fn = kernel.fn
        assert fn is not None and not fn.boundscheck
        fn = for_runtime(copy.deepcopy(fn), registry.runtime_class("cpu"))
        assert "bounds" not in fn.attrs  # the pass did not run
        memory = [o for o in walk(fn.body) if o.opcode in ("load", "store")]
        assert memory and all(o.attrs.get("inbounds") for o in memory)


def _cpu_as(monkeypatch: pytest.MonkeyPatch, threads: int, lanes: int) -> None:
    """The cpu runtime as one with `threads` threads and vectors of `lanes` float32 lanes (what
    the default schedules depend on)."""
    simt.use("cpu")
    rt = registry.current()
    facts = rt.device_facts()
    monkeypatch.setattr(rt, "threads", threads)
    monkeypatch.setattr(rt, "device_facts", lambda: replace(facts, group_width=lanes))


@pytest.mark.parametrize("threads,lanes", [(1, 16), (2, 16), (1, 8)])
def test_default_schedule_of_a_large_contraction(
    monkeypatch: pytest.MonkeyPatch, threads: int, lanes: int
) -> None:
    """On the CPU a contraction with no directives gets a GEMM schedule when it has enough
    work (or a long axis: attention's q·kᵀ and P·v): the packed broadcast one in any layout,
    k blocked only for a large output; below `SERIAL_MAX_WORK` multiply-adds the vector
    operand alone is packed, in one thread or SMALL_PIECES blocks a thread, and where both
    operands run along k (q·kᵀ) and vectors hold 16 floats the dot micro-kernel instead, or
    with such vectors and a short k, neither operand packed when the vector one runs along the
    tile's columns (P·v); a
    peer's `| splits | order` is a hint it replaces; integer products and small ones keep the
    thread kernels. `sources` shows what ran; results match NumPy."""
    _cpu_as(monkeypatch, threads, lanes)
    q, k = rand((32, 1024), 1), rand((40, 1024), 2)
    p, v = rand((32, 32), 5), rand((32, 2048), 6)
    a, b = rand((256, 256), 3), rand((256, 256), 4)
    if lanes == 16:  # the dot micro-kernel, 8 lanes of float64
        qk = "tile(i:4,j:4) vector(k) block(i:8,j:32)"
        qk64 = "tile(i:4,j:4) vector(k:8) block(i:8,j:32)"
    else:  # one thread; q's rows read as they lie
        qk = qk64 = "tile(i:4,j:32) block(i:32,j:64) pack(jk)"
    # P: 4 KB, in L1; on two threads 8 blocks of 256 columns; with 16-float vectors v is read
    # where it lies (k of 32: its strips' panels are small), in strips of 4 vectors
    cols = 2048 if threads == 1 else 256
    pv = (f"tile(i:4,k:64) block(i:32,k:{cols})" if lanes == 16 else
          f"tile(i:4,k:32) block(i:32,k:{cols}) pack(jk)")  # fmt: skip
    cases = [
        (i("ik*jk~ijk") >> i("+ijk~ij"), (q, k), q @ k.T, qk),
        (i("ik*jk~ijk") >> i("+ijk~ij"), (q.astype(np.float64), k), q @ k.T, qk64),
        (i("ik*jk~ijk | i:16,j:16 | jii'j'k") >> i("+ijk~ij | i:16,j:16 | jii'j'k0"), (q, k),
         q @ k.T, qk),
        (i("ij*jk~ikj") >> i("+ikj~ik"), (p, v), p @ v, pv),
        (i("ik*kj~ijk") >> i("+ijk~ij"), (a, b), a @ b,
         "tile(i:4,j:32) block(i:64,j:256) pack(ik,kj)"),  # 2^24: threads; k of 256: one block
        (i("ik*kj~ijk") >> i("+ijk~ij"), (a[:64, :64], b[:64, :64]), a[:64, :64] @ b[:64, :64],
         None),
        (i("ik*kj~ijk") >> i("+ijk~ij"), (a.astype(np.int32), b.astype(np.int32)),
         a.astype(np.int32) @ b.astype(np.int32), None),
    ]  # fmt: skip
    for comp, args, want, directive in cases:
        text = comp.source("cpu", *args)
        if directive is None:
            assert "register-tiled GEMM" not in text
        else:
            assert "register-tiled GEMM" in text and directive in text
            assert "t1 = +i" in text and "| tile(" in text  # the heading: the schedule it ran
        np.testing.assert_allclose(comp.exec(*args), want, rtol=1e-4, atol=1e-4)
    # GPUs take their default only from 2^24 multiply-adds (below: thread kernels); sim, the
    # reference, keeps its kernels
    assert "register-tiled GEMM" not in cases[0][0].source("cuda", q, k)
    assert "register-tiled GEMM" not in cases[4][0].source("sim", a, b)


@pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")
def test_gpu_default_schedule_of_a_large_contraction() -> None:
    """On a GPU a contraction of 2^24 multiply-adds and more runs the shared-memory GEMM
    (`gemm.GPU_DEFAULT`: 8 x 4 register blocks, 16-deep panels) unless it has directives;
    CUDA's source compiles with NVRTC, and WebGPU (lavapipe here) computes it right."""
    a, b = rand((256, 256), 3), rand((256, 256), 4)
    mm = i("ik*kj~ijk") >> i("+ijk~ij")
    prog, _ = compile_for(mm.graph, prepare_inputs([a, b], registry.get("sim")), "cuda")
    assert prog.steps[0].kp.tiling is not None and not prog.steps[0].per_block
    text = mm.source("cuda", a, b)
    assert "register-tiled GEMM: tile(i:8,j:4) block(k:16)" in text
    fn = prog.steps[0].kernel.fn
    assert fn is not None
    kern = cuda.build(fn)
    nvrtc.compile_cubin(kern.source, "sm_90", nvrtc_options(kern))
    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"webgpu not present: {why}")
    simt.use("webgpu")
    try:
        assert "register-tiled GEMM: tile(i:8,j:4)" in mm.source("webgpu", a, b)
        got = mm.exec(a, b)
    finally:
        simt.use("cpu")
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_tune_searches_dot_kernels_and_measures_the_default_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """For q·kᵀ (both operands along k) tune's candidates include the dot micro-kernel; a
    candidate the default already runs (the default GEMM) is not compiled and measured a
    second time."""
    from simt.tensor import gemm, tune

    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(gemm, "CPU_TILES", ((1, 1),))  # ranked below the dot kernel
    monkeypatch.setattr(gemm, "CPU_KC", (16,))
    monkeypatch.setattr(gemm, "CPU_MC", (3,))
    monkeypatch.setattr(gemm, "CPU_NC", 1)
    monkeypatch.setattr(gemm, "DOT_TILES", ((4, 4),))
    # the default GEMM is then the one candidate of the broadcast form
    monkeypatch.setattr(gemm, "LONG_MIN_WORK", 0)
    monkeypatch.setattr(gemm, "LONG_AXIS", 0)
    monkeypatch.setattr(gemm, "BLOCK_K_MIN_OUTPUTS", 0)
    monkeypatch.setattr(gemm, "SERIAL_MAX_WORK", 0)  # the default's threads as a candidate's
    monkeypatch.setattr(gemm, "DEFAULT_TILE", (1, 1))
    monkeypatch.setattr(tune, "GEMM_MIN_WORK", 0)
    simt.use("cpu")
    q, k = rand((12, 80), 1), rand((10, 80), 2)
    found = (i("ik*jk~ijk") >> i("+ijk~ij")).tune(q, k, budget=30.0, verbose=True)
    out = capsys.readouterr().out
    assert "+ijk~ij | tile(i:1,j:1) block(k:16,i:3,j:1) pack(ik,jk): as default" in out
    times = found.tuning.times  # type: ignore[attr-defined]
    assert "default" in times and any("tile(i:4,j:4) vector(k)" in label for label in times)
    assert not any("tile(i:1,j:1)" in label for label in times)
    np.testing.assert_allclose(found.exec(q, k), q @ k.T, rtol=1e-5, atol=1e-5)


def test_model_ranks_dot_tiles() -> None:
    """The model prefers a 4 x 4 dot tile (16 accumulators) to a 2 x 2 one (latency-bound)."""
    from simt.tensor import gemm

    def est(tile: str) -> float:
        g = (i("ik*jk~ijk") >> i(f"+ijk~ij | {tile} vector(k)")).graph
        t = gemm.tiling(g, 1, [("in", 0), ("in", 1)])
        assert t is not None and t.dot == 16
        return gemm.estimate(t, {"i": 32, "j": 32, "k": 2048}, 16, 2, True)

    assert est("tile(i:4,j:4)") < est("tile(i:2,j:2)")


def test_cpu_dot_kernel_is_vectorised_along_k() -> None:
    """On the CPU the dot micro-kernel's loop takes one k a step, its adds `reassoc`, and
    LLVM's loop vectoriser makes the vectors: a step of its vectorised loop is 8 vector loads
    (4 rows of each operand) and 16 vector multiply-adds, with no shuffle (the lanes' sums are
    after the loop). Written out lane by lane, the SLP vectoriser grouped the accumulators
    across outputs: ~90 shuffles around 16 FMAs a step."""
    import re

    from simt.pipeline import finish
    from simt.tensor import gemm

    simt.use("cpu")
    q, k = rand((32, 2048), 1), rand((32, 2048), 2)
    comp = i("ik*jk~ijk") >> i("+ijk~ij | tile(i:4,j:4) vector(k) block(i:8,j:32)")
    prog, _ = compile_for(comp.graph, prepare_inputs([q, k], registry.current()), "cpu")
    t = prog.steps[0].kp.tiling
    assert t is not None and t.dot == 16
    fn = finish(gemm.lower_dot(t, *[simt.types.FLOAT32] * 3, "t1", per_block=True))
    opt = registry.current().render(fn, "opt", (1, 1, 1), heavy=True)  # type: ignore[call-arg]
    body = re.search(r"\nvector\.body:.*?\n\n", opt, re.S)
    assert body is not None, "the dot kernel's k loop was not vectorised"
    step = body.group(0)
    assert step.count("load <16 x float>") == 8
    assert len(re.findall(r"fadd reassoc contract <16 x float>", step)) == 16
    assert "shufflevector" not in step
    np.testing.assert_allclose(comp.exec(q, k), q @ k.T, rtol=1e-4, atol=1e-4)


def test_cpu_gemm_reads_an_unpacked_vector_operand_as_vectors() -> None:
    """A GEMM whose vector operand is not packed (P·v's default) reads a strip that reaches
    no edge at consecutive 64-bit indices: whole vector loads (at the clamped indices of an
    edge strip, or 32-bit ones, LLVM made gathers: 4x slower). Edge strips and rows, float64,
    and a long k still give NumPy's results."""
    from simt.pipeline import finish
    from simt.tensor import gemm

    simt.use("cpu")
    p, v = rand((32, 32), 1), rand((32, 2048), 2)
    comp = i("ij*jk~ikj") >> i("+ikj~ik | tile(i:4,k:64) block(i:32,k:2048)")
    prog, _ = compile_for(comp.graph, prepare_inputs([p, v], registry.current()), "cpu")
    t = prog.steps[0].kp.tiling
    assert t is not None and not (t.pack_u or t.pack_v) and not prog.steps[0].packs
    fn = finish(gemm.lower_gemm(t, *[simt.types.FLOAT32] * 3, "t1", per_block=True))
    opt = registry.current().render(fn, "opt", (1, 1, 1), heavy=True)  # type: ignore[call-arg]
    loops = [b for b in opt.split("\n\n") if "!llvm.loop" in b and "fmul" in b]

    def whole_vectors(b: str) -> bool:
        """The strip of 64 floats read as whole vectors of the host's width (4 x 16 with
        AVX-512 on AMD; 8 x 8 on Intel, where LLVM prefers 256-bit vectors), no gather."""
        widths = [int(w) for w in re.findall(r"load <(\d+) x float>", b)]
        return bool(widths) and len(set(widths)) == 1 and sum(widths) == 64 and "gather" not in b

    assert any(whole_vectors(b) for b in loops)
    np.testing.assert_allclose(comp.exec(p, v), p.astype(np.float64) @ v, rtol=1e-4,
                               atol=1e-4)  # fmt: skip
    for (u, kk, w), dt in (((30, 32, 2000 + 13), np.float32), ((7, 5, 100), np.float64),
                           ((9, 300, 70), np.float32)):  # fmt: skip
        a, b = rand((u, kk), 3).astype(dt), rand((kk, w), 4).astype(dt)
        got = comp.exec(a, b)
        assert got.dtype == dt
        np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_cpu_packing_kernels_copy_vectors_and_stay_small() -> None:
    """On the CPU a packing thread copies a strip (or tile) for PACK_K values of k (blocks of
    one thread); an operand that runs along k is read PACK_LANES k at a time in a loop over
    the strip's positions, not written out for every position (512 loads for a strip of 32:
    LLVM then took seconds to compile q·kᵀ's packing)."""
    from simt.tensor import gemm

    q = rand((32, 300), 1)
    comp = i("ik*jk~ijk") >> i("+ijk~ij | tile(i:4,j:32) block(i:8) pack(ik,jk)")
    prog, ext = compile_for(comp.graph, prepare_inputs([q, q], registry.get("sim")), "cpu")
    step = prog.steps[0]
    assert [w for w, _ in step.packs] == ["u", "v"]
    for which, kernel in step.packs:
        fn = kernel.fn
        assert fn is not None
        loads = [o for o in walk(fn.body) if o.opcode == "load"]
        # per path (edge or not): PACK_LANES in the loop over positions, a unit's worth for
        # the k left over
        width = 4 if which == "u" else 32
        assert len(loads) == 2 * (gemm.PACK_LANES + width)
        grid, block = gemm.pack_launch(step.kp.tiling, which, ext[1], True)  # type: ignore[arg-type, misc]
        assert block == (1, 1) and grid[1] == -(-300 // gemm.PACK_K)
    np.testing.assert_allclose(comp.exec(q, q), q @ q.T, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("product,schedule,ref", [
    ("ik*jk~ijk", "+ijk~ij | tile(i:4,j:8) block(i:16,j:24) pack(ik,jk)", lambda a, b: a @ b.T),
    ("ik*kj~ijk", "+ijk~ij | tile(i:4,j:8) block(i:16,j:24) pack(ik,kj)", lambda a, b: a @ b),
])  # fmt: skip
def test_one_thread_gemm_packs_in_one_block(product, schedule, ref) -> None:  # type: ignore[no-untyped-def]
    """A GEMM of one thread (its `block` covers the output) packs each operand with one
    block too, whose thread takes every unit (tile or strip) and every PACK_K chunk of k, edge
    units clamped: the same results as NumPy (on `cpu`, where a thread is a block)."""
    from simt.tensor import gemm

    simt.use("cpu")
    a, b = _inputs(product, 13, 150, 22)  # 4 tiles of 4 rows, 3 strips of 8, 3 chunks of k
    comp = i(product) >> i(schedule)
    prog, ext = compile_for(comp.graph, prepare_inputs([a, b], registry.get("sim")), "cpu")
    step = prog.steps[0]
    t = step.kp.tiling
    assert t is not None and step.per_block and gemm.grid_of(t, ext[1]) == (1, 1)
    for which, _ in step.packs:
        assert gemm.pack_launch(t, which, ext[1], True) == ((1, 1), (1, 1))
    want = ref(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(comp.exec(a, b), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("threads", [1, 2])
def test_small_default_gemm_threads(monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    """FlashAttention's q·kᵀ and P·v (2^21 multiply-adds each): on one thread P·v's default
    GEMM is a block (no packing kernel: it reads v where it lies), and every launch runs on
    the calling thread (no pool launch at all); on two, SMALL_PIECES blocks a thread, shared
    with the pool's workers. The same results either way."""
    from simt.runtime import cpu_pool
    from simt.tensor import gemm

    _cpu_as(monkeypatch, threads, 16)
    rt = registry.current()
    pooled: list[int] = []
    real = cpu_pool.Pool.run

    def run(self: cpu_pool.Pool, *args: object) -> None:
        pooled.append(args[-1])  # type: ignore[arg-type]
        real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(cpu_pool.Pool, "run", run)
    q, k = rand((32, 2048), 1), rand((32, 2048), 2)
    p = rand((32, 32), 3)
    qkt = i("ik*jk~ijk") >> i("+ijk~ij")
    pv = i("ij*jk~ikj") >> i("+ikj~ik")
    for _ in range(3):
        np.testing.assert_allclose(qkt.exec(q, k), q @ k.T, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(pv.exec(p, k), p @ k, rtol=1e-4, atol=1e-4)
    grids = []
    for comp, args in ((qkt, (q, k)), (pv, (p, k))):
        prog, ext = compile_for(comp.graph, prepare_inputs(list(args), rt), "cpu")
        t = prog.steps[0].kp.tiling
        assert t is not None
        grids.append(gemm.grid_of(t, ext[1]))
        grids += [gemm.pack_launch(t, w, ext[1], True)[0] for w, _ in prog.steps[0].packs]  # type: ignore[index]
    if threads == 1:  # (q·kᵀ's dot kernel: 4 blocks, faster on one thread than one block)
        assert grids == [(1, 4), (1, 1)] and pooled == []
    else:  # q·kᵀ 4 blocks of 8 x 32, P·v 8 of 32 x 256
        assert grids == [(1, 4), (8, 1)]
