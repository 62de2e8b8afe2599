"""Bounds-check elimination (passes/bounds.py): each rule proves the accesses it should, and
each near miss (an off-by-one `<=`, a guard on the wrong array, a negative offset, a wrapping
index) stays checked.

Soundness is checked by running the pass's output in the IR interpreter thread by thread
(`_audit`): an access marked `inbounds` must never be out of bounds there, and the
out-of-bounds kernels must reach an access that is still checked."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.ir import Function, verify, walk
from simt.ir.ops import MEMORY
from simt.passes.bounds import MAX_COPY_OPS, Report, prove_bounds
from simt.pipeline import build, prepare
from simt.runtime import registry
from simt.types import UINT32

from .ir_eval import EvalBounds, evaluate


def _fn(kernel: Any, *args: Any) -> Function:
    specs = kernel.arg_specs(*args, backend="cpu")
    # the pass's verdicts on the accesses themselves (without the front end's IndexError
    # checks of those it cannot prove, tested at the end)
    return build(kernel.pyfunc, specs, False, False, raising=False)  # type: ignore[no-any-return]


def _proved(kernel: Any, *args: Any) -> tuple[Function, Report]:
    fn = prepare(_fn(kernel, *args), "cpu")
    verify(fn)
    rep = fn.attrs["bounds"]
    assert isinstance(rep, Report)
    return fn, rep


def _audit(fn: Function, grid: tuple[int, ...], block: tuple[int, ...], *args: Any) -> int:
    """Run every thread of the launch in the IR interpreter; fail on an out-of-bounds access
    the pass marked in bounds. Returns how many threads a checked access stopped."""
    grid3 = (*grid, 1, 1)[:3]
    block3 = (*block, 1, 1)[:3]
    caught = 0
    arrays = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    for b in itertools.product(*(range(n) for n in grid3)):
        for t in itertools.product(*(range(n) for n in block3)):
            special = {}
            for ax, name in enumerate("xyz"):
                special[f"thread_idx.{name}"] = t[ax]
                special[f"block_idx.{name}"] = b[ax]
                special[f"block_dim.{name}"] = block3[ax]
                special[f"grid_dim.{name}"] = grid3[ax]
            try:
                evaluate(fn, arrays, special)
            except EvalBounds as e:
                assert e.op is not None
                assert not e.op.attrs.get("inbounds"), f"unsound: {e} marked in bounds"
                caught += 1
    return caught


def _marks(fn: Function) -> list[bool]:
    return [bool(op.attrs.get("inbounds")) for op in walk(fn.body) if op.opcode in MEMORY]


def _f32(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.float32)


# --------------------------------------------------------------------------- proven rules
@simt.kernel
def guarded(a, out):
    i = simt.grid(1)
    if i < len(a) and i < len(out):
        out[i] = a[i] * 2.0


@simt.kernel
def early_return(a, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i >= len(out):
        return
    if i >= len(a):
        return
    out[i] = a[i]


@simt.kernel
def clamped(a, out):
    i = simt.grid(1)
    n = len(a)
    if i < n and i < len(out):
        out[i] = a[max(i - 1, 0)] + a[i] + a[min(i + 1, n - 1)]


@simt.kernel
def modulo(a, out):
    i = simt.grid(1)
    if i < len(out) and i < len(a):
        out[i] = a[(i + 3) % len(a)]


@simt.kernel
def ranges(a, out):
    i = simt.grid(1)
    if i < len(out):
        s = 0.0
        for k in range(len(a)):
            s += a[k]
        for k in range(1, len(a) - 1):
            s += a[k - 1] - a[k + 1]
        out[i] = s


@simt.kernel
def rows(a, out):
    row = simt.grid(1)
    if row < a.shape[0] and row < len(out):
        s = 0.0
        for k in range(a.shape[1]):
            s += a[row, k]
        out[row] = s


@simt.kernel
def while_guard(a, out):
    i = simt.grid(1)
    if i < len(out):
        k = 0
        while k < len(a):
            out[i] += a[k]
            k += 1


def test_each_rule_proves_its_accesses() -> None:
    n = 100
    cases = [
        (guarded, (_f32(n), _f32(n)), 2),
        (early_return, (_f32(n), _f32(n)), 2),
        (clamped, (_f32(n), _f32(n)), 4),
        (modulo, (_f32(n), _f32(n)), 2),
        (ranges, (_f32(n), _f32(n)), 4),
        (rows, (np.ones((n, 7), np.float32), _f32(n)), 2),
    ]
    for kernel, args, count in cases:
        fn, rep = _proved(kernel, *args)
        assert (rep.proven, rep.hoisted, rep.checked) == (count, 0, 0), (kernel, rep)
        assert not rep.versioned and all(_marks(fn)), kernel
        assert _audit(fn, (2,), (64,), *args) == 0


def test_while_condition_and_counter_bound_its_body() -> None:
    # `k < len(a)` bounds k from above in the body; k counts up from 0 (its carried range,
    # [0, max], is a fixpoint), so a[k] needs no check at all
    fn, rep = _proved(while_guard, _f32(10), _f32(10))
    assert rep.checked == 0 and rep.proven == 3
    assert _audit(fn, (1,), (16,), _f32(10), _f32(10)) == 0


# ------------------------------------------------------------------------- hoisted checks
@simt.kernel
def other_guard(a, b, c):
    i = simt.grid(1)
    if i < len(c):
        c[i] = a[i] + b[i]


@simt.kernel
def tile(a, out):
    sh = simt.shared.array(64, np.float32)
    i = simt.grid(1)
    if i < len(a):
        sh[thread_idx.x] = a[i]
    simt.syncthreads()
    if i < len(out):
        out[i] = sh[block_dim.x - 1 - thread_idx.x]


@simt.kernel
def matmul(a, b, c):
    row = block_idx.y * block_dim.y + thread_idx.y
    col = block_idx.x * block_dim.x + thread_idx.x
    if row < c.shape[0] and col < c.shape[1]:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[row, k] * b[k, col]
        c[row, col] = acc


def test_guard_on_another_array_is_one_test_per_block() -> None:
    n = 50
    fn, rep = _proved(other_guard, _f32(n), _f32(n), _f32(n))
    assert (rep.proven, rep.hoisted, rep.checked) == (1, 2, 0)
    assert rep.versioned and rep.tests == ["-len(a) + len(c) <= 0", "-len(b) + len(c) <= 0"]
    top = fn.body.ops[-1]
    assert top.opcode == "if"
    fast, slow = (_marks_block(r) for r in top.regions)
    assert all(fast) and slow == [False, False, True]
    # equal lengths: the unchecked copy runs, in bounds
    assert _audit(fn, (1,), (64,), _f32(n), _f32(n), _f32(n)) == 0
    # a too short: the checked copy runs and stops the threads past its end
    assert _audit(fn, (1,), (64,), _f32(n - 5), _f32(n), _f32(n)) == 5


def _marks_block(block: Any) -> list[bool]:
    return [bool(op.attrs.get("inbounds")) for op in walk(block) if op.opcode in MEMORY]


def test_shared_tile_indexed_by_thread_is_checked_against_the_block_size() -> None:
    fn, rep = _proved(tile, _f32(64), _f32(64))
    assert rep.hoisted == 2 and rep.checked == 0
    assert "block_dim.x - 64 <= 0" in rep.tests
    assert _audit(fn, (2,), (64,), _f32(128), _f32(128)) == 0
    # a block of 128 threads for a tile of 64: the checked copy catches threads 64 on at the
    # store and threads 0-63 at the mirrored load (127 - thread_idx.x)
    assert _audit(fn, (1,), (128,), _f32(128), _f32(128)) == 128


def test_matmul_checks_the_shapes_once() -> None:
    a, b, c = (np.ones((8, 8), np.float32) for _ in range(3))
    fn, rep = _proved(matmul, a, b, c)
    assert (rep.proven, rep.hoisted, rep.checked) == (1, 2, 0)
    assert sorted(rep.tests) == sorted([
        "-a.shape[0] + c.shape[0] <= 0",
        "a.shape[1] - b.shape[0] <= 0",
        "-b.shape[1] + c.shape[1] <= 0",
    ])  # fmt: skip
    assert _audit(fn, (2, 2), (4, 4), a, b, c) == 0
    short = np.ones((6, 8), np.float32)  # a has fewer rows than c
    assert _audit(fn, (2, 2), (4, 4), short, b, c) == 2 * 8


# ----------------------------------------------------------------- must stay checked
@simt.kernel
def off_by_one(a, out):
    i = simt.grid(1)
    if i <= len(a) and i < len(out):
        out[i] = a[i]


@simt.kernel
def negative_offset(a, out):
    i = simt.grid(1)
    if i < len(a) and i < len(out):
        out[i] = a[i - 1]


@simt.kernel
def loop_too_far(a, out):
    i = simt.grid(1)
    if i < len(out):
        s = 0.0
        for k in range(len(a) + 1):
            s += a[k]
        out[i] = s


@simt.kernel
def wrong_dim(a, out):
    row = simt.grid(1)
    if row < a.shape[0] and row < len(out):
        s = 0.0
        for k in range(a.shape[0]):
            s += a[row, k]
        out[row] = s


@simt.kernel
def wrapping(a, out):
    i = simt.grid(1) * 3  # wraps around int32 for a large enough grid
    if i < len(a) and i < len(out):
        out[i] = a[i]


@simt.kernel
def no_guard(a, out):
    i = simt.grid(1)
    out[i] = a[i]


def test_near_misses_stay_checked_and_are_caught() -> None:
    n = 40
    cases = [
        (off_by_one, (_f32(n), _f32(n + 10)), (64,), 1),  # i == len(a)
        (negative_offset, (_f32(n), _f32(n)), (64,), 1),  # i == 0
        (loop_too_far, (_f32(n), _f32(n)), (64,), n),  # every thread's last k
        (wrong_dim, (np.ones((4, 6), np.float32), _f32(4)), (8,), 0),  # wide: in bounds
        (wrong_dim, (np.ones((6, 4), np.float32), _f32(6)), (8,), 6),  # tall: k past the row
        (no_guard, (_f32(n), _f32(n)), (64,), 64 - n),
    ]
    for kernel, args, block, expect in cases:
        fn, rep = _proved(kernel, *args)
        assert rep.proven + rep.hoisted + rep.checked == len(_marks(fn)) - (
            len(_marks(fn)) // 2 if rep.versioned else 0
        )
        assert _audit(fn, (1,), block, *args) == expect, kernel


def test_off_by_one_guard_is_not_a_proof() -> None:
    fn, rep = _proved(off_by_one, _f32(10), _f32(20))
    # out[i] is proven by `i < len(out)`; a[i] under `i <= len(a)` is at best a block test
    # that fails wherever the block reaches len(a)
    assert rep.proven == 1
    load = next(op for op in walk(fn.body) if op.opcode == "load" and
                not op.attrs.get("inbounds"))  # fmt: skip
    assert load.operands[0].hint == "a"


def test_negative_offset_is_not_proven() -> None:
    fn, rep = _proved(negative_offset, _f32(10), _f32(10))
    # a[i - 1] is in bounds from the second block on: a block-level test, never a proof
    assert rep.proven == 1 and rep.hoisted == 1
    assert "-(block_idx.x * block_dim.x) + 1 <= 0" in rep.tests
    assert _audit(fn, (3,), (4,), _f32(10), _f32(10)) == 1


def test_a_wrapping_index_is_not_proven_by_its_guard() -> None:
    # `i < len(a)` holds of the wrapped value; i >= 0 would be wrong: for a grid of 2**30
    # threads simt.grid(1) * 3 wraps to negative values. The index's exact integer must fit.
    fn, rep = _proved(wrapping, _f32(10), _f32(10))
    # the block's largest exact index, 3 * (block_idx.x * block_dim.x + block_dim.x - 1),
    # must fit int32 and the lengths: a block-level test (by division), never a proof
    assert (rep.proven, rep.hoisted, rep.checked) == (0, 2, 0)
    assert "3*(block_dim.x * block_idx.x) + 3*block_dim.x - 2147483650 <= 0" in rep.tests
    assert _audit(fn, (2,), (8,), _f32(10), _f32(10)) == 0  # the guard keeps them in
    # a block whose 3 * i wraps (2**29 blocks of 2 threads): the test fails there
    special = {"thread_idx.x": 0, "block_idx.x": 2**29, "block_dim.x": 2,
               "grid_dim.x": 2**29 + 1}  # fmt: skip
    from .ir_eval import run_ops

    env: dict[int, Any] = {p.value.id: x for p, x in zip(fn.params, [_f32(10), _f32(10)])}
    run_ops(fn.body.ops[:-1], env, special)
    assert not env[fn.body.ops[-1].operands[0].id]


def test_pass_is_skipped_on_sim_in_debug_mode_and_without_checks() -> None:
    fn = _fn(guarded, _f32(4), _f32(4))
    assert "bounds" not in prepare(fn, "sim").attrs
    dbg = simt.kernel(debug=True)(guarded.pyfunc)
    specs = dbg.arg_specs(_f32(4), _f32(4), backend="cpu")
    fd = build(dbg.pyfunc, specs, False, True)
    assert "bounds" not in prepare(fd, "cpu").attrs
    fn = _fn(guarded, _f32(4), _f32(4))
    fn.boundscheck = False  # type: ignore[attr-defined]
    assert "bounds" not in prepare(fn, "cpu").attrs


def test_large_bodies_are_not_copied() -> None:
    fn = _fn(other_guard, _f32(4), _f32(4), _f32(4))
    import simt.passes.bounds as B

    old = B.MAX_COPY_OPS
    try:
        B.MAX_COPY_OPS = 3
        rep = prove_bounds(fn)
    finally:
        B.MAX_COPY_OPS = old
    assert not rep.versioned and rep.checked == 2 and rep.proven == 1
    assert "not copied" in rep.kept[0][2]
    assert MAX_COPY_OPS == old


# ------------------------------------------------------------- the backends still agree
@simt.kernel
def flagged(a, flags, out, n):
    # `i < n` bounds a[i] only when n <= len(a): a block-level test; when it fails the
    # checked copy runs, and the flags keep it in bounds
    i = simt.grid(1)
    if i < n and i < len(out) and i < len(flags):
        if flags[i] != 0:
            out[i] = a[i] * 3.0


@pytest.mark.parametrize("backend", ["cpu", "webgpu"])
def test_both_copies_agree_with_sim(backend: str) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(why)
    n = 300
    a = _f32(n)
    for length, flags in ((n, np.ones(n, np.int32)),
                          (n + 50, (np.arange(n + 50) < n).astype(np.int32))):  # fmt: skip
        outs = []
        for be in ("sim", backend):
            out = np.zeros(length, np.float32)
            with simt.using(be):
                flagged[(length + 127) // 128, 128](a, flags, out, length)
            outs.append(out)
        np.testing.assert_array_equal(outs[1], outs[0])
        np.testing.assert_array_equal(outs[0][:n], a * 3.0)


@pytest.mark.parametrize("backend", ["cpu", "webgpu"])
def test_workload_kernels_agree_after_versioning(backend: str) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(why)
    a = np.random.default_rng(1).random((37, 45), dtype=np.float32)
    b = np.random.default_rng(2).random((45, 29), dtype=np.float32)
    want = a.astype(np.float64) @ b
    with simt.using(backend):
        c = np.zeros((37, 29), np.float32)
        matmul[(2, 3), (16, 16)](a, b, c)
    np.testing.assert_allclose(c, want, rtol=1e-5)
    x = _f32(1000)
    with simt.using(backend):
        out = np.zeros(1000, np.float32)
        tile[(1000 + 63) // 64, 64](x, out)
    want_t = x.reshape(-1, 64)[:, ::-1].ravel() if 1000 % 64 == 0 else None
    got = out[: 1000 // 64 * 64].reshape(-1, 64)
    np.testing.assert_array_equal(got, x[: 1000 // 64 * 64].reshape(-1, 64)[:, ::-1])
    del want_t


# ------------------------------------------------------------------ random soundness
def _random_kernel(seed: int) -> Function:
    """A kernel `k(a, out, n)` that loads `a[e]` under random guards, `e` a random index
    expression of the thread's global index, a loop variable, `len(a)`, `n` and constants
    (sums, differences, multiples, min, max, %), the guards random comparisons of such
    expressions with lengths and `n` (off by one or on the wrong value as often as not)."""
    import random

    from simt.types import FLOAT32, INT32, ArrayType

    from .ir_eval import for_, function, if_

    r = random.Random(seed)
    fn, b, (a, out, n) = function(ArrayType(FLOAT32, 1), ArrayType(FLOAT32, 1), INT32)
    tx = b.special("thread_idx", 0)
    gi = b.bin("add", b.bin("mul", b.special("block_idx", 0), b.special("block_dim", 0)), tx)
    la = b.op("shape", [a], [INT32], dim=0).result
    lo = b.op("shape", [out], [INT32], dim=0).result
    pool = [gi, tx, la, n, lo]

    def expr(depth: int) -> Any:
        if depth == 0 or r.random() < 0.3:
            return r.choice(pool) if r.random() < 0.8 else b.const(r.randint(-2, 12), INT32)
        o = r.choice(["add", "sub", "mul", "min", "max", "mod"])
        x = expr(depth - 1)
        if o == "mul":
            return b.bin(o, x, b.const(r.choice([-2, -1, 0, 2, 3, 16, 1 << 20]), INT32))
        if o == "mod":
            return b.bin(o, x, r.choice([la, lo, b.const(r.randint(1, 5), INT32)]))
        y = expr(depth - 1) if r.random() < 0.6 else b.const(r.randint(-2, 2), INT32)
        return b.bin(o, x, y)

    def guard() -> Any:
        c = b.cmp(r.choice(["lt", "le", "gt", "ge", "eq", "ne"]), expr(2), expr(1))
        if r.random() < 0.4:
            c = b.bin("and", c, b.cmp(r.choice(["lt", "le", "ge"]), expr(2), expr(1)))
        return b.un("not", c) if r.random() < 0.2 else c

    def access() -> list[Any]:
        b.op("load", [a, expr(3)], [FLOAT32])
        return []

    def nest(depth: int) -> list[Any]:
        k = r.random()
        if depth == 0 or k < 0.3:
            return access()
        if k < 0.7:
            if_(b, guard(), lambda: nest(depth - 1), lambda: access() if r.random() < .3 else [],
                [])  # fmt: skip
            return []
        stop = r.choice([la, n, lo, b.bin("sub", la, b.const(1, INT32))])
        start = b.const(r.randint(-1, 2), INT32)

        def body(iv: Any) -> list[Any]:
            pool.append(iv)
            nest(depth - 1)
            pool.pop()
            return []

        loop = for_(b, start, stop, b.const(1, INT32), [], body)
        del loop
        b.block.ops[-1].attrs["sign"] = 1
        return []

    nest(3)
    nest(2)
    verify(fn)
    return fn


def test_random_guarded_accesses_are_never_wrongly_proven() -> None:
    import random

    proven = caught = 0
    for seed in range(150):
        fn = _random_kernel(seed)
        rep = prove_bounds(fn)
        verify(fn)
        proven += rep.proven + rep.hoisted
        for la, nn, lo in ((5, 7, 3), (9, 9, 9), (0, 3, 1), (12, -1, 2)):
            caught += _audit(fn, (2,), (6,), _f32(la), _f32(lo), nn)
        # single threads of huge launches (grid_dim.x * block_dim.x < 2**31, as launches
        # are), where products of the global index wrap
        g = random.Random(seed)
        for _ in range(6):
            bd = g.choice([1, 32, 256, 1024])
            gd = g.randint(1, (2**31 - 1) // bd)
            special = {"thread_idx.x": g.randrange(bd), "block_idx.x": g.randrange(gd),
                       "block_dim.x": bd, "grid_dim.x": gd}  # fmt: skip
            try:
                evaluate(fn, [_f32(9), _f32(9), g.choice([5, 40])], special)
            except EvalBounds as e:
                assert e.op is not None and not e.op.attrs.get("inbounds"), seed
    # the generator makes both kinds: accesses the pass proves and accesses it must check
    assert proven > 50 and caught > 50


@simt.kernel
def tiled_index(a, out):
    x = block_idx.x * 16 + thread_idx.x  # a constant block size: may wrap for huge grids
    if x < len(a) and x < len(out):
        out[x] = a[x]


def test_constant_block_multiple_is_tested_by_division() -> None:
    fn, rep = _proved(tiled_index, _f32(40), _f32(40))
    # `16 * block_idx.x + block_dim.x - 1` must not wrap: tested as
    # block_idx.x <= (2**31 - block_dim.x) // 16, without computing the product
    assert rep.hoisted == 2 and rep.checked == 0
    assert "block_dim.x + 16*block_idx.x - 2147483648 <= 0" in rep.tests
    assert _audit(fn, (3,), (16,), _f32(40), _f32(40)) == 0
    # block 2**27 + 1 of 16 threads: x wraps to -2**31 + 16 + t, which passes `x < len(a)`;
    # the test fails there, so the checked copy runs and stops the access
    special = {"thread_idx.x": 0, "block_idx.x": 2**27 + 1, "block_dim.x": 16,
               "grid_dim.x": 2**27 + 2}  # fmt: skip
    with pytest.raises(EvalBounds) as e:
        evaluate(fn, [_f32(40), _f32(40)], special)
    assert e.value.op is not None and not e.value.op.attrs.get("inbounds")


@simt.kernel
def tree(a, partial):
    sh = simt.shared.array(64, np.float32)
    tid = thread_idx.x
    i = simt.grid(1)
    sh[tid] = a[i] if i < len(a) else 0.0
    simt.syncthreads()
    s = block_dim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]  # tid + s < 2 * s <= block_dim.x <= 64
        simt.syncthreads()
        s //= 2
    if tid == 0:
        partial[block_idx.x] = sh[0]


@simt.kernel
def double_buffer(a, out):
    temp = simt.shared.array(128, np.float32)
    t = thread_idx.x
    pout = 0
    temp[t] = a[t] if t < len(a) else 0.0
    simt.syncthreads()
    for _ in range(4):
        pout = 1 - pout  # 0 or 1: a loop-carried range
        temp[pout * 64 + t] = temp[(1 - pout) * 64 + t] * 2.0
        simt.syncthreads()
    if t < len(out):
        out[t] = temp[pout * 64 + t]


def test_reduction_tree_and_double_buffer_need_only_block_tests() -> None:
    fn, rep = _proved(tree, _f32(256), _f32(4))
    # s never grows from block_dim.x // 2, so tid + s <= block_dim.x - 1: one test
    assert rep.checked == 0 and "block_dim.x - 64 <= 0" in rep.tests
    assert _audit(fn, (4,), (64,), _f32(256), _f32(4)) == 0
    assert _audit(fn, (1,), (128,), _f32(256), _f32(4)) > 0  # a block too big for the tile
    fn, rep = _proved(double_buffer, _f32(64), _f32(64))
    assert rep.checked == 0 and "block_dim.x - 64 <= 0" in rep.tests
    assert _audit(fn, (1,), (64,), _f32(64), _f32(64)) == 0


@simt.kernel
def two_per_thread(a, out):
    i = block_idx.x * (block_dim.x * 2) + thread_idx.x  # a product of two block-level values
    s = 0.0
    if i < len(a):
        s = a[i]
    if i + block_dim.x < len(a):
        s += a[i + block_dim.x]
    if block_idx.x < len(out) and thread_idx.x == 0:
        out[block_idx.x] = s


def test_product_of_block_values_is_tested_by_division() -> None:
    fn, rep = _proved(two_per_thread, _f32(100), _f32(4))
    assert rep.checked == 0 and rep.hoisted == 2
    assert any("block_dim.x * 2" in t and "block_idx.x" in t for t in rep.tests), rep.tests
    assert _audit(fn, (4,), (16,), _f32(100), _f32(4)) == 0
    # block 2**26 of 32 threads: i = 2**32 wraps to 0..31 and passes `i < len(a)` with a
    # value that is not the exact index; the test fails there and the checked copy runs
    special = {"thread_idx.x": 5, "block_idx.x": 2**26, "block_dim.x": 32,
               "grid_dim.x": 2**26 + 1}  # fmt: skip
    evaluate(fn, [_f32(100), _f32(4)], special)  # in bounds (wrapped) but checked:
    top = fn.body.ops[-1]
    assert top.opcode == "if"
    from .ir_eval import run_ops  # the test itself, evaluated for that block

    env: dict[int, Any] = {p.value.id: x for p, x in zip(fn.params, [_f32(100), _f32(4)])}
    run_ops(fn.body.ops[:-1], env, special)
    assert not env[top.operands[0].id]
    special["block_idx.x"] = 1  # and passes for an ordinary block
    run_ops(fn.body.ops[:-1], env, special)
    assert env[top.operands[0].id]


def _tile_counter(step: int) -> Any:
    """nbody's tile loads: `tile` counts the loop's iterations (`step` a time; 2 is a near
    miss that reads past the end)."""

    @simt.kernel
    def tile_counter(x, out):
        sh = simt.shared.array(32, simt.float32)
        t = thread_idx.x
        acc = simt.float32(0.0)
        tile = 0
        for _ in range(0, len(x), 32):
            sh[t] = x[tile * block_dim.x + t]
            simt.syncthreads()
            for j in range(block_dim.x):
                acc += sh[j]
            simt.syncthreads()
            tile += step
        out[block_idx.x * block_dim.x + t] = acc

    return tile_counter


def test_a_counter_of_a_loops_iterations_is_tested_once_per_block() -> None:
    """`tile` is `c * k` in iteration `k` of `range(0, len(x), 32)`, so `tile * block_dim.x +
    t` is at most `c * (len(range(0, len(x), 32)) - 1) * block_dim.x + block_dim.x - 1`: a
    block test (the product tested by division), true when `len(x)` is a multiple of 32
    and the block has 32 threads. Before, nbody's four tile loads stayed checked (1.07x)."""
    for c in (1, 2):
        fn, rep = _proved(_tile_counter(c), _f32(96), _f32(64))
        assert rep.checked == 0, rep.kept
        assert any("(len(range(0, len(x), 32)) - 1)" in t for t in rep.tests), rep.tests
        caught = [_audit(fn, (2,), (32,), _f32(n), _f32(64)) for n in (96, 224, 80, 200)]
        if c == 1:  # in bounds at multiples of 32; past the end in the last tile otherwise
            assert caught == [0, 0, 32, 48]  # 80: threads 16-31 read 80-95; 200: 8-31
        else:  # every thread reads past the end at `tile` 4 or 6 (`2 * k`)
            assert caught == [64, 64, 64, 64]


