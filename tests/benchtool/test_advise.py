"""The advisor: flags the uncoalesced transpose and the 1000-thread block, stays silent on the
corpus kernels launched with good shapes, warns once per launch shape."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.benchtool.advise import SimtPerformanceWarning, advise, analyse
from simt.benchtool.cost import estimate
from simt.benchtool.profile import Profile
from simt.runtime import registry

from .test_cost import transpose_naive, vadd


def test_uncoalesced_transpose_is_flagged_with_its_line(prof: Profile) -> None:
    a = np.ones((512, 512), np.float32)
    found = advise(transpose_naive, (32, 32), (16, 16), (a, a.copy()), warn=False, prof=prof)
    kinds = [f.kind for f in found]
    assert "uncoalesced" in kinds
    (f,) = [f for f in found if f.kind == "uncoalesced"]
    # co_firstlineno is the decorator line; the store is 6 lines below it
    line = transpose_naive.pyfunc.__code__.co_firstlineno + 6
    assert f.line == line and f"line {line}" in f.message
    assert "store of out" in f.message and "shared tile" in f.message


def test_thousand_thread_block_is_flagged_with_a_shape(prof: Profile) -> None:
    n = 1 << 20
    v = np.ones(n, np.float32)
    found = advise(vadd, (n + 999) // 1000, 1000, (v, v, v.copy()), warn=False, prof=prof)
    (f,) = [f for f in found if f.kind == "block-width"]
    assert "1000 threads is not a multiple of 32" in f.message
    assert f.recommended == ((4096, 1, 1), (256, 1, 1)) and "[4096, 256]" in f.message


def test_few_blocks_only_when_the_work_matters(prof: Profile) -> None:
    n = 1 << 22
    v = np.ones(n, np.float32)
    cost = estimate(vadd, 1, 1024, (v, v, v), prof=prof)
    assert cost.bytes_read == 2 * 4 * 1024
    assert not [f for f in analyse(cost, cost_dim(1), cost_dim(1024), prof)
                if f.kind == "few-blocks"]  # fmt: skip
    big = estimate(vadd, 1, 1024, (v, v, v), prof=prof)
    big.time = 1.0  # pretend a long kernel
    assert [f.kind for f in analyse(big, cost_dim(1), cost_dim(1024), prof)] == ["few-blocks"]


def cost_dim(x: int) -> simt.Dim:
    return simt.Dim(x)


def test_shared_memory_over_the_limit_is_an_error(prof: Profile) -> None:
    @simt.kernel
    def big_tile(a):
        t = simt.shared.array(16384, np.float32)  # 64 KiB
        t[thread_idx.x] = a[thread_idx.x]
        simt.syncthreads()
        a[thread_idx.x] = t[thread_idx.x]

    with pytest.raises(simt.LaunchError, match="shared memory"):
        advise(big_tile, 1, 256, (np.ones(256, np.float32),), warn=False, prof=prof)


def test_warns_once_per_kernel_and_shape() -> None:
    simt.use("sim")
    v = np.ones(4000, np.float32)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        vadd.advise(4, 1000, v, v, v.copy())
        vadd.advise(4, 1000, v, v, v.copy())
    perf = [x for x in w if issubclass(x.category, SimtPerformanceWarning)]
    assert len(perf) == 1 and "vadd[4, 1000]" in str(perf[0].message)


def _block_size(c) -> int:  # type: ignore[no-untyped-def]
    block = c.block if isinstance(c.block, simt.Dim) else simt.Dim(
        *((c.block,) if isinstance(c.block, int) else c.block))  # fmt: skip
    return block.size


def _corpus_cases() -> list:  # type: ignore[type-arg]
    """The corpus cases the advisor must be silent on: a block a multiple of a warp, no
    optional feature, and threads that access consecutive elements (a case whose accesses
    stride says why in `Case.strided`: the advisor rightly flags it)."""
    from tests.corpus import CASES

    good = []
    for c in CASES:
        if _block_size(c) % 32 == 0 and not c.features and not c.strided:
            good.append(c)
    return good


@pytest.mark.parametrize("case", _corpus_cases(), ids=lambda c: c.name)
def test_silent_on_corpus_kernels_with_good_shapes(case) -> None:  # type: ignore[no-untyped-def]
    backend = "cpu" if registry.probe("cpu")[0] else "sim"
    simt.use(backend)
    found = advise(case.kernel, case.grid, case.block, case.make_args(), warn=False)
    assert found == [], [f.message for f in found]


def test_strided_corpus_cases_are_flagged() -> None:
    from tests.corpus import CASES

    simt.use("cpu" if registry.probe("cpu")[0] else "sim")
    strided = [c for c in CASES if c.strided]
    assert strided  # (each corpus case says so itself: `Case.strided`)
    for case in strided:
        found = advise(case.kernel, case.grid, case.block, case.make_args(), warn=False)
        narrow = _block_size(case) % 32 != 0  # a block narrower than a warp is flagged too
        expected = {"uncoalesced", "block-width"} if narrow else {"uncoalesced"}
        assert {f.kind for f in found} == expected, case.name


@simt.kernel
def row_copy(a, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(out):
        out[i] = a[i]


def test_silent_on_a_lists_arena(prof: Profile) -> None:
    """A list's arena is simt's own array (a thread's region is contiguous, so its accesses
    stride across threads): the advisor speaks of the user's arrays only."""

    @simt.kernel
    def sums(a, out):
        t = simt.grid(1)
        if t < len(out):
            xs = []
            for j in range(8):
                xs.append(a[t] + j)
            s = 0
            for x in xs:
                s += x
            out[t] = s

    a = np.arange(4096, dtype=np.int32)
    advice = advise(sums, 16, 256, (a, np.zeros(4096, np.int32)), warn=False, prof=prof)
    assert not [x for x in advice if "heap" in x.message], [x.message for x in advice]
