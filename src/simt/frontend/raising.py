"""Exceptions per thread: `raise`, `try`/`except`/`else`/`finally`, and the errors simt itself
detects (an index out of bounds, inside a `try` or where the bounds pass has no proof:
`check_index`; a failed `assert`, a division by zero under `division="python"`), lowered
without any jump: a per-thread error state checked as
structured control flow, as `return` and `break` are (translate.py's flags).

The state is four variables of the environment, carried through `if`s and loops like any
other variable:

- `$raised` (bool): the thread is raising. It is one of the front end's exit flags: after a
  statement that may have set it, the rest of the statement list runs under `if not exited`,
  and a loop whose body may raise tests it in its condition (loops.py), so a raising thread
  leaves every loop and skips every statement up to the `try` that catches it.
- `$exc` (int32): the raise site, a number naming the exception's class, message and line
  (`Site`, listed in `Context.sites`; 1 is the first site).
- `$exa`, `$exb` (int64): the payload words of sites whose message holds run-time numbers
  (an IndexError's index and the axis' length).

A `try` tests `$raised` and `$exc` after its body: a handler runs where the site's class is
one it names (the sites that can reach it are known at compile time), and clears the state.
What no handler catches reaches the kernel's end, where `epilogue` writes one record per
raising thread into the launch's failure buffer (a hidden int32 array parameter,
`FAILURES`), which the host reads after the launch to raise one grouped `KernelError`
(`simt.errors.ThreadFailure`). A thread that raises without a `try` around it also gets an
`exit` op: like a thread that returned, it does not arrive at later barriers.

The public entry for a construct that raises a built-in exception is `raise_builtin(tr, cls,
fails, message, node, payload)`.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import types as T
from ..errors import KernelError, ThreadFailure
from ..ir import Block, Loc, Param, Value
from ..ir.nodes import FAILURE_BUFFER, Hidden
from .context import Translating
from .scalars import coerce
from .values import UNDEF, Known, Obj, V

RAISED, EXC, EXA, EXB = "$raised", "$exc", "$exa", "$exb"
STATE = (RAISED, EXC, EXA, EXB)
PAYLOAD_TYPE = T.INT64  # (int32 in a kernel without 64-bit integers: `payload_type`)
#: the failure buffer's parameter name, and the words of one record in it
FAILURES = FAILURE_BUFFER
RECORD = ("bx", "by", "bz", "tx", "ty", "tz", "site", "a_lo", "a_hi", "b_lo", "b_hi")
#: records kept per launch (every raising thread is counted, the first this many listed)
CAPACITY = 1024
#: characters kept of each record's message built at run time (`raise ValueError(s)`): a
#: kernel with such a raise has a text area of this many words per record after the records
TEXT_WORDS = 120


@dataclass(frozen=True)
class Site:
    """A place that raises: the exception's class, its message (literal text and payload
    word numbers: 0 is `$exa`, 1 `$exb`) and the user's line."""

    cls: type
    parts: tuple[str | int, ...]
    filename: str
    line: int
    source_line: str
    # the exception object a `raise` builds at compile time (its attributes: `e.code`)
    instance: BaseException | None = None
    # the message is a string built at run time (`raise ValueError(s)`): the payload is its
    # offset and length in the thread's arena, the epilogue copies it into the text area;
    # `parts`, if any, are the text before and after it (a KeyError's quotes)
    text: bool = False

    def __deepcopy__(self, memo: dict[int, object]) -> Site:
        return self  # immutable (a pass copying the IR shares it; exceptions may not copy)

    def message(self, payload: tuple[int, int] = (0, 0)) -> str:
        return "".join(p if isinstance(p, str) else str(payload[p]) for p in self.parts)


# a text site's `parts` (`Site.text`) saying its message is the repr of the text: a KeyError
# of a dict's string key (`str(KeyError(k))` is `repr(k)`: quoted, and escaped where needed)
QUOTED_TEXT = ("'", "'")


def quoted_suffix(parts: tuple[str | int, ...]) -> str | None:
    """Where a text site's message is the repr of its text (`QUOTED_TEXT`, maybe followed by
    more literal text: a list of strings' `'w' is not in list`), the text after the repr;
    None for another site."""
    if parts[:2] != QUOTED_TEXT:
        return None
    return "".join(str(p) for p in parts[2:])


class RaisedText:
    """An exception built with a message made at run time (`ValueError(s)`,
    `ValueError(f"bad {i}")`, made by calls.py): an `Obj` of this class with fields `cls`
    (the known class) and `off`, `n` (the int32 offset and length of the message's characters
    in the thread's arena, as `strings.py` keeps them)."""


@dataclass(frozen=True)
class RunTimeText:
    """A part of a caught exception's message (`message_parts`) that is the run-time string
    at `off`, `n` (its caller makes the string value of it)."""

    off: V
    n: V


class Caught:
    """The value `e` of `except ... as e`: an `Obj` of this class with fields `exc` (the site),
    `a`, `b` (the payload) and `sites` (a known tuple of the site numbers it can be)."""


def buffer_words(nsites: int, text: bool = False) -> int:
    """The failure buffer's length in int32 words: the count of raising threads, one count per
    site, then `CAPACITY` records (and, when a site's message is built at run time, `text`,
    `TEXT_WORDS` characters of each record's message)."""
    return 1 + nsites + CAPACITY * len(RECORD) + (CAPACITY * TEXT_WORDS if text else 0)


