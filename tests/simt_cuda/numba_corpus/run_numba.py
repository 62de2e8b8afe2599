"""Run the compatibility corpus under real Numba (`python run_numba.py OUT.npz [NAME ...]`).

Run with NUMBA_ENABLE_CUDASIM=1 where there is no NVIDIA GPU: Numba's CUDA simulator. The
corpus files say `from simt import cuda`; here `simt.cuda` is made to mean `numba.cuda`
(and `simt.cuda.random` Numba's), so the very same kernels run on Numba. Writes every array
argument after each launch (`NAME/POS`) and each launch's seconds (`NAME/seconds`)."""

from __future__ import annotations

import sys
import time
import types
import warnings
from pathlib import Path

import numpy as np


def main(argv: list[str]) -> int:
    import numba
    import numba.cuda.random
    from numba import cuda

    warnings.simplefilter("ignore")  # Numba's deprecation and performance warnings
    fake = types.ModuleType("simt")
    fake.cuda = cuda  # type: ignore[attr-defined]
    for name in ("void", "float32", "float64", "int32", "int64", "uint32", "uint64"):
        setattr(fake, name, getattr(numba, name))  # `from simt import void, float32`
    fake.__path__ = []  # type: ignore[attr-defined]
    sys.modules["simt"] = fake
    sys.modules["simt.cuda"] = cuda
    sys.modules["simt.cuda.random"] = numba.cuda.random
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from simt_cuda.numba_corpus import load  # noqa: PLC0415 - after the module swap

    only = set(argv[1:])
    out: dict[str, np.ndarray] = {}
    for case in load():
        if not case.numba or (only and case.name not in only):
            continue
        args = case.make_args()
        t0 = time.perf_counter()
        case.run(args)
        cuda.synchronize()
        out[f"{case.name}/seconds"] = np.array(time.perf_counter() - t0)
        for pos, a in enumerate(args):
            if isinstance(a, np.ndarray):
                out[f"{case.name}/{pos}"] = a
    np.savez(argv[0], **out)  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
