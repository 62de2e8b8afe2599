"""Functions defined in a kernel (frontend/local_functions.py): `lambda` and nested `def`
with Python's scoping (defaults at the definition, free names read at the call, the body's
names its own), lambdas made in CPython, and the functions that take one: `sort(key=)`,
`sorted(key=)`, `min(key=)`, `max(key=)`, `map` and `filter`. Each helper runs in the
kernel (inlined) and on the host (the reference)."""

from __future__ import annotations

import numpy as np
import pytest

import simt

BACKENDS = ("sim", "cpu")

SHIFT = lambda v: v + 1000  # noqa: E731 - a lambda made in CPython, read from this file
UP, DOWN = (lambda v: v + 1), (lambda v: v - 1)  # two on a line: told apart by columns


def scoped(t):
    """Late binding, defaults, a body's own names, an object shared with the caller, an
    exception raised in a nested def and caught outside it."""
    c = 1
    late = lambda: c  # noqa: E731
    c = 5
    own = 100
    scale = 3

    def times(x, k=scale, *, by=2):
        own = x * k * by  # the body's own `own`
        return own

    scale = 7  # the default stays 3
    seen = [t]

    def add(v):
        seen.append(v)

    add(7)
    add(t * 2)

    def checked(v):
        if v > 3:
            raise ValueError("big")
        return v

    try:
        r = checked(t)
    except ValueError:
        r = -1
    squares = [(lambda q: q * q)(x) for x in seen]
    return late() + own + times(t) + times(t, by=1) + len(seen) + sum(squares) * 10 + r * 7 + scale


def made_in_cpython(k):
    return lambda x: x * k


def closures(t):
    return made_in_cpython(3)(t) + SHIFT(t) + UP(t) * 10 + DOWN(t) * 100


def by_parity(v):
    """A key made of a tuple, defined at module level (its returns are tuple displays)."""
    if v < 0:
        return (2, v)
    return (v % 2, -v)


def keyed(t):
    """Sorting, min and max by a key, numbers and strings; ties keep their order."""
    xs = [t, 23, -5, 17, -23, 3, 15, t - 9]
    xs.sort(key=lambda v: abs(v - 10))
    ys = sorted(xs, key=lambda v: v % 4, reverse=True)
    zs = sorted((t, -7, 3), key=abs)

    def last_digit(v):
        return v % 10

    ws = ["pear", "Fig", "apple", "kiwi", "fig"]
    ws.sort(key=len)
    vs = sorted(ws, key=str.lower)
    us = sorted(ws, key=lambda w: w[::-1], reverse=True)
    s = 0
    for j in range(len(xs)):
        s = (s * 31 + xs[j] * 7 + ys[j]) % 1000003
    s = (s * 31 + zs[0]) % 1000003
    lengths = len(ws[0]) + 10 * len(vs[0]) + 100 * len(us[0]) + 1000 * vs.index("fig")
    picks = min(xs, key=abs) + 100 * max(xs, key=last_digit)
    picks += 10000 * max(t, 4, key=lambda v: -v) + 1000000 * len(max(ws, key=len))
    picks += 10000000 * len(min(ws, key=str.lower))
    mapped = sum(map(lambda v, w: v * w, xs, ys)) + len(list(filter(None, xs)))
    mapped += sum(map(len, filter(lambda w: w < "g", ws))) * 100
    return (s * 7 + lengths * 13 + picks + mapped) % 1000003  # int32 (simt's integers)


def tuple_keyed(t):
    """Keys that are tuples, compared item by item: of numbers, of a number and a string,
    from a lambda, a nested def and a module's function; with reverse (decided per thread),
    min and max."""
    xs = [t, 23, -5, 17, -23, 3, 15, t - 9, t % 3]
    xs.sort(key=lambda v: (v % 3, -v))
    ys = sorted(xs, key=by_parity, reverse=True)

    def near(v, c=t):
        return (abs(v - c), v > c)

    ws = ["pear", "Fig", "apple", "kiwi", "fig", "date"]
    ws.sort(key=lambda w: (len(w), w), reverse=t % 2 == 1)  # decided per thread
    xs.sort(reverse=t % 3)
    s = 0
    for j in range(len(xs)):
        s = (s * 31 + xs[j] * 7 + ys[j]) % 1000003
    picks = min(xs, key=near) + 100 * max(xs, key=by_parity)
    picks += 10000 * len(max(ws, key=lambda w: (w[-1], len(w)))) + 100000 * ws.index("fig")
    return (s * 7 + picks + len(ws[0]) * 13) % 1000003


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("helper", [scoped, closures, keyed, tuple_keyed])
def test_local_functions_run_as_python_runs_them(backend: str, helper) -> None:
    @simt.kernel(heap=16384)  # the keys of strings are strings of their own
    def k(out):
        t = simt.grid(1)
        if t < len(out):
            out[t] = helper(t)

    simt.use(backend)
    out = np.zeros(8, np.int64)
    k[1, 8](out)
    assert out.tolist() == [helper(t) for t in range(8)]