# ---------------------------------------------------------------- the state
def flag(tr: Translating) -> V:
    return tr.env.get(RAISED, Known(False))


def may_raise(tr: Translating) -> bool:
    """Whether the thread may be raising here (its flag is not known to be False)."""
    f = flag(tr)
    return not (isinstance(f, Known) and not f.value)


def site(
    tr: Translating,
    cls: type,
    parts: tuple[str | int, ...],
    node: ast.AST | None,
    instance: BaseException | None = None,
    text: bool = False,
) -> int:
    """The number of the raise site of `cls` with message `parts` at `node` (None: the
    location of the ops made now) — one number for the same class, message and place, however
    often the body is translated. `text`: the message is a string built at run time."""
    loc = tr.src.loc(node) if node is not None else tr.b.loc
    assert loc is not None
    key = (cls, parts, loc.filename, loc.line, loc.col, text)
    sid = tr.ctx.site_ids.get(key)
    if sid is None:
        tr.ctx.sites.append(
            Site(cls, parts, loc.filename, loc.line, loc.source_line or "", instance, text)
        )
        sid = tr.ctx.site_ids[key] = len(tr.ctx.sites)
    tr.ctx.site_log.append(sid)
    return sid


def site_mark(tr: Translating) -> int:
    """Where the site log is now: `sites_since(tr, mark)` after translating a body gives the
    sites the body can raise."""
    return len(tr.ctx.site_log)


def sites_since(tr: Translating, mark: int) -> list[int]:
    """The sites used since `site_mark` gave `mark` (each once, in number order)."""
    return sorted(set(tr.ctx.site_log[mark:]))


def _typed(tr: Translating, v: V, t: T.Scalar) -> Value:
    if isinstance(v, Known):
        return tr.const(v.value, t)
    assert isinstance(v, Value)
    return coerce(tr.b, v, t)


def payload_type(tr: Translating) -> T.Scalar:
    """The type of the payload words `$exa`, `$exb`: int64, or int32 where the kernel is
    translated without 64-bit integers (`Context.payload32`: a device without int64, as
    WebGPU through OpenGL, then still runs its IndexError checks)."""
    return T.INT32 if tr.ctx.payload32 else PAYLOAD_TYPE


def state_value(tr: Translating, name: str, v: V | None) -> Value:
    """The value of state variable `name` (one of `STATE`) as a typed value (`v` None: its
    initial value), for a branch made outside `Translating.branch` to yield."""
    t = T.BOOL if name == RAISED else T.INT32 if name == EXC else payload_type(tr)
    if v is None or v is UNDEF:
        v = Known(False) if name == RAISED else Known(0)
    return _typed(tr, v, t)


def set_state(
    tr: Translating, sid: int, fails: Value | None, payload: tuple[V, V] = (Known(0), Known(0))
) -> None:
    """The thread raises at site `sid` where `fails` holds (always, when None), unless it is
    raising already (the first exception wins, as the second would not have run)."""
    before = flag(tr)
    new = [Known(sid), *payload]
    _stores_at_raise(tr, fails)
    if fails is None and not may_raise(tr):
        for name, v in zip((EXC, EXA, EXB), new):
            tr.env[name] = v
        tr.env[RAISED] = Known(True)
    else:
        take: Value | None = fails
        if isinstance(before, Value):
            fresh = tr.b.un("not", before)
            take = fresh if take is None else tr.b.bin("and", take, fresh)
        elif isinstance(before, Known) and before.value:
            return  # raising already
        assert take is not None
        pt = payload_type(tr)
        for name, v, t in zip((EXC, EXA, EXB), new, (T.INT32, pt, pt)):
            old = tr.env.get(name, Known(0))
            if isinstance(v, Known) and isinstance(old, Known) and v.value == old.value:
                continue
            tr.env[name] = tr.b.select(take, _typed(tr, v, t), _typed(tr, old, t))
        if fails is None:
            tr.env[RAISED] = Known(True)
        elif isinstance(before, Value):
            tr.env[RAISED] = tr.b.bin("or", before, fails)
        else:
            tr.env[RAISED] = fails
    if tr.ctx.try_depth == 0 and not tr.ctx.raise_after:
        # nothing can catch it: the thread leaves (barriers count it out; a kernel without
        # barriers or warp functions needs no `exit`: `pipeline.finish` drops them)
        if fails is None:
            tr.b.op("exit", [])
        else:
            tb = Block()
            with tr.b.at(tb):
                tr.b.op("exit", [])
                tr.b.op("yield", [])
            eb = Block()
            eb.ops.append(_yield_nothing(tr))
            tr.b.op("if", [fails], [], [tb, eb])


def _stores_at_raise(tr: Translating, fails: Value | None) -> None:
    """In a REPL kernel, what the statement changed before this raise is kept by the thread
    (`checkpoint.at_raise`, through `Context.checkpoint`): where `fails` holds (always: None)
    and the thread is not raising already, here or in a caller."""
    if tr.ctx.checkpoint is None:
        return
    f = any_raising(tr)
    when: V = Known(True) if fails is None else fails
    if isinstance(f, Known):
        if f.value:
            return
    else:
        fresh = tr.b.un("not", f)  # type: ignore[arg-type]
        when = fresh if fails is None else tr.b.bin("and", fails, fresh)
    tr.ctx.checkpoint.at_raise(tr, when)


def _yield_nothing(tr: Translating):  # type: ignore[no-untyped-def]
    from ..ir import Op

    return Op("yield", [], [], {}, [], tr.b.loc)


