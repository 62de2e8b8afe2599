"""float64 arrays with `simt.kernel(fp64=True)`: `i / n` and literals are float64 too."""

import math

import numpy as np

import simt

from . import Case, blocks, close, rng, uniform


@simt.kernel(fp64=True)
def f64(a, out):
    i = simt.grid(1)
    n = len(a)
    if i < n:
        t = i / n
        out[i] = math.exp(a[i]) * t + 0.1 + math.sqrt(float(i)) * 1e-10


N = 1000


def _make():
    g = rng(23)
    return uniform(g, N, np.float64), np.zeros(N, np.float64)


def _ref(a, out):
    i = np.arange(N, dtype=np.float64)
    return {1: np.exp(a) * (i / N) + 0.1 + np.sqrt(i) * 1e-10}


def _is_f64(ir_text: str) -> str | None:
    return None if "float32" not in ir_text else "float32 in the IR of an fp64 kernel"


CASES = [
    Case(
        "float64_fp64",
        f64,
        _make,
        blocks(N, 128),
        128,
        _ref,
        close(1e-14, 1e-300),
        ir_check=_is_f64,
        features=frozenset({"fp64"}),
    )
]
