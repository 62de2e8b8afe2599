"""The CPU renderer's scalar instructions: the LLVM IR text of the IR's operators,
comparisons, conversions and math rows (`OpRenderer`, with their rules), over what every part
of the renderer writes with (`Emitter`: SSA temporaries, labels, constants, declarations,
helper definitions, metadata). `backends/llvm.py` adds the kernel's interface, memory
accesses, prints, control flow and the module around them.

Semantics are docs/semantics.md's (ir/semantics.py executes them): Python's floor `//` and `%`
(`llvm_helpers.ARITH`), integer division by zero gives 0, integers wrap, shift amounts are taken
modulo the width, float-to-int conversion of NaN or an out-of-range value gives INT_MIN as NumPy
does on x86 (so `sim` agrees where the result is unspecified).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from ..builtins import MATH, MathFn
from ..ir import Op, Value
from ..ir.rules import Rules
from ..types import BOOL, FLOAT32, Scalar
from . import llvm_math
from .llvm_abi import llvm_type
from .llvm_helpers import ARITH, MATH_HELPERS, SIGNED, UNSIGNED

# `bin` operators that are one instruction: {operator: (integer form, float form)}
BIN: dict[str, tuple[str | None, str | None]] = {
    "add": ("add", "fadd"), "sub": ("sub", "fsub"), "mul": ("mul", "fmul"),
    "div": (None, "fdiv"), "and": ("and", None), "or": ("or", None), "xor": ("xor", None),
}  # fmt: skip
# `cmp` predicates: floats ordered (but `ne`, true for NaN), integers by signedness ({s})
FCMP = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
ICMP = {"eq": "eq", "ne": "ne", "lt": "{s}lt", "le": "{s}le", "gt": "{s}gt", "ge": "{s}ge"}


def _float_const(v: float, t: Scalar) -> str:
    if t.bits == 32:
        v = struct.unpack("<f", struct.pack("<f", v))[0] if abs(v) < 3.5e38 or v != v else v
    return "0x" + struct.pack(">d", float(v)).hex().upper()


class _FloatConsts:
    """`{k[57.29]}` in a math row's LLVM instruction: that constant in the operands' type."""

    def __init__(self, t: Scalar) -> None:
        self.t = t

    def __getitem__(self, value: str) -> str:
        return _float_const(float(value), self.t)


class Emitter(Rules[Callable[[Op], None]]):
    """The text of an LLVM function being written: its lines, numbered temporaries and
    labels, the SSA name of each IR value (`vals`), and the module's declarations, helper
    definitions and metadata nodes."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.n = 0
        self.vals: dict[int, str] = {}
        self.decls: set[str] = set()
        self.helpers: dict[str, str] = {}
        self.md: list[str] = []
        self.label = "entry"

    def tmp(self) -> str:
        self.n += 1
        return f"%t{self.n}"

    def emit(self, text: str) -> None:
        self.lines.append("  " + text)

    def inst(self, text: str) -> str:
        r = self.tmp()
        self.emit(f"{r} = {text}")
        return r

    def new_label(self, hint: str) -> str:
        self.n += 1
        return f"{hint}{self.n}"

    def start(self, label: str) -> None:
        self.lines.append(f"{label}:")
        self.label = label

    def v(self, x: Value) -> str:
        return self.vals[x.id]

    def const(self, value: Any, t: Scalar) -> str:
        if t.is_bool:
            return "true" if value else "false"
        if t.is_float:
            return _float_const(float(value), t)
        return str(int(value))

    def counted_condition(self, t: Scalar, iv: str, stop: str, step: str, sign: int) -> str:
        """The i1 on which a counted loop over `iv` (of type `t`) goes on: `iv` below `stop`
        for a positive step (`sign` 1), above it for a negative one (-1); of a step whose
        sign is not known (0), by its sign, so that a zero step runs no iteration (as the
        C-like languages' loops). The bounds compare as their type does: unsigned for an
        unsigned type (as sim, WGSL and CUDA)."""
        ty = llvm_type(t)
        s = "s" if t.is_signed else "u"
        if sign == 1:
            return self.inst(f"icmp {s}lt {ty} {iv}, {stop}")
        if sign == -1:
            return self.inst(f"icmp {s}gt {ty} {iv}, {stop}")
        up = self.inst(f"icmp {s}gt {ty} {step}, 0")
        lt = self.inst(f"icmp {s}lt {ty} {iv}, {stop}")
        dn = self.inst(f"icmp {s}lt {ty} {step}, 0")
        gt = self.inst(f"icmp {s}gt {ty} {iv}, {stop}")
        a = self.inst(f"and i1 {up}, {lt}")
        b = self.inst(f"and i1 {dn}, {gt}")
        return self.inst(f"or i1 {a}, {b}")

    def mdnode(self, body: str) -> str:
        self.md.append(body)
        return f"!{len(self.md) - 1}"


