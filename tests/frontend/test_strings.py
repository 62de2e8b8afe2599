"""Strings built per thread at run time (frontend/strings.py): each operation against Python
running the same helper on the host, printing and file writes of them, the heap running out
as a MemoryError, exceptions raised with a message built at run time, and the refusals (a
float made into a string, a class that builds its own message)."""

from __future__ import annotations

import numpy as np
import pytest

import simt

BACKENDS = ("sim", "cpu")


def text_ops(t, v):
    """The same code runs in the kernel (inlined) and on the host (the reference)."""
    s = "x=" + str(v)
    f = f"t{t}:{v:d}!"
    loud = s.upper() + "|" + f.lower()
    r = "ab" * (t % 4)
    acc = ""
    for j in range(t % 5):
        acc += str(j * 7)
    word = "neg" if v < 0 else "pos"
    if t % 2 == 0:
        word = word + str(t)
    joined = ",".join((s, word, str(t > 3)))
    return (
        len(s), len(f), len(loud), len(r), len(acc), len(joined),
        1 if s == "x=" + str(v) else 0, 1 if s != f else 0,
        1 if s.startswith("x=-") else 0, 1 if f.endswith("!") else 0,
        1 if s[-1] == "7" else 0, 1 if acc.endswith("21") else 0,
        1 if loud[0] == "X" else 0, 1 if word == "pos" else 0,
    )


@simt.kernel
def text_kernel(a, out):
    t = simt.grid(1)
    r = text_ops(t, a[t])
    for k in range(14):
        out[k, t] = r[k]


VALUES = np.array([7, -17, 0, 123456789, -2147483648, 2147483647, 10, -1, 100000, 99], np.int32)


@pytest.mark.parametrize("backend", BACKENDS)
def test_string_operations_agree_with_python(backend: str) -> None:
    simt.use(backend)
    out = np.zeros((14, len(VALUES)), np.int32)
    text_kernel[1, len(VALUES)](VALUES, out)
    for t, v in enumerate(VALUES.tolist()):
        assert tuple(out[:, t]) == text_ops(t, v), t


@simt.kernel
def printing(a, b):
    t = simt.grid(1)
    s = f"{t}:" + str(a[t])
    if b[t]:
        s += "!"
    tag = "yes" if b[t] else "no"
    print(s, tag.upper(), f"[{s}]", sep="|")


@pytest.mark.parametrize("backend", BACKENDS)
def test_printed_strings_are_pythons(backend: str, capfd: pytest.CaptureFixture[str]) -> None:
    simt.use(backend)
    a = np.array([5, -40, 0, 12345], np.int64)
    b = np.array([True, False, True, False])
    printing[1, 4](a, b)
    want = []
    for t in range(4):
        s = f"{t}:" + str(int(a[t])) + ("!" if b[t] else "")
        want.append(f"{s}|{'YES' if b[t] else 'NO'}|[{s}]")
    assert capfd.readouterr().out.splitlines() == want


def search_ops(t, v):
    """`in`, `find`, slices and iteration of run-time strings; the same code runs in the kernel
    and on the host."""
    w = "x=" + str(v)
    ones = 0
    for ch in w:
        if ch == "1" or ch == "-":
            ones += 1
    return (
        1 if "=" in w else 0, 1 if str(t) in w else 0, 1 if "zz" not in w else 0,
        1 if "" in w else 0, 1 if w[2:] in "x=-12345" else 0,
        w.find("="), w.find(str(t % 10)), w.find("-", 1), w.find("", 50), w.find("", -2),
        w.find("1", -3), w.find("x=", t),
        w.find("1", 1, -1), w.find("", 3, 2), w.find("", 9, 50), w.find("=", -50, 2),
        w.rfind("1", -4), w.rfind("", 1, 3), w.rfind("1", t, t + 3), w.rfind("", 50),
        w.count("1", 2, t), w.count("", -3), w.count("1", 50), w.count("", t, 2),
        w.count("x", -50, -5), w.index("=", 0, 3),
        len(w[2:]), len(w[-3:]), len(w[t:]), 1 if w[::-1].endswith("=x") else 0,
        len(w[1:-1:2]), len(w[t % 4 : t]), len(w[:-t]), len(w[::-3]),
        1 if w[2:].startswith("-") == (v < 0) else 0, 1 if w[:2] == "x=" else 0,
        ones, len(str(t)[0:9]), 1 if "abc"[t % 3 :] in "abc" else 0,
    )


