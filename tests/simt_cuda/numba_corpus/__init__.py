"""The Numba-CUDA compatibility corpus: kernels written in the style of public Numba-CUDA
material (NVIDIA's DLI course, ENCCS lessons, GPU-Puzzles, MiniTorch, university labs), each
our own code naming the kind of source it follows, each with a NumPy reference. The only
import of simt in these files is `from simt import cuda` (and `simt.cuda.random`): the same
files run under Numba's CUDA simulator in `test_numba_agreement.py`."""

from __future__ import annotations

import importlib
import pkgutil

from .case import NCase


def load() -> list[NCase]:
    cases: list[NCase] = []
    for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if mod.name.startswith("n_"):
            cases.extend(importlib.import_module(f"{__name__}.{mod.name}").CASES)
    names = [c.name for c in cases]
    assert len(set(names)) == len(names), "case names must be unique"
    return cases
