"""Files read per thread (#27 item 3): `open(path)` / `open(path, "r")` in a kernel, `with`,
`f.read()`, `f.read(k)`, `f.readline()`, `for line in f`, `f.close()`.

The host stages the files a kernel may open before each launch, into a read-only block after
the threads' regions of the int32 arena (`simt.filereads`, which states the rule: each
`open`'s path is a known string or an f-string, and every file matching it with its run-time
parts as `*` is staged). Here each `open` records its glob pattern (`Context.file_reads`),
builds the thread's path as a run-time string, and looks it up in the block: a hash of the
path (FNV-1a, as `filereads.path_hash`), a binary search of the sorted hashes, one string
comparison. A path that is not there raises FileNotFoundError in that thread (catchable).

The file object is an `Obj` of `filereads.KernelReader` with three int32 fields: `state`,
the arena word holding the thread's position in the file (-1 once closed; one word of the
heap per `open`), and `data`, `n`, where the file's characters are and how many. What
`read` and `readline` return are strings over the staged words themselves (nothing copied).
`for line in f` is rewritten as `while f._more(): line = f.readline()` on the syntax tree.
"""

from __future__ import annotations

import ast
import builtins
import codecs
import os
from collections.abc import Callable

import numpy as np

from .. import types as T
from ..errors import CompileError
from ..filereads import ENTRY, FNV_OFFSET, FNV_PRIME, HASH_MASK, HEADER, KernelReader, glob_of
from ..ir import Block, Value
from ..ir.nodes import heap_words
from . import raising, str_format, strings
from .arena import SINK
from .context import Translating
from .list_ops import fold
from .lists import arena, i32, raise_unless, when
from .scalars import coerce
from .values import Bound, Known, Obj, V

MODES = (None, "r", "rt", "tr")
# what an `open` takes of the heap, for its MemoryError: the word stays taken once the file is
# closed, so an `open` in a loop takes one each time round ("keep fewer" alone misleads there)
FILE_WORD = ("a file opened for reading (each open keeps one word of the heap until the thread "
             "ends, closed or not: open a file once, outside a loop, where you can)")  # fmt: skip


def is_reader(v: object) -> bool:
    return isinstance(v, Obj) and v.cls is KernelReader


def mode_of(tr: Translating, node: ast.Call) -> object:
    """The known mode of `open(...)` (None when not given)."""
    mode = node.args[1] if len(node.args) > 1 else next(
        (k.value for k in node.keywords if k.arg == "mode"), None)  # fmt: skip
    if mode is None:
        return None
    v = tr.expr(mode)
    if not isinstance(v, Known):
        tr.fail(mode, "open()'s mode must be known at compile time in a kernel")
    return v.value


Pieces = Callable[[Translating, ast.JoinedStr, bool], list[strings.Part]]


def open_call(tr: Translating, node: ast.Call, pieces: Pieces) -> V | None:
    """`open(...)` in a kernel that does not write: a file read per thread, or None for
    `open(known path, "rb")`, which reads while compiling (known bytes: a constant table).
    `pieces`: the f-string translator (`calls.fstring_parts`)."""
    mode = mode_of(tr, node)
    if isinstance(mode, str) and "b" in mode and "r" in mode and "+" not in mode and node.args:
        v = tr.expr(node.args[0])
        if isinstance(v, Known):
            return None
    return open_for_reading(tr, node, mode, pieces)


