"""Files and byte strings in REPL inputs: `open(path)`, `f.seek(n)`, `f.read(k)`, slicing,
`len`, `in` (substring test) and `==`, each thread with its own slice of a read-only file.

A file is read once on the host into a uint32 array (four bytes a word, the kernel language
having no 8-bit type) passed to every kernel that uses it. `File` and `ByteStr` are ordinary
classes, which kernels take as compile-time structs; an input is rewritten so that what Python
writes with mutation or syntax the kernel language lacks becomes calls (`f.seek(n)` becomes
`f = f.seek(n)`, `w in s` becomes `_simt_in(s, w)`, `a == b` becomes `_simt_eq(a, b)`,
`s[a:b]` becomes `_simt_slice(s, a, b)`). `print` of a byte string is not supported yet.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np


class ByteStr:
    """`length` bytes of a file's words `data` from byte `start`."""

    def __init__(self, data: Any, start: Any, length: Any) -> None:
        self.data = data
        self.start = start
        self.length = length

    def byte(self, i: Any) -> Any:
        """Byte `i` of the string, as an int."""
        j = self.start + i
        return (self.data[j >> 2] >> ((j & 3) * 8)) & 255


class File:
    """A read-only file of `size` bytes with a position; `seek` returns the moved file."""

    def __init__(self, data: Any, size: Any, pos: Any) -> None:
        self.data = data
        self.size = size
        self.pos = pos

    def seek(self, n: Any) -> File:
        """The file positioned at byte `n` (clamped to the file)."""
        return File(self.data, self.size, min(max(n, 0), self.size))

    def read(self, k: Any) -> ByteStr:
        """The next `k` bytes (fewer at the end of the file)."""
        return ByteStr(self.data, self.pos, max(min(k, self.size - self.pos), 0))


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


def r_slice(s: Any, lower: Any, upper: Any) -> Any:
    """`s[lower:upper]` of a byte string (None for an open end; no negative indices)."""
    lo = 0 if lower is None else min(max(lower, 0), s.length)
    hi = s.length if upper is None else min(max(upper, lo), s.length)
    return ByteStr(s.data, s.start + lo, hi - lo)


def r_len(x: Any) -> Any:
    """`len(x)`, byte strings included."""
    if isinstance(x, ByteStr):
        return x.length
    return len(x)


NAMESPACE = {
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


def needs_rewrite(tree: ast.Module, objects: set[str]) -> bool:
    """Whether the input uses files or byte-string syntax."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and (n.id == "open" or n.id in objects):
            return True
        if isinstance(n, ast.Compare) and any(isinstance(o, (ast.In, ast.NotIn)) for o in n.ops):
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Slice):
            return True
    return False


class Rewriter(ast.NodeTransformer):
    """The rewrite described in the module docstring; `opened` collects the paths opened
    (the i-th is the parameter `_simt_file<i>`)."""

    def __init__(self, opened: list[str]) -> None:
        self.opened = opened

    def visit_Call(self, node: ast.Call) -> Any:
        self.generic_visit(node)
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "open"
            and len(node.args) >= 1
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            path = node.args[0].value
            if path not in self.opened:
                self.opened.append(path)
            i = self.opened.index(path)
            return ast.Call(
                ast.Name("_simt_File", ast.Load()),
                [
                    ast.Name(f"_simt_file{i}", ast.Load()),
                    ast.Name(f"_simt_size{i}", ast.Load()),
                    ast.Constant(0),
                ],
                [],
            )
        return node

    def visit_Expr(self, node: ast.Expr) -> Any:
        self.generic_visit(node)
        v = node.value
        if (
            isinstance(v, ast.Call)
            and isinstance(v.func, ast.Attribute)
            and v.func.attr == "seek"
            and isinstance(v.func.value, ast.Name)
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
            none = ast.Constant(None)
            return ast.Call(
                ast.Name("_simt_slice", ast.Load()),
                [node.value, sl.lower or none, sl.upper or none],
                [],
            )
        return node
