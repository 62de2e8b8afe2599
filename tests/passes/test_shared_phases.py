"""Shared-memory phases between barriers (Numba's tiled matmul): the tile loads are plain
thread loops over ranges of lanes with contiguous vector loads and stores, and the uniform
loop over a tile (`for j in range(TPB): tmp += sA[ty, j] * sB[j, tx]`) is jammed like the
naive matmul's `k` loop; the results match `sim`."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np

import simt
from simt.ir import walk
from simt.passes.spmd import lower
from simt.runtime import registry

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "user_kernels"))
from matmul import TPB, fast_matmul  # noqa: E402


def _ir(n: int, boundscheck: bool = True):  # type: ignore[no-untyped-def]
    from simt.pipeline import build

    a = np.ones((n, n), np.float32)
    specs = fast_matmul.arg_specs(a, a, a.copy(), backend="cpu")
    return build(fast_matmul.pyfunc, specs, False, False, boundscheck=boundscheck)


def test_tile_loop_is_jammed_and_tile_loads_are_ranges() -> None:
    low = lower(_ir(64))
    lanes = [op.attrs.get("lanes") for op in walk(low.body) if op.opcode == "for"]
    assert "xs" in lanes and "ys" in lanes  # the j loop runs inside a jammed thread loop
    assert any(op.attrs.get("jammed") for op in walk(low.body) if op.opcode == "for")
    # the guarded tile loads became their own thread loops over lane ranges: no `if` there
    for op in walk(low.body):
        if op.opcode == "for" and op.attrs.get("lanes") == "x":
            body = list(walk(op.regions[0]))
            if any(o.opcode == "store" and o.operands[0].hint in ("sA", "sB") for o in body):
                assert not any(o.opcode == "if" for o in body)


def test_tile_phases_use_vector_loads_and_stores() -> None:
    # the tile phases as the copy without checks runs them (the bounds pass's block test
    # picks it for every block of a launch whose tiles fit: `passes/bounds/`); the checked
    # copy's loads are masked by their checks
    opt = registry.get("cpu").render(_ir(1024, boundscheck=False), stage="opt")  # type: ignore[call-arg]
    assert len(re.findall(r"= load <\d+ x float>", opt)) >= 2  # rows of A's and B's tiles
    assert len(re.findall(r"store <\d+ x float>", opt)) >= 2  # into sA and sB
    assert "masked.load" not in opt and "gather" not in opt


def test_tiled_matmul_matches_sim_with_partial_tiles() -> None:
    n = 37  # tiles that stick out of the matrices: the guards matter
    g = np.random.default_rng(3)
    a, b = g.random((n, n), dtype=np.float32), g.random((n, n), dtype=np.float32)
    outs = []
    for backend in ("sim", "cpu"):
        simt.use(backend)
        c = np.zeros((n, n), np.float32)
        blocks = (n + TPB - 1) // TPB
        fast_matmul[(blocks, blocks), (TPB, TPB)](a, b, c)
        simt.synchronize()
        outs.append(c)
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6)
    np.testing.assert_allclose(outs[1], a.astype(np.float64) @ b, rtol=1e-5)
