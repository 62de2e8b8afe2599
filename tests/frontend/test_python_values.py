"""Values shown and read as Python shows and reads them (#27, pylang8): `repr`/`ascii` of a
string built at run time (quotes chosen and escapes written as Python's), `str(e)` of a
KeyError on a run-time key (the key's repr), a tuple or list indexed at run time (negative
indices, Python's IndexError wording), a list display printed as a list, and an int64 item
widening an int32 list or dict (Python's ints are one type)."""

from __future__ import annotations

import numpy as np
import pytest

import simt

BACKENDS = ("sim", "cpu")
WORDS = ("plain", "it's", 'say "hi"', "both ' and \"", "tab\tnew\nline\\", "\x01\x7f\xe9\xad",
         "\u2028\ud800\U0001f600")  # fmt: skip


def _codes(words: tuple[str, ...]) -> np.ndarray:
    width = max(len(w) for w in words)
    out = np.full((len(words), width + 1), -1, np.int32)
    for i, w in enumerate(words):
        out[i, : len(w)] = [ord(c) for c in w]
    return out


@simt.kernel
def shown(codes, out):
    t = simt.grid(1)
    if t < len(out):
        s = ""
        for k in range(codes.shape[1]):
            if codes[t, k] >= 0:
                s += chr(codes[t, k])
        r = repr(s)
        a = ascii(s)
        d = {"k": 1}
        m = ""
        try:
            d[s + "!"] += 1
        except KeyError as e:
            m = str(e)
        f = f"{s!r:>30}|{s!a}"
        for k in range(len(r)):
            out[t, 0, k] = ord(r[k])
        for k in range(len(a)):
            out[t, 1, k] = ord(a[k])
        for k in range(len(m)):
            out[t, 2, k] = ord(m[k])
        for k in range(len(f)):
            out[t, 3, k] = ord(f[k])


@pytest.mark.parametrize("backend", BACKENDS)
def test_repr_ascii_and_key_error_text_are_pythons(backend: str) -> None:
    simt.use(backend)
    codes = _codes(WORDS)
    out = np.full((len(WORDS), 4, 96), -1, np.int32)
    shown[1, len(WORDS)](codes, out)
    for t, w in enumerate(WORDS):
        want = (repr(w), ascii(w), repr(w + "!"), f"{w!r:>30}|{w!a}")
        got = ["".join(chr(c) for c in row if c >= 0) for row in out[t]]
        assert got == list(want), (w, got)


@simt.kernel
def picks(a, out):
    t = simt.grid(1)
    if t < len(out):
        tup = (10, 20, 30)
        pair = (a[t], a[t] * 2)
        k = t % 8 - 4
        v = 0
        try:
            v = tup[k]
        except IndexError as e:
            v = -len(str(e))
        w = 0
        try:
            w = pair[k]
        except IndexError as e:
            w = -len(str(e)) * 10
        out[t, 0] = v
        out[t, 1] = w
        n = simt.int64(a[t]) * 3000000000
        xs = [1, t, n]
        d = {t: 1, 7: n}
        out[t, 2] = simt.int32((xs[-1] + d[7]) % 1000003)


def test_tuples_indexed_at_run_time_read_as_python() -> None:
    simt.use("sim")
    a = np.arange(1, 17, dtype=np.int32)
    out = np.zeros((16, 3), np.int32)
    picks[1, 16](a, out)
    for t in range(16):
        k = t % 8 - 4
        tup, pair = (10, 20, 30), (int(a[t]), int(a[t]) * 2)
        want0 = tup[k] if -3 <= k < 3 else -len("tuple index out of range")
        want1 = pair[k] if -2 <= k < 2 else -len("tuple index out of range") * 10
        n = int(a[t]) * 3000000000
        assert out[t].tolist() == [want0, want1, (2 * n) % 1000003], t


@simt.kernel
def lists_printed(a):
    t = simt.grid(1)
    s = "w'" + str(t)
    print([t, a[t]], (t,), [s, (t, s)], [k * t for k in range(3)], repr(s))


def test_list_displays_print_as_lists(capsys: pytest.CaptureFixture[str]) -> None:
    simt.use("sim")
    lists_printed[1, 2](np.array([5, 6], np.int32))
    want = "".join(
        f"{[t, 5 + t]} {(t,)} {[s, (t, s)]} {[k * t for k in range(3)]} {s!r}\n"
        for t in range(2) for s in [f"w'{t}"]
    )  # fmt: skip
    assert capsys.readouterr().out == want


FLOAT_SPECS = (".10f", "e", ".3e", "g", ".3g", "%", ".1%", ">+12,.2f", "^14.4E", "<10.0f",
               "#.0f", "#g", ".0e", "G", "_.1f", "015.3f", " .2f", ".17g", ".25f",
               "10.3G")  # fmt: skip
FLOATS = (0.0, -0.0, 1.5, 0.1, -2.675, 1e16, 123456789.125, 9.9995, 0.5, 2.5, 1e-5, 1.5e-310,
          5e-324, 1.7976931348623157e308, float("inf"), float("-inf"), float("nan"), 999999.5,
          0.00012345, 1234.5)  # fmt: skip


def floats_text(x, w, p):
    out = ""
    for spec in FLOAT_SPECS:  # (unrolled: the specs are known)
        out += format(x, spec) + "|"
    return out + f"{x:{w}.{p}f}|{x:>{w}.{p}e}|{x:{w}.{p}g}"


