"""The IR: structured SSA.

A `Function` holds one `Block`, a list of `Op`s. Each op reads `Value`s (operands) and defines
new ones (results); a value is defined once. Control flow is structured: an `if`, `for` or
`while` op owns regions (each a `Block`), values flow into a region through its block
arguments and out through its terminator (`yield` or `condition`). There is no goto, which is
what WGSL needs and what the CPU backend's SPMD lowering relies on.

The opcodes, their operands, attributes and result types are listed in `ops.py`; `verify.py`
checks a function against that list and `printer.py` prints it.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np

from ..types import ArrayType, Scalar, Type

_ids = itertools.count(1)


@dataclass(frozen=True)
class Loc:
    """Where an op came from in the user's source: for errors and debug reports."""

    filename: str
    line: int
    col: int
    source_line: str = ""

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}"


class Value:
    """An SSA value: defined once, by an op result, a block argument or a function parameter."""

    __slots__ = ("id", "type", "hint")

    def __init__(self, type: Type, hint: str = "") -> None:
        self.id = next(_ids)
        self.type = type
        self.hint = hint  # the user's variable name, when there was one (for readable output)

    @property
    def scalar(self) -> Scalar:
        """The value's type as a scalar (asserts it is one)."""
        assert isinstance(self.type, Scalar), self.type
        return self.type

    @property
    def array(self) -> ArrayType:
        """The value's type as an array (asserts it is one)."""
        assert isinstance(self.type, ArrayType), self.type
        return self.type

    def __repr__(self) -> str:
        return f"%{self.id}"


@dataclass(eq=False)
class Block:
    """A region body: arguments bound on entry, then ops; the last op is its terminator."""

    args: list[Value] = field(default_factory=list)
    ops: list[Op] = field(default_factory=list)

    @property
    def terminator(self) -> Op | None:
        """The trailing `yield`/`condition` op, if the block has one."""
        if self.ops and self.ops[-1].opcode in ("yield", "condition"):
            return self.ops[-1]
        return None


@dataclass(eq=False)
class Op:
    """One operation. See `ops.py` for the meaning of each opcode and its attributes."""

    opcode: str
    operands: list[Value] = field(default_factory=list)
    results: list[Value] = field(default_factory=list)
    attrs: dict[str, Any] = field(default_factory=dict)
    regions: list[Block] = field(default_factory=list)
    loc: Loc | None = None

    @property
    def result(self) -> Value:
        """The single result of an op that has exactly one."""
        assert len(self.results) == 1, self
        return self.results[0]

    def __repr__(self) -> str:
        return f"<Op {self.opcode} {self.results} <- {self.operands} {self.attrs}>"


#: the hidden parameter of a kernel whose exceptions can go uncaught: the launch's failure
#: records (`frontend.raising` writes them, the runtime reads them back)
FAILURE_BUFFER = "simt_failures"


class Hidden(Enum):
    """What a hidden parameter is (`Param.hidden`): an array the launch makes, zeroed, with
    no argument of the user's (`Function.hidden_zeros` makes it)."""

    FAILURES = "failures"  # the failure records of uncaught exceptions (`frontend.raising`)
    ARENA = "arena"  # the per-thread arena of one element type of the lists (`frontend.arena`)


@dataclass(eq=False)
class Param:
    """A kernel parameter: the position in the Python signature, its name and its value.
    A complex scalar argument is two parameters, its real and imaginary parts: `part` is
    "real" or "imag" and `name` is the argument's name with `__re` / `__im` added. A hidden
    parameter (`hidden`, its kind) has no argument of the user's: its `index` is -1."""

    name: str
    index: int
    value: Value
    part: str = ""
    hidden: Hidden | None = None

    def __post_init__(self) -> None:
        assert (self.index < 0) == (self.hidden is not None), (self.name, self.index)

    @classmethod
    def made(cls, kind: Hidden, value: Value) -> Param:
        """A hidden parameter of `kind` holding array `value` (its name: the value's hint)."""
        return cls(value.hint, -1, value, hidden=kind)

    def argument(self, value: Any) -> Any:
        """What this parameter takes of the argument `value` (a complex's part, or itself)."""
        return getattr(complex(value), self.part) if self.part else value


