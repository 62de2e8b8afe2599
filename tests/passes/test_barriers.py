"""passes/barriers.py: after `lift`, every barrier of every corpus kernel is reached by all
threads of a block (none under thread-dependent control), the IR verifies, and kernels
without barriers under such control come out as they went in (less their `exit` markers)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import simt
from corpus import CASES
from simt.ir import format_function, verify, walk
from simt.passes.barriers import has_barrier, lift
from simt.passes.uniformity import varying
from simt.runtime import registry


def _ir(case: object) -> simt.ir.Function:
    """A copy of the case's IR (the specialisation's own is cached: `lift` changes in place)."""
    k = case.kernel  # type: ignore[attr-defined]
    fn = k.specialise(k.bind(*case.make_args()), registry.get("sim")).fn  # type: ignore[attr-defined]
    return copy.deepcopy(fn)  # type: ignore[no-any-return]


def _divergent_barriers(fn: simt.ir.Function) -> list[simt.ir.Op]:
    var = varying(fn, loads=False)
    out = []
    for op in walk(fn.body):
        if not has_barrier(op) or op.opcode == "barrier":
            continue
        if op.opcode == "if" and op.operands[0].id in var:
            out.append(op)
        elif op.opcode == "for" and any(v.id in var for v in op.operands[:3]):
            out.append(op)
        elif op.opcode == "while" and op.regions[0].ops[-1].operands[0].id in var:
            out.append(op)
    return out


BARRIER_CASES = [c for c in CASES if any(o.opcode == "barrier" for o in walk(_ir(c).body))]


@pytest.mark.parametrize("case", BARRIER_CASES, ids=[c.name for c in BARRIER_CASES])
def test_every_barrier_is_reached_by_the_whole_block(case: object) -> None:
    fn = lift(_ir(case))
    verify(fn)
    assert not _divergent_barriers(fn), format_function(fn)
    assert not any(op.opcode == "exit" for op in walk(fn.body))


def test_the_returning_kernels_had_divergent_barriers_before() -> None:
    names = {c.name for c in BARRIER_CASES if _divergent_barriers(_ir(c))}
    assert {"barrier_after_early_return", "barrier_in_guard_all_take",
            "barrier_return_in_loop", "barrier_tiled_matmul_return"} <= names  # fmt: skip


def test_uniform_barrier_kernels_are_left_as_they_are() -> None:
    # (the kernel's own code: a launch also compiles the IndexError of an index the bounds
    # pass leaves checked, and a thread that raised leaves the loop its barriers are in, #23)
    case = next(c for c in CASES if c.name.startswith("reduce_shared"))
    fn, _ = case.kernel.specialised_ir(*case.make_args())  # type: ignore[attr-defined]
    before = format_function(copy.deepcopy(fn))
    assert format_function(lift(copy.deepcopy(fn))) == before


@simt.kernel
def early(a, n):
    i = simt.grid(1)
    if i >= n:
        return
    a[i] = 1.0


def test_exit_markers_stay_only_where_barriers_are() -> None:
    # a kernel without barriers has no `exit` op: its IR (and every backend's code) is what it
    # was before threads were counted out of barriers
    text = early.ir(np.zeros(4, np.float32), 3)
    assert "exit" not in text


@simt.kernel
def different_barriers(out):
    t = simt.thread_idx.x
    if t < 4:
        simt.syncthreads()
    else:
        out[t] = 1
        simt.syncthreads()
    out[t] += t


@simt.kernel
def some_skip(out):
    t = simt.thread_idx.x
    if t % 2 == 0:
        simt.syncthreads()
    out[t] = t


@pytest.mark.parametrize("kernel", [different_barriers, some_skip])
def test_sim_names_the_barrier_threads_of_a_block_do_not_all_reach(kernel: simt.Kernel) -> None:
    simt.use("sim")
    with pytest.raises(simt.KernelError) as e:
        kernel[2, 8](np.zeros(8, np.int32))
    msg = str(e.value)
    assert "threads of one block reach different barriers" in msg
    assert "test_barriers.py" in msg and "simt.syncthreads()" in msg


@simt.kernel
def all_take(a, out):
    i = simt.grid(1)
    if i < a.size:
        out[i] = a[i]
        simt.syncthreads()
        out[i] += a[(i + 1) % a.size]


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_a_guard_every_thread_takes_runs_everywhere(backend: str) -> None:
    simt.use(backend)
    a = np.arange(16, dtype=np.float32)
    out = np.zeros(16, np.float32)
    all_take[2, 8](a, out)
    np.testing.assert_array_equal(out, a + np.roll(a, -1))


@simt.kernel
def barrier_in_condition(out):
    while syncing(out[0] < 5):
        out[0] += 1


def syncing(x: bool) -> bool:
    simt.syncthreads()
    return x


def test_a_barrier_in_a_while_condition_is_refused_at_its_line() -> None:
    with pytest.raises(simt.CompileError, match="syncthreads\\(\\) in the condition of a while"):
        barrier_in_condition[1, 4](np.zeros(1, np.int32))


@pytest.mark.parametrize("backend", ["cpu", "webgpu"])
def test_debug_mode_checks_the_barriers_as_sim_does(backend: str) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(why)
    simt.use(backend)
    checked = simt.kernel(debug=True)(some_skip.pyfunc)
    with pytest.raises(simt.KernelError) as e:
        checked[2, 8](np.zeros(8, np.int32))
    assert "reach different barriers" in str(e.value) and "simt.syncthreads()" in str(e.value)


DEBUG_CASES = [c for c in CASES if c.name.startswith(("barrier_", "warp_"))]


@pytest.mark.parametrize("case", DEBUG_CASES, ids=[c.name for c in DEBUG_CASES])
def test_debug_mode_accepts_threads_that_returned(case: object) -> None:
    # no false alarm: returned threads and lowered warp functions' own barriers are fine
    simt.use("cpu")
    k = simt.kernel(debug=True)(case.kernel.pyfunc)  # type: ignore[attr-defined]
    args = case.make_args()  # type: ignore[attr-defined]
    k[case.grid, case.block](*args)  # type: ignore[attr-defined]
