"""Strings built per thread at run time: `str(v)` of ints (negative, the most negative, zero),
f-strings assigned to variables, `+`, `+=` in a run-time loop, `s * n`, `upper`/`lower`,
`startswith`/`endswith`, `==`/`!=`, indexing a character, `",".join` of a tuple, a variable
given different strings on the two paths of an `if`, and the strings printed; exceptions
raised with a message built at run time (`raise ValueError(f"...")`), caught with `as e` and
read as `str(e)`; searched and cut (`in`, `find`, slices with steps, `for ch in s`);
stripped and replaced; each `{expr}` of an f-string assigned to a variable, and each argument
of `str`, `*`, `join` and a raised message, evaluated once (an atomic in it adds once); ints,
bools and strings under format specs (fill, align, sign, #, 0, width, grouping, bases,
precision of a string), `str.format` and `format()`; float32 under `.Nf`; `repr`, `ascii`,
`chr`, `ord`, a KeyError's text on a run-time key, a tuple read at a run-time index; float64
and float32 under the float types (`f`, `e`, `g`, `%`, grouping, a run-time width and
precision); floats with no format type (`str(x)`, `f"{x}"`, `f"{x:.3}"`, a width alone):
the shortest digits that read back, float64 as Python's `repr`, float32 as numpy's `str` (as
`print` shows them), and such a string printed; `split()`/`split(sep)` into lists of strings
(appended to, indexed, walked, joined, printed), `count`, `index`, `rfind` (with a start and
an end too), `title`;
`rsplit` and a `maxsplit` (a run-time one too), and lists of strings under `min`, `max`,
`sorted`, `in`, `index`, `count`, slices, `copy`, `pop`, `insert`, `extend`, `reverse`,
`remove`, `+`, an item set (in range, and past either end: an IndexError alone), a display
of known strings changed and one read at a run-time index, strings ordered by `<`. The
reference is the same helper run by Python on the host."""

import numpy as np

import simt

from . import EXACT, Case, rng


def describe(t, v):
    s = "x=" + str(v)
    f = f"t{t}:{v}!"
    loud = s.upper() + "|" + f.lower()
    acc = ""
    for j in range(t % 6):
        acc += str(j * 7)
    word = "neg" if v < 0 else "pos"
    if t % 3 == 0:
        word = word * 2
    joined = ",".join((s, word, str(t % 2 == 0)))
    return (
        len(s) + 100 * len(f),
        len(loud) + 100 * len(acc),
        len(joined),
        (1 if s == "x=" + str(v) else 0) + (2 if s != f else 0) + (4 if s.startswith("x=-") else 0)
        + (8 if f.endswith("!") else 0) + (16 if s[-1] == "7" else 0)
        + (32 if acc.endswith("21") else 0) + (64 if word == "pospos" else 0),
    )


@simt.kernel
def strings_per_thread(a, out):
    t = simt.grid(1)
    if t < len(a):
        r = describe(t, a[t])
        for k in range(4):
            out[k, t] = r[k]


def _make():
    a = rng(12).integers(-(2**31), 2**31 - 1, 70, dtype=np.int64).astype(np.int32)
    a[:4] = [0, -(2**31), 2**31 - 1, 7]
    return a, np.zeros((4, 70), np.int32)


def _ref(a, out):
    r = np.array([describe(t, int(v)) for t, v in enumerate(a)], np.int64)
    return {1: r.T.astype(np.int32)}


@simt.kernel
def strings_printed(a):
    t = simt.grid(1)
    s = f"{t}:" + str(a[t])
    if a[t] % 2 == 0:
        s += "!"
    print(s, s.upper(), "-" * (t % 3) + "|")


def _make_printed():
    return (np.arange(8, dtype=np.int32) * 37 - 100,)


def _stdout_printed(a):
    lines = []
    for t in range(8):
        s = f"{t}:" + str(int(a[t])) + ("!" if int(a[t]) % 2 == 0 else "")
        lines.append(f"{s} {s.upper()} {'-' * (t % 3)}|\n")
    return "".join(lines)


def checked(t, v):
    if v % 3 == 0:
        raise ValueError(f"t{t}: {v} is a multiple of 3")
    if v % 7 == 0:
        raise ValueError("seven in " + str(v))
    return v * 2


def handled(t, v):
    """(result, length of the message, 1 if the message ends in '3') and the line printed."""
    try:
        return (checked(t, v), 0, 0), ""
    except ValueError as e:
        msg = str(e)
        return (-1, len(msg), 1 if msg.endswith("3") else 0), f"{t} {e}\n"


