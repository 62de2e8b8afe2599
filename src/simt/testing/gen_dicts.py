"""The fuzz generator's `dicts` feature (registers its section in grammar.py): dicts and sets
per thread in the arena (`frontend/dicts.py`): built in loops over run-time ranges and arrays
by `d[k] = d.get(k, 0) + v`, by displays and comprehensions, `set(range(n))` and `add`, then
changed by `d[k] += v` (under `if k in d`), `del` (under `if k in d`), `pop` with a default,
`setdefault`, `discard`, and read by `in`, `len`, `sum`, `get` and iteration over keys,
values and items, folded in order (simt keeps insertion order: every backend, and Python,
walk the entries alike). With the exceptions feature on, a missing key's KeyError is raised
and caught. Keys are small ints (at most 7 distinct: each thread's arena holds every dict
the kernel makes beside the lists section's), values int32 (wrapping exactly) or float32
multiples of 1/8 far below 2**21 (exact sums). Then maybe a dict of string keys and a set of
strings (`words`): run-time and known strings as keys, `in`, `get`, `pop`, `del`,
`setdefault`, `dict(name=value)`, iteration giving strings; with exceptions on, a missing
string key's KeyError and a dict changing size under a `for` (RuntimeError), caught. Each
dict or set is made and read inside a `try` whose `except MemoryError` gives its variable a
mark (`grammar.guarded`): the lists and strings sections before it may have left little of
the heap (the same on every backend)."""

from __future__ import annotations

from .grammar import SECTIONS, Grammar, guarded


def table(g: Grammar) -> None:
    """One dict built at run time and folded into a new int32 or float32 variable."""
    r = g.r
    d, acc, n = g.fresh("dd"), g.fresh("da"), g.fresh("dn")
    # loop variables of their own: a name another section loops with may hold another type
    j, v, key, x = g.fresh("dj"), g.fresh("dv"), g.fresh("dk"), g.fresh("dx")
    floats = r.random() < 0.4
    m = r.choice((3, 5, 7))
    g.emit(f"{n} = 1 + ({g.i32(1)}) % {r.choice((6, 9, 13))}")
    value = f"({j} % 8) * 0.125" if floats else f"{j} * {r.choice((3, 7, -5))} + t"
    zero = "0.0" if floats else "0"
    g.emit(f"{acc} = {zero}")
    with guarded(g, "MemoryError", [f"{acc} = {'-1.0' if floats else '-1'}"]):
        k = r.randrange(3)
        if k == 0:
            g.emit(f"{d} = {{}}")
            g.emit(f"for {j} in range({n}):")
            where = f"({j} * {r.choice((2, 3))} + t) % {m}"
            g.emit(f"    {d}[{where}] = {d}.get(({j} + t) % {m}, {zero}) + {value}")
        elif k == 1:
            g.emit(f"{d} = {{({j} + t) % {m}: {value} for {j} in range({n})}}")
        else:
            g.emit(f"{d} = {{t % {m}: {'0.5' if floats else '1'}, {m - 1}: {zero}}}")
            g.emit(f"for {v} in {r.choice(('ia', 'ia[3:]', 'ia[::2]'))}:")
            g.emit(f"    {d}[{v} % {m}] = {f'({v} % 8) * 0.125' if floats else v}")
        probe = r.choice(("t % 4", "2", "0", f"{m}"))
        values = ("0.25", "1.5", "0.375") if floats else ("9", "-3", "4")
        change(g, d, probe, acc, values, f"{m + 1}")
        if g.exceptions_on and r.random() < 0.5:
            with guarded(g, "KeyError", [f"{d}[{m + 3}] = {'0.125' if floats else '5'}"]):
                g.emit(f"{d}[{m + 2}] = {d}[{probe}] * 2")
        g.emit(f"{acc} = {zero} + len({d}) * {'0.5' if floats else '11'}")
        read = r.randrange(4)
        if read == 0:
            g.emit(f"for {key}, {x} in {d}.items():")
            g.emit(f"    {acc} = {acc} + {x} * ({key} + 1)" if floats else
                   f"    {acc} = ({acc} * 3 + {key}) ^ {x}")  # fmt: skip
        elif read == 1:
            g.emit(f"for {key} in {d}:")
            g.emit(f"    {acc} = {acc} + {d}[{key}]" if floats else
                   f"    {acc} = ({acc} * 5) ^ {key}")  # fmt: skip
        elif read == 2:
            g.emit(f"{acc} = {acc} + sum({d}.values()) + {d}.get({probe}, {zero})")
        else:
            g.emit(f"{acc} = {acc} + ({'1.0' if floats else '7'} if {probe} not in {d} else "
                   f"{d}[{probe}])")  # fmt: skip
        printed(g, 0.15, str(d))
    g.declare(acc, "f32" if floats else "i32", 4096.0)


