"""Strings built at run time from expressions (frontend/strings.py, frontend/str_format.py):
each `{expr}` of an f-string, and each argument of `str`, `*`, `join` and an exception, is
evaluated once, as in Python (a call with an effect in it runs once); format specs of ints,
bools and strings written as Python's `format` writes them, in f-strings, `str.format` and
`format()`; float32 under `.Nf` as Python rounds it; and the refusals (other floats, specs
and templates not read at compile time)."""

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


# ---------------------------------------------------------------------------- format specs
INT_SPECS = (
    "", "d", ">8", "<8", "^9", "=+9", "+", " ", "08", "#x", "#010x", "X", "#X", "b", "#b",
    "o", ",", "_", "_x", "012,", "09_d", "0=12_b", "*^12,", "+#o", "<05", "-^+#14_X", "\n>4",
    "{^5",
)  # fmt: skip


def _spec_kernel(specs):
    @simt.kernel(heap=16384)
    def k(a, t):
        v = a[t]
        for spec in specs:
            s = f"[{v:{spec}}]"  # a run-time string: formatted on the device
            print(s, end="")
        print()

    return k


ALL_SPECS = _spec_kernel(INT_SPECS)
WIDE_SPECS = ("b", "#_o", "0=12_b", "+_x", "-^+#30_X", "020,", " d")  # fmt: skip
WIDE = _spec_kernel(WIDE_SPECS)
INTS = [
    (np.int32, [0, 5, -5, 123456, -(2**31), 2**31 - 1]),
    (np.int64, [-(2**63), 2**63 - 1, 10**12]),
    (np.uint64, [2**64 - 1, 7]),
    (np.bool_, [True, False]),
]
SMALL = [(np.int8, [-128, 127]), (np.uint16, [65535]), (np.uint32, [2**32 - 1])]


def _run(kernel, specs, ints, capfd: pytest.CaptureFixture[str]) -> None:
    want = []
    for dtype, values in ints:
        a = np.array(values, dtype)
        for t, v in enumerate(a.tolist()):
            kernel[1, 1](a, t)
            want.append("".join(f"[{v:{s}}]" for s in specs) + "\n")
    assert capfd.readouterr().out == "".join(want)


def test_int_format_specs_are_pythons(capfd: pytest.CaptureFixture[str]) -> None:
    """Every spec on every int width (and bool) on sim; the corpus (strings_formatted) runs
    int32 on every backend."""
    simt.use("sim")
    _run(ALL_SPECS, INT_SPECS, INTS, capfd)
    _run(WIDE, WIDE_SPECS, SMALL, capfd)


def test_64_bit_format_specs_on_cpu(capfd: pytest.CaptureFixture[str]) -> None:
    simt.use("cpu")
    _run(WIDE, WIDE_SPECS, [(np.int64, [-(2**63), 10**12]), (np.uint64, [2**64 - 1])], capfd)


def string_specs(v):
    """String specs of a run-time string, and of a number's text after !s / !r; the same
    code runs in the kernel and on the host."""
    s = "ab" + str(v)
    return (
        f"[{s:>8}][{s:<7}][{s:^9}][{s:*^10}][{s:.3}][{s:>6.2}][{s:05}][{s!s:_<6}][{s:}]"
        f"[{v!s:>6}][{v > 0!s:^7}][{v!r:.2}][{v < 0!a:s}][{s:.0}]"
    )


@simt.kernel(heap=4096)
def string_spec_kernel(a):
    t = simt.grid(1)
    line = string_specs(a[t])
    print(line)
    print(f"{a[t] > 0!s:>6}|{a[t]!s:.1}|{a[t]:+05}")  # print formats these on the host