def test_a_key_called_once_per_item_in_order(capfd: pytest.CaptureFixture[str]) -> None:
    """Python calls the key once per item, in the list's order, before any comparison."""

    @simt.kernel
    def k(out):
        t = simt.grid(1)
        xs = [3, 1, 2]

        def key(v):
            print(v)
            return -v

        xs.sort(key=key)
        out[t] = xs[0]

    simt.use("cpu")
    out = np.zeros(1, np.int64)
    k[1, 1](out)
    assert out[0] == 3 and capfd.readouterr().out.split() == ["3", "1", "2"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("def f(v):\n        return f(v)\n    out[t] = f(1)", "f() calls itself: recursion"),
        ("@simt.kernel\n    def f(v):\n        return v", "decorators of a function defined"),
        ("f = lambda **kw: 1", "**kwargs in a function defined in a kernel"),
        ("f = lambda v, w: v\n    xs.sort(key=f)", "bad call of <lambda>(): missing a required"),
        ("xs.sort(key=n)", "sort(key=...) takes a function known at compile time"),
        ("out[t] = max(xs, key=n)", "max(key=...) takes a function known at compile time"),
        ("out[t] = max(xs, default=0)", "keyword arguments other than key="),
        ("xs.sort(reverse=0.5)", "sort(reverse=...) takes a bool (or an int), as in Python"),
        ("p = (n, 1)\n    xs.sort(key=lambda v: p)",
         "a key giving tuples writes each one out"),
        ("f = (lambda v: v) if n > 0 else abs\n    out[t] = f(1)",
         "this `if`/`else` expression is a different function on each path, chosen at run "
         "time: a kernel calls only a function it knows when it compiles"),
        ("out[t] = functools.reduce(lambda a, b: a + b, xs)", "cannot be given a function"),
        ("out[t] = sum(map(lambda v: v))", "map() takes a function and one or more iterables"),
    ],
)
def test_refusals_name_the_line_and_say_what_to_write(body: str, words: str, refusal) -> None:
    text = refusal(
        "import functools\nimport simt\n\n@simt.kernel\ndef k(out, n):\n"
        f"    t = simt.grid(1)\n    xs = [t, n]\n    xs.append(1)\n    {body}\n"
    )
    assert words in text and ("user_kernel.py:9" in text or "user_kernel.py:10" in text), text


@pytest.mark.parametrize(
    ("then", "orelse", "words"),
    [
        ("f = lambda v: v + 1", "f = lambda v: v * 2", "`f` is a different function on each "
         "path of the `if` at line 9, chosen at run time: a kernel calls only a function"),
        ("f = [1, 2]", "f = 3", "`f` is a list on one path of the `if` at line 9 and an int "
         "on the other, chosen at run time: one run-time value cannot hold both"),
        ("f = (1, 2)", "f = (n, 2, 3)", "`f` is a tuple of 2 items on one path of the `if` at "
         "line 9 and one of 3 on the other"),
    ],
)
def test_a_variable_given_unlike_values_by_a_run_time_if(then, orelse, words, refusal) -> None:
    """Reading a variable that a run-time `if` left holding values no one run-time value can
    stand for (two functions, a list and a number) says so, and where that `if` is."""
    text = refusal(
        "import simt\n\n@simt.kernel\ndef k(out, n):\n    t = simt.grid(1)\n"
        "    xs = [t, n]\n    xs.append(1)\n    f = 0\n    if t > 0:\n"
        f"        {then}\n    else:\n        {orelse}\n    out[t] = f(1)\n"
    )
    assert words in text and "user_kernel.py:13" in text, text