def open_for_reading(tr: Translating, node: ast.Call, mode: object, pieces: Pieces) -> V:
    """`open(path)` / `open(path, "r")` in a kernel: the thread's file among those staged."""
    if mode not in MODES:
        what = "binary mode" if isinstance(mode, str) and "b" in mode else f"mode {mode!r}"
        tr.fail(
            node,
            f"open(..., {mode!r}): {what} is not supported for files in a kernel, which reads "
            'text (open(path) or open(path, "r")) and writes text (open(path, "w") or "a")',
            'read binary data on the host (DATA = open(path, "rb").read() outside the kernel: '
            "a constant table) or pass it as an array argument",
        )
    extra = [k.arg for k in node.keywords if k.arg not in ("file", "mode", "encoding")]
    if len(node.args) > 2 or extra or not node.args and not node.keywords:
        tr.fail(node, "open() in a kernel takes a path (file=) and a mode (and "
                      "encoding='utf-8')")  # fmt: skip
    _utf8(tr, node)
    path_node = node.args[0] if node.args else next(
        (k.value for k in node.keywords if k.arg == "file"), None)  # fmt: skip
    if path_node is None:
        tr.fail(node, "open() needs a path")
    parts, path = _path(tr, path_node, pieces)
    if all(p is None for p in parts):
        tr.fail(
            path_node,
            "the path of open() for reading is all run-time text: the host cannot tell which "
            "files to stage for the kernel before the launch",
            "write the fixed parts in the f-string: open(f'data/{name}.txt')",
        )
    loc = tr.src.loc(node)
    pattern = (glob_of(parts), f"{loc.filename}:{loc.line}")
    if pattern not in tr.ctx.file_reads:
        tr.ctx.file_reads.append(pattern)
    tr.at(node)
    return _lookup(tr, path, node)


def _joins(tr: Translating, e: ast.Call) -> bool:
    """Whether the call is `os.path.join(...)`."""
    fn = tr.expr(e.func)
    return isinstance(fn, Known) and fn.value is os.path.join


def _utf8(tr: Translating, node: ast.Call) -> None:
    """Refuse an `encoding=` other than UTF-8's: the host stages every file as UTF-8 text, so
    another encoding would read other characters than Python does (latin-1's "Ã©" as "é")."""
    for k in node.keywords:
        if k.arg != "encoding":
            continue
        v = tr.expr(k.value)
        name = v.value if isinstance(v, Known) else None
        try:
            utf8 = isinstance(name, str) and codecs.lookup(name).name == "utf-8"
        except LookupError:
            utf8 = False
        if not utf8:
            tr.fail(
                k.value,
                f"open(..., encoding={name!r}): a kernel reads files as UTF-8 text only "
                "(encoding='utf-8' or none)",
                "convert the file to UTF-8 on the host first, or read its bytes there "
                '(DATA = open(path, "rb").read() outside the kernel: a constant table)',
            )


def _path(tr: Translating, e: ast.expr, pieces: Pieces) -> tuple[list[str | None], strings.Text]:
    """The path's literal parts (None: a run-time part) and its value."""
    if isinstance(e, ast.JoinedStr):
        got = pieces(tr, e, True)
        parts: list[str | None] = [p if isinstance(p, str) else None for p in got]
        if all(isinstance(p, str) for p in got):
            return parts, "".join(got)  # type: ignore[arg-type]
        tr.at(e)
        return parts, strings.text_of(strings.value_of(str_format.from_parts(tr, got, e)))
    if isinstance(e, ast.Call) and _joins(tr, e):  # os.path.join(folder, f"part{i}.txt")
        for a in e.args:
            if isinstance(a, ast.JoinedStr) and not all(
                isinstance(p, str) for p in pieces(tr, a, True)
            ):
                tr.fail(
                    a,
                    "os.path.join() runs in CPython while compiling, on strings known then, "
                    "and this f-string is made per thread",
                    "write the whole path as one f-string in the call: "
                    "open(f'{folder}/part{i}.txt') (the host stages the files it matches)",
                )
    v = tr.expr(e)
    if isinstance(v, Known) and isinstance(v.value, (str, os.PathLike)):
        return [str(v.value)], str(v.value)
    if strings.is_str(v):
        tr.fail(
            e,
            "open() for reading takes its path as a known string or an f-string written in the "
            "call: the host stages the files that match it before the launch, and a string "
            "built elsewhere does not say which",
            "write the f-string in the call: open(f'data/part{i}.txt')",
        )
    tr.fail(e, "open()'s path must be a string")


# ------------------------------------------------------------------------------- lookup
def block(tr: Translating) -> Value:
    """The offset of the staged files' block from this thread's region start (the block lies
    after every thread's region of the int32 arena: threads x words - region start)."""
    ar = arena(tr)
    if ar.files is None:
        b = tr.b
        ar.array(b, T.INT32)
        saved = b.loc
        b.loc = None
        with b.at(ar.prologue):
            n = b.special("block_dim", 0)
            for reg, axis in (("block_dim", 1), ("block_dim", 2), ("grid_dim", 0),
                              ("grid_dim", 1), ("grid_dim", 2)):  # fmt: skip
                n = b.bin("mul", n, b.special(reg, axis))
            words = b.const(heap_words(T.INT32, ar.heap), T.INT32)
            ar.files = b.bin("sub", b.bin("mul", n, words), ar.bases[T.INT32])
        b.loc = saved
    return ar.files