@pytest.mark.parametrize("backend", BACKENDS)
def test_string_specs_and_conversions_are_pythons(
    backend: str, capfd: pytest.CaptureFixture[str]
) -> None:
    simt.use(backend)
    a = np.array([7, -1234, 0, 2147483647], np.int32)
    string_spec_kernel[1, 4](a)
    want = []
    for v in a.tolist():
        want += [string_specs(v), f"{v > 0!s:>6}|{v!s:.1}|{v:+05}"]
    assert capfd.readouterr().out.splitlines() == want


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("s = f'{simt.float64(n):z}'", "a float64 in a string built at run time (format spec"),
        ("s = f'{simt.float32(n):z.3e}'", "the 'z' flag is written by the host"),
        ("s = f'{simt.float32(n):012,.1f}'", "grouping of zero padding"),
        ("s = f'{simt.float32(n):n}'", "(format spec 'n'): format type 'n'"),
        ("s = f'{n:{n}c}'", "a format spec in a string built at run time: '{}c'"),
        ("s = f'{n:{n}{n}}'", "stands for something other than the width or the precision"),
        ("s = f'{n:c}'", "'c' (a character of a code point)"),
        ("s = f'{n:n}'", "'n' (digits as the host's locale writes them)"),
        ("s = f'{n:e}'", "'e' (the int written as a float)"),
        ("s = f'{n:.2}'", "bad format spec '.2' for a int32 value: Precision not allowed"),
        ("s = f'{n:,x}'", "Cannot specify ',' with 'x'"),
        ("s = f'{str(n):+}'", "bad format spec '+' for a string: Sign not allowed"),
        ("s = f'{n!s:=5}'", "'=' alignment not allowed in string format specifier"),
    ],
)
def test_refusals_name_the_line_and_say_what_to_write(body: str, words: str, refusal) -> None:
    text = refusal(
        "import simt\n\n@simt.kernel\ndef k(out, n):\n    t = simt.grid(1)\n"
        f"    {body}\n    out[t] = len(s)\n"
    )
    assert words in text and "user_kernel.py:6" in text


def formats(t, v):
    """`str.format` and `format()`; the same code runs in the kernel and on the host."""
    w = "id" + str(t)
    s = "{} {:>6} {!s:^7} {:#x}".format(w, v, v > 0, v)  # noqa: UP032
    s += "|{0}{0:+}|{1:_b}|{n:*<5}".format(v, t, n=w)  # noqa: UP032
    return s + "," + format(v, "08,") + format(w, ">5") + format(v) + format(t > 1) + format(w)


@simt.kernel(heap=2048)
def formats_kernel(a):
    t = simt.grid(1)
    print(formats(t, a[t]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_str_format_and_format_are_pythons(
    backend: str, capfd: pytest.CaptureFixture[str]
) -> None:
    simt.use(backend)
    a = np.array([5, -1234, 99999, -(2**31)], np.int32)
    formats_kernel[1, 4](a)
    assert capfd.readouterr().out.splitlines() == [formats(t, v) for t, v in enumerate(a.tolist())]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("s = str(n).format(t)", "tpl.replace('{name}', str(v))"),
        ("s = '{:{}}'.format(t, 3)", "a nested field in the format spec"),
        ("s = '{0.real}'.format(t)", "attribute and index fields are not read in a kernel"),
        ("s = '{} {}'.format(t)", "Replacement index 1 out of range"),
        ("s = '{} {0}'.format(t)", "cannot switch from automatic field numbering to manual"),
        ("s = '{x}'.format(t)", "no keyword argument 'x'"),
        ("s = '{:z.2}'.format(simt.float64(t))", "a float64 in a string built at run time"),
        ("s = format(t, str(n))", "format()'s spec must be a string known at compile time"),
        ("s = format(t, 'q')", "bad format spec 'q' for a int32 value"),
        ("s = format((t, n))", "format() in a kernel formats numbers and strings"),
        ("s = format(simt.float64(t), 'n')", "a float64 in a string built at run time"),
    ],
)
def test_format_refusals_name_the_line_and_say_what_to_write(
    body: str, words: str, refusal
) -> None:
    text = refusal(
        "import simt\n\n@simt.kernel\ndef k(out, n):\n    t = simt.grid(1)\n"
        f"    {body}\n    out[t] = len(s)\n"
    )
    assert words in text and "user_kernel.py:6" in text


def test_a_caught_exception_is_formatted_by_its_message(capfd: pytest.CaptureFixture[str]) -> None:
    @simt.kernel
    def k(a):
        t = simt.grid(1)
        try:
            raise ValueError(f"bad {a[t]:+05}")
        except ValueError as e:
            s = "<{}|{!s:.5}>".format(e, e) + format(str(e), "*^14")  # noqa: UP032
            print(s, f"{e}")

    simt.use("sim")
    k[1, 2](np.array([5, -300], np.int32))
    want = []
    for v in (5, -300):
        m = f"bad {v:+05}"
        want.append("<{}|{!s:.5}>".format(m, m) + format(m, "*^14") + " " + m)  # noqa: UP032
    assert capfd.readouterr().out.splitlines() == want


