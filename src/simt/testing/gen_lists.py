"""The fuzz generator's `lists` feature (registers its section in grammar.py): lists that grow per
thread in the arena (`frontend/lists.py`): built by `append` in loops over run-time ranges and
arrays, by comprehensions over run-time ranges and by `[v] * n`, then changed with `pop`,
`insert`, item assignment, reordered (`sort`, `reverse`, slices, `sorted`; with a `key=`: a
builtin, a lambda or a nested def, `sort_key`; `reverse=` known or decided per thread) and
read by indexing (negative indices too),
iteration, `len`, `sum`, `min`/`max` (with a `key=` too), `in`, `count`, `index`; an int
list may get an int64 item after int32 ones (the list becomes int64, as Python's ints are one
type). Every index it writes is inside the list (the lists' lengths are known from how they
were built; `min`, `max` and `index` are guarded by `if xs`), so a difference between backends
is a bug, never an IndexError; values are int32 (wrapping exactly) or float32 multiples of 1/8
far below 2**21 (exact sums). About one kernel in two with lists builds a string too (`text`):
sliced, stripped or replaced (`cut`), searched (`find`, `in`, iteration: `search`); with the
exceptions feature on, it may put the string in the message of a ValueError it raises and
catches. An f-string it builds holds a call with an effect (an atomic add to the thread's own
`io` slot, whose old value is 0) and the kernel asserts it ran once: a string sized and written
by translating its expressions twice (fixed in 2026-11) fails on `sim` too, where comparing
backends cannot see it. The string may be followed by an int under a format spec (`formatted`:
an f-string, `str.format` or `format()`), which `int()` may parse back (a ValueError where the
spec made it something else: "-2,048", "0x1f"), and `float()` of a decimal made from it; its
`repr`/`ascii`, `ord`/`chr` of a character, and a tuple read at a run-time index; in a float64
kernel, an exact float under a float format type (`FLOAT_SPECS`) and a run-time width and
precision, and a float with no format type (its shortest digits); `split` into a list of
strings, walked, appended to and joined, with `count`, `rfind`, `title` and `index`
(`find`, `rfind`, `count` between a start and an end too: `spans`)
(`split_words`); `rsplit` and `maxsplit`, and a list of strings read, sorted, sliced, copied,
changed and added to (`word_lists`). A variable may be given list displays on an `if`'s
paths or in a loop (`shaped`); `enumerate`, `zip`, `reversed` walk a list and a string (`walked`).
"""

from __future__ import annotations

from .grammar import SECTIONS, Grammar, aside


