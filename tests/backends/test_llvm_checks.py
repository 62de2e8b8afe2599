"""The CPU's kept bounds checks (an index no proof covers, `passes/bounds/`). The front end
checks such an access as raising IndexError (`frontend/raising.py`): the failing thread stops,
the others finish, and the launch raises one grouped KernelError naming the array, the index,
the extent, the first failing thread and the line. The renderer's own checks (for accesses the
front end does not check: `build(..., raising=False)`) record a failure in a thread loop LLVM
may vectorise without a branch of their own (the smallest key in a min reduction, the index in
a per-lane slot: `_note_failure`), so the loop is still vector code."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt
from simt.ir import walk
from simt.pipeline import build, prepare
from simt.runtime import registry

pytest.importorskip("llvmlite.binding", reason="llvmlite (simt[cpu]) is not installed")


@simt.kernel
def gather(out, a, idx):
    i = simt.grid(1)
    if i < len(out):
        out[i] = a[idx[i]] * 2.0


@simt.kernel
def scatter(out, idx, x):
    i = simt.grid(1)
    if i < len(idx):
        out[idx[i]] = x[i]


@simt.kernel
def gather_2d(out, m, rows):
    x, y = simt.grid(2)
    if x < out.shape[1] and y < out.shape[0]:
        out[y, x] = m[rows[y, x], x]


def _opt(kernel: Any, *args: Any, raising: bool = True) -> str:
    specs = kernel.arg_specs(*args, backend="cpu")
    fn = prepare(build(kernel.pyfunc, specs, False, False, raising=raising), "cpu")  # as a launch
    return registry.get("cpu").render(fn, stage="opt")  # type: ignore[call-arg,no-any-return]


def test_a_thread_loop_with_a_kept_check_is_vectorised() -> None:
    n = 4096
    a, out = np.ones(256, np.float32), np.zeros(n, np.float32)
    opt = _opt(gather, out, a, np.zeros(n, np.int32), raising=False)
    assert "x float>" in opt and "masked.gather" in opt  # a vector gather, masked by the check
    assert "masked.store" not in opt  # the failure record is plain stores and a reduction


@simt.kernel
def tiled_pairs(out, xy):
    sh = simt.shared.array((64, 2), np.float32)
    acc = 0.0
    tile = 0
    for _ in range(0, xy.shape[0], 64):
        row = tile * simt.block_dim.x + simt.thread_idx.x  # past the end unless 64 | len
        sh[simt.thread_idx.x, 0] = xy[row, 0]
        sh[simt.thread_idx.x, 1] = xy[row, 1]
        simt.syncthreads()
        for j in range(simt.block_dim.x):
            acc += sh[j, 0] * sh[j, 1]
        simt.syncthreads()
        tile += 1
    out[simt.grid(1)] = acc


def test_two_kept_checks_in_one_thread_loop_keep_it_vectorised() -> None:
    """Two checked accesses in one thread loop (here in the checked copy of the body, which
    runs where the block test fails: nbody's tile loads kept these checks in the fast copy
    too until the bounds pass learned loop counters). With both sites' smallest keys chained
    on one accumulator LLVM vectorised no loop (it takes one min reduction per
    accumulator); each site has its own key now, and the loads are vector gathers."""
    n = 256
    xy = np.random.default_rng(3).random((n, 2)).astype(np.float32)
    out = np.zeros(n, np.float32)
    assert "masked.gather" in _opt(tiled_pairs, out, xy)
    with simt.using("cpu"):
        tiled_pairs[n // 64, 64](out, xy)
        np.testing.assert_allclose(out, (xy[:, 0] * xy[:, 1]).sum(), rtol=1e-4)
        short = xy[: n - 10]  # the last tile reads past it: row 246 first, at the first site
        want = r"`xy` \(index \(246, 0\), shape \(246, 2\)\)"
        with pytest.raises(simt.KernelError, match=want):
            tiled_pairs[n // 64, 64](out, short)


def test_the_first_failing_thread_is_reported_with_its_index() -> None:
    n, m = 5000, 300
    a = np.arange(m, dtype=np.float32)
    idx = np.arange(n, dtype=np.int32) % m
    idx[[4321, 1234, 1235, 3000]] = [-7, m + 5, m, -1]  # in two blocks of the launch
    out = np.zeros(n, np.float32)
    with simt.using("cpu"):
        with pytest.raises(simt.KernelError) as e:
            gather[(n + 127) // 128, 128](out, a, idx)
        msg = str(e.value)
        assert msg.startswith("4 threads raised IndexError at ")
        assert f"(first: thread 1234: index {m + 5} is out of bounds of `a` with size {m})" in msg
        assert (e.value.block, e.value.thread) == ((9, 0, 0), (82, 0, 0))  # 1234 = 9 * 128 + 82
        assert e.value.finished == n - 4 + (-n) % 128
        assert [f.thread for f in e.value.failures] == [1234, 1235, 3000, 4321]
        good = np.ones(n, bool)
        good[[4321, 1234, 1235, 3000]] = False
        np.testing.assert_array_equal(out[good], a[idx[good]] * 2)  # the others finished
        assert (out[~good] == 0).all()  # the failing threads stored nothing
        ok = idx.copy()
        ok[[4321, 1234, 1235, 3000]] = 0
        gather[(n + 127) // 128, 128](out, a, ok)  # the next launch is fine
    np.testing.assert_array_equal(out, a[ok] * 2)


def test_a_failing_store_writes_nothing() -> None:
    n = 3000
    out = np.full(n + 16, -1.0, np.float32)  # the last 16 stand for memory after the array
    view = out[:n]
    idx = np.arange(n, dtype=np.int32)[::-1].copy()
    idx[[10, 2000]] = [n + 3, n]
    with simt.using("cpu"):
        want = rf"2 threads raised IndexError .* index {n + 3} is out of bounds of `out` with "
        with pytest.raises(simt.KernelError, match=want + f"size {n}"):
            scatter[(n + 255) // 256, 256](view, idx, np.ones(n, np.float32))
    assert (out[n:] == -1.0).all()
    assert (out[:n] == 1.0).sum() == n - 2  # every other thread wrote its element


def test_two_dimensional_blocks_name_the_thread_and_both_indices() -> None:
    h, w = 12, 40
    m = np.arange(5 * w, dtype=np.float32).reshape(5, w)
    rows = np.zeros((h, w), np.int32)
    rows[7, 13] = 5
    rows[9, 2] = 6
    out = np.zeros((h, w), np.float32)
    with simt.using("cpu"):
        with pytest.raises(simt.KernelError) as e:
            gather_2d[(3, 2), (16, 8)](out, m, rows)
    assert "index 5 is out of bounds for axis 0 of `m` with size 5" in str(e.value)
    assert (e.value.block, e.value.thread) == ((0, 0, 0), (13, 7, 0))
    assert sorted(f.message for f in e.value.failures) == [
        "index 5 is out of bounds for axis 0 of `m` with size 5",
        "index 6 is out of bounds for axis 0 of `m` with size 5",
    ]



def _vector_body(opt: str) -> str:
    """The first vectorised loop body of optimised LLVM text."""
    start = opt.index("\nvector.body:")
    end = opt.index("\n\n", start)
    return opt[start:end]


@simt.kernel(division="python")
def floor_div(out, a, d):
    i = simt.grid(1)
    if i < len(out):
        out[i] = a[i] // d[i]  # ZeroDivisionError where d[i] == 0: the thread raises


def test_a_raising_threads_record_is_made_after_the_vectorised_loop() -> None:
    """A thread that may raise writes its failure record with atomics, which would keep the
    thread loop scalar; the renderer defers it (`_defer_record`): each lane stores its flag
    and the record's values into per-lane slots, and after the loop the lanes that raised
    make their records. The loop body is vector code without an atomic."""
    n = 4096
    args = (np.zeros(n, np.int32), np.ones(n, np.int32), np.ones(n, np.int32))
    specs = floor_div.arg_specs(*args, backend="cpu")
    fn = prepare(build(floor_div.pyfunc, specs, False, False, division="python"), "cpu")
    opt = registry.get("cpu").render(fn, stage="opt")  # type: ignore[call-arg]
    assert "atomicrmw" not in _vector_body(opt)
    assert "%recflag" in opt and "atomicrmw" in opt  # the records, after the loop
    a, d = np.arange(n, dtype=np.int32), np.ones(n, np.int32)
    d[[7, 1000, 4095]] = 0
    out = np.full(n, -1, np.int32)
    with simt.using("cpu"), pytest.raises(simt.KernelError) as e:
        floor_div[n // 128, 128](out, a, d)
    assert [f.thread for f in e.value.failures] == [7, 1000, 4095]
    assert {f.exception for f in e.value.failures} == {"ZeroDivisionError"}
    assert e.value.finished == n - 3
    good = d != 0
    np.testing.assert_array_equal(out[good], a[good])


@simt.kernel
def add(a, b, c):
    i = simt.grid(1)
    if i < len(a) and i < len(b) and i < len(c):
        c[i] = a[i] + b[i]


def test_the_failure_key_slot_is_made_only_where_a_check_uses_it() -> None:
    """`%failkey` (the branch-free checks' smallest failing key) was allocated in every cpu
    kernel; now only in one whose renderer records a check without a branch."""
    n = 4096
    x = np.zeros(n, np.float32)

    def llvm(kernel: Any, *args: Any, raising: bool = True) -> str:  # before LLVM's passes
        specs = kernel.arg_specs(*args, backend="cpu")
        fn = prepare(build(kernel.pyfunc, specs, False, False, raising=raising), "cpu")
        return registry.get("cpu").render(fn)  # type: ignore[no-any-return]

    a, idx = np.ones(256, np.float32), np.zeros(n, np.int32)
    assert "%failkey" not in llvm(add, x, x, x)  # every access proven
    assert "%failkey" not in llvm(gather, x, a, idx)  # the front end checks `a[idx[i]]`
    assert "%failkey" in llvm(gather, x, a, idx, raising=False)  # the renderer checks it


def test_a_kept_check_raising_indexerror_keeps_the_loop_vectorised() -> None:
    """The default path: `a[idx[i]]` is checked by the front end as the thread's IndexError;
    the failure record sinks into the guard (`passes.records`), which stays a range of
    threads, and the renderer makes it after the thread loop from per-lane slots
    (`_defer_record`): the loop is vector code with a masked gather and no atomic."""
    n = 4096
    a, out = np.ones(256, np.float32), np.zeros(n, np.float32)
    for kernel in (gather, gather_twice):
        opt = _opt(kernel, out, a, np.zeros(n, np.int32))
        body = _vector_body(opt)
        assert "masked.gather" in body and "atomicrmw" not in body, kernel
        assert "%recflag" in opt and "atomicrmw" in opt  # the records, after the loop


def test_a_deferred_indexerror_record_stores_only_the_index() -> None:
    """A lane's deferred record stores what the record cannot have otherwise: the front end's
    exception state is `select(raised, kind/index/length, 0)`, which is the first choice
    wherever a record is made; the kind is a constant and the length comes from before the
    loop. So a gather's IndexError stores its flag and its index (it stored three selected
    words, and LLVM reloaded pointers in the loop for want of registers), and the record
    still names the index and the length."""
    n = 4096
    a, out = np.ones(256, np.float32), np.zeros(n, np.float32)
    specs = gather.arg_specs(out, a, np.zeros(n, np.int32), backend="cpu")
    fn = prepare(build(gather.pyfunc, specs, False, False), "cpu")
    text = registry.get("cpu").render(fn)  # type: ignore[call-arg]
    # the function of the version whose block-level test proved `idx[i]` (the other, for
    # blocks that test fails, checks both accesses: its state is a select of selects)
    fast = text[text.index("@simt_fast(") : text.index("@simt_checked(")]
    slots = {line.split()[0] for line in fast.splitlines() if "= alloca" in line}
    assert {s for s in slots if s.startswith("%recval0.")} == {"%recval0.0"}, sorted(slots)
    idx = np.arange(n, dtype=np.int32) % 256
    idx[[5, 3000]] = [256, 9999]
    with simt.using("cpu"), pytest.raises(simt.KernelError) as e:
        gather[n // 256, 256](out, a, idx)
    assert [f.thread for f in e.value.failures] == [5, 3000]
    assert "index 256" in str(e.value) and "256" in str(e.value), str(e.value)
    good = np.ones(n, bool)
    good[[5, 3000]] = False
    np.testing.assert_array_equal(out[good], 2.0)


@simt.kernel
def gather_twice(out, a, idx):
    i = simt.grid(1)
    if i < len(out):
        j = idx[i]
        out[i] = a[j] * a[j] + a[j]  # one check, one load (`passes.cse`, `passes.fold`)


def test_a_repeated_access_is_checked_and_loaded_once() -> None:
    specs = gather_twice.arg_specs(
        np.zeros(8, np.float32), np.ones(8, np.float32), np.zeros(8, np.int32), backend="cpu"
    )
    fn = build(gather_twice.pyfunc, specs, False, False)
    loads = [op for op in walk(fn.body) if op.opcode == "load" and op.operands[0].hint == "a"]
    checks = [op for op in walk(fn.body) if op.attrs.get("array") == "a"]
    assert len(loads) == 1 and len(checks) == 2  # `j >= 0`, `j < len(a)`
    out = np.zeros(8, np.float32)
    a = np.arange(8, dtype=np.float32)
    idx = np.array([0, 1, 9, 3, 4, -1, 6, 7], np.int32)
    with simt.using("cpu"), pytest.raises(simt.KernelError) as e:
        gather_twice[1, 8](out, a, idx)
    assert [f.thread for f in e.value.failures] == [2, 5] and e.value.finished == 6
    good = np.array([0, 1, 3, 4, 6, 7])
    np.testing.assert_array_equal(out[good], a[idx[good]] ** 2 + a[idx[good]])
    assert out[2] == out[5] == 0


@simt.kernel
def bins(data, out):
    t = simt.thread_idx.x
    smem = simt.shared.array(16, np.int32)
    if t < 16:
        smem[t] = 0
    simt.syncthreads()
    for i in range(simt.block_idx.x * simt.block_dim.x + t, len(data),
                   simt.block_dim.x * simt.grid_dim.x):  # fmt: skip
        simt.atomic.add(smem, data[i], 1)  # a bin read from the data: a kept check
    simt.syncthreads()
    if t < 16:
        out[simt.block_idx.x, t] = smem[t]


def _blocks(text: str) -> dict[str, list[str]]:
    """LLVM text's basic blocks: label -> lines."""
    out: dict[str, list[str]] = {}
    cur: list[str] = []
    for line in text.splitlines():
        if line and not line.startswith((" ", ";", "define", "declare", "}", "!")) and (
            line.endswith(":")
        ):
            cur = out.setdefault(line[:-1], [])
        else:
            cur.append(line)
    return out


