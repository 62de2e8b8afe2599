"""The 18 ops of index expressions: symbol, category, default left operand, identity, and the IR
each one emits.

| symbol | name | category | unary form (default left)  | reducible, identity      |
| ------ | ---- | -------- | -------------------------- | ------------------------ |
| `+`    | add  | numeric  | `+x` = x                   | yes, 0                   |
| `*`    | mul  | numeric  | `*x` = x                   | yes, 1                   |
| `-`    | sub  | numeric  | `-x` = 0 - x               |                          |
| `/`    | div  | numeric  | `/x` = 1 / x               |                          |
| `>`    | max  | numeric  | `>x` = max(0, x) (relu)    | yes, -inf                |
| `<`    | min  | numeric  | `<x` = min(0, x)           | yes, +inf                |
| `^`    | pow  | numeric  | `^x` = e ** x (exp)        |                          |
| `$`    | log  | numeric  | `$x` = log_e(x) (ln)       |                          |
| `>>`   | gt   | boolean  | `>>x` = x > 0              |                          |
| `>=`   | ge   | boolean  | `>=x` = x >= 0             |                          |
| `<<`   | lt   | boolean  | `<<x` = x < 0              |                          |
| `<=`   | le   | boolean  | `<=x` = x <= 0             |                          |
| `==`   | eq   | boolean  | `==x` = x == 0             |                          |
| `!=`   | ne   | boolean  | `!=x` = x != 0             |                          |
| `&&`   | and  | logical  | `&&x` = x && 1             | yes, 1 (all)             |
| `||`   | or   | logical  | `||x` = x || 0             | yes, 0 (any)             |
| `^^`   | xor  | logical  | `^^x` = x ^^ 0             | yes, 0 (parity)          |
| `!!`   | not  | logical  | `!!x` = not x (unary only) |                          |

Binary forms: `x^y` is x to the power y, `x$y` the logarithm of y in base x. Unary boolean
forms compare with zero on the right, as the peer's table writes them (`>>x` is `x > 0`).

Result types: numeric ops give float32, or float64 when an input is float64; boolean and
logical ops give int32 (0 or 1), treating any non-zero input as true.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import types as T
from ..ir import Builder, Value


@dataclass(frozen=True)
class OpInfo:
    """One op of the language."""

    symbol: str
    name: str
    category: str  # "numeric", "boolean" or "logical"
    default: float | None  # the implicit left operand of the unary form (None: `!!`)
    identity: float | None = None  # the reduction's initial value (None: not reducible)
    doc: str = ""

    @property
    def reducible(self) -> bool:
        return self.identity is not None


OPS: dict[str, OpInfo] = {
    o.symbol: o
    for o in [
        OpInfo("+", "add", "numeric", 0.0, 0.0, "sum"),
        OpInfo("*", "mul", "numeric", 1.0, 1.0, "product"),
        OpInfo("-", "sub", "numeric", 0.0, None, "difference; -x negates"),
        OpInfo("/", "div", "numeric", 1.0, None, "quotient; /x is 1/x"),
        OpInfo(">", "max", "numeric", 0.0, -math.inf, "maximum; >x is relu"),
        OpInfo("<", "min", "numeric", 0.0, math.inf, "minimum; <x is min(0, x)"),
        OpInfo("^", "pow", "numeric", math.e, None, "x to the power y; ^x is exp"),
        OpInfo("$", "log", "numeric", math.e, None, "logarithm of y in base x; $x is ln"),
        OpInfo(">>", "gt", "boolean", 0.0, None, "x > y"),
        OpInfo(">=", "ge", "boolean", 0.0, None, "x >= y"),
        OpInfo("<<", "lt", "boolean", 0.0, None, "x < y"),
        OpInfo("<=", "le", "boolean", 0.0, None, "x <= y"),
        OpInfo("==", "eq", "boolean", 0.0, None, "x == y"),
        OpInfo("!=", "ne", "boolean", 0.0, None, "x != y"),
        OpInfo("&&", "and", "logical", 1.0, 1.0, "logical and; reduced: all"),
        OpInfo("||", "or", "logical", 0.0, 0.0, "logical or; reduced: any"),
        OpInfo("^^", "xor", "logical", 0.0, 0.0, "logical exclusive or; reduced: parity"),
        OpInfo("!!", "not", "logical", None, None, "logical not (unary only)"),
    ]
}

# Longest symbols first: the parser tries them in this order (`>>` before `>`).
SYMBOLS = sorted(OPS, key=len, reverse=True)
# Ops whose value costs a transcendental call: recomputing them across a broadcast is not free.
TRANSCENDENTAL = frozenset({"^", "$"})
_CMP = {">>": "gt", ">=": "ge", "<<": "lt", "<=": "le", "==": "eq", "!=": "ne"}
_BIN = {"+": "add", "*": "mul", "-": "sub", "/": "div", ">": "max", "<": "min"}
_LOGIC = {"&&": "and", "||": "or", "^^": "xor"}


def float_result(inputs: list[T.Scalar]) -> T.Scalar:
    """The type of a numeric op's result: float64 when an input is float64, else float32."""
    return T.FLOAT64 if T.FLOAT64 in inputs else T.FLOAT32


