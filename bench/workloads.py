"""The benchmark suite W1-W6 (kernels, inputs, NumPy versions, float64 references).

Moved into the package as `simt.benchtool.workloads` so that `simt bench` can run it from an
installed simt; this module re-exports it for `bench/suite.py` and `bench/cuda/`.
"""

from __future__ import annotations

from simt.benchtool.workloads import *  # noqa: F401,F403
from simt.benchtool.workloads import _grid  # noqa: F401 - used by bench/cuda
