"""The IR printer: one readable line an op, regions indented."""

from __future__ import annotations

from .nodes import Block, Function, Op, Value
from .ops import Field


def _v(v: Value) -> str:
    return f"%{v.hint}.{v.id}" if v.hint else f"%{v.id}"


def _typed(v: Value) -> str:
    return f"{_v(v)}: {v.type}"


def _attr(k: str, x: object) -> str:
    if k == "parts":
        parts = []
        for p in x:  # type: ignore[attr-defined]
            parts.append(repr(p) if isinstance(p, str) else f"{{{p.arg}:{p.spec}}}")
        return "parts=[" + ", ".join(parts) + "]"
    if k == "data":  # a table's elements: the first few
        items = list(x)  # type: ignore[call-overload]
        more = f", ... {len(items)} in all" if len(items) > 8 else ""
        return "data=[" + ", ".join(map(repr, items[:8])) + more + "]"
    return f"{k}={x!r}"


def format_op(op: Op, indent: int = 0) -> list[str]:
    """The lines that print `op` (and its regions) at `indent` levels."""
    pad = "  " * indent
    lhs = ", ".join(_typed(r) for r in op.results)
    head = f"{lhs} = " if lhs else ""
    name = op.opcode
    attrs = {k: v for k, v in op.attrs.items()}
    if name in ("bin", "cmp", "un", "atomic") and "op" in attrs:
        name = f"{name}.{attrs.pop('op')}"
    if name == "math":
        name = f"math.{attrs.pop('fn')}"
    if name == "special":
        name = f"{attrs.pop('reg')}.{'xyz'[attrs.pop('axis')]}"
    if name == "const":
        text = f"{pad}{head}{attrs.pop('value')!r}"
    else:
        text = f"{pad}{head}{name} " + ", ".join(_v(o) for o in op.operands)
    rest = " ".join(_attr(k, v) for k, v in attrs.items())
    if rest:
        text += f"  [{rest}]"
    if op.loc is not None and op.opcode in ("store", "load", "assert", "print", "atomic", "cas"):
        text += f"    # line {op.loc.line}"
    lines = [text.rstrip()]
    names = {"if": ("then", "else"), "while": ("cond", "do"), "for": ("do",)}.get(op.opcode, ())
    for i, region in enumerate(op.regions):
        label = names[i] if i < len(names) else f"region{i}"
        args = ", ".join(_typed(a) for a in region.args)
        lines.append(f"{pad}  {label}({args}):" if args else f"{pad}  {label}:")
        lines.extend(format_block(region, indent + 2))
    return lines


def format_block(block: Block, indent: int = 0) -> list[str]:
    """The lines that print every op of `block`."""
    out: list[str] = []
    for op in block.ops:
        out.extend(format_op(op, indent))
    return out


def format_function(fn: Function) -> str:
    """`fn` as text: its signature, then its body."""
    params = ", ".join(f"{_v(p.value)}: {p.value.type}" for p in fn.params)
    head = f"kernel {fn.name}({params})"
    flags = [f for f, on in (("fp64", fn.fp64), ("debug", fn.debug),
                             ("boundscheck=False", not fn.boundscheck)) if on]  # fmt: skip
    if flags:
        head += "  [" + ", ".join(flags) + "]"
    body = format_block(fn.body, 1)
    return "\n".join([head + ":", *body]) + "\n"


__all__ = ["format_function", "format_block", "format_op", "Field"]