class OpRenderer(Emitter):
    """The rules of the scalar ops (`RULES`, extended by the kernel renderer) and their
    spellings."""

    RULES: ClassVar[dict[str, str]] = {
        "const": "_op_const", "bin": "_op_bin", "cmp": "_op_cmp", "un": "_op_un",
        "cast": "_op_cast", "select": "_op_select", "math": "_op_math",
    }  # fmt: skip
    # the `select` op (`ir.semantics.SELECT`: `{a}` where the bool `{c}` holds, else `{b}`),
    # as the C-like languages spell it by theirs (`clike.CRenderer.SELECT`); `{t}`: the type
    SELECT = "select i1 {c}, {t} {a}, {t} {b}"

    def __init__(self) -> None:
        super().__init__()
        # the temporaries holding a product `0.0 * x`: their zero and x (`_zero_product`)
        self.zero_products: dict[str, tuple[str, str]] = {}

    def select(self, c: str, a: str, b: str, ty: str) -> str:
        """A new temporary holding `a` where `c` holds, else `b` (of LLVM type `ty`): `SELECT`."""
        return self.inst(self.SELECT.format(c=c, a=a, b=b, t=ty))

    def _op_const(self, op: Op) -> None:
        self.vals[op.result.id] = self.const(op.attrs["value"], op.result.scalar)

    def _op_bin(self, op: Op) -> None:
        a, b = op.operands
        if op.attrs.get("contract") and a.scalar.is_float and op.attrs["op"] in ("add", "mul"):
            # a multiply-add the IR allows to fuse (`tensor.gemm`'s micro-kernel): FMA
            name = "fadd" if op.attrs["op"] == "add" else "fmul"
            ty = llvm_type(a.scalar)
            # `reassoc`: a sum a vectorised reduction may add up in another order
            flags = "reassoc contract" if op.attrs.get("reassoc") else "contract"
            self.vals[op.result.id] = self.inst(f"{name} {flags} {ty} {self.v(a)}, {self.v(b)}")
            return
        o, t, x, y = op.attrs["op"], a.scalar, self.v(a), self.v(b)
        if o == "pow" and t.is_float:  # `**` of floats is the `pow` row, as on every backend
            self.vals[op.result.id] = self._math(MATH["pow"], [a, b], t)
            return
        fused = self._zero_product(o, t, x, y) if t.is_float else None
        self.vals[op.result.id] = fused if fused is not None else self._bin(o, t, x, y)

    def _zero_product(self, o: str, t: Scalar, x: str, y: str) -> str | None:
        """`s + 0.0 * x`, `s - 0.0 * x` and `0.0 * x + s` as one `llvm.fma(±0.0, x, s)`: a
        known stencil's zero weight, which cannot be folded away (`0.0 * x` is NaN for an
        infinite or NaN `x`). The product of a zero is exact (a signed zero or NaN), so the
        fused form rounds exactly as the two operations do; products that round are never
        fused. A product `0.0 * x` is written as it is (LLVM drops it when nothing else reads
        it) and remembered here by its temporary; None for any other operation."""
        zeros = (_float_const(0.0, t), _float_const(-0.0, t))
        if o == "mul" and (x in zeros or y in zeros):
            r = self._bin(o, t, x, y)
            self.zero_products[r] = (x, y) if x in zeros else (y, x)
            return r
        if o in ("add", "sub") and y in self.zero_products:  # s + 0*x, s - 0*x
            zero, factor = self.zero_products[y]
            if o == "sub":  # s - 0*x is s + (-0)*x, exactly
                zero = zeros[1] if zero == zeros[0] else zeros[0]
            return self._intrinsic("llvm.fma", t, [zero, factor, x])
        if o == "add" and x in self.zero_products:  # 0*x + s
            zero, factor = self.zero_products[x]
            return self._intrinsic("llvm.fma", t, [zero, factor, y])
        return None

    def _op_cmp(self, op: Op) -> None:
        self.vals[op.result.id] = self._cmp(op)

    def _op_un(self, op: Op) -> None:
        self.vals[op.result.id] = self._un(op)

    def _op_cast(self, op: Op) -> None:
        self.vals[op.result.id] = self.cast(self.v(op.operands[0]), op.operands[0].scalar,
                                             op.result.scalar)  # fmt: skip

    def _op_select(self, op: Op) -> None:
        c, x, y = (self.v(v) for v in op.operands)
        self.vals[op.result.id] = self.select(c, x, y, llvm_type(op.result.scalar))

    def _op_math(self, op: Op) -> None:
        self.vals[op.result.id] = self._math(MATH[op.attrs["fn"]], op.operands, op.result.scalar)

    # ---- spellings -----------------------------------------------------------------------
    def _bin(self, o: str, t: Scalar, a: str, b: str) -> str:
        """`a o b` of type `t`: one instruction (`BIN`), else the operator's spelling
        (`BIN_SPELLING`)."""
        if o in BIN:
            name = BIN[o][1 if t.is_float else 0]
            assert name is not None, (o, t)
            return self.inst(f"{name} {llvm_type(t)} {a}, {b}")
        return BIN_SPELLING[o](self, o, t, a, b)

    def _intrinsic(self, name: str, t: Scalar, args: list[str], extra: str = "") -> str:
        ty = llvm_type(t)
        suffix = {"float": "f32", "double": "f64"}.get(ty, ty)
        full = f"{name}.{suffix}"
        params = ", ".join([ty] * len(args)) + (", i1" if extra else "")
        self.decls.add(f"declare {ty} @{full}({params})")
        argtext = ", ".join(f"{ty} {x}" for x in args) + (f", i1 {extra}" if extra else "")
        return self.inst(f"call {ty} @{full}({argtext})")

    def _cmp(self, op: Op) -> str:
        a, b = op.operands
        t = a.scalar
        ty = llvm_type(t)
        o = op.attrs["op"]
        if t.is_float:
            return self.inst(f"fcmp {FCMP[o]} {ty} {self.v(a)}, {self.v(b)}")
        s = "s" if t.is_signed and not t.is_bool else "u"
        return self.inst(f"icmp {ICMP[o].format(s=s)} {ty} {self.v(a)}, {self.v(b)}")

    def _un(self, op: Op) -> str:
        """A unary operator, spelled by `UN_SPELLING`."""
        (a,) = op.operands
        return UN_SPELLING[op.attrs["op"]](self, op, a.scalar, self.v(a))

    def cast(self, x: str, src: Scalar, dst: Scalar) -> str:  # noqa: C901
        if src == dst:
            return x
        st, dt = llvm_type(src), llvm_type(dst)
        if dst.is_bool:
            if src.is_float:
                return self.inst(f"fcmp une {st} {x}, 0.0")
            return self.inst(f"icmp ne {st} {x}, 0")
        if src.is_bool:
            if dst.is_float:
                return self.inst(f"uitofp i1 {x} to {dt}")
            return self.inst(f"zext i1 {x} to {dt}")
        if src.is_float and dst.is_float:
            return self.inst(f"{'fpext' if dst.bits > src.bits else 'fptrunc'} {st} {x} to {dt}")
        if src.is_float:
            # Out of range is unspecified; give what NumPy gives on x86 (so `sim` agrees): the
            # "integer indefinite" INT_MIN for NaN and overflow, uint32 through int64.
            bits = dst.bits if dst.is_signed else 64
            it = f"i{bits}"
            full = f"llvm.fptosi.sat.{it}.{'f32' if src.bits == 32 else 'f64'}"
            self.decls.add(f"declare {it} @{full}({st})")
            r = self.inst(f"call {it} @{full}({st} {x})")
            big = self.inst(f"fcmp uge {st} {x}, {_float_const(2.0 ** (bits - 1), src)}")
            r = self.select(big, str(-(2 ** (bits - 1))), r, it)
            if not dst.is_signed and dst.bits == 64:
                # uint64 from [2**63, 2**64) is exact (1e19 is 10**19, not 2**63), and from
                # 2**64 up (inf too) 0, as NumPy gives
                top = _float_const(2.0**63, src)
                upper = self.inst(f"fcmp oge {st} {x}, {top}")
                low = self.inst(f"call {it} @{full}({st} {self.inst(f'fsub {st} {x}, {top}')})")
                high = self.inst(f"add i64 {low}, {-(2**63)}")
                r = self.select(upper, high, r, it)
                over = self.inst(f"fcmp oge {st} {x}, {_float_const(2.0**64, src)}")
                r = self.select(over, "0", r, it)
            return r if bits == dst.bits else self.inst(f"trunc {it} {r} to {dt}")
        if dst.is_float:
            return self.inst(f"{'sitofp' if src.is_signed else 'uitofp'} {st} {x} to {dt}")
        if dst.bits == src.bits:
            return x
        if dst.bits < src.bits:
            return self.inst(f"trunc {st} {x} to {dt}")
        return self.inst(f"{'sext' if src.is_signed else 'zext'} {st} {x} to {dt}")

    def _math(self, m: MathFn, operands: Sequence[Value], result: Scalar) -> str:
        """Row `m` on `operands` (its result of type `result`) as the CPU spells it
        (builtins.MathFn: `llvm_f32`, `llvm`, `libm`; `llvm` where the last operand is a
        constant of `llvm_folds`, which LLVM folds: `pow(x, 2.0)` is `x * x`)."""
        args = [self.v(a) for a in operands]
        t = operands[0].scalar
        ty = llvm_type(t)
        folds = {self.const(c, t) for c in m.llvm_folds}
        if m.llvm_f32 is not None and t == FLOAT32 and args[-1] not in folds:
            # straight-line float64 kernels that LLVM vectorises (backends/llvm_math.py)
            for key, text in llvm_math.helpers(m.llvm_f32).items():
                self.helpers.setdefault(key, text)
            self.decls.update(llvm_math.INTRINSICS)
            argtext = ", ".join(f"float {x}" for x in args)
            return self.inst(f"call float @{m.llvm_f32}({argtext})")
        if m.llvm is not None and m.llvm.startswith("llvm."):
            return self._intrinsic(m.llvm, t, args)
        if m.llvm is not None and m.llvm.startswith("simt.math."):
            return self._math_helper(m.llvm, operands, args, result)
        if m.llvm is not None:  # one instruction
            return self.inst(m.llvm.format(*args, t=ty, k=_FloatConsts(t)))
        # every row has one of them (the table's test checks each on this backend)
        assert m.libm is not None, f"math row {m.name} has no cpu spelling"
        cname = m.libm + ("f" if t == FLOAT32 else "")
        rt = llvm_type(result)
        tys = [llvm_type(a.scalar) for a in operands]
        self.decls.add(f"declare {rt} @{cname}({', '.join(tys)})")
        argtext = ", ".join(f"{ty} {x}" for ty, x in zip(tys, args))
        return self.inst(f"call {rt} @{cname}({argtext})")

    def _math_helper(
        self, helper: str, operands: Sequence[Value], args: list[str], result: Scalar
    ) -> str:
        """A call of `helper` (a `simt.math.*` of MATH_HELPERS, for the operands' type;
        defined once)."""
        t = operands[0].scalar
        ty = llvm_type(t)
        fill = {
            "t": ty,
            "sfx": {"float": "f32", "double": "f64"}.get(ty, ty),
            "fs": "f" if t == FLOAT32 else "",
            "inf": "0x7FF0000000000000",  # +infinity, as LLVM writes float and double constants
            **(UNSIGNED if t.kind == "u" else SIGNED),
        }
        name = f"{helper}.{ty}"
        text, decls = MATH_HELPERS[helper]
        if name not in self.helpers:
            self.helpers[name] = text.format(name=name, **fill)
            self.decls.update(d.format(**fill) for d in decls)
        rt = llvm_type(result)
        argtext = ", ".join(f"{llvm_type(a.scalar)} {x}" for a, x in zip(operands, args))
        return self.inst(f"call {rt} @{name}({argtext})")

    def _helper(self, o: str, t: Scalar) -> str:
        ty = llvm_type(t)
        name = f"simt.{o}.{'u' if t.kind == 'u' else ''}{ty}"
        if name not in self.helpers:
            sfx = {"float": "f32", "double": "f64"}.get(ty, ty)
            self.helpers[name] = ARITH[(o, "f" if t.is_float else t.kind)].format(
                name=name, t=ty, bits=t.bits, sfx=sfx
            )
            if t.is_float:
                self.decls.add(f"declare {ty} @llvm.floor.{sfx}({ty})")
                self.decls.add(f"declare {ty} @llvm.copysign.{sfx}({ty}, {ty})")
        return name