@simt.kernel(heap=65536)
def floats_shown(a, out):
    t = simt.grid(1)
    if t < len(a):
        s = floats_text(a[t], t % 13 - 3, t % 6)
        for j in range(len(s)):
            out[t, j] = ord(s[j])
        out[t, len(s)] = -1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("backend", BACKENDS)
def test_floats_in_strings_built_at_run_time_are_pythons(backend: str, dtype: type) -> None:
    # the float types on float64 and float32 values, grouping, fill, sign, #, 0, and a
    # run-time width (negative: Python's sign '-' and its magnitude) and precision
    simt.use(backend)
    with np.errstate(over="ignore"):
        a = np.array(FLOATS, dtype)
    out = np.zeros((len(a), 6000), np.int32)
    floats_shown[1, len(a)](a, out)
    for t, x in enumerate(a.tolist()):
        row = out[t].tolist()
        got = "".join(chr(c) for c in row[: row.index(-1)])
        assert got == floats_text(x, t % 13 - 3, t % 6), (x, t)


# ------------------------------------------------------------------ floats with no format type
@simt.kernel
def shortest_shown(a, out):
    t = simt.grid(1)
    if t < len(a):
        s = str(a[t])
        for j in range(len(s)):
            out[t, j] = ord(s[j])
        out[t, len(s)] = -1


def _shortest_values(dtype: type, n: int) -> np.ndarray:
    """`n` random bit patterns (NaN among them), powers of 10 and of 2 across the range,
    subnormals, the largest, the smallest normal, and the thresholds of the layouts."""
    bits = 64 if dtype == np.float64 else 32
    rng = np.random.default_rng(27 + bits)
    words = rng.integers(0, 2**bits, n, dtype=np.uint64).astype(f"uint{bits}")
    fi = np.finfo(dtype)
    lo, hi = int(np.log10(float(fi.smallest_subnormal))), int(np.log10(float(fi.max)))
    with np.errstate(over="ignore", under="ignore"):
        special = np.array(
            [10.0**p for p in range(lo, hi + 1)] + [2.0**p for p in range(fi.minexp - fi.nmant,
                                                                              fi.maxexp, 5)]
            + [float(fi.max), float(fi.tiny), float(fi.smallest_subnormal), 0.0, -0.0, 1e-4,
               1e6, 1e16, 999999.9, 1e-5, 0.1, 0.3, 2.0 / 3.0, float("inf"), float("-inf")],
            dtype,
        )  # fmt: skip
    return np.concatenate([words.view(dtype), special, -special[:40]])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("backend", BACKENDS)
def test_str_of_a_float_is_its_shortest_round_trip_digits(backend: str, dtype: type) -> None:
    # str(x) of a run-time float: Python's repr of a float64, numpy's str of a float32 (as
    # print shows either); was a CompileError ('written by the host')
    simt.use(backend)
    a = _shortest_values(dtype, 1000)
    out = np.zeros((len(a), 32), np.int32)
    shortest_shown[(len(a) + 127) // 128, 128](a, out)
    bad = []
    for t, x in enumerate(a):
        row = out[t].tolist()
        got = "".join(chr(c) for c in row[: row.index(-1)])
        want = repr(float(x)) if dtype == np.float64 else str(x)
        if got != want:
            bad.append((want, got))
    assert not bad, bad[:10]


NO_TYPE = ("", ".3", ">12", "+", ",", "#", ".0", "#.3", "<10.5", "^+14.2", "010", ".17", "_.1",
           " ")  # fmt: skip


def no_type_text(x):
    out = str(x) + "|" + "{}".format(x)  # noqa: UP032
    for spec in NO_TYPE[1:]:  # (unrolled: the specs are known)
        out += "|" + format(x, spec)
    return out


@simt.kernel(heap=16384)
def no_type_shown(a, out):
    t = simt.grid(1)
    if t < len(a):
        s = no_type_text(a[t])
        for j in range(len(s)):
            out[t, j] = ord(s[j])
        out[t, len(s)] = -1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_float_with_no_format_type_is_pythons(dtype: type) -> None:
    # a spec without a type: with a precision, g keeping a '.0' (fixed-point below
    # 10**(p - 1)); without, the shortest digits (of the float64 value: Python's format of a
    # numpy float32 widens it), with fill, align, sign, #, 0, width and grouping
    simt.use("cpu")
    vals = [1.0, 100.0, 12.0, 123.0, 1e16, 1e-5, 1234567.0, 0.5, 1.5, 2.5, 0.0, -0.0,
            float("inf"), -float("inf"), float("nan"), 9.995, 1e300, 5e-324, 0.1, 99.95]
    rng = np.random.default_rng(5)
    with np.errstate(over="ignore", under="ignore"):
        a = np.array(vals + list(rng.uniform(-1e6, 1e6, 20)) + list(10 ** rng.uniform(-30, 30, 20)),
                     dtype)  # fmt: skip
    out = np.zeros((len(a), 400), np.int32)
    no_type_shown[1, len(a)](a, out)
    for t, x in enumerate(a):
        row = out[t].tolist()
        got = "".join(chr(c) for c in row[: row.index(-1)])
        want = no_type_text(x)
        if dtype == np.float32:  # '{}'.format(x) shows x as str(x) does, as print does
            want = want.replace("|" + format(x) + "|", "|" + str(x) + "|", 1)
        assert got == want, (x, got, want)