@simt.kernel
def strings_raised(a, out):
    t = simt.grid(1)
    if t < len(a):
        try:
            out[0, t] = checked(t, a[t])
        except ValueError as e:
            msg = str(e)
            out[0, t] = -1
            out[1, t] = len(msg)
            out[2, t] = 1 if msg.endswith("3") else 0
            print(t, e)
        if a[t] > 1000:  # never here: an uncaught raise with a run-time message compiled
            raise RuntimeError(f"too large: {a[t]}")


def _make_raised():
    return np.arange(-20, 44, dtype=np.int32), np.zeros((3, 64), np.int32)


def _ref_raised(a, out):
    r = np.array([handled(t, int(v))[0] for t, v in enumerate(a)], np.int64)
    return {1: r.T.astype(np.int32)}


def _stdout_raised(a, out):
    return "".join(handled(t, int(v))[1] for t, v in enumerate(a))


def searched(t, v):
    s = "v=" + str(v) + ";" + str(t)
    body = s[s.find("=") + 1 : s.find(";")]
    odd = 0
    for ch in body:
        if ch in "13579":
            odd += 1
    return (
        len(body) + 100 * odd,
        s.find(str(t % 10), 2) + 100 * s.find("-", -len(s)),
        len(s[::3]) + 100 * len(body[::-2]) + 10000 * len(s[t % 5 : -2]),
        (1 if str(t) in s else 0) + (2 if "99" in body else 0) + (4 if body[:1] == "-" else 0)
        + (8 if s[-2:] in body else 0) + (16 if "" in s[9:2] else 0),
    ), s[::-1][:4]


@simt.kernel
def strings_searched(a, out):
    t = simt.grid(1)
    if t < len(a):
        r, tail = searched(t, a[t])
        for k in range(4):
            out[k, t] = r[k]
        if t % 11 == 0:
            print(t, tail)


def _make_searched():
    a = rng(14).integers(-(2**31), 2**31 - 1, 50, dtype=np.int64).astype(np.int32)
    a[:4] = [0, -(2**31), 2**31 - 1, -99]
    return a, np.zeros((4, 50), np.int32)


def _ref_searched(a, out):
    r = np.array([searched(t, int(v))[0] for t, v in enumerate(a)], np.int64)
    return {1: r.T.astype(np.int32)}


def _stdout_searched(a, out):
    return "".join(f"{t} {searched(t, int(v))[1]}\n" for t, v in enumerate(a) if t % 11 == 0)


def rewritten(t, v):
    s = " \t" + str(v) * (t % 3) + "- "
    core = s.strip()
    doubled = core.replace("1", "11")
    return (
        len(core) + 100 * len(s.lstrip()) + 10000 * len(s.rstrip()),
        len(core.strip("-0123")) + 100 * len(core.lstrip("-")) + 10000 * len(core.rstrip("-")),
        len(doubled) + 100 * len(core.replace("", ".")) + 10000 * len(doubled.replace("11", "")),
        (1 if doubled.replace("11", "1") == core else 0) + (2 if core.replace("-", "") in s else 0),
    ), doubled.replace("-", "+")


@simt.kernel
def strings_rewritten(a, out):
    t = simt.grid(1)
    if t < len(a):
        r, shown = rewritten(t, a[t])
        for k in range(4):
            out[k, t] = r[k]
        if t % 7 == 0:
            print(t, shown)


def _make_rewritten():
    a = rng(15).integers(-(2**31), 2**31 - 1, 40, dtype=np.int64).astype(np.int32)
    a[:5] = [0, -(2**31), 2**31 - 1, -11, 1]
    return a, np.zeros((4, 40), np.int32)


def _ref_rewritten(a, out):
    r = np.array([rewritten(t, int(v))[0] for t, v in enumerate(a)], np.int64)
    return {1: r.T.astype(np.int32)}


def _stdout_rewritten(a, out):
    return "".join(f"{t} {rewritten(t, int(v))[1]}\n" for t, v in enumerate(a) if t % 7 == 0)


def tick(c, t):
    """The thread's own counter: its value before, one added (an effect in an expression)."""
    return simt.atomic.add(c, t, 1)


@simt.kernel
def strings_effects(c):
    t = simt.grid(1)
    if t < len(c):
        s = f"<{tick(c, t)}|{tick(c, t) * 10}>"
        r = str(tick(c, t)) + "ab" * (tick(c, t) % 4)
        j = ",".join((str(tick(c, t)), f"{tick(c, t):d}"))
        m = ""
        try:
            raise ValueError(f"#{tick(c, t)}")
        except ValueError as e:
            m = str(e)
        s += f"{tick(c, t)}"
        if t % 4 == 0:  # (a run-time string prints a record a character)
            print(s, r, j, m)


