"""Combinators, binding by call, literals, several outputs, inspection, and the peer's own test
cases (ilang-dev/i, ilang-python/tests/test_ilang.py), on every backend present."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt.array import DeviceArray
from simt.tensor import I, i


def rand(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def close(got: object, want: np.ndarray, rtol: float = 1e-5, atol: float = 1e-5) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def np_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> np.ndarray:
    s = q @ np.swapaxes(k, -1, -2)
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    return (w / w.sum(axis=-1, keepdims=True)) @ v


# ---------------------------------------------------------------------- the peer's cases
def test_peer_matmul_with_schedule(backend: str) -> None:
    a, b = rand((8, 16), 1), rand((16, 7), 2)
    f = i("ik*kj~ijk|i:2,k:2|ii'jkk'") >> i("+ijk~ij|i:2,k:2|ii'j!kk'0")
    close(f.exec(a, b), a @ b)


def test_peer_attention_4d(backend: str) -> None:
    q, k, v = rand((2, 3, 4, 8), 1), rand((2, 3, 4, 8), 2), rand((2, 3, 4, 8), 3)
    mm_t = i("bhij*bhkj~bhikj | i:16,k:16 | bhkii'k'j") >> i("+bhikj~bhik | i:16,k:16 | bhkii'k'j0")
    row_max_shift = (I & i(">bhik~bhi | i:16,k:16 | bhkii'k'")) >> i(
        "bhik-bhi~bhik | i:16,k:16 | bh1kii'k'"
    )
    exp = i("^bhik~bhik | i:16,k:16 | bhkii'k'")
    row_normalize = (I & i("+bhik~bhi | i:16,k:16 | bhkii'k'")) >> i(
        "bhik/bhi~bhik | i:16,k:16 | bh1kii'k'"
    )
    mm = i("bhik*bhkj~bhijk | i:16,k:16 | bhkii'jk'") >> i("+bhijk~bhij | i:16,k:16 | bhkii'jk'0")
    attn = mm_t >> row_max_shift >> exp >> row_normalize >> mm
    close(attn.exec(q, k, v), np_attention(q, k, v))


def test_peer_mlp(backend: str) -> None:
    x, w1, w2 = rand((8,), 1), rand((16, 8), 2), rand((7, 16), 3)
    mvp = i("ij*j~ij") >> i("+ij~i")
    amvp = mvp >> i(">i~i")
    ident = i("ij~ij")
    close(((ident | amvp) >> mvp).exec(w2, w1, x), w2 @ np.maximum(w1 @ x, 0))
    close(((I | amvp) >> mvp).exec(w2, w1, x), w2 @ np.maximum(w1 @ x, 0))


@pytest.mark.parametrize("expr,ref", [(">ij~i", np.max), ("<ij~i", np.min), ("+ij~i", np.sum)])
def test_peer_row_reductions(expr: str, ref: object, backend: str) -> None:
    x = rand((16, 8), 1)
    close(i(expr).exec(x), ref(x, axis=1))  # type: ignore[operator]


def test_peer_binding(backend: str) -> None:
    x, y = rand((8,), 1), rand((8,), 2)
    close(i("i-i~i")(x)(y)(), x - y)
    close(i("i-i~i")(None, y)(x)(), x - y)
    close((i("i~i") >> i("i-i~i")(y))(x)(), y - x)


def test_peer_composition_by_call(backend: str) -> None:
    x = rand((8,), 3)
    f = i("^i~i")
    close(f(f)(x)(), np.exp(np.exp(x)), rtol=1e-4)
    close(f(f, x)(), np.exp(np.exp(x)), rtol=1e-4)


def test_peer_literals(backend: str) -> None:
    close(i("i+i~i").exec([1, 2, 3], [4, 5, 6]), np.array([5, 7, 9], np.float32))
    close(i("i+i~i")([1, 2, 3])([4, 5, 6])(), np.array([5, 7, 9], np.float32))
    got = i(".+.~.").exec(2.0, 3)
    assert got.shape == () and got.dtype == np.float32 and float(got) == 5.0


# ---------------------------------------------------------------------- combinators
def test_combinators(backend: str) -> None:
    x, y = rand((6,), 1), rand((6,), 2)
    neg, exp = i("-i~i"), i("^i~i")
    close((neg >> exp).exec(x), np.exp(-x))
    close((neg << exp).exec(x), -np.exp(x))
    a, b = (neg & exp).exec(x)
    close(a, -x)
    close(b, np.exp(x))
    a, b = (neg | exp).exec(x, y)
    close(a, -x)
    close(b, np.exp(y))
    a, b = (~(neg | exp)).exec(x, y)
    close(a, np.exp(y))
    close(b, -x)
    assert np.array_equal(I.exec(x), x)
    close((I & neg).exec(x)[1], -x)
    close((neg >> "i*i~i").exec(x, y), -x * y)  # a string is parsed
    # chain with more outputs than inputs: the unused ones stay outputs, before the consumer's
    left, right = ((I & neg) >> exp).exec(x)
    close(left, -x)
    close(right, np.exp(x))


def test_bound_inputs_and_broadcast(backend: str) -> None:
    m, r = rand((4, 5), 1), rand((4,), 2)
    close(i("ij+i~ij").exec(m, r), m + r[:, None])
    close(i("ij*j~ij")(None, r[:4].repeat(2)[:5]).exec(m), m * r[:4].repeat(2)[:5])
    close(i("ij-.~ij").exec(m, 2.5), m - 2.5)
    close(i("i*j~ij").exec(r, r), np.outer(r, r))


def test_device_arrays_stay_on_the_device(backend: str) -> None:
    a = simt.to_device(rand((5,), 1))
    out = i("i*i~i").exec(a, a)
    assert isinstance(out, DeviceArray)
    close(out.numpy(), a.numpy() ** 2)


def test_into(backend: str) -> None:
    x = rand((5,), 1)
    out = np.empty(5, np.float32)
    got = i("-i~i").exec(x, into=out)
    assert got is out
    close(out, -x)
    o2 = np.empty(5, np.float32)
    i("-i~i")(x)(into=o2)
    close(o2, -x)


def test_source_and_ir(host_backend: str) -> None:
    a, b = rand((4, 5), 1), rand((5, 3), 2)
    m = i("ik*kj~ijk") >> i("+ijk~ij")
    for backend in ("cuda", "webgpu", "cpu", "sim"):
        text = m.source(backend, a, b)
        assert "kernel 1 of 1" in text and "+ijk~ij" in text, backend
    ir = m.ir(a, b)
    assert "for " in ir and "store %out" in ir
    assert i("+ij~i").source("cuda", a).count("__global__") == 1


def test_bench_prints_like_the_peer(host_backend: str) -> None:
    r = i("i+i~i").bench(np.ones(4, np.float32), np.ones(4, np.float32), warmups=1, runs=3)
    assert str(r).endswith("warmups = 1, runs = 3") and "±" in str(r)


# ---------------------------------------------------------------------- errors
def test_mismatched_shapes_name_input_and_dimension(host_backend: str) -> None:
    m = i("ik*kj~ijk") >> i("+ijk~ij")
    with pytest.raises(simt.LaunchError) as info:
        m.exec(rand((4, 5)), rand((6, 3)))
    text = str(info.value)
    assert "axis 'k' is 5 in input 0" in text and "dimension 1" in text
    assert "but 6 in input 1" in text and "dimension 0" in text
    assert text.startswith(__file__)


def test_wrong_rank_and_count(host_backend: str) -> None:
    with pytest.raises(simt.LaunchError, match=r"rank 1\), but its pattern 'ij' has 2 axes"):
        i("+ij~i").exec(rand((3,)))
    with pytest.raises(simt.LaunchError, match="takes 2 input"):
        i("i+i~i").exec(rand((3,)))
    with pytest.raises(simt.LaunchError, match="takes 1 input.*1 already bound"):
        i("i+i~i")(rand((3,))).exec()
    with pytest.raises(simt.LaunchError, match="too many inputs bound"):
        i("-i~i")(rand((3,)), rand((3,)))
    with pytest.raises(simt.LaunchError, match="dtype complex"):
        i("-i~i").exec(np.ones(3, np.complex64))
    with pytest.raises(simt.LaunchError, match="is a str"):
        i("-i~i").exec("abc")
    with pytest.raises(simt.CompileError, match="combines components"):
        i("-i~i") >> 3  # type: ignore[operator]


def test_backend_limits_are_the_kernels_own(monkeypatch: pytest.MonkeyPatch) -> None:
    from simt.runtime import registry

    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"webgpu not present: {why}")
    simt.use("webgpu")
    x = np.linspace(0.5, 2, 5)  # float64: arithmetic and transcendentals in float64
    np.testing.assert_allclose(i("i/i~i").exec(x, 3 * x), np.full(5, 1 / 3), rtol=1e-15)
    np.testing.assert_allclose(i("^i~i").exec(x), np.exp(x), rtol=1e-14)
    # a limit the backend declares (as WGSL's float32-only math was before wgsl_math64) is
    # refused as the component's own error, naming what is missing
    from simt.runtime import webgpu

    monkeypatch.setattr(webgpu, "F32_ONLY_MATH", frozenset({"log"}))
    with pytest.raises(simt.CompileError, match="math.log of a float64 is not available"):
        i("$i~i").exec(x)


def test_edge_cases(backend: str) -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert i("+ij~i").exec(np.zeros((0, 4), np.float32)).shape == (0,)
    assert i("ij*ij~ij").exec(np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32)).shape == (
        0,
        4,
    )
    close(i("ii~i").exec(x[:3, :3]), np.diag(x[:3, :3]))  # a repeated axis: the diagonal
    close(i("+ii~.").exec(x[:3, :3]), np.array(np.trace(x[:3, :3]), np.float32))
    close(
        i("+ij~j").exec(np.arange(12).reshape(3, 4)),
        np.arange(12).reshape(3, 4).sum(0).astype(np.float32),
    )
    assert i("&&ij~j").exec(np.array([[1, 0], [1, 1]])).tolist() == [1, 0]
    close(((I & i("+ij~.")) >> i("ij/.~ij")).exec(x), x / x.sum())
    close(i(".*i~i").exec(np.float32(2), [1, 2, 3]), np.array([2, 4, 6], np.float32))
    close(i("i+i~i").exec(x[:, 1], x[:, 2]), x[:, 1] + x[:, 2])  # strided views
    close(i("ji~ij").exec(x), x.T)
    assert i("i>>.~i").exec(np.arange(6, dtype=np.int64), 3).tolist() == [0, 0, 0, 0, 1, 1]
    a, b = (I & I).exec(x)
    assert a is not b and np.array_equal(a, x) and np.array_equal(b, x)


def test_text_is_the_python_that_builds_the_component() -> None:
    mvp = i("ij*j~ij") >> i("+ij~i")
    mlp = (I | (mvp >> i(">i~i"))) >> mvp
    for comp in (mlp, ~(i("-i~i") | i("^i~i")), i("-i~i") << i("^i~i | | i")):
        again = eval(comp.text(), {"i": i, "I": I})
        assert again.graph.key() == comp.graph.key(), comp.text()
    assert i("i-i~i")(None, np.ones(2)).text() == 'i("i-i~i")(None, ...)'


def test_into_an_array_of_another_kind_is_a_launch_error() -> None:
    """Issue 26: a float result into an int32 array was NumPy's TypeError from a cast."""
    simt.use("sim")
    x = np.ones((2, 2), np.float32)
    with pytest.raises(simt.LaunchError, match="into= output 0 is int32, but the result is "
                       r"float32 \(a cast would lose its kind\); give a float32 array"):
        i("ij+ij~ij").exec(x, x, into=np.zeros((2, 2), np.int32))
    out = np.zeros((2, 2), np.float64)  # the same kind, wider: fine
    i("ij+ij~ij").exec(x, x, into=out)
    assert out.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_python_floats_are_weak(host_backend: str) -> None:
    """A Python float next to float64 data keeps its value (NEP 50, as in kernels); next to
    float32 data it is float32 (before, it was rounded to float32 in both cases)."""
    scale = i("i*.~i")
    wide = np.asarray(scale.exec(np.ones(3), 0.1))
    assert wide.dtype == np.float64 and wide[0] == 0.1
    narrow = np.asarray(scale.exec(np.ones(3, np.float32), 0.1))
    assert narrow.dtype == np.float32 and narrow[0] == np.float32(0.1)
    assert np.asarray(scale.exec(np.ones(3), np.float32(0.5))).dtype == np.float64
