"""WGSL's storage emulation: what WGSL memory lacks, written with what it has.

- bool array elements are stored as u32 (`from_storage` / `to_storage`);
- 8/16-bit int and float16 elements of global arrays are packed, four or two to a u32 word
  (`array<u32>` when read only, else `array<atomic<u32>>`): a load shifts its element out, a
  store replaces its bits of the word with a compare-exchange loop, so threads storing
  neighbours never lose each other's stores (`packed_access`); float16 values compute as f32,
  rounded to nearest even on the bits (`simt_f16_bits`) as NumPy rounds;
- an array used by an atomic is declared `array<atomic<i32>>` (`atomic<u32>` for uint32 and
  float32): float32 atomics are compare-exchange loops on the bit pattern (`float_atomic`),
  compare-and-swap retries WGSL's weak compare-exchange (`cas_loop`), and an atomic on a
  per-thread array is a plain read-modify-write (`local_rmw`).

`StorageRenderer` is the layer of the WGSL renderer (`backends/wgsl.py`) that holds these
(and the helper functions' bookkeeping); it sits between the C-like base and the WGSL
renderer, which addresses, checks and dispatches the accesses.
"""

from __future__ import annotations

import re

from ..ir import Function, Op, Value, walk
from ..ir.ops import ATOMICS, STORES
from ..types import FLOAT16, FLOAT32, GLOBAL, SHARED, Scalar
from .clike import CRenderer, value_name
from .wgsl_helpers import HELPERS, helper
from .wgsl_types import PACKED, storage_type, wgsl_type

ATOMIC_FNS = {"add": "atomicAdd", "sub": "atomicSub", "min": "atomicMin", "max": "atomicMax",
              "exch": "atomicExchange", "and": "atomicAnd", "or": "atomicOr",
              "xor": "atomicXor"}  # fmt: skip
# float32 atomics, as an expression of the old value `o` and the operand `v`.
_FLOAT_ATOMIC = {"add": "o + v", "sub": "o - v", "min": "min(o, v)", "max": "max(o, v)",
                 "exch": "v"}  # fmt: skip


