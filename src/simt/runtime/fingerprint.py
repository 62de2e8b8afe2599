"""A text that decides the code a runtime compiles for a kernel's IR: the key of the disk caches
that skip rendering (`webgpu_cache`) and the cpu runtime's `Compiled.source`."""

from __future__ import annotations

import types
from typing import Any

from ..ir import Block, Function


def _attrs(items: dict[str, Any]) -> str:
    """`items` sorted by name, as text the same in every process: a function or class (the
    host's failure decoder, `attrs["decode_failures"]`) by its qualified name, not by its repr,
    which holds its address in this process (a new process's cache never hit)."""

    def text(x: Any) -> str:
        if isinstance(x, (types.FunctionType, types.BuiltinFunctionType, type)):
            return f"<{x.__module__}.{x.__qualname__}>"
        return repr(x)

    return "[" + ", ".join(f"({k!r}, {text(v)})" for k, v in sorted(items.items())) + "]"


def fingerprint(fn: Function) -> str:
    """A text that decides the code compiled for `fn`: parameters, flags and every op with its
    attributes and types, values numbered in order of appearance (so the same kernel gives
    the same text in every process), source locations left out (they only name error sites,
    which a launch looks up in its own function)."""
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
