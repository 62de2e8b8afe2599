"""The WGSL renderer: a kernel's IR as one WGSL compute shader, plus what the runtime needs to
bind and launch it. No device calls: what the adapter cannot compile was refused, and what it
needs written differently rewritten, before rendering (`passes.legalise`, run by the webgpu
runtime with its adapter's limits).

What is only WGSL's, on top of the C-like base (`clike.CRenderer`): its operators and
conversions (`bin`, `un`, `cast`, `convert`), its math spellings (the rows' `wgsl`), the
strides of its arrays (the uniform struct's) and the index type (i32), the words of its
failure and print records, and its ops' rules. Its parts are layers and modules beside it,
one job each: `wgsl_storage` (what WGSL memory lacks, in its load, store, atomic and cas
rules: packed 8/16-bit elements, bool storage, emulated atomics),
`wgsl_loops` (`loop {}` forms), `wgsl_layout` (bindings, the uniform struct, thread
indices, print records and the module text around the kernel's body),
`wgsl_types` (type names and literals), `wgsl_helpers` / `wgsl_math` / `wgsl_math64` (helper
functions; the last float64 math).

Every SSA value becomes a `let` named after the user's variable (`clike.value_name`), so
every operand is a name or a literal and the text reads like the IR.
"""

from __future__ import annotations

from typing import ClassVar

from ..builtins import MATH, WGSL_F32_ONLY, MathFn
from ..ir import Function, Op, Value
from ..ir.ops import EXACT
from ..types import FLOAT16, FLOAT64, INT32, LOCAL, SHARED, UINT32, Scalar, compute_type
from .clike import BIN_SYMBOLS, BinSpelling, CRenderer
from .wgsl_layout import (
    RECORD_ARGS,
    RECORD_DIMS,
    UNIFORM,
    Binding,
    UniformField,
    WgslKernel,
    assemble,
    bind_params,
    layout_uniform,
    print_record,
    record_words,
    special,
)
from .wgsl_loops import LoopRenderer
from .wgsl_types import convert, literal, wgsl_type
from .wgsl_types import zero as _zero

# Math functions WGSL computes in float32 precision only, whatever the operand type
# (Vulkan's GLSL.std.450 defines them for 16/32-bit floats; lavapipe returns float32 results
# for float64 operands), and that simt has no float64 helper for (a row's `wgsl_f64`,
# backends/wgsl_math64.py): refused on float64 rather than silently imprecise. A fact of
# each row.
F32_ONLY_MATH = WGSL_F32_ONLY
# Math rows WGSL has no spelling for (refused before rendering, as F32_ONLY_MATH on float64)
MISSING_MATH = frozenset(name for name, row in MATH.items() if row.wgsl is None)


def render_kernel(fn: Function, writable: frozenset[int] = frozenset()) -> WgslKernel:
    """Render `fn` (legalised for its adapter: `passes.legalise`) as WGSL, with the binding
    and uniform layout the runtime needs. Array parameters the kernel never writes are
    declared `read`, except those whose positions are in `writable` (WebGPU refuses one
    buffer bound both read-only and writable, as in `f(a, a)`)."""
    return _Renderer(fn, writable).run()


def render(fn: Function) -> str:
    """The WGSL text of `fn`."""
    return render_kernel(fn).source