def test_a_spec_on_an_exception_without_s_is_refused_as_python_refuses_it(refusal) -> None:
    """Python: format(e, ">5") and "{:>5}".format(e) raise TypeError (an exception's
    __format__ takes no spec); only "{!s:>5}" and format(e) format its message."""
    with pytest.raises(TypeError):
        format(ValueError("abc"), ">5")
    src = (
        "import simt\n\n@simt.kernel\ndef k(out, n):\n    t = simt.grid(1)\n    try:\n"
        "        raise ValueError('abc')\n    except ValueError as e:\n        s = {call}\n"
        "        out[t] = len(s)\n"
    )
    for call in ('"{:>5}".format(e)', 'format(e, "*^14")'):
        text = refusal(src.format(call=call))
        assert "on an exception: Python raises TypeError" in text and "!s" in text, text
        assert "user_kernel.py:9" in text


def test_a_field_name_that_is_not_decimal_is_a_keyword_name(refusal) -> None:
    text = refusal(
        "import simt\n\n@simt.kernel\ndef k(out, n):\n    t = simt.grid(1)\n"
        "    s = '{\u00b2}'.format(t)\n    out[t] = len(s)\n"
    )
    assert "no keyword argument" in text and "internal error" not in text, text


FIXED_SPECS = (".2f", ".0f", ".9f", "+.3f", " .1f", "010.3f", "<12.4F", "^11.2f", "*>9.1f",
               "=+10.2f", ".1F", "08.0f")  # fmt: skip


@simt.kernel(heap=262144)
def fixed_kernel(a, n):
    for t in range(n):
        v = a[t]
        for spec in FIXED_SPECS:
            s = f"[{v:{spec}}]"  # formatted on the device
            print(s, end="")
        print()


def _fixed_values() -> np.ndarray:
    g = np.random.default_rng(5)
    bits = g.integers(0, 2**32, 24, dtype=np.uint64).astype(np.uint32).view(np.float32)
    edge = [0.0, -0.0, 0.125, 0.375, 2.5, 3.5, 0.5, 1.5, -0.001, 0.995, 9.9999995, 1e-45,
            3.4028235e38, -3.4028235e38, np.inf, -np.inf, np.nan, 0.05, 123456.79, 2.0**64,
            2.0**63, 1e19, 1e-10, 16777216.0, 999999.94]  # fmt: skip
    scaled = g.uniform(-1, 1, 16) * 10.0 ** g.uniform(-3, 7, 16)
    return np.concatenate([bits, np.array(edge), scaled]).astype(np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_fixed_point_is_pythons(backend: str, capfd: pytest.CaptureFixture[str]) -> None:
    """The exact binary value rounded half to even, as Python's format: ties (0.125, 2.5 at
    .0f), subnormals, the largest float32 (39 digits), -0.0, inf and nan."""
    simt.use(backend)
    a = _fixed_values()
    per = 8 if backend == "sim" else 1  # (cpu keeps 1024 print records a launch)
    for k in range(0, len(a), per):
        fixed_kernel[1, 1](a[k : k + per], len(a[k : k + per]))
    want = ["".join(f"[{v:{s}}]" for s in FIXED_SPECS) for v in a.tolist()]
    assert capfd.readouterr().out.splitlines() == want


def filled(t, v):
    """The refusal of a template built at run time advises these two spellings."""
    tpl = "[" * (t % 3) + "{name}={value}, {name}" + "]" * (t % 2)
    head = "<" + str(t) + ">"
    return head + f"{v:>5}" + "|" + tpl.replace("{name}", "v" + str(t)).replace(
        "{value}", str(v))


@simt.kernel
def filled_kernel(a, out):
    t = simt.grid(1)
    s = filled(t, a[t])
    out[t, 0] = len(s)
    for j in range(len(s)):
        out[t, 1 + j] = ord(s[j])


def test_the_run_time_template_advice_works() -> None:
    simt.use("sim")
    a = np.array([5, -1234, 99999], np.int32)
    out = np.zeros((3, 64), np.int32)
    filled_kernel[1, 3](a, out)
    for t, v in enumerate(a.tolist()):
        assert "".join(chr(c) for c in out[t, 1:1 + out[t, 0]]) == filled(t, v)