def _make_effects():
    return (rng(16).integers(-(10**6), 10**6, 32).astype(np.int32),)


def _stdout_effects(c):
    return "".join(
        f"<{v}|{(v + 1) * 10}>{v + 7} {v + 2}{'ab' * ((v + 3) % 4)} {v + 4},{v + 5} #{v + 6}\n"
        for t, v in enumerate(c.tolist()) if t % 4 == 0
    )


def formatted(t, v):
    s = f"{v:>8}|{v:<+6}|{v:^13x}|{v % 64:#010b}|{v:_o}|{v:,}|{v:014,}|{v:=+12X}|{t % 2 == 0:*^5}"
    w = "id" + str(t)
    r = f"[{w:>6}][{w:.2}][{v!s:_<12}][{t > 3!s:^7}]"
    return s, r + "{0:x}{1:>4}{0}".format(t, w) + format(v % 1000, "+")  # noqa: UP032


@simt.kernel(heap=2048)
def strings_formatted(a, out):
    t = simt.grid(1)
    if t < len(a):
        s, r = formatted(t, a[t])
        out[0, t] = len(s)
        out[1, t] = len(r) * 100 + s.find("|")
        if t % 8 == 0:  # (a run-time string prints a record a character)
            print(s, r)


def _make_formatted():
    a = rng(17).integers(-(2**31), 2**31 - 1, 40, dtype=np.int64).astype(np.int32)
    a[:6] = [0, -(2**31), 2**31 - 1, -1, 255, 1000]
    a[8] = -(2**31)
    return a, np.zeros((2, 40), np.int32)


def _ref_formatted(a, out):
    r = []
    for t, v in enumerate(a.tolist()):
        s, w = formatted(t, v)
        r.append((len(s), len(w) * 100 + s.find("|")))
    return {1: np.array(r, np.int64).T.astype(np.int32)}


def _stdout_formatted(a, out):
    return "".join(" ".join(formatted(t, v)) + "\n" for t, v in enumerate(a.tolist()) if t % 8 == 0)


def fixed(t, v):
    s = f"{v:.2f}|{v:+.0f}|{v:>12.4f}|{v:09.1F}|"
    return s + "{:.9f}".format(v) + format(v, "^8.3f")  # noqa: UP032


@simt.kernel(heap=2048)
def strings_fixed(a, out):
    t = simt.grid(1)
    if t < len(a):
        s = fixed(t, a[t])
        out[t] = len(s)
        if t % 8 == 0:  # (a run-time string prints a record a character)
            print(s)


def _make_fixed():
    a = (rng(18).uniform(-1, 1, 40) * 10.0 ** rng(19).uniform(-4, 6, 40)).astype(np.float32)
    a[:8] = [0.125, -0.0, 2.5, np.inf, 3.4028235e38, -np.inf, 0.375, -1e-45]  # (no NaN: an
    # input must come back equal)
    a[16] = 0.995
    return a, np.zeros(40, np.int32)


def _ref_fixed(a, out):
    return {1: np.array([len(fixed(t, v)) for t, v in enumerate(a.tolist())], np.int32)}


def _stdout_fixed(a, out):
    return "".join(fixed(t, v) + "\n" for t, v in enumerate(a.tolist()) if t % 8 == 0)


def shown(codes, t):
    """repr, ascii, chr/ord, a KeyError's text and a tuple read at a run-time index: the same
    helper in the kernel and on the host."""
    s = ""
    for k in range(len(codes)):
        if codes[k] >= 0:
            s += chr(codes[k])
    r = repr(s) + ascii(s) + f"{s!r:^12}"
    d = {"k": 1}
    m = ""
    try:
        d[s] += 1
    except KeyError as e:
        m = str(e)
    tup = (3, 5, 7, 11)
    v = 0
    try:
        v = tup[t % 7 - 4]
    except IndexError as e:
        v = len(str(e))
    total = 0
    for ch in r + m:
        total = (total * 31 + ord(ch)) % 1000003
    return len(r), len(m), total, v


@simt.kernel
def strings_shown(codes, out):
    t = simt.grid(1)
    if t < len(out):
        got = shown(codes[t], t)
        for k in range(4):
            out[t, k] = got[k]


_SHOWN = ("plain", "it's", 'a "q"', "'\"", "t\tn\nb\\", "\x01\x7f\xe9\xad", "\u2028\U0001f600")


def _make_shown():
    codes = np.full((32, 8), -1, np.int32)
    for t in range(32):
        w = _SHOWN[t % len(_SHOWN)] + str(t)
        codes[t, : len(w)] = [ord(c) for c in w]
    return codes, np.zeros((32, 4), np.int32)


