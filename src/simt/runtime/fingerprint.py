"""A text that decides the code a runtime compiles for a kernel's IR: the key of the disk caches
that skip rendering (`webgpu_cache`) and the cpu runtime's `Compiled.source`."""

from __future__ import annotations

from typing import Any

from ..ir import Block, Function


def fingerprint(fn: Function) -> str:
    """A text that decides the code compiled for `fn`: parameters, flags and every op with its
    attributes and types, values numbered in order of appearance (so the same kernel gives
    the same text in every process), source locations left out (they only name error sites,
    which a launch looks up in its own function)."""
    ids: dict[int, int] = {}
    attrs = sorted(fn.attrs.items(), key=lambda kv: kv[0])
    out = [f"fp64={fn.fp64} debug={fn.debug} boundscheck={fn.boundscheck} {attrs!r}"]

    def num(v: Any) -> int:
        return ids.setdefault(v.id, len(ids))

    for p in fn.params:
        out.append(f"param {p.name} {p.index} {p.part!r} {num(p.value)} {p.value.type!r}")

    def block(b: Block) -> None:
        out.append("{ " + " ".join(f"{num(a)}:{a.type!r}" for a in b.args))
        for op in b.ops:
            attrs = sorted(op.attrs.items(), key=lambda kv: kv[0])
            out.append(f"{op.opcode} {[num(v) for v in op.operands]} "
                       f"{[(num(r), r.type) for r in op.results]!r} {attrs!r}")  # fmt: skip
            for r in op.regions:
                block(r)
        out.append("}")

    block(fn.body)
    return "\n".join(out)
