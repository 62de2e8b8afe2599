"""kernel.cost() and kernel.advise() on a kernel calling math functions on computed values
(issue #15, item 12: `math.erf` once raised NameError `_erf` from the cost model)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import simt
from simt.runtime import registry


@simt.kernel
def erf_of_computed(a, out, n):
    i = simt.grid(1)
    x = a[i] * 0.5 + 1.0
    out[i] = math.erf(x) + math.exp(-x) + math.erf(n * 0.5) + math.erf(float(i))


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_cost_and_advise_of_math_functions(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(why)
    monkeypatch.setattr(registry, "_current", registry._current)
    simt.use(backend)
    a, out = np.linspace(0, 1, 256, dtype=np.float32), np.zeros(256, np.float32)
    c = erf_of_computed.cost(1, 256, a, out, 3)
    assert c.flops > 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert isinstance(erf_of_computed.advise(1, 256, a, out, 3), list)


@simt.kernel
def float_power(a, b, out):
    i = simt.grid(1)
    out[i] = a[i] ** b[i]


@simt.kernel
def math_power(a, b, out):
    i = simt.grid(1)
    out[i] = math.pow(a[i], b[i])


def test_float_power_costs_as_the_pow_row() -> None:
    """`**` of floats is the pow row on every backend (its spelling there): the cost model
    weighs it as `math.pow`, not as one operation."""
    a = np.linspace(1, 2, 256, dtype=np.float32)
    b, out = a.copy(), np.zeros(256, np.float32)
    op, row = float_power.cost(1, 256, a, b, out), math_power.cost(1, 256, a, b, out)
    assert op.flops == row.flops > 256