def _ref_shown(codes, out):
    r = np.array([shown([int(c) for c in codes[t]], t) for t in range(len(out))], np.int32)
    return {1: r}


def floats_text(x, y, w, p):
    """float64 and float32 values under the float types, grouping, and a run-time width and
    precision: the same helper in the kernel and on the host (float32 `y` as its float)."""
    return f"{x:.10f}|{x:e}|{x:>+14,.3g}|{x:{w}.{p}%}|{y:.3e}|{y:_.2f}|{y:#G}"


@simt.kernel(heap=8192)
def strings_floats(a, b, out):
    t = simt.grid(1)
    if t < len(a):
        s = floats_text(a[t], b[t], t % 11, t % 5)
        for j in range(len(s)):
            out[t, j] = ord(s[j])
        out[t, len(s)] = -1


_FLOATS = (0.0, -0.0, 1.5, 0.1, -2.675, 1e16, 123456789.125, 9.9995, 2.5, 1e-5, 5e-324,
           1.7976931348623157e308, float("inf"), float("-inf"), 3.0, 999999.5,
           0.00012345, 1234.5, -1e-300, 6.02214076e23)  # fmt: skip


def _make_floats():
    a = np.array(_FLOATS + tuple(rng(11).normal(0, 1e4, 12)), np.float64)
    with np.errstate(over="ignore"):  # 1.8e308 * 0.37 is inf in float32
        b = (a * 0.37).astype(np.float32)
    return a, b, np.zeros((len(a), 1200), np.int32)


def _ref_floats(a, b, out):
    r = np.zeros(out.shape, np.int32)
    for t in range(len(a)):
        s = floats_text(float(a[t]), float(b[t]), t % 11, t % 5)
        r[t, : len(s)] = [ord(ch) for ch in s]
        r[t, len(s)] = -1
    return {2: r}


def shortest_text(x, y):
    """float64 `x` and float32 `y` with no format type: shortest digits (`str(y)`: numpy's,
    as `print` shows a float32), `.3` (general, keeping a `.0`), and a width alone (the
    float64's shortest digits, as Python's `format` of a numpy float32)."""
    return str(x) + "|" + str(y) + "|" + f"{x:.3}" + "|" + "{:>12}".format(y)  # noqa: UP032


@simt.kernel(heap=4096)
def strings_shortest(a, b, out):
    t = simt.grid(1)
    if t < len(a):
        s = shortest_text(a[t], b[t])
        out[t] = len(s)
        if t % 5 == 0:
            print(s)


_SHORTEST = (0.0, -0.0, 1.0, 0.1, 1e16, 1e-5, 1e-4, 123456.789, 2.0**-1074,
             1.7976931348623157e308, float("inf"), -float("inf"), 1e22, 9007199254740993.0,
             2.0**-1022, 0.3, 1e6, 999999.9)  # fmt: skip


def _make_shortest():
    a = np.array(_SHORTEST + tuple(rng(23).normal(0, 1e4, 14)), np.float64)
    with np.errstate(over="ignore", under="ignore"):
        b = a.astype(np.float32)
    b[8] = np.float32(1e-45)
    return a, b, np.zeros(len(a), np.int32)


def _shortest_rows(a, b):
    return [shortest_text(float(a[t]), b[t]) for t in range(len(a))]


def split_text(t, v):
    """Strings split into lists of strings, and the search methods: the same helper in the
    kernel and on the host."""
    s = " id=" + str(v) + ", the 1st o'neil,,  x" + "ab" * (t % 3)
    kept = []
    for w in s.split():
        if w.count("i") == 0:
            kept.append(w.title())
    parts = s.split(",")
    line = "|".join(kept) + "/" + " ".join(parts)
    # find, rfind and count between a start and an end (negative, past the end, crossed)
    span = (s.count("a", t % 5 - 2, -(t % 4) - 1) + 10 * s.rfind(",", 2, t + 9)
            + 1000 * s.find("i", -(t % 9), 30) + 100000 * s.count("", t % 40, t % 7 + 20))
    return [len(kept), len(parts), len(line), s.rfind("ab"), s.index("="), span], kept


@simt.kernel(heap=4096)
def strings_split(a, out):
    t = simt.grid(1)
    if t < len(a):
        nums, kept = split_text(t, a[t])
        for j in range(6):
            out[t, j] = nums[j]
        if t % 3 == 0:
            print(kept)


def _make_split():
    return rng(29).integers(-5000, 5000, 24).astype(np.int32), np.zeros((24, 6), np.int32)


