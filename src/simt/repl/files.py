"""Files and byte strings in REPL inputs: `open(path)`, `f.seek(n)`, `f.read(k)`, slicing,
`len`, `in` (substring test) and `==`, each thread with its own slice of a read-only file.

A file is read once on the host into a uint32 array (four bytes a word, the kernel language
having no 8-bit type) passed to every kernel that uses it. `File` and `ByteStr` are ordinary
classes, which kernels take as compile-time structs; an input is rewritten so that what Python
writes with mutation or syntax the kernel language lacks becomes calls (`f.seek(n)` becomes
`f = f.seek(n)`, `w in s` becomes `_simt_in(s, w)`, `a == b` becomes `_simt_eq(a, b)`,
`s[a:b]` becomes `_simt_slice(s, a, b)`, `int(s)` becomes `_simt_int(s)`, and
`a, b = s.split(" ")` passes the number of parts). Byte strings also have `startswith`,
`endswith`, `find` and `split` on known separators; `print` writes a marker the host replaces
by the bytes (the host holds every file that inputs read).

A path of the thread's other variables written as an f-string in the call
(`open(f"d/{k}.txt")`, `k` per thread) is left as it is: the kernel reads it as a
`@simt.kernel` does (`simt.filereads`: staged at the launch, text, `tell`/`seek`), and such a
file is not kept after the input (docs/language.md, "The REPL", says what differs and why).

Files opened for writing (`f = open(path, "w")` or `"a"`, `f.write(text)`) are records that
threads print: `f = open(...)` becomes a record of the path (formatted per thread, so
f-strings work), `f.write(x)` a record of the text. After the launch the host takes them
apart from what threads printed (`split_records`), puts each thread's writes in the file it
opened, checks that no two threads write one file opened with "w" and that the size limits
hold (`land`), and only then writes the real files (nothing when something is wrong). Each
thread counts its records, so that records a GPU's print buffer dropped are noticed.
"""

from __future__ import annotations

import ast
import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ..filewrites import (  # noqa: F401 - shared with @simt.kernel: used as files.X
    COUNT,
    MARK,
    MAX_BYTES,
    MAX_FILES,
    SEP,
    Handles,
    WriteError,
    land,
    land_open,
    split_records,
)


