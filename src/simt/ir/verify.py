"""The IR verifier: checks a function against the invariants of `ops.py`.

Tests run it after every pass; a failure is a bug in simt, never the user's, so it raises
`IRError` (an AssertionError) with the offending op printed.
"""

from __future__ import annotations

from math import prod

from ..types import BOOL, CONST, INT32, UINT32, ArrayType, Scalar
from .nodes import Block, Function, Op, Value
from .ops import (
    ATOMIC_OPS,
    BIN_OPS,
    CMP_OPS,
    MEMORY,
    SPECIAL_REGS,
    STORES,
    STRUCTURED,
    TERMINATORS,
    UN_OPS,
    WARP_OPS,
)
from .printer import format_op


class IRError(AssertionError):
    """The IR broke an invariant: a compiler bug."""


def verify(fn: Function) -> None:
    """Raise `IRError` if `fn` is not well formed."""
    defined: set[int] = {p.value.id for p in fn.params}
    _block(fn.body, defined, None)


def _fail(op: Op, why: str) -> None:
    raise IRError(f"{why}\n  in: {' '.join(format_op(op))}")


def _block(block: Block, outer: set[int], terminator: str | None) -> None:
    defined = set(outer)
    for a in block.args:
        if a.id in defined:
            raise IRError(f"block argument %{a.id} defined twice")
        defined.add(a.id)
    for i, op in enumerate(block.ops):
        for v in op.operands:
            if v.id not in defined:
                _fail(op, f"operand %{v.id} used before it is defined (or out of scope)")
        is_last = i == len(block.ops) - 1
        if op.opcode in TERMINATORS:
            if not is_last:
                _fail(op, "terminator in the middle of a block")
            if op.opcode != terminator:
                _fail(op, f"block must end with {terminator!r}, not {op.opcode!r}")
        _check(op)
        if op.opcode in STRUCTURED:
            _regions(op, defined)
        for r in op.results:
            if r.id in defined:
                _fail(op, f"%{r.id} defined twice")
            defined.add(r.id)
    if terminator is not None and (not block.ops or block.ops[-1].opcode != terminator):
        raise IRError(f"region does not end with {terminator!r}")


def _yield_types(block: Block) -> list[object]:
    term = block.ops[-1]
    return [v.type for v in term.operands]


def _regions(op: Op, defined: set[int]) -> None:
    res = [r.type for r in op.results]
    if op.opcode == "if":
        if len(op.regions) != 2:
            _fail(op, "if needs then and else regions")
        for r in op.regions:
            if r.args:
                _fail(op, "if regions take no arguments")
            _block(r, defined, "yield")
            if _yield_types(r) != res:
                _fail(op, "if branch yields types other than the op's results")
    elif op.opcode == "for":
        (body,) = op.regions
        if [a.type for a in body.args[1:]] != res or len(body.args) != len(res) + 1:
            _fail(op, "for body arguments must be the induction variable then the carried values")
        if [v.type for v in op.operands[3:]] != res:
            _fail(op, "for initial values do not match its results")
        _block(body, defined, "yield")
        if _yield_types(body) != res:
            _fail(op, "for body yields types other than its carried values")
    elif op.opcode == "while":
        cond, body = op.regions
        if [v.type for v in op.operands] != res:
            _fail(op, "while initial values do not match its results")
        for r, term in ((cond, "condition"), (body, "yield")):
            if [a.type for a in r.args] != res:
                _fail(op, "while region arguments must match the carried values")
            _block(r, defined, term)
        if _yield_types(body) != res:
            _fail(op, "while body yields types other than its carried values")


def _scalar(op: Op, v: Value) -> Scalar:
    if not isinstance(v.type, Scalar):
        _fail(op, f"%{v.id} must be a scalar")
    assert isinstance(v.type, Scalar)
    return v.type


def _array(op: Op, v: Value) -> ArrayType:
    if not isinstance(v.type, ArrayType):
        _fail(op, f"%{v.id} must be an array")
    assert isinstance(v.type, ArrayType)
    return v.type


