"""The pass pipeline: verified after every pass, behaviour kept, a fixpoint reached."""

from __future__ import annotations

import functools
import random
from typing import Any

import numpy as np
import pytest

from simt.ir import Function, format_function, walk
from simt.passes.optimize import optimize
from simt.types import FLOAT32, INT32, ArrayType

from .ir_eval import (
    count,
    for_,
    function,
    if_,
    random_function,
    random_inputs,
    same_behaviour,
    store,
)

checked = functools.partial(optimize, check=True)


@pytest.mark.parametrize("seed", range(60))
def test_random_programs_behave_the_same(seed: int) -> None:
    same_behaviour(random_function(seed, n_ops=30, depth=3), checked,
                   random_inputs(random.Random(seed), 4))  # fmt: skip


@pytest.mark.parametrize("seed", range(10))
def test_a_second_run_changes_nothing(seed: int) -> None:
    fn = optimize(random_function(seed)())
    text = format_function(fn)
    assert format_function(optimize(fn)) == text


def test_a_known_loop_over_a_known_branch_folds_away() -> None:
    def build() -> Function:
        fn, b, (out, x) = function(ArrayType(FLOAT32, 1), FLOAT32)
        zero, one = b.const(0, INT32), b.const(1, INT32)

        def body(i, acc):  # type: ignore[no-untyped-def]
            even = b.cmp("eq", b.bin("mod", i, b.const(2, INT32)), zero)
            (r,) = if_(b, even, lambda: [b.bin("add", acc, x)],
                       lambda: [b.bin("mul", acc, b.const(1.0, FLOAT32))], [FLOAT32])  # fmt: skip
            return [r]

        (s,) = for_(b, zero, b.const(4, INT32), one, [b.const(0.0, FLOAT32)], body)
        store(b, out, 0, s)
        return fn

    fn = same_behaviour(build, checked, [[np.zeros(1, np.float32), v] for v in (0.5, -2.0)])
    assert count(fn, "for") == 0 and count(fn, "if") == 0
    adds = [op.attrs["op"] for op in walk(fn.body) if op.opcode == "bin"]
    assert adds == ["add", "add"]  # x added on the even iterations; `acc * 1.0` is gone


def test_rounds_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """`rounds` caps the rounds (one round runs each pass once; zero runs none), and the
    default stops at a fixpoint well before its cap."""
    from simt.passes import optimize as module

    calls: list[str] = []

    def counted(p: Any) -> Any:
        def run(fn: Any) -> Any:
            calls.append(p.__name__)
            return p(fn)

        run.__name__ = p.__name__
        return run

    monkeypatch.setattr(module, "PASSES", tuple(counted(p) for p in module.PASSES))
    n = len(module.PASSES)
    fn = random_function(3)()
    text = format_function(fn)
    assert format_function(optimize(fn, rounds=0)) == text and calls == []
    optimize(fn, rounds=1, check=True)  # one round is allowed to leave work undone
    assert len(calls) == n
    calls.clear()
    fixed = optimize(random_function(3)(), check=True)
    assert n <= len(calls) < module.MAX_ROUNDS * n and len(calls) % n == 0
    calls.clear()
    text = format_function(fixed)
    assert format_function(optimize(fixed)) == text  # a fixpoint: one round, no change
    assert len(calls) == n