@simt.kernel
def add_block_sums(data, incr):  # bench/user_kernels/scan.py's last launch
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(data):
        data[i] += incr[block_idx.x]


def test_a_coarsened_kernel_tests_every_block_it_runs_once() -> None:
    """The block-level test reads `block_idx.x`; run as one wide block of 8 (`spmd.coarsen`)
    it is tested for each of the 8 blocks before the wide block starts, so it stays one test
    outside the thread loops (it had become a per-lane test with both copies of the body
    inside them: the kernel ran 20x slower with checks on). Same results, same error."""
    import copy

    from simt.passes.spmd import coarsen, lower

    n, blocks = 64, 16
    fn, rep = _proved(add_block_sums, _f32(n * blocks), _f32(blocks))
    assert rep.tests == ["block_idx.x - len(incr) + 1 <= 0"]
    low = lower(coarsen(copy.deepcopy(fn), 8))
    verify(low)
    top = [op for op in low.body.ops if op.opcode == "if" and op.attrs.get("version")]
    assert len(top) == 1  # at block level, each branch with its own thread loops
    assert all(any(o.attrs.get("lanes") for o in walk(r)) for r in top[0].regions)
    assert not any(o.opcode == "if" and o.attrs.get("version")
                   for loop in walk(low.body) if loop.attrs.get("lanes")
                   for o in walk(loop.regions[0]))  # fmt: skip
    data = np.arange(1024 * 64, dtype=np.float32)
    incr = np.arange(1024, dtype=np.float32) * 10
    with simt.using("cpu"):
        got = data.copy()
        add_block_sums[1024, 64](got, incr)  # a launch the cpu runtime coarsens
        np.testing.assert_array_equal(got, data + np.repeat(incr, 64))
        want = r"index 1023 is out of bounds of `incr` with size 1023"
        with pytest.raises(simt.KernelError, match=want):
            add_block_sums[1024, 64](np.zeros(1024 * 64, np.float32), np.ones(1023, np.float32))


