"""IR nodes: what a hidden parameter is, said by its kind (`Param.hidden`), not by its name."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import types as T
from simt.ir import Hidden, Param, Value


def _uses_both(out, n):  # noqa: ANN001, ANN202 - a kernel
    i = simt.grid(1)
    if i < len(out):
        xs = [1.0]
        for j in range(n):
            xs.append(2.0 * j)
        if i == 3:
            raise IndexError("three")
        out[i] = xs[n]


def test_hidden_parameters_carry_their_kind() -> None:
    k = simt.kernel(_uses_both)
    out = np.zeros(4)
    fn, _ = k.specialised_ir(out, 2)
    kinds = {p.name: p.hidden for p in fn.params if p.index < 0}
    assert Hidden.FAILURES in kinds.values() and Hidden.ARENA in kinds.values(), kinds
    assert all(p.hidden is None for p in fn.params if p.index >= 0)
    for p in fn.params:  # each kind gets its own array from the one entry
        if p.hidden is Hidden.FAILURES:
            assert fn.hidden_zeros(p, 4).size == fn.attrs["failure_words"]
        elif p.hidden is Hidden.ARENA:
            assert fn.hidden_zeros(p, 4).size == fn.arena_length(p, 4)


@pytest.mark.parametrize("backend", ["sim", "cpu"])
def test_a_launch_makes_each_kind_of_hidden_parameter(backend: str) -> None:
    k = simt.kernel(_uses_both)
    out = np.zeros(4)
    with simt.using(backend), pytest.raises(simt.KernelError) as info:
        k[1, 4](out, 2)
    assert "IndexError" in str(info.value)
    assert out[0] == 2.0 and out[2] == 2.0


def test_a_parameter_without_an_argument_must_say_its_kind() -> None:
    v = Value(T.ArrayType(T.INT32, 1), "x")
    with pytest.raises(AssertionError):
        Param("x", -1, v)
    with pytest.raises(AssertionError):
        Param("x", 0, v, hidden=Hidden.ARENA)
    assert Param.made(Hidden.ARENA, v).name == "x"


def test_copy_function_is_deepcopy_without_sharing() -> None:
    """`copy_function` (the CPU lowering's copy of a kernel) makes what `copy.deepcopy` makes:
    the same text, values keeping their ids, attributes equal; no op, block, value or
    attribute dict shared with the original, so that a pass changing the copy leaves it be."""
    import copy

    from simt.ir import copy_function, format_function, walk, walk_blocks

    k = simt.kernel(_uses_both)
    fn, _ = k.specialised_ir(np.zeros(4), 2)
    fn.attrs["bounds"] = {"kept": [1, 2]}  # a mutable attribute: copied, not shared
    deep, fast = copy.deepcopy(fn), copy_function(fn)
    assert format_function(fast) == format_function(deep) == format_function(fn)
    assert fast.attrs.keys() == deep.attrs.keys() and fast.attrs["bounds"] == {"kept": [1, 2]}
    assert fast.attrs["bounds"] is not fn.attrs["bounds"]
    for a, b in zip(walk(fn.body), walk(fast.body), strict=True):
        assert a is not b and a.attrs is not b.attrs and a.attrs == b.attrs
        assert [v.id for v in a.results] == [v.id for v in b.results]
        assert not {id(v) for v in a.results + a.operands} & {id(v) for v in b.results}
    blocks = {id(b) for b in walk_blocks(fn.body)}
    assert not blocks & {id(b) for b in walk_blocks(fast.body)}
    for p, q in zip(fn.params, fast.params, strict=True):
        assert p is not q and p.value is not q.value and vars(p).keys() == vars(q).keys()
    # a value an attribute names is the copy's own
    first = next(op for op in walk(fn.body) if op.results)
    first.attrs["names"] = [first.results[0]]
    again = copy_function(fn)
    twin = next(op for op in walk(again.body) if op.results)
    assert twin.attrs["names"][0] is twin.results[0]
    del first.attrs["names"]


def test_walks_are_pre_order_at_any_depth() -> None:
    """`walk` and `walk_blocks` visit ops and blocks in program order, outer first, however deep
    the nesting (one generator for the whole walk: a raising kernel nests hundreds deep)."""
    from simt.ir import Block, Op, walk, walk_blocks

    def nest(depth: int) -> Block:
        ops = [Op("note")]
        if depth:
            ops.append(Op("if", regions=[nest(depth - 1), nest(depth - 1)]))
        ops.append(Op("note"))
        return Block([], ops)

    def ref_ops(b: Block) -> list[Op]:
        return [x for op in b.ops for x in [op, *(y for r in op.regions for y in ref_ops(r))]]

    def ref_blocks(b: Block) -> list[Block]:
        return [b, *(x for op in b.ops for r in op.regions for x in ref_blocks(r))]

    body = nest(6)
    assert list(walk(body)) == ref_ops(body)
    assert list(walk_blocks(body)) == ref_blocks(body)
    deep = Block([], [Op("note")])
    for _ in range(3000):  # deeper than Python's recursion limit
        deep = Block([], [Op("if", regions=[deep]), Op("note")])
    assert sum(1 for _ in walk(deep)) == 2 * 3000 + 1
    assert sum(1 for _ in walk_blocks(deep)) == 3001