def test_a_kept_check_in_a_scalar_thread_loop_calls_nothing_in_the_loop() -> None:
    """A histogram's `smem[bin]` (a barrier in the kernel: the renderer checks it, in a thread
    loop that its atomic keeps scalar): its failure path keeps the smallest key and that key's
    index in registers, and the report (`@simt.fail.at`, a call) is made after the loop. A
    call in the loop kept LLVM from unrolling it (bench/user_kernels/histogram.py: unrolled
    4x with checks off, not at all on). The report is what it was: the failing thread with
    the smallest id and its first bad index; the block's other threads' bins are counted
    (the launch stops after the failing block)."""
    n = 5000
    data = (np.arange(n) % 16).astype(np.int32)
    out = np.zeros((4, 16), np.int32)
    specs = bins.arg_specs(data, out, backend="cpu")
    fn = prepare(build(bins.pyfunc, specs, False, False), "cpu")
    text = registry.get("cpu").render(fn)  # type: ignore[call-arg]
    calls = [label for label, lines in _blocks(text).items()
             if any("call void @simt.fail.at" in x for x in lines)]  # fmt: skip
    assert calls and all(label.startswith("report") for label in calls), calls
    bad = {4100: -3, 1234: 16, 1300: 99, 3000: 17, 4356: 20}  # 4100 and 4356: one thread
    for i, v in bad.items():
        data[i] = v
    with simt.using("cpu"), pytest.raises(simt.KernelError) as e:
        bins[4, 64](data, out)
    # thread 4 of block 0 (i = 4100 = 16 * 256 + 4, then 4356): the smallest failing thread
    assert (e.value.block, e.value.thread) == ((0, 0, 0), (4, 0, 0))
    assert "(index -3, length 16)" in str(e.value), str(e.value)
    mine = np.arange(n) % 256 < 64  # block 0's elements
    mine[list(bad)] = False
    np.testing.assert_array_equal(out[0], np.bincount(data[mine], minlength=16))