def raise_builtin(
    tr: Translating,
    cls: type,
    fails: Value | None,
    message: str | tuple[str | int, ...],
    node: ast.AST | None,
    payload: tuple[V, V] = (Known(0), Known(0)),
) -> None:
    """The public entry for a construct that raises a built-in exception (`IndexError`,
    `MemoryError`, ...): the thread raises `cls(message)` at `node` where `fails` holds
    (always, when None). `message` may hold payload words (0: the first value of `payload`,
    1: the second), run-time int64 numbers shown in the message (`("index ", 0, " ...")`)."""
    parts = (message,) if isinstance(message, str) else tuple(message)
    set_state(tr, site(tr, cls, parts, node), fails, payload)


def enter_call(tr: Translating, callee_env: dict[str, V]) -> V:
    """Before inlining a call: the callee starts not raising (its statements are translated
    as Python runs them); where the caller may be raising already (an earlier part of the same
    statement raised: `f(a[i])` in a `try`), that flag is kept in `Context.raising_outer`, so
    the callee's effects are skipped there (`any_raising`). Returns the caller's flag."""
    outer = flag(tr)
    for name in STATE:
        callee_env[name] = Known(False) if name == RAISED else Known(0)
    tr.ctx.raising_outer.append(outer)
    return outer


def leave_call(tr: Translating, outer: V, callee_env: dict[str, V]) -> None:
    """After inlining a call: the caller is raising where it was or where the callee raised;
    the earlier exception wins."""
    tr.ctx.raising_outer.pop()
    inner = callee_env.get(RAISED, Known(False))
    if isinstance(inner, Known) and not inner.value:
        return
    if isinstance(outer, Known) and not outer.value:
        for name in STATE:
            tr.env[name] = callee_env.get(name, Known(0))
        return
    if isinstance(outer, Known):
        return  # raising for sure already
    assert isinstance(outer, Value)
    pt = payload_type(tr)
    for name, t in zip((EXC, EXA, EXB), (T.INT32, pt, pt)):
        mine, theirs = tr.env.get(name, Known(0)), callee_env.get(name, Known(0))
        if isinstance(mine, Known) and isinstance(theirs, Known) and mine.value == theirs.value:
            continue
        tr.env[name] = tr.b.select(outer, _typed(tr, mine, t), _typed(tr, theirs, t))
    tr.env[RAISED] = (
        Known(True) if isinstance(inner, Known) else tr.b.bin("or", outer, inner)  # type: ignore[arg-type]
    )


def any_raising(tr: Translating) -> V:
    """Whether the thread is raising here or in a caller whose call this is part of."""
    acc = flag(tr)
    for f in tr.ctx.raising_outer:
        if isinstance(f, Known):
            if f.value:
                return Known(True)
            continue
        if isinstance(acc, Known):
            acc = Known(True) if acc.value else f
        else:
            acc = tr.b.bin("or", acc, f)  # type: ignore[arg-type]
    return acc


def guard_effect(tr: Translating, emit: Callable[[], None]) -> None:
    """Emit an effect (a store, an atomic, a print) only where the thread is not raising:
    in `a[i] = f(x)`, a raise inside `f` skips the store."""
    f = any_raising(tr)
    if isinstance(f, Known):
        if not f.value:
            emit()
        return
    assert isinstance(f, Value)
    saved = dict(tr.env)
    tb, eb = Block(), Block()
    with tr.b.at(tb):
        emit()
        tr.b.op("yield", [])
    eb.ops.append(_yield_nothing(tr))
    tr.b.op("if", [tr.b.un("not", f)], [], [tb, eb])
    tr.env = saved


def guarded_value(tr: Translating, ok: Value, make: Callable[[], Value], t: T.Scalar) -> Value:
    """`make()` where `ok` holds, else a zero of type `t` (the value of a failed load: never
    used, as the thread is raising)."""
    tb, eb = Block(), Block()
    with tr.b.at(tb):
        v = make()
        tr.b.op("yield", [v])
    with tr.b.at(eb):
        tr.b.op("yield", [tr.b.const(0, v.type)])  # type: ignore[arg-type]
    return tr.b.op("if", [ok], [v.type], [tb, eb]).result


# ---------------------------------------------------------------- checks simt makes
def place_of(loc: Loc | None) -> tuple[str, int, int] | None:
    """The key naming an access's place in `Context.raise_at` (its op's location)."""
    return None if loc is None else (loc.filename, loc.line, loc.col)


def checks_here(tr: Translating) -> bool:
    """Whether the access made now raises IndexError when out of bounds: inside a `try`, and
    outside one where the kernel is translated with the access's place in
    `Context.raise_at` (`pipeline.build`: the accesses the bounds pass cannot prove)."""
    if tr.ctx.try_depth > 0:
        return True
    if getattr(tr, "library", False):
        return False  # simt's own code (its accesses are the backends' to check)
    at = tr.ctx.raise_at
    return at is True or (bool(at) and place_of(tr.b.loc) in at)