class ByteStr:
    """`length` bytes of a file's words `data` from byte `start`; `fid` is the file's number
    in the session (known), which `print` needs to find the bytes on the host."""

    # what a refused attribute's error calls it, and what it has (frontend/calls.py)
    __simt_kind__ = (
        "a byte string the REPL read from a file",
        "len(), slicing, in, ==, startswith, endswith, find, split, int() and float()",
    )

    def __init__(self, data: Any, start: Any, length: Any, fid: Any = 0) -> None:
        self.data = data
        self.start = start
        self.length = length
        self.fid = fid

    def startswith(self, word: Any) -> Any:
        """Whether the string starts with the bytes `word` (known)."""
        w = _known_bytes(word)
        ok = self.length >= len(w)
        for k in range(len(w)):
            if ok:
                ok = self.byte(k) == w[k]
        return ok

    def endswith(self, word: Any) -> Any:
        """Whether the string ends with the bytes `word` (known)."""
        w = _known_bytes(word)
        ok = self.length >= len(w)
        for k in range(len(w)):
            if ok:
                ok = self.byte(self.length - len(w) + k) == w[k]
        return ok

    def find(self, word: Any, start: Any = 0) -> Any:
        """The first index of the bytes `word` (known) from `start`, or -1."""
        w = _known_bytes(word)
        found = -1
        i = max(start, 0)
        while found < 0 and i + len(w) <= self.length:
            ok = True
            for k in range(len(w)):
                if ok:
                    ok = self.byte(i + k) == w[k]
            if ok:
                found = i
            i += 1
        return found

    def split(self, sep: Any, maxsplit: Any) -> Any:
        """`maxsplit + 1` parts around the first `maxsplit` occurrences of `sep` (both known);
        parts past the last occurrence found are empty, the last part holds the rest."""
        w = _known_bytes(sep)
        return tuple([self._part(w, k, maxsplit) for k in range(maxsplit + 1)])

    def _nth(self, w: Any, k: Any) -> Any:
        """Where the `k`-th occurrence of `w` starts (0-based), or the length."""
        pos = 0
        i = -1
        for _ in range(k + 1):
            i = self.find(w, pos)
            pos = self.length + 1 if i < 0 else i + len(w)
        return self.length if i < 0 else i

    def _part(self, w: Any, k: Any, last: Any) -> Any:
        start = 0 if k == 0 else min(self._nth(w, k - 1) + len(w), self.length)
        end = self.length if k == last else self._nth(w, k)
        return ByteStr(self.data, self.start + start, end - start, self.fid)

    def _sign(self) -> Any:
        """Where the digits start after leading spaces and a sign, and whether it was a minus."""
        neg = False
        i = 0
        while i < self.length and self.byte(i) == 32:
            i += 1
        if i < self.length and (self.byte(i) == 45 or self.byte(i) == 43):
            neg = self.byte(i) == 45
            i += 1
        return i, neg

    def to_int(self) -> Any:
        """The integer the string spells (spaces around, a sign; 0 when there are no digits)."""
        n = np.int64(0)
        i, neg = self._sign()
        while i < self.length and 48 <= self.byte(i) <= 57:
            n = n * 10 + (self.byte(i) - 48)
            i += 1
        return -n if neg else n

    def to_float(self) -> Any:
        """The float the string spells: sign, digits, a fraction, an exponent (e.g. -1.5e3)."""
        x = np.float64(0.0)
        i, neg = self._sign()
        while i < self.length and 48 <= self.byte(i) <= 57:
            x = x * 10.0 + (self.byte(i) - 48)
            i += 1
        if i < self.length and self.byte(i) == 46:
            i += 1
            scale = np.float64(0.1)
            while i < self.length and 48 <= self.byte(i) <= 57:
                x += (self.byte(i) - 48) * scale
                scale *= 0.1
                i += 1
        if i < self.length and (self.byte(i) == 101 or self.byte(i) == 69):
            i += 1
            eneg = False
            if i < self.length and (self.byte(i) == 45 or self.byte(i) == 43):
                eneg = self.byte(i) == 45
                i += 1
            e = 0
            while i < self.length and 48 <= self.byte(i) <= 57:
                e = e * 10 + (self.byte(i) - 48)
                i += 1
            x = x * 10.0 ** (-e if eneg else e)
        return -x if neg else x

    def __simt_print__(self) -> Any:
        """What `print` writes in the kernel: a marker the host replaces by the bytes."""
        return (MARK + "b", self.fid, ":", self.start, ":", self.length, MARK)

    def byte(self, i: Any) -> Any:
        """Byte `i` of the string, as an int."""
        j = self.start + i
        return (self.data[j >> 2] >> ((j & 3) * 8)) & 255


class File:
    """A read-only file: the bytes `base` to `size` of `data`, at position `pos` (`base` is
    0 for a file every thread reads; a thread's own file, opened by a per-thread path, is its
    part of the files' words laid end to end). `seek` returns the moved file."""

    __simt_kind__ = ("a file the REPL opened for reading", "read(k) and seek(n) (an input "
                     "that reads it by line, readline or for line in f, gets text lines)")

    def __init__(self, data: Any, size: Any, pos: Any, fid: Any = 0, base: Any = 0) -> None:
        self.data = data
        self.size = size
        self.pos = pos
        self.fid = fid
        self.base = base

    def seek(self, n: Any) -> File:
        """The file positioned at byte `n` (clamped to the file)."""
        pos = min(max(self.base + n, self.base), self.size)
        return File(self.data, self.size, pos, self.fid, self.base)

    def read(self, k: Any = -1) -> ByteStr:
        """The next `k` bytes (fewer at the end of the file; all the rest for -1)."""
        n = self.size - self.pos if k < 0 else k
        return ByteStr(self.data, self.pos, max(min(n, self.size - self.pos), 0), self.fid)


def _known_bytes(word: Any) -> Any:
    return word.encode() if isinstance(word, str) else word


def r_int(x: Any) -> Any:
    """`int(x)`, parsing a byte string (or a str: a line of a file the kernel staged)."""
    if isinstance(x, ByteStr):
        return x.to_int()
    if isinstance(x, str):
        return int(x)
    return np.int64(x)


