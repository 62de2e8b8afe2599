"""The advisor's CPU findings (benchtool/cpu_hints.py): each flags what the user can change,
and stays quiet on the forms the CPU lowering turns into ranges."""

from __future__ import annotations

import math

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.runtime import registry

pytestmark = pytest.mark.skipif(not registry.probe("cpu")[0], reason="no cpu backend")
N = 1 << 22


@pytest.fixture(autouse=True)
def on_cpu(monkeypatch: pytest.MonkeyPatch) -> None:
    """Advise for the cpu backend; restore the backend other tests see afterwards."""
    simt.use("cpu")


@simt.kernel
def interleaved(a, out):
    sh = simt.shared.array(256, np.float32)
    tid = thread_idx.x
    i = block_idx.x * block_dim.x + tid
    sh[tid] = a[i]
    simt.syncthreads()
    s = 1
    while s < block_dim.x:
        if tid % (2 * s) == 0:
            sh[tid] += sh[tid + s]
        simt.syncthreads()
        s *= 2
    if tid == 0:
        out[block_idx.x] = sh[0]


@simt.kernel
def sequential(a, out):
    sh = simt.shared.array(256, np.float32)
    tid = thread_idx.x
    i = block_idx.x * block_dim.x + tid
    x = 0.0
    if i < len(a):
        x = a[i]
    sh[tid] = x
    simt.syncthreads()
    s = block_dim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        simt.syncthreads()
        s //= 2
    if tid == 0:
        out[block_idx.x] = sh[0]


@simt.kernel
def global_hist(x, hist):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(x):
        simt.atomic.add(hist, int(x[i] * 16), 1)


@simt.kernel
def exp_of(x, y):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(x):
        y[i] = math.exp(x[i])


def _kinds(kernel: object, grid: int, *args: object) -> set[str]:
    from simt.benchtool.advise import advise

    return {f.kind for f in advise(kernel, grid, 256, args, warn=False)}


def test_interleaved_addressing_is_flagged_with_its_line() -> None:
    from simt.benchtool.advise import advise

    a = np.ones(N, np.float32)
    found = advise(interleaved, N // 256, 256, (a, np.zeros(N // 256, np.float32)), warn=False)
    (hit,) = [f for f in found if f.kind == "masked-branch"]
    assert hit.line == interleaved.pyfunc.__code__.co_firstlineno + 9  # the `if tid % (2 * s)` line
    assert "tid < s" in hit.message


def test_sequential_addressing_and_bounds_guards_are_quiet() -> None:
    a = np.ones(N, np.float32)
    assert "masked-branch" not in _kinds(sequential, N // 256, a, np.zeros(N // 256, np.float32))


def test_global_atomics_and_float64_math_are_flagged() -> None:
    x = np.random.default_rng(0).random(N, dtype=np.float32)
    assert "global-atomic" in _kinds(global_hist, N // 256, x, np.zeros(16, np.int32))
    x64 = x.astype(np.float64)
    assert "scalar-math" in _kinds(exp_of, N // 256, x64, x64.copy())
    assert "scalar-math" not in _kinds(exp_of, N // 256, x, x.copy())


@simt.kernel
def returns_then_warp_sums(x, out, n):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i >= n:
        return
    sh = simt.shared.array(256, simt.float32)
    sh[thread_idx.x] = x[i]
    simt.syncthreads()
    v = sh[thread_idx.x] + simt.shfl_down_sync(0xFFFFFFFF, x[i], 1)
    out[i] = v


def test_hints_read_the_kernel_as_a_cpu_launch_lowers_it() -> None:
    # barriers after a thread-dependent return and warp functions: lifted and lowered first
    from corpus.k_barrier_returns import _make_neighbours, neighbour_sums
    from simt.benchtool.cpu_hints import cpu_hints

    a = np.ones(N, np.float32)
    assert cpu_hints(returns_then_warp_sums, (a, np.zeros(N, np.float32), N - 5), {}) == []
    # (a barrier inside an unrolled loop after the return: unlifted, the lowering failed)
    assert isinstance(cpu_hints(neighbour_sums, _make_neighbours(), {}), list)


@simt.kernel
def power_of(x, y):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(x):
        y[i] = x[i] ** x[0]


def test_float64_power_is_flagged_as_math_pow() -> None:
    """`**` of float64 values is the pow row, one C library call per thread on the CPU."""
    x = np.random.default_rng(0).random(N, dtype=np.float32) + 1
    x64 = x.astype(np.float64)
    assert "scalar-math" in _kinds(power_of, N // 256, x64, x64.copy())
    assert "scalar-math" not in _kinds(power_of, N // 256, x, x.copy())
