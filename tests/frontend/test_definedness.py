"""Front-end verdicts of issue #15, item 11: variables defined on one path only, `f(*t)`,
format specs, and messages in the user's words (item 13)."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt.runtime import registry
from simt.testing.differential import INTERNAL_WORDS


@pytest.fixture(autouse=True)
def _on_sim(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_current", registry._current)
    simt.use("sim")


@simt.kernel
def only_in_then(a, out):
    i = simt.grid(1)
    if a[i] > 0.5:
        y = 2.0
    out[i] = y  # noqa: F821 - the point of the test


@simt.kernel
def defined_where_it_is_read(a, out):
    i = simt.grid(1)
    if a[i] > 0.5:
        y = 2.0
    else:
        return
    out[i] = y
    for _ in range(3):
        if a[i] > 0.7:
            z = 1.0
        else:
            continue
        out[i] += z


def test_a_variable_assigned_under_a_run_time_if_cannot_be_read_after() -> None:
    a = np.float32([0.0, 1.0])
    with pytest.raises(simt.CompileError, match=r"`y` may be undefined") as e:
        only_in_then[1, 2](a, np.zeros(2, np.float32))
    assert e.value.line is not None and "out[i] = y" in str(e.value)


def test_paths_that_return_or_continue_do_not_count() -> None:
    a = np.float32([0.0, 0.6, 1.0])
    out = np.zeros(3, np.float32)
    defined_where_it_is_read[1, 3](a, out)
    assert out.tolist() == [0.0, 2.0, 5.0]


def add3(a, b, c):
    return a + b * c


@simt.kernel
def star_call(a, out):
    i = simt.grid(1)
    t = (a[i], 2.0, 3.0)
    out[i] = add3(*t)


def test_star_arguments_of_known_length_are_in_the_language() -> None:
    out = np.zeros(2, np.float32)
    star_call[1, 2](np.float32([1.0, 2.0]), out)
    assert out.tolist() == [7.0, 8.0]


@simt.kernel
def bad_spec(a):
    i = simt.grid(1)
    print(f"{a[i]:q}")


def test_a_bad_format_spec_is_a_located_compile_error() -> None:
    with pytest.raises(simt.CompileError, match=r"bad format spec 'q' for a float32") as e:
        bad_spec[1, 1](np.zeros(1, np.float32))
    assert e.value.line is not None


def pick(a, n):
    for k in range(n):
        if a > k:
            return a, k
    return a, -1


@simt.kernel
def loop_return(a, out, n):
    i = simt.grid(1)
    v, k = pick(a[i], n)
    s = (v,)
    for _ in range(n):
        s = (v, k)  # a tuple that changes length in a run-time loop
    out[i] = v + k + s[0]


def test_messages_name_no_internal_variable() -> None:
    with pytest.raises(simt.CompileError) as e:
        loop_return[1, 1](np.zeros(1, np.float32), np.zeros(1, np.float32), 3)
    text = str(e.value)
    assert "`s`" in text and not any(w in text for w in (*INTERNAL_WORDS, "$"))
