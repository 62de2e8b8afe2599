"""The fuzz generator's `exceptions` feature (registers its section in grammar.py): per
thread `try`/`except` (by class, by a tuple, `as e`, `str(e)` of several places)/`else`/
`finally`, `raise` under run-time conditions, a failed `assert` (its message a literal or
built at run time with `repr`), and `with` over a context
manager class of the module (`Tally`) whose `__exit__` suppresses one class and lets another
through.

Every exception the section raises is caught in the thread, so the launch ends normally and
each backend's outputs are compared with sim's as for any kernel; the value the section
leaves says which path each thread took. int32 arithmetic wraps, as the generator's does.
"""

from __future__ import annotations

from .grammar import SECTIONS, Grammar, aside

TALLY = '''class Tally:
    """A context manager of the kernel: enters with three times its value; its exit
    suppresses ValueError and lets every other exception through."""

    def __init__(self, v):
        self.v = v

    def __enter__(self):
        return self.v * 3

    def __exit__(self, exc_type, exc, tb):
        return exc_type is ValueError
'''

PICKY = '''def picky(v, fails):
    """Raises ValueError where `fails`, else gives `v` changed."""
    if fails:
        raise ValueError("picky")
    return v * 3 + 1
'''


def exceptions_section(g: Grammar) -> None:
    """One or two `try` statements, maybe in a loop, whose paths each leave a different mark
    on a new int32 variable."""
    r = g.r
    g.features.add("exceptions")
    x = g.fresh("ex")
    g.emit(f"{x} = {g.i32(1)}")
    looped = r.random() < 0.4
    if looped:
        g.emit(f"for {g.fresh('q')} in range({r.randint(1, 3)}):")
        g.depth += 1
    for _ in range(1 + (r.random() < 0.3)):
        _try(g, x)
    if looped:
        g.depth -= 1
    with aside(g, "messages"):  # (a stream of its own: the seeds' other draws are kept)
        if g.r.random() < 0.5:
            _messages(g, x)
    with aside(g, "assert_text"):  # (a stream of its own, as "messages")
        if g.r.random() < 0.4:
            _assert_text(g, x)
    g.declare(x, "i32")


def _assert_text(g: Grammar, x: str) -> None:
    """An `assert` whose message is built at run time from `repr`s of run-time numbers (#27),
    caught: the message's length says what the thread wrote (evaluated only where the test
    fails, as in Python)."""
    g.emit("try:")
    g.emit(f"    assert {g.boolean(1)}, 'x=' + repr({x}) + ' ' + repr({g.boolean(1)})")
    g.emit("except AssertionError as e:")
    g.emit(f"    {x} = {x} + len(str(e)) * 7")


def _messages(g: Grammar, x: str) -> None:
    """`str(e)` of an exception the body raises at one of several places, each with its own
    message (a short one, one long enough to be copied from a table, a KeyError's quoted
    one, a helper's)."""
    if PICKY not in g.helpers:
        g.helpers.append(PICKY)
    g.emit("try:")
    g.emit(f"    if {g.boolean(1)}:")
    g.emit("        raise ValueError('first')")
    g.emit(f"    {x} = picky({x}, {g.boolean(1)})")
    g.emit(f"    if {g.boolean(1)}:")
    g.emit("        raise KeyError('a longer message')")
    g.emit("except (ValueError, KeyError) as e:")
    g.emit(f"    {x} = {x} + len(str(e)) * 3 + (1 if str(e).endswith('e') else 0)")


def _try(g: Grammar, x: str) -> None:
    r = g.r
    catch_all = r.random() < 0.5  # an `except Exception:` catches the OverflowErrors
    kinds = ("ValueError", "KeyError") + (("OverflowError",) if catch_all else ())
    g.emit("try:")
    if r.random() < 0.5:
        if PICKY not in g.helpers:
            g.helpers.append(PICKY)
        g.emit(f"    {x} = picky({x}, {g.boolean(1)})")
    g.emit(f"    if {g.boolean(1)}:")
    g.emit(f"        raise {r.choice(kinds)}('drawn')")
    k = r.randrange(3)
    if k == 0:
        g.emit(f"    assert {g.boolean(1)}, 'drawn'")
    elif k == 1:
        if TALLY not in g.helpers:
            g.helpers.append(TALLY)
        w = g.fresh("w")
        g.emit(f"    with Tally({x}) as {w}:")
        g.emit(f"        {x} = {w} + {g.i32(1)}")
        first = r.choice(("ValueError", "KeyError"))
        g.emit(f"        if {g.boolean(1)}:")
        g.emit(f"            raise {first}('in with')")
        if r.random() < 0.5:  # both classes: __exit__'s exc_type is each one's own
            g.emit(f"        if {g.boolean(1)}:")
            g.emit(f"            raise {'KeyError' if first == 'ValueError' else 'ValueError'}"
                   "('also in with')")
        g.emit(f"        {x} = {x} ^ 5")
    g.emit(f"    {x} = {x} * 5 + {g.i32(1)}")
    g.emit("except ValueError:")
    g.emit(f"    {x} = {x} - 7")
    g.emit("except (AssertionError, KeyError) as e:")
    g.emit(f"    {x} = {x} + 11")
    if catch_all:
        g.emit("except Exception:")
        g.emit(f"    {x} = {x} * 3")
    if r.random() < 0.5:
        g.emit("else:")
        g.emit(f"    {x} = {x} ^ 3")
    g.emit("finally:")
    g.emit(f"    {x} = {x} + 1")


SECTIONS["exceptions"] = exceptions_section
