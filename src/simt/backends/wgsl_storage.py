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
  per-thread array is a plain read-modify-write (`local_atomic`, `local_cas`).

`StorageRenderer` is the layer of the WGSL renderer (`backends/wgsl.py`) that holds these:
the rules of the load, store, atomic and cas ops,
replacing the C-like base's (`clike.CRenderer`), whose split of an access (`access_of`: its
bounds condition and failure statement) and addressing (`offset`) they use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..ir import Function, Op, Value, walk
from ..ir.ops import ATOMICS, STORES
from ..types import FLOAT16, FLOAT32, GLOBAL, LOCAL, SHARED, Scalar
from .clike import Access, CRenderer, value_name
from .wgsl_helpers import HELPERS
from .wgsl_types import PACKED, storage_type, wgsl_type

ATOMIC_FNS = {"add": "atomicAdd", "sub": "atomicSub", "min": "atomicMin", "max": "atomicMax",
              "exch": "atomicExchange", "and": "atomicAnd", "or": "atomicOr",
              "xor": "atomicXor"}  # fmt: skip
# an atomic on a per-thread array: the new value of the old `{o}` and the operand `{v}`
LOCAL_RMW = {"add": "{o} + {v}", "sub": "{o} - {v}", "min": "min({o}, {v})",
             "max": "max({o}, {v})", "exch": "{v}", "and": "{o} & {v}", "or": "{o} | {v}",
             "xor": "{o} ^ {v}"}  # fmt: skip
# float32 atomics, as an expression of the old value `o` and the operand `v`.
_FLOAT_ATOMIC = {"add": "o + v", "sub": "o - v", "min": "min(o, v)", "max": "max(o, v)",
                 "exch": "v"}  # fmt: skip


