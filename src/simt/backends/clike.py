"""Helpers for the renderers whose output is C-like text (CUDA C++ and WGSL).

Only what both languages spell alike lives here: naming SSA values as identifiers, the
spelling of operators that are the same in both, operator precedence and parenthesisation,
and indented line collection. Anything one language spells its own way stays in its renderer.
"""

from __future__ import annotations

import re

from ..ir import Value

# Operators spelled the same in C/C++ and WGSL, by IR op name.
BIN_SYMBOLS: dict[str, str] = {
    "add": "+", "sub": "-", "mul": "*", "div": "/",
    "and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>",
}  # fmt: skip
CMP_SYMBOLS: dict[str, str] = {
    "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
}  # fmt: skip

# Binding strength of binary operators (higher binds tighter), the C table. WGSL has the same
# relative order for the operators it has (it forbids mixing some, which parenthesising every
# operand of lower or equal strength satisfies).
PRECEDENCE: dict[str, int] = {
    "*": 13, "/": 13, "%": 13,
    "+": 12, "-": 12,
    "<<": 11, ">>": 11,
    "<": 10, "<=": 10, ">": 10, ">=": 10,
    "==": 9, "!=": 9,
    "&": 8, "^": 7, "|": 6, "&&": 5, "||": 4,
}  # fmt: skip
ATOM = 100  # an identifier, literal, call or parenthesised expression

_NOT_IDENT = re.compile(r"[^0-9A-Za-z_]")


def ident(text: str) -> str:
    """`text` made into a C/WGSL identifier: other characters become `_`, never a leading
    digit, never a leading double underscore (reserved in both languages)."""
    out = _NOT_IDENT.sub("_", text) or "_"
    if out[0].isdigit():
        out = "_" + out
    while out.startswith("__"):
        out = out[1:]
    return out


def value_name(v: Value) -> str:
    """The identifier of an SSA value: the user's variable name when it had one, then its id
    (`i_12`), so names never collide with each other or with keywords of either language."""
    if v.hint:
        name = f"{ident(v.hint)}_{v.id}"
        if not name.startswith("__"):  # `_` as a name would give `__5`: reserved in both
            return name
    return f"v{v.id}"


def paren(expr: str, strength: int, need: int) -> str:
    """`expr` (of binding `strength`) wrapped in parentheses unless it binds tighter than
    `need`; equal strength is wrapped too, so `a - (b - c)` and `(a << b) + c` come out right
    without relying on associativity."""
    return expr if strength > need else f"({expr})"


def binary(op: str, a: str, b: str, a_strength: int = ATOM, b_strength: int = ATOM) -> str:
    """`a op b` with each operand parenthesised as its strength needs. Returns the text; its
    strength is `PRECEDENCE[op]`."""
    p = PRECEDENCE[op]
    # The left operand may share the operator's strength (left associativity) except for
    # comparisons and bitwise operators, which WGSL refuses to chain unparenthesised.
    left = a if a_strength > p or (a_strength == p and op in ("+", "*")) else f"({a})"
    return f"{left} {op} {paren(b, b_strength, p)}"


class Lines:
    """Collects indented lines of output."""

    def __init__(self, indent: str = "    ") -> None:
        self.lines: list[str] = []
        self.depth = 0
        self.indent = indent

    def add(self, line: str) -> None:
        """Append `line` at the current depth."""
        self.lines.append(self.indent * self.depth + line if line else "")

    def open(self, line: str) -> None:
        """Append `line` (ending in `{`) and indent what follows."""
        self.add(line)
        self.depth += 1

    def close(self, line: str = "}") -> None:
        """Dedent and append the closing `line`."""
        self.depth -= 1
        self.add(line)

    def text(self) -> str:
        """Everything collected, newline-terminated."""
        return "\n".join(self.lines) + "\n"
