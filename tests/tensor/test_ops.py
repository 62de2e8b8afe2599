"""Every op of the table, in each of its forms (binary, unary, reduction), against NumPy on every
backend present; result types follow the documented rules."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from simt.tensor import i
from simt.tensor.ops import OPS

RNG = np.random.default_rng(7)
X = RNG.uniform(0.5, 2.0, 37).astype(np.float32)
Y = RNG.uniform(0.5, 2.0, 37).astype(np.float32)
IX = RNG.integers(-3, 4, 37).astype(np.int32)
IY = RNG.integers(-3, 4, 37).astype(np.int32)
M = RNG.uniform(0.5, 1.5, (5, 9)).astype(np.float32)
IM = RNG.integers(0, 2, (5, 9)).astype(np.int32)

Fn = Callable[[np.ndarray, np.ndarray], np.ndarray]
B = np.bool_


def _t(a: np.ndarray) -> np.ndarray:
    return a != 0


BINARY: dict[str, Fn] = {
    "+": np.add, "*": np.multiply, "-": np.subtract, "/": np.divide,
    ">": np.maximum, "<": np.minimum, "^": np.power,
    "$": lambda x, y: np.log(y) / np.log(x),
    ">>": np.greater, ">=": np.greater_equal, "<<": np.less, "<=": np.less_equal,
    "==": np.equal, "!=": np.not_equal,
    "&&": lambda x, y: _t(x) & _t(y), "||": lambda x, y: _t(x) | _t(y),
    "^^": lambda x, y: _t(x) ^ _t(y),
}  # fmt: skip
UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "+": lambda x: x, "*": lambda x: x, "-": np.negative, "/": lambda x: 1 / x,
    ">": lambda x: np.maximum(x, 0), "<": lambda x: np.minimum(x, 0), "^": np.exp, "$": np.log,
    ">>": lambda x: x > 0, ">=": lambda x: x >= 0, "<<": lambda x: x < 0,
    "<=": lambda x: x <= 0, "==": lambda x: x == 0, "!=": lambda x: x != 0,
    "&&": _t, "||": _t, "^^": _t, "!!": lambda x: x == 0,
}  # fmt: skip
REDUCE: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "+": lambda m: m.sum(1), "*": lambda m: m.prod(1), ">": lambda m: m.max(1),
    "<": lambda m: m.min(1), "&&": lambda m: _t(m).all(1), "||": lambda m: _t(m).any(1),
    "^^": lambda m: np.logical_xor.reduce(_t(m), axis=1),
}  # fmt: skip


def test_the_table_has_all_18_ops() -> None:
    assert len(OPS) == 18
    assert set(BINARY) | {"!!"} == set(OPS) == set(UNARY)
    assert {s for s, o in OPS.items() if o.reducible} == set(REDUCE)


def _inputs(sym: str) -> tuple[np.ndarray, np.ndarray]:
    return (IX, IY) if OPS[sym].category != "numeric" else (X, Y)


@pytest.mark.parametrize("sym", list(BINARY))
def test_binary(sym: str, backend: str) -> None:
    x, y = _inputs(sym)
    got = i(f"i{sym}i~i").exec(x, y)
    want = BINARY[sym](x, y)
    _check(sym, got, want)


@pytest.mark.parametrize("sym", list(UNARY))
def test_unary(sym: str, backend: str) -> None:
    x = _inputs(sym)[0] if sym not in ("-", ">", "<", ">>", ">=", "<<", "<=") else X - 1.25
    got = i(f"{sym}i~i").exec(x)
    _check(sym, got, UNARY[sym](x))


@pytest.mark.parametrize("sym", list(REDUCE))
def test_reduction(sym: str, backend: str) -> None:
    m = IM if OPS[sym].category == "logical" else M
    got = i(f"{sym}ij~i").exec(m)
    _check(sym, got, REDUCE[sym](m))


def _check(sym: str, got: np.ndarray, want: np.ndarray) -> None:
    numeric = OPS[sym].category == "numeric"
    assert got.dtype == (np.float32 if numeric else np.int32), (sym, got.dtype)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want.astype(got.dtype), rtol=2e-6, atol=1e-6)


def test_float64_in_gives_float64_out(host_backend: str) -> None:
    x = X.astype(np.float64)
    got = i("i*i~i").exec(x, Y)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, x * Y.astype(np.float64), rtol=1e-12)


def test_integer_inputs_give_float32_for_numeric_ops(host_backend: str) -> None:
    got = i("i/i~i").exec(np.array([1, 2, 3]), np.array([2, 4, 8], np.int64))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, [0.5, 0.5, 0.375])


def test_narrow_dtypes_are_converted(host_backend: str) -> None:
    got = i("i+i~i").exec(np.array([1, 2], np.int8), np.array([0.5, 1.5], np.float16))
    np.testing.assert_allclose(got, [1.5, 3.5])
    b = i("i&&i~i").exec(np.array([True, False]), np.array([True, True]))
    assert b.tolist() == [1, 0]


def test_empty_reduction_gives_the_identity(host_backend: str) -> None:
    z = np.zeros((3, 0), np.float32)
    assert i("+ij~i").exec(z).tolist() == [0, 0, 0]
    assert i("*ij~i").exec(z).tolist() == [1, 1, 1]
    assert np.isneginf(i(">ij~i").exec(z)).all()