def check_index(
    tr: Translating, arr: Value, idx: list[Value], node: ast.AST | None = None
) -> Value | None:
    """The IndexError of `arr[idx]` as the thread's state, where the access checks here
    (`checks_here`). Returns the condition under which the access is in bounds (None: not
    checked here: proven in bounds by the bounds pass, or a kernel compiled without
    checks). The two comparisons of each index carry `check` ("lower": `i >= 0`, "upper":
    `i < n`) and `array` (its name), for the bounds pass, which replaces those it proves by
    True (`passes.bounds`)."""
    if not checks_here(tr):
        return None
    at = arr.array
    name = arr.hint or "array"
    ok_all: Value | None = None
    for k, i in enumerate(idx):
        n = tr.b.op("shape", [arr], [at.index], dim=k).result
        it = i.scalar
        wide = T.INT64 if (it.bits == 64 or at.index.bits == 64) else T.INT32
        # (an unsigned 32- or 64-bit index compares in int64: no value of it wraps negative)
        iv = coerce(tr.b, i, T.INT64 if it.kind == "u" and it.bits >= 32 else wide)
        nv = coerce(tr.b, n, iv.scalar)
        low = tr.b.op("cmp", [iv, tr.b.const(0, iv.scalar)], [T.BOOL], op="ge", check="lower",
                      array=name).result  # fmt: skip
        high = tr.b.op("cmp", [iv, nv], [T.BOOL], op="lt", check="upper", array=name).result
        ok = tr.b.bin("and", low, high)
        bad = tr.b.un("not", ok)
        axis = f" for axis {k}" if len(idx) > 1 else ""
        parts: tuple[str | int, ...] = (
            "index ", 0, f" is out of bounds{axis} of `{name}` with size ", 1,
        )  # fmt: skip
        raise_builtin(
            tr, IndexError, bad, parts, node,
            (coerce(tr.b, iv, payload_type(tr)), coerce(tr.b, nv, payload_type(tr))),
        )  # fmt: skip
        ok_all = ok if ok_all is None else tr.b.bin("and", ok_all, ok)
    return ok_all


def check_divisor(tr: Translating, op: str, divisor: Value, node: ast.AST) -> None:
    """Under `division="python"`: `/`, `//` and `%` by zero raise ZeroDivisionError."""
    if tr.ctx.division != "python":
        return
    zero = tr.b.cmp("eq", divisor, tr.b.const(0, divisor.scalar))
    what = {
        "div": "division by zero",
        "floordiv": "integer division or modulo by zero",
        "mod": "integer modulo by zero",
    }[op]
    if divisor.scalar.is_float:
        what = {"div": "float division by zero", "floordiv": "float floor division by zero",
                "mod": "float modulo"}[op]  # fmt: skip
    raise_builtin(tr, ZeroDivisionError, zero, what, node)


# ---------------------------------------------------------------- statements
def _exception_of(tr: Translating, v: V, node: ast.AST) -> BaseException:
    if isinstance(v, Known):
        x = v.value
        if isinstance(x, type) and issubclass(x, BaseException):
            try:
                return x()
            except Exception as e:  # noqa: BLE001 - the user's class would not build
                tr.fail(node, f"{x.__name__}() cannot be built at compile time: {e}")
        if isinstance(x, BaseException):
            return x
    tr.fail(
        node,
        "a kernel raises an exception class or an exception built from values known at "
        "compile time",
        "give the message as a string literal: raise ValueError('negative input'); print "
        "run-time values before raising",
    )


def stmt_raise(tr: Translating, node: ast.Raise) -> None:
    if node.exc is None:  # re-raise the exception being handled
        if not tr.ctx.handling:
            tr.fail(node, "`raise` with no exception outside an `except` block")
        caught = tr.ctx.handling[-1]
        before = flag(tr)
        if isinstance(before, Known) and before.value:
            return
        _stores_at_raise(tr, None)
        for name in (EXC, EXA, EXB):
            tr.env[name] = caught[_field(name)]
        tr.env[RAISED] = Known(True)
        if tr.ctx.try_depth == 0:
            tr.b.op("exit", [])
        return
    v = tr.expr(node.exc)
    if isinstance(v, Obj) and v.cls is RaisedText:  # a message built at run time
        raise_text(tr, v, node)
        return
    exc = _exception_of(tr, v, node.exc)
    text = str(exc)
    set_state(tr, site(tr, type(exc), (text,), node, exc), None)


def raise_text(tr: Translating, v: Obj, node: ast.AST) -> None:
    """Raise the exception `v` (a `RaisedText`: its message a string built at run time)."""
    cls = v.get("cls").value
    sid = site(tr, cls, (), node, None, text=True)
    set_state(tr, sid, None, (v.get("off"), v.get("n")))


def _field(name: str) -> str:
    return {EXC: "exc", EXA: "a", EXB: "b"}[name]


def _handler_classes(tr: Translating, h: ast.ExceptHandler) -> tuple[type, ...]:
    if h.type is None:
        return (BaseException,)
    v = tr.expr(h.type)
    items = v.value if isinstance(v, Known) and isinstance(v.value, tuple) else (
        v.value if isinstance(v, Known) else None,
    )
    if items is None or not all(
        isinstance(c, type) and issubclass(c, BaseException) for c in items
    ):
        tr.fail(h.type, "an `except` names exception classes (or a tuple of them) known at "
                "compile time")  # fmt: skip
    return tuple(items)


