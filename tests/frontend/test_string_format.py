"""Strings built at run time from expressions (frontend/strings.py, frontend/str_format.py):
each `{expr}` of an f-string, and each argument of `str`, `*`, `join` and an exception, is
evaluated once, as in Python (a call with an effect in it runs once)."""

from __future__ import annotations

import numpy as np
import pytest

import simt

BACKENDS = ("sim", "cpu")


def bump(c, t):
    """The thread's own counter, one more: an effect the kernel and the host both see."""
    c[t] += 1
    return c[t]


def effects(c, t):
    """Every place a run-time string is built from an expression, each with one call that
    counts; the same code runs in the kernel (inlined) and on the host (the reference)."""
    s = f"<{bump(c, t)}|{bump(c, t) * 10}>"
    r = str(bump(c, t)) + "ab" * bump(c, t)
    j = ",".join((str(bump(c, t)), f"{bump(c, t)}"))
    m = 0
    try:
        raise ValueError(f"#{bump(c, t)}")
    except ValueError as e:
        m = len(str(e))
    s += f"{bump(c, t)}"
    return len(s), len(r), len(j), m


@simt.kernel
def effects_kernel(c, out):
    t = simt.grid(1)
    r = effects(c, t)
    for k in range(4):
        out[k, t] = r[k]
    print(f"{t}:{bump(c, t)}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_expression_of_a_built_string_runs_once(
    backend: str, capfd: pytest.CaptureFixture[str]
) -> None:
    simt.use(backend)
    c = np.zeros(4, np.int32)
    out = np.zeros((4, 4), np.int32)
    effects_kernel[1, 4](c, out)
    want_c = np.zeros(4, np.int32)
    for t in range(4):
        assert tuple(out[:, t]) == effects(want_c, t), t
    assert list(c) == [n + 1 for n in want_c] == [9] * 4  # 8 in effects, 1 printed
    assert capfd.readouterr().out.splitlines() == [f"{t}:9" for t in range(4)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_atomic_in_an_f_string_assigned_to_a_variable_runs_once(backend: str) -> None:
    @simt.kernel
    def k(c, out):
        i = simt.grid(1)
        if i < 1:
            s = f"{simt.atomic.add(c, 0, 1)}!"
            out[0] = len(s)

    simt.use(backend)
    c = np.zeros(1, np.int32)
    out = np.zeros(1, np.int32)
    k[1, 1](c, out)
    assert (int(c[0]), int(out[0])) == (1, 2)


OUT = [""]  # the folder the kernel below writes to (a global it reads when compiled)


def test_an_f_string_written_to_a_file_runs_its_call_once(tmp_path) -> None:
    OUT[0] = str(tmp_path)

    @simt.kernel
    def k(c):
        t = simt.grid(1)
        with open(f"{OUT[0]}/out{t}.txt", "w") as f:
            f.write(f"{bump(c, t)};{bump(c, t) * 3}\n")

    simt.use("sim")
    c = np.zeros(2, np.int32)
    k[1, 2](c)
    assert list(c) == [2, 2]
    assert [(tmp_path / f"out{t}.txt").read_text() for t in range(2)] == ["1;6\n"] * 2
