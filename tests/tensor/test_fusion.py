"""Kernel planning: fusion by default (the matmul chain is one kernel with no 3-D buffer, the
softmax one row kernel), materialisation where fusion would recompute, and cooperative
reductions where the output is too small to fill the device."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from simt.runtime import registry
from simt.tensor import I, i
from simt.tensor.run import compile_for, launch_shape, prepare_inputs


def rand(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def kernels(comp: object, *inputs: np.ndarray) -> list[object]:
    inp = prepare_inputs(inputs, registry.get("sim"))
    prog, extents = compile_for(comp.graph, inp, "sim")  # type: ignore[attr-defined]
    return [(s, launch_shape(s, comp.graph, extents[s.kp.root])) for s in prog.steps]  # type: ignore[attr-defined]


SOFTMAX = (I & i(">ij~i")) >> i("ij-i~ij") >> i("^ij~ij") >> (I & i("+ij~i")) >> i("ij/i~ij")


def test_matmul_chain_is_one_kernel_without_a_3d_buffer(backend: str) -> None:
    matmul = i("ik*kj~ijk") >> i("+ijk~ij")
    a, b = rand((24, 40), 1), rand((40, 16), 2)
    steps = kernels(matmul, a, b)
    assert len(steps) == 1
    fn = steps[0][0].kernel.fn  # type: ignore[attr-defined]
    assert [p.value.type.ndim for p in fn.params] == [2, 2, 2]  # out, a, b: nothing 3-D
    np.testing.assert_allclose(matmul.exec(a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_matmul_chain_memory_stays_linear(host_backend: str) -> None:
    import simt

    simt.use("cpu")
    matmul = i("ik*kj~ijk") >> i("+ijk~ij")
    a, b = rand((160, 160), 1), rand((160, 160), 2)
    matmul.exec(a, b)  # compiled outside the measurement
    tracemalloc.start()
    out = matmul.exec(a, b)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # the 3-D product would be 160**3 * 4 bytes = 16 MB; the output is 100 KB
    assert peak < 1_000_000, peak
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


def test_softmax_is_one_row_kernel(backend: str) -> None:
    x = rand((6, 300), 3)
    steps = kernels(SOFTMAX, x)
    assert len(steps) == 1
    step, (grid, block) = steps[0]  # type: ignore[misc]
    assert step.kp.form == "row" and grid == (6,) and block == (32,)  # 300 a row: 32 threads
    # exp(x - max) is computed once: the sum's loop keeps it in the output, divided in place
    assert SOFTMAX.ir(x).count("math.exp") == 1
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(SOFTMAX.exec(x), e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_column_softmax_and_other_row_shapes(backend: str) -> None:
    x = rand((50, 7), 6)
    col = (I & i(">ij~j")) >> i("ij-j~ij") >> i("^ij~ij") >> (I & i("+ij~j")) >> i("ij/j~ij")
    e = np.exp(x - x.max(0, keepdims=True))
    np.testing.assert_allclose(col.exec(x), e / e.sum(0, keepdims=True), rtol=1e-5, atol=1e-7)
    # the sum's axes in another order than the output's: recomputed, not staged
    y = rand((3, 4, 5), 7)
    f = (I & i("+ijk~i")) >> i("ikj-i~ijk")
    want = np.swapaxes(y, 1, 2) - y.sum((1, 2))[:, None, None]
    np.testing.assert_allclose(f.exec(y), want, rtol=1e-5, atol=1e-5)
    g = (I & i("+ijk~i")) >> i("ijk/i~ijk")
    np.testing.assert_allclose(g.exec(y), y / y.sum((1, 2))[:, None, None], rtol=1e-5)


def test_full_reduction_is_cooperative(backend: str) -> None:
    x = rand((300, 70), 4)
    steps = kernels(i("+ij~."), x)
    assert len(steps) == 1
    _, (grid, block) = steps[0]  # type: ignore[misc]
    assert block == (256,), "a large reduction must not run on one thread"
    np.testing.assert_allclose(i("+ij~.").exec(x), x.sum(dtype=np.float64), rtol=1e-5)


@pytest.mark.parametrize("expr", ["+ij~.", ">ij~.", "+i~.", "+ijk~k", "&&ij~."])
def test_large_reduction_to_few_outputs_is_split_over_blocks(expr: str, backend: str) -> None:
    shape = (300, 300, 3) if "k" in expr else (400, 300) if "j" in expr else (120000,)
    x = rand(shape, 5)
    if expr.startswith("&&"):
        x = (x > -3).astype(np.int32)
    ((step, (grid, block)),) = kernels(i(expr), x)  # type: ignore[misc]
    assert step.kp.form == "split" and step.finish is not None  # type: ignore[attr-defined]
    assert grid[0] >= 2 * (3 if expr == "+ijk~k" else 1) and block == (256,)
    want = {
        "+ij~.": lambda: x.sum(dtype=np.float64),
        ">ij~.": lambda: x.max(),
        "+i~.": lambda: x.sum(dtype=np.float64),
        "+ijk~k": lambda: x.sum((0, 1), dtype=np.float64),
        "&&ij~.": lambda: np.int32(x.all()),
    }[expr]()
    np.testing.assert_allclose(i(expr).exec(x), want, rtol=2e-5)
    assert "split reduction" in i(expr).source("sim", x)


def test_few_long_rows_reduce_cooperatively_many_short_rows_per_thread(host_backend: str) -> None:
    ((step, _),) = kernels(i("+ij~i"), rand((4, 1000)))
    assert step.kp.form == "row"  # type: ignore[attr-defined]
    ((step, _),) = kernels(i("+ij~i"), rand((5000, 8)))
    assert step.kp.form == "thread"  # type: ignore[attr-defined]


def test_expensive_broadcast_is_materialised_and_said(host_backend: str) -> None:
    q, k, v = rand((8, 16), 1), rand((8, 16), 2), rand((8, 16), 3)
    attn = (
        (i("ik*jk~ijk") >> i("+ijk~ij"))
        >> ((I & i(">ij~i")) >> i("ij-i~ij"))
        >> i("^ij~ij")
        >> ((I & i("+ij~i")) >> i("ij/i~ij"))
        >> (i("ij*jk~ikj") >> i("+ikj~ik"))
    )
    text = attn.source("sim", q, k, v)
    assert text.count("kernel ") >= 3 and "materialised" in text and "recomputed" in text
    s = q @ k.T
    w = np.exp(s - s.max(1, keepdims=True))
    np.testing.assert_allclose(
        attn.exec(q, k, v), (w / w.sum(1, keepdims=True)) @ v, rtol=1e-4, atol=1e-5
    )


def test_mlp_materialises_the_hidden_layer(host_backend: str) -> None:
    mvp = i("ij*j~ij") >> i("+ij~i")
    mlp = (I | (mvp >> i(">i~i"))) >> mvp
    w2, w1, x = rand((7, 16), 1), rand((16, 8), 2), rand((8,), 3)
    assert len(kernels(mlp, w2, w1, x)) == 2
    np.testing.assert_allclose(
        mlp.exec(w2, w1, x), w2 @ np.maximum(w1 @ x, 0), rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("shape", [(3, 4, 5), (2, 3, 4, 5), (1, 70000, 2)])
def test_grids_of_every_rank(shape: tuple[int, ...], host_backend: str) -> None:
    import simt

    simt.use("cpu")
    x = rand(shape, 5)
    pat = "abcd"[: len(shape)]
    np.testing.assert_allclose(i(f"{pat}*{pat}~{pat}").exec(x, x), x * x, rtol=1e-6)
