"""The cpu runtime: real kernels through `simt.kernel`, errors, prints, caching, inspection."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, grid_dim, thread_idx
from simt.errors import KernelError
from simt.runtime import registry

ok, why = registry.probe("cpu")
if not ok:
    pytest.skip(f"cpu backend not present: {why}", allow_module_level=True)


@pytest.fixture
def on(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """`on(name)` switches the backend; the one other tests see is restored after."""
    yield simt.use


@simt.kernel
def scale(a, out, k):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(out):
        out[i] = a[i] * k


@simt.kernel
def checked(a):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i != 5:
        assert a[i] >= 0, "negative input"


@simt.kernel(debug=True)
def overrun(a, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    out[i] = a[2 * i]


@simt.kernel
def diff(a, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    n = len(a)
    if i < n:
        out[i] = a[min(i + 1, n - 1)] - a[max(i - 1, 0)]


@simt.kernel
def talk(a):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i % 3 == 1:
        print("thread", i, f"value {a[i]:.2f}")
    simt.syncthreads()
    if i < 2:
        print(i * 10, a[i], sep=":")


@simt.kernel
def cube(out):
    x = block_idx.x * block_dim.x + thread_idx.x
    y = block_idx.y * block_dim.y + thread_idx.y
    z = block_idx.z * block_dim.z + thread_idx.z
    if x < out.shape[2] and y < out.shape[1] and z < out.shape[0]:
        out[z, y, x] = x + 10 * y + 100 * z


@simt.kernel
def evens(a, out):
    i = simt.grid(1)
    if i < len(a):
        out[i] = a[i] and i % 2 == 0


@simt.kernel
def transpose8(a, out):
    t = simt.shared.array((8, 8), np.float32)
    x = thread_idx.x
    y = thread_idx.y
    t[y, x] = a[block_idx.y * 8 + y, block_idx.x * 8 + x]
    simt.syncthreads()
    out[block_idx.x * 8 + y, block_idx.y * 8 + x] = t[x, y]


@simt.kernel
def collatz(a, out):
    i = simt.grid(1)
    if i >= len(a):
        return
    v = a[i]
    k = 0
    while v > 1:
        v = v // 2 if v % 2 == 0 else 3 * v + 1
        k += 1
        if k > 50:
            break
    out[i] = k


@simt.kernel
def scratch(a, out):
    i = simt.grid(1)
    buf = simt.local.array(4, np.int32)
    for j in range(4):
        buf[j] = a[i] + j
    simt.syncthreads()
    s = 0
    for j in range(4):
        s += buf[3 - j] * j
    out[i] = s


@simt.kernel
def stride2d(a, out):
    y = block_idx.y * block_dim.y + thread_idx.y
    x = block_idx.x * block_dim.x + thread_idx.x
    while y < a.shape[0]:
        xx = x
        while xx < a.shape[1]:
            out[y, xx] = a[y, xx] * 2.0
            xx += block_dim.x * grid_dim.x
        y += block_dim.y * grid_dim.y


@simt.kernel
def bound_from_shared(a, out):
    s = simt.shared.array(64, np.int32)
    acc = simt.shared.array(64, np.int32)
    t = thread_idx.x
    if t == 0:
        s[0] = a[block_idx.x]
    acc[t] = 0
    simt.syncthreads()
    for i in range(s[0]):  # uniform, but read from memory: the barrier inside is fine
        acc[t] += i * t
        simt.syncthreads()
    out[block_idx.x * block_dim.x + t] = acc[t]


def _edge_cases() -> dict[str, np.ndarray]:
    out = {}
    o = np.zeros((3, 5, 7), np.int32)
    cube[(2, 2, 2), (4, 3, 2)](o)
    out["3-d blocks"] = o
    a = np.array([True, False, True, True, False] * 20)
    ob = np.zeros_like(a)
    evens[4, 32](a, ob)
    out["bool arrays"] = ob
    m = np.arange(256, dtype=np.float32).reshape(16, 16)
    om = np.zeros_like(m)
    transpose8[(2, 2), (8, 8)](m, om)
    out["shared tile"] = om
    ai = np.arange(1, 200, dtype=np.int32)
    oi = np.zeros_like(ai)
    collatz[2, 128](ai, oi)
    out["early return, break"] = oi
    al = np.arange(64, dtype=np.int32)
    ol = np.zeros_like(al)
    scratch[2, 32](al, ol)
    out["local array across a barrier"] = ol
    m2 = np.random.default_rng(2).random((37, 53)).astype(np.float32)
    o2 = np.zeros_like(m2)
    stride2d[(2, 2), (8, 4)](m2, o2)
    out["nested grid-stride loops"] = o2
    n4 = np.array([3, 0, 5, 1], np.int32)
    o4 = np.zeros(4 * 64, np.int32)
    bound_from_shared[4, 64](n4, o4)
    out["loop bound read from shared memory"] = o4
    return out


def test_edge_cases_match_sim(on: Any) -> None:
    on("sim")
    expected = _edge_cases()
    on("cpu")
    got = _edge_cases()
    for name, want in expected.items():
        np.testing.assert_array_equal(got[name], want, err_msg=name)


@simt.kernel
def ids(out):
    i = block_idx.x * block_dim.x + thread_idx.x
    j = block_idx.y * block_dim.y + thread_idx.y
    out[j, i, 0] = block_idx.x
    out[j, i, 1] = thread_idx.x
    out[j, i, 2] = block_dim.x
    out[j, i, 3] = grid_dim.x
    out[j, i, 4] = thread_idx.y + 10 * block_idx.y


def test_adjacent_blocks_run_as_one_wider_block(on: Any) -> None:
    """Coarsened launches (several blocks as one) still see every block's own indices."""
    on("cpu")
    for grid, block in (((64, 1), (32, 1)), ((32, 3), (8, 4))):
        h, w = grid[1] * block[1], grid[0] * block[0]
        out = np.zeros((h, w, 5), np.int32)
        ids[grid, block](out)
        y, x = np.mgrid[0:h, 0:w]
        want = np.stack(
            [
                x // block[0],
                x % block[0],
                np.full_like(x, block[0]),
                np.full_like(x, grid[0]),
                y % block[1] + 10 * (y // block[1]),
            ],
            -1,
        )
        np.testing.assert_array_equal(out, want)
    rt = registry.get("cpu")
    spec = next(iter(ids._cache.values()))
    assert any(key[2] > 1 for key in spec.compiled.handle.variants), rt


def _wide(kernel: Any) -> set[int]:
    """How many blocks the cpu variants of `kernel` compiled so far run as one."""
    return {key[2] for spec in kernel._cache.values() for key in spec.compiled.handle.variants}


def test_a_2d_launch_runs_a_whole_row_of_blocks_as_one(
    on: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """2-D blocks: a whole row of the grid runs as one block (its rows are then one stream in
    address order; 16384 threads here, where pieces of 8192 ran before), and every thread
    still sees its own block and thread; an index past the array names the block and thread
    of the launch the user asked for."""
    on("cpu")
    monkeypatch.setattr(registry.get("cpu"), "threads", 2)  # 32 rows of blocks keep 2 busy
    grid, block = (128, 32), (16, 8)
    h, w = grid[1] * block[1], grid[0] * block[0]
    many = simt.kernel(ids.pyfunc)
    out = np.zeros((h, w, 5), np.int32)
    many[grid, block](out)
    y, x = np.mgrid[0:h, 0:w]
    want = np.stack([x // 16, x % 16, np.full_like(x, 16), np.full_like(x, 128),
                     y % 8 + 10 * (y // 8)], -1)  # fmt: skip
    np.testing.assert_array_equal(out, want)
    assert _wide(many) == {128}

    @simt.kernel
    def fill(o):
        o[block_idx.y * block_dim.y + thread_idx.y, block_idx.x * block_dim.x + thread_idx.x] = 1.0

    with pytest.raises(KernelError) as e:
        fill[grid, block](np.zeros((h, w - 3), np.float32))
    # (the threads' IndexError: the first is block (127, 0, 0)'s thread 13, 16269 in all)
    assert (e.value.block, e.value.thread) == ((127, 0, 0), (13, 0, 0))
    assert "(first: thread 16269: index 2045 is out of bounds for axis 1 of `o`" in str(e.value)
    assert _wide(fill) == {128}


def test_whole_rows_keep_the_checks_index_slots_small(
    on: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The front end checks `ids`' stores (the threads' IndexError), in debug mode too since
    a1ec837 (#23), so the renderer keeps no index slots: whole rows either way. (A row of
    blocks whose renderer-kept checks would need too many index slots a lane runs in smaller
    pieces, `cpu.ROW_SLOT_BYTES`: debug mode was the way to reach it here.) A kernel with
    per-thread arrays runs in smaller pieces."""
    on("cpu")
    monkeypatch.setattr(registry.get("cpu"), "threads", 2)
    for debug, wide in ((True, {128}), (False, {128})):  # 8192 threads (`cpu.COARSE_LANES`)
        many = simt.kernel(ids.pyfunc, debug=debug)
        out = np.zeros((16 * 16, 128 * 16, 5), np.int32)
        many[(128, 16), (16, 16)](out)
        assert out[-1, -1, 4] == 15 + 10 * 15
        assert _wide(many) == wide

    @simt.kernel
    def scratch(o):
        x = block_idx.x * block_dim.x + thread_idx.x
        y = block_idx.y * block_dim.y + thread_idx.y
        t = simt.local.array(4, np.float32)
        for q in range(4):
            t[q] = x + q
        o[y, x] = t[x % 4]

    o = np.zeros((256, 2048), np.float32)
    scratch[(128, 16), (16, 16)](o)  # a per-thread array: 8192 threads, not 32768
    assert o[3, 2045] == 2045 + 1 and _wide(scratch) == {32}


def test_a_versioned_loop_kernel_runs_whole_rows_with_checks_on_as_off(
    on: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W6's naive matmul (the corpus's): its checked copy (run where the block-level test
    fails) has loops that end early for a lane whose access failed, a trip count that varies
    by thread; that copy does not stop the launch running whole rows of blocks, as the same
    kernel with `boundscheck=False` does (it ran 16 x 16 blocks: 1.2-1.5x slower). The
    checked copy, run coarsened, still names the user's block and thread."""
    from corpus.k_matmul import matmul

    on("cpu")
    monkeypatch.setattr(registry.get("cpu"), "threads", 2)  # 16 rows of blocks keep 2 busy
    rng = np.random.default_rng(3)
    n = 256
    a, b = rng.random((n, n), np.float32), rng.random((n, n), np.float32)
    for k in (simt.kernel(matmul.pyfunc), simt.kernel(matmul.pyfunc, boundscheck=False)):
        c = np.zeros((n, n), np.float32)
        k[(16, 16), (16, 16)](a, b, c)
        np.testing.assert_allclose(c, a @ b, rtol=1e-4)
        assert _wide(k) == {16}, k.boundscheck
    k = simt.kernel(matmul.pyfunc)
    with pytest.raises(KernelError) as e:  # `a` 3 rows short: the checked copy runs
        k[(16, 16), (16, 16)](a[3:], b, np.zeros((n, n), np.float32))
    assert (e.value.block, e.value.thread) == ((0, 15, 0), (0, 13, 0))
    assert "768 threads raised IndexError" in str(e.value)
    assert "(first: thread 61648: index 253 is out of bounds for axis 0 of `a`" in str(e.value)
    assert _wide(k) == {16}


def test_vector_kernel_small_and_large_launches(on: Any) -> None:
    on("cpu")
    for n in (100, 1 << 18):  # the calling thread, then the thread pool
        a = np.arange(n, dtype=np.float32)
        out = np.zeros(n, np.float32)
        scale[(n + 255) // 256, 256](a, out, 3.0)
        np.testing.assert_array_equal(out, a * 3)


def test_clamped_indices_at_and_away_from_the_edges(on: Any) -> None:
    on("cpu")
    a = np.random.default_rng(1).random(1000).astype(np.float32)
    out = np.zeros_like(a)
    diff[4, 256](a, out)  # the last block is partly past the end; the first clamps at 0
    padded = np.concatenate([a[:1], a, a[-1:]])
    np.testing.assert_array_equal(out, padded[2:] - padded[:-2])


def test_strided_arrays_get_their_own_variant(on: Any) -> None:
    on("cpu")
    a = np.arange(400, dtype=np.float32)
    out = np.zeros(400, np.float32)
    scale[1, 256](a[::2], out[::2], 2.0)
    np.testing.assert_array_equal(out[::2], a[::2] * 2)
    assert not out[1::2].any()


def test_assert_names_the_first_failing_thread_like_sim(on: Any) -> None:
    a = np.zeros(40, np.int32)
    a[[5, 21, 30]] = -1
    errors = []
    for backend in ("sim", "cpu"):
        on(backend)
        with pytest.raises(KernelError) as e:
            checked[5, 8](a)
        errors.append(e.value)
    sim, cpu = errors
    assert (cpu.block, cpu.thread) == (sim.block, sim.thread) == ((2, 0, 0), (5, 0, 0))
    assert "raised AssertionError" in str(cpu) and "negative input" in str(cpu)
    assert cpu.line == sim.line and cpu.filename == sim.filename
    a[21] = a[30] = 0
    checked[5, 8](a)  # only thread 5 is negative, and it does not assert


def test_debug_mode_checks_bounds(on: Any) -> None:
    on("cpu")
    a, out = np.zeros(64, np.float32), np.zeros(64, np.float32)
    with pytest.raises(KernelError) as e:
        overrun[4, 16](a, out)
    assert (e.value.block, e.value.thread) == ((2, 0, 0), (0, 0, 0))
    # (a debug kernel's thread raises IndexError as any kernel's does, #23)
    assert "(first: thread 32: index 64 is out of bounds of `a` with size 64)" in str(e.value)
    assert "out[i] = a[2 * i]" in str(e.value)


def test_print_is_identical_to_sim(on: Any, capsys: pytest.CaptureFixture[str]) -> None:
    a = np.linspace(0, 1, 12).astype(np.float32)
    outputs = []
    for backend in ("sim", "cpu"):
        on(backend)
        talk[3, 4](a)
        simt.synchronize()
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    assert "thread 1 value 0.09" in outputs[1] and "10:0.09090909" in outputs[1]


def test_source_render_stages_and_vector_code() -> None:
    a, out = np.zeros(1024, np.float32), np.zeros(1024, np.float32)
    text = scale.source("cpu", a, out, 2.0)
    assert "define void @simt_run(" in text
    rt = registry.get("cpu")
    from simt.frontend.specialise import ArgSpec  # noqa: F401 - the pipeline's own types
    from simt.pipeline import build

    specs = scale.arg_specs(a, out, 2.0, backend="cpu")
    # unchecked (the code of accesses proven in bounds; checked ones: tests/backends/
    # test_llvm_checks.py)
    fn = build(scale.pyfunc, specs, False, False, boundscheck=False)
    opt = rt.render(fn, stage="opt")  # type: ignore[call-arg]
    assert "x float>" in opt  # the thread loop was vectorised
    asm = rt.render(fn, stage="asm")  # type: ignore[call-arg]
    assert "mulps" in asm  # packed SIMD multiply (vmulps with AVX)
    with pytest.raises(ValueError):
        rt.render(fn, stage="bitcode")  # type: ignore[call-arg]


def test_info_names_llvm_cpu_vector_width_and_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    from simt.runtime.cpu import CpuRuntime, num_threads

    monkeypatch.setenv("SIMT_NUM_THREADS", "3")
    assert num_threads() == 3
    info = CpuRuntime().info()
    assert set(info) >= {"llvm", "target cpu", "vector width", "threads"}
    assert info["threads"] == "3"
    ok, line = CpuRuntime.probe()
    assert ok and "LLVM" in line and "threads" in line


@simt.kernel
def big_local(out, n):
    loc = simt.local.array(4096, np.float32)  # 16 KiB a thread: 16 MiB for a block of 1024
    i = block_idx.x * block_dim.x + thread_idx.x
    for j in range(n):
        loc[j] = i + j
    s = 0.0
    for j in range(n):
        s += loc[(j * 7) % n]
    out[i] = s


def test_large_local_arrays_live_on_the_heap_not_the_stack(on: Any) -> None:
    """A block's local arrays larger than a thread's stack used to crash the process."""
    on("cpu")
    out = np.zeros(2048, np.float32)
    big_local[2, 1024](out, 4096)
    i = np.arange(2048, dtype=np.float64)
    np.testing.assert_allclose(out, 4096 * i + 4095 * 4096 / 2, rtol=1e-6)


@simt.kernel
def huge_local(out, n):
    # 4 TiB a thread: more than any address space, so malloc refuses it on every system
    loc = simt.local.array((1 << 20, 1 << 20), np.float32)
    i = block_idx.x * block_dim.x + thread_idx.x
    loc[i % n, i % n] = i
    out[i] = loc[(3 * i) % n, i % n]


def test_per_thread_arrays_that_cannot_be_had_are_a_kernel_error(on: Any) -> None:
    on("cpu")
    with pytest.raises(KernelError, match="could not allocate .* blocks of 1024 x 1 x 1") as e:
        huge_local[4, 1024](np.zeros(4096, np.float32), 1)
    assert e.value.filename == __file__ and "simt.local.array" in (e.value.source_line or "")


@pytest.mark.parametrize("value", ["0", "-2", "abc", "1.5"])
def test_a_bad_thread_count_is_an_error_not_ignored(value: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 26: SIMT_NUM_THREADS=0 or abc was silently ignored."""
    from simt.runtime.cpu import CpuRuntime, num_threads

    monkeypatch.setenv("SIMT_NUM_THREADS", value)
    with pytest.raises(simt.LaunchError, match=f"SIMT_NUM_THREADS='{value}' is not a number "
                       "of threads: set it to a whole number of 1 or more"):
        num_threads()
    ok, why = CpuRuntime.probe()  # `simt info` says it, and the backend is still found
    assert ok and "bad setting" in why


@simt.kernel(heap=65536)
def _many_strings(out):
    t = simt.grid(1)
    for j in range(120):
        print("abcd" + str(j * 1000 + t))


def test_prints_of_strings_built_at_run_time_are_not_cut_at_1024_records(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """A printed string built at run time takes a print record per character: one thread's
    120 lines of 9-10 characters were cut after 85 ("printed more than 1024 lines"), where
    sim prints them all."""
    for backend in ("sim", "cpu"):
        with simt.using(backend):
            _many_strings[1, 1](np.zeros(1, np.int32))
        lines = capfd.readouterr().out.splitlines()
        assert lines == [f"abcd{j * 1000}" for j in range(120)], (backend, lines[-3:])


def test_each_optimisation_frees_its_pass_manager(
    on: Any, fresh_kernel: Callable[[int], Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """llvmlite's ModulePassManager never frees its native object (its base `ObjectRef`'s
    empty `_dispose` hides `NewPassManager`'s): the passes kept what they last held, 70-215 KB
    of every kernel compiled, for the life of the process (mem11). `cpu.optimise` frees it."""
    from llvmlite.binding.newpassmanagers import NewPassManager, PassBuilder

    made: list[Any] = []
    freed: list[int] = []
    real_make, real_free = PassBuilder.getModulePassManager, NewPassManager._dispose

    def make(self: Any) -> Any:
        made.append(real_make(self))
        return made[-1]

    def free(self: Any) -> None:
        freed.append(id(self))
        real_free(self)

    monkeypatch.setattr(PassBuilder, "getModulePassManager", make)
    monkeypatch.setattr(NewPassManager, "_dispose", free)
    monkeypatch.setenv("SIMT_CACHE", "0")  # compiled here, not found on disk
    on("cpu")
    k = fresh_kernel(7)
    a = np.ones(8, np.float32)
    k[1, 8](a)
    assert a.tolist() == [8.0] * 8
    assert made and freed == [id(m) for m in made]
    assert all(m.closed for m in made)