def _word(tr: Translating, at: Value) -> Value:
    return arena(tr).load(tr.b, T.INT32, at)


def path_hash(tr: Translating, s: strings.Text, seed: Value) -> Value:
    """`filereads.path_hash` of the string `s` on the device (uint32 arithmetic)."""
    b = tr.b
    u = T.UINT32
    h0 = b.bin("xor", b.const(FNV_OFFSET, u), b.cast(seed, u))

    def step(k: Value, acc: list[Value]) -> list[Value]:
        c = b.cast(strings.char(tr, s, k), u)
        return [b.bin("mul", b.bin("xor", acc[0], c), b.const(FNV_PRIME, u))]

    (h,) = fold(tr, i32(tr, 0), strings.length(tr, s), [h0], step)
    return b.cast(b.bin("and", h, b.const(HASH_MASK, u)), T.INT32)


def _lookup(tr: Translating, path: strings.Text, node: ast.AST) -> Obj:
    """The file object of the staged file named `path` (FileNotFoundError where none is)."""
    b = tr.b
    f = block(tr)
    count = _word(tr, f)
    h = path_hash(tr, path, _word(tr, b.bin("add", f, i32(tr, 1))))
    first = b.bin("add", f, i32(tr, HEADER))

    def entry(k: Value, word: int) -> Value:
        at = b.bin("add", first, b.bin("mul", k, i32(tr, ENTRY)))
        return _word(tr, b.bin("add", at, i32(tr, word)))

    def halve(_: Value, acc: list[Value]) -> list[Value]:  # the first hash >= h in lo..hi
        lo, hi = acc
        active = b.cmp("lt", lo, hi)
        mid = b.bin("shr", b.bin("add", lo, hi), i32(tr, 1))
        less = b.cmp("lt", entry(b.select(active, mid, i32(tr, 0)), 0), h)
        go_up = b.bin("and", active, less)
        go_down = b.bin("and", active, b.un("not", less))
        return [b.select(go_up, b.bin("add", mid, i32(tr, 1)), lo), b.select(go_down, mid, hi)]

    lo, _ = fold(tr, i32(tr, 0), i32(tr, 31), [i32(tr, 0), count], halve)
    inside = b.cmp("lt", lo, count)
    k = b.select(inside, lo, i32(tr, 0))
    same_hash = b.bin("and", inside, b.cmp("eq", entry(k, 0), h))
    staged = strings.make(b.bin("add", f, entry(k, 1)),
                          b.select(same_hash, entry(k, 2), i32(tr, 0)))  # fmt: skip
    found = b.bin("and", same_hash, strings.equal(tr, path, staged, node))
    data = b.bin("add", f, entry(k, 3))
    n = b.select(found, entry(k, 4), i32(tr, 0))
    _not_found(tr, path, found, node)
    # the position: one word of the heap (a failed allocation points at a word no value uses)
    ar = arena(tr)
    at, ok = ar.alloc(b, T.INT32, i32(tr, 1))
    raise_unless(tr, MemoryError, ok, ar.exhausted(T.INT32, FILE_WORD), node)
    state = b.select(ok, at, i32(tr, SINK))
    ar.store(b, T.INT32, state, i32(tr, 0))
    return Obj(KernelReader, (("state", state), ("data", data), ("n", n)))


def _not_found(tr: Translating, path: strings.Text, found: Value, node: ast.AST) -> None:
    """FileNotFoundError where the path is not staged, its message Python's."""
    fails = tr.b.un("not", found)
    if isinstance(path, str):
        raise_unless(tr, FileNotFoundError, found,
                     f"[Errno 2] No such file or directory: {path!r}", node)  # fmt: skip
        return
    sid = raising.site(tr, FileNotFoundError, ("[Errno 2] No such file or directory: '", "'"),
                       node, None, text=True)  # fmt: skip
    raising.set_state(tr, sid, fails, (strings.offset(path), strings.length(tr, path)))