# ------------------------------------------------------ the front end's IndexError checks
def _built(kernel: Any, *args: Any) -> Function:
    specs = kernel.arg_specs(*args, backend="cpu")
    return prepare(build(kernel.pyfunc, specs, False, False), "cpu")  # as a launch compiles it


def _checks(block: Any) -> list[str]:
    return [op.attrs["check"] for op in walk(block) if op.opcode == "cmp" and "check" in op.attrs]


def test_a_hoisted_check_leaves_the_fast_copy_without_any_trace() -> None:
    """An access the pass can only test per block (`a[i]` guarded on `c`) is checked by the
    front end as raising IndexError; the copy of the body the block-level test guards has
    the check True, and folding removes the exception state and the failure record with it,
    while the other copy keeps the check."""
    n = 50
    fn = _built(other_guard, _f32(n), _f32(n), _f32(n))
    verify(fn)
    top = fn.body.ops[-1]
    assert top.opcode == "if" and top.attrs.get("version")
    fast, slow = top.regions
    assert _checks(fast) == [] and not any(op.opcode == "atomic" for op in walk(fast))
    assert sorted(_checks(slow)) == ["upper", "upper"]  # `a[i]`, `b[i]` (`i >= 0` proven)
    assert any(op.opcode == "atomic" for op in walk(slow))  # the failure record
    rep = fn.attrs["bounds"]
    assert (rep.proven, rep.hoisted, rep.checked) == (1, 2, 0)