def grow(g: Grammar) -> None:
    """One list built at run time and folded into a new int32 or float32 variable."""
    r = g.r
    xs, acc, n = g.fresh("xs"), g.fresh("ls"), g.fresh("ln")
    k = r.randrange(4)
    floats = r.random() < 0.4
    # its length: at least 2, different per thread (`t` in it: an expression the front end
    # folds would make a comprehension a read-only list of known length, which `pop` and
    # `insert` refuse: seed 29 of `--oob`), well inside the default heap
    g.emit(f"{n} = 2 + ({g.i32(1)} + t) % {r.choice((5, 9, 17))}")
    item = "(j % 8) * 0.125" if floats else f"j * {r.choice((3, 7, -5))} + t"
    if k == 0:
        g.emit(f"{xs} = []")
        g.emit(f"for j in range({n}):")
        g.emit(f"    {xs}.append({item})")
    elif k == 1:
        g.emit(f"{xs} = [{item} for j in range({n})]")
    elif k == 2:
        g.emit(f"{xs} = [{'0.5' if floats else 't % 5'}] * {n}")
        g.emit(f"{xs}[{r.choice(('0', '-1', '1'))}] = {'0.25' if floats else 'j0'}"
               .replace("j0", "t * 3"))  # fmt: skip
    else:
        src = r.choice(("ia", "ia[3:]", "ia[::2]"))
        g.emit(f"{xs} = []")
        g.emit(f"for v in {src}:")
        g.emit(f"    if {xs} and v % 3 == 0:")
        g.emit(f"        {xs}.pop()")
        g.emit(f"    if len({xs}) < {n}:")
        g.emit(f"        {xs}.append({'(v % 8) * 0.125' if floats else 'v'})")
        g.emit(f"{xs}.append({'0.375' if floats else 't'})")
        g.emit(f"{xs}.append({'0.625' if floats else '-t'})")
    if r.random() < 0.5:
        g.emit(f"{xs}.insert({r.choice(('0', '1', '-1', '100'))}, {'1.5' if floats else '9'})")
    if r.random() < 0.5:
        g.emit(f"{acc}p = {xs}.pop({r.choice(('', '0', '-2'))})")
    else:
        g.emit(f"{acc}p = {xs}[{r.choice(('0', '-1', '1', '-2'))}]")
    zero = "0.0" if floats else "0"
    g.emit(f"{acc} = {acc}p")
    reorder(g, xs)
    read(g, xs, acc, floats)
    g.emit(f"for x in {xs}:")
    g.emit(f"    {acc} = {acc} + x" if floats else f"    {acc} = ({acc} * 3) ^ x")
    g.emit(f"{acc} = {acc} + len({xs}) * {'0.5' if floats else '11'} + {zero}")
    if not floats and r.random() < 0.3:  # an int64 item after int32 ones: one int64 list
        wl = g.fresh("wl")
        g.emit(f"{wl} = [t % 7, simt.int64(t) * 3000000000 + {acc} % 5, 5]")
        g.emit(f"{wl}.append(t)")
        g.emit(f"{acc} = {acc} ^ simt.int32({wl}[1] % 4096 + len({wl}) + {wl}[-1])")
        g.features.add("int64")
    g.declare(acc, "f32" if floats else "i32", 4096.0)


def reorder(g: Grammar, xs: str) -> None:
    """Maybe reorder the list in place or replace it by a new list made from it (a slice,
    `sorted`), so the order-sensitive fold that follows sees the result."""
    r = g.r
    k = r.randrange(6)
    rev = r.choice(("", ", reverse=True")) if k in (0, 3) else ""
    key = ""
    if k in (0, 3):
        with aside(g, "sort_keys"):  # (a stream of its own: the seeds' other draws are kept)
            if g.r.random() < 0.4:
                key = f", key={sort_key(g)}"
            if rev and g.r.random() < 0.3:  # decided per thread
                rev = f", reverse={g.r.choice(('t % 2 == 1', 't % 3', 'i > 40'))}"
    if k == 0:
        g.emit(f"{xs}.sort({(key + rev)[2:]})")
    elif k == 1:
        g.emit(f"{xs}.reverse()")
    elif k == 2:
        g.emit(f"{xs} = {xs}[{r.choice(('1:', ':-1', '::-1', '::2', '-3:', '5:1:-2', '1:4'))}]")
    elif k == 3:
        g.emit(f"{xs} = sorted({xs}{key}{rev})")


def sort_key(g: Grammar) -> str:
    """A key function for the items of a list of numbers: a builtin, a lambda (one giving
    tuples, compared item by item), or a nested `def` with a default and a free variable
    (`t`, read when it is called). Its values tie often (`% 5`), so the sort's stability
    shows in the order-sensitive fold."""
    r = g.r
    g.features.add("local_functions")
    k = r.randrange(4)
    if k == 0:
        return "abs"
    if k == 1:
        return r.choice(("lambda v: v % 5", "lambda v: -v", "lambda v: abs(v - t % 3)",
                         "lambda v: (v % 3, -v)", "lambda v: (v > t, v % 4, v)"))  # fmt: skip
    if k == 2:
        m = g.fresh("km")
        g.emit(f"{m} = lambda v, w=t % 4: (v + w) % 5")
        return m
    f = g.fresh("kf")
    g.emit(f"def {f}(v, m=3):")
    g.emit("    return (v * m + t) % 7")
    return f


