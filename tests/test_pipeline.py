"""The pipeline's work per specialisation (`simt.pipeline`): what a compile runs, counted, not
timed (#28, #29: a cached kernel in a new process took 4x its target when the first
translation's bounds decision ran the whole bounds pass on a deep copy)."""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

import numpy as np
import pytest

import simt
from corpus.k_matmul import matmul
from simt import pipeline
from simt.ir import Function, walk
from simt.runtime import registry


def _count(monkeypatch: pytest.MonkeyPatch, calls: Counter[str], attr: str, name: str) -> None:
    """Count each call of `pipeline.<attr>` as `calls[name]`."""
    f = getattr(pipeline, attr)

    def g(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return f(*args, **kwargs)

    monkeypatch.setattr(pipeline, attr, g)


def _count_calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """The calls of the pipeline's translation and bounds pass, counted as they happen."""
    calls: Counter[str] = Counter()
    _count(monkeypatch, calls, "prove_bounds", "prove")
    _count(monkeypatch, calls, "translate", "translate")
    return calls


def test_a_specialisation_runs_the_bounds_pass_once_and_copies_nothing_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The decision to translate again with IndexError checks reads the bounds pass's verdicts
    (`pipeline.unproven`): the pass itself runs once, on the IR the backend compiles, and no
    kernel is deep-copied (`ir.copy_function` copies for the CPU lowering)."""
    calls = _count_calls(monkeypatch)
    _count(monkeypatch, calls, "judge_bounds", "judge")
    deep = copy.deepcopy

    def no_whole_kernel(x: Any, memo: Any = None) -> Any:
        if isinstance(x, Function):
            calls["deepcopy"] += 1
        return deep(x, memo)

    monkeypatch.setattr(copy, "deepcopy", no_whole_kernel)
    k = simt.kernel(matmul.pyfunc)  # W6's kernel: accesses the pass cannot prove
    a, b = np.ones((8, 8), np.float32), np.ones((8, 8), np.float32)
    c = np.zeros((8, 8), np.float32)
    with simt.using("cpu"):
        k.specialise(k.bind(a, b, c), registry.current())
    # two translations (the second with IndexError checks, as the verdicts asked), one judge
    # for that decision, one bounds pass (which judges again, inside)
    assert calls == Counter(translate=2, judge=1, prove=1), calls


def test_backends_share_the_translation_and_the_bounds_proofs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A kernel launched on several backends (the fuzzer's and the corpus's four) is translated
    and optimised once per specialisation and proven once for the runtimes that prepare it
    alike; each runtime lowers a copy of its own (`pipeline.for_runtime`'s `shared`)."""
    calls = _count_calls(monkeypatch)
    k = simt.kernel(matmul.pyfunc)
    a, b = np.ones((8, 8), np.float32), np.ones((8, 8), np.float32)
    c = np.zeros((8, 8), np.float32)
    specs = []
    for backend in ("sim", "cpu", "sim", "cpu"):
        with simt.using(backend):
            specs.append(k.specialise(k.bind(a, b, c), registry.current()))
    assert calls == Counter(translate=2, prove=1), calls
    assert specs[0] is specs[2] and specs[1] is specs[3]
    assert specs[0].fn is not specs[1].fn
    assert not set(map(id, walk(specs[0].fn.body))) & set(map(id, walk(specs[1].fn.body)))


OUT: list[str] = ["a"]
LIMIT = 3


def _reads_globals(out):  # noqa: ANN001, ANN202 - a kernel reading a global list's item
    i = simt.grid(1)
    if i < len(out):
        out[i] = len(OUT[0]) + LIMIT


def test_a_kernel_reading_a_global_list_is_built_again_for_another_backend() -> None:
    """The front end reads globals at compile time: a build is shared between backends only
    while the globals its code reads are the same objects of kinds that cannot change unseen
    (a global list can: each backend builds again, as before the sharing)."""
    global LIMIT
    k = simt.kernel(_reads_globals)
    out = np.zeros(4, np.int32)
    with simt.using("sim"):
        k[1, 4](out)
    assert out.tolist() == [4] * 4
    OUT[0], LIMIT = "abc", 5
    with simt.using("cpu"):
        k[1, 4](out)
    assert out.tolist() == [8] * 4
    LIMIT = 3