@simt.kernel
def guarded_in_try(a, out):
    i = simt.grid(1)
    if i < len(a) and i < len(out):
        try:
            out[i] = a[i] * 2.0
        except IndexError:
            out[i] = -1.0


@simt.kernel
def other_guard_in_try(a, b, c):
    i = simt.grid(1)
    if i < len(c):
        try:
            c[i] = a[i] + b[i]
        except IndexError:
            c[i] = -1.0


def test_a_proven_check_is_folded_away() -> None:
    """Inside `try` every access is checked by the front end (its comparisons marked
    `check`); where the guard proves it, the check becomes True and the handler and the
    exception state go with it: the same loads and stores as without the `try`."""
    fn, rep = _proved(guarded_in_try, _f32(8), _f32(8))
    assert _checks(_fn(guarded_in_try, _f32(8), _f32(8)).body) != []  # before the pass
    assert _checks(fn.body) == []
    assert [op.opcode for op in walk(fn.body) if op.opcode in MEMORY] == ["load", "store"]
    assert (rep.proven, rep.hoisted, rep.checked) == (3, 0, 0)  # (the handler's store too)


def test_a_hoisted_check_is_true_in_the_copy_the_block_test_guards() -> None:
    """Inside `try`, an access the pass can only test per block (`a[i]` guarded on `c`): the
    copy of the body the block-level test guards has the check True (no comparison left),
    the other keeps it and raises the catchable IndexError as before."""
    n = 50
    fn, rep = _proved(other_guard_in_try, _f32(n), _f32(n), _f32(n))
    top = fn.body.ops[-1]
    assert top.opcode == "if" and top.attrs.get("version")
    fast, slow = top.regions
    assert _checks(fast) == []
    assert sorted(_checks(slow)) == ["upper", "upper"]  # `a[i]`, `b[i]` (`i >= 0` proven)
    assert (rep.proven, rep.hoisted, rep.checked) == (2, 2, 0)  # `c[i]`s proven
    for backend in ("sim", "cpu"):
        c = np.zeros(n, np.float32)
        with simt.using(backend):
            other_guard_in_try[2, 32](_f32(n - 5), _f32(n), c)
        np.testing.assert_array_equal(c[: n - 5], 2 * _f32(n - 5))
        assert c[n - 5 :].tolist() == [-1.0] * 5


