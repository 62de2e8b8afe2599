"""A `for` over a range whose body may raise (an access the bounds pass cannot prove, checked
as an IndexError) stays a `for` (issue 23): the exception state is carried as the loop's
values, and a thread that raised skips the rest of its trips (in a kernel whose threads meet,
where it stops) or runs them without effects (elsewhere). Before, such a loop became a
`while` whose condition tested the flag, and the bounds pass lost what the range told it:
`a[j]` below, in bounds for every `j` of `range(0, len(a), grid_dim.x)`, was left checked ('no
lower bound of the index the block shares'), as was every access by a loop variable in a
histogram's loops (bench/bounds.py: 1.04x -> 2.95x checks on / off). And an access that keeps
one comparison of its check keeps the others (`passes.bounds.prove_bounds`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt
from simt.errors import KernelError
from simt.ir import walk
from simt.kernel import Kernel
from simt.runtime import registry


@simt.kernel
def dot_rows(a, b, idx, out):
    sh = simt.shared.array(32, np.float32)
    t = simt.thread_idx.x
    s = 0.0
    for j in range(0, len(a), simt.grid_dim.x):
        s += a[j] * b[idx[t] + j]  # meets
    sh[t] = s
    simt.syncthreads()
    h = 16
    while h > 0:  # (a `while`: the failing thread stops, `pipeline.build`)
        if t < h:
            sh[t] += sh[t + h]
        simt.syncthreads()
        h //= 2
    out[t] = s + sh[0] * 0.0


@simt.kernel
def dot_rows_alone(a, b, idx, out):
    t = simt.grid(1)
    if t < len(out):
        s = 0.0
        for j in range(0, len(a), simt.grid_dim.x):
            s += a[j] * b[idx[t] + j]  # alone
        out[t] = s


def _line(k: Kernel, mark: str) -> int:
    import inspect

    lines, first = inspect.getsourcelines(k.pyfunc)
    return first + next(n for n, t in enumerate(lines) if t.rstrip().endswith(f"# {mark}"))


def _args(bad: bool) -> tuple[np.ndarray, ...]:
    a = np.arange(1, 9, dtype=np.float32)
    b = np.arange(64, dtype=np.float32)
    idx = (np.arange(32) % 50).astype(np.int32)
    if bad:
        idx[5] = 60  # thread 5 walks off `b` at j = 4
    return a, b, idx, np.full(32, -1.0, np.float32)


def _want(a: np.ndarray, b: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return np.array([(a * b[i : i + len(a)]).sum() for i in idx], np.float32)


@pytest.mark.parametrize("k", [dot_rows, dot_rows_alone], ids=["meets", "alone"])
def test_the_loop_stays_a_for_and_its_range_proves_its_index(k: Kernel) -> None:
    args = _args(False)
    present, why = registry.probe("cpu")
    if not present:  # (CI requires every backend: tests/conftest.py)
        pytest.skip(f"backend 'cpu' not present: {why}")
    simt.use("cpu")
    k[1, 32](*args)
    spec = k.specialisations("cpu")[-1]
    rep = spec.fn.attrs["bounds"]
    line = _line(k, "meets" if k is dot_rows else "alone")
    # `b[idx[t] + j]` keeps its check; `a[j]` is proven (or tested per block) by the range
    kept = [(ln, arr) for ln, arr, _ in rep.kept]
    assert (line, "b") in kept and not any(arr == "a" for _, arr in kept), kept
    # and `b`'s check stays whole: no block-level test of its upper bound, which for a
    # loaded `idx[t]` was one no launch passes (`len(a) - len(b) + 2147483647 <= 0`)
    assert not any("len(b)" in t for t in rep.tests), rep.tests
    loops = [op for op in walk(spec.fn.body) if op.loc is not None and op.loc.line == line - 1
             and op.opcode in ("for", "while")]  # fmt: skip
    assert loops and all(op.opcode == "for" for op in loops)
    np.testing.assert_allclose(args[3], _want(*args[:3]), rtol=1e-6)


def _present() -> list[str]:
    return [b for b in ("sim", "cpu", "webgpu") if registry.probe(b)[0]]


@pytest.mark.parametrize("backend", _present())
@pytest.mark.parametrize("k", [dot_rows, dot_rows_alone], ids=["meets", "alone"])
def test_a_thread_that_raises_in_a_trip_is_reported_and_the_others_finish(
    k: Kernel, backend: str
) -> None:
    a, b, idx, out = _args(True)
    simt.use(backend)
    try:
        with pytest.raises(KernelError) as e:
            k[1, 32](a, b, idx, out)
            simt.synchronize()
    finally:
        simt.use("cpu")
    line = _line(k, "meets" if k is dot_rows else "alone")
    text = str(e.value)
    assert f"1 thread raised IndexError at {__file__}:{line}" in text, text
    assert "index 64 is out of bounds of `b` with size 64" in text, text
    want: Any = _want(a, b, np.where(np.arange(32) == 5, 0, idx))
    got = out.copy()
    assert got[5] == -1.0  # the thread that raised wrote nothing after its loop
    got[5] = want[5]
    np.testing.assert_allclose(got, want, rtol=1e-6)