def word_list(t, v):
    """Strings cut with rsplit and a maxsplit, and lists of strings read, sorted and changed:
    the same helper in the kernel and on the host."""
    s = "pear, fig " + str(v) + ",kiwi  fig,," + " z" * (t % 3)
    ws = s.split()
    head = s.split(",", t % 3)
    tail = s.rsplit(None, 2)
    ws.sort()
    top = sorted(tail, reverse=True)
    kept = ws[1:] + head[::-1]
    kept.insert(t % 4, min(ws))
    kept.extend(top[:2])
    if "fig" in kept:
        kept.remove("fig")
    last = kept.pop()
    order = 1 if last < max(ws) else 0
    extra = ["q", "rr"]  # a display of known strings made a list of strings
    extra.append(last)
    extra[0] = ["a", "bc", "def"][t % 3]  # a display read at a run-time index
    kept.extend(extra)
    for k in range(-1, 12):  # set past either end: an IndexError alone (the list as it was)
        try:
            kept[k * (len(kept) + t % 2) - 1] = last
        except IndexError:
            order += 2
    return [len(ws), len(head), len(tail), kept.count("fig,"), kept.index(min(ws)),
            len(",".join(kept)), order], kept


@simt.kernel(heap=4096)
def strings_lists(a, out):
    t = simt.grid(1)
    if t < len(a):
        nums, kept = word_list(t, a[t])
        for j in range(7):
            out[t, j] = nums[j]
        if t % 4 == 1:
            print(kept)


def _make_lists():
    return rng(31).integers(-5000, 5000, 24).astype(np.int32), np.zeros((24, 7), np.int32)


CASES = [
    Case("strings_lists", strings_lists, _make_lists, 1, 32,
         lambda a, out: {1: np.array([word_list(t, v)[0] for t, v in enumerate(a.tolist())],
                                     np.int32)},
         tol=EXACT, stdout=lambda a, out: "".join(f"{word_list(t, v)[1]}\n" for t, v in
                                                  enumerate(a.tolist()) if t % 4 == 1),
         strided="a row of results per thread"),
    Case("strings_split", strings_split, _make_split, 1, 32,
         lambda a, out: {1: np.array([split_text(t, v)[0] for t, v in enumerate(a.tolist())],
                                     np.int32)},
         tol=EXACT, stdout=lambda a, out: "".join(f"{split_text(t, v)[1]}\n" for t, v in
                                                  enumerate(a.tolist()) if t % 3 == 0),
         strided="a row of results per thread"),
    # written with float64 and uint64 arithmetic (an adapter without them refuses it)
    Case("strings_shortest", strings_shortest, _make_shortest, 1, 32,
         lambda a, b, out: {2: np.array([len(s) for s in _shortest_rows(a, b)], np.int32)},
         tol=EXACT, features=frozenset({"fp64", "uint64"}),
         stdout=lambda a, b, out: "".join(s + "\n" for t, s in enumerate(_shortest_rows(a, b))
                                          if t % 5 == 0)),
    # written with float64 and uint64 arithmetic (an adapter without them refuses it)
    Case("strings_floats", strings_floats, _make_floats, 1, 32, _ref_floats, tol=EXACT,
         features=frozenset({"fp64", "uint64"})),
    Case("strings_shown", strings_shown, _make_shown, 1, 32, _ref_shown, tol=EXACT,
         strided="a row of results per thread"),
    Case("strings_per_thread", strings_per_thread, _make, 2, 64, _ref, tol=EXACT),
    Case("strings_printed", strings_printed, _make_printed, 1, 8, lambda a: {}, tol=EXACT,
         stdout=_stdout_printed),
    Case("strings_raised", strings_raised, _make_raised, 2, 32, _ref_raised, tol=EXACT,
         stdout=_stdout_raised),
    Case("strings_searched", strings_searched, _make_searched, 2, 32, _ref_searched, tol=EXACT,
         stdout=_stdout_searched),
    Case("strings_rewritten", strings_rewritten, _make_rewritten, 2, 32, _ref_rewritten,
         tol=EXACT, stdout=_stdout_rewritten),
    Case("strings_effects", strings_effects, _make_effects, 1, 32, lambda c: {0: c + 8},
         tol=EXACT, stdout=_stdout_effects),
    Case("strings_formatted", strings_formatted, _make_formatted, 1, 40, _ref_formatted,
         tol=EXACT, stdout=_stdout_formatted),
    # written with float64 and uint64 arithmetic (an adapter without them refuses it)
    Case("strings_fixed", strings_fixed, _make_fixed, 1, 40, _ref_fixed, tol=EXACT,
         stdout=_stdout_fixed, features=frozenset({"fp64", "uint64"})),
]