def _check(op: Op) -> None:  # noqa: C901 - one branch an opcode reads best here
    k, ops, res = op.opcode, op.operands, [r.type for r in op.results]

    def need(n_operands: int | None, n_results: int) -> None:
        if n_operands is not None and len(ops) != n_operands:
            _fail(op, f"{k} takes {n_operands} operands")
        if len(res) != n_results:
            _fail(op, f"{k} has {n_results} results")

    if k == "const":
        need(0, 1)
        if not isinstance(op.attrs.get("value"), (int, float, bool)):
            _fail(op, "const needs a Python number")
    elif k == "bin":
        need(2, 1)
        if op.attrs.get("op") not in BIN_OPS:
            _fail(op, "unknown bin op")
        if not (ops[0].type == ops[1].type == res[0]):
            _fail(op, "bin operands and result must have one type")
        t = _scalar(op, ops[0])
        if op.attrs["op"] == "div" and not t.is_float:
            _fail(op, "div is for floats")
    elif k == "cmp":
        need(2, 1)
        if op.attrs.get("op") not in CMP_OPS or ops[0].type != ops[1].type or res[0] != BOOL:
            _fail(op, "cmp needs a known op, two operands of one type and a bool result")
    elif k == "un":
        need(1, 1)
        if op.attrs.get("op") not in UN_OPS or res[0] != ops[0].type:
            _fail(op, "bad un op")
    elif k == "cast":
        need(1, 1)
        _scalar(op, ops[0])
    elif k == "select":
        need(3, 1)
        if ops[0].type != BOOL or ops[1].type != ops[2].type or res[0] != ops[1].type:
            _fail(op, "select needs a bool and two values of one type")
    elif k == "math":
        need(None, 1)
        for v in ops:
            _scalar(op, v)
    elif k == "special":
        need(0, 1)
        if op.attrs.get("reg") not in SPECIAL_REGS or op.attrs.get("axis") not in (0, 1, 2):
            _fail(op, "bad special register")
        if res[0] != INT32:
            _fail(op, "special registers are int32")
    elif k == "shape":
        need(1, 1)
        a = _array(op, ops[0])
        if not 0 <= op.attrs.get("dim", -1) < a.ndim:
            _fail(op, "shape dim out of range")
    elif k == "alloc":
        need(0, 1)
        at = res[0]
        if not isinstance(at, ArrayType) or at.shape is None:
            _fail(op, "alloc makes a shared, local or const array of known shape")
        assert isinstance(at, ArrayType) and at.shape is not None
        if (at.space == CONST) != ("data" in op.attrs):
            _fail(op, "a const array (a table) and only it has its elements in `data`")
        if at.space == CONST and len(op.attrs["data"]) != prod(at.shape):
            _fail(op, "a table's `data` must have one item per element")
    elif k in STORES and _array(op, ops[0]).space == CONST:
        _fail(op, "a const array (a table) is never written")
    elif k in MEMORY:
        a = _array(op, ops[0])
        extra = {"load": 0, "store": 1, "atomic": 1, "cas": 2}[k]
        if len(ops) != 1 + a.ndim + extra:
            _fail(op, f"{k} needs one index per dimension ({a.ndim})")
        for v in ops[1 : 1 + a.ndim]:
            if not _scalar(op, v).is_int:
                _fail(op, "array indices must be integers")
        for v in ops[1 + a.ndim :]:
            if v.type != a.dtype:
                _fail(op, f"{k} value must have the array's dtype {a.dtype}")
        if k == "store":
            need(None, 0)
        else:
            need(None, 1)
            if res[0] != a.dtype:
                _fail(op, f"{k} result must have the array's dtype")
        if k == "atomic" and op.attrs.get("op") not in ATOMIC_OPS:
            _fail(op, "unknown atomic op")
    elif k == "note":
        if res or len(ops) > 1 or not isinstance(op.attrs.get("name"), str):
            _fail(op, "note takes a name and at most one value, and has no result")
    elif k in ("barrier", "exit", "fence"):
        need(0, 0)
    elif k == "warp":
        spec = WARP_OPS.get(op.attrs.get("op", ""))
        if spec is None:
            _fail(op, "unknown warp op")
            return
        n, kind = spec
        need(n, 0 if kind is None else 1)
        if n and ops[0].type != UINT32:
            _fail(op, "a warp function's mask is uint32")
        want = {"value": ops[1].type if n > 1 else None, "mask": UINT32, "bool": BOOL}
        if kind is not None and res[0] != want[kind]:
            _fail(op, f"warp {op.attrs['op']} gives {want[kind]}")
        if kind == "value" and ops[2].type != INT32:
            _fail(op, "a shuffle's lane or delta is int32")
        if kind in ("mask", "bool") and n == 2 and ops[1].type != BOOL:
            _fail(op, "a vote's predicate is bool")
    elif k == "print":
        need(None, 0)
        if "parts" not in op.attrs:
            _fail(op, "print needs parts")
    elif k == "assert":
        need(1, 0)
        if ops[0].type != BOOL:
            _fail(op, "assert needs a bool")
    elif k == "if":
        if len(ops) != 1 or ops[0].type != BOOL:
            _fail(op, "if needs one bool condition")
    elif k == "for":
        if len(ops) < 3:
            _fail(op, "for needs start, stop and step")
        if not (ops[0].type == ops[1].type == ops[2].type) or not _scalar(op, ops[0]).is_int:
            _fail(op, "for bounds must be integers of one type")
        if op.regions and op.regions[0].args and op.regions[0].args[0].type != ops[0].type:
            _fail(op, "for induction variable must have the bounds' type")
    elif k == "while":
        pass
    elif k == "yield":
        need(None, 0)
    elif k == "condition":
        need(1, 0)
        if ops[0].type != BOOL:
            _fail(op, "condition needs a bool")
    else:
        _fail(op, f"unknown opcode {k!r}")