@dataclass(eq=False)
class Function:
    """A kernel in IR form: typed parameters and a body.

    `params` holds only the runtime parameters (arrays and scalars); parameters that were known
    at compile time have been folded into the body. `fp64`, `debug` and `boundscheck` are the
    compile options the kernel was translated with: `boundscheck` (default True) checks every
    array access that analysis has not proven in bounds (`op.attrs["inbounds"]`); `debug`
    implies it and adds its own checks (races, uninitialised reads).
    """

    name: str
    params: list[Param]
    body: Block
    filename: str = "<unknown>"
    fp64: bool = False
    debug: bool = False
    attrs: dict[str, Any] = field(default_factory=dict)
    boundscheck: bool = True

    def hidden_zeros(self, p: Param, threads: int) -> np.ndarray:
        """The array a launch of `threads` makes for hidden parameter `p`, zeroed: the failure
        buffer (`attrs["failure_words"]` int32 words) or an arena (`arena_length`)."""
        if p.hidden is Hidden.FAILURES:
            return np.zeros(self.attrs["failure_words"], np.int32)
        return np.zeros(self.arena_length(p, threads), p.value.array.dtype.np)

    def arena_length(self, p: Param, threads: int) -> int:
        """Elements of hidden arena parameter `p` (`Param.hidden`) for a launch of `threads`:
        each thread's region holds `attrs["heap"]` bytes of its element type
        (`frontend.arena`)."""
        return threads * heap_words(p.value.array.dtype, self.attrs["heap"])

    @property
    def checks_bounds(self) -> bool:
        """Whether the accesses not proven in bounds are checked (`boundscheck` or `debug`)."""
        return self.boundscheck or self.debug


def heap_words(t: Scalar, heap: int) -> int:
    """Elements of type `t` in `heap` bytes (a thread's arena region of that type)."""
    return heap // max(1, t.bits // 8)


def walk(block: Block) -> Iterator[Op]:
    """Every op in `block` and in the regions nested in it, in program order (pre-order).

    One generator with a stack of the blocks' iterators, not a generator per region: an op
    `d` levels deep would pass through `d` nested generators (`yield from`), which made a walk
    of a deeply nested kernel (a raising one: `frontend.raising`) cost ops x depth."""
    stack = [iter(block.ops)]
    while stack:
        for op in stack[-1]:
            yield op
            if op.regions:
                stack.extend(iter(r.ops) for r in reversed(op.regions))
                break
        else:
            stack.pop()


def walk_blocks(block: Block) -> Iterator[Block]:
    """`block` and every block nested in it, outer first (pre-order, without a generator per
    level: `walk`)."""
    stack = [block]
    while stack:
        b = stack.pop()
        yield b
        stack.extend(reversed([r for op in b.ops for r in op.regions]))


# attribute values a copy shares with the original, as `copy.deepcopy` would copy them equal
# (immutable)
_SHARED = (str, int, float, bool, type(None), Loc, Scalar, ArrayType)


def copy_function(fn: Function) -> Function:
    """A copy of `fn` as `copy.deepcopy(fn)` makes it (values keep their ids, nothing of the
    copy is shared with `fn` that a pass may change), several times faster: the IR's nodes
    are copied by field, types and locations (immutable) are shared, and an attribute value
    is deep-copied only where it is not an immutable scalar (through one memo, so that a
    value or op an attribute names is its copy)."""
    memo: dict[int, Any] = {}

    def value(v: Value) -> Value:
        n = memo.get(id(v))
        if n is None:
            n = memo[id(v)] = Value.__new__(Value)
            n.id, n.type, n.hint = v.id, v.type, v.hint
        return n  # type: ignore[no-any-return]

    def attrs(a: dict[str, Any]) -> dict[str, Any]:
        if all(type(x) in _SHARED for x in a.values()):
            return dict(a)
        return copy.deepcopy(a, memo)

    def block(b: Block) -> Block:
        if id(b) in memo:  # (copied already, as an attribute's value)
            return memo[id(b)]  # type: ignore[no-any-return]
        new = Block.__new__(Block)
        memo[id(b)] = new
        new.__dict__.update(b.__dict__)
        new.args = [value(a) for a in b.args]
        new.ops = [op(o) for o in b.ops]
        return new

    def op(o: Op) -> Op:
        if id(o) in memo:
            return memo[id(o)]  # type: ignore[no-any-return]
        new = Op.__new__(Op)
        memo[id(o)] = new
        new.__dict__.update(o.__dict__)
        new.operands = [value(v) for v in o.operands]
        new.results = [value(r) for r in o.results]
        new.regions = [block(r) for r in o.regions]
        new.attrs = attrs(o.attrs)
        extra = o.__dict__.keys() - _OP_FIELDS
        for k in extra:  # (none today: whatever a pass may hang on an op, copied deeply)
            new.__dict__[k] = copy.deepcopy(o.__dict__[k], memo)
        return new

    body = block(fn.body)
    params = []
    for p in fn.params:
        q = Param.__new__(Param)
        q.__dict__.update(p.__dict__)
        q.value = value(p.value)
        params.append(q)
    new = Function.__new__(Function)
    new.__dict__.update(fn.__dict__)
    new.body, new.params = body, params
    new.attrs = copy.deepcopy(fn.attrs, memo)
    for k in fn.__dict__.keys() - _FUNCTION_FIELDS:
        new.__dict__[k] = copy.deepcopy(fn.__dict__[k], memo)
    return new


_OP_FIELDS = {"opcode", "operands", "results", "attrs", "regions", "loc"}
_FUNCTION_FIELDS = {"name", "params", "body", "filename", "fp64", "debug", "attrs", "boundscheck"}