def result_type(symbol: str, inputs: list[T.Scalar]) -> T.Scalar:
    """The type an op gives for inputs of these types."""
    if OPS[symbol].category == "numeric":
        return float_result(inputs)
    return T.INT32


def compare_type(inputs: list[T.Scalar]) -> T.Scalar:
    """The type a boolean op compares in: the wider float when a float is involved, else the
    widest integer (int64 holds every int32, uint32 and int64 value)."""
    if any(t.is_float for t in inputs):
        return float_result(inputs)
    if any(t in (T.INT64, T.UINT32) for t in inputs):
        return T.INT64
    return T.INT32


def _truth(b: Builder, x: Value) -> Value:
    """1 where x is non-zero, else 0, as int32."""
    zero = b.const(0, x.scalar) if not x.scalar.is_bool else b.const(False, T.BOOL)
    return b.cast(b.cmp("ne", x, zero), T.INT32)


def emit(b: Builder, symbol: str, x: Value | None, y: Value) -> Value:
    """The IR for `x symbol y`; x is None for the unary form (the default left operand)."""
    info = OPS[symbol]
    types = [y.scalar] + ([x.scalar] if x is not None else [])
    if info.category == "numeric":
        t = float_result(types)
        yv = b.cast(y, t)
        if x is None:
            if symbol == "^":
                return b.op("math", [yv], [t], fn="exp").result
            if symbol == "$":
                return b.op("math", [yv], [t], fn="log").result
            if symbol in "+*":
                return yv
            if symbol == "-":
                return b.un("neg", yv)
            xv = b.const(info.default or 0.0, t)
        else:
            xv = b.cast(x, t)
        if symbol == "^":
            return b.op("math", [xv, yv], [t], fn="pow").result
        if symbol == "$":
            ly = b.op("math", [yv], [t], fn="log").result
            lx = b.op("math", [xv], [t], fn="log").result
            return b.bin("div", ly, lx)
        return b.bin(_BIN[symbol], xv, yv)
    if info.category == "boolean":
        t = compare_type(types)
        yv = b.cast(y, t)
        if x is None:  # compare with zero on the right: `>>x` is x > 0
            return b.cast(b.cmp(_CMP[symbol], yv, b.const(0, t)), T.INT32)
        return b.cast(b.cmp(_CMP[symbol], b.cast(x, t), yv), T.INT32)
    yt = _truth(b, y)
    if symbol == "!!":
        return b.bin("xor", yt, b.const(1, T.INT32))
    if x is None:
        return yt  # x && 1, x || 0, x ^^ 0: the truth of x
    return b.bin(_LOGIC[symbol], _truth(b, x), yt)


def accumulate(b: Builder, symbol: str, acc: Value, x: Value) -> Value:
    """One step of a reduction: `acc symbol x`, in the accumulator's type."""
    if OPS[symbol].category == "logical":
        return b.bin(_LOGIC[symbol], acc, _truth(b, x))
    return b.bin(_BIN[symbol], acc, b.cast(x, acc.scalar))


def reduce_type(symbol: str, input_type: T.Scalar) -> T.Scalar:
    """The type of a reduction's result (and accumulator)."""
    return result_type(symbol, [input_type])


def identity(b: Builder, symbol: str, t: T.Scalar) -> Value:
    """The reduction's initial value as a constant of type t."""
    value = OPS[symbol].identity
    assert value is not None
    return b.const(int(value) if t.is_int else value, t)


def combine(b: Builder, symbol: str, a: Value, c: Value) -> Value:
    """Two partial results of a reduction combined (for cooperative reductions)."""
    if OPS[symbol].category == "logical":
        return b.bin(_LOGIC[symbol], a, c)
    return b.bin(_BIN[symbol], a, c)
