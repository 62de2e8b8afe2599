"""The CPU renderer: LLVM IR text that parses, vectorises, and keeps the language's semantics."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

import simt
from corpus.k_matmul import matmul  # W6's kernel
from passes.ir_eval import evaluate, function, if_, random_function, random_inputs
from simt.backends.llvm import render_lowered
from simt.backends.llvm_abi import ENTRY, arg_layout
from simt.errors import CompileError
from simt.ir import Function, Value, verify
from simt.runtime.cpu import lower, lower_and_render
from simt.types import FLOAT32, INT32, ArrayType

llvm = pytest.importorskip("llvmlite.binding", reason="llvmlite (simt[cpu]) is not installed")


def _vecadd() -> Function:
    fn, b, (a, c) = function(ArrayType(FLOAT32, 1), ArrayType(FLOAT32, 1))
    i = b.bin("add", b.bin("mul", b.special("block_idx", 0), b.special("block_dim", 0)),
              b.special("thread_idx", 0))  # fmt: skip
    n = b.op("shape", [c], [INT32], dim=0).result

    def then() -> list[Value]:
        x = b.op("load", [a, i], [FLOAT32]).result
        b.op("store", [c, i, b.bin("mul", x, b.const(2.0, FLOAT32))])
        return []

    if_(b, b.cmp("lt", i, n), then, lambda: [], [])
    verify(fn)
    return fn


def test_render_is_llvm_ir_with_the_entry_and_parses() -> None:
    text = lower_and_render(_vecadd())[0]
    assert f"define void @{ENTRY}(" in text
    assert "llvm.loop.parallel_accesses" in text
    mod = llvm.parse_assembly(text)
    mod.verify()


def test_arg_layout_counts_pointer_shape_and_strides() -> None:
    fn = _vecadd()
    assert arg_layout(fn) == [6, 9, 12]


def test_render_leaves_the_callers_function_alone() -> None:
    fn = _vecadd()
    before = [op.opcode for op in fn.body.ops]
    lower_and_render(fn)
    assert [op.opcode for op in fn.body.ops] == before
    verify(fn)


def test_debug_mode_adds_bounds_checks_as_error_sites() -> None:
    fn = _vecadd()
    _, meta = render_lowered(lower(fn), bounds=False)
    assert meta.sites == {}
    text, meta = render_lowered(lower(fn), bounds=True)
    assert [op.opcode for op in meta.sites.values()] == ["load", "store"]
    assert "atomicrmw min" in text


@pytest.mark.parametrize("seed", range(24))
def test_random_programs_match_the_ir_interpreter(seed: int) -> None:
    """Every scalar op, if/for/while, on edge-case inputs: compiled code against ir_eval."""
    from simt.array import host_view
    from simt.passes.barriers import lift
    from simt.passes.uniformity import check_barriers
    from simt.runtime.base import Dim3
    from simt.runtime.cpu import CpuRuntime

    rt = CpuRuntime()
    build = random_function(seed)
    try:
        check_barriers(build())  # as `pipeline.finish` does for every kernel
        # (a barrier under a thread-dependent branch is lifted, as for every cpu launch)
        compiled = rt.compile(lift(build()))
    except CompileError as e:  # a barrier in a while condition: refused
        assert "syncthreads()" in str(e)
        return
    for args in random_inputs(random.Random(seed), 4):
        # float-to-int conversion out of range is unspecified (the interpreter and NumPy
        # differ): keep the float input where every cast of it is defined
        args = [x if isinstance(x, np.ndarray) or not isinstance(x, float) or abs(x) < 1e9
                else 0.75 for x in args]  # fmt: skip
        ref = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        try:
            evaluate(build(), ref)
        except Exception:  # noqa: BLE001 - the program fails an assert or goes out of bounds
            continue
        got: list[Any] = [x.copy() if isinstance(x, np.ndarray) else x for x in args]
        dev = [host_view(rt, x) if isinstance(x, np.ndarray) else p.value.scalar.np.type(x)
               for x, p in zip(got, compiled.fn.params)]  # fmt: skip
        rt.launch(compiled, Dim3(1), Dim3(1), dev)
        for x, y in zip(ref, got):
            if isinstance(x, np.ndarray):
                if x.dtype.kind == "f":
                    np.testing.assert_allclose(y, x, rtol=2e-6, equal_nan=True)
                else:
                    np.testing.assert_array_equal(y, x)


def test_loops_that_can_run_long_poll_for_ctrl_c_and_no_other() -> None:
    """A `while` and a `for` with a run-time trip count call `simt_poll` on a cold path of
    their back-edge (Ctrl-C, `runtime.cpu_interrupt`); a thread loop and a short constant loop
    do not, and a kernel without such loops has no jump buffer at all."""
    import simt

    # unchecked: with bounds checks the unguarded `out[i]` versions the body per block
    # (`passes.bounds`), and each version polls in its own copy of the loops
    @simt.kernel(boundscheck=False)
    def spins(out, n):
        i = simt.grid(1)
        y = i
        while y >= 0:
            y = (y + 1) % 1000
        s = 0
        for j in range(n):
            s += j
        out[i] = y + s

    @simt.kernel
    def short(out):
        i = simt.grid(1)
        s = 0
        for j in range(8):
            s += j * i
        out[i] = s

    out = np.zeros(4, np.int32)
    text = spins.source("cpu", out, 3)
    assert text.count("call void @simt_poll(ptr %ctx, ptr %jb)") == 2
    assert "call i32 @_setjmp(ptr %jb) returns_twice" in text
    llvm.parse_assembly(text).verify()
    plain = short.source("cpu", out)
    assert "simt_poll" not in plain and "_setjmp" not in plain
    assert "simt_poll" not in lower_and_render(_vecadd())[0]


def test_a_halving_while_does_not_poll_and_other_whiles_do(tmp_path: Any) -> None:
    """The reduction tree's `while s > 0: ... s >>= 1` (or `s //= 2`) runs at most 64 times
    around thread loops a block's size bounds: no poll for Ctrl-C (issue 23: its 8 polls,
    unrolled and no longer merged once the checked copy joined the counter, cost
    monte_carlo's reduction 7 % more instructions with bounds checks on). A `while` whose
    counter may not shrink (a subtraction, `s != 0` of a signed `s >> 1`, which -1 keeps at
    -1) still polls."""
    import importlib.util

    cases = (("s >>= 1", "s > 0", False), ("s //= 2", "s > 0", False),
             ("s >>= 1", "s >= 1", False), ("s >>= 1", "0 < s", False),
             ("s -= 1", "s > 0", True), ("s >>= 1", "s != 0", True))  # fmt: skip
    src = ["import numpy as np", "import simt"]
    for n, (step, test, _) in enumerate(cases):
        src.append(f"""
