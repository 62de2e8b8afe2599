"""A small helper that appends ops to the current block; used by the front end and passes."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..types import BOOL, INT32, Scalar, Type
from .nodes import Block, Loc, Op, Value


class Builder:
    """Appends ops to a stack of blocks; `loc` is stamped on every op it creates."""

    def __init__(self, block: Block) -> None:
        self.blocks: list[Block] = [block]
        self.loc: Loc | None = None

    @property
    def block(self) -> Block:
        """The block ops are appended to now."""
        return self.blocks[-1]

    @contextmanager
    def at(self, block: Block) -> Iterator[Block]:
        """Append to `block` inside the `with`."""
        self.blocks.append(block)
        try:
            yield block
        finally:
            self.blocks.pop()

    def op(
        self,
        opcode: str,
        operands: Sequence[Value] = (),
        result_types: Sequence[Type] = (),
        regions: Sequence[Block] = (),
        hint: str = "",
        **attrs: Any,
    ) -> Op:
        """Create an op with fresh result values and append it."""
        results = [Value(t, hint) for t in result_types]
        op = Op(opcode, list(operands), results, dict(attrs), list(regions), self.loc)
        self.block.ops.append(op)
        return op

    # Shorthands for the common single-result ops.
    def const(self, value: int | float | bool, type: Scalar) -> Value:
        if type.is_bool:
            value = bool(value)
        elif type.is_int:
            value = int(value)
        else:
            value = float(value)
        return self.op("const", (), [type], value=value).result

    def bin(self, op: str, a: Value, b: Value) -> Value:
        return self.op("bin", [a, b], [a.type], op=op).result

    def cmp(self, op: str, a: Value, b: Value) -> Value:
        return self.op("cmp", [a, b], [BOOL], op=op).result

    def un(self, op: str, a: Value) -> Value:
        return self.op("un", [a], [a.type], op=op).result

    def cast(self, a: Value, to: Scalar) -> Value:
        if a.type == to:
            return a
        return self.op("cast", [a], [to]).result

    def select(self, cond: Value, a: Value, b: Value) -> Value:
        return self.op("select", [cond, a, b], [a.type]).result

    def special(self, reg: str, axis: int) -> Value:
        return self.op("special", (), [INT32], reg=reg, axis=axis).result

    def when(self, cond: Value, then: Callable[[], None]) -> None:
        """An `if` with no results: the ops `then()` appends run where `cond` holds."""
        tb, eb = Block(), Block()
        with self.at(tb):
            then()
            self.op("yield")
        with self.at(eb):
            self.op("yield")
        self.op("if", [cond], [], [tb, eb])