def _harris_reduce4() -> Any:
    """Harris's reduce4 as `bench/user_kernels/reductions.py` has it (the kernel #23 measured)."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "user_kernels" / "reductions.py"
    spec = importlib.util.spec_from_file_location("_bench_reductions", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # (its dataclasses look their module up)
    spec.loader.exec_module(mod)
    return mod.harris_reduce4


def test_the_unchecked_copy_compiles_as_the_unchecked_kernel_does() -> None:
    """Every access of this reduction is proven or tested once per block, so the copy of its
    versioned body that blocks passing the test run (`simt_fast`) is the kernel with
    `boundscheck=False`, and its machine code must be that kernel's, instruction for
    instruction: with the block test inside it, its operands stayed live across the block
    loop and cost harris_reduce4 5-14 % (#23); with both copies in one function,
    harris_reduce2 20-45 %."""
    import re

    kernel = _harris_reduce4()
    a, out = np.ones(1 << 14, np.float32), np.zeros(32, np.float32)
    specs = kernel.arg_specs(a, out, backend="cpu")
    rt = registry.get("cpu")

    def functions(boundscheck: bool) -> dict[str, list[str]]:
        fn = prepare(build(kernel.pyfunc, specs, False, False, boundscheck=boundscheck), "cpu")
        asm = rt.render(fn, "asm", block=(256, 1, 1))  # type: ignore[call-arg]
        found: dict[str, list[str]] = {}
        name = ""
        for line in asm.splitlines():
            head = re.match(r"^([\w.]+):", line)
            if head and not line.startswith(".L"):
                name = head.group(1)
                found[name] = []
            elif name and line.startswith("\t") and not line.startswith("\t."):
                found[name].append(re.sub(r"\.L\w+", ".L", line.strip()))  # labels renumbered
        return found

    checked, unchecked = functions(True), functions(False)
    assert "simt_checked" in checked and "simt_fast" not in unchecked
    assert checked["simt_fast"] == unchecked["simt_run"]


def SCALE(a, out):
    i = simt.grid(1)
    out[i] = a[i] * 2.0  # unguarded: tested once per block, checked where the test fails


@pytest.mark.parametrize("outlined", [True, False])
def test_the_threads_run_through_the_checked_copy_are_counted(outlined: bool, monkeypatch) -> None:
    """`CpuRuntime.checked_threads`: the threads of each block that failed the block-level
    test, over every launch, whether the copies are two functions or one body (`outlined`)."""
    import simt.backends.llvm as renderer

    if not outlined:  # (and not the two functions' object code from the disk cache)
        monkeypatch.setattr(renderer, "outlined_version", lambda fn: None)
        monkeypatch.setenv("SIMT_CACHE", "0")
    scale = simt.kernel(SCALE)
    rt = registry.get("cpu")
    out = np.zeros(1024, np.float32)
    with simt.using("cpu"):
        scale[4, 256](np.ones(1024, np.float32), out)
        (spec,) = scale.specialisations("cpu")
        text = rt.render(spec.fn, block=(256, 1, 1))  # type: ignore[call-arg]
        assert ("@simt_fast(" in text) is outlined
        assert rt.checked_threads(spec.compiled) == 0  # every block passed
        for _ in range(2):  # the last block of each reads past `a`
            with pytest.raises(simt.KernelError, match="out of bounds of `a`"):
                scale[4, 256](np.ones(1000, np.float32), out)
    assert rt.checked_threads(spec.compiled) == 2 * 256
    np.testing.assert_array_equal(out[:1000], 2.0)