def test_an_unproven_access_raises_and_its_thread_stops() -> None:
    """`gather`-like kernel, checks kept: the failing threads raise IndexError, their later
    store does not happen, the others finish; the pass's audit still holds on the output
    (no access marked in bounds goes out of bounds)."""

    @simt.kernel
    def gather(out: Any, a: Any, idx: Any) -> None:
        i = simt.grid(1)
        if i < len(out):
            out[i] = -1.0
            out[i] = a[idx[i]]

    idx = np.array([0, 5, 2, 9, 1, -1, 3, 4], np.int32)
    fn = _built(gather, _f32(8), _f32(6), idx)
    assert _audit(fn, (1,), (8,), np.zeros(8, np.float32), _f32(6), idx, np.zeros(64, np.int32)
                  ) == 0  # fmt: skip
    for backend in ("sim", "cpu"):
        out = np.zeros(8, np.float32)
        with simt.using(backend), pytest.raises(simt.KernelError) as e:
            gather[1, 8](out, _f32(6), idx)
        assert [f.thread for f in e.value.failures] == [3, 5]
        assert [f.message for f in e.value.failures] == [
            "index 9 is out of bounds of `a` with size 6",
            "index -1 is out of bounds of `a` with size 6",
        ]
        assert e.value.finished == 6
        assert out.tolist() == [0.0, 5.0, 2.0, -1.0, 1.0, -1.0, 3.0, 4.0]