def r_float(x: Any) -> Any:
    """`float(x)`, parsing a byte string (or a str)."""
    if isinstance(x, ByteStr):
        return x.to_float()
    if isinstance(x, str):
        return float(x)
    return np.float64(x)


def contains(s: ByteStr, word: Any) -> Any:
    """Whether the bytes `word` (known) occur in `s`."""
    m = len(word)
    found = False
    for i in range(s.length - m + 1):
        ok = True
        for k in range(m):
            if s.byte(i + k) != word[k]:
                ok = False
        if ok:
            found = True
            break
    return found


def r_in(container: Any, item: Any) -> Any:
    """`item in container`: a substring test on byte strings."""
    if isinstance(container, ByteStr):
        if isinstance(item, str):
            return contains(container, item.encode())
        return contains(container, item)
    return item in container


def _eq_known(s: ByteStr, word: Any) -> Any:
    w = word.encode() if isinstance(word, str) else word
    same = s.length == len(w)
    for k in range(len(w)):
        if k < s.length:
            if s.byte(k) != w[k]:
                same = False
    return same


def r_eq(a: Any, b: Any) -> Any:
    """`a == b`, byte strings (with each other, or with known str/bytes) included."""
    if isinstance(a, ByteStr) and isinstance(b, ByteStr):
        same = a.length == b.length
        if same:
            for i in range(a.length):
                if a.byte(i) != b.byte(i):
                    same = False
                    break
        return same
    if isinstance(a, ByteStr):
        return _eq_known(a, b)
    if isinstance(b, ByteStr):
        return _eq_known(b, a)
    return a == b


OPEN_END = 1 << 62  # the upper bound of `s[a:]`


def r_slice(s: Any, lower: Any, upper: Any) -> Any:
    """`s[lower:upper]` of a byte string (0 and OPEN_END for open ends; no negative indices).
    The bounds are plain numbers, known or not: a run-time bound (`s[tid:tid + 2]`) works.
    Anything else (a tuple, an array) is sliced as written."""
    if not isinstance(s, ByteStr):
        return s[lower:] if upper == OPEN_END else s[lower:upper]
    lo = min(max(lower, 0), s.length)
    hi = min(max(upper, lo), s.length)
    return ByteStr(s.data, s.start + lo, hi - lo, s.fid)


def r_len(x: Any) -> Any:
    """`len(x)`, byte strings included."""
    if isinstance(x, ByteStr):
        return x.length
    return len(x)


NAMESPACE = {
    "_simt_rec": print,
    "_simt_int": r_int,
    "_simt_float": r_float,  # a record of a written file, printed for the host (not shown)
    "_simt_File": File,
    "_simt_ByteStr": ByteStr,
    "_simt_in": r_in,
    "_simt_slice": r_slice,
    "_simt_eq": r_eq,
    "len": r_len,
}


