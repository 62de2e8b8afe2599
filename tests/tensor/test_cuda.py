"""Every kind of index expression compiles for CUDA: rendered to CUDA C++ and compiled by NVRTC
to CUBIN for sm_80 and sm_90 (no GPU needed)."""

from __future__ import annotations

import numpy as np
import pytest

from simt.backends import cuda
from simt.runtime import nvrtc, registry
from simt.runtime.cuda import nvrtc_options
from simt.tensor import I, i
from simt.tensor.ops import OPS
from simt.tensor.run import compile_for, prepare_inputs

needs_nvrtc = pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")
F = np.ones((4, 6), np.float32)
V = np.ones(6, np.float32)
N = np.ones(6, np.int32)


def _cases() -> list[tuple[str, object, tuple[object, ...]]]:
    cases: list[tuple[str, object, tuple[object, ...]]] = []
    for sym, info in OPS.items():
        x = V if info.category == "numeric" else N
        if sym != "!!":
            cases.append((f"i{sym}i~i", i(f"i{sym}i~i"), (x, x)))
        cases.append((f"{sym}i~i", i(f"{sym}i~i"), (x,)))
        if info.reducible:
            m = F if info.category == "numeric" else F.astype(np.int32)
            cases.append((f"{sym}ij~i", i(f"{sym}ij~i"), (m,)))
            cases.append(
                (f"{sym}ij~. (cooperative)", i(f"{sym}ij~."), (np.ones((64, 64), m.dtype),))
            )
    softmax = (I & i(">ij~i")) >> i("ij-i~ij") >> i("^ij~ij") >> (I & i("+ij~i")) >> i("ij/i~ij")
    cases.append(("softmax", softmax, (F,)))
    cases.append(("matmul", i("ik*kj~ijk") >> i("+ijk~ij"), (F, F.T.copy())))
    cases.append((
        "matmul scheduled",
        i("ik*kj~ijk|i:2,k:2|ii'jkk'") >> i("+ijk~ij|i:2,k:2|ii'j!kk'0"),
        (F, F.T.copy()),
    ))  # fmt: skip
    cases.append(("split reduction", i("+ij~."), (np.ones((300, 300), np.float32),)))
    cases.append(("split reduction 3-d", i(">ijk~k"), (np.ones((300, 300, 2), np.float32),)))
    cases.append(("4-d", i("abcd*abcd~abcd"), (np.ones((2, 2, 2, 2), np.float32),) * 2))
    cases.append(("scalar", i(".+.~."), (2.0, 3)))
    cases.append(("float64", i("i*i~i"), (V.astype(np.float64), V)))
    from .test_examples import flash, naive

    qkv = tuple(np.ones((32, 64), np.float32) for _ in range(3))
    cases.append(("flash attention", flash(), qkv))
    cases.append(("naive attention", naive(), qkv))
    cases.append(
        ("tiled reduction", i("ik*kj~ijk") >> i("+ijk~ij | k:4 | ijkk'0"), (F, F.T.copy()))
    )
    return cases


CASES = _cases()


@needs_nvrtc
@pytest.mark.parametrize("name,comp,inputs", CASES, ids=[c[0] for c in CASES])
def test_compiles_to_cubin(name: str, comp: object, inputs: tuple[object, ...]) -> None:
    inp = prepare_inputs(inputs, registry.get("sim"))
    prog, _ = compile_for(comp.graph, inp, "cuda")  # type: ignore[attr-defined]
    for step in prog.steps:
        fns = [step.kernel.fn] + ([step.finish.fn] if step.finish is not None else [])
        for fn in fns:
            kern = cuda.build(fn)
            for arch in ("sm_80", "sm_90"):
                try:
                    nvrtc.compile_cubin(kern.source, arch, nvrtc_options(kern))
                except nvrtc.NvrtcError as e:
                    pytest.fail(f"{name}: {e}", pytrace=False)