# an atomic's or cas's update: (the op, its element, the old value's variable, the texts of
# its operands after the index)
Update = Callable[[Op, str, str, list[str]], None]


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

    # ---------------------------------------------------------------- the access rules
    def access_of(self, op: Op) -> Access:
        """The base's split of access `op`, its condition bound to a `let` and its failure
        reported before the access (a packed store or an emulated atomic tests the condition
        again inside)."""
        a = super().access_of(op)
        if a.ok is None:
            return a
        ok = f"in_bounds{self.site_index[id(op)]}"
        self.out.add(f"let {ok} = {a.ok};")
        self.out.add(f"if (!{ok}) {{ {a.fail} }}")
        return replace(a, ok=ok, fail=None)

    def atomic_words(self, arr: Value) -> bool:
        """Whether `arr`'s elements are atomic words (atomics use it, and it is not a
        per-thread array)."""
        return arr.id in self.atomic_arrays and arr.array.space != LOCAL

    def op_load(self, op: Op) -> None:
        """A load: of a packed element (`packed_load`), of an atomic word, or plain (of a
        uniform flag in shared memory: `workgroupUniformLoad`); 0 where out of bounds."""
        a = self.access_of(op)
        if self.packed(a.arr):
            self.packed_load(op, self.offset(a.arr, a.index))
            return
        ref = self.element(a.arr, a.index)
        dt = a.arr.array.dtype
        atomic = self.atomic_words(a.arr)
        raw = self.atomic_word_load(ref, dt) if atomic else ref
        if op.attrs.get("uniform") and not atomic and a.arr.array.space == SHARED:
            raw = f"workgroupUniformLoad(&{ref})"  # (passes.barriers: a uniform flag)
        self.checked_value(op.result, a.ok, self.from_storage(raw, dt))

    def op_store(self, op: Op) -> None:
        """A store: of a packed element (`packed_store`), of an atomic word, or plain."""
        a = self.access_of(op)
        if self.packed(a.arr):
            self.packed_store(op, self.offset(a.arr, a.index), a.rest, a.ok)
            return
        ref = self.element(a.arr, a.index)
        dt = a.arr.array.dtype
        (val,) = a.rest
        stored = self.to_storage(val, dt)
        if self.atomic_words(a.arr):
            text = self.atomic_word_store(ref, stored, dt)
        else:
            text = f"{ref} = {stored};"
        self.out.add(f"if ({a.ok}) {{ {text} }}" if a.ok is not None else text)

    def op_atomic(self, op: Op) -> None:
        """An atomic: WGSL's function on integer words, a compare-exchange loop on float32
        bits (`float_atomic`), a plain read-modify-write on a per-thread array."""
        self.old_value(op, self.atomic_update, self.local_atomic)

    def op_cas(self, op: Op) -> None:
        """A compare-and-swap: WGSL's weak compare-exchange retried (`cas_loop`), a plain
        compare and store on a per-thread array."""
        self.old_value(op, self.cas_update, self.local_cas)

    def old_value(self, op: Op, update: Update, local: Update) -> None:
        """An atomic or cas `op`: its result (the old value) a `var`, set where the access is
        in bounds by `update` (of the element, that variable and the operands' texts) on
        atomic words, by `local` on a per-thread array."""
        a = self.access_of(op)
        dt = a.arr.array.dtype
        if self.packed(a.arr):
            raise self.fail(op, f"atomics on {dt} arrays are not available (they are packed)")
        ref = self.element(a.arr, a.index)
        res = op.result
        n = value_name(res)
        self.names[res.id] = n
        self.out.add(f"var {n}: {wgsl_type(dt)};")
        if a.ok is not None:
            self.out.open(f"if ({a.ok}) {{")
        if not self.atomic_words(a.arr):
            update = local
        elif dt.is_bool or dt.bits == 64:  # refused before rendering (`passes.legalise`)
            raise self.fail(op, f"internal: atomics on a {dt} array")
        update(op, ref, n, a.rest)
        if a.ok is not None:
            self.out.close()

    def atomic_update(self, op: Op, ref: str, n: str, rest: list[str]) -> None:
        """`n` = the old value of atomic `op` on word `ref` (its operand `rest[0]`)."""
        if op.operands[0].array.dtype == FLOAT32:
            self.float_atomic(op, ref, n, rest[0])
        else:
            self.out.add(f"{n} = {ATOMIC_FNS[op.attrs['op']]}(&{ref}, {rest[0]});")

    def cas_update(self, op: Op, ref: str, n: str, rest: list[str]) -> None:
        """`n` = the old value of compare-and-swap `op` on word `ref`."""
        cmp, val = rest
        self.cas_loop(ref, n, op.operands[0].array.dtype, cmp, val)

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

    def packed_word(self, arr: Value, addr: str) -> tuple[int, str, str, str]:
        """The parts of packed element `arr[addr]` (`addr`: its offset): a number for its
        temporaries, its word, its bits' shift in the word and their mask; binds the offset."""
        per = self.packed(arr)
        bits = 32 // per
        self.tmp += 1
        n = self.tmp
        self.out.add(f"let e{n} = u32({addr});")
        word = f"{self.name(arr)}[e{n} >> {per.bit_length() - 1}u]"
        return n, word, f"(e{n} & {per - 1}u) * {bits}u", f"{(1 << bits) - 1}u"

    def packed_load(self, op: Op, addr: str) -> None:
        """A load of one element of a packed array (8/16-bit elements in u32 words): its bits
        shifted out of the word."""
        arr = op.operands[0]
        dt = arr.array.dtype
        bits = 32 // self.packed(arr)
        n, word, shift, mask = self.packed_word(arr, addr)
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

    def packed_store(self, op: Op, addr: str, rest: list[str], ok: str | None) -> None:
        """A store of one element of a packed array: it replaces only its own bits of the
        word, with a compare-exchange loop, so a neighbour stored by another thread in the
        same launch is never lost, and two threads storing one element leave one of their
        values (not a mix of both)."""
        arr = op.operands[0]
        dt = arr.array.dtype
        n, word, shift, mask = self.packed_word(arr, addr)
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

    def local_atomic(self, op: Op, ref: str, n: str, rest: list[str]) -> None:
        """An atomic on a per-thread array: no other thread sees it, a plain read-modify-write
        (`LOCAL_RMW`: the new value of each atomic operator)."""
        dt = op.operands[0].array.dtype
        self.out.add(f"{n} = {self.from_storage(ref, dt)};")
        new = LOCAL_RMW[op.attrs["op"]].format(o=n, v=rest[0])
        self.out.add(f"{ref} = {self.to_storage(new, dt)};")

    def local_cas(self, op: Op, ref: str, n: str, rest: list[str]) -> None:
        """A compare-and-swap on a per-thread array: a plain compare and store."""
        dt = op.operands[0].array.dtype
        cmp, val = rest
        self.out.add(f"{n} = {self.from_storage(ref, dt)};")
        self.out.add(f"if ({n} == {cmp}) {{ {ref} = {self.to_storage(val, dt)}; }}")

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
