"""Helpers the optimisation passes share: value substitution, effect queries, cloning."""

from __future__ import annotations

from ..ir import Block, Op, Value, walk
from ..ir.ops import EFFECTS, WRITES


class Subst:
    """A substitution of values: uses of `old` are to be read as uses of `new`.

    Chains are followed (`a -> b -> c` reads `a` as `c`), so a pass may record a replacement
    before it knows that the replacement itself will be replaced.
    """

    def __init__(self) -> None:
        self.map: dict[int, Value] = {}

    def set(self, old: Value, new: Value) -> None:
        """Read uses of `old` as uses of `new` from now on."""
        if old is not new:
            self.map[old.id] = new

    def get(self, v: Value) -> Value:
        """The value `v` stands for now."""
        while v.id in self.map:
            v = self.map[v.id]
        return v

    def apply(self, op: Op) -> None:
        """Rewrite the operands of `op` (not of the ops nested in it)."""
        if self.map:
            op.operands = [self.get(v) for v in op.operands]

    def apply_all(self, block: Block) -> None:
        """Rewrite the operands of every op in `block` and in its nested regions."""
        if self.map:
            for op in walk(block):
                self.apply(op)


def contains(op: Op, opcodes: frozenset[str]) -> bool:
    """Whether `op` is one of `opcodes` or has one nested in its regions."""
    if op.opcode in opcodes:
        return True
    return any(contains(o, opcodes) for r in op.regions for o in r.ops)


def has_effect(op: Op) -> bool:
    """Whether `op` or an op nested in it has an effect (store, atomic, print, ...)."""
    return contains(op, EFFECTS)


def writes_memory(op: Op) -> bool:
    """Whether `op` or an op nested in it may change what a load reads."""
    return contains(op, WRITES)


def size(block: Block) -> int:
    """The number of ops in `block` and its nested regions, terminators excluded."""
    return sum(1 for op in walk(block) if op.opcode not in ("yield", "condition"))


def clone_op(op: Op, vmap: dict[int, Value]) -> Op:
    """A copy of `op` with fresh results, its operands read through `vmap`.

    `vmap` maps old value ids to new values; the copy's results and the block arguments of its
    copied regions are added to it, so later clones see them.
    """
    results = []
    for r in op.results:
        nr = Value(r.type, r.hint)
        vmap[r.id] = nr
        results.append(nr)
    regions = [clone_block(b, vmap) for b in op.regions]
    operands = [vmap.get(v.id, v) for v in op.operands]
    return Op(op.opcode, operands, results, dict(op.attrs), regions, op.loc)


def clone_block(block: Block, vmap: dict[int, Value]) -> Block:
    """A copy of `block` with fresh arguments and values (see `clone_op`)."""
    args = []
    for a in block.args:
        na = Value(a.type, a.hint)
        vmap[a.id] = na
        args.append(na)
    return Block(args, [clone_op(o, vmap) for o in block.ops])
