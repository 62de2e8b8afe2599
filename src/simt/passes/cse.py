"""Common-subexpression elimination of pure ops and of loads, scope by scope.

Two ops with the same opcode, operands, attributes and result types compute the same value;
the second reads the first's result instead. A value defined in a block is visible in the
regions nested after it, so an expression of an outer block is reused inside an `if` or a
loop, never the other way round. Loads are reused only while no store, atomic, cas or barrier
(or a region holding one) lies between them, and never from outside a loop into its body or
condition (another thread may change memory between iterations); a checked load (`if ok:
load else 0`, `_guarded_load`) is merged as a load. Ops with effects, `alloc`
(each makes a new array) and structured ops are never merged.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Hashable

from ..ir import Block, Function, Op, Value
from ..ir.ops import COMMUTATIVE, PURE
from .rewrite import Subst, writes_memory

_Table = ChainMap[Hashable, Value]


def cse(fn: Function) -> Function:
    """Merge the common subexpressions of `fn`, in place; returns `fn`."""
    _block(fn.body, ChainMap(), ChainMap(), Subst(), {})
    return fn


def _attr_key(x: object) -> Hashable:
    if isinstance(x, float):
        return ("float", repr(x))  # tells 0.0 from -0.0; NaN matches NaN (same bits)
    if isinstance(x, (bool, int, str)) or x is None:
        return (type(x).__name__, x)
    if isinstance(x, tuple):
        return tuple(_attr_key(i) for i in x)
    return ("obj", id(x))


def _key(op: Op) -> Hashable:
    attrs = tuple(sorted((k, _attr_key(v)) for k, v in op.attrs.items()))
    ids = [v.id for v in op.operands]
    name = op.attrs.get("op")
    if op.opcode in ("bin", "cmp") and (
        name in COMMUTATIVE or (name in ("min", "max") and not op.operands[0].scalar.is_float)
    ):
        ids.sort()
    return (op.opcode, tuple(ids), attrs, tuple(r.type for r in op.results))


def _guarded_load(op: Op, consts: dict[int, Hashable]) -> Hashable | None:
    """The key of a checked load, `if ok: yield load(a, i) else: yield <constant>` (the front
    end's IndexError check, `frontend.raising.guarded_value`), which is merged as a load is;
    None for any other op."""
    if op.opcode != "if" or len(op.results) != 1:
        return None
    then, other = op.regions
    if len(then.ops) != 2 or len(other.ops) not in (1, 2):
        return None
    load, y1 = then.ops
    if load.opcode != "load" or y1.operands != load.results:
        return None
    z = other.ops[-1].operands[0]  # a constant merged with one outside: its key
    zero: Hashable = consts.get(z.id, ("value", z.id))
    if len(other.ops) == 2:
        c, y2 = other.ops
        if c.opcode != "const" or y2.operands != c.results:
            return None
        zero = _key(c)
    return ("checked", op.operands[0].id, _key(load), zero)


def _block(
    block: Block, pure: _Table, loads: _Table, subst: Subst, consts: dict[int, Hashable]
) -> None:
    kept: list[Op] = []
    for op in block.ops:
        subst.apply(op)
        k = op.opcode
        if k in PURE or k == "load":
            table = pure if k in PURE else loads
            key = _key(op)
            prev = table.get(key)
            if prev is not None:
                subst.set(op.result, prev)
                continue
            table[key] = op.result
            if k == "const":
                consts[op.result.id] = key
        elif op.regions:
            looping = k in ("for", "while")
            for region in op.regions:
                inner = ChainMap() if looping else loads.new_child()
                _block(region, pure.new_child(), inner, subst, consts)
            key = _guarded_load(op, consts)
            if key is not None:  # merged like the load it guards
                prev = loads.get(key)
                if prev is not None:
                    subst.set(op.result, prev)
                    continue
                loads[key] = op.result
        if writes_memory(op):
            loads = ChainMap()
        kept.append(op)
    block.ops = kept
