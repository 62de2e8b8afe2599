"""Constant folding, and the algebraic identities that are exact for their type.

Folding follows docs/semantics.md to the bit: integer arithmetic wraps at its width, `//` and
`%` are Python's floor forms and give 0 when dividing by zero, float32 arithmetic is done in
float32. Math functions are evaluated in float64 and rounded to the result type. A fold whose
result the semantics leave unspecified (a float cast to an int it does not fit) or that would
produce a NaN or an infinity is left for the backend to compute.

Structured ops fold too: an `if` whose condition is known is replaced by the ops of the branch
taken, an `if` whose branches hold a few pure ops by `select`s, a `for` that runs zero times and
a `while` whose condition is known to be false by their initial values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..builtins import MATH
from ..ir import Block, Function, Op, Value, semantics
from ..ir.ops import PURE
from ..types import BOOL, Scalar
from .rewrite import Subst

Py = int | float | bool

_MISSING = object()

# An `if` whose branches hold at most this many pure ops in all becomes `select`s.
SPECULATE = 8


def fold(fn: Function) -> Function:
    """Fold the constant expressions of `fn`, in place; returns `fn`."""
    _Folder().block(fn.body)
    return fn


def wrap(v: int, t: Scalar) -> int:
    """`v` wrapped to the range of the integer type `t` (two's complement)."""
    v &= (1 << t.bits) - 1
    if t.is_signed and v >= 1 << (t.bits - 1):
        v -= 1 << t.bits
    return v


def to_py(x: Any, t: Scalar) -> Py:
    """A NumPy or Python scalar as the Python value a `const` of type `t` stores."""
    if t.is_bool:
        return bool(x)
    if t.is_int:
        return int(x)
    return float(x)


def normalize(v: Py, t: Scalar) -> Py:
    """A const's value as the type `t` holds it (a float32 const of 0.1 holds 0.1f)."""
    if t.is_bool:
        return bool(v)
    if t.is_int:
        return wrap(int(v), t)
    with np.errstate(all="ignore"):
        return float(t.np.type(v))


def _finite(v: Py | None) -> Py | None:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


class _Folder:
    def __init__(self) -> None:
        self.subst = Subst()
        self.consts: dict[int, Py] = {}
        self.definer: dict[int, Op] = {}  # value id -> the (kept) op defining it

    def const(self, v: Value) -> Any:
        return self.consts.get(v.id, _MISSING)

    def block(self, block: Block) -> None:
        # Ops of an inlined `if` branch or `while` condition are spliced into `pending` and
        # folded as ops of this block.
        pending = list(block.ops)
        out: list[Op] = []
        i = 0
        while i < len(pending):
            op = pending[i]
            i += 1
            self.subst.apply(op)
            spliced = self.op(op)
            if spliced is None:
                out.append(op)
                for r in op.results:
                    self.definer[r.id] = op
            else:
                pending[i:i] = spliced
        block.ops = out

    def op(self, op: Op) -> list[Op] | None:
        """Fold `op`: None to keep it (maybe changed), else the ops that replace it."""
        k = op.opcode
        if k == "const":
            self.consts[op.result.id] = normalize(op.attrs["value"], op.result.scalar)
            return None
        if k == "if":
            return self.fold_if(op)
        if k == "for":
            return self.fold_for(op)
        if k == "while":
            return self.fold_while(op)
        if k == "assert" and self.const(op.operands[0]) is True:
            return []  # can never fail
        if len(op.results) != 1 or not isinstance(op.result.type, Scalar):
            return None
        t = op.result.type
        args = [self.const(v) for v in op.operands]
        known = all(a is not _MISSING for a in args)
        value: Py | None = None
        if k == "shape":
            shape = op.operands[0].array.shape
            if shape is not None:
                value = shape[op.attrs["dim"]]
        elif k == "select":
            if args[0] is not _MISSING:  # the semantics' select picks the operand
                return self.replace(op, semantics.select(bool(args[0]), *op.operands[1:]))
            if op.operands[1] is op.operands[2]:
                return self.replace(op, op.operands[1])
            a, b = args[1], args[2]
            if t.is_bool and a is not _MISSING and b is not _MISSING and a and not b:
                return self.replace(op, op.operands[0])  # select(c, True, False) is c
            if t.is_bool and (b is False or a is True):
                # select(c, x, False) is c and x; select(c, True, x) is c or x
                c, x = op.operands[0], op.operands[1 if b is False else 2]
                op.opcode, op.operands = "bin", [c, x]
                op.attrs = {"op": "and" if b is False else "or"}
                return None
        elif known and k == "bin":
            value = fold_bin(op.attrs["op"], t, args[0], args[1])
        elif known and k == "cmp":
            value = fold_cmp(op.attrs["op"], op.operands[0].scalar, args[0], args[1])
        elif known and k == "un":
            value = fold_un(op.attrs["op"], t, args[0])
        elif known and k == "cast" and not t.is_storage:  # no constants of 8/16-bit types
            value = fold_cast(op.operands[0].scalar, t, args[0])
        elif known and k == "math":
            value = fold_math(op.attrs["fn"], t, args)
        if value is None and k in ("bin", "cmp", "un"):
            same = self.identity(op, args)
            if same is not None:
                if isinstance(same, Value):
                    return self.replace(op, same)
                value = same
        if value is not None:
            self.to_const(op, value)
            return None
        if k == "bin" and t.is_int and op.attrs["op"] in ("add", "sub"):
            done = self.reassociate(op, t, args)
            if done is not None:
                return done
        if k == "bin" and not t.is_bool:
            self.negation(op, t, args)
        return None

    def negation(self, op: Op, t: Scalar, args: list[Any]) -> None:
        """`x * -1` as `-x`, and `a + (-b)` as `a - b`: exact for floats and wrapping ints.

        Weights known at compile time (a Sobel kernel's -1s) become subtractions this way.
        """
        name, (a, b) = op.attrs["op"], op.operands
        if name == "mul":
            for x, c in ((a, args[1]), (b, args[0])):
                if c is not _MISSING and float(c) == -1.0:
                    op.opcode, op.operands, op.attrs = "un", [x], {"op": "neg"}
                    return
        elif name == "add":
            for x, y in ((a, b), (b, a)):
                neg = self.definer.get(y.id)
                if neg is not None and neg.opcode == "un" and neg.attrs["op"] == "neg":
                    op.operands, op.attrs = [x, neg.operands[0]], {"op": "sub"}
                    return

    def _plus_const(self, op: Op, args: list[Any]) -> tuple[Value, int] | None:
        """`op` (an int add or sub) as `x + k` with `k` known, or None."""
        name, (a, b), (ca, cb) = op.attrs["op"], op.operands, args
        if cb is not _MISSING:
            return a, (int(cb) if name == "add" else -int(cb))
        if ca is not _MISSING and name == "add":
            return b, int(ca)
        return None

    def reassociate(self, op: Op, t: Scalar, args: list[Any]) -> list[Op] | None:
        """`(x + k1) + k2` as `x + (k1 + k2)`: exact for integers, which wrap (a ring).

        Index arithmetic of unrolled loops (`(i + 3) - 3`) folds away this way.
        """
        outer = self._plus_const(op, args)
        if outer is None:
            return None
        inner_op = self.definer.get(outer[0].id)
        if inner_op is None or inner_op.opcode != "bin" or inner_op.attrs["op"] not in (
            "add", "sub",
        ):  # fmt: skip
            return None
        inner = self._plus_const(inner_op, [self.const(v) for v in inner_op.operands])
        if inner is None:
            return None
        x, total = inner[0], wrap(inner[1] + outer[1], t)
        if total == 0:
            return self.replace(op, x)
        # Spelled with the smaller constant: x - 3 rather than x + 4294967293.
        half = 1 << (t.bits - 1)
        negative = total < 0 or (not t.is_signed and total > half)
        k = wrap(-total, t) if negative else total
        c = Op("const", [], [Value(t)], {"value": k}, [], op.loc)
        op.operands, op.attrs = [x, c.result], {"op": "sub" if negative else "add"}
        return [c, op]

    def replace(self, op: Op, v: Value) -> list[Op]:
        self.subst.set(op.result, v)
        return []

    def to_const(self, op: Op, value: Py) -> None:
        value = to_py(value, op.result.scalar)
        op.opcode, op.operands, op.attrs, op.regions = "const", [], {"value": value}, []
        self.consts[op.result.id] = value

    def identity(self, op: Op, args: list[Any]) -> Value | Py | None:
        """An operand or a constant equal to `op` for every input, or None."""
        k, name = op.opcode, op.attrs["op"]
        if k == "un":
            (x,) = op.operands
            inner = self.definer.get(x.id)
            if inner is not None and inner.opcode == "un" and inner.attrs["op"] == name:
                if name in ("neg", "invert") or (name == "not" and x.scalar.is_bool):
                    return inner.operands[0]
                if name == "abs":
                    return x
            return None
        a, b = op.operands
        ca, cb = args
        t = a.scalar
        if k == "cmp":
            if a is b and not t.is_float:
                return name in ("eq", "le", "ge")
            return None
        if name == "and" and t.is_bool and (self.excludes(a, b) or self.excludes(b, a)):
            return False
        return bin_identity(name, t, a, b, ca, cb)

    def excludes(self, x: Value, y: Value) -> bool:
        """Whether bool `y` is `not (... or x or ...)`, so that `x and y` is False: a second
        IndexError check of an element already checked (`take = fails and not raised`,
        `frontend.raising.set_state`) folds away once CSE has made its comparison the
        first's."""
        d = self.definer.get(y.id)
        if d is None or d.opcode != "un" or d.attrs["op"] != "not":
            return False
        todo, seen = [d.operands[0]], 0
        while todo and seen < 16:
            v = todo.pop()
            seen += 1
            if v is x:
                return True
            e = self.definer.get(v.id)
            if e is not None and e.opcode == "bin" and e.attrs["op"] == "or":
                todo.extend(e.operands)
        return False

    def fold_if(self, op: Op) -> list[Op] | None:
        c = self.const(op.operands[0])
        if c is _MISSING:
            for region in op.regions:
                self.block(region)
            bodies = [region.ops[:-1] for region in op.regions]
            n = sum(len(body) for body in bodies)
            same = self.same_results(op)
            if same:
                return [*same, op]  # (`op` is folded again, without those results)
            if n <= SPECULATE and all(o.opcode in PURE for body in bodies for o in body):
                # Branches of a few pure ops (`a and b` gives these): both are computed, which
                # is safe as pure ops neither trap nor write, and one `select` per result picks
                # (the `if`'s result values become the selects').
                then, other = (region.ops[-1].operands for region in op.regions)
                selects = [
                    Op("select", [op.operands[0], a, b], [r], {}, [], op.loc)
                    for r, a, b in zip(op.results, then, other)
                ]
                return [*bodies[0], *bodies[1], *selects]
            return None
        taken = op.regions[0 if c else 1]
        term = taken.ops[-1]
        for r, v in zip(op.results, term.operands):
            self.subst.set(r, v)
        return taken.ops[:-1]

    def same_results(self, op: Op) -> list[Op]:
        """The results of `if` op `op` that every branch yields as the same constant (a flag
        no branch sets: `raising`'s state where its checks were proven), made constants
        before it and removed from it; [] when there are none."""
        made: list[Op] = []
        keep: list[int] = []
        for j, r in enumerate(op.results):
            vals = [self.const(region.ops[-1].operands[j]) for region in op.regions]
            v = vals[0]
            if v is not _MISSING and all(x is not _MISSING and _same(x, v) for x in vals):
                made.append(Op("const", [], [r], {"value": v}, [], op.loc))
            else:
                keep.append(j)
        if made:
            op.results = [op.results[j] for j in keep]
            for region in op.regions:
                term = region.ops[-1]
                term.operands = [term.operands[j] for j in keep]
        return made

    def fold_for(self, op: Op) -> list[Op] | None:
        bounds = [self.const(v) for v in op.operands[:3]]
        if all(b is not _MISSING for b in bounds) and bounds[2] != 0:
            if len(range(*(int(b) for b in bounds))) == 0:
                for r, v in zip(op.results, op.operands[3:]):
                    self.subst.set(r, v)
                return []
        self.block(op.regions[0])
        return None

    def fold_while(self, op: Op) -> list[Op] | None:
        cond, body = op.regions
        self.block(cond)
        self.block(body)
        term = cond.ops[-1]
        if self.const(self.subst.get(term.operands[0])) is not False:
            return None
        # The condition runs once, on the initial values, and is false: the loop is its
        # condition region's ops, and its results are the initial values.
        for a, v in zip(cond.args, op.operands):
            self.subst.set(a, v)
        for r, v in zip(op.results, op.operands):
            self.subst.set(r, v)
        return cond.ops[:-1]


def _np(v: Py, t: Scalar) -> Any:
    """A const's Python value as a NumPy scalar of type `t` (the operand the semantics
    table's rows take)."""
    if t.is_int:
        return t.np.type(wrap(int(v), t))
    return t.np.type(v)


def fold_bin(name: str, t: Scalar, a: Py, b: Py) -> Py | None:
    """`a <name> b` in type `t` as the IR's semantics table defines it (ir/semantics.py), or
    None when it is not folded: a division of integers (never made by the front end), a
    float min/max of a NaN, a float result that is not finite."""
    if (name == "div" and not t.is_float) or (t.is_bool and name not in _BOOL_BIN):
        return None
    if t.is_float and name in ("min", "max") and (math.isnan(a) or math.isnan(b)):
        return None
    r = semantics.evaluate("bin", name, _np(a, t), _np(b, t))
    return _finite(to_py(r, t))


_BOOL_BIN = frozenset({"and", "or", "xor", "min", "max"})


def fold_cmp(name: str, t: Scalar, a: Py, b: Py) -> bool | None:
    """`a <name> b` for operands of type `t` (ir/semantics.py)."""
    return bool(semantics.evaluate("cmp", name, _np(a, t), _np(b, t)))


def fold_un(name: str, t: Scalar, a: Py) -> Py | None:
    """`<name> a` in type `t` (ir/semantics.py); None for an operator the type has not."""
    if (t.is_bool and name not in ("not", "invert")) or (t.is_float and name == "invert"):
        return None
    return to_py(semantics.evaluate("un", name, _np(a, t)), t)


def fold_cast(src: Scalar, dst: Scalar, a: Py) -> Py | None:
    """`a` of type `src` converted to `dst` as the IR's semantics table converts it
    (ir/semantics.py), or None where it leaves the result unspecified (a float that is not
    finite or does not fit the integer type) or the result is not a finite float."""
    if dst.is_int and src.is_float:
        f = float(a)
        if not math.isfinite(f):
            return None
        half = 1 << (dst.bits - 1)
        lo, hi = (-half, half) if dst.is_signed else (0, 2 * half)
        if not lo <= math.trunc(f) < hi:
            return None  # out of range: unspecified, left to the backend
    with np.errstate(all="ignore"):
        x = semantics.cast(_np(a, src), dst.np)
    return _finite(to_py(x, dst))


def fold_math(fn: str, t: Scalar, args: list[Any]) -> Py | None:
    """`fn(*args)` with a result of type `t`, or None: the row's reference, evaluated on
    float64 (int64 for integer operands) and rounded to the result type."""
    row = MATH.get(fn)
    if row is None or row.parts:
        return None
    kinds = row.operand_kinds
    try:
        with np.errstate(all="ignore"):
            xs = [np.int64(a) if k != "float" else np.float64(a) for a, k in zip(args, kinds)]
            r = row.ref(*xs)
    except (ValueError, OverflowError, TypeError):
        return None
    if t == BOOL:
        return bool(r)
    if t.is_int:
        return wrap(int(r), t)
    return _finite(float(np.float64(r).astype(t.np)))


def bin_identity(name: str, t: Scalar, a: Value, b: Value, ca: Any, cb: Any) -> Value | Py | None:
    """What `a <name> b` equals for every value of the unknown operand, or None.

    Only identities that are exact for the type: `x + 0.0` is not `x` (for x = -0.0) and
    `x * 0.0` is not 0 (for NaN, infinities, negatives), so those stay.
    """
    fl = t.is_float

    def is_(c: Any, v: Py) -> bool:
        if c is _MISSING:
            return False
        if fl:
            # -0.0 == 0.0 in Python: compare signs too.
            return float(c) == v and math.copysign(1.0, float(c)) == math.copysign(1.0, v)
        return c == v

    zero: Py = False if t.is_bool else (0.0 if fl else 0)
    if name == "add":
        if fl:
            if is_(cb, -0.0):
                return a
            if is_(ca, -0.0):
                return b
            return None
        if is_(cb, 0):
            return a
        if is_(ca, 0):
            return b
    elif name == "sub":
        if is_(cb, 0.0 if fl else 0):
            return a
        if a is b and not fl:
            return 0
    elif name == "mul":
        if is_(cb, 1.0 if fl else 1):
            return a
        if is_(ca, 1.0 if fl else 1):
            return b
        if not fl and (is_(ca, 0) or is_(cb, 0)):
            return 0
    elif name == "div":
        if is_(cb, 1.0):
            return a
    elif name == "floordiv" and not fl:
        if is_(cb, 1):
            return a
    elif name == "mod" and not fl:
        if is_(cb, 1) or is_(cb, -1):
            return 0
    elif name in ("and", "or", "xor") and not fl:
        ones: Py = True if t.is_bool else (-1 if t.is_signed else (1 << t.bits) - 1)
        if name == "and":
            if a is b:
                return a
            if is_(ca, zero) or is_(cb, zero):
                return zero
            if is_(cb, ones):
                return a
            if is_(ca, ones):
                return b
        elif name == "or":
            if a is b:
                return a
            if is_(cb, zero):
                return a
            if is_(ca, zero):
                return b
            if is_(ca, ones) or is_(cb, ones):
                return ones
        else:
            if a is b:
                return zero
            if is_(cb, zero):
                return a
            if is_(ca, zero):
                return b
    elif name in ("shl", "shr") and not fl:
        if is_(cb, 0):
            return a
        if is_(ca, 0):
            return 0
    elif name in ("min", "max") and a is b and not fl:
        return a
    if name in ("floordiv", "mod") and not fl and is_(ca, 0):
        return 0  # 0 // x and 0 % x are 0, x = 0 included
    if name == "mod" and not fl and a is b:
        return 0
    return None


def _same(x: Any, y: Any) -> bool:
    """Whether constants `x` and `y` are one value: of one type, equal, and for floats of one
    sign (0.0 and -0.0 are equal but not the same result)."""
    if type(x) is not type(y) or x != y:
        return False
    return not isinstance(x, (float, np.floating)) or math.copysign(1.0, x) == math.copysign(1.0, y)