# ---- operators that are not one instruction (`BIN`): {operator: spelling}, as the C-like
# languages' `BIN`/`UN` tables (`clike.CRenderer`)
def _helper_call(r: OpRenderer, o: str, t: Scalar, a: str, b: str) -> str:
    """Python's floor `//` and `%`, and integer `**` (float `**` is the pow row: `_op_bin`)."""
    assert o != "pow" or not t.is_float, (o, t)
    ty = llvm_type(t)
    return r.inst(f"call {ty} @{r._helper(o, t)}({ty} {a}, {ty} {b})")


def _minmax(r: OpRenderer, o: str, t: Scalar, a: str, b: str) -> str:
    ty = llvm_type(t)
    if t.is_float:
        c = r.inst(f"fcmp {'olt' if o == 'min' else 'ogt'} {ty} {a}, {b}")
        return r.select(c, a, b, ty)
    if t.is_bool:
        return r.inst(f"{'and' if o == 'min' else 'or'} i1 {a}, {b}")
    sign = "s" if t.is_signed else "u"
    return r._intrinsic(f"llvm.{sign}{o}", t, [a, b])


def _shift(r: OpRenderer, o: str, t: Scalar, a: str, b: str) -> str:
    """The amount taken modulo the width; `>>` arithmetic for signed types."""
    ty = llvm_type(t)
    amt = r.inst(f"and {ty} {b}, {t.bits - 1}")
    name = "shl" if o == "shl" else ("ashr" if t.is_signed else "lshr")
    return r.inst(f"{name} {ty} {a}, {amt}")