class _Renderer(LoopRenderer):
    """WGSL: the C-like renderer (through the storage and loop layers) with WGSL's types,
    literals, operator tables (`BIN`/`UN`, below), addressing and error records."""

    SELECT = "select({b}, {a}, {c})"
    ORDERED_BOOL = "i32({})"
    # WGSL's `!=` of floats is false where an operand is NaN on lavapipe (an ordered
    # not-equal; `==`, `<`, ... are right): the negated `==` is true there, as in Python
    FLOAT_NE = "!({a} == {b})"
    MATH_SPELLING = "wgsl"
    RULES: ClassVar[dict[str, str]] = {**CRenderer.RULES, "cast": "cast"}
    # CUDA's __syncthreads orders global memory too, and so do simt's barriers
    BARRIER = ("storageBarrier();", "workgroupBarrier();")
    # WGSL has no memory fence outside its barriers (which would need every invocation of the
    # workgroup to reach them): a fence orders nothing more here (docs/numba.md)
    FENCE = dict.fromkeys(("block", "device", "system"), "// threadfence: no WGSL equivalent")
    # `simt_fail_at` keeps the index (two words a dimension, low then high) and the extents
    # (as u32), up to RECORD_DIMS dimensions
    FAIL_AT = f"simt_fail_at({{site}}u, array<u32, {RECORD_ARGS}>({{n}}u, {{words}}));"
    RECORD_DIMS = RECORD_DIMS
    RECORD_PAD = "0u"
    STRIDE = "{}i"
    PRINT_NEXT = "simt_seq = simt_seq + 1u;"
    CONST_MARKS = True  # (`passes.legalise` marks constants for WGSL's drivers)
    SHAPE_LET = True  # every value a `let`, the text reads like the IR
    PARAM_EXTENT = "{t}({})"
    # shared arrays at module scope (`var<workgroup>`), per-thread ones in `main`
    ALLOC = {SHARED: ("var<workgroup> {name}: array<{t}, {n}>;", True),
             LOCAL: ("var {name}: array<{t}, {n}>;", False)}  # fmt: skip
    # a table: a module-scope array, indexable at run time
    TABLE = "var<private> {name}: array<{t}, {n}> = array<{t}, {n}>({items});"

    def __init__(self, fn: Function, writable: frozenset[int]) -> None:
        super().__init__(fn)
        self.writable = writable
        self.uniform: list[UniformField] = []
        self.uses_f64_print = False

    # ---------------------------------------------------------------- the language
    def type_name(self, t: Scalar) -> str:
        return wgsl_type(t)

    def literal(self, value: int | float | bool, t: Scalar) -> str:
        return literal(value, t)

    def let(self, name: str, t: Scalar, expr: str) -> str:
        return f"let {name}: {wgsl_type(t)} = {expr};"

    def var(self, name: str, t: Scalar, init: str | None) -> str:
        return f"var {name}: {wgsl_type(t)}" + (f" = {init};" if init is not None else ";")

    def run(self) -> WgslKernel:
        fn = self.fn
        bindings = self.bind_params()
        self.out.depth = 1
        self.block(fn.body)
        if self.sites:
            bindings.append(Binding(len(bindings), "errors", "simt_errors"))
        if self.prints:
            bindings.append(Binding(len(bindings), "prints", "simt_prints"))
            if self.uses_f64_print:
                bindings.append(Binding(len(bindings), "prints64", "simt_prints64"))
        self.uniform, size = layout_uniform(self.uniform)
        arrays = [b for b in bindings if b.kind == "array"]
        elems = {b.index: self.elem(fn.params[b.param].value) for b in arrays}
        text = assemble(
            fn, self.out.text(), bindings, self.uniform, elems, self.module,
            self.helper_texts(), bool(self.prints), self.uses_f64_print,
            len(self.sites), self.record_index,
        )  # fmt: skip
        return WgslKernel(
            source=text,
            bindings=bindings,
            uniform=self.uniform,
            uniform_size=size,
            print_formats=[op.attrs["parts"] for op in self.prints],
            print_types=[[v.scalar for v in op.operands] for op in self.prints],
            error_ops=self.sites,
            error_record=self.record_index,
        )

    def bind_params(self) -> list[Binding]:
        bindings, self.uniform, names = bind_params(self.fn, self.written, self.writable)
        self.names.update(names)
        for b in bindings:
            if b.kind == "array" and not b.read_only and self.packed(self.fn.params[b.param].value):
                self.packed_written.add(self.fn.params[b.param].value.id)
        return bindings

    def hide(self, text: str, t: Scalar) -> str:
        """Behind the run-time zero: an xor, or `simt_exact`."""
        name = wgsl_type(t)
        if t.is_int:
            return f"({text} ^ {name}({UNIFORM}.zero))"
        return f"{self.use_helper(f'simt_exact_{name}')}({text})"

    def converted(self, v: Value, t: Scalar) -> str:
        """`v` as integer type `t`: a literal converted here (naga cannot convert a 64-bit
        literal: `u32(3li)` is an error), any other value by WGSL's conversion."""
        if v.id in self.literals:
            return literal(int(self.literals[v.id]), t)
        return f"{wgsl_type(t)}({self.name(v)})"

    def special(self, reg: str, axis: int) -> str:
        return special(reg, axis)

    def cast(self, op: Op) -> None:
        (a,) = self.operands(op, op.operands)
        s, t = op.operands[0].scalar, op.result.scalar
        s = compute_type(s)  # a storage-only type's value is held in its compute type
        if not t.is_storage:
            self.define(op.result, convert(a, s, t))
            return
        c = compute_type(t)
        x = a if s == c else convert(a, s, c)
        if t == FLOAT16:
            # rounded to nearest even on the bits (WGSL leaves f32 -> f16 rounding and overflow
            # to the driver); the bits are kept for a store of this value
            self.tmp += 1
            bits = f"h{self.tmp}"
            self.out.add(f"let {bits}: u32 = {self.use_helper('simt_f16_bits')}({x});")
            self.half_bits[op.result.id] = bits
            self.define(op.result, f"{self.use_helper('simt_f16_value')}({bits})")
            return
        # wrapped to the width: the low bits, sign-extended for the signed types
        lost = 32 - t.bits
        if t.is_signed:
            expr = f"bitcast<i32>(bitcast<u32>({x}) << {lost}u) >> {lost}u"
        else:
            expr = f"{x} & {(1 << t.bits) - 1}i"
        self.define(op.result, expr)

    def math_template(self, row: MathFn, t: Scalar) -> str | None:
        """The row's `wgsl_f64` on float64 operands where it has one (WGSL's own functions
        take float32 only), else its `wgsl`."""
        if t == FLOAT64 and row.wgsl_f64 is not None:
            return row.wgsl_f64
        return row.wgsl

    def math_fill(self, t: Scalar) -> dict[str, str]:
        return {"s": wgsl_type(t)}

    def table_item(self, x: int | float | bool, t: Scalar) -> str:
        return ("1u" if x else "0u") if t.is_bool else literal(x, t)  # bool elements: u32

    # ---------------------------------------------------------------- memory
    def param_strides(self, arr: Value, n: int) -> list[str | None] | None:
        """A global array's strides are the uniform struct's, but the last (its rows are
        contiguous)."""
        if arr.array.shape is not None:  # shared or local: C order, strides known
            return None
        name = self.name(arr)
        return [f"{UNIFORM}.{name}_stride{d}" for d in range(n - 1)] + [None] * (n > 0)

    def offset_type(self, arr: Value, index: list[Value], by_shape: bool) -> Scalar:
        return INT32  # WGSL indexes arrays with i32 (or u32)

    def index_as(self, index: Value, t: Scalar) -> str:
        return self.name(index) if index.scalar == t else self.converted(index, t)

    def shape_param(self, arr: Value, d: int) -> str | None:
        return None if arr.array.shape is not None else f"{UNIFORM}.{self.name(arr)}_shape{d}"

    def index_below(self, index: Value, extent: str) -> str:
        t, i = index.scalar, self.name(index)
        return f"{i} >= {_zero(t)} && {i} < {extent}" if t.is_signed else f"{i} < {extent}"

    def index_words(self, index: Value) -> list[str]:
        x, t = self.name(index), index.scalar
        if t.bits == 64 and index.id in self.literals:  # (naga cannot convert a 64-bit literal)
            n = int(self.literals[index.id])
            return [f"{n & 0xFFFFFFFF}u", f"{(n >> 32) & 0xFFFFFFFF}u"]
        if t.bits == 64:
            m = "0xffffffffli" if t.is_signed else "0xfffffffflu"
            return [f"u32({x} & {m})", f"u32(({x} >> 32u) & {m})"]
        if t.is_signed:
            return [f"bitcast<u32>({x})", f"select(0u, 0xffffffffu, {x} < 0i)"]
        return [f"u32({x})", "0u"]

    def extent_word(self, arr: Value, d: int, extent: str) -> str:
        param = self.shape_param(arr, d)
        if param is not None:
            return f"u32({param})"
        assert arr.array.shape is not None
        return f"{arr.array.shape[d]}u"

    # ---------------------------------------------------------------- print
    def print_reserve(self, pid: int, types: list[Scalar]) -> tuple[str, str]:
        """A record of as many words as its values need, at the buffer's head (`atomicAdd`)."""
        n = record_words(types)
        return (
            f"let base = atomicAdd(&simt_prints.head, {n}u);",
            f"base + {n}u <= arrayLength(&simt_prints.words)",
        )

    def print_puts(self, pid: int, types: list[Scalar], vals: list[str]) -> list[str]:
        lines, f64 = print_record(pid, types, vals)
        self.uses_f64_print |= f64
        return lines