NSEARCH = len(search_ops(0, 0))


@simt.kernel
def search_kernel(a, out):
    t = simt.grid(1)
    r = search_ops(t, a[t])
    for k in range(NSEARCH):
        out[k, t] = r[k]


@pytest.mark.parametrize("backend", BACKENDS)
def test_searching_and_cutting_agree_with_python(backend: str) -> None:
    simt.use(backend)
    out = np.zeros((NSEARCH, len(VALUES)), np.int32)
    search_kernel[1, len(VALUES)](VALUES, out)
    for t, v in enumerate(VALUES.tolist()):
        assert tuple(out[:, t]) == search_ops(t, v), t


def test_cut_strings_print_as_pythons(capfd: pytest.CaptureFixture[str]) -> None:
    @simt.kernel
    def k(a):
        t = simt.grid(1)
        s = "<" + str(a[t]) + ">"
        print(s[1:-1], s[::2], s[::-1], s[t:], len(s[5:1]))

    simt.use("sim")
    a = np.array([-1, 1210], np.int32)
    k[1, 2](a)
    want = []
    for t, v in enumerate(a.tolist()):
        s = "<" + str(v) + ">"
        want.append(f"{s[1:-1]} {s[::2]} {s[::-1]} {s[t:]} {len(s[5:1])}")
    assert capfd.readouterr().out.splitlines() == want


def rewrite_ops(t, v):
    """strip, lstrip, rstrip and replace of run-time strings; the same code runs in the kernel
    and on the host."""
    s = "  x=" + str(v) + " \t"
    w = s.strip()
    return (
        len(w), len(s.lstrip()), len(s.rstrip()), len(w.strip("x=-")), len(s.strip(" ")),
        len(w.lstrip("x")), len(w.rstrip("0123456789")), len(("\u3000" + w + "\n").strip()),
        len(w.strip(None)), len(w.strip("")), len(str(t).strip(str(t))),
        len(w.replace("1", "one")), len(w.replace("", ".")), len(w.replace("x=", "")),
        1 if w.replace("x", "y").startswith("y=") else 0,
        1 if w.replace("1", "").find("1") < 0 else 0, len(w.replace("11", "1")),
        len(w.replace(w, "")), len(w.replace(str(t), "<" + str(t) + ">")),
        1 if w.strip("x=").replace("-", "") == str(abs(v)) else 0,
    )


NREWRITE = len(rewrite_ops(0, 0))


@simt.kernel
def rewrite_kernel(a, out):
    t = simt.grid(1)
    r = rewrite_ops(t, a[t])
    for k in range(NREWRITE):
        out[k, t] = r[k]


@pytest.mark.parametrize("backend", BACKENDS)
def test_strip_and_replace_agree_with_python(backend: str) -> None:
    simt.use(backend)
    vals = np.array([7, -17, 0, 1, 11, -2147483647, 2147483647, 10, -1, 1111], np.int32)
    out = np.zeros((NREWRITE, len(vals)), np.int32)
    rewrite_kernel[1, len(vals)](vals, out)
    for t, v in enumerate(vals.tolist()):
        assert tuple(out[:, t]) == rewrite_ops(t, v), t