def read(g: Grammar, xs: str, acc: str, floats: bool) -> None:
    """Maybe fold a whole-list reading (`sum`, `min`, `max`, `in`, `count`, `index`) into
    `acc`; the list may be empty here (after a slice)."""
    r = g.r
    k = r.randrange(6)
    probe = r.choice(("0.5", "0.125", "1.5")) if floats else r.choice(("t", "9", "3"))
    if k == 0:
        g.emit(f"{acc} = {acc} + sum({xs})")
    elif k == 1:
        g.emit(f"{acc} = {acc} + ({r.choice(('min', 'max'))}({xs}) if {xs} else {probe})")
    elif k == 2:
        g.emit(f"if {probe} {r.choice(('in', 'not in'))} {xs}:")
        g.emit(f"    {acc} = {acc} + {'0.25' if floats else '5'}")
    elif k == 3:
        g.emit(f"{acc} = {acc} + {xs}.count({probe}) * {'0.5' if floats else '7'}")
    elif k == 4:
        g.emit(f"{acc} = {acc} + ({xs}.index({xs}[-1]) if {xs} else 2)")
    else:
        with aside(g, "sort_keys"):  # (a stream of its own: the seeds' other draws are kept)
            if g.r.random() < 0.3:
                key = sort_key(g)
                pick = g.r.choice(("min", "max"))
                g.emit(f"{acc} = {acc} + ({pick}({xs}, key={key}) if {xs} else {probe})")


def text(g: Grammar) -> None:
    """One string built at run time (frontend/strings.py) from an int expression, grown in a
    run-time loop and changed, folded into a new int32 variable by `len`, `==`,
    `startswith`/`endswith` and a character; printed by a few threads."""
    r = g.r
    s, acc, n = g.fresh("s"), g.fresh("sl"), g.fresh("sn")
    first = r.choice(("'k'", "''"))
    piece = r.choice(("str(j)", "'ab'", "str(j - t)"))
    g.emit(f"{n} = ({g.i32(1)}) % 5")
    g.emit(f"{s} = {first} + str(({g.i32(1)}) % 1000)")  # short: the heap holds it all
    if r.random() < 0.5:  # with an effect inside: the thread's own atomic adds once
        slot = f"i * NSLOT_io + {g.slots['io']}"
        g.slots["io"] += 1
        g.emit(s + ' = f"<{t}|{' + s + '}|{simt.atomic.add(io, ' + slot + ', 1)}>"')
        g.emit(f"assert io[{slot}] == 1, 'an f-string evaluates each expression once'")
        g.features.add("atomics")
    g.emit(f"for j in range({n}):")
    g.emit(f"    {s} += {piece}")
    k = r.randrange(4)
    if k == 0:
        g.emit(f"{s} = {s}.upper()")
    elif k == 1:
        g.emit(f"{s} = {s} * ({n} % 3)")
    elif k == 2:
        g.emit(f"{s} = ','.join(({s}, {s}.lower(), str(t > 5)))")
    probe = r.choice(("'k1'", "'K'", "'-'", "'0'", "'ab'"))
    cut(g, s, n, probe)
    g.emit(f"{acc} = len({s}) * 5 + (1 if {s} == {probe} else 0)")
    g.emit(f"{acc} += (2 if {s}.startswith({probe}) else 0) + (4 if {s}.endswith({probe}) else 0)")
    g.emit(f"if {s}:")
    g.emit(f"    {acc} += 8 if {s}[{r.choice(('0', '-1'))}] == {probe} else 16")
    search(g, s, acc, probe)
    if g.exceptions_on and r.random() < 0.5:  # a message built from it, raised and caught
        g.emit("try:")
        g.emit(f"    if not {s}.startswith({probe}):")
        g.emit(f"        raise ValueError('no ' + {probe} + ' in ' + {s})")
        g.emit(f"    {acc} += 1")
        g.emit("except ValueError as e:")
        g.emit(f"    {acc} += len(str(e)) + (9 if str(e).endswith({s}) else 0)")
    if r.random() < 0.3:
        g.emit("if t == 1:")
        g.emit(f"    print({s})")
    if g.exceptions_on and r.random() < 0.5:  # (the section's last draws: those before keep
        formatted(g, s, acc)  # their meaning)
    if r.random() < 0.4:  # its repr or ascii, a character of it through ord and chr, and a
        # tuple read at a run-time index (wrapping negative ones, as Python's)
        fn = r.choice(("repr", "ascii"))
        g.emit(f"{acc} += len({fn}({s} + chr(34 + t % 8)))")
        g.emit(f"if {s}:")
        g.emit(f"    {acc} += ord(chr(ord({s}[-1]) + 1)) % 64")
        g.emit(f"{acc} += (3, 1, {acc} % 7)[t % 5 - 2]")
    if g.fp64 and r.random() < 0.5:  # a float under a float type, its width and precision
        # given at run time too (an exact value: the same digits on every backend)
        x, fs = g.fresh("fx"), g.fresh("ff")
        cast = r.choice(("simt.float64", "simt.float32"))
        g.emit(f"{x} = {cast}(({g.i32(1)}) % 4096 - 2048) * 0.125")
        spec = r.choice(FLOAT_SPECS)
        g.emit(f"{fs} = f\"<{{{x}:{spec}}}|{{{x}:{{t % 9}}.{{t % 4}}e}}>\"")
        g.emit(f"{acc} += len({fs}) * 3 + {fs}.find('5')")
    with aside(g, "shortest"):  # (a stream of its own: the seeds' other draws are kept)
        shortest(g, acc)
    with aside(g, "split"):
        split_words(g, s, acc, probe)
    with aside(g, "word_lists"):
        word_lists(g, s, acc)
    g.declare(acc, "i32", 4096.0)


