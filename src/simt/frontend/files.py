"""Files read per thread (#27 item 3): `open(path)` / `open(path, "r")` in a kernel, `with`,
`f.read()`, `f.read(k)`, `f.readline()`, `for line in f`, `f.tell()`, `f.seek(...)`,
`f.close()`.

The host stages the files a kernel may open before each launch, into a read-only block after
the threads' regions of the int32 arena (`simt.filereads`, which states the rule: each
`open`'s path is a known string or an f-string, and every file matching it with its run-time
parts as `*` is staged). Here each `open` records its glob pattern (`Context.file_reads`)
and looks the thread's path up in the block: a hash of the path (FNV-1a, as
`filereads.path_hash`), a binary search of the sorted hashes, one string comparison. A path
of literal text, run-time strings and integers is never built: its pieces (`Segments`) are
hashed and compared where they are, so an `open` takes no heap for it; one with a format
spec or a float is built in the heap and given back once found. A path that is not there
raises FileNotFoundError in that thread (catchable), a directory IsADirectoryError; only
then is the path built, for the message.

The file object is an `Obj` of `filereads.KernelReader` with three int32 fields: `state`,
the arena word holding the thread's position in the file (-1 once closed; one word of the
heap per `open`; `tell` reads it, `seek` sets it), and `data`, `n`, where the file's
characters are and how many. What
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
from . import lists, raising, str_format, strings
from .arena import SINK
from .context import Translating
from .lists import arena, fold, i32, raise_unless, when
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
    parts, path, mark = _path(tr, path_node, pieces)
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
    return _lookup(tr, path, node, mark)


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


def _path(
    tr: Translating, e: ast.expr, pieces: Pieces
) -> tuple[list[str | None], strings.Text | Segments, Value | None]:
    """The path's literal parts (None: a run-time part), its value, and for a path built in
    the heap the bump pointer before it was built (`_lookup` gives its words back). An
    f-string of literal text, run-time strings and integers formatted as `{i}` is not built:
    its `Segments` are hashed and compared where they are (no heap)."""
    if isinstance(e, ast.JoinedStr):
        got = pieces(tr, e, True)
        parts: list[str | None] = [p if isinstance(p, str) else None for p in got]
        if all(isinstance(p, str) for p in got):
            return parts, "".join(got), None  # type: ignore[arg-type]
        tr.at(e)
        segs = _segments(tr, got, e)
        if segs is not None:
            return parts, segs, None
        mark = arena(tr).mark(tr.b, T.INT32)
        built = str_format.from_parts(tr, got, e)
        return parts, strings.text_of(strings.value_of(built)), mark
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
        return [str(v.value)], str(v.value), None
    if strings.is_str(v):
        tr.fail(
            e,
            "open() for reading takes its path as a known string or an f-string written in the "
            "call: the host stages the files that match it before the launch, and a string "
            "built elsewhere does not say which",
            "write the f-string in the call: open(f'data/part{i}.txt')",
        )
    tr.fail(e, "open()'s path must be a string")


# ------------------------------------------------------------------------------- segments
class Segments:
    """A path built at run time, kept as its pieces: literal text, run-time strings and
    `Digits` (an integer's decimal text), with what builds it in the heap (`got`, `node`:
    for an error's message only)."""

    def __init__(self, segs: list[str | Obj | Digits], got: list[strings.Part],
                 node: ast.AST) -> None:  # fmt: skip
        self.segs = segs
        self.got = got
        self.node = node


class Digits:
    """`f"{v}"` of a run-time integer: its sign, magnitude `a` (unsigned), the power of ten
    of its first digit `p` and its number of digits `d` (int32)."""

    def __init__(self, neg: Value, a: Value, p: Value, d: Value) -> None:
        self.neg, self.a, self.p, self.d = neg, a, p, d


def _segments(tr: Translating, got: list[strings.Part], node: ast.AST) -> Segments | None:
    """The path's pieces as `Segments`, or None where one is formatted otherwise (a spec, a
    float, a bool: then the path is built in the heap)."""
    segs: list[str | Obj | Digits] = []
    for p in got:
        if isinstance(p, str) or strings.is_str(p):
            segs.append(p)  # type: ignore[arg-type]
            continue
        if not isinstance(p, tuple):
            return None
        v, spec = p
        if spec or not (isinstance(v, Value) and isinstance(v.type, T.Scalar)
                        and v.type.is_int and not v.type.is_bool):  # fmt: skip
            return None
        segs.append(_digits(tr, v))
    return Segments(segs, got, node)


def _digits(tr: Translating, v: Value) -> Digits:
    b = tr.b
    t = v.type
    assert isinstance(t, T.Scalar)
    ut = T.UINT64 if t.bits > 32 else T.UINT32
    u = b.cast(v, ut)
    if t.is_signed:
        neg = b.cmp("lt", v, b.const(0, t))
        u = b.select(neg, b.bin("sub", b.const(0, ut), u), u)  # (the magnitude of the minimum)
    else:
        neg = b.const(False, T.BOOL)
    ten = b.const(10, ut)

    def more(_: Value, acc: list[Value]) -> list[Value]:  # p *= 10 while a // p >= 10
        p, d = acc
        up = b.cmp("ge", b.bin("floordiv", u, p), ten)
        return [b.select(up, b.bin("mul", p, ten), p), b.select(up, b.bin("add", d, i32(tr, 1)), d)]

    p, d = fold(tr, i32(tr, 0), i32(tr, 20 if ut is T.UINT64 else 10),
                [b.const(1, ut), i32(tr, 1)], more)  # fmt: skip
    return Digits(neg, u, p, d)


def _seg_length(tr: Translating, s: str | Obj | Digits) -> Value:
    if isinstance(s, Digits):
        return tr.b.bin("add", s.d, tr.b.cast(s.neg, T.INT32))
    return strings.length(tr, s)


def _seg_chars(tr: Translating, s: str | Obj | Digits, inits: list[Value],
               step: Callable[[Value, list[Value]], list[Value]]) -> list[Value]:  # fmt: skip
    """Fold `step(code point, carried)` over the characters of one segment, in order."""
    b = tr.b
    if isinstance(s, str):
        acc = inits
        for c in s:
            acc = step(i32(tr, ord(c)), acc)
        return acc
    if isinstance(s, Obj):
        return fold(tr, i32(tr, 0), strings.length(tr, s), inits,
                    lambda k, acc: step(strings.char(tr, s, k), acc))  # fmt: skip
    minus = step(i32(tr, ord("-")), inits)  # the sign, where negative
    acc = [b.select(s.neg, m, a) for m, a in zip(minus, inits)]
    ten = b.const(10, s.a.type)  # type: ignore[arg-type]

    def digit(_: Value, carried: list[Value]) -> list[Value]:
        p, *rest = carried
        c = b.bin("add", b.cast(b.bin("mod", b.bin("floordiv", s.a, p), ten), T.INT32),
                  i32(tr, ord("0")))  # fmt: skip
        return [b.bin("floordiv", p, ten), *step(c, rest)]

    return fold(tr, i32(tr, 0), s.d, [s.p, *acc], digit)[1:]


def _segs_hash(tr: Translating, path: Segments, seed: Value) -> Value:
    """`filereads.path_hash` of the path the segments spell."""
    b = tr.b
    u = T.UINT32
    acc = [b.bin("xor", b.const(FNV_OFFSET, u), b.cast(seed, u))]

    def step(c: Value, h: list[Value]) -> list[Value]:
        return [b.bin("mul", b.bin("xor", h[0], b.cast(c, u)), b.const(FNV_PRIME, u))]

    for s in path.segs:
        acc = _seg_chars(tr, s, acc, step)
    return b.cast(b.bin("and", acc[0], b.const(HASH_MASK, u)), T.INT32)


def _segs_equal(tr: Translating, path: Segments, at: Value, n: Value) -> Value:
    """Whether the segments spell the `n` characters at block offset `at`."""
    b = tr.b
    total = i32(tr, 0)
    for s in path.segs:
        total = b.bin("add", total, _seg_length(tr, s))
    same_n = b.cmp("eq", total, n)
    last = b.bin("max", b.bin("sub", n, i32(tr, 1)), i32(tr, 0))

    def step(c: Value, acc: list[Value]) -> list[Value]:
        k, same = acc  # (positions past the staged path read its last character)
        staged = _word(tr, b.bin("add", at, b.bin("min", k, last)))
        return [b.bin("add", k, i32(tr, 1)), b.bin("and", same, b.cmp("eq", staged, c))]

    acc = [i32(tr, 0), same_n]
    for s in path.segs:
        acc = _seg_chars(tr, s, acc, step)
    return acc[1]


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


def _lookup(tr: Translating, path: strings.Text | Segments, node: ast.AST,
            mark: Value | None = None) -> Obj:  # fmt: skip
    """The file object of the staged file named `path` (FileNotFoundError where none is,
    IsADirectoryError where it names a directory). `mark`: the heap's bump pointer before a
    path built at run time, whose words are given back once the file is found (the path is
    kept only for an exception's message), so `open` in a loop takes one word each time."""
    b = tr.b
    f = block(tr)
    count = _word(tr, f)
    seed = _word(tr, b.bin("add", f, i32(tr, 1)))
    h = _segs_hash(tr, path, seed) if isinstance(path, Segments) else path_hash(tr, path, seed)
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
    at, length = b.bin("add", f, entry(k, 1)), b.select(same_hash, entry(k, 2), i32(tr, 0))
    if isinstance(path, Segments):
        same = _segs_equal(tr, path, at, length)
    else:
        same = strings.equal(tr, path, strings.make(at, length), node)
    found = b.bin("and", same_hash, same)
    data = b.bin("add", f, entry(k, 3))
    size = entry(k, 4)  # -1: a directory (`filereads.DIRECTORY`)
    is_file = b.bin("and", found, b.cmp("ge", size, i32(tr, 0)))
    n = b.select(is_file, size, i32(tr, 0))
    is_dir = b.bin("and", found, b.un("not", is_file))
    if isinstance(path, Segments):  # the path is built (in the heap) only for the message

        def named() -> None:
            tr.at(path.node)
            text = strings.text_of(strings.value_of(str_format.from_parts(tr, path.got,
                                                                          path.node)))  # fmt: skip
            tr.at(node)
            _not_found(tr, text, found, node)
            _not_a_file(tr, text, is_dir, node)

        def unnamed() -> None:  # a full heap: the error still, its path left out
            gone = " (the path is not shown: the thread's heap is full)"
            raise_unless(tr, FileNotFoundError, found,
                         f"[Errno 2] No such file or directory{gone}", node)  # fmt: skip
            raising.raise_builtin(tr, IsADirectoryError, is_dir,
                                  f"[Errno 21] Is a directory{gone}", node)  # fmt: skip

        def fail() -> None:
            total = i32(tr, 0)
            for seg in path.segs:
                total = b.bin("add", total, _seg_length(tr, seg))
            # (building it takes its characters, and a number's text while it is formatted)
            need = b.bin("add", b.bin("mul", total, i32(tr, 2)), i32(tr, 24))
            tr.branch(b.cmp("ge", arena(tr).free(b, T.INT32), need), named, unnamed)

        tr.branch(b.un("not", is_file), fail, lambda: None)
    else:
        _not_found(tr, path, found, node)
        _not_a_file(tr, path, is_dir, node)
    ar = arena(tr)
    if mark is not None:  # the path built at run time: its words back (an error's keep them)
        ar.release(b, T.INT32, mark, is_file)
    # the position: one word of the heap (a failed allocation points at a word no value uses)
    at, ok = ar.alloc(b, T.INT32, i32(tr, 1))
    raise_unless(tr, MemoryError, ok, ar.exhausted(T.INT32, FILE_WORD), node)
    state = b.select(ok, at, i32(tr, SINK))
    ar.store(b, T.INT32, state, i32(tr, 0))
    return Obj(KernelReader, (("state", state), ("data", data), ("n", n)))


def _not_found(tr: Translating, path: strings.Text, found: Value, node: ast.AST) -> None:
    """FileNotFoundError where the path is not staged, its message Python's."""
    _raise_at(tr, FileNotFoundError, "[Errno 2] No such file or directory: ", path,
              tr.b.un("not", found), node)  # fmt: skip


def _not_a_file(tr: Translating, path: strings.Text, is_dir: Value, node: ast.AST) -> None:
    """IsADirectoryError where the path names a directory that matched, as Python's open."""
    _raise_at(tr, IsADirectoryError, "[Errno 21] Is a directory: ", path, is_dir, node)


def _raise_at(tr: Translating, cls: type, head: str, path: strings.Text, fails: Value,
              node: ast.AST) -> None:  # fmt: skip
    """The thread raises `cls(head + repr(path))` where `fails` holds."""
    if isinstance(path, str):
        raising.raise_builtin(tr, cls, fails, f"{head}{path!r}", node)
        return
    sid = raising.site(tr, cls, (f"{head}'", "'"), node, None, text=True)
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


def _readlines(tr: Translating, f: Obj, args: list[V], node: ast.AST) -> V:
    """`f.readlines()`: the rest of the file as a list of strings, one a line with its
    `"\\n"` (the last without one where the file does not end in one), as Python's; the
    position is then the end. The lines are counted and sized first (the heap taken, or a
    MemoryError raised, once), then each copied after its count (`lists.push_texts`)."""
    if args:
        tr.fail(node, "readlines() takes no arguments in a kernel (no hint)",
                "read the lines one by one: for line in f: ...")  # fmt: skip
    b, ar = tr.b, arena(tr)
    pos = _position(tr, f, node)
    data, n = _field(f, "data"), _field(f, "n")
    out = lists.make(tr, [], node, "readlines")
    lists.holds_text(tr, out, node)
    zero, one = i32(tr, 0), i32(tr, 1)
    last = b.bin("sub", n, one)

    def walk(on_line: Callable[[Value, Value, Value, list[Value]], list[Value]],
             extra: list[Value]) -> list[Value]:  # fmt: skip
        """`extra = on_line(lo, hi, is_line, extra)` at each character from the position on
        (`is_line`: a line ends after it)."""

        def step(k: Value, acc: list[Value]) -> list[Value]:
            start, *more = acc
            ends = b.bin("or", b.cmp("eq", _word(tr, b.bin("add", data, k)), i32(tr, 10)),
                         b.cmp("eq", k, last))  # fmt: skip
            more = on_line(start, b.bin("add", k, one), ends, more)
            return [b.select(ends, b.bin("add", k, one), start), *more]

        _, *more = fold(tr, pos, n, [pos, *extra], step)
        return more

    def counted(lo: Value, hi: Value, yes: Value, acc: list[Value]) -> list[Value]:
        size = b.select(yes, b.bin("add", b.bin("sub", hi, lo), one), zero)
        return [b.bin("add", acc[0], b.select(yes, one, zero)), b.bin("add", acc[1], size)]

    count, words = walk(counted, [zero, zero])

    def write(at: Value, item: Value) -> None:
        def one_line(lo: Value, hi: Value, yes: Value, acc: list[Value]) -> list[Value]:
            cur, it = acc
            size = b.bin("sub", hi, lo)

            def store() -> None:
                ar.store(b, T.INT32, cur, size)
                lists.loop(tr, zero, size, lambda k: ar.store(
                    b, T.INT32, b.bin("add", b.bin("add", cur, one), k),
                    _word(tr, b.bin("add", data, b.bin("add", lo, k)))))  # fmt: skip
                ar.store(b, T.INT32, it, cur)

            when(tr, yes, store)
            return [b.select(yes, b.bin("add", cur, b.bin("add", size, one)), cur),
                    b.select(yes, b.bin("add", it, one), it)]  # fmt: skip

        walk(one_line, [at, item])

    lists.push_texts(tr, out, count, words, "the lines readlines() gives", node, write)
    _advance(tr, f, pos, n)
    return out


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


def _tell(tr: Translating, f: Obj, args: list[V], node: ast.AST) -> V:
    """`f.tell()`: the position, an opaque number `seek` takes back (the count of characters
    before it in the staged text; Python's is a byte offset, the same for ASCII text)."""
    if args:
        tr.fail(node, "tell() takes no arguments")
    return _position(tr, f, node)


def _seek(tr: Translating, f: Obj, args: list[V], node: ast.AST) -> V:
    """`f.seek(pos)`, `f.seek(pos, 0)` (a position `tell` gave, or 0), `f.seek(0, 1)` (where
    it is) and `f.seek(0, 2)` (the end), as Python's text files: the new position."""
    if not 1 <= len(args) <= 2:
        tr.fail(node, "seek() takes a position and an optional whence (0, 1 or 2)")
    whence = args[1] if len(args) > 1 else Known(0)
    if not (isinstance(whence, Known) and whence.value in (0, 1, 2)
            and not isinstance(whence.value, bool)):  # fmt: skip
        tr.fail(node, "seek()'s whence must be 0, 1 or 2 known at compile time (os.SEEK_SET, "
                      "os.SEEK_CUR, os.SEEK_END)")  # fmt: skip
    a = args[0]
    if isinstance(a, Known):
        if not isinstance(a.value, (int, np.integer)) or isinstance(a.value, bool):
            tr.fail(node, "seek()'s position must be an integer")
    elif not (isinstance(a, Value) and isinstance(a.type, T.Scalar) and a.type.is_int):
        tr.fail(node, "seek()'s position must be an integer")
    b = tr.b
    if whence.value != 0:
        if not (isinstance(a, Known) and a.value == 0):
            where = "cur" if whence.value == 1 else "end"
            tr.fail(node, f"seek(n, {whence.value}) with n other than 0: a text file in Python "
                          f"raises io.UnsupportedOperation (can't do nonzero {where}-relative "
                          "seeks)", "seek(f.tell() + n) is not it either (a position is "
                          "opaque): read(n) moves n characters on")  # fmt: skip
        pos = _position(tr, f, node)
        to = pos if whence.value == 1 else _field(f, "n")
    else:
        pos = _position(tr, f, node)
        n = _field(f, "n")
        if isinstance(a, Known):  # (a known position past the int32 range is the end's)
            a = Known(max(min(int(a.value), 2**31 - 1), -(2**31)))
        wide = isinstance(a, Value) and isinstance(a.type, T.Scalar) and a.type.bits > 32
        t = T.INT64 if wide else T.INT32
        at = b.const(int(a.value), t) if isinstance(a, Known) else coerce(b, a, t)
        raising.raise_builtin(tr, ValueError, b.cmp("lt", at, b.const(0, t)),
                              ("negative seek position ", 0), node,
                              (at, Known(0)))  # fmt: skip
        if wide:  # (a position past the int32 range is past the end)
            at = coerce(b, b.bin("min", at, coerce(b, n, t)), T.INT32)
        # past the end reads "" as in Python; the position is the end (Python's stays the
        # number given, which a text file documents as undefined unless tell gave it)
        to = b.bin("max", b.bin("min", at, n), i32(tr, 0))
    _advance(tr, f, pos, to)
    return b.select(b.cmp("ge", _word(tr, _field(f, "state")), i32(tr, 0)), to, i32(tr, 0))


def _check_open(tr: Translating, f: Obj, args: list[V], node: ast.AST) -> V:
    _position(tr, f, node)
    return Known(None)


METHODS = {"read": _read, "readline": _readline, "readlines": _readlines, "close": _close,
           "seek": _seek, "tell": _tell, "_more": _more, "_check_open": _check_open,
           "_readline": _readline}  # fmt: skip
REFUSED = {
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