# ------------------------------------------------------------------------------- methods
def _field(f: Obj, name: str) -> Value:
    v = f.get(name)
    assert isinstance(v, Value)
    return v


def _position(tr: Translating, f: Obj, node: ast.AST) -> Value:
    """The thread's position in `f`; ValueError where `f` is closed (then 0)."""
    pos = _word(tr, _field(f, "state"))
    is_open = tr.b.cmp("ge", pos, i32(tr, 0))
    raise_unless(tr, ValueError, is_open, "I/O operation on closed file.", node)
    return tr.b.select(is_open, pos, i32(tr, 0))


def _advance(tr: Translating, f: Obj, pos: Value, to: Value) -> None:
    """Set the position to `to` where the file is open (`pos` >= 0 was read from it)."""
    state = _field(f, "state")
    is_open = tr.b.cmp("ge", _word(tr, state), i32(tr, 0))
    when(tr, is_open, lambda: arena(tr).store(tr.b, T.INT32, state, to))


def _read(tr: Translating, f: Obj, args: list[V], node: ast.AST) -> V:
    if len(args) > 1:
        tr.fail(node, "read() takes at most one argument, the number of characters")
    b = tr.b
    pos = _position(tr, f, node)
    left = b.bin("sub", _field(f, "n"), pos)
    take = left
    if args and not (isinstance(args[0], Known) and args[0].value is None):
        a = args[0]
        if isinstance(a, Known):
            if not isinstance(a.value, (int, np.integer)) or isinstance(a.value, bool):
                tr.fail(node, "read()'s size must be an integer")
            size = i32(tr, int(a.value))
        else:
            if not (isinstance(a, Value) and isinstance(a.type, T.Scalar) and a.type.is_int):
                tr.fail(node, "read()'s size must be an integer")
            size = coerce(b, a, T.INT32)
        take = b.select(b.cmp("lt", size, i32(tr, 0)), left, b.bin("min", size, left))
    _advance(tr, f, pos, b.bin("add", pos, take))
    return strings.make(b.bin("add", _field(f, "data"), pos), take)


def _readline(tr: Translating, f: Obj, args: list[V], node: ast.AST) -> V:
    if args:
        tr.fail(node, "readline() takes no arguments in a kernel")
    b = tr.b
    pos = _position(tr, f, node)
    data, n = _field(f, "data"), _field(f, "n")
    # scan to the next "\n" (a read at the file's end stays in the block: it ends in a zero)
    cblk, bblk = Block(), Block()
    k = Value(T.INT32, "k")
    cblk.args.append(k)
    with b.at(cblk):
        c = _word(tr, b.bin("add", data, k))
        more = b.bin("and", b.cmp("lt", k, n), b.cmp("ne", c, i32(tr, 10)))
        b.op("condition", [more])
    k2 = Value(T.INT32, "k")
    bblk.args.append(k2)
    with b.at(bblk):
        b.op("yield", [b.bin("add", k2, i32(tr, 1))])
    (end,) = b.op("while", [pos], [T.INT32], [cblk, bblk]).results
    stop = b.select(b.cmp("lt", end, n), b.bin("add", end, i32(tr, 1)), n)
    _advance(tr, f, pos, stop)
    return strings.make(b.bin("add", data, pos), b.bin("sub", stop, pos))


def _close(tr: Translating, f: Obj, args: list[V], node: ast.AST) -> V:
    if args:
        tr.fail(node, "close() takes no arguments")
    arena(tr).store(tr.b, T.INT32, _field(f, "state"), i32(tr, -1))
    return Known(None)


def _more(tr: Translating, f: Obj, args: list[V], node: ast.AST) -> V:
    """Whether `for line in f` reads another line: open and not at the end."""
    pos = _word(tr, _field(f, "state"))
    b = tr.b
    return b.bin("and", b.cmp("ge", pos, i32(tr, 0)), b.cmp("lt", pos, _field(f, "n")))


def _check_open(tr: Translating, f: Obj, args: list[V], node: ast.AST) -> V:
    _position(tr, f, node)
    return Known(None)