def shortest(g: Grammar, acc: str) -> None:
    """Maybe a float with no format type: its shortest digits (str, an f-string, str.format,
    a precision alone, a width alone) of a product (IEEE's, the same bits on every backend),
    folded into `acc`."""
    r = g.r
    if not (g.fp64 and r.random() < 0.4):
        return
    x, fs = g.fresh("fx"), g.fresh("ff")
    cast = r.choice(("simt.float64", "simt.float32"))
    scale = r.choice(("0.1", "1e-7", "3.0e15", "1.0"))
    g.emit(f"{x} = {cast}(({g.i32(1)}) % 4096 - 2048) * {scale}")
    how = r.choice(("str({x})", "f'{{{x}}}'", "'<{{}}>'.format({x})", "f'{{{x}:.3}}'",
                    "f'{{{x}:>9}}'"))  # fmt: skip
    g.emit(f"{fs} = {how.format(x=x)}")
    g.emit(f"{acc} += len({fs}) * 3 + {fs}.find('5') + {fs}.find('e')")


def split_words(g: Grammar, s: str, acc: str, probe: str) -> None:
    """Maybe split the string into a list of strings, walked, appended to and joined;
    `count`, `rfind`, `title` (its first 16 characters: short enough for the heap); with the
    exceptions feature, `index`'s ValueError caught."""
    r = g.r
    if r.random() >= 0.4:
        return
    ws, w = g.fresh("ws"), g.fresh("w")
    sep = r.choice(("", "','", "'1'", "'ab'"))
    g.emit(f"{ws} = ({s}[:16] + ' a,b 1').split({sep})")
    g.emit(f"for {w} in {ws}:")
    g.emit(f"    {acc} = ({acc} * 3 + len({w}) + {w}.count('a')) % 4096")
    g.emit(f"{ws}.append({s}[:4].title())")
    g.emit(f"{acc} += len({ws}) + len('-'.join({ws})) + {s}.rfind({probe}) + len({ws}[-1])")
    with aside(g, "spans"):  # (a stream of its own: the seeds' other draws are kept)
        spans(g, s, acc, probe)
    if g.exceptions_on:
        g.emit("try:")
        g.emit(f"    {acc} += {s}.index({probe})")
        g.emit("except ValueError:")
        g.emit(f"    {acc} += 11")