# ---------------------------------------------------------------- operators (`clike.BIN`)
_BOOL_OPS = {"and": "{a} & {b}", "or": "{a} | {b}", "xor": "{a} != {b}"}  # WGSL's bool ops


def _typed(spell: BinSpelling) -> BinSpelling:
    """`spell` for number operands; bool ones have only `&`, `|` and `!=` (no `^`)."""

    def on_bool_too(r: _Renderer, op: Op, a: str, b: str) -> str:
        k = op.attrs["op"]
        if not op.result.scalar.is_bool:
            return spell(r, op, a, b)
        if k not in _BOOL_OPS:
            raise r.fail(op, f"internal: bool operands for {k!r}")
        return _BOOL_OPS[k].format(a=a, b=b)

    return on_bool_too


def _arith(r: _Renderer, op: Op, a: str, b: str) -> str:
    """`+ - *`: a float result marked EXACT (`passes.legalise`) kept from the arithmetic
    reading it (`simt_exact`)."""
    t = op.result.scalar
    expr = f"{a} {BIN_SYMBOLS[op.attrs['op']]} {b}"
    if t.is_float and op.attrs.get(EXACT):
        return f"{r.use_helper(f'simt_exact_{wgsl_type(t)}')}({expr})"
    return expr


def _div(r: _Renderer, op: Op, a: str, b: str) -> str:
    if not op.result.scalar.is_float:
        raise r.fail(op, "internal: integer true division")
    return f"{a} / {b}"