class StorageRenderer(CRenderer):
    """The WGSL renderer's storage layer: element types of arrays in WGSL memory, packed
    loads and stores, emulated atomics."""

    HELPERS = HELPERS

    def __init__(self, fn: Function) -> None:
        super().__init__(fn)
        self.atomic_arrays = {op.operands[0].id for op in walk(fn.body) if op.opcode in ATOMICS}
        self.written = {op.operands[0].id for op in walk(fn.body) if op.opcode in STORES}
        self.packed_written: set[int] = set()  # packed arrays bound writable: atomic words
        self.tmp = 0  # a counter for unique names of temporaries
        self.half_bits: dict[int, str] = {}  # float16 value id -> the name of its bits (u32)

    def helper_calls(self, name: str) -> list[str]:
        """The helpers whose calls helper `name`'s text holds (WGSL declares functions in any
        order: each is emitted after its first user)."""
        called = re.findall(r"\b(simt_\w+)\(", helper(name))
        return [c for c in called if c != name and c in HELPERS]

    def element_access(self, op: Op, ref: str, rest: list[str], ok: str | None,
                       atomic: bool) -> None:  # fmt: skip
        """A load, store, atomic or cas of element `ref` (not packed) of an array in atomic
        words when `atomic`; `rest` the operands after the index, `ok` the bounds condition
        (None: unchecked). A failing load reads nothing (0), a failing store or atomic writes
        nothing."""
        k = op.opcode
        a = op.operands[0].array
        dt = a.dtype
        if k == "load":
            raw = self.atomic_word_load(ref, dt) if atomic else ref
            if op.attrs.get("uniform") and not atomic and a.space == SHARED:
                raw = f"workgroupUniformLoad(&{ref})"  # (passes.barriers: a uniform flag)
            self.checked_value(op.result, ok, self.from_storage(raw, dt))
            return
        if k == "store":
            (val,) = rest
            stored = self.to_storage(val, dt)
            text = self.atomic_word_store(ref, stored, dt) if atomic else f"{ref} = {stored};"
            self.out.add(f"if ({ok}) {{ {text} }}" if ok is not None else text)
            return
        # atomic / cas: the old value
        res = op.result
        n = value_name(res)
        self.names[res.id] = n
        self.out.add(f"var {n}: {wgsl_type(dt)};")
        if ok is not None:
            self.out.open(f"if ({ok}) {{")
        if not atomic:
            self.local_rmw(op, ref, n, rest)
        elif dt.is_bool or dt.bits == 64:  # refused before rendering (`passes.legalise`)
            raise self.fail(op, f"internal: atomics on a {dt} array")
        elif k == "cas":
            cmp, val = rest
            self.cas_loop(ref, n, dt, cmp, val)
        elif dt == FLOAT32:
            self.float_atomic(op, ref, n, rest[0])
        else:
            self.out.add(f"{n} = {ATOMIC_FNS[op.attrs['op']]}(&{ref}, {rest[0]});")
        if ok is not None:
            self.out.close()

    def packed(self, arr: Value) -> int:
        """Elements per u32 word of a packed (8/16-bit, global) array; 0 when not packed.
        Shared and local arrays of those types hold one i32 / f32 per element instead (no
        packing, so stores need no atomics; shared memory is small and per block)."""
        a = arr.array
        return PACKED.get(a.dtype.name, 0) if a.space == GLOBAL else 0

    def elem(self, v: Value) -> str:
        a = v.array
        if self.packed(v):
            return "atomic<u32>" if v.id in self.packed_written else "u32"
        if a.dtype.is_storage:  # a shared or local array: one word per element
            return wgsl_type(a.dtype)
        t = storage_type(a.dtype)
        if v.id in self.atomic_arrays and a.space != "local":
            return "atomic<u32>" if a.dtype == FLOAT32 else f"atomic<{t}>"
        return t

    # ---------------------------------------------------------------- ops

    def packed_access(self, op: Op, addr: str, rest: list[str], ok: str | None) -> None:
        """A load or store of one element of a packed array (8/16-bit elements in u32
        words). A store replaces only its own bits of the word, with a compare-exchange loop:
        a neighbour stored by another thread in the same launch is never lost, and two
        threads storing one element leave one of their values (not a mix of both)."""
        arr = op.operands[0]
        dt = arr.array.dtype
        per = self.packed(arr)
        bits = 32 // per
        buf = self.name(arr)
        self.tmp += 1
        n = self.tmp
        self.out.add(f"let e{n} = u32({addr});")
        word = f"{buf}[e{n} >> {per.bit_length() - 1}u]"
        shift = f"(e{n} & {per - 1}u) * {bits}u"
        mask = f"{(1 << bits) - 1}u"
        if op.opcode == "load":
            raw = f"atomicLoad(&{word})" if arr.id in self.packed_written else word
            self.out.add(f"let w{n} = {raw};")
            if dt == FLOAT16:
                self.out.add(f"let h{n} = (w{n} >> ({shift})) & {mask};")
                self.half_bits[op.result.id] = f"h{n}"
                expr = f"{self.use_helper('simt_f16_value')}(h{n})"
            elif dt.is_signed:  # the element's bits moved to the top, shifted back down
                expr = f"bitcast<i32>(w{n} << ({32 - bits}u - {shift})) >> {32 - bits}u"
            else:
                expr = f"i32((w{n} >> ({shift})) & {mask})"
            self.define(op.result, expr)
            return
        if op.opcode != "store":
            raise self.fail(op, f"atomics on {dt} arrays are not available (they are packed)")
        (val,) = rest
        v = op.operands[-1]
        if dt == FLOAT16:
            new = self.half_bits.get(v.id) or f"{self.use_helper('simt_f16_bits')}({val})"
        else:
            new = f"bitcast<u32>({val}) & {mask}"
        b = self.out
        b.open(f"if ({ok}) {{" if ok is not None else "{")
        b.add(f"let s{n} = {shift};")
        b.add(f"let keep{n} = ~({mask} << s{n});")
        b.add(f"let put{n} = ({new}) << s{n};")
        b.add(f"var old{n} = atomicLoad(&{word});")
        b.open("loop {")
        b.add(f"let r = atomicCompareExchangeWeak(&{word}, old{n}, (old{n} & keep{n}) | put{n});")
        b.add("if (r.exchanged) { break; }")
        b.add(f"old{n} = r.old_value;")
        b.close()
        b.close()

    def atomic_word_load(self, ref: str, dt: Scalar) -> str:
        """A plain load of element `ref` of an array that atomics also use: its elements are
        atomic words (`elem`), a float32 the bits of an `atomic<u32>`."""
        raw = f"atomicLoad(&{ref})"
        return f"bitcast<f32>({raw})" if dt == FLOAT32 else raw

    def atomic_word_store(self, ref: str, val: str, dt: Scalar) -> str:
        """A plain store of `val` into element `ref` of an array that atomics also use."""
        word = f"bitcast<u32>({val})" if dt == FLOAT32 else val
        return f"atomicStore(&{ref}, {word});"

    def from_storage(self, raw: str, dt: Scalar) -> str:
        if dt.is_bool:
            return f"{raw} != 0u"
        return raw

    def to_storage(self, val: str, dt: Scalar) -> str:
        return f"select(0u, 1u, {val})" if dt.is_bool else val

    def local_rmw(self, op: Op, ref: str, n: str, rest: list[str]) -> None:
        """An atomic on a per-thread array: no other thread sees it, a plain read-modify-write."""
        dt = op.operands[0].array.dtype
        self.out.add(f"{n} = {self.from_storage(ref, dt)};")
        if op.opcode == "cas":
            cmp, val = rest
            self.out.add(f"if ({n} == {cmp}) {{ {ref} = {self.to_storage(val, dt)}; }}")
            return
        v = rest[0]
        new = {"add": f"{n} + {v}", "sub": f"{n} - {v}", "min": f"min({n}, {v})",
               "max": f"max({n}, {v})", "exch": v, "and": f"{n} & {v}", "or": f"{n} | {v}",
               "xor": f"{n} ^ {v}"}[op.attrs["op"]]  # fmt: skip
        self.out.add(f"{ref} = {self.to_storage(new, dt)};")

    def cas_loop(self, ref: str, n: str, dt: Scalar, cmp: str, val: str) -> None:
        # atomicCompareExchangeWeak may fail spuriously: retry until it succeeds or the value
        # differs from `cmp` (then the caller's compare-and-swap failed for real).
        if dt == FLOAT32:
            c, v, conv = f"bitcast<u32>({cmp})", f"bitcast<u32>({val})", "bitcast<f32>"
        else:
            c, v, conv = cmp, val, ""
        self.out.open("loop {")
        self.out.add(f"let r = atomicCompareExchangeWeak(&{ref}, {c}, {v});")
        self.out.add(f"if (r.exchanged || r.old_value != {c}) {{")
        self.out.add(f"    {n} = {conv}(r.old_value);")
        self.out.add("    break;")
        self.out.add("}")
        self.out.close()

    def float_atomic(self, op: Op, ref: str, n: str, val: str) -> None:
        name = op.attrs["op"]
        if name not in _FLOAT_ATOMIC:
            raise self.fail(op, f"atomic {name} is not defined on float32")
        if name == "exch":
            self.out.add(f"{n} = bitcast<f32>(atomicExchange(&{ref}, bitcast<u32>({val})));")
            return
        new = _FLOAT_ATOMIC[name].replace("o", "bitcast<f32>(old)").replace("v", f"({val})")
        # A compare-exchange loop on the bit pattern (WGSL atomics are integer only).
        self.out.open("{")
        self.out.add(f"var old = atomicLoad(&{ref});")
        self.out.open("loop {")
        self.out.add(f"let r = atomicCompareExchangeWeak(&{ref}, old, bitcast<u32>({new}));")
        self.out.add(f"if (r.exchanged) {{ {n} = bitcast<f32>(old); break; }}")
        self.out.add("old = r.old_value;")
        self.out.close()
        self.out.close()
