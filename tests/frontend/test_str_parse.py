"""`int(s)` of strings built at run time (frontend/str_parse.py): Python's grammar per
thread, ValueError with Python's message, OverflowError past the kernel's int type, and the
refusals (`int(s, base)`, `float(s)`), each naming the user's line."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

import simt
from simt.runtime import registry

WORDS = ["12", " -7", "+0", "1_000", "12a", "", "-", "1__0", "_1", "1_", "2147483647",
         "-2147483648", "2147483648", "-2147483649", "\t 42\u00a0\u3000", "0099", "+-1",
         "\x1f1", "3 4", "٣"]  # fmt: skip


def _use(backend: str) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"{backend} not present: {why}")
    simt.use(backend)


def _python(w: str) -> tuple[int, int]:
    """(value, 0) or (0, 1) for a ValueError, (0, 2) past int32."""
    if w == "٣":  # the one documented difference: other scripts' digits are refused
        return 0, 1
    try:
        v = int(w)
    except ValueError:
        return 0, 1
    return (v, 0) if -(2**31) <= v < 2**31 else (0, 2)


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_int_of_a_line_is_pythons_parse(backend: str, tmp_path: Path) -> None:
    _use(backend)
    for k, w in enumerate(WORDS):
        (tmp_path / f"w{k}.txt").write_text(w + "\n", encoding="utf-8")
    d = str(tmp_path)

    @simt.kernel
    def parse(out, why):
        i = simt.grid(1)
        if i < len(out):
            with open(f"{d}/w{i}.txt") as f:
                s = f.readline()
            try:
                out[i] = int(s)
            except ValueError:
                why[i] = 1
            except OverflowError:
                why[i] = 2

    out = np.zeros(len(WORDS), np.int32)
    why = np.zeros(len(WORDS), np.int32)
    parse[1, 32](out, why)
    expected = [_python(w) for w in WORDS]
    assert out.tolist() == [v for v, _ in expected]
    assert why.tolist() == [e for _, e in expected]


def test_an_uncaught_bad_literal_is_pythons_valueerror() -> None:
    simt.use("sim")

    @simt.kernel
    def parse(out):
        i = simt.grid(1)
        if i < len(out):
            out[i] = int(f"{i}x" if i == 2 else f"{i}")

    out = np.zeros(4, np.int32)
    with pytest.raises(simt.KernelError) as e:
        parse[1, 4](out)
    assert "1 thread raised ValueError" in str(e.value)
    assert "invalid literal for int() with base 10: '2x'" in str(e.value)
    assert out.tolist() == [0, 1, 0, 3]


def test_a_known_string_parses_at_compile_time_and_a_bad_one_raises_per_thread() -> None:
    simt.use("sim")

    @simt.kernel
    def known(out):
        i = simt.grid(1)
        if i < len(out):
            try:
                out[i] = int(" 1_2 ") + int("x" if i > 1 else "3")
            except ValueError as e:
                print(e)
                out[i] = -1

    out = np.zeros(3, np.int32)
    known[1, 3](out)
    assert out.tolist() == [15, 15, -1]


@pytest.mark.parametrize(
    ("line", "words"),
    [("int(s, 16)", ["int() of a string takes base 10", "a loop over the characters"]),
     ("float(s)", ["float() of a string built at run time", "np.loadtxt"])],
)  # fmt: skip
def test_refusals_name_the_line_and_say_what_to_do(
    line: str, words: list[str], tmp_path: Path
) -> None:
    simt.use("sim")
    src = f"""
import simt
@simt.kernel
def k(out):
    i = simt.grid(1)
    s = f"{{i}}"
    out[i] = {line}
"""
    path = tmp_path / "parse_refusal.py"
    path.write_text(src, encoding="utf-8")
    k = runpy.run_path(str(path))["k"]
    with pytest.raises(simt.CompileError) as e:
        k[1, 1](np.zeros(1, np.int32))
    msg = str(e.value)
    assert "parse_refusal.py:7" in msg
    for w in words:
        assert w in msg


def test_a_string_where_a_number_is_needed_says_string_not_array() -> None:
    simt.use("sim")

    @simt.kernel
    def k(out):
        i = simt.grid(1)
        s = f"{i}"
        out[i] = abs(s)

    with pytest.raises(simt.CompileError) as e:
        k[1, 1](np.zeros(1, np.int32))
    assert "got a string" in str(e.value) and "array" not in str(e.value)