def spans(g: Grammar, s: str, acc: str, probe: str) -> None:
    """Maybe `find`, `rfind` and `count` of the string between a start and an end (negative,
    past the end, crossed, at run time), folded into `acc`."""
    r = g.r
    if r.random() >= 0.5:
        return
    bounds = ("0", "2", "-3", "t % 5", "-(t % 7)", "40", "t - 4")
    a, b = r.choice(bounds), r.choice((*bounds, "-1", "t % 9 + 3"))
    what = r.choice((f"{s}.find({probe}, {a}, {b})", f"{s}.rfind({probe}, {a}, {b})",
                     f"{s}.count({probe}, {a}, {b})", f"{s}.count({probe}, {a})",
                     f"{s}.rfind('', {a}, {b})", f"{s}.count('', {a}, {b})"))  # fmt: skip
    g.emit(f"{acc} = ({acc} * 3 + {what}) % 4096")


def word_lists(g: Grammar, s: str, acc: str) -> None:
    """Maybe cut the string with `rsplit` or a `maxsplit` (known or at run time), then read
    and reorder the list of strings: `min`, `max`, `sorted`, `sort`, `in`, `count`, `index`,
    slices, `copy`, `insert`, `extend`, `pop`, `reverse`, `+` and `<` of two strings, folded
    into `acc` by lengths (its first 10 characters: short enough for the heap); maybe a display
    of known strings changed and one read at a run-time index, and one repeated a run-time
    number of times (`[s, 'q'] * n`, n -1 to 2)."""
    r = g.r
    if r.random() >= 0.4:
        return
    ws, us = g.fresh("ws"), g.fresh("us")
    how = r.choice(("split", "rsplit"))
    sep = r.choice(("None", "','", "' '", "'a'"))
    most = r.choice(("-1", "0", "1", "2", "t % 3", "t % 4 - 1"))
    call = r.choice((f"{how}({sep}, {most})", f"{how}(maxsplit={most})", f"{how}({sep})"))
    g.emit(f"{ws} = ({s}[:10] + ' b,a 1 a').{call}")
    read = r.choice(("len(min({ws})) * 3 + len(max({ws}))",
                     "{ws}.count('a') + ({ws}.index('a') if 'a' in {ws} else 5)"))  # fmt: skip
    g.emit(f"{acc} += len({ws}) + " + read.format(ws=ws))
    order = r.choice(("sorted({ws})", "sorted({ws}, reverse=True)", "{ws}[::-1]",
                      "{ws}[1:]", "{ws}.copy()", "list({ws})"))  # fmt: skip
    g.emit(f"{us} = {order.format(ws=ws)}")
    change = r.choice(("{us}.sort()", "{us}.reverse()", "{us}.insert(t % 3, {s}[:3])",
                       "{us}.extend({ws}[:2])", "{us}.append(({us} + {ws}).pop(0))"))  # fmt: skip
    g.emit(change.format(us=us, ws=ws, s=s))
    g.emit(f"{us} = {us} + ['z'] + {ws}[-1:]")
    with aside(g, "word_displays"):  # (a stream of its own: the seeds' other draws are kept)
        if g.r.random() < 0.5:  # a display of known strings changed, one read at run time
            vs = g.fresh("vs")
            g.emit(f"{vs} = ['k', 'mm']")
            g.emit(g.r.choice((f"{vs}.append({us}[0])", f"{vs}.extend({ws}[:2])",
                               f"{vs}[t % 2] = {s}[:3]")))  # fmt: skip
            g.emit(f"{acc} = ({acc} + len({vs}[-1]) + len(['x', 'yy', 'zzz'][t % 3])) % 4096")
    with aside(g, "word_repeats"):
        if g.r.random() < 0.3:  # a list of strings repeated a run-time number of times
            rs = g.fresh("rs")
            g.emit(f"{rs} = [{s}[:2], 'q'] * (t % {g.r.choice((3, 4))} - 1)")
            g.emit(f"{acc} = ({acc} + len({rs}) * 5 + len(''.join({rs}))) % 4096")
    g.emit(f"{acc} = ({acc} * 3 + len('|'.join({us})) + (1 if {us}[0] < {us}[-1] else 2)) "
           "% 4096")  # fmt: skip


