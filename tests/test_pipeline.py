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
from simt.ir import Function
from simt.runtime import registry


def test_a_specialisation_runs_the_bounds_pass_once_and_copies_nothing_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The decision to translate again with IndexError checks reads the bounds pass's verdicts
    (`pipeline.unproven`): the pass itself runs once, on the IR the backend compiles, and no
    kernel is deep-copied (`ir.copy_function` copies for the CPU lowering)."""
    calls: Counter[str] = Counter()

    def counted(name: str, f: Any) -> Any:
        def g(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return f(*args, **kwargs)

        return g

    monkeypatch.setattr(pipeline, "prove_bounds", counted("prove", pipeline.prove_bounds))
    if hasattr(pipeline, "judge_bounds"):
        monkeypatch.setattr(pipeline, "judge_bounds", counted("judge", pipeline.judge_bounds))
    monkeypatch.setattr(pipeline, "translate", counted("translate", pipeline.translate))
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
