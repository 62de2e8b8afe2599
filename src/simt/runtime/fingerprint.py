"""A text that decides the code a runtime compiles for a kernel's IR: the key of the disk caches
that skip rendering (`webgpu_cache`) and the cpu runtime's `Compiled.source`."""

from __future__ import annotations

import functools
import hashlib
import os
import types
from typing import Any

from ..ir import Block, Function


def _attrs(items: dict[str, Any]) -> str:
    """`items` sorted by name, as text the same in every process: a function or class (the
    host's failure decoder, `attrs["decode_failures"]`) by its qualified name, not by its repr,
    which holds its address in this process (a new process's cache never hit). A function
    without a name of its own at module level (a closure, a lambda: `<locals>`, `<lambda>` in
    its qualified name) keeps its repr: two of them may differ under one name, and a cache
    miss is safe where a shared key would not be."""

    def text(x: Any) -> str:
        if isinstance(x, (types.FunctionType, types.BuiltinFunctionType, type)) and (
            "<" not in x.__qualname__
        ):
            return f"<{x.__module__}.{x.__qualname__}>"
        return repr(x)

    return "[" + ", ".join(f"({k!r}, {text(v)})" for k, v in sorted(items.items())) + "]"


def fingerprint(fn: Function) -> str:
    """A text that decides the code compiled for `fn`: parameters, flags and every op with its
    attributes and types, values numbered in order of appearance (so the same kernel gives
    the same text in every process), the ops' source locations left out (they only name
    error sites, which a launch looks up in its own function). Attributes that hold source
    lines are in it (a kernel whose threads may raise: `attrs["raise_sites"]`, the bounds
    report's kept checks), so such a kernel is compiled again after an edit that moves its
    lines: a cache miss, never a wrong message."""
    ids: dict[int, int] = {}
    out = [f"fp64={fn.fp64} debug={fn.debug} boundscheck={fn.boundscheck} {_attrs(fn.attrs)}"]

    def num(v: Any) -> int:
        return ids.setdefault(v.id, len(ids))

    for p in fn.params:
        out.append(f"param {p.name} {p.index} {p.part!r} {num(p.value)} {p.value.type!r}")

    def block(b: Block) -> None:
        out.append("{ " + " ".join(f"{num(a)}:{a.type!r}" for a in b.args))
        for op in b.ops:
            operands = [num(v) for v in op.operands]
            results = [(num(r), r.type) for r in op.results]
            out.append(f"{op.opcode} {operands} {results!r} {_attrs(op.attrs)}")
            for r in op.regions:
                block(r)
        out.append("}")

    block(fn.body)
    return "\n".join(out)


@functools.cache
def source_digest() -> str:
    """A hash of simt's own source files, each by its path, size and modification time (a
    stat each, no reading), for the disk caches that skip lowering or rendering (`cpu_cache`,
    `webgpu_cache`): code compiled by simt's code as it was is compiled again. All of them,
    not a list of the modules that lower and render, which goes stale (the WGSL cache hashed
    backends/wgsl*.py alone, and the WGSL renderer is a subclass of clike's)."""
    return tree_digest(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def tree_digest(root: str) -> str:
    """A hash of the path, size and modification time of every .py file under `root`."""
    entries = []
    folders = [root]
    while folders:
        with os.scandir(folders.pop()) as it:
            for e in it:
                if e.name.endswith(".py") and e.is_file():
                    st = e.stat()
                    rel = e.path[len(root) :]
                    entries.append(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}")
                elif e.is_dir() and e.name != "__pycache__":
                    folders.append(e.path)
    return hashlib.sha256("\n".join(sorted(entries)).encode()).hexdigest()