def test_an_index_left_checked_is_one_unsigned_comparison() -> None:
    """`0 <= i < n` left to check at run time is `unsigned(i) < unsigned(n)`
    (`passes/bounds/fuse.py`): one comparison on every backend, and on the CPU the gather
    keeps its 32-bit indices (LLVM learns no `i >= 0` to turn their sign extension into a
    zero extension: `vgatherdps`, as without checks)."""

    @simt.kernel
    def gather(out: Any, a: Any, idx: Any) -> None:
        i = simt.grid(1)
        if i < len(out):
            out[i] = a[idx[i]]

    idx = np.array([0, 5, 2, 1], np.int32)
    unfused = build(gather.pyfunc, gather.arg_specs(_f32(4), _f32(6), idx, backend="cpu"), False,
                    False)  # fmt: skip
    assert {"lower", "upper"} <= set(_checks(unfused.body))  # (idx[i] and out[i] proven later)
    fn = _built(gather, _f32(4), _f32(6), idx)
    # `a[idx[i]]`'s pair is one comparison; `idx[i]` (guarded on `out`) is tested per block,
    # its `i < len(idx)` left alone in the copy that checks
    assert "lower" not in _checks(fn.body)
    cmps = [op for op in walk(fn.body) if op.opcode == "cmp"]
    unsigned = [op for op in cmps if op.operands[0].type == UINT32]
    assert unsigned and all(op.attrs == {"op": "lt"} for op in unsigned)
    ir = registry.current().source(fn) if simt.backend() == "cpu" else None
    assert ir is None or "icmp ult i32" in ir


