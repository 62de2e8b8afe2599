"""IR nodes: what a hidden parameter is, said by its kind (`Param.hidden`), not by its name."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import types as T
from simt.ir import Hidden, Param, Value


def _uses_both(out, n):  # noqa: ANN001, ANN202 - a kernel
    i = simt.grid(1)
    if i < len(out):
        xs = [1.0]
        for j in range(n):
            xs.append(2.0 * j)
        if i == 3:
            raise IndexError("three")
        out[i] = xs[n]


def test_hidden_parameters_carry_their_kind() -> None:
    k = simt.kernel(_uses_both)
    out = np.zeros(4)
    fn, _ = k.specialised_ir(out, 2)
    kinds = {p.name: p.hidden for p in fn.params if p.index < 0}
    assert Hidden.FAILURES in kinds.values() and Hidden.ARENA in kinds.values(), kinds
    assert all(p.hidden is None for p in fn.params if p.index >= 0)
    for p in fn.params:  # each kind gets its own array from the one entry
        if p.hidden is Hidden.FAILURES:
            assert fn.hidden_zeros(p, 4).size == fn.attrs["failure_words"]
        elif p.hidden is Hidden.ARENA:
            assert fn.hidden_zeros(p, 4).size == fn.arena_length(p, 4)


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_a_launch_makes_each_kind_of_hidden_parameter(backend: str) -> None:
    k = simt.kernel(_uses_both)
    out = np.zeros(4)
    with simt.using(backend), pytest.raises(simt.KernelError) as info:
        k[1, 4](out, 2)
    assert "IndexError" in str(info.value)
    assert out[0] == 2.0 and out[2] == 2.0


def test_a_parameter_without_an_argument_must_say_its_kind() -> None:
    v = Value(T.ArrayType(T.INT32, 1), "x")
    with pytest.raises(AssertionError):
        Param("x", -1, v)
    with pytest.raises(AssertionError):
        Param("x", 0, v, hidden=Hidden.ARENA)
    assert Param.made(Hidden.ARENA, v).name == "x"
