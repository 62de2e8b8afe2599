"""The one dispatch idiom of everything that walks the IR op by op (every renderer, the cost
model's evaluator): `RULES`, a class table {opcode: method name} that a subclass extends with
its own methods (`{**Base.RULES, "bin": "bin", ...}`), bound to the instance once (`rule`).
A walker with a second job per op (sim's trace reports) keeps a second such table, bound the
same way (`bind`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, TypeVar

from .nodes import Op

R = TypeVar("R", bound=Callable[..., Any])


def bind(obj: object, table: Mapping[str, str]) -> dict[str, Any]:
    """`table` ({opcode: method name}) with each name replaced by `obj`'s bound method."""
    return {opcode: getattr(obj, method) for opcode, method in table.items()}


class Rules(Generic[R]):
    """A table {opcode: method name} (`RULES`) bound to the instance: `rule(op)` is the method
    that handles `op` (its signature, `R`, is the walker's: a renderer's `(op)`, the sim
    renderer's `(op, depth, mask)`, the evaluator's `(op, mask)`)."""

    RULES: ClassVar[dict[str, str]] = {}

    def __init__(self) -> None:
        self._rules: dict[str, R] = bind(self, self.RULES)

    def rule(self, op: Op) -> R | None:
        """The method that handles `op` (None: no rule for its opcode)."""
        return self._rules.get(op.opcode)