# ------------------------------------------------------------------ aligned tree steps (#23)
@simt.kernel
def interleaved(a, partial):
    # Harris's first reduction: `tid % (2 * s) == 0` makes tid a multiple of a power of two
    # that divides 64, so tid + s <= 63 for every block of at most 64 threads (the bounds of
    # tid and s alone give 2 * block_dim.x - 2: a test that fails for a block of 64)
    sh = simt.shared.array(64, np.float32)
    tid = thread_idx.x
    i = simt.grid(1)
    sh[tid] = a[i] if i < len(a) else 0.0
    simt.syncthreads()
    s = 1
    while s < block_dim.x:
        if tid % (2 * s) == 0:
            sh[tid] += sh[tid + s]
        simt.syncthreads()
        s *= 2
    if tid == 0:
        partial[block_idx.x] = sh[0]


@simt.kernel
def interleaved_from3(a, partial):
    sh = simt.shared.array(64, np.float32)
    tid = thread_idx.x
    sh[tid] = 1.0
    simt.syncthreads()
    s = 3  # 3, 6, 12, ...: not powers of two (s = 6, tid = 60: tid + s = 66)
    while s < block_dim.x:
        if tid % (2 * s) == 0:
            sh[tid] += sh[tid + s]
        simt.syncthreads()
        s *= 2
    if tid == 0:
        partial[block_idx.x] = sh[0]


