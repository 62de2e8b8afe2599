"""Counted loops (passes/counted.py): a `for ... in range` loop the front end wrote as a
`while` (its body could raise IndexError) is a `for` again once the bounds pass has proven its
accesses; a `while` that does not count exactly as `range` does stays a `while`."""

from __future__ import annotations

from typing import Any

import numpy as np

import simt
from corpus.k_matmul import matmul as _matmul  # the naive matmul (W6's form)
from simt.ir import Function, walk
from simt.pipeline import for_runtime


@simt.kernel
def _last_index(a, out):
    i = simt.grid(1)
    if i < len(out):
        k = 0
        while k < len(a):
            out[i] += a[k]
            k += 1
        out[i] += k  # the counter's final value is read after the loop


@simt.kernel
def _by_two(a, out):
    i = simt.grid(1)
    if i < len(out):
        k = 0
        s = 0.0
        while k < len(a):
            s += a[k]
            k += 2
        out[i] = s


def _ir(kernel: Any, backend: str, *args: Any) -> Function:
    specs = kernel.arg_specs(*args)
    return for_runtime(kernel.build_ir(specs), backend)  # type: ignore[no-any-return]


def _opcodes(fn: Function) -> list[str]:
    return [op.opcode for op in walk(fn.body) if op.opcode in ("for", "while")]


def test_a_proven_range_loop_is_a_for_loop_again() -> None:
    a = np.ones((16, 8), np.float32)
    b = np.ones((8, 16), np.float32)
    c = np.zeros((16, 16), np.float32)
    fn = _ir(_matmul, "cuda", a, b, c)
    # the version whose accesses are proven (one test per launch) counts with a `for`; the
    # fallback version, whose accesses may raise, keeps its `while`
    assert "for" in _opcodes(fn), _opcodes(fn)
    src = _matmul.source("cuda", a, b, c)
    assert "for (int k_" in src
    rng = np.random.default_rng(1)
    a = rng.random((37, 19), np.float32)
    b = rng.random((19, 23), np.float32)
    c = np.zeros((37, 23), np.float32)
    _matmul[(3, 5), (8, 8)](a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_a_counter_read_after_the_loop_or_a_step_of_two_keeps_the_while() -> None:
    a = np.arange(1, 8, dtype=np.float32)
    out = np.zeros(4, np.float32)
    assert "while" in _opcodes(_ir(_last_index, "cuda", a, out))
    _last_index[1, 4](a, out)
    assert out.tolist() == [a.sum() + 7] * 4
    out2 = np.zeros(4, np.float32)
    assert "while" in _opcodes(_ir(_by_two, "cuda", a, out2))
    _by_two[1, 4](a, out2)
    assert out2.tolist() == [a[::2].sum()] * 4