BinSpelling = Callable[[OpRenderer, str, Scalar, str, str], str]
BIN_SPELLING: dict[str, BinSpelling] = {
    "floordiv": _helper_call, "mod": _helper_call, "pow": _helper_call,
    "min": _minmax, "max": _minmax, "shl": _shift, "shr": _shift,
}  # fmt: skip


def _neg(r: OpRenderer, op: Op, t: Scalar, x: str) -> str:
    ty = llvm_type(t)
    return r.inst(f"fneg {ty} {x}" if t.is_float else f"sub {ty} 0, {x}")


def _not(r: OpRenderer, op: Op, t: Scalar, x: str) -> str:
    ty = llvm_type(t)
    if t.is_bool:
        return r.inst(f"xor i1 {x}, true")
    zero = r.inst(f"fcmp oeq {ty} {x}, 0.0" if t.is_float else f"icmp eq {ty} {x}, 0")
    return r.cast(zero, BOOL, op.result.scalar)


def _invert(r: OpRenderer, op: Op, t: Scalar, x: str) -> str:
    return r.inst(f"xor {llvm_type(t)} {x}, {'true' if t.is_bool else -1}")


def _abs(r: OpRenderer, op: Op, t: Scalar, x: str) -> str:
    if t.is_float:
        return r._intrinsic("llvm.fabs", t, [x])
    if not t.is_signed or t.is_bool:
        return x
    return r._intrinsic("llvm.abs", t, [x], extra="false")


UnSpelling = Callable[[OpRenderer, Op, Scalar, str], str]
UN_SPELLING: dict[str, UnSpelling] = {"neg": _neg, "not": _not, "invert": _invert, "abs": _abs}