# float format specs a string built at run time takes (frontend/float_format.py)
FLOAT_SPECS = (".10f", "e", ".3e", "g", ".3g", "%", ".1%", ">+12,.2f", "^14.4E", "#.0f",
               "#g", "G", "_.1f", "015.3f", " .2f", ".17g")  # fmt: skip


# int format specs a string built at run time takes (frontend/str_format.py), short enough
# for the heap
SPECS = (">8", "<+6", "^9x", "#06b", "_o", ",", "012,", "=+12X", "*^7", " d", "#x", "0=9_",
         "-<5", "x>+7o")  # fmt: skip


def formatted(g: Grammar, s: str, acc: str) -> None:
    """An int in a string under a format spec, by an f-string, `str.format` or `format()`,
    folded into `acc` by its length and what it holds. The lists and the string may have
    left too little of the heap: then the thread's MemoryError is caught (as on every
    backend), so it is written only where the exceptions feature writes try statements."""
    r = g.r
    v, f = g.fresh("fv"), g.fresh("fs")
    g.emit(f"{v} = ({g.i32(1)}) % 4096 - 2048")
    spec = r.choice(SPECS)
    how = r.randrange(3)
    g.emit("try:")
    if how == 0:
        g.emit(f"    {f} = f\"<{{{v}:{spec}}}|{{{s}:>6.3}}>\"")
    elif how == 1:
        g.emit(f"    {f} = \"<{{:{spec}}}|{{!s:^7}}>\".format({v} % 64, {v} > 0)")
    else:
        g.emit(f"    {f} = format({v}, {spec!r})")
    g.emit(f"    {acc} += len({f}) * 3 + {f}.find('0') + (5 if {f}.startswith('<-') else 0)")
    parse = how == 2 and r.random() < 0.6  # int() of it: Python's grammar or a ValueError
    if parse:
        g.emit(f"    {acc} += int({f}) % 1000 + int(f\" {{{v}}}\\n\") - {v}"
               f" + int(float(f\"{{{v}}}.5e-1\") * 4.0)")
    g.emit("except MemoryError:")
    g.emit(f"    {acc} += 1")
    if parse:
        g.emit("except ValueError:")
        g.emit(f"    {acc} += 7")


def cut(g: Grammar, s: str, n: str, probe: str) -> None:
    """Maybe replace the string by a slice, a strip or a replacement of it. What makes a new
    string (a step other than 1, a strip's padding, a replacement) takes at most its first 16
    characters, so that the heap (240 words a thread by default, shared with the lists and the
    raised message) holds every string the kernel makes."""
    r = g.r
    k = r.randrange(6)
    if k == 0:
        bounds = r.choice(("1:", ":-1", ":16:2", "1:4", "15::-1", f"{n}:", f"-{n}:"))
        g.emit(f"{s} = {s}[{bounds}]")
    elif k == 1:
        pad = r.choice(("' '", "'\\t'"))
        g.emit(f"{s} = ({pad} + {s}[:16] + ' ').strip()")
    elif k == 2:
        how, chars = r.choice(("strip", "lstrip", "rstrip")), r.choice(("'k-'", "'0'"))
        g.emit(f"{s} = {s}.{how}({chars})")
    elif k == 3:
        g.emit(f"{s} = {s}[:16].replace({probe}, {r.choice(('', 'xy', '-'))!r})")