def members(g: Grammar) -> None:
    """One set built at run time and folded into a new int32 variable."""
    r = g.r
    s, acc, n = g.fresh("ds"), g.fresh("dc"), g.fresh("dn")
    j, x = g.fresh("dj"), g.fresh("dx")
    m = r.choice((4, 6, 7))
    g.emit(f"{n} = ({g.i32(1)}) % {r.choice((5, 8))}")
    g.emit(f"{acc} = 0")
    with guarded(g, "MemoryError", [f"{acc} = -1"]):
        k = r.randrange(3)
        if k == 0:
            g.emit(f"{s} = set(range({n}))")
        elif k == 1:
            g.emit(f"{s} = {{({j} * t) % {m} for {j} in range({n})}}")
        else:
            g.emit(f"{s} = {{t % {m}, 1}}")
            g.emit(f"for {j} in range({n}):")
            g.emit(f"    {s}.add(({j} + t) % {m})")
        g.emit(f"{s}.discard({r.choice(('0', 't % 3', '5'))})")
        if g.exceptions_on and r.random() < 0.5:
            with guarded(g, "KeyError", [f"{s}.add({m})"]):
                g.emit(f"{s}.remove(2)")
        g.emit(f"{acc} = len({s}) * 13 + sum({s}) + (1 if 3 in {s} else 0)")
        g.emit(f"for {x} in {s}:")
        g.emit(f"    {acc} = ({acc} * 3) ^ {x}")
        printed(g, 0.15, f"sorted({s}), {s}")
    g.declare(acc, "i32", 4096.0)


def words(g: Grammar) -> None:
    """One dict of string keys (run-time strings `"k" + str(...)`, and known ones) and a set
    of strings, folded into a new int32 variable by the keys' lengths and the values; with
    the exceptions feature on, a missing key's KeyError (its message the quoted key) and a
    `for` changing the dict's size (Python's RuntimeError) are raised and caught."""
    r = g.r
    d, acc, n, s = g.fresh("dw"), g.fresh("dl"), g.fresh("dn"), g.fresh("dz")
    j, w, key, x = g.fresh("dj"), g.fresh("dq"), g.fresh("dk"), g.fresh("dx")
    m = r.choice((3, 4))
    g.emit(f"{n} = 1 + ({g.i32(1)}) % {r.choice((3, 4))}")
    g.emit(f"{acc} = 0")
    with guarded(g, "MemoryError", [f"{acc} = -1"]):
        g.emit(f"{d} = " + r.choice(("{}", "{'k0': 5, 'zz': 1}", "dict(k1=t, zz=2)")))
        g.emit(f"for {j} in range({n}):")
        g.emit(f"    {w} = 'k' + str(({j} * {r.choice((2, 3, 5))} + t) % {m})")
        g.emit(f"    {d}[{w}] = {d}.get({w}, 0) + {j}")
        probe = r.choice(("'k1'", "'zz'", "'k' + str(t % 5)"))
        change(g, d, probe, acc, ("9", "-3", "4"), "'k9'")
        if g.exceptions_on:
            with guarded(g, "KeyError as e", [f"{acc} += len(str(e)) * 3"]):
                g.emit(f"{acc} += {d}['k' + str(t % {r.choice((5, 9))})]")
            with guarded(g, "RuntimeError", [f"{acc} += 7"]):
                g.emit(f"for {key} in {d}:")
                g.emit(f"    if {d}[{key}] > {r.choice((2, 5, 9))}:")
                g.emit(f"        {d}[{key} + '!'] = 1")
        g.emit(f"for {key}, {x} in {d}.items():")
        g.emit(f"    {acc} = ({acc} * 3 + len({key}) * 5 + {x}) % 4096")
        g.emit(f"{s} = {{str(t % 3), 'k1'}}")
        g.emit(f"{s}.add({probe})")
        g.emit(f"{acc} += len({s}) * 11 + (1 if 'k1' in {d} else 0) + (2 if '0' in {s} else 0)")
        printed(g, 0.2, f"{d}, {s}")
    g.declare(acc, "i32", 4096.0)


def change(g: Grammar, d: str, probe: str, acc: str, values: tuple[str, str, str],
           key: str) -> None:  # fmt: skip
    """Maybe change dict `d` at key `probe` (one draw of five): add `values[0]` to its value,
    delete it (both under `if probe in d`), pop it with the default `values[1]` into
    `{acc}p` and store that under `key`, or setdefault it to `values[2]`."""
    k = g.r.randrange(5)
    if k == 0:
        g.emit(f"if {probe} in {d}:")
        g.emit(f"    {d}[{probe}] += {values[0]}")
    elif k == 1:
        g.emit(f"if {probe} in {d}:")
        g.emit(f"    del {d}[{probe}]")
    elif k == 2:
        g.emit(f"{acc}p = {d}.pop({probe}, {values[1]})")
        g.emit(f"{d}[{key}] = {acc}p")
    elif k == 3:
        g.emit(f"{d}.setdefault({probe}, {values[2]})")


def printed(g: Grammar, chance: float, what: str) -> None:
    """With probability `chance` (one draw), thread 1 prints `what`."""
    if g.r.random() < chance:
        g.emit("if t == 1:")
        g.emit(f"    print({what})")


def dicts_section(g: Grammar) -> None:
    """One or two dicts or sets, each folded into a new variable the kernel's outputs read;
    then maybe a dict of string keys (drawn last: the draws before keep their meaning), in a
    kernel without lists: the lists section's strings, the dicts' and the files a later
    section reads share the thread's heap, and a MemoryError where the files section reads
    is not caught there."""
    g.features.add("dicts")
    for _ in range(g.r.randint(1, 2)):
        (table if g.r.random() < 0.6 else members)(g)
    if g.r.random() < 0.4 and "lists" not in g.features:  # (the heap holds both sections)
        words(g)


SECTIONS["dicts"] = dicts_section