def stmt_try(tr: Translating, node: ast.Try) -> None:
    """`try`/`except`/`else`/`finally`: the body runs with the try depth raised; then each
    handler where the state's site is of a class it names; `else` where the body neither
    raised nor left; `finally` on every path, the state (and return/break/continue) kept
    across it."""
    mark = site_mark(tr)
    tr.ctx.try_depth += 1
    try:
        tr.stmts(node.body)
    finally:
        tr.ctx.try_depth -= 1
    body_sites = sites_since(tr, mark)
    if node.orelse:
        state = tr.exit_state()
        if state == "none":
            _protected(tr, bool(node.finalbody), lambda: tr.stmts(node.orelse))
        elif state == "maybe":
            tr.branch(
                tr.not_exited(),
                lambda: _protected(
                    tr, bool(node.finalbody), lambda: tr.stmts_not_exited(node.orelse)
                ),
                lambda: None,
            )
    _handlers(tr, node, body_sites)
    if node.finalbody:
        _finally(tr, node.finalbody)
    if tr.ctx.try_depth == 0:
        exit_if_raising(tr)


def _protected(tr: Translating, by_finally: bool, body: Callable[[], None]) -> None:
    """Run `body` (an `else` or a handler): not under this `try`'s handlers, but a raise in it
    still passes this `try`'s `finally` before leaving the thread."""
    if by_finally:
        tr.ctx.try_depth += 1
    try:
        body()
    finally:
        if by_finally:
            tr.ctx.try_depth -= 1


def exit_if_raising(tr: Translating) -> None:
    """A thread still raising after the outermost `try` leaves (barriers count it out)."""
    f = flag(tr)
    if isinstance(f, Known):
        if f.value:
            tr.b.op("exit", [])
        return
    assert isinstance(f, Value)
    tb, eb = Block(), Block()
    with tr.b.at(tb):
        tr.b.op("exit", [])
        tr.b.op("yield", [])
    eb.ops.append(_yield_nothing(tr))
    tr.b.op("if", [f], [], [tb, eb])


def _handlers(tr: Translating, node: ast.Try, body_sites: list[int]) -> None:
    remaining = list(body_sites)
    ran = False
    for h in node.handlers:
        classes = _handler_classes(tr, h)
        f = flag(tr)
        if isinstance(f, Known) and not f.value:
            return  # nothing raised in the body: the handlers never run
        matched = [s for s in remaining if issubclass(tr.ctx.sites[s - 1].cls, classes)]
        if not matched:
            continue
        remaining = [s for s in remaining if s not in matched]
        exc = tr.env.get(EXC, Known(0))
        if isinstance(exc, Known):
            if exc.value not in matched:
                continue
            if isinstance(f, Known):  # raising for sure, at a known site
                _run_handler(tr, h, matched, bool(node.finalbody))
                return
            cond: Value = f  # type: ignore[assignment]
        else:
            test = _site_test(tr, exc, matched)
            whole = not ran and len(matched) == len(body_sites)
            if isinstance(f, Value):
                cond = f if whole else tr.b.bin("and", f, test)
            else:
                cond = test
        ran = True
        tr.branch(
            cond,
            lambda h=h, m=matched: _run_handler(tr, h, m, bool(node.finalbody)),  # type: ignore[misc]
            lambda: None,
        )


def _site_test(tr: Translating, exc: V, sites: list[int]) -> Value:
    e = _typed(tr, exc, T.INT32)
    acc: Value | None = None
    for s in sites:
        c = tr.b.cmp("eq", e, tr.b.const(s, T.INT32))
        acc = c if acc is None else tr.b.bin("or", acc, c)
    assert acc is not None
    return acc


def reraise(tr: Translating, saved: dict[str, V], cond: Value | None, own: V) -> None:
    """Raise the exception whose state was `saved` again where `cond` holds (always: None),
    unless an exception raised since (`own`: the flag now) replaces it."""
    if isinstance(own, Known) and own.value:
        return
    take = cond
    if isinstance(own, Value):
        fresh = tr.b.un("not", own)
        take = fresh if take is None else tr.b.bin("and", take, fresh)
    if take is None:
        tr.env[RAISED] = Known(True)
        for n, v in saved.items():
            tr.env[n] = v
        return
    tr.env[RAISED] = take if not isinstance(own, Value) else tr.b.bin("or", own, take)
    for n, v in saved.items():
        t = T.INT32 if n == EXC else payload_type(tr)
        cur = tr.env.get(n, Known(0))
        if isinstance(cur, Known) and isinstance(v, Known) and cur.value == v.value:
            continue
        tr.env[n] = tr.b.select(take, _typed(tr, v, t), _typed(tr, cur, t))


def caught_now(tr: Translating, sites: list[int]) -> Obj:
    """The exception being raised now, as the value `e` of `except ... as e` (one of `sites`)."""
    exc = tr.env.get(EXC, Known(0)) if len(sites) != 1 else Known(sites[0])
    return Obj(
        Caught,
        (("exc", exc), ("a", tr.env.get(EXA, Known(0))), ("b", tr.env.get(EXB, Known(0))),
         ("sites", Known(tuple(sites)))),
    )  # fmt: skip


def by_class(tr: Translating, sites: list[int]) -> list[tuple[type, list[int]]]:
    """`sites` grouped by the class each raises (in site order): `type(e)` is known in each
    group (`__exit__(exc_type, ...)` runs once per group, under `raising_at`)."""
    groups: dict[type, list[int]] = {}
    for s in sites:
        groups.setdefault(tr.ctx.sites[s - 1].cls, []).append(s)
    return list(groups.items())


def site_test(tr: Translating, exc: V, sites: list[int]) -> Value:
    """Whether the site number `exc` is one of `sites`."""
    return _site_test(tr, exc, sites)


