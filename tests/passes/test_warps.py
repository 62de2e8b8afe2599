"""passes/warps.py: warp functions written through shared memory and barriers (cpu, webgpu)
give the answers `sim` gives by running them itself, also under thread-dependent branches and
after threads returned; the front end's refusals name the user's line."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import simt
from simt.ir import verify, walk
from simt.passes.barriers import lift
from simt.passes.warps import lower
from simt.runtime import registry

FULL = 0xFFFFFFFF


@simt.kernel
def branchy(a, out):
    i = simt.grid(1)
    v = a[i]
    out[i, 1] = simt.shfl_xor_sync(FULL, v, 1)
    evens = simt.ballot_sync(FULL, v % 2 == 0)  # a mask naming exactly the lanes of the branch
    if v % 2 == 0:  # (a shuffle here would read lanes outside the branch: undefined)
        out[i, 0] = simt.ballot_sync(evens, v > 2)
        out[i, 2] = simt.activemask()
    else:
        out[i, 3] = simt.all_sync(simt.activemask(), v > 0)
    out[i, 4] = simt.shfl_down_sync(FULL, simt.int64(v) * 3_000_000_000, 3)
    out[i, 5] = simt.laneid + simt.warpsize


def _run(backend: str) -> np.ndarray:
    simt.use(backend)
    a = np.random.default_rng(5).integers(-4, 9, 64).astype(np.int64)
    out = np.zeros((64, 6), np.int64)
    branchy[1, 64](a, out)
    return out


@pytest.mark.parametrize("backend", ["cpu", "webgpu"])
def test_lowered_warp_functions_agree_with_sim(backend: str) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(why)
    if not registry.get(backend).has_int64():  # the kernel shuffles int64 values
        pytest.skip(f"the {backend} adapter here has no 64-bit integers (k_warp covers it)")
    np.testing.assert_array_equal(_run(backend), _run("sim"))


def test_lowering_leaves_no_warp_op_and_lifts_its_barriers() -> None:
    a = np.zeros(64, np.int64)
    spec = branchy.specialise(branchy.bind(a, np.zeros((64, 6), np.int64)),
                              registry.get("sim"))  # fmt: skip
    fn = lift(lower(copy.deepcopy(spec.fn)))
    verify(fn)
    assert not any(op.opcode == "warp" for op in walk(fn.body))
    assert any(op.opcode == "barrier" for op in fn.body.ops)


@simt.kernel
def shuffles_a_tuple(out):
    out[0] = simt.shfl_sync(FULL, (1, 2), 0)


@simt.kernel
def bad_mask(out):
    out[0] = simt.ballot_sync(-1, True)


@simt.kernel
def too_few(out):
    out[0] = simt.shfl_down_sync(FULL, 1.0)


@pytest.mark.parametrize(
    "kernel, words",
    [(shuffles_a_tuple, "expected a number"), (bad_mask, "warp mask is an integer from 0"),
     (too_few, "shfl_down_sync(mask, value, lane) takes 3")],
)  # fmt: skip
def test_refusals_name_the_line(kernel: simt.Kernel, words: str) -> None:
    simt.use("sim")
    with pytest.raises(simt.CompileError) as e:
        kernel[1, 32](np.zeros(1, np.float32))
    assert "test_warps.py" in str(e.value) and "out[0] = simt." in str(e.value)
    assert words in str(e.value), str(e.value)