def _helper_call(r: _Renderer, op: Op, a: str, b: str) -> str:
    """Python's floor `//` and `%`, and `**`: of floats, the `pow` math row's call (no float64
    `**`: `passes.legalise`)."""
    t = op.result.scalar
    if op.attrs["op"] == "pow" and t.is_float:
        return r.math_call(op, MATH["pow"], t, [a, b])
    name = f"simt_{op.attrs['op']}_{wgsl_type(t)}"
    return f"{r.use_helper(name)}({a}, {b})"


def _integer(r: _Renderer, op: Op, a: str, b: str) -> str:
    """`& | ^ << >>`: integers only; a shift amount is taken modulo the width."""
    t, k = op.result.scalar, op.attrs["op"]
    if t.is_float:
        raise r.fail(op, f"internal: float operands for {k!r}")
    if k not in ("shl", "shr"):
        return f"{a} {BIN_SYMBOLS[k]} {b}"
    mask = "63u" if t.bits == 64 else "31u"
    amount = b if t == UINT32 else r.converted(op.operands[1], UINT32)
    return f"{a} {BIN_SYMBOLS[k]} ({amount} & {mask})"


def _abs(r: _Renderer, op: Op, a: str) -> str:
    """WGSL's `abs` (a signed integer's reaches here written as a select: `passes.legalise`)."""
    t = op.result.scalar
    return a if t.kind == "u" or t.is_bool else f"abs({a})"


_Renderer.BIN = {
    **dict.fromkeys(("add", "sub", "mul"), _typed(_arith)),
    "div": _typed(_div),
    **dict.fromkeys(("floordiv", "mod", "pow"), _typed(_helper_call)),
    **dict.fromkeys(("min", "max"), _typed(lambda r, op, a, b: f"{op.attrs['op']}({a}, {b})")),
    **dict.fromkeys(("and", "or", "xor", "shl", "shr"), _typed(_integer)),
}
_Renderer.UN = {
    "neg": lambda r, op, a: f"{_zero(op.result.scalar)} - {a}" if op.result.scalar.kind == "u"
    else f"-({a})",
    "not": lambda r, op, a: f"!{a}" if op.result.scalar.is_bool
    else f"{a} == {_zero(op.result.scalar)}",
    "invert": lambda r, op, a: f"!{a}" if op.result.scalar.is_bool else f"~{a}",
    "abs": _abs,
}  # fmt: skip