def raising_at(tr: Translating, sites: list[int]) -> Value:
    """Whether the exception being raised now comes from one of `sites`."""
    return _site_test(tr, tr.env.get(EXC, Known(0)), sites)


def _run_handler(tr: Translating, h: ast.ExceptHandler, sites: list[int], fin: bool) -> None:
    caught = {
        "exc": tr.env.get(EXC, Known(0)),
        "a": tr.env.get(EXA, Known(0)),
        "b": tr.env.get(EXB, Known(0)),
    }
    if len(sites) == 1:
        caught["exc"] = Known(sites[0])
    tr.clear_flags()
    tr.env[RAISED] = Known(False)
    tr.env[EXC], tr.env[EXA], tr.env[EXB] = Known(0), Known(0), Known(0)
    if h.name is not None:
        tr.env[h.name] = Obj(
            Caught,
            (("exc", caught["exc"]), ("a", caught["a"]), ("b", caught["b"]),
             ("sites", Known(tuple(sites)))),
        )  # fmt: skip
    tr.ctx.handling.append(caught)
    try:
        _protected(tr, fin, lambda: tr.stmts(h.body))
    finally:
        tr.ctx.handling.pop()
    if h.name is not None:
        tr.env[h.name] = UNDEF  # Python deletes the name at the handler's end


def _finally(tr: Translating, body: list[ast.stmt]) -> None:
    """`finally`: runs on every path (`always`)."""
    always(tr, lambda: tr.stmts(body))


def always(tr: Translating, run: Callable[[], None]) -> None:
    """Translate `run` (a `finally` block, a context manager's `__exit__`) for every path: the
    exit flags and the raising state from before it hold after it, unless it raised (or
    returned, broke, continued) itself."""
    names = [n for n in (*tr.flag_names(), RAISED) if n in tr.env and tr.env[n] is not UNDEF]
    kept = {n: tr.env[n] for n in names}
    kept_state = {n: tr.env.get(n, Known(0)) for n in (EXC, EXA, EXB)}
    for n in names:
        tr.env[n] = Known(False)
    run()
    own = tr.env.get(RAISED, Known(False))  # whether the finally block raised itself
    # whether it returned, broke or continued itself: as Python, that drops an exception in
    # flight (`return` in `finally` wins)
    left: V = Known(False)
    for n in names:
        if n != RAISED:
            left = _either(tr, left, tr.env.get(n, Known(False)))
    if RAISED in kept and not (isinstance(left, Known) and not left.value):
        kept[RAISED] = _both(tr, kept[RAISED], _negated(tr, left))
    if RAISED in kept and tr.ctx.checkpoint is not None:
        # an exception the block let pass: what it assigned is kept too (`checkpoint`)
        tr.ctx.checkpoint.at_raise(tr, _both(tr, kept[RAISED], _negated(tr, own)))
    for n in names:
        old, new = kept[n], tr.env.get(n, Known(False))
        if isinstance(new, Known):
            if not new.value:
                tr.env[n] = old
        elif isinstance(old, Known):
            tr.env[n] = Known(True) if old.value else new
        else:
            tr.env[n] = tr.b.bin("or", old, new)  # type: ignore[arg-type]
    for n in (EXC, EXA, EXB):
        cur, old = tr.env.get(n, Known(0)), kept_state[n]
        if isinstance(own, Known):
            if not own.value:
                tr.env[n] = old
        elif not (isinstance(cur, Known) and isinstance(old, Known) and cur.value == old.value):
            assert isinstance(own, Value)
            t = T.INT32 if n == EXC else payload_type(tr)
            tr.env[n] = tr.b.select(own, _typed(tr, cur, t), _typed(tr, old, t))


def _either(tr: Translating, a: V, c: V) -> V:
    if isinstance(a, Known) or isinstance(c, Known):
        k, other = (a, c) if isinstance(a, Known) else (c, a)
        return Known(True) if k.value else other  # type: ignore[union-attr]
    return tr.b.bin("or", a, c)  # type: ignore[arg-type]


def _both(tr: Translating, a: V, c: V) -> V:
    if isinstance(a, Known) or isinstance(c, Known):
        k, other = (a, c) if isinstance(a, Known) else (c, a)
        return other if k.value else Known(False)  # type: ignore[union-attr]
    return tr.b.bin("and", a, c)  # type: ignore[arg-type]


def _negated(tr: Translating, a: V) -> V:
    return Known(not a.value) if isinstance(a, Known) else tr.b.un("not", a)  # type: ignore[arg-type]