METHODS = {"read": _read, "readline": _readline, "close": _close, "_more": _more,
           "_check_open": _check_open, "_readline": _readline}  # fmt: skip
REFUSED = {
    "seek": "seek() on a file read in a kernel is not supported: read() the text and slice "
            "it (s = f.read(); s[n:]), or readline() in a loop",
    "tell": "tell() on a file read in a kernel is not supported: count the characters read "
            "(len(line))",
    "readlines": "readlines() makes a list of strings, which a kernel's lists cannot hold: "
                 "loop over the lines (for line in f:)",
    "write": 'a file opened for reading cannot be written: open it with "w" or "a"',
}  # fmt: skip


def method(tr: Translating, f: Obj, name: str, args: list[V], kwargs: dict[str, V],
           node: ast.AST) -> V:  # fmt: skip
    """`f.name(*args)` of a file opened for reading."""
    if name in REFUSED:
        tr.fail(node, REFUSED[name])
    if kwargs:
        tr.fail(node, f"{name}() takes no keyword arguments in a kernel")
    tr.at(node)
    return METHODS[name](tr, f, args, node)


def over(tr: Translating, node: ast.For, f: Obj) -> None:
    """`for line in f`: `f._check_open()`, then `while f._more(): line = f.readline(); body`."""
    name = f"$file{node.lineno}_{node.col_offset}"
    # the loop's own steps, bound to `f` under names no user code can spell (the reader class,
    # simt.filereads.KernelReader, has only the methods users call)
    for step in (_check_open, _more, _readline):
        tr.env[f"{name}.{step.__name__}"] = Bound(f, step)

    def call(step: Callable[..., V]) -> ast.Call:
        return ast.Call(func=ast.Name(id=f"{name}.{step.__name__}", ctx=ast.Load()), args=[],
                        keywords=[])  # fmt: skip

    check = ast.Expr(value=call(_check_open))
    take = ast.Assign(targets=[node.target], value=call(_readline))
    loop = ast.While(test=call(_more), body=[take, *node.body], orelse=[])
    for new in (check, take, loop):
        ast.copy_location(new, node)
        ast.fix_missing_locations(new)
    tr.stmts([check, loop])


def enumerated(tr: Translating, node: ast.For) -> bool:
    """`for n, line in enumerate(f)` (or `enumerate(f, start)`) over a file read per thread,
    `f` a name: `$k = start`, then `for $line in f: n, line = $k, $line; $k = $k + 1; body`
    (the count taken before the body, so a `continue` keeps it). False for anything else."""
    it = node.iter
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.args
            and isinstance(it.args[0], ast.Name) and len(it.args) <= 2
            and all(k.arg == "start" for k in it.keywords)
            and len(it.args) + len(it.keywords) <= 2):  # fmt: skip
        return False
    try:
        fn = tr.lookup(it.func.id, it.func)
        f = tr.expr(it.args[0])
    except CompileError:  # not a name of this kind: the caller's path reports it
        return False
    if not (isinstance(fn, Known) and fn.value is builtins.enumerate and is_reader(f)):
        return False
    start = it.args[1] if len(it.args) > 1 else (
        it.keywords[0].value if it.keywords else ast.Constant(value=0))  # fmt: skip
    k, line = (f"${w}{node.lineno}_{node.col_offset}" for w in ("count", "line"))

    def name(n: str, ctx: ast.expr_context) -> ast.Name:
        return ast.Name(id=n, ctx=ctx)

    init = ast.Assign(targets=[name(k, ast.Store())], value=start)
    unpack = ast.Assign(targets=[node.target], value=ast.Tuple(
        elts=[name(k, ast.Load()), name(line, ast.Load())], ctx=ast.Load()))  # fmt: skip
    bump = ast.Assign(targets=[name(k, ast.Store())], value=ast.BinOp(
        left=name(k, ast.Load()), op=ast.Add(), right=ast.Constant(value=1)))  # fmt: skip
    loop = ast.For(target=name(line, ast.Store()), iter=it.args[0],
                   body=[unpack, bump, *node.body], orelse=node.orelse)  # fmt: skip
    for new in (init, unpack, bump, loop):
        ast.copy_location(new, node)
        ast.fix_missing_locations(new)
    tr.stmts([init, loop])
    return True