@simt.kernel
def interleaved_48(a, partial):
    sh = simt.shared.array(48, np.float32)  # 2 * s = 32 does not divide 48: tid 32 + 16
    tid = thread_idx.x
    sh[tid] = 1.0
    simt.syncthreads()
    s = 1
    while s < block_dim.x:
        if tid % (2 * s) == 0:
            sh[tid] += sh[tid + s]
        simt.syncthreads()
        s *= 2
    if tid == 0:
        partial[block_idx.x] = sh[0]


@simt.kernel
def interleaved_capped(a, partial):
    sh = simt.shared.array(64, np.float32)
    tid = thread_idx.x
    sh[tid] = 1.0
    simt.syncthreads()
    s = 1
    t = 1
    k = 0
    while k < 8:
        t = s  # 1, 2, 4, 8, 16, 24: a power of two only while s is one
        s = min(2 * t, 24)
        if tid % (2 * t) == 0:
            sh[tid] += sh[tid + t]  # t = 24, tid = 48: 72
        simt.syncthreads()
        k += 1
    if tid == 0:
        partial[block_idx.x] = sh[0]


def test_a_multiple_of_a_power_of_two_is_aligned_in_a_tile_of_one() -> None:
    fn, rep = _proved(interleaved, _f32(256), _f32(4))
    # one test of the block's size, as for `sh[tid]`; not `2*block_dim.x - 65 <= 0` as well
    assert rep.checked == 0 and rep.tests == [
        "block_dim.x - 64 <= 0", "block_idx.x - len(partial) + 1 <= 0"], rep.tests
    for block in (64, 48, 5, 1):  # the copy without checks, powers of two or not
        assert _audit(fn, (2,), (block,), _f32(256), _f32(4)) == 0, block
    assert _audit(fn, (1,), (128,), _f32(256), _f32(4)) > 0  # a block too big for the tile
    for backend in ("sim", "cpu"):
        out = np.zeros(4, np.float32)
        with simt.using(backend):
            interleaved[4, 64](_f32(256), out)
        np.testing.assert_array_equal(out, _f32(256).reshape(4, 64).sum(1))


def test_alignment_needs_powers_of_two_throughout() -> None:
    # a step from 3, an extent of 48, a step a power of two only until a min caps it: each
    # goes out of the tile at 64 (48) threads, so none may be proven or tested by alignment
    for kernel, block in ((interleaved_from3, 64), (interleaved_48, 48),
                          (interleaved_capped, 64)):  # fmt: skip
        fn, _ = _proved(kernel, _f32(64), _f32(1))
        assert _audit(fn, (1,), (block,), _f32(64), _f32(1)) > 0, kernel
        out = np.zeros(1, np.float32)
        with simt.using("cpu"), pytest.raises(simt.KernelError) as e:
            kernel[1, block](_f32(64), out)
        assert "out of bounds" in str(e.value) and "`sh`" in str(e.value), kernel


@simt.kernel
def every_other(a, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    j = i * 2
    if j < len(a):
        out[i] = a[j]


@simt.kernel
def every_other_off_by_one(a, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    j = i * 2
    if j <= len(a):  # near miss: j == len(a) reads past the end
        out[i] = a[j]


def test_a_guard_on_a_product_that_may_wrap_keeps_its_upper_bound() -> None:
    """`i * 2 < len(a)` bounds `a[i * 2]` above, once a block test says `i * 2` does not
    wrap. The no-wrap test took the type's range first (a constant that never holds), so the
    guard's bound was dropped and `a` was tested against the block's whole range: every
    block whose range reached past `len(a)` ran the checked copy. The near miss `<=` still
    raises."""
    fn, rep = _proved(every_other, _f32(1000), _f32(1024))
    assert rep.checked == 0, rep.kept
    assert not any("len(a)" in t for t in rep.tests), rep.tests
    assert _audit(fn, (4,), (256,), _f32(1000), _f32(1024)) == 0
    fn, rep = _proved(every_other_off_by_one, _f32(1000), _f32(1024))
    assert _audit(fn, (4,), (256,), _f32(1000), _f32(1024)) == 1  # thread 500 reads a[1000]
    with simt.using("cpu"):
        out = np.zeros(1024, np.float32)
        a = np.arange(1000, dtype=np.float32)
        every_other[4, 256](a, out)
        np.testing.assert_array_equal(out[:500], a[::2])
        (spec,) = every_other.specialisations("cpu")
        assert registry.get("cpu").checked_threads(spec.compiled) == 0
        with pytest.raises(simt.KernelError, match="index 1000 is out of bounds of `a`"):
            every_other_off_by_one[4, 256](a, out)
