"""Dicts and sets per thread (frontend/dicts.py): each operation against Python running the
same helper on the host, the errors a thread raises (a missing key's KeyError, a full heap's
MemoryError: reported after the launch, or caught), printing, and the refusals a user gets
for what kernels' dicts do not hold (string keys, float keys, lists as values, mixed types)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import simt

BACKENDS = ("sim", "cpu")


def digest(xs):  # an order-sensitive checksum
    s = 0
    for x in xs:
        s = (s * 7 + x) % 1000003
    return s


def fill(d, n, t):  # a helper that changes the caller's dict, as in Python
    for j in range(n):
        d[(j * 3 + t) % 5] = j


def int_ops(t, n, v):
    """The same code runs in the kernel (inlined) and on the host (the reference)."""
    d = {1: 10, t % 3: 20}
    fill(d, n, t)
    alias = d
    alias[7] = 70  # the same dict
    d[1] += 5
    found = d.get(v, -1)
    has = 1 if v in d else 0
    hasnt = 1 if 8 not in d else 0
    if 3 in d:
        del d[3]
    popped = d.pop(4, -4)
    first = d.setdefault(9, 99)
    again = d.setdefault(9, 0)
    keys = digest(d)
    values = digest(d.values())
    items = 0
    for k, x in d.items():
        items = (items * 5 + k * 13 + x) % 100003
    e = d.copy()
    e[100] = 1
    e.update({101: 2, 1: 3})
    sq = {k: k * k for k in range(n) if k != 2}
    s = {t % 4, 2, t % 2 * 2}  # a repeated item: 2 for even t
    s.add(n)
    s.discard(2)
    s.discard(50)
    r = set(range(n))
    evens = {k for k in r if k % 2 == 0}
    flags = {True: 1}
    flags[t > 2] = 2  # a bool key: one entry or two
    c = {}
    c.clear()
    return (
        len(d), keys, values, items, found, has, hasnt, popped, first, again, len(e),
        digest(e), digest(e.values()), digest(sq.values()), len(s), sum(s), len(r),
        digest(sorted(evens)), len(flags), 1 if c else 0, 1 if d else 0, max(d), min(d.values()),
        sum(list(d)) + len(d.items()) * 1000,
    )


N_OUT = 24


@simt.kernel
def int_kernel(out, n, v):
    t = simt.grid(1)
    r = int_ops(t, n + t % 7, v)
    for k in range(24):
        out[t, k] = r[k]


@pytest.mark.parametrize("backend", BACKENDS)
def test_dict_and_set_operations_agree_with_python(backend: str) -> None:
    simt.use(backend)
    out = np.zeros((16, N_OUT), np.int32)
    int_kernel[2, 8](out, 0, 4)
    for t in range(16):
        assert tuple(out[t]) == int_ops(t, t % 7, 4), t


@pytest.mark.parametrize("backend", BACKENDS)
def test_keys_of_other_widths_and_float_values(backend: str) -> None:
    @simt.kernel
    def k(big, a, out):
        t = simt.grid(1)
        d = {}
        for j in range(len(big)):
            d[big[j] + t] = a[j] * 0.5  # int64 keys, float32 values
        total = 0.0
        for key in d:
            total += d[key]
        out[t] = total + d.get(big[0] + t, 100.0) + (1.0 if 2**40 + t in d else 0.0)

    simt.use(backend)
    big = np.array([2**40, 2**41, 2**40], np.int64)  # a repeated key keeps its last value
    a = np.array([1.0, 2.0, 3.0], np.float32)
    out = np.zeros(4, np.float32)
    k[1, 4](big, a, out)
    assert list(out) == [2.5 + 1.5 + 1.0] * 4


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_missing_key_is_a_key_error_at_the_users_line(backend: str) -> None:
    @simt.kernel
    def k(out, n):
        t = simt.grid(1)
        d = {j: j * 2 for j in range(n)}
        out[t] = d[t]  # thread 3 looks up a key that is not there

    simt.use(backend)
    with pytest.raises(simt.KernelError) as info:
        k[1, 4](np.zeros(4, np.int32), 3)
    text = str(info.value)
    assert "1 thread raised KeyError" in text and "thread 3: 3" in text
    assert "out[t] = d[t]" in text and "3 threads finished" in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_key_and_memory_errors_are_catchable(backend: str) -> None:
    @simt.kernel(heap=256)
    def k(out, n):
        t = simt.grid(1)
        d = {0: 1}
        s = {1}
        caught = 0
        try:
            del d[t]  # only thread 0 has its key
        except KeyError:
            caught += 1
        try:
            s.remove(t)
        except KeyError:
            caught += 10
        try:
            d.pop(t + 1)
        except KeyError:
            caught += 100
        kept = 0
        try:
            big = set()
            for j in range(n * t):
                big.add(j)
                kept = len(big)
        except MemoryError:
            caught += 1000
        out[t, 0] = caught
        out[t, 1] = kept
        out[t, 2] = len(d) + len(s)

    simt.use(backend)
    out = np.zeros((3, 3), np.int32)
    k[1, 3](out, 20)
    assert list(out[:, 0]) == [110, 101, 1111]  # 40 int32 keys do not fit in 256 bytes
    assert out[0, 1] == 0 and out[1, 1] == 20 and 0 < out[2, 1] < 40
    assert list(out[:, 2]) == [1, 1, 2]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_dict_read_before_the_line_that_fixes_its_types(backend: str) -> None:
    @simt.kernel
    def k(a, out):
        t = simt.grid(1)
        d = {}
        for j in range(len(a)):
            if j - 1 in d:
                out[t] += d[j - 1]  # before the store, in program order
            d[j] = a[j] * 2.0  # float32 values: the kernel is translated again knowing it
        out[t] += len(d)

    simt.use(backend)
    a = np.array([0.25, 0.75, 0.5], np.float32)
    out = np.zeros(2, np.float32)
    k[1, 2](a, out)
    assert list(out) == [0.5 + 1.5 + 3.0] * 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_print_shows_dicts_and_sets_as_python_does(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    @simt.kernel
    def k(n):
        t = simt.grid(1)
        d = {}
        s = set()
        for j in range(t):
            d[j] = j * 0.5
            s.add(j * 2)
        print("t", t, d, s, {1: True}, sep="|")

    simt.use(backend)
    k[1, 3](3)
    expect = ""
    for t in range(3):
        d = {j: j * 0.5 for j in range(t)}
        s = {j * 2 for j in range(t)}
        expect += f"t|{t}|{d}|{s}|{ {1: True} }\n"
    assert capsys.readouterr().out == expect


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("d = {1: 2}\n    d['a'] = 3", "a string key would mix them"),
        ("d = {'a': 1}\n    x = sorted(d)", "not as a whole"),
        ("d = {'a': 'b'}", "values in kernels are numbers"),
        ("d = {(1, 2): 1}", "keys in kernels are strings, integers"),
        ("d = {}\n    d[1.5] = 2", "not floats"),
        ("s = {1}\n    s.add(0.5)", "not floats"),
        ("d = {1: [1, 2]}", "values in kernels are numbers"),
        ("d = {1: 2}\n    x = d.get(1)", "give a default"),
        ("s = {1, 2}\n    x = s[0]", "not subscriptable"),
        ("x = 1\n    del x", "del: not supported"),
        ("d = {1: 2}\n    e = {**d}", "**unpacking"),
        ("d = {1: 2}\n    d.foo()", "not .foo"),
        ("d = dict([(1, 2)])", "takes no argument or a dict"),
        ("d = {1: 2}\n    xs = list(d.items())", "pairs"),
        ("d = {}\n    d[1] = 1\n    d[2] = 2.5", "this dict holds int32 values"),
        ("d = {1: 2}\n    x = d == {1: 2}", "comparing dicts"),
    ],
)
def test_what_kernels_dicts_do_not_hold_is_refused_at_its_line(
    refusal: Callable[..., str], body: str, words: str
) -> None:
    text = refusal(f"import numpy as np\nimport simt\n@simt.kernel\ndef k(a, n):\n    {body}\n")
    assert words in text and "user_kernel.py" in text


def branches(t, n):
    d = {}
    for i in range(n + t):
        if i % 3 == 0:
            d = {}  # a new dict on some trips: the loop carries the last one
        d[i] = i
    e = {1: 2} if t % 2 == 0 else {3: 4}
    if t > 1:
        f = {}  # no type yet on this path: it takes the other path's
        xs = []
    else:
        f = {5: 1}
        xs = [5]
    f[7] = 1
    xs.append(1)
    s = set()
    j = 0
    while len(s) < 3:
        s.add(j * t)
        j += 1
        if j > 5:
            break
    walk = 0
    for i, key in enumerate(f):
        walk += (i + 1) * key
    for a, b in zip(d, d.values()):
        walk += a * b
    return (sum(d.values()) + len(d) * 100, sum(e) + sum(e.values()), len(f) * 10 + len(xs),
            len(s), walk, 1 if 2.0 in e else 0, 1 if True in {1} else 0)  # fmt: skip


@simt.kernel
def branch_kernel(out, n):
    t = simt.grid(1)
    r = branches(t, n)
    for k in range(7):
        out[t, k] = r[k]


@pytest.mark.parametrize("backend", BACKENDS)
def test_dicts_merge_across_branches_and_loops(backend: str) -> None:
    # a dict (or list) made empty on one path and with items on the other was an internal
    # error before: the empty one's item type (none yet) did not merge with the other's
    simt.use(backend)
    out = np.zeros((6, 7), np.int32)
    branch_kernel[1, 6](out, 5)
    for t in range(6):
        assert tuple(out[t]) == branches(t, 5), t


def words(t, n):
    """String keys: the same code in the kernel and on the host."""
    d = {}
    for j in range(n + t):
        if j % 4 == 3 and "w1" in d:  # a lookup before the first store (in a loop): strings
            d["w1"] += 10
        w = "w" + str((j * 3 + t) % 5)
        d[w] = d.get(w, 0) + j
    names = dict(one=1, two=2)
    names["three"] = 3
    k = "t" + "wo" if t % 2 else "one"
    walk = 0
    for w in d:  # strings again: the keys' characters
        walk = walk * 3 + len(w) + (7 if w[-1] == "2" else 0) + (1 if w in names else 0)
    e = d.copy()
    e["x"] = 9
    gone = d.pop("w" + str(t % 5), -1)
    s = {"a", "b" + str(t % 2)}
    s.add("a")
    s.discard("b0")
    return (len(d), walk % 100003, names[k] + names.get("four", 40), len(e) + len(names),
            gone, len(s) * 10 + (1 if "b1" in s else 0), 1 if 1 in d else 0,
            sum(d.values()))  # fmt: skip


@simt.kernel
def words_kernel(out, n):
    t = simt.grid(1)
    r = words(t, n)
    for k in range(8):
        out[t, k] = r[k]


@pytest.mark.parametrize("backend", BACKENDS)
def test_string_keys_compare_by_content(backend: str) -> None:
    simt.use(backend)
    out = np.zeros((6, 8), np.int32)
    words_kernel[1, 6](out, 5)
    for t in range(6):
        assert tuple(out[t]) == words(t, 5), t


@pytest.mark.parametrize("backend", BACKENDS)
def test_string_keys_print_and_raise_as_python_does(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    @simt.kernel
    def k(n):
        t = simt.grid(1)
        d = {"it's": 1, 'say "hi"': 2, "tab\t": 3}
        d["k" + str(t)] = t
        s = {"x" + str(t % 2)}
        print(d, s, d.keys(), d.values(), d.items(), {"a": 1}.keys())
        try:
            print(d["k" + str(t + n)])
        except KeyError as e:
            print(repr(e), e)
        print(d["k" + str(t * 2)])  # thread 1 and 2 look up keys that are not there

    simt.use(backend)
    with pytest.raises(simt.KernelError) as info:
        k[1, 3](7)
    expect = ""
    for t in range(3):
        d = {"it's": 1, 'say "hi"': 2, "tab\t": 3}
        d["k" + str(t)] = t
        s = {"x" + str(t % 2)}
        expect += f"{d} {s} {d.keys()} {d.values()} {d.items()} {({'a': 1}).keys()}\n"
        expect += f"{KeyError('k' + str(t + 7))!r} {KeyError('k' + str(t + 7))}\n"
        expect += "0\n" if t == 0 else ""  # threads 1 and 2 raise instead
    assert capsys.readouterr().out == expect
    text = str(info.value)
    assert "2 threads raised KeyError" in text and "thread 1: 'k2'" in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_dict_changing_size_under_a_for_raises_runtime_error(backend: str) -> None:
    @simt.kernel
    def k(out):
        t = simt.grid(1)
        d = {1: 1, 2: 2}
        s = {"a"}
        for key in d:
            if t == 1:
                del d[key]  # the next step raises
            if t == 2 and key == 2:
                d[3] = 3  # the last step: raised at the end
            if t == 3:
                d[5] = 5
                break  # no next step: no error
        for x in s:
            if t == 4:
                s.add(x + "!")
        out[t] = len(d)

    simt.use(backend)
    with pytest.raises(simt.KernelError) as info:
        k[1, 5](np.zeros(5, np.int32))
    text = str(info.value)
    assert "2 threads raised RuntimeError" in text, text
    assert "thread 1: dictionary changed size during iteration" in text
    assert "RuntimeError" in text and "Set changed size during iteration" in text
    assert "for key in d:" in text and "2 threads finished" in text
