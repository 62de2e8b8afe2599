"""Launch advice on ordinary launches: a clearly wasteful launch shape gets one
SimtPerformanceWarning per kernel, checked once per specialisation (never on the launch's hot
path), switchable off with SIMT_ADVICE=off or simt.launch_advice(False)."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import simt
from simt.benchtool.advise import quick
from simt.runtime.base import Dim3

kernel_module = importlib.import_module("simt.kernel")


def _add():
    @simt.kernel
    def add(a, out):
        i = simt.grid(1)
        if i < len(out):
            out[i] = a[i] + 1

    return add


def test_quick_checks_only_what_is_clearly_wasteful() -> None:
    (gpu,) = quick(Dim3(10), Dim3(100), "cuda")
    assert gpu.kind == "block-width" and "[4, 256]" in gpu.message
    assert quick(Dim3(10), Dim3(100), "cpu") == []  # no warps on the cpu
    (one,) = quick(Dim3(1000), Dim3(1), "cpu")
    assert one.kind == "one-thread-blocks"
    assert quick(Dim3(1000), Dim3(1), "sim") == []  # the reference gets none
    assert quick(Dim3(4), Dim3(256), "cuda") == [] and quick(Dim3(1), Dim3(8), "cuda") == []


def test_once_per_kernel_at_the_users_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMT_ADVICE", "on")
    simt.use("cpu")
    add = _add()
    a = np.ones(64, np.float32)
    out = np.zeros_like(a)
    with pytest.warns(simt.SimtPerformanceWarning, match=r"add\[64, 1\]: every block has one") as w:
        add[64, 1](a, out)
    assert w[0].filename == __file__
    assert (out == 2).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        add[64, 1](a, out)  # shown once per kernel
        add[64, 1](a.astype(np.float64), out)  # a new specialisation: checked, not shown again


def test_checked_once_per_specialisation_not_per_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMT_ADVICE", "on")
    calls = []
    tool = kernel_module.TOOLS["launch_advice"]
    monkeypatch.setitem(
        kernel_module.TOOLS, "launch_advice", lambda *a: calls.append(1) or tool(*a)
    )
    simt.use("cpu")
    add = _add()
    a = np.ones(64, np.float32)
    out = np.zeros_like(a)
    for _ in range(20):
        add[2, 32](a, out)
    assert calls == [1]


@pytest.mark.parametrize("how", ["env", "api"])
def test_switched_off(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMT_ADVICE", "off" if how == "env" else "on")
    simt.use("cpu")
    add = _add()
    a = np.ones(64, np.float32)
    try:
        if how == "api":
            simt.launch_advice(False)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            add[64, 1](a, np.zeros_like(a))
    finally:
        simt.launch_advice()  # back to SIMT_ADVICE
    assert kernel_module.advice_enabled() == (how == "api")