# ---------------------------------------------------------------- the kernel's end
def epilogue(tr: Translating) -> Param | None:
    """At the kernel's end: each thread still raising writes its record into the failure
    buffer. Returns the buffer's parameter (None when nothing can reach the end raising)."""
    f = flag(tr)
    if isinstance(f, Known) and not f.value:
        return None
    nsites = len(tr.ctx.sites)
    texts = [k for k, s in enumerate(tr.ctx.sites, 1) if s.text]
    buf = Value(T.ArrayType(T.INT32, 1), FAILURES)
    b = tr.b

    # (the buffer is `buffer_words(nsites)` long: its accesses are in bounds by construction)

    def record() -> None:
        i32 = T.INT32
        one = b.const(1, i32)
        slot = b.op("atomic", [buf, b.const(0, i32), one], [i32], op="add", inbounds=True).result
        exc = _typed(tr, tr.env.get(EXC, Known(0)), i32)
        b.op("atomic", [buf, exc, one], [i32], op="add", inbounds=True)
        fits = b.cmp("lt", slot, b.const(CAPACITY, i32))
        tb, eb = Block(), Block()
        with b.at(tb):
            base = b.bin("add", b.bin("mul", slot, b.const(len(RECORD), i32)),
                         b.const(1 + nsites, i32))  # fmt: skip
            words: list[Value] = [
                *(b.special("block_idx", k) for k in range(3)),
                *(b.special("thread_idx", k) for k in range(3)),
                exc,
            ]
            for name in (EXA, EXB):
                pt = payload_type(tr)
                v = _typed(tr, tr.env.get(name, Known(0)), pt)
                if pt == T.INT32:  # the word itself, and its sign
                    words += [v, b.bin("shr", v, b.const(31, pt))]
                    continue
                lo = b.cast(b.bin("and", v, b.const(0xFFFFFFFF, pt)), T.UINT32)
                words.append(b.cast(lo, i32))
                words.append(b.cast(b.bin("shr", v, b.const(32, pt)), i32))
            for k, w in enumerate(words):
                at = b.bin("add", base, b.const(k, i32))
                b.op("atomic", [buf, at, w], [i32], op="exch", inbounds=True)
            if texts:
                _copy_text(tr, buf, slot, exc, texts, nsites)
            b.op("yield", [])
        eb.ops.append(_yield_nothing(tr))
        b.op("if", [fits], [], [tb, eb])

    if isinstance(f, Known):
        record()
    else:
        assert isinstance(f, Value)
        tb, eb = Block(), Block()
        with b.at(tb):
            record()
            b.op("yield", [])
        eb.ops.append(_yield_nothing(tr))
        # `record`: the CPU renderer makes it after a vectorised thread loop (llvm_failures.py)
        b.op("if", [f], [], [tb, eb], record=True)
    return Param.made(Hidden.FAILURES, buf)


def _copy_text(tr: Translating, buf: Value, slot: Value, exc: Value, texts: list[int],
               nsites: int) -> None:  # fmt: skip
    """A record whose site's message is built at run time: up to `TEXT_WORDS` of its
    characters (code points in the thread's int32 arena) into the record's text words."""
    b, i32 = tr.b, T.INT32
    ar = tr.ctx.arena
    assert ar is not None  # a run-time string lives there
    off = _typed(tr, tr.env.get(EXA, Known(0)), i32)
    n = b.bin("min", _typed(tr, tr.env.get(EXB, Known(0)), i32), b.const(TEXT_WORDS, i32))
    start = b.bin("add", b.bin("mul", slot, b.const(TEXT_WORDS, i32)),
                  b.const(1 + nsites + CAPACITY * len(RECORD), i32))  # fmt: skip
    blk = Block()
    k = Value(i32, "k")
    blk.args.append(k)
    with b.at(blk):
        c = ar.load(b, i32, b.bin("add", off, k))
        b.op("atomic", [buf, b.bin("add", start, k), c], [i32], op="exch", inbounds=True)
        b.op("yield", [])
    tb, eb = Block(), Block()
    with b.at(tb):
        b.op("for", [b.const(0, i32), n, b.const(1, i32)], [], [blk], sign=1)
        b.op("yield", [])
    eb.ops.append(_yield_nothing(tr))
    b.op("if", [_site_test(tr, exc, texts)], [], [tb, eb])


def is_exception_class(x: object) -> bool:
    return isinstance(x, type) and issubclass(x, BaseException)


BUILTIN_EXCEPTIONS = {
    n: getattr(builtins, n) for n in dir(builtins) if is_exception_class(getattr(builtins, n))
}


# ---------------------------------------------------------------- `e` in a handler
def is_caught(v: object) -> bool:
    return isinstance(v, Obj) and v.cls is Caught


def caught_sites(e: Obj) -> tuple[int, ...]:
    return tuple(e.get("sites").value)


class Split(Exception):
    """Raised while printing a caught exception that can come from several sites: the print
    is made once per site, under a test of the site (`each_site`)."""

    def __init__(self, caught: Obj) -> None:
        super().__init__("split")
        self.caught = caught


def message_parts(tr: Translating, e: Obj) -> list[str | tuple[Value, str]]:
    """`str(e)` as print parts: the site's text and its payload words. A caught exception
    that may come from several sites raises `Split`."""
    sites = caught_sites(e)
    if len(sites) != 1:
        raise Split(e)
    s = tr.ctx.sites[sites[0] - 1]
    if s.text:
        around = (*s.parts, "", "")[:2]
        rest = [str(p) for p in s.parts[2:]]  # after a repr (`quoted_suffix`)
        return [around[0], RunTimeText(e.get("a"), e.get("b")), around[1], *rest]  # type: ignore[list-item]
    out: list[str | tuple[Value, str]] = []
    for p in s.parts:
        if isinstance(p, str):
            out.append(p)
            continue
        w = e.get("a" if p == 0 else "b")
        out.append(str(w.value) if isinstance(w, Known) else (w, ""))
    return out


def run_time_text(tr: Translating, e: Obj) -> RunTimeText | None:
    """`str(e)` of a caught exception whose every site's message is built at run time: where
    its characters are (None when a site's message is known)."""
    if not all(tr.ctx.sites[s - 1].text and not tr.ctx.sites[s - 1].parts
               for s in caught_sites(e)):  # fmt: skip
        return None
    return RunTimeText(e.get("a"), e.get("b"))