def test_stripped_and_replaced_strings_print_as_pythons(capfd: pytest.CaptureFixture[str]) -> None:
    @simt.kernel
    def k(a):
        t = simt.grid(1)
        s = " <" + str(a[t]) + "> "
        print(s.strip(), s.replace("1", "[1]"), s.rstrip().lstrip(" <"), s.replace("", "|"))

    simt.use("sim")
    a = np.array([-1, 1210], np.int32)
    k[1, 2](a)
    want = []
    for v in a.tolist():
        s = " <" + str(v) + "> "
        want.append(f"{s.strip()} {s.replace('1', '[1]')} {s.rstrip().lstrip(' <')} "
                    f"{s.replace('', '|')}")
    assert capfd.readouterr().out.splitlines() == want


OUT = [""]  # the folder the kernel below writes to (a global it reads when compiled)


def test_a_string_written_to_a_file(tmp_path) -> None:
    OUT[0] = str(tmp_path)

    @simt.kernel
    def k(a):
        t = simt.grid(1)
        line = "v" + str(a[t]) * 2
        with open(f"{OUT[0]}/out{t}.txt", "w") as f:
            f.write(line + "\n")

    simt.use("sim")
    k[1, 3](np.array([1, 22, -3], np.int32))
    assert [(tmp_path / f"out{t}.txt").read_text() for t in range(3)] == [
        "v11\n", "v2222\n", "v-3-3\n"
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_full_heap_is_a_memory_error_at_the_line(backend: str) -> None:
    @simt.kernel(heap=256)
    def k(out, n):
        t = simt.grid(1)
        s = ""
        for _ in range(n * t):
            s = s + "abc"
        out[t] = len(s)

    simt.use(backend)
    out = np.zeros(4, np.int32)
    with pytest.raises(simt.KernelError) as info:
        k[1, 4](out, 10)  # 30, 60, 90 characters: the heap has 64 - 16 words
    text = str(info.value)
    assert "2 threads raised MemoryError" in text and "out of per-thread heap" in text
    assert "s = s + \"abc\"" in text
    assert list(out[:2]) == [0, 30]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_string_grown_in_a_loop_takes_a_word_per_character(backend: str) -> None:
    @simt.kernel  # the default heap: 256 words a thread, 16 of them bookkeeping
    def k(out, n):
        t = simt.grid(1)
        s = ""
        for j in range(n):
            s += str((j + t) % 10)  # str's word follows s's: joined without a copy
        out[t] = len(s) * 10 + (1 if s.endswith(str((n - 1 + t) % 10)) else 0)

    simt.use(backend)
    out = np.zeros(4, np.int32)
    k[1, 4](out, 230)
    assert list(out) == [2301] * 4


def test_string_index_outside_is_an_index_error() -> None:
    @simt.kernel
    def k(out):
        t = simt.grid(1)
        s = str(t * 10)
        try:
            out[t] = 1 if s[2] == "0" else 0
        except IndexError:
            out[t] = -1

    simt.use("sim")
    out = np.zeros(12, np.int32)
    k[1, 12](out)
    assert list(out) == [-1] * 10 + [1, 1]  # "100", "110"


def check(t, v):
    if v < 0:
        raise ValueError(f"bad {v} in thread {t}")
    return v + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_uncaught_run_time_message_is_reported_per_thread(backend: str) -> None:
    @simt.kernel
    def k(a, out):
        t = simt.grid(1)
        out[t] = check(t, a[t])

    simt.use(backend)
    a = np.array([3, -5, 7, -12345, 0, -1], np.int32)
    out = np.zeros(6, np.int32)
    with pytest.raises(simt.KernelError) as info:
        k[1, 6](a, out)
    e = info.value
    assert [(f.thread, f.exception, f.message) for f in e.failures] == [
        (1, "ValueError", "bad -5 in thread 1"),
        (3, "ValueError", "bad -12345 in thread 3"),
        (5, "ValueError", "bad -1 in thread 5"),
    ]
    text = str(e)
    assert "3 threads raised ValueError" in text and "first: thread 1: bad -5 in thread 1" in text
    assert e.finished == 3 and list(out[[0, 2, 4]]) == [4, 8, 1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_str_of_a_caught_run_time_message(backend: str, capfd: pytest.CaptureFixture[str]) -> None:
    @simt.kernel
    def k(a, out):
        t = simt.grid(1)
        try:
            try:
                out[t] = check(t, a[t])
            except ValueError:
                raise  # the same exception, its message kept
        except ValueError as e:
            msg = str(e)
            out[t] = len(msg) * 10 + (1 if msg.startswith("bad -") else 0)
            print(e, repr(e), f"<{e}>", msg.upper())

    simt.use(backend)
    a = np.array([2, -40, 5, -7], np.int32)
    out = np.zeros(4, np.int32)
    k[1, 4](a, out)
    msgs = {1: "bad -40 in thread 1", 3: "bad -7 in thread 3"}
    assert list(out) == [3, len(msgs[1]) * 10 + 1, 6, len(msgs[3]) * 10 + 1]
    assert capfd.readouterr().out.splitlines() == [
        f"{m} {ValueError(m)!r} <{m}> {m.upper()}" for m in msgs.values()
    ]


def test_a_long_message_is_kept_to_its_first_characters() -> None:
    @simt.kernel
    def k(out, n):
        t = simt.grid(1)
        raise RuntimeError("ab" * n + str(t))

    simt.use("sim")
    with pytest.raises(simt.KernelError) as info:
        k[1, 2](np.zeros(2, np.int32), 100)
    f = info.value.failures
    assert f[0].message == ("ab" * 60 + "... (201 characters, the first 120 kept)")
    with pytest.raises(simt.KernelError) as info:
        k[1, 2](np.zeros(2, np.int32), 3)
    assert [x.message for x in info.value.failures] == ["ababab0", "ababab1"]


def test_a_handler_of_literal_and_run_time_messages_prints_each(
    capfd: pytest.CaptureFixture[str],
) -> None:
    class Odd(ValueError):
        pass

    @simt.kernel
    def k(a):
        t = simt.grid(1)
        try:
            if a[t] % 2 == 1:
                raise Odd(f"odd {a[t]}")
            if a[t] > 4:
                raise ValueError("large")
        except ValueError as e:
            print(t, e)

    simt.use("sim")
    k[1, 4](np.array([1, 2, 6, 9], np.int32))
    assert capfd.readouterr().out.splitlines() == ["0 odd 1", "2 large", "3 odd 9"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("s = f'{n:5n}' + str(t)", "a format spec in a string built at run time"),
        ("raise KeyError('n=' + str(n))", "KeyError takes its message at compile time"),
        ("raise ValueError('n=' + str(n), 2)", "takes that one string in a kernel"),
        ("s = str(t).split(',', 1.5)", "maxsplit must be an integer"),
        ("s = str(t).rsplit(',', 1, 2)", "takes at most 2 arguments"),
        ("s = str(t).split(sep=',', count=1)", "unexpected keyword argument 'count'"),
        ("s = str(t).split(1)", "the separator must be a string or None"),
        ("s = sum(str(t).split())", "unsupported operand type(s) for +: 'int' and 'str'"),
        ("s = sum(str(t).split(), '')", "sum() can't sum strings"),
        ("s = str(t).split(); s.append(1)", "this list holds strings"),
        ("s = [1]; s.append(str(t))", "this list holds numbers"),
        ("s = [1]; s.append(t); s.extend(str(t).split())", "this list holds numbers"),
        ("s = str(t).split(); s.extend([n, t])", "this list holds strings"),
        ("s = str(t).split() + (1,)", 'can only concatenate list (not "tuple") to list'),
        ("s = 1 if str(t) < t else 0", "'<' between a string and a number"),
        ("s = str(t).count('1', 2, 3, 4)", "takes a string and an optional start and end"),
        ("s = str(t)[::n]", "string slice's step must be known at compile time"),
        ("s = str(t).rfind(1, 0, 3)", "give the string searched for first"),
        ("s = str(t).split(); s.sort(key=n)", "sort(key=...) takes a function known at"),
        ("s = min(str(t).split(), key=t)", "min(key=...) takes a function known at"),
        ("s = str(t).replace('1', '2', 1)", "takes two strings in a kernel (no count)"),
        ("s = str(t).strip(1)", "a string of the characters to remove"),
        ("s = str(t).center(9)", "not .center"),
        ("s = 1 in str(t)", "requires a string as its left operand"),
        ("s = str(t) + 1", "str(v) makes one of a number"),
    ],
)
def test_refusals_name_the_line_and_say_what_to_write(body: str, words: str, refusal) -> None:
    text = refusal(
        "import simt\n\n@simt.kernel\ndef k(out, n):\n    t = simt.grid(1)\n"
        f"    {body}\n    out[t] = 0\n"
    )
    assert words in text and "user_kernel.py:6" in text


def test_an_exception_class_with_its_own_init_takes_known_values(refusal) -> None:
    text = refusal(
        "import simt\n\nclass Coded(Exception):\n    def __init__(self, m, code=1):\n"
        "        super().__init__(m)\n        self.code = code\n\n@simt.kernel\n"
        "def k(out, n):\n    t = simt.grid(1)\n    raise Coded('t=' + str(t))\n"
    )
    assert "Coded takes its message at compile time" in text and "its own __init__" in text
    assert "user_kernel.py:11" in text


def words_of(t, v):
    """The string methods and lists of strings a kernel has, as Python runs them."""
    s = " id=" + str(v) + ", the 1st o'neil,,  x" + "ab" * (t % 3)
    ws = s.split()
    parts = s.split(",")
    kept = []
    for w in ws:
        if w.count("i") == 0:
            kept.append(w.title())
    kept.append("end")
    line = "|".join(kept)
    nums = [len(ws), len(parts), len(parts[2]), len(line), s.count("ab"), s.count(""),
            s.rfind("ab"), s.rfind(""), s.rfind("zz"), s.index("="), s.index(",", 5)]
    return nums, line + "/" + " ".join(parts) + "/" + s.title(), kept


@simt.kernel(heap=8192)
def words_kernel(a, out):
    t = simt.grid(1)
    if t < len(a):
        nums, text, kept = words_of(t, a[t])
        for j in range(11):
            out[t, j] = nums[j]
        out[t, 11] = len(text)
        for j in range(len(text)):
            out[t, 12 + j] = ord(text[j])
        try:
            out[t, 255] = text.index("zz")
        except ValueError as e:
            out[t, 255] = -len(str(e))
        if t < 2:
            print(kept, len(kept), kept[-2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_lists_of_strings_and_search_methods_are_pythons(backend: str, capfd) -> None:
    # s.split(), s.split(sep), a list strings are appended to (len, indexing, iteration,
    # join, print), str.count, str.index (ValueError), str.rfind, str.title: each was a
    # CompileError before ("lists hold numbers", "not .split", ...)
    simt.use(backend)
    a = np.array([5, -12, 0, 77], np.int32)
    out = np.zeros((4, 256), np.int32)
    words_kernel[1, 4](a, out)
    printed = []
    for t, v in enumerate(a.tolist()):
        nums, text, kept = words_of(t, v)
        assert out[t, :11].tolist() == nums
        assert "".join(chr(c) for c in out[t, 12:12 + out[t, 11]]) == text
        assert out[t, 255] == -len("substring not found")
        if t < 2:
            printed.append(f"{kept} {len(kept)} {kept[-2]}")
    assert capfd.readouterr().out.splitlines() == printed


@simt.kernel(heap=512)
def split_short(a, out):
    t = simt.grid(1)
    s = "ab " * (a[t] % 40)
    try:
        out[t] = len(s.split())
    except MemoryError:
        out[t] = -1


def test_a_split_that_outgrows_the_heap_is_a_memory_error() -> None:
    simt.use("cpu")
    out = np.zeros(4, np.int32)
    split_short[1, 4](np.array([3, 10, 25, 30], np.int32), out)
    assert out.tolist() == [3, 10, -1, -1]


def cuts(t, v):
    """split and rsplit with a maxsplit, by place and by keyword, as Python runs them."""
    s = "  a,b  c,,d " + str(v) + " e,f  " + ",x" * (t % 3)
    out = [s.rsplit(), s.rsplit(","), s.split(None, 1), s.rsplit(None, 2), s.split(",", 2),
           s.rsplit(",", 1), s.split(maxsplit=0), s.rsplit(sep=",,", maxsplit=t - 1),
           s.split(",", t), ("aaa" + str(t)).rsplit("aa"), ("aaa" + str(t)).split("aa")]
    return "#".join("|".join(p) for p in out), [len(p) for p in out]


@simt.kernel(heap=16384)
def cuts_kernel(a, out):
    t = simt.grid(1)
    if t < len(a):
        text, sizes = cuts(t, a[t])
        for j in range(11):
            out[t, j] = sizes[j]
        out[t, 11] = len(text)
        for j in range(len(text)):
            out[t, 12 + j] = ord(text[j])


@pytest.mark.parametrize("backend", BACKENDS)
def test_rsplit_and_maxsplit_are_pythons(backend: str) -> None:
    # s.rsplit(), s.rsplit(sep), s.split(sep, maxsplit), s.rsplit(sep, maxsplit), keywords, a
    # run-time maxsplit (t - 1: -1 is no limit), whitespace cuts keeping the rest's far
    # side: each was a CompileError before ("not .rsplit", "(no maxsplit)")
    simt.use(backend)
    a = np.array([5, -12, 0, 77], np.int32)
    out = np.zeros((4, 512), np.int32)
    cuts_kernel[1, 4](a, out)
    for t, v in enumerate(a.tolist()):
        text, sizes = cuts(t, v)
        assert out[t, :11].tolist() == sizes
        assert "".join(chr(c) for c in out[t, 12:12 + out[t, 11]]) == text


def word_lists(t, v):
    """A list of strings read, ordered, copied and changed as Python does it."""
    ws = ("pear fig " + str(v) + " apple fig kiwi Fig" + " z" * (t % 3)).split()
    nums = [len(min(ws)), len(max(ws)), ws.index("fig"), ws.count("fig"), ws.count(7),
            1 if "kiwi" in ws else 0, 1 if "plum" in ws else 0, 1 if 3 not in ws else 0,
            1 if ws[0] < ws[1] else 0, 1 if ws[1] >= "fig" else 0, 1 if "Fig" > "fig" else 0,
            len(min(ws[2], "Kiwi", ws[0])) * 10 + len(max(ws[-1], ws[2]))]
    up = sorted(ws)
    down = sorted(ws, reverse=True)
    tail, back = ws[1:], ws[::-1]
    same = list(ws)
    kept = ws.copy()
    kept.sort()
    kept.remove("fig")
    last = kept.pop()
    first = kept.pop(0)
    kept.insert(1, "mid" + str(t))
    kept.insert(-99, "head")
    kept.extend(("x", last))
    kept.extend(tail[:2])
    kept[2] = "two"
    kept[-1] = first + "!"
    kept.reverse()
    both = tail + ["end"] + back[:2]
    same.clear()
    same.append(min(ws) + max(ws))
    lines = [" ".join(up), ",".join(down), ":".join(back), "-".join(kept), ".".join(both),
             "".join(same), last + "/" + first]
    return nums, "#".join(lines)


@simt.kernel(heap=8192)
def word_lists_kernel(a, out):
    t = simt.grid(1)
    if t < len(a):
        nums, text = word_lists(t, a[t])
        for j in range(12):
            out[t, j] = nums[j]
        out[t, 12] = len(text)
        for j in range(len(text)):
            out[t, 13 + j] = ord(text[j])


@pytest.mark.parametrize("backend", BACKENDS)
def test_lists_of_strings_read_sort_and_copy_as_pythons(backend: str) -> None:
    # min, max, in, index, count, sorted, sort, slices, list(), copy, remove, pop, insert,
    # extend, xs[i] = s, reverse, clear, + of lists of strings, s < t by code point and
    # min/max of strings given one by one: each was a CompileError before ("... of a list
    # of strings: loop over its items", "expected a number, got a string")
    simt.use(backend)
    a = np.array([5, -12, 0, 77], np.int32)
    out = np.zeros((4, 512), np.int32)
    word_lists_kernel[1, 4](a, out)
    for t, v in enumerate(a.tolist()):
        nums, text = word_lists(t, v)
        assert out[t, :12].tolist() == nums
        assert "".join(chr(c) for c in out[t, 13:13 + out[t, 12]]) == text


@simt.kernel(heap=4096)
def missing_words(a, out):
    t = simt.grid(1)
    ws = ("b " + str(a[t]) + " it's").split()
    try:
        out[t, 0] = ws.index("q" + str(t))
    except ValueError as e:
        out[t, 0] = -len(str(e))
        if t == 0:
            print(e, repr(e))
    try:
        out[t, 1] = len(max(ws[:0]))
    except ValueError as e:
        out[t, 1] = -len(str(e))
    try:
        ws[:0].pop()
    except IndexError as e:
        out[t, 2] = -len(str(e))
    if t == 3:
        ws.remove("b")
        ws.index("it" + "'" + "s!")


def test_a_missing_string_is_pythons_value_error(capfd: pytest.CaptureFixture[str]) -> None:
    simt.use("sim")
    out = np.zeros((4, 3), np.int32)
    with pytest.raises(simt.KernelError) as e:
        missing_words[1, 4](np.array([5, -12, 0, 77], np.int32), out)
    assert "thread 3: \"it's!\" is not in list" in str(e.value)
    assert out[:3].tolist() == [[-len("'q0' is not in list"), -len("max() arg is an empty "
                                 "sequence"), -len("pop from empty list")]] * 3
    assert capfd.readouterr().out == "'q0' is not in list ValueError(\"'q0' is not in list\")\n"


@simt.kernel(heap=4096)
def set_word_outside(a, out):
    t = simt.grid(1)
    if t < len(a):
        ws = ("b " + str(a[t]) + " c").split()
        try:
            ws[t - 2] = "new" + str(t)
        except IndexError:
            out[t, 0] = 1
        out[t, 1] = len(ws)
        out[t, 2] = len(ws[-1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_string_set_outside_a_list_leaves_its_length(backend: str) -> None:
    # ws[i] = s appended the string before checking i: where i was out of range the thread
    # raised IndexError and the list kept one item more
    simt.use(backend)
    out = np.zeros((6, 3), np.int32)
    set_word_outside[1, 6](np.array([5, -12, 0, 77, 1, 2], np.int32), out)
    want = []
    for t, v in enumerate([5, -12, 0, 77, 1, 2]):
        ws, raised = ("b " + str(v) + " c").split(), 0
        try:
            ws[t - 2] = "new" + str(t)
        except IndexError:
            raised = 1
        want.append([raised, len(ws), len(ws[-1])])
    assert out.tolist() == want


NO_LIMIT = 2**63 - 1  # sys.maxsize


@simt.kernel(heap=4096)
def split_far(a, out):
    t = simt.grid(1)
    if t < len(a):
        s = "a b c,d " + str(t)  # made at run time
        out[t, 0] = len(s.split(" ", a[t]))
        out[t, 1] = len(s.rsplit(maxsplit=a[t]))
        out[t, 2] = len(s.split(" ", NO_LIMIT))
        out[t, 3] = len(s.rsplit(",", 2**32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_maxsplit_beyond_int32_is_pythons(backend: str) -> None:
    # 2**32, sys.maxsize and -2**32 were cut to int32: 2**32 and -2**32 (no limit) became 0
    simt.use(backend)
    a = np.array([2**32, NO_LIMIT, -(2**32), 1, -1, 2**31], np.int64)
    out = np.zeros((6, 4), np.int32)
    split_far[1, 6](a, out)
    ss = ["a b c,d " + str(t) for t in range(6)]
    want = [[len(s.split(" ", v)), len(s.rsplit(maxsplit=v)), len(s.split(" ", NO_LIMIT)),
             len(s.rsplit(",", 2**32))] for s, v in zip(ss, a.tolist())]  # fmt: skip
    assert out.tolist() == want


@simt.kernel(heap=1024)
def set_word_outside_often(a, out):
    t = simt.grid(1)
    if t < len(a):
        ws = ("b " + str(a[t])).split()
        missed = 0
        w = "0123456789" + str(t)
        for k in range(40):
            try:
                ws[k + 2] = w
            except IndexError:
                missed += 1
        try:
            ws.append("abcdefghij" + str(t))
            out[t, 0] = len(ws)
        except MemoryError:
            out[t, 0] = -1
        out[t, 1] = missed


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_string_set_outside_a_list_takes_no_heap(backend: str) -> None:
    # #27: ws[i] = s copied the string into the heap before checking i, so a thread that kept
    # setting outside its list (each IndexError caught) ran out of heap: MemoryError later
    simt.use(backend)
    out = np.zeros((4, 2), np.int32)
    set_word_outside_often[1, 4](np.array([5, -12, 0, 77], np.int32), out)
    assert out.tolist() == [[3, 40]] * 4


def displays_of_words(t, v):
    """Lists of strings written as displays: known strings beside run-time ones, changed,
    extended, read at a run-time index; the same code in the kernel and on the host."""
    s = "w" + str(v)
    ws = ["a", "bc"]
    ws.append(s)  # a display of known strings, then a run-time list of strings
    us = ["x", s]
    us.extend(["yy", s + "z"])
    us[0] = s
    vs = ["p", "qq", s]
    first = vs.pop(0)
    n = len(["a", "bc", "def"][t % 3]) + len(("u", "vv")[t % 2])
    return [len(ws) * 10 + len(ws[2]), len(us) * 10 + len(us[3]), len(us[0]),
            len(vs) * 10 + len(first), n]


@simt.kernel(heap=4096)
def displays_kernel(a, out):
    t = simt.grid(1)
    if t < len(a):
        r = displays_of_words(t, a[t])
        for k in range(5):
            out[t, k] = r[k]


@pytest.mark.parametrize("backend", BACKENDS)
def test_displays_of_known_strings_become_lists_of_strings(backend: str) -> None:
    # #27: a display of known strings made a run-time list (a method called on it, an item
    # set) was refused as "a list in a kernel holds numbers, not a str"; read at a run-time
    # index it was "a list known at compile time cannot be indexed by a run-time value"
    simt.use(backend)
    a = np.array([5, -12, 0, 77, 1, 300], np.int32)
    out = np.zeros((6, 5), np.int32)
    displays_kernel[1, 6](a, out)
    assert out.tolist() == [displays_of_words(t, v) for t, v in enumerate(a.tolist())]


def repeated_words(t, n):
    ws = [str(t), "ab"] * n
    if ws:
        ws[0] = "x"  # the items are the strings themselves: changing one slot changes no other
    return len(ws) * 100 + sum(len(w) for w in ws) + (ws.count("ab") * 7 if ws else 0)


@simt.kernel(heap=4096)
def repeated_kernel(out, n):
    t = simt.grid(1)
    out[t] = repeated_words(t, n - t)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_of_strings_repeated_a_run_time_number_of_times(backend: str) -> None:
    """`[s, "ab"] * n` with a run-time n (negative too: empty), as Python (it was refused)."""
    simt.use(backend)
    out = np.zeros(6, np.int32)
    repeated_kernel[1, 6](out, 3)
    assert out.tolist() == [repeated_words(t, 3 - t) for t in range(6)]


