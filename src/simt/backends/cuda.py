"""The CUDA renderer: IR in, one `extern "C" __global__` CUDA C++ kernel out. No device calls.

The text includes no headers (NVRTC has no include path): it uses CUDA's built-in device
functions and declares the rest (`cuda_helpers.py`). Each SSA value becomes one `const`
local; loops carry their values in mutable locals. Semantics follow docs/semantics.md:

- signed integer `+ - * << neg` go through the unsigned type, so int32/int64 wrap (signed
  overflow is undefined behaviour in C++ and the optimiser would exploit it);
- `//` and `%` are Python's floor forms (helpers), integer division by zero gives 0;
- a global array is a pointer plus its shape and its strides in elements, all kernel
  parameters; addresses are computed in 64 bits;
- `print` appends fixed-size records to a device buffer the host formats after the launch;
  `assert` and a failing bounds check (on every access not proven in bounds, unless the
  kernel is compiled with `boundscheck=False`) report the failing thread with the lowest id
  and the site through an error word, the index of a failing access after it; a failing
  access does not touch memory.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ..builtins import MATH
from ..errors import CompileError
from ..ir import Function, Op, Value
from ..types import (
    BOOL,
    CONST,
    FLOAT16,
    FLOAT32,
    FLOAT64,
    INT8,
    INT16,
    INT32,
    INT64,
    LOCAL,
    SHARED,
    UINT8,
    UINT16,
    UINT32,
    UINT64,
    ArrayType,
    Scalar,
)
from . import clike
from .common import error_sites, print_ops
from .cuda_helpers import HELPERS, helper_text

CTYPE: dict[Scalar, str] = {
    BOOL: "bool",
    INT32: "int",
    INT64: "long long",
    UINT32: "unsigned int",
    FLOAT32: "float",
    FLOAT64: "double",
    UINT64: "unsigned long long",
    INT8: "signed char",
    UINT8: "unsigned char",
    INT16: "short",
    UINT16: "unsigned short",
    FLOAT16: "unsigned short",  # the bits; simt_h2f / simt_f2h convert
}
_WRAP = {INT32: "unsigned int", INT64: "unsigned long long"}
_SUFFIX = {INT32: "i32", INT64: "i64", UINT32: "u32", UINT64: "u64", FLOAT32: "f32",
           FLOAT64: "f64"}  # fmt: skip
PRINT_BUF = "simt_pbuf"
PRINT_CAP = "simt_pcap"
ERR_BUF = "simt_err"
# The error buffer: word 0 the smallest `thread << 20 | site` that failed (all ones: none),
# then the record of the failing access with that key: a lock, the key, the number of
# dimensions, RECORD_DIMS index values and RECORD_DIMS extents (all 64-bit words).
ERR_RECORD = 1
RECORD_DIMS = 4
ERR_WORDS = ERR_RECORD + 3 + 2 * RECORD_DIMS
CONSTANT_MEMORY = 64 * 1024  # bytes of __constant__ memory a module may use


@dataclass(frozen=True)
class KernelParam:
    """One parameter of the generated kernel, in order.

    `kind` is "ptr" (an array's data), "shape" or "stride" (dimension `dim` of the array),
    "scalar", "print" (the print buffer), "print_cap" (its capacity in words) or "error" (the
    error word). `param` is the index into `fn.params` for the first four kinds.
    """

    kind: str
    name: str
    ctype: str
    param: int = -1
    dim: int = -1


@dataclass(frozen=True)
class PrintFormat:
    """One print op: its parts (for `printing.format_print`) and the types of its values."""

    parts: tuple[object, ...]
    types: tuple[Scalar, ...]


@dataclass
class CudaKernel:
    """What the renderer produces: the source text and what the runtime needs to launch it."""

    name: str
    source: str
    params: list[KernelParam]
    prints: list[PrintFormat]
    record_words: int  # words per print record (0 when the kernel has no print)
    sites: list[Op]  # error sites; site id = index + 1
    fast_math: bool = False
    meta: dict[str, object] = field(default_factory=dict)


def build(fn: Function, fast_math: bool | None = None) -> CudaKernel:
    """Render `fn` as CUDA C++ with what the runtime needs to launch it. `fast_math` (default:
    `fn.attrs["fast_math"]`) spells float32 transcendental functions with CUDA's fast
    intrinsics (`__expf`, ...)."""
    if fast_math is None:
        fast_math = bool(fn.attrs.get("fast_math", False))
    return _Renderer(fn, fast_math).run()


def render(fn: Function) -> str:
    """The CUDA C++ text of `fn` (what `kernel.source("cuda", ...)` shows)."""
    return build(fn).source


def kernel_name(fn: Function) -> str:
    """The entry point's symbol: the Python name, made a safe C identifier."""
    return "simt_" + clike.ident(fn.name).lstrip("_")


def c_literal(value: int | float | bool, t: Scalar) -> str:
    """A C++ literal of type `t` (with parentheses where it is negative)."""
    if t.is_bool:
        return "true" if value else "false"
    if t.is_int:
        v = int(value)
        if t == UINT32:
            return f"{v & 0xFFFFFFFF}u"
        if t == UINT64:
            return f"{v % 2**64}ULL"
        if t == INT64:
            v = (v + 2**63) % 2**64 - 2**63
            text = f"{v}LL" if v != -(2**63) else "(-9223372036854775807LL - 1)"
        else:
            v = (v + 2**31) % 2**32 - 2**31
            text = f"{v}" if v != -(2**31) else "(-2147483647 - 1)"
        return f"({text})" if v < 0 and not text.startswith("(") else text
    f = float(value)
    if t == FLOAT32:
        if math.isnan(f):
            return "__int_as_float(0x7fffffff)"
        if math.isinf(f):
            return "__int_as_float(0x7f800000)" if f > 0 else "(-__int_as_float(0x7f800000))"
        text = str(np.float32(f))  # the shortest text that reads back as this float32
        if "e" not in text and "." not in text:
            text += ".0"
        text += "f"
    else:
        if math.isnan(f):
            return "__longlong_as_double(0x7ff8000000000000LL)"
        if math.isinf(f):
            inf = "__longlong_as_double(0x7ff0000000000000LL)"
            return inf if f > 0 else f"(-{inf})"
        text = repr(f)
        if "e" not in text and "." not in text:
            text += ".0"
    return f"({text})" if text.startswith("-") else text


class _Renderer(clike.CRenderer):
    """CUDA C++: the C-like renderer with CUDA's types, literals, wrapping integer arithmetic,
    atomics, helpers and print/error records."""

    RULES: ClassVar[dict[str, str]] = {
        **clike.CRenderer.RULES,
        "const": "_op_const", "bin": "_op_bin", "cmp": "_op_cmp", "un": "_op_un",
        "cast": "_op_cast", "select": "_op_select", "math": "_op_math",
        "special": "_op_special", "shape": "_op_shape", "alloc": "_op_alloc",
        "load": "_op_load", "store": "_op_store", "atomic": "_op_atomic", "cas": "_op_cas",
        "barrier": "_op_barrier", "fence": "_op_fence", "print": "_op_print",
        "assert": "_op_assert",
        "warp": "_op_warp",
    }  # fmt: skip

    def __init__(self, fn: Function, fast_math: bool) -> None:
        super().__init__(fn)
        self.fast_math = fast_math
        self.used: set[str] = set()
        self.params: list[KernelParam] = []
        self.arrays: dict[int, tuple[str, list[str], list[str]]] = {}  # ptr, shapes, strides
        self.prints = print_ops(fn)
        self.print_id = {id(op): i for i, op in enumerate(self.prints)}
        self.sites = error_sites(fn, bounds=fn.checks_bounds)
        self.site_id = {id(op): i + 1 for i, op in enumerate(self.sites)}
        nvals = max((len(op.operands) for op in self.prints), default=0)
        self.record_words = 4 + 2 * nvals if self.prints else 0
        self.tables: list[str] = []  # constant tables, declared at file scope
        self.const_bytes = 0

    # ------------------------------------------------------------------ entry point
    def run(self) -> CudaKernel:
        fn = self.fn
        sig = self._signature()
        self.out.open(f'extern "C" __global__ void {kernel_name(fn)}(')
        for i, p in enumerate(sig):
            self.out.add(p + ("," if i < len(sig) - 1 else ""))
        self.out.depth -= 1
        self.out.open(") {")
        if self.prints:
            self.out.add("unsigned int simt_seq = 0u;  // this thread's prints so far")
        self.block(fn.body)
        self.out.close()
        head = [f"// CUDA C++ generated by simt from {fn.name} ({fn.filename})."]
        if self.fast_math:
            head.append("// fast math: float32 exp/log/sin/cos/pow use CUDA's intrinsics.")
        helpers = helper_text(self.used)
        tables = "\n".join(self.tables) + "\n\n" if self.tables else ""
        text = (
            "\n".join(head) + "\n\n" + (helpers + "\n\n" if helpers else "") + tables
            + self.out.text()
        )
        prints = [
            PrintFormat(tuple(op.attrs["parts"]), tuple(v.scalar for v in op.operands))
            for op in self.prints
        ]
        return CudaKernel(
            name=kernel_name(fn),
            source=text,
            params=self.params,
            prints=prints,
            record_words=self.record_words,
            sites=self.sites,
            fast_math=self.fast_math,
        )

    def _signature(self) -> list[str]:
        sig: list[str] = []

        def add(p: KernelParam) -> None:
            self.params.append(p)
            sig.append(f"{p.ctype} {p.name}")

        for i, param in enumerate(self.fn.params):
            v = param.value
            name = clike.value_name(v)
            if isinstance(v.type, ArrayType):
                t = v.type
                idx = CTYPE[t.index]
                add(KernelParam("ptr", name, f"{CTYPE[t.dtype]}*", i))
                shapes = [f"{name}_shape{d}" for d in range(t.ndim)]
                strides = [f"{name}_stride{d}" for d in range(t.ndim)]
                for d, s in enumerate(shapes):
                    add(KernelParam("shape", s, idx, i, d))
                for d, s in enumerate(strides):
                    add(KernelParam("stride", s, "long long", i, d))
                self.arrays[v.id] = (name, shapes, strides)
            else:
                add(KernelParam("scalar", name, CTYPE[v.scalar], i))
            self.names[v.id] = name
        if self.prints:
            add(KernelParam("print", PRINT_BUF, "unsigned int*"))
            add(KernelParam("print_cap", PRINT_CAP, "unsigned int"))
            self.used |= {"simt_put", "simt_record"}
        if self.sites:
            add(KernelParam("error", ERR_BUF, "unsigned long long*"))
            self.used.add("simt_fail")
        return sig

    # ------------------------------------------------------------------ the language
    def type_name(self, t: Scalar) -> str:
        return CTYPE[t]

    def literal(self, value: int | float | bool, t: Scalar) -> str:
        return c_literal(value, t)

    def let(self, name: str, t: Scalar, expr: str) -> str:
        return f"const {CTYPE[t]} {name} = {expr};"

    def var(self, name: str, t: Scalar, init: str | None) -> str:
        return f"{CTYPE[t]} {name}" + (f" = {init};" if init is not None else ";")

    def open_counted(self, counter: str, t: Scalar, start: str, cond: str, step: str) -> None:
        self.out.open(f"for ({CTYPE[t]} {counter} = {start}; {cond}; {counter} += {step}) {{")

    def close_counted(self, counter: str, step: str) -> None:
        self.out.close()

    def fail(self, op: Op, why: str) -> CompileError:
        loc = op.loc
        if loc is None:
            return CompileError(f"the CUDA backend cannot compile this: {why}")
        return CompileError(
            f"the CUDA backend cannot compile this: {why}",
            loc.filename,
            loc.line,
            loc.col,
            loc.source_line,
        )

    # ------------------------------------------------------------------ scalar ops
    def _op_const(self, op: Op) -> None:
        self.names[op.result.id] = c_literal(op.attrs["value"], op.result.scalar)

    def _op_bin(self, op: Op) -> None:
        a, b = (self.name(v) for v in op.operands)
        t = op.result.scalar
        k = op.attrs["op"]
        ct = CTYPE[t]
        if k in ("add", "sub", "mul") or (k == "shl" and t.is_int):
            sym = clike.BIN_SYMBOLS[k]
            if k == "shl":
                b = f"({b} & {t.bits - 1})"
            if t in _WRAP:
                u = _WRAP[t]
                expr = f"({ct})(({u}){a} {sym} ({u}){b})"
            elif t.is_bool:
                expr = f"(bool)({a} {sym} {b})"
            else:
                expr = f"{a} {sym} {b}"
        elif k == "shr":
            expr = f"{a} >> ({b} & {t.bits - 1})"
        elif k == "div":
            expr = f"{a} / {b}"
        elif k in ("floordiv", "mod"):
            if t.is_bool:
                raise self.fail(op, f"{k} on bool values")
            helper = f"simt_{k}_{_SUFFIX[t]}"
            self.used.add(helper)
            expr = f"{helper}({a}, {b})"
        elif k == "pow":
            if t.is_float:
                expr = f"pow{'f' if t == FLOAT32 else ''}({a}, {b})"
                if self.fast_math and t == FLOAT32:
                    expr = f"__powf({a}, {b})"
            else:
                if t.is_bool:
                    raise self.fail(op, "** on bool values")
                helper = f"simt_pow_{_SUFFIX[t]}"
                self.used.add(helper)
                expr = f"{helper}({a}, {b})"
        elif k in ("min", "max"):
            if t.is_float:
                expr = f"f{k}{'f' if t == FLOAT32 else ''}({a}, {b})"
            else:
                expr = f"({a} {'<' if k == 'min' else '>'} {b} ? {a} : {b})"
        elif k in ("and", "or", "xor"):
            expr = f"{a} {clike.BIN_SYMBOLS[k]} {b}"
            if t.is_bool:
                expr = f"(bool)({expr})"
        else:  # pragma: no cover - the verifier rejects unknown ops
            raise self.fail(op, f"unknown operator {k}")
        self.define(op.result, expr)

    def _op_cmp(self, op: Op) -> None:
        a, b = (self.name(v) for v in op.operands)
        self.define(op.result, f"{a} {clike.CMP_SYMBOLS[op.attrs['op']]} {b}")

    def _op_un(self, op: Op) -> None:
        a = self.name(op.operands[0])
        t = op.result.scalar
        ct = CTYPE[t]
        k = op.attrs["op"]
        if k == "neg":
            if t in _WRAP:
                expr = f"({ct})(({_WRAP[t]})0 - ({_WRAP[t]}){a})"
            elif t.is_bool:
                expr = a  # -True is truthy: stays True
            else:
                expr = f"-{a}"
        elif k == "not":
            expr = f"!{a}" if t.is_bool else f"({ct})({a} == 0)"
        elif k == "invert":
            expr = f"!{a}" if t.is_bool else f"~{a}"
        elif k == "abs":
            if t.is_float:
                expr = f"fabs{'f' if t == FLOAT32 else ''}({a})"
            elif t in _WRAP:
                u = _WRAP[t]
                expr = f"({ct})({a} < 0 ? ({u})0 - ({u}){a} : ({u}){a})"
            else:
                expr = a
        else:  # pragma: no cover
            raise self.fail(op, f"unknown unary operator {k}")
        self.define(op.result, expr)

    def _op_cast(self, op: Op) -> None:
        a = op.operands[0]
        to = op.result.scalar
        if to.is_bool:
            expr = f"{self.name(a)} != 0"
        elif a.scalar == FLOAT16 or to == FLOAT16:  # only float16 <-> float32 (the front end)
            helper = "simt_h2f" if a.scalar == FLOAT16 else "simt_f2h"
            self.used.add(helper)
            expr = f"{helper}({self.name(a)})"
        else:
            expr = f"({CTYPE[to]}){self.name(a)}"
        self.define(op.result, expr)

    def _op_select(self, op: Op) -> None:
        c, a, b = (self.name(v) for v in op.operands)
        self.define(op.result, f"{c} ? {a} : {b}")

    def _op_math(self, op: Op) -> None:
        fn = op.attrs["fn"]
        spec = MATH.get(fn)
        if spec is None:
            raise self.fail(op, f"unknown math function {fn}")
        args = [self.name(v) for v in op.operands]
        ft = op.operands[0].scalar if op.operands else op.result.scalar
        template = spec.c
        if self.fast_math and ft == FLOAT32 and spec.c_fast:
            template = spec.c_fast
        expr = template.format(*args, f="f" if ft == FLOAT32 else "", t=CTYPE[ft])
        self.used.update(n for n in re.findall(r"\bsimt_\w+", template) if n in HELPERS)
        self.define(op.result, expr)

    def _op_special(self, op: Op) -> None:
        reg = {
            "thread_idx": "threadIdx",
            "block_idx": "blockIdx",
            "block_dim": "blockDim",
            "grid_dim": "gridDim",
        }[op.attrs["reg"]]
        self.define(op.result, f"(int){reg}.{'xyz'[op.attrs['axis']]}")

    def _op_shape(self, op: Op) -> None:
        arr = op.operands[0]
        t = arr.array
        d = op.attrs["dim"]
        if arr.id in self.arrays:
            self.names[op.result.id] = self.arrays[arr.id][1][d]
        else:
            assert t.shape is not None
            self.names[op.result.id] = c_literal(t.shape[d], op.result.scalar)

    # ------------------------------------------------------------------ memory
    def _op_alloc(self, op: Op) -> None:
        t = op.result.array
        assert t.shape is not None
        size = max(int(np.prod(t.shape, dtype=np.int64)), 1)
        name = clike.value_name(op.result)
        self.names[op.result.id] = name
        if t.space == CONST:
            self._table(op, name, size)
            return
        space = "__shared__ " if t.space == SHARED else ""
        if t.space not in (SHARED, LOCAL):
            raise self.fail(op, f"cannot allocate an array in {t.space} memory")
        self.out.add(f"{space}{CTYPE[t.dtype]} {name}[{size}];")

    def _table(self, op: Op, name: str, size: int) -> None:
        """A constant table at file scope: in constant memory (64 KiB, cached, fastest when a
        warp's threads read one element) while the kernel's tables fit there, else a
        read-only array in global memory."""
        t = op.result.array
        nbytes = size * np.dtype(t.dtype.np).itemsize
        self.const_bytes += nbytes
        space = "__constant__" if self.const_bytes <= CONSTANT_MEMORY else "__device__ const"
        items = ", ".join(c_literal(x, t.dtype) for x in op.attrs["data"])
        self.tables.append(f"{space} {CTYPE[t.dtype]} {name}[{size}] = {{{items}}};")

    def _address(self, op: Op) -> tuple[str, str | None]:
        """(`array[offset]` lvalue, bounds condition or None) of a load/store/atomic."""
        arr = op.operands[0]
        t = arr.array
        idx = op.operands[1 : 1 + t.ndim]
        names = [self.name(v) for v in idx]
        if arr.id in self.arrays:
            ptr, shapes, strides = self.arrays[arr.id]
            terms = [f"(long long){i} * {s}" for i, s in zip(names, strides)]
            offset = " + ".join(terms) if terms else "0"
        else:
            assert t.shape is not None
            ptr = self.name(arr)
            shapes = [str(s) for s in t.shape]
            wide = any(v.scalar.bits > 32 for v in idx) or int(np.prod(t.shape)) >= 2**31
            it = "long long" if wide else "int"
            terms = []
            stride = 1
            for i, extent in reversed(list(zip(names, t.shape))):
                terms.append(f"({it}){i}" + (f" * {stride}" if stride != 1 else ""))
                stride *= extent
            offset = " + ".join(reversed(terms)) if terms else "0"
        self._index = (idx, shapes)  # for `_fail_at`
        return f"{ptr}[{offset}]", self.in_bounds(op, idx, shapes)

    def index_below(self, index: Value, extent: str) -> str:
        # one unsigned compare: a negative index converts to a huge one
        i = self.name(index)
        conv = "(unsigned long long)" + (f"(long long){i}" if index.scalar.is_signed else i)
        return f"{conv} < (unsigned long long){extent}"

    def _fail_at(self, op: Op) -> str:
        """The statement that reports the failing access `op` (its site, thread and index):
        `simt_fail_at` keeps the index of the access with the smallest (thread, site)."""
        idx, shapes = self._index
        site = self.site_id[id(op)]
        if not idx or len(idx) > RECORD_DIMS:
            return f"simt_fail({ERR_BUF}, {site}u);"
        self.used.add("simt_fail_at")
        words = [f"(long long){self.name(v)}" for v in idx] + ["0LL"] * (RECORD_DIMS - len(idx))
        words += [f"(long long){s}" for s in shapes] + ["0LL"] * (RECORD_DIMS - len(idx))
        return f"simt_fail_at({ERR_BUF}, {site}u, {len(idx)}, {', '.join(words)});"

    def _guarded(self, op: Op, check: str | None, lines: list[str]) -> None:
        self.guarded(check, lines, None if check is None else self._fail_at(op))

    def _op_load(self, op: Op) -> None:
        ref, check = self._address(op)
        self.checked_value(op.result, check, ref, None if check is None else self._fail_at(op))

    def _op_store(self, op: Op) -> None:
        ref, check = self._address(op)
        self._guarded(op, check, [f"{ref} = {self.name(op.operands[-1])};"])

    def _op_atomic(self, op: Op) -> None:
        ref, check = self._address(op)
        t = op.result.scalar
        v = self.name(op.operands[-1])
        expr = self._atomic_expr(op, op.attrs["op"], t, f"&{ref}", v)
        self._atomic_result(op, check, expr)

    def _op_cas(self, op: Op) -> None:
        ref, check = self._address(op)
        t = op.result.scalar
        cmp, v = (self.name(x) for x in op.operands[-2:])
        p = f"&{ref}"
        if t in (INT32, UINT32):
            expr = f"atomicCAS({p}, {cmp}, {v})"
        elif t == INT64:
            expr = (
                f"(long long)atomicCAS((unsigned long long*){p}, "
                f"(unsigned long long){cmp}, (unsigned long long){v})"
            )
        elif t == FLOAT32:
            expr = (
                f"__int_as_float(atomicCAS((int*){p}, __float_as_int({cmp}), __float_as_int({v})))"
            )
        elif t == FLOAT64:
            expr = (
                f"__longlong_as_double((long long)atomicCAS((unsigned long long*){p}, "
                f"(unsigned long long)__double_as_longlong({cmp}), "
                f"(unsigned long long)__double_as_longlong({v})))"
            )
        else:
            raise self.fail(op, "atomic compare-and-swap on a bool array")
        self._atomic_result(op, check, expr)

    def _atomic_result(self, op: Op, check: str | None, expr: str) -> None:
        self.checked_value(op.result, check, expr, None if check is None else self._fail_at(op))

    def _atomic_expr(self, op: Op, k: str, t: Scalar, p: str, v: str) -> str:
        ull = "unsigned long long"
        if t.is_bool:
            raise self.fail(op, "atomics on bool arrays")
        if k == "add":
            if t == INT64:
                return f"(long long)atomicAdd(({ull}*){p}, ({ull}){v})"
            return f"atomicAdd({p}, {v})"
        if k == "sub":
            if t in (INT32, UINT32):
                return f"atomicSub({p}, {v})"
            if t == INT64:
                return f"(long long)atomicAdd(({ull}*){p}, ({ull})0 - ({ull}){v})"
            return f"atomicAdd({p}, -{v})"
        if k in ("min", "max"):
            name = "atomicMin" if k == "min" else "atomicMax"
            if t.is_float:
                helper = f"simt_atomic_{k}_{_SUFFIX[t]}"
                self.used.add(helper)
                return f"{helper}({p}, {v})"
            return f"{name}({p}, {v})"
        if k == "exch":
            if t == INT64:
                return f"(long long)atomicExch(({ull}*){p}, ({ull}){v})"
            if t == FLOAT64:
                return (
                    f"__longlong_as_double((long long)atomicExch(({ull}*){p}, "
                    f"({ull})__double_as_longlong({v})))"
                )
            return f"atomicExch({p}, {v})"
        if k in ("and", "or", "xor"):
            if t.is_float:
                raise self.fail(op, f"atomic {k} on a float array")
            name = {"and": "atomicAnd", "or": "atomicOr", "xor": "atomicXor"}[k]
            if t == INT64:
                return f"(long long){name}(({ull}*){p}, ({ull}){v})"
            return f"{name}({p}, {v})"
        raise self.fail(op, f"unknown atomic operation {k}")  # pragma: no cover

    # ------------------------------------------------------------------ effects
    def _op_barrier(self, op: Op) -> None:
        self.out.add("__syncthreads();")

    def _op_fence(self, op: Op) -> None:
        scope = {"block": "_block", "device": "", "system": "_system"}[op.attrs["scope"]]
        self.out.add(f"__threadfence{scope}();")

    def _op_warp(self, op: Op) -> None:
        """CUDA's warp intrinsics (Numba's functions are these, with warpSize 32)."""
        a = [self.name(v) for v in op.operands]
        kind = op.attrs["op"]
        if kind == "syncwarp":
            self.out.add(f"__syncwarp({a[0]});")
            return
        expr = {
            "shfl": lambda: f"__shfl_sync({a[0]}, {a[1]}, {a[2]})",
            "shfl_up": lambda: f"__shfl_up_sync({a[0]}, {a[1]}, (unsigned int){a[2]})",
            "shfl_down": lambda: f"__shfl_down_sync({a[0]}, {a[1]}, (unsigned int){a[2]})",
            "shfl_xor": lambda: f"__shfl_xor_sync({a[0]}, {a[1]}, {a[2]})",
            "ballot": lambda: f"__ballot_sync({a[0]}, {a[1]})",
            "all": lambda: f"(__all_sync({a[0]}, {a[1]}) != 0)",
            "any": lambda: f"(__any_sync({a[0]}, {a[1]}) != 0)",
            "activemask": lambda: "__activemask()",
        }[kind]()
        self.define(op.result, expr)

    def _op_print(self, op: Op) -> None:
        pid = self.print_id[id(op)]
        self.out.open("{")
        self.out.add(
            f"unsigned int* simt_rec = simt_record({PRINT_BUF}, {PRINT_CAP}, "
            f"{self.record_words}u, simt_seq, {pid}u);"
        )
        if op.operands:
            self.out.open("if (simt_rec) {")
            for k, v in enumerate(op.operands):
                self.out.add(f"simt_put(simt_rec + {4 + 2 * k}, {self.name(v)});")
            self.out.close()
        self.out.add("simt_seq += 1u;")
        self.out.close()

    def _op_assert(self, op: Op) -> None:
        c = self.name(op.operands[0])
        self.out.add(f"if (!{c}) simt_fail({ERR_BUF}, {self.site_id[id(op)]}u);")