def search(g: Grammar, s: str, acc: str, probe: str) -> None:
    """Maybe fold a search of the string (`find`, `in`, its characters) into `acc`."""
    r = g.r
    k = r.randrange(3)
    if k == 0:
        g.emit(f"{acc} += {s}.find({probe}) * 3 + (7 if {probe} in {s} else 0)")
    elif k == 1:
        g.emit(f"for ch in {s}:")
        g.emit(f"    {acc} = ({acc} * 3 + (1 if ch == {probe} else 2)) % 4096")


def lists_section(g: Grammar) -> None:
    """One to three lists (and maybe a string), each folded into a new variable the kernel's
    outputs read."""
    g.features.add("lists")
    for _ in range(g.r.randint(1, 3)):
        grow(g)
    if g.r.random() < 0.5:
        text(g)
    with aside(g, "shaped"):  # (a stream of their own: the seeds' other draws are kept)
        if g.r.random() < 0.5:
            shaped(g)
    with aside(g, "walked"):
        if g.r.random() < 0.5:
            walked(g)


def walked(g: Grammar) -> None:
    """`enumerate`, `zip` and `reversed` over a list built by `append` and over a string
    built at run time, in a `for`, a comprehension, a generator expression, `list(...)`."""
    r = g.r
    xs, acc = g.fresh("wx"), g.fresh("wa")
    i, v, w = g.fresh("wi"), g.fresh("wv"), g.fresh("ww")  # (the kernel has its own `i`)
    g.emit(f"{xs} = []")
    g.emit(f"for {i} in range(2 + ({g.i32(1)} + t) % 5):")
    g.emit(f"    {xs}.append({i} * 5 - t)")
    g.emit(f"{acc} = 0")
    k = r.randrange(4)
    if k == 0:
        g.emit(f"for {i}, {v} in enumerate({xs}, {r.choice(('0', '1', 't'))}):")
        g.emit(f"    {acc} = {acc} * 3 + {i} * {v}")
    elif k == 1:
        g.emit(f"for {v}, {w} in zip(reversed({xs}), {xs}[1:]):")
        g.emit(f"    {acc} = {acc} * 5 + {v} - {w}")
    elif k == 2:
        ys = g.fresh("wy")
        g.emit(f"{ys} = [{i} * {v} for {i}, {v} in enumerate(reversed({xs}))]")
        g.emit(f"{acc} = sum({ys}) + len({ys}) + list(reversed({ys}))[0]")
    else:
        s = g.fresh("ws")
        g.emit(f"{s} = 'w' + str(t)")
        g.emit(f"for {i}, {w} in enumerate(reversed({s})):")
        g.emit(f"    {acc} = {acc} + {i} * ord({w})")
        g.emit(f"{acc} = {acc} + sum(ord({w}) * {v} for {w}, {v} in zip({s}, {xs}))")
    g.declare(acc, "i32", 4096.0)


def shaped(g: Grammar) -> None:
    """A variable given list displays on the paths of an `if` (of one length: values in
    registers; of different lengths: a run-time list) or reassigned one in a run-time loop,
    then read back (a list either way, as Python's)."""
    r = g.r
    ys, acc = g.fresh("ys"), g.fresh("ya")
    k = r.randrange(4)
    if k == 0:
        g.emit(f"{ys} = [t, {g.i32(1)}] if {g.boolean(1)} else [{g.i32(1)}, 3]")
    elif k == 1:
        g.emit(f"{ys} = [t % 5, 2] if {g.boolean(1)} else [{g.i32(1)}, t, 7]")
    elif k == 2:
        g.emit(f"if {g.boolean(1)}:")
        g.emit(f"    {ys} = [t % 5, 2]")
        g.emit("else:")
        g.emit(f"    {ys} = [{g.i32(1)}, t, 7]")
    else:
        j = g.fresh("yj")
        g.emit(f"{ys} = [t, 0]")
        g.emit(f"for {j} in range(t % 4):")
        g.emit(f"    {ys} = [{j}, {ys}[0] + 1]")
    g.emit(f"{acc} = len({ys}) * 13 + {ys}[-1] * 3 + {ys}[0]")
    g.declare(acc, "i32", 4096.0)


SECTIONS["lists"] = lists_section