def load(path: str) -> tuple[np.ndarray, int]:
    """A file's bytes as uint32 words (zero-padded), and its size."""
    raw = np.fromfile(path, np.uint8)
    size = len(raw)
    padded = np.zeros(-(-max(size, 1) // 4) * 4, np.uint8)
    padded[:size] = raw
    return padded.view(np.uint32), size


def write_mode(node: ast.AST) -> str | None:
    """ "w" or "a" for `open(path, "w")` / `open(path, mode="a")`, else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    if node.func.id != "open" or not node.args:
        return None
    mode: ast.expr | None = node.args[1] if len(node.args) > 1 else None
    for k in node.keywords:
        if k.arg == "mode":
            mode = k.value
    if isinstance(mode, ast.Constant) and mode.value in ("w", "a", "wt", "at"):
        return str(mode.value)[0]
    return None


_BYTES = re.compile(MARK + r"b(\d+):(\d+):(\d+)" + MARK)


def resolve_bytes(text: str, files: list[tuple[np.ndarray, int]]) -> str:
    """`text` with each printed byte string's marker replaced by its bytes (as UTF-8 text)."""
    if MARK not in text:
        return text

    def one(m: re.Match[str]) -> str:
        words, size = files[int(m.group(1))]
        start, n = int(m.group(2)), int(m.group(3))
        raw = words.view(np.uint8)[start : min(start + n, size)]
        return raw.tobytes().decode("utf-8", "replace")

    return _BYTES.sub(one, text)


def byte_codes(
    start: np.ndarray, length: np.ndarray, words: np.ndarray, size: int
) -> tuple[np.ndarray, list[bytes]]:
    """For byte strings of one file given per thread by `start` and `length`: a code per
    thread, equal exactly when the bytes are, and the bytes of each code."""
    raw = words.view(np.uint8)[:size].tobytes()
    spans, inv = np.unique(np.stack([start, length]), axis=1, return_inverse=True)
    table: list[bytes] = []
    index: dict[bytes, int] = {}
    code_of_span = np.empty(spans.shape[1], np.int64)
    for k, (s, n) in enumerate(spans.T.tolist()):
        b = raw[s : s + n]
        code_of_span[k] = index.setdefault(b, len(table))
        if code_of_span[k] == len(table):
            table.append(b)
    return code_of_span[inv.reshape(-1)], table


def needs_rewrite(tree: ast.Module, objects: set[str]) -> bool:
    """Whether the input uses files or byte-string syntax."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and (n.id in ("open", "input") or n.id in objects):
            return True
        if isinstance(n, ast.Compare) and any(isinstance(o, (ast.In, ast.NotIn)) for o in n.ops):
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice):
            return True
    return False


_BY_LINE = ("readline", "readlines", "tell")


def _read_by_line(tree: ast.Module) -> set[int]:
    """The ids of the `open(path)` calls (for reading) whose file the input reads by line:
    `f.readline()`, `f.readlines()`, `f.tell()`, `for line in f` (or in `enumerate(f)`,
    or in `open(...)` itself). The REPL's own files read bytes by offset (`read(k)`,
    `seek(n)`) and have none of these; such a file is left to the kernel's own reading
    (`simt.filereads`: text lines, as in a @simt.kernel and in Python)."""

    def iterated(it: ast.expr) -> ast.expr:
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and (
                it.func.id == "enumerate" and it.args):  # fmt: skip
            return it.args[0]
        return it

    names: set[str] = set()
    calls: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and n.attr in _BY_LINE and isinstance(n.value, ast.Name):
            names.add(n.value.id)
        elif isinstance(n, (ast.For, ast.comprehension)):
            it = iterated(n.iter)
            if isinstance(it, ast.Name):
                names.add(it.id)
            elif _is_read_open(it):
                calls.add(id(it))
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(
                n.targets[0], ast.Name) and n.targets[0].id in names and _is_read_open(
                n.value):  # fmt: skip
            calls.add(id(n.value))
        elif isinstance(n, ast.With):
            for item in n.items:
                v = item.optional_vars
                if isinstance(v, ast.Name) and v.id in names and _is_read_open(item.context_expr):
                    calls.add(id(item.context_expr))
    return calls


def _is_read_open(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "open" and bool(node.args)
            and write_mode(node) is None)  # fmt: skip


class Rewriter(ast.NodeTransformer):
    """The rewrite described in the module docstring; `opened` collects the paths opened
    (the i-th is the parameter `_simt_file<i>`)."""

    def __init__(
        self,
        opened: list[str],
        known: Callable[[ast.expr], Any] | None = None,
        writers: set[str] | None = None,
        per_thread: Callable[[ast.expr], str | None] | None = None,
        stdin: Callable[[], str | None] | None = None,
    ) -> None:
        self.opened = opened
        # `input()`: the key of the text given with `%stdin` (one line a thread), else None
        self.stdin = stdin
        self.no_stdin: list[ast.Call] = []  # `input()` without a `%stdin` text: refused
        self.known = known  # the value of an expression known on the host, else None
        # a path that differs by thread: the key of its files laid end to end, else None
        self.per_thread = per_thread
        self.varying: list[ast.Call] = []  # `open(path)` for reading with a per-thread path
        # `open(f"...")` for reading by a path of the thread's variables: left to the kernel's
        # own staging (simt.filereads: text, as in a @simt.kernel), and the names of those
        # that a `with` opened (closed at its end)
        self.staged: list[ast.Call] = []
        self.staged_names: set[str] = set()
        self.staged_vars: set[str] = set()  # names such a file was assigned to
        # names of files open for writing: opened in this input, or left open by earlier ones
        self.writers: set[str] = set(writers or ())
        self.records = 0  # record prints written into the input
        # `open(...)` calls (by id) of files the input reads by line (`_read_by_line`)
        self.by_line: set[int] = set()

    def visit_Module(self, node: ast.Module) -> Any:
        self.by_line = _read_by_line(node)
        return self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> Any:
        v = node.value
        if (  # `a, b = s.split(" ")`: as many parts as names
            len(node.targets) == 1
            and isinstance(node.targets[0], ast.Tuple)
            and isinstance(v, ast.Call)
            and isinstance(v.func, ast.Attribute)
            and v.func.attr == "split"
            and len(v.args) == 1
            and not v.keywords
        ):
            v.args.append(ast.Constant(len(node.targets[0].elts) - 1))
        mode = write_mode(node.value)
        if mode is None or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            out = self.generic_visit(node)
            if isinstance(out, ast.Assign) and out.value in self.staged:
                self.staged_vars.update(t.id for t in out.targets if isinstance(t, ast.Name))
            return out
        call = node.value
        assert isinstance(call, ast.Call)
        name = node.targets[0].id
        self.writers.add(name)
        path = self.visit(call.args[0])
        return self._record(node, f"{MARK}o{name}{SEP}{mode}{SEP}", path)

    def visit_With(self, node: ast.With) -> Any:
        """`with open(path[, mode]) as f: body` is `f = open(...)`, the body, then `f.close()`
        for a file opened for writing (a file to read needs no closing)."""
        item = node.items[0] if len(node.items) == 1 else None
        if (
            item is None
            or not isinstance(item.context_expr, ast.Call)
            or not isinstance(item.context_expr.func, ast.Name)
            or item.context_expr.func.id != "open"
            or not isinstance(item.optional_vars, ast.Name)
        ):
            return self.generic_visit(node)
        name = item.optional_vars.id
        stmts: list[ast.stmt] = [
            ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], item.context_expr), node),
            *node.body,
        ]
        if write_mode(item.context_expr) is not None:
            close = ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "close", ast.Load()), [], [])
            stmts.append(ast.copy_location(ast.Expr(close), node.body[-1]))
        out: list[ast.stmt] = []
        for st in stmts:
            got = self.visit(st)
            out.extend(got if isinstance(got, list) else [got])
        first = out[0]
        if isinstance(first, ast.Assign) and first.value is item.context_expr and (
            write_mode(first.value) is None and item.context_expr in self.staged
        ):  # a file the kernel stages: closed at the end of the `with`, as in Python
            self.staged_names.add(name)
            close = ast.Call(ast.Attribute(ast.Name(name, ast.Load()), "close", ast.Load()), [], [])
            out.append(ast.copy_location(ast.Expr(close), node.body[-1]))
        return out

    def _record(self, node: ast.stmt, head: str, value: ast.expr) -> list[ast.stmt]:
        """`_simt_rec(head, value, MARK, sep="", end="")` and a count of the records."""
        self.records += 1
        call = ast.Call(
            ast.Name("_simt_rec", ast.Load()),
            [ast.Constant(head), value, ast.Constant(MARK)],
            [ast.keyword("sep", ast.Constant("")), ast.keyword("end", ast.Constant(""))],
        )
        count = ast.AugAssign(ast.Name(COUNT, ast.Store()), ast.Add(), ast.Constant(1))
        return [ast.copy_location(ast.Expr(call), node), ast.copy_location(count, node)]

    def _thread_file(self, key: str) -> ast.expr:
        """Each thread's own file of the files laid end to end under `key` (a per-thread
        path, or the lines of `%stdin`): `_simt_File(words, end, base, i, base)`."""
        if key not in self.opened:
            self.opened.append(key)
        i = self.opened.index(key)
        # the thread's own index (`codegen.TID`), not `tid`: an input may assign that
        base = ast.Subscript(ast.Name(f"_simt_fbase{i}", ast.Load()),
                             ast.Name("_simt_tid", ast.Load()), ast.Load())  # fmt: skip
        end = ast.Subscript(ast.Name(f"_simt_fend{i}", ast.Load()),
                            ast.Name("_simt_tid", ast.Load()), ast.Load())  # fmt: skip
        return ast.Call(
            ast.Name("_simt_File", ast.Load()),
            [ast.Name(f"_simt_file{i}", ast.Load()), end, copy.deepcopy(base),
             ast.Constant(i), base],
            [],
        )  # fmt: skip

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in ("int", "float") and node.args:
            node.func = ast.Name(f"_simt_{node.func.id}", ast.Load())
            return node
        if write_mode(node) is not None:
            return node  # a file opened for writing but not assigned to a name: refused later
        if isinstance(node.func, ast.Name) and node.func.id == "input":
            key = self.stdin() if self.stdin is not None else None
            if key is None:
                self.no_stdin.append(node)
                return node
            return ast.Call(ast.Attribute(self._thread_file(key), "read", ast.Load()), [], [])
        if isinstance(node.func, ast.Name) and node.func.id == "open" and len(node.args) >= 1:
            path = self.known(node.args[0]) if self.known is not None else None
            if isinstance(node.args[0], ast.Constant):
                path = node.args[0].value
            if id(node) in self.by_line and (isinstance(path, str) or isinstance(
                    node.args[0], ast.JoinedStr)):  # fmt: skip
                self.staged.append(node)  # text lines, as a @simt.kernel reads them
                return node
            if not isinstance(path, str):
                key = self.per_thread(node.args[0]) if self.per_thread is not None else None
                if key is None and isinstance(node.args[0], ast.JoinedStr):
                    self.staged.append(node)  # read as a @simt.kernel reads it
                    return node
                if key is None:
                    self.varying.append(node)  # a path the host cannot compute: refused
                    return node
                return self._thread_file(key)
            if path not in self.opened:
                self.opened.append(path)
            i = self.opened.index(path)
            return ast.Call(
                ast.Name("_simt_File", ast.Load()),
                [
                    ast.Name(f"_simt_file{i}", ast.Load()),
                    ast.Name(f"_simt_size{i}", ast.Load()),
                    ast.Constant(0),
                    ast.Constant(i),
                ],
                [],
            )
        return node

    def visit_Expr(self, node: ast.Expr) -> Any:
        v = node.value
        if (
            isinstance(v, ast.Call)
            and isinstance(v.func, ast.Attribute)
            and isinstance(v.func.value, ast.Name)
            and v.func.value.id in self.writers
        ):
            name, attr = v.func.value.id, v.func.attr
            if attr == "close" and not v.args:
                return self._record(node, f"{MARK}c{name}{SEP}", ast.Constant(""))
            if attr == "write" and len(v.args) == 1 and not v.keywords:
                return self._record(node, f"{MARK}w{name}{SEP}", self.visit(v.args[0]))
        self.generic_visit(node)
        v = node.value
        if (
            isinstance(v, ast.Call)
            and isinstance(v.func, ast.Attribute)
            and v.func.attr == "seek"
            and isinstance(v.func.value, ast.Name)
            and v.func.value.id not in self.staged_vars  # a text file's seek moves it itself
        ):
            return ast.Assign([ast.Name(v.func.value.id, ast.Store())], v, lineno=node.lineno)
        return node

    def visit_Compare(self, node: ast.Compare) -> Any:
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            call = ast.Call(ast.Name("_simt_eq", ast.Load()), [node.left, node.comparators[0]], [])
            return ast.UnaryOp(ast.Not(), call) if isinstance(node.ops[0], ast.NotEq) else call
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            call = ast.Call(ast.Name("_simt_in", ast.Load()), [node.comparators[0], node.left], [])
            if isinstance(node.ops[0], ast.NotIn):
                return ast.UnaryOp(ast.Not(), call)
            return call
        return node

    def visit_Subscript(self, node: ast.Subscript) -> Any:
        self.generic_visit(node)
        if isinstance(node.slice, ast.Slice) and isinstance(node.ctx, ast.Load):
            sl = node.slice
            return ast.Call(
                ast.Name("_simt_slice", ast.Load()),
                [node.value, sl.lower or ast.Constant(0), sl.upper or ast.Constant(OPEN_END)],
                [],
            )
        return node
