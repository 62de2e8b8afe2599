"""The bounds pass's vocabulary (`passes.bounds`): linear forms over integer leaves with
rational coefficients (`Lin`), a candidate bound with the block-level conditions it relies on
(`Bound`), a relation a guard establishes (`Fact`), and the ranges of integer types.

Leaves are keyed (`Key`): `("v", id)` a value, `("s", array id, dim)` an array's extent,
`("r", reg, axis)` a block-level special register (`block_dim.x`, ...), `("p", k1, k2)` the
exact product of two leaves."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ...types import Scalar

Key = tuple[object, ...]


def _norm(x: Fraction | int) -> Fraction | int:
    """A whole Fraction as an int (so that equal forms compare and hash equal)."""
    return int(x) if isinstance(x, Fraction) and x.denominator == 1 else x


Q = Fraction | int  # coefficients: `x // 2` is bounded by `x / 2`


@dataclass(frozen=True)
class Lin:
    """A linear form `sum(coef * leaf) + const` over integer leaves (values, array extents),
    with rational coefficients."""

    terms: tuple[tuple[Key, Q], ...] = ()
    const: Q = 0

    @staticmethod
    def leaf(k: Key) -> Lin:
        return Lin(((k, 1),), 0)

    def __add__(self, other: Lin) -> Lin:
        d = dict(self.terms)
        for k, c in other.terms:
            d[k] = d.get(k, 0) + c
        return Lin(tuple(sorted((k, _norm(c)) for k, c in d.items() if c)),
                   _norm(self.const + other.const))  # fmt: skip

    def scale(self, c: Q) -> Lin:
        if c == 0:
            return Lin((), 0)
        return Lin(tuple((k, _norm(v * c)) for k, v in self.terms), _norm(self.const * c))

    def plus(self, c: Q) -> Lin:
        return Lin(self.terms, _norm(self.const + c))

    def integral(self) -> Lin:
        """`self` times the least positive integer that makes every coefficient whole (the
        same test `<= 0`)."""
        m = 1
        for c in (self.const, *(c for _, c in self.terms)):
            m = math.lcm(m, Fraction(c).denominator)
        return self.scale(m) if m != 1 else self

    def __neg__(self) -> Lin:
        return self.scale(-1)


@dataclass(frozen=True)
class Bound:
    """A candidate bound and the conditions it relies on (each `Lin <= 0`)."""

    lin: Lin
    conds: tuple[Lin, ...] = ()


@dataclass(frozen=True)
class Fact:
    """`a REL b` holds here, REL one of lt, le, eq (operands as value keys)."""

    a: Key
    rel: str
    b: Key


def type_range(t: Scalar) -> tuple[int, int]:
    if t.kind == "u":
        return 0, 2**t.bits - 1
    if t.kind == "b":
        return 0, 1
    return -(2 ** (t.bits - 1)), 2 ** (t.bits - 1) - 1


def preserves(src: Scalar, dst: Scalar) -> bool:
    """Whether casting int `src` to int `dst` keeps every value."""
    if not (src.is_int or src.is_bool) or not dst.is_int:
        return False
    lo, hi = type_range(src)
    dlo, dhi = type_range(dst)
    return dlo <= lo and hi <= dhi
