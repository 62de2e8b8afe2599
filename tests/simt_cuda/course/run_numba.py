"""Run a course program of this folder under real Numba (`python run_numba.py PROGRAM OUT.npz`),
with NUMBA_ENABLE_CUDASIM=1 where there is no NVIDIA GPU: the program's `from simt import
cuda` (and `types`) are made to mean Numba's, so the very same file runs on Numba. Writes the
program's RESULTS (each as an array) to OUT.npz."""

from __future__ import annotations

import runpy
import sys
import types
import warnings

import numpy as np


def main(argv: list[str]) -> int:
    import numba
    from numba import cuda

    warnings.simplefilter("ignore")  # Numba's deprecation and performance warnings
    fake = types.ModuleType("simt")
    fake.cuda = cuda  # type: ignore[attr-defined]
    fake.types = numba.types  # type: ignore[attr-defined]
    fake.__path__ = []  # type: ignore[attr-defined]
    sys.modules["simt"] = fake
    sys.modules["simt.cuda"] = cuda
    sys.modules["simt.types"] = numba.types
    results = runpy.run_path(argv[0])["RESULTS"]
    np.savez(argv[1], **{k: np.asarray(v) for k, v in results.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