@simt.kernel
def k{n}(a, out):
    sh = simt.shared.array(256, np.float32)
    t = simt.thread_idx.x
    sh[t] = a[simt.grid(1)]
    simt.syncthreads()
    s = simt.block_dim.x // 2
    while {test}:
        if t < s:
            sh[t] += sh[t + s]
        simt.syncthreads()
        {step}
    if t == 0:
        out[simt.block_idx.x] = sh[0]
""")
    path = tmp_path / "trees.py"
    path.write_text("\n".join(src))
    spec = importlib.util.spec_from_file_location("trees", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    a, out = np.ones(512, np.float32), np.zeros(2, np.float32)
    for n, (step, test, polls) in enumerate(cases):
        k = getattr(mod, f"k{n}")
        text = k.source("cpu", a, out)
        assert ("simt_poll" in text) == polls, (step, test)
        if not polls:
            k[2, 256](a, out)
            assert out.tolist() == [256.0, 256.0], (step, test)


LUT = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32)


def _look(idx, out):  # noqa: ANN001, ANN202 - a kernel reading a constant table
    i = simt.grid(1)
    if i < len(out):
        out[i] = LUT[idx[i] % 8]


def test_a_kernel_with_a_constant_table_renders_the_same_text_each_time() -> None:
    """The CPU's compiled-object cache is keyed by the LLVM text: a table's global is numbered
    in the kernel, not by a process-wide value id (each translation made a new name, so a
    kernel with a table was compiled again in every process)."""
    idx, out = np.arange(16, dtype=np.int32), np.zeros(16, np.int32)
    first = simt.kernel(_look).source("cpu", idx, out)
    again = simt.kernel(_look).source("cpu", idx, out)
    assert "@simt.table.0 = private unnamed_addr constant [8 x i32]" in first
    assert first == again



def _versioned_loops(text: str) -> tuple[list[set[str]], list[set[str]]]:
    """The loop metadata (a set of property nodes per loop) of the unchecked and the checked
    copy of a body versioned by a block-level test (the functions `simt_fast` and
    `simt_checked` of the module)."""
    import re

    md = dict(re.findall(r"^(!\d+) = (.*)$", text, re.M))

    def function(name: str) -> str:
        start = text.index(f" @{name}(")
        return text[start : text.index("\n}\n", start)]

    def loops(part: str) -> list[set[str]]:
        nodes = [md[m] for m in re.findall(r"br label %\S+, !llvm.loop (!\d+)", part)]
        return [{md[p] for p in n.strip("!{}").split(", ")[1:]} for n in nodes]

    return loops(function("simt_fast")), loops(function("simt_checked"))


def test_checked_copy_of_a_versioned_body_is_cold() -> None:
    """The checked copy of a body versioned by a block-level test (`passes.bounds`: the
    `else` of the `if` marked `version`) runs only for blocks that fail the test: in a kernel
    with jammed loops none of its loops is vectorised or unrolled (it was over half of the
    time LLVM took over W6), while the unchecked copy's thread loops still are; in others it
    is left as it was. Where it runs it computes what it computed before: the threads in
    bounds finish, the others fail."""
    a = np.random.default_rng(1).random((37, 45), dtype=np.float32)
    b = np.random.default_rng(2).random((45, 29), dtype=np.float32)
    c = np.zeros((40, 29), np.float32)  # 3 rows more than `a`: the checked copy runs
    text = matmul.source("cpu", a, b, c)
    hot, cold = _versioned_loops(text)
    off = {'!{!"llvm.loop.vectorize.enable", i1 false}', '!{!"llvm.loop.unroll.disable"}'}
    assert cold and all(props == off for props in cold)
    assert any(any("parallel_accesses" in p for p in props) for props in hot)
    llvm.parse_assembly(text).verify()

    @simt.kernel
    def add(a, b, out):  # one-dimensional: no jammed loops
        i = simt.grid(1)
        if i < len(out):
            out[i] = a[i] + b[i]

    x = np.ones(100, np.float32)
    hot, cold = _versioned_loops(add.source("cpu", x, x, x))
    assert any(any("parallel_accesses" in p for p in props) for props in cold)
    with simt.using("cpu"), pytest.raises(simt.KernelError):
        matmul[(2, 3), (16, 16)](a, b, c)
    np.testing.assert_allclose(c[:37], a.astype(np.float64) @ b, rtol=1e-5)


@simt.kernel
def _rows(a, out):  # the guard is no range the bounds pass reads: each row's last block fails
    x = simt.block_idx.x * simt.block_dim.x + simt.thread_idx.x
    y = simt.block_idx.y
    if x * x < out.shape[1] * out.shape[1]:
        out[y, x] = a[y, x] + 1.0


@simt.kernel
def _rows_looping(a, out, n):  # `_rows` with a loop: the entry polls for Ctrl-C
    x = simt.block_idx.x * simt.block_dim.x + simt.thread_idx.x
    y = simt.block_idx.y
    if x * x < out.shape[1] * out.shape[1]:
        acc = 0.0
        for _ in range(n):
            acc += a[y, x]
        out[y, x] = acc / n + 1.0


@pytest.mark.parametrize("looping", [False, True], ids=["entry", "polled"])
def test_a_versioned_body_is_two_functions_between_which_the_blocks_alternate(
    looping: bool,
) -> None:
    """A body versioned by a block-level test is rendered as two functions of blocks and the
    test of one block: the entry runs each run of blocks that pass the test through
    `simt_fast` (the unchecked copy, with no test of its own: it compiles as the unchecked
    kernel does), and each block that fails it through `simt_checked`. Here every row's last
    block fails the test (blocks 2, 5, 8, ... of the launch): each still computes its part,
    and an access out of bounds in such a block is the one reported, with its index and
    thread, though later blocks pass the test."""
    a = np.arange(5 * 40, dtype=np.float32).reshape(5, 40)
    out = np.zeros((5, 40), np.float32)
    kernel, more = (_rows_looping, (3,)) if looping else (_rows, ())
    text = kernel.source("cpu", a, out, *more)
    assert "define internal void @simt_fast(" in text
    assert "define internal void @simt_checked(" in text
    assert "define internal i1 @simt_block_test(ptr noalias %args, i64 %b) alwaysinline" in text
    fast = text[text.index("@simt_fast(") : text.index("@simt_checked(")]
    assert "@simt.fail.at" not in fast  # every access of the unchecked copy is unchecked
    # the loop over blocks: the entry, or the body the entry calls when loops poll
    name = "define internal void @simt_blocks(" if looping else "define void @simt_run("
    assert "call i1 @simt_block_test(" in text[text.index(name) :]
    llvm.parse_assembly(text).verify()
    with simt.using("cpu"):
        kernel[(3, 5), 16](a, out, *more)
        np.testing.assert_allclose(out, a + 1, rtol=1e-6)
        narrow = np.zeros((5, 36), np.float32)  # the last block of each row reads past it
        with pytest.raises(simt.KernelError) as e:
            kernel[(3, 5), 16](narrow, out, *more)
    # threads 4-7 of each row's last block read past `a` (an IndexError each, the kernel's
    # Python semantics): block (2, y) is the launch's block 3y + 2, run by `simt_checked`
    # between blocks that `simt_fast` ran
    bad = [(3 * y + 2) * 16 + t for y in range(5) for t in range(4, 8)]
    assert [f.thread for f in e.value.failures] == bad
    assert "index 36 is out of bounds for axis 1 of `a` with size 36" in str(e.value)