def each_site(tr: Translating, e: Obj, emit: Callable[[], None]) -> None:
    """Run `emit` once per site `e` may come from, under `if e's site == s`, with the
    variables holding `e` rebound to `e` narrowed to that one site."""
    exc = e.get("exc")
    names = {
        n: v for n, v in tr.env.items()
        if isinstance(v, Obj) and is_caught(v) and v.get("exc") is exc
        and caught_sites(v) == caught_sites(e)
    }  # fmt: skip
    for sid in caught_sites(e):

        def run(sid: int = sid) -> None:
            for n, v in names.items():
                tr.env[n] = v.with_field("sites", Known((sid,))).with_field("exc", Known(sid))  # type: ignore[union-attr]
            emit()
            for n, v in names.items():
                tr.env[n] = v

        if isinstance(exc, Known):
            if exc.value == sid:
                run()
            continue
        tr.branch(_site_test(tr, exc, [sid]), run, lambda: None)


def isinstance_of(tr: Translating, e: Obj, classes: tuple[type, ...]) -> V:
    """`isinstance(e, classes)` of a caught exception: known when its sites agree."""
    sites = caught_sites(e)
    hits = [s for s in sites if issubclass(tr.ctx.sites[s - 1].cls, classes)]
    if len(hits) == len(sites) or not hits:
        return Known(bool(hits))
    return _site_test(tr, e.get("exc"), hits)


def attribute(tr: Translating, e: Obj, attr: str, node: ast.AST) -> V:
    """`e.args`, `e.attr` of a caught exception: the attribute of the exception each site
    raises, known when they agree."""
    vals = []
    for sid in caught_sites(e):
        s = tr.ctx.sites[sid - 1]
        if attr == "__class__":
            vals.append(s.cls)
            continue
        inst = s.instance
        if inst is None or not hasattr(inst, attr):
            tr.fail(node, f"{s.cls.__name__} has no attribute known at compile time `{attr}`")
        vals.append(getattr(inst, attr))
    if all(v is vals[0] or v == vals[0] for v in vals):
        return Known(vals[0])
    tr.fail(node, f"`{attr}` differs between the exceptions this `except` can catch",
            "catch them in separate `except` clauses")  # fmt: skip


# ---------------------------------------------------------------- after the launch
def _text(chars: np.ndarray, n: int) -> str:
    """A message built at run time from its record's text words (`n` characters, of which
    the first `TEXT_WORDS` were kept)."""
    kept = "".join(chr(c) if 0 <= c <= 0x10FFFF else "\ufffd" for c in chars[: max(0, n)].tolist())
    return kept if n <= TEXT_WORDS else f"{kept}... ({n} characters, the first {TEXT_WORDS} kept)"


def decode(
    words: np.ndarray, sites: tuple[Site, ...], grid: tuple[int, int, int],
    block: tuple[int, int, int],
) -> KernelError | None:
    """The grouped KernelError of a launch whose failure buffer holds `words` (None when no
    thread raised)."""
    total = int(words[0])
    if total == 0:
        return None
    counts = words[1 : 1 + len(sites)]
    n = min(total, CAPACITY)
    at = 1 + len(sites)
    recs = words[at : at + CAPACITY * len(RECORD)].reshape(CAPACITY, len(RECORD))[:n]
    recs = recs.astype(np.int64)
    bx, by, bz, tx, ty, tz = (recs[:, k] for k in range(6))
    per_block = block[0] * block[1] * block[2]
    blin = bx + grid[0] * (by + grid[1] * bz)
    tlin = tx + block[0] * (ty + block[1] * tz)
    gid = blin * per_block + tlin
    a = (recs[:, 7] & 0xFFFFFFFF) | (recs[:, 8] << 32)
    b = (recs[:, 9] & 0xFFFFFFFF) | (recs[:, 10] << 32)
    text_at = 1 + len(sites) + CAPACITY * len(RECORD)  # the text area, where there is one
    failures: list[ThreadFailure] = []
    for k in np.argsort(gid, kind="stable"):
        s = sites[int(recs[k, 6]) - 1]
        if s.text:
            around = (*s.parts, "", "")[:2]
            message = _text(words[text_at + k * TEXT_WORDS :][: TEXT_WORDS], int(b[k]))
            suffix = quoted_suffix(s.parts)
            message = repr(message) + suffix if suffix is not None else \
                f"{around[0]}{message}{around[1]}"  # fmt: skip
        else:
            message = s.message((int(a[k]), int(b[k])))
        failures.append(ThreadFailure(
            int(gid[k]), (int(bx[k]), int(by[k]), int(bz[k])), (int(tx[k]), int(ty[k]), int(tz[k])),
            s.cls.__name__, message, s.filename, s.line,
        ))  # fmt: skip
    groups: list[tuple[ThreadFailure, int]] = []
    seen: dict[tuple[str, str, int], int] = {}
    count_of: dict[tuple[str, str, int], int] = {}
    for sid, s in enumerate(sites, 1):
        key = (s.cls.__name__, s.filename, s.line)
        count_of[key] = count_of.get(key, 0) + int(counts[sid - 1])
    for f in failures:
        key = (f.exception, f.filename, f.line)
        if key not in seen:
            seen[key] = len(groups)
            groups.append((f, count_of.get(key, 0)))
    threads = grid[0] * grid[1] * grid[2] * per_block
    lines = {(s.filename, s.line): s.source_line for s in sites}
    return KernelError.grouped(failures, groups, threads - total, lines)
