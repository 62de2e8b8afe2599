"""The Numba-CUDA compatibility corpus (`numba_corpus/`) on every backend against its NumPy
references, compiled by NVRTC, and covering every numba.cuda name simt has."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simt
from simt.pipeline import render
from simt.runtime import nvrtc, registry

from .numba_corpus import load
from .numba_corpus.case import NCase, check

CASES = load()
BACKENDS = ("sim", "cpu", "webgpu")
# what a backend without the feature must say in its CompileError
FEATURE_WORDS = {
    "fp64": ("float64", "f64"),
    "int64": ("shader-int64",),  # an adapter without 64-bit integers
    "atomic64": ("atomics on int64 arrays",),  # WGSL's atomics are 32-bit
}


def _copy(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def run_case(case: NCase) -> tuple[Any, ...]:
    """Run `case` on the current backend; its arguments after the launch."""
    args = case.make_args()
    case.run(args)
    simt.synchronize()
    return args


def problems(case: NCase, before: tuple[Any, ...], after: tuple[Any, ...]) -> list[str]:
    ref = case.reference(*_copy(before))
    out = []
    for pos, expected in ref.items():
        why = check(case.tol, after[pos], expected)
        if why:
            out.append(f"argument {pos}: {why}")
    return out


def test_corpus_size_and_styles() -> None:
    assert len(CASES) >= 40
    assert all(c.style for c in CASES)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_numba_corpus(case: NCase, backend: str, capsys: pytest.CaptureFixture[str]) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"backend {backend!r} not present: {why}")
    simt.use(backend)
    before = case.make_args()
    try:
        after = run_case(case)
    except simt.CompileError as e:
        words = [w for f in case.features for w in FEATURE_WORDS.get(f, ())]
        if backend == "webgpu" and words and any(w in str(e) for w in words):
            assert "internal error" not in str(e)
            return  # the documented refusal of a feature this adapter lacks
        raise
    found = problems(case, before, after)
    assert not found, f"{case.name} on {backend}:\n" + "\n".join(found)


@pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_numba_corpus_compiles_with_nvrtc(case: NCase) -> None:
    """Every specialisation the case's launches made, as CUDA C++, through NVRTC (sm_80)."""
    simt.use("sim")
    run_case(case)
    kernel = case.kernel.kernel(case.sharedmem)
    specs = list(kernel._cache.values())
    assert specs
    for spec in specs:
        nvrtc.compile_cubin(render("cuda", spec.fn), "sm_80")


# Issue 25 item 1's names (the warp functions aside): each appears in the corpus
REQUIRED = {
    "jit", "grid", "gridsize", "threadIdx", "blockIdx", "blockDim", "gridDim", "laneid",
    "warpsize", "shared.array", "local.array", "const.array_like", "atomic.add", "atomic.sub",
    "atomic.max", "atomic.min", "atomic.nanmax", "atomic.nanmin", "atomic.exch", "atomic.cas",
    "atomic.and_", "atomic.or_", "atomic.xor", "atomic.inc", "atomic.dec", "syncthreads",
    "syncthreads_count", "syncthreads_and", "syncthreads_or", "threadfence",
    "threadfence_block", "threadfence_system", "create_xoroshiro128p_states",
    "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
    "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64", "selp", "fma", "brev",
    "clz", "ffs", "popc", "cbrt", "fp16.hadd", "to_device", "device_array",
    "device_array_like", "pinned_array", "mapped_array", ".copy_to_host", "stream",
    ".auto_synchronize", "event", "synchronize", "is_available", "detect", "gpus",
    "select_device", ".configure", ".forall",
}  # fmt: skip


def _names_used() -> set[str]:
    found: set[str] = set()
    for path in Path(__file__).with_name("numba_corpus").glob("n_*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                found.add("." + node.attr)
                chain = []
                cur: ast.AST = node
                while isinstance(cur, ast.Attribute):
                    chain.append(cur.attr)
                    cur = cur.value
                if isinstance(cur, ast.Name) and cur.id == "cuda":
                    chain.reverse()
                    found.update(".".join(chain[:k]) for k in range(1, len(chain) + 1))
            elif isinstance(node, ast.ImportFrom) and node.module == "simt.cuda.random":
                found.update(a.name for a in node.names)
    return found


def test_corpus_covers_every_name() -> None:
    missing = REQUIRED - _names_used()
    assert not missing, f"no corpus kernel uses {sorted(missing)}"
    with_shared = [c for c in CASES if c.sharedmem]
    assert with_shared, "no case launches with dynamic shared memory (the 4th launch argument)"
