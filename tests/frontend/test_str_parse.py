"""`int(s)` and `float(s)` of strings built at run time (frontend/str_parse.py): Python's
grammar per thread, ValueError with Python's message, OverflowError past the kernel's int
type, NotImplementedError for a float outside the exactly parsed range, and the refusal of
`int(s, base)`, naming the user's line."""

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


def _one_line_files(tmp_path: Path, stem: str, words: list[str]) -> str:
    """`{stem}{k}.txt` holding `words[k]` and a newline, each; the folder."""
    for k, w in enumerate(words):
        (tmp_path / f"{stem}{k}.txt").write_text(w + "\n", encoding="utf-8")
    return str(tmp_path)


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
    d = _one_line_files(tmp_path, "w", WORDS)

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
            out[i] = int(f"{i}x" if i == 2 else f"{i}000000000" if i == 3 else f"{i}")

    out = np.zeros(4, np.int32)
    with pytest.raises(simt.KernelError) as e:
        parse[1, 4](out)
    assert "1 thread raised ValueError" in str(e.value)
    assert "1 thread raised OverflowError" in str(e.value) and "@simt.cuda.jit" in str(e.value)
    assert "invalid literal for int() with base 10: '2x'" in str(e.value)
    assert out.tolist() == [0, 1, 0, 0]


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
     ("float(s, 2)", ["float() takes one string"])],
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


FLOATS = ["1e1_0", "1_0.5", "1_.5", "1._5", "1.e5", ".e5", ".5", "5.", "-.5e-3", " +1E+2 ", "1e",
          "e5", "inf", "-Infinity", "nAn", "+inf ", "infinit", "1__0", "0x10", "1e+_5", "-0",
          "  ", "", "3.14159", "0.1", "1e22", "1e23", "0.000001", "  -7 ", "1_000.000_1", ".",
          "+.", "-", "0e999", "6.02214076e23", "\u3000 2.5\u00a0", "3.4028235e38", "1e-22",
          "123456789012345678", "1.5e400", "2.5e-23"]  # fmt: skip
OUTSIDE = {"123456789012345678", "1.5e400", "2.5e-23", "3.4028235e38"}  # past the exact range


@pytest.mark.parametrize(("backend", "dtype"),
                         [("sim", np.float32), ("cpu", np.float32), ("cpu", np.float64)])
def test_float_of_a_line_is_pythons_value(backend: str, dtype: type, tmp_path: Path) -> None:
    """Each value is Python's float() stored in the kernel's float type, bit for bit (the
    sign of -0.0 too); a refused text is Python's ValueError; a number outside the exact range
    is a NotImplementedError, never a differently rounded value."""
    _use(backend)
    d = _one_line_files(tmp_path, "f", FLOATS)

    def parse(out, why):
        i = simt.grid(1)
        if i < len(out):
            with open(f"{d}/f{i}.txt") as f:
                s = f.readline()
            try:
                out[i] = float(s)
            except ValueError:
                why[i] = 1
            except NotImplementedError:
                why[i] = 2

    kernel = simt.kernel(fp64=dtype is np.float64)(parse)
    out = np.zeros(len(FLOATS), dtype)
    why = np.zeros(len(FLOATS), np.int32)
    kernel[1, 64](out, why)
    for k, w in enumerate(FLOATS):
        if w in OUTSIDE:
            assert why[k] == 2, w
            continue
        try:
            want = dtype(float(w))
        except ValueError:
            assert why[k] == 1, w
            continue
        assert why[k] == 0, w
        got = out[k]
        assert (np.isnan(want) and np.isnan(got)) or (
            want == got and np.signbit(want) == np.signbit(got)), (w, got, want)  # fmt: skip


def test_an_uncaught_float_outside_the_exact_range_says_what_to_do() -> None:
    simt.use("sim")

    @simt.kernel
    def parse(out):
        i = simt.grid(1)
        if i < len(out):
            out[i] = float(f"1.{i}e-40")

    with pytest.raises(simt.KernelError) as e:
        parse[1, 2](np.zeros(2, np.float32))
    assert "NotImplementedError" in str(e.value) and "np.loadtxt" in str(e.value)
