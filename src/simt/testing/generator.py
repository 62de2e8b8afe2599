"""A seeded generator of random, well-defined kernels (Csmith/YARPGen in spirit).

Every kernel it writes has one right answer under docs/semantics.md, whatever backend runs
it: it avoids exactly what that page leaves unspecified ("What the fuzzer avoids" there):

- floats never overflow and never become NaN in values that feed control flow, conversions or
  exact outputs: every float expression carries a bound on its magnitude (inputs are within
  +-100, float variables stay below 1e6, an expression is never built past 1e30), divisors of
  `%` are never zero;
- a float converted to an int (`int`, `round`, `math.floor`) is known to be in range;
- operations whose accuracy is not exact on every backend (`/`, `//` on floats, `sqrt` and the
  other math functions) are *sinks*: their results go straight to the `fx` output array, which
  is compared with a tolerance, and never feed anything else;
- atomics return values are not used (their order between threads is not defined), and
  histograms are integer (float atomic sums round in thread order);
- every thread writes only its own slots of global outputs and of shared arrays, and reads
  another thread's shared slot only after a barrier.

The kernel's parameters are always `(fa, ia, ua, fo, io, uo, fx, hist, s0, s1)` (plus `da, do`
for a float64 kernel): float32/int32/uint32 inputs, their per-thread output slots, the
approximate outputs, an int32 histogram, a run-time int and a run-time uint32; then the
arrays of the optional features (gen_dtypes.py, gen_complex.py, gen_views.py, which fill the
grammar table of grammar.py: small and uint64 element types, complex numbers, views), in the
order of `EXTRA_ORDER`.
"""

from __future__ import annotations

import ast
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# the feature modules register their sections in grammar.SECTIONS when imported
from . import (  # noqa: F401
    gen_complex,
    gen_dicts,
    gen_dtypes,
    gen_exc,
    gen_files,
    gen_lang,
    gen_lists,
    gen_special,
    gen_views,
)
from .grammar import EXPRESSIONS, FEATURES, SECTIONS, Var, make_extra, out_slot

F32_CAP = 1e6  # float variables stay below this magnitude
EXPR_CAP = 1e30  # no float expression is built past this (float32 overflows at 3.4e38)
INPUTS = 64  # length of each input array
HIST = 16  # histogram bins
EXTRA_ORDER = ("b8", "ub8", "h16", "uh16", "hf", "q64", "cz", "cw", "m2", "vo", "sv")
# the element types webgpu refuses by name until it has them (docs/semantics.md, "Types")
REFUSABLE = {"b8": "int8", "ub8": "uint8", "h16": "int16", "uh16": "uint16", "hf": "float16",
             "q64": "uint64", "cw": "complex128"}  # fmt: skip

I32_LITS = (0, 1, 2, 3, 5, 7, 31, 32, 100, 12345, 65535, 2147483647, -1, -3, -8, -2147483648)
U32_LITS = (0, 1, 2, 3, 7, 31, 255, 65536, 4294967295, 2147483648)
F_LITS = (0.0, 0.5, 1.0, 1.5, -2.25, 3.0, 0.1, 100.0, 0.001, -7.75, 1024.0)
# integer constants int32 cannot hold: they make their operation int64 (docs/semantics.md);
# those that may multiply an int32 keep the product inside int64 (|x| <= 2**31)
BIG_LITS = ("1_099_511_627_776", "4_294_967_296", "3_000_000_000", "-5_000_000_000",
            "2_147_483_648", "8_589_934_593")  # fmt: skip
# `oob` kernels were compiled in debug mode (bounds checks on every backend) until the checks
# were on by default (issue 23, item 1); now they are compiled as users write them
OOB_DEBUG = False
# A kernel that draws lists, strings, files or dicts declares the heap its sections need, as a
# user would (@simt.kernel(heap=N)): in the default 1,024 bytes a thread, three lists, a split
# string's words and a file's lines (strings take a word a character, and never give it back)
# ran out in seeds 113, 186 and 239 (CI at 1e4ebd5), a MemoryError nothing caught
HEAP = 8192
HEAP_FEATURES = frozenset({"lists", "files", "dicts"})
BIG_FACTORS = ("4_294_967_296", "3_000_000_000", "-3_000_000_000", "2_147_483_648")


@dataclass
class Program:
    """One generated kernel: its module's source text and how to launch and compare it."""

    seed: int
    source: str
    grid: int
    block: int
    slots: dict[str, int]  # output array name -> slots per thread
    fp64: bool = False
    features: frozenset[str] = frozenset()
    extras: tuple[str, ...] = ()  # the optional features' arrays, in EXTRA_ORDER
    numba: bool = False  # spelled for Numba-CUDA (`from simt import cuda`, `@cuda.jit`)
    # the array of the one out-of-bounds access (`oob` option), and its kind; None: in bounds
    oob: tuple[str, str] | None = None

    @property
    def array_names(self) -> tuple[str, ...]:
        """The names of the array arguments, in order."""
        base = ("fa", "ia", "ua", "fo", "io", "uo", "fx", "hist")
        return base + (("da", "do") if self.fp64 else ()) + self.extras

    @property
    def refusable_types(self) -> set[str]:
        """The element types of this kernel that webgpu may refuse by name."""
        out = {REFUSABLE[x] for x in self.extras if x in REFUSABLE}
        out |= {t for t in REFUSABLE.values() if f"simt.{t}(" in self.source}
        return out

    @property
    def threads(self) -> int:
        """Threads in the launch."""
        return self.grid * self.block

    def make_args(self) -> tuple[Any, ...]:
        """Fresh arguments, the same for every call (seeded by the program's seed)."""
        g = np.random.default_rng(self.seed)
        sign = g.choice([-1.0, 1.0], INPUTS)
        # inputs are multiples of 1/8 in [0.5, 100]: exact, never zero
        fa = (sign * (g.integers(4, 800, INPUTS) / 8.0)).astype(np.float32)
        ia = g.choice(np.array(I32_LITS + tuple(range(-20, 20)), np.int64), INPUTS).astype(np.int32)
        ua = g.choice(np.array(U32_LITS + tuple(range(40)), np.uint64), INPUTS).astype(np.uint32)
        t = self.threads
        out: list[Any] = [
            fa,
            ia,
            ua,
            np.zeros(t * self.slots["fo"], np.float32),
            np.zeros(t * self.slots["io"], np.int32),
            np.zeros(t * self.slots["uo"], np.uint32),
            np.zeros(t * self.slots["fx"], np.float32),
            np.zeros(HIST, np.int32),
            int(g.integers(-20, 20)),
            np.uint32(g.choice([0, 1, 3, 9, 2**31 + 5, 2**32 - 2])),
        ]
        if self.fp64:
            out.append((fa.astype(np.float64) / 3.0).astype(np.float64))
            out.append(np.zeros(t * self.slots["do"], np.float64))
        for name in self.extras:
            out.append(make_extra(name, self.seed, INPUTS, t, self.slots.get(name, 1)))
        return tuple(out)


@dataclass
class _Scope:
    vars: list[Var] = field(default_factory=list)


# math functions of x0 (a float32 in [-100, 100]) and j0 (an int32), each finite or an
# infinity every backend agrees on: the rows WGSL lacks and simt's WGSL helpers compute,
# and pow of a negative base with an integral exponent (NaN on WGSL's own pow)
MATH_SINKS = (
    "math.erf(x0 % 4.0 - 2.0)",
    "math.erfc(x0 % 5.0 - 1.0)",
    "math.expm1(x0 % 8.0 - 4.0)",
    "math.log1p(abs(x0))",
    "math.gamma(x0 % 6.0 - 2.5)",
    "math.lgamma(abs(x0) % 20.0 + 0.25)",
    "math.remainder(x0, abs(x0) % 5.0 + 0.5)",
    "math.pow(x0 % 6.0 - 3.0, float(j0 % 7 - 3))",
    "(x0 % 6.0 - 3.0) ** float(j0 % 5)",
    "(1.0 if math.isinf(x0 * 1e37) else 0.0) + (2.0 if math.isfinite(x0 * 1e37) else 0.0)",
)
# and in float64 kernels, of d0 (a float64 in [-100, 100]): math rows reading float64 constants
# (`math.copysign(1.5, d0)` was an internal error on webgpu, 9d7c0e7: naga evaluated the
# constant's abs itself and has no float64 abs), the float64 rows WGSL has, and those simt's
# float64 WGSL functions compute (backends/wgsl_math64.py; the rest are refused there)
MATH_SINKS_F64 = (
    "simt.float32(math.copysign(1.5, d0))",
    "simt.float32(math.copysign(abs(d0) + 0.25, -d0))",
    "simt.float32(math.fmod(d0, 3.5))",
    "simt.float32(math.trunc(d0 * 0.75) + math.ceil(d0))",
    "simt.float32(math.exp(d0 * 0.5) - math.log(abs(d0) + 0.5))",
    "simt.float32(math.exp2(d0 % 30.0) + math.log2(abs(d0) + 1e-300))",
    "simt.float32(math.expm1(d0 % 2.0 - 1.0) + math.log1p(abs(d0)) + math.log10(abs(d0) + 1.0))",
    "simt.float32(math.pow(abs(d0) + 0.5, d0 % 3.0) + (abs(d0) + 1.0) ** 1.5)",
    "simt.float32(math.tanh(d0 * 0.1) + math.sinh(d0 % 5.0) - math.cosh(d0 % 4.0))",
    "simt.float32(math.cbrt(d0) + math.asinh(d0) + math.acosh(abs(d0) + 1.0))",
    "simt.float32(math.atanh(d0 % 0.9))",
    "simt.float32(math.sin(d0) + math.cos(d0 * 1e4) + math.tan(d0 % 1.5))",
    "simt.float32(math.asin(d0 % 2.0 - 1.0) + math.acos(d0 % 1.0) + math.atan(d0))",
    "simt.float32(math.atan2(d0 + 0.5, d0 % 7.0 - 3.0))",
    "simt.float32(math.remainder(d0 * 1e10, abs(d0) % 5.0 + 0.5))",
    "simt.float32(math.erf(d0 % 4.0 - 2.0) + math.erfc(d0 % 8.0 - 2.0) * 1e3)",
    "simt.float32(math.gamma(d0 % 6.0 - 2.5) + math.lgamma(abs(d0) % 20.0 + 0.25))",
)

# math.fmod where it is hard (webgpu spelled it `a - b * trunc(a / b)` until 278a3a1, which
# loses every digit once a / b is large and gave -inf for a subnormal divisor): ratios up to
# 1e32 in float32 (their remainders are normal: float32 subnormals are unspecified on GPUs),
# and in float64 kernels ratios up to 1e302 and subnormal divisors, the remainder scaled by
# 2**1000 (exactly) so that the float32 sink keeps its digits; a stream of its own
FMOD_SINKS = (
    "math.fmod(x0 * 1e30, 3.5)",
    "math.fmod(x0 * 3e35, -(abs(x0) % 5.0 + 0.5))",
    "math.fmod(-x0 * 1e25, 0.1)",
)
FMOD_SINKS_F64 = (
    "simt.float32(math.fmod(d0 * 1e300, 3.5))",
    "simt.float32(math.fmod(d0 * 1e300, abs(d0) % 7.0 + 0.25))",
    "simt.float32(math.fmod(d0, 2e-310) * 2.0 ** 1000)",
    "simt.float32(math.fmod(d0 * 1e-305, -3e-310) * 2.0 ** 1000)",
    "simt.float32(math.fmod(d0 * 1e-310, 7e-322) * 2.0 ** 1000 * 2.0 ** 60)",
)


class Generator:
    """Writes one kernel from a seed: `Generator(seed).program()`."""

    def __init__(
        self,
        seed: int,
        *,
        fp64: bool | None = None,
        size: int = 14,
        dtypes: bool | None = None,
        complexes: bool | None = None,
        views: bool | None = None,
        lang: bool | None = None,
        lists: bool | None = None,
        exceptions: bool | None = None,
        dicts: bool | None = None,
        files: bool | None = None,
        specials: bool | None = None,
        numba: bool | None = None,
        bigconst: bool | None = None,
        oob: bool = False,
    ) -> None:
        """Options: `fp64` (float64 kernel), the features' sections (grammar.py): `dtypes`
        (small and uint64 element types), `complexes`, `views`, `lang` (loops over arrays,
        early returns before barriers), `lists` (lists that grow per thread), `dicts` (dicts
        and sets per thread; never with `numba`, whose kernels have none), `files` (files
        read per thread, gen_files.py; never with `numba`), `exceptions`
        (try/except/else/finally, raise, assert, with; every exception caught in its thread),
        `specials` (-0.0, NaN and infinities from an input array fed to copysign, isnan,
        comparisons, ...: gen_special.py), and `bigconst`: int32 expressions with integer
        constants int32 cannot hold (int64 operations, wrapped back to int32). None (the
        default) draws each from the seed (about one kernel in four has each); False leaves
        it out. `numba`: the same kernel spelled as a Numba-CUDA program (`numba_spelling`),
        compiled by `simt.cuda.jit` with Numba's typing (never drawn: only when asked).
        `oob` (off unless asked for) puts one out-of-bounds access into the kernel
        (`out_of_bounds`): the launch must fail with a KernelError naming its array."""
        self.numba = bool(numba)
        self.seed = seed
        self.r = random.Random(seed)
        self.fp64 = self.r.random() < 0.15 if fp64 is None else fp64
        self.size = size
        self.scopes: list[_Scope] = [_Scope()]
        self.lines: list[str] = []
        self.helpers: list[str] = []
        self.depth = 0  # statement nesting
        self.loops = 0  # loops around the current statement
        self.names = 0
        self.budget = size
        self.features: set[str] = set()
        self.slots = {"fo": 0, "io": 0, "uo": 0, "fx": 0, "do": 0}
        self.stores: list[str] = []
        self.in_helper = False
        self.atomic_op = self.r.choice(("add", "add", "sub", "max", "min"))
        # int64 choices draw from their own stream, so adding them left every kernel the
        # main stream writes (and the seeds tests pin) as it was, bar the widened compares
        self.r64 = random.Random(seed ^ 0x64)
        # the optional features draw from a stream of their own, for the same reason
        self.rx = random.Random(seed ^ 0xE7A)
        draw = [self.rx.random() < 0.25 for _ in range(3)]
        self.dtypes_on = draw[0] if dtypes is None else dtypes
        self.complexes_on = draw[1] if complexes is None else complexes
        self.views_on = draw[2] if views is None else views
        # (a stream of its own too: the kernels without it stay the text they were)
        self.lang_on = random.Random(seed ^ 0x1A46).random() < 0.25 if lang is None else lang
        self.lists_on = random.Random(seed ^ 0x1157).random() < 0.25 if lists is None else lists
        self.exceptions_on = (
            random.Random(seed ^ 0xE8C).random() < 0.25 if exceptions is None else exceptions
        )  # (a stream of its own too)
        self.dicts_on = (
            random.Random(seed ^ 0xD1C7).random() < 0.25 and not numba
            if dicts is None else dicts
        )  # (a stream of its own too)
        self.files_on = (
            random.Random(seed ^ 0xF17E).random() < 0.2 and not numba
            if files is None else files
        )  # (a stream of its own too)
        self.specials_on = (
            random.Random(seed ^ 0x5BEC).random() < 0.25 if specials is None else specials
        )  # (a stream of its own too)
        # big constants draw from a stream of their own too
        self.rbig = random.Random(seed ^ 0xB16)
        self.big_on = self.rbig.random() < 0.25 if bigconst is None else bigconst
        self.oob_on = oob
        self.oob_array: str | None = None  # the array the out-of-bounds access is of
        self.oob_kind = ""
        # the math rows WGSL has no function for (simt's own WGSL helpers) and pow of negative
        # bases, as sinks of x0 and j0: a stream of its own too
        self.rmath = random.Random(seed ^ 0x3A7)
        self.rfmod = random.Random(seed ^ 0xF3D)  # `math.fmod`'s hard cases (FMOD_SINKS)
        self.rtree = random.Random(seed ^ 0x7EE)  # a shared phase's tree sum: its own too
        self.rtile = random.Random(seed ^ 0x711E)  # and its loop over tiles of an input
        self.rstride = random.Random(seed ^ 0x57D)  # a guarded read at a multiple of `i`
        self.u64_on = False  # set while a section has made uint64 values
        self.complex_on = False  # and complex ones
        self.extras: set[str] = set()
        self.inputs = INPUTS
        self.cap = F32_CAP

    # ------------------------------------------------------------------ names and scopes
    def fresh(self, prefix: str = "v") -> str:
        self.names += 1
        return f"{prefix}{self.names}"

    def vars(self, ty: str) -> list[Var]:
        return [v for s in self.scopes for v in s.vars if v.ty == ty]

    def declare(self, name: str, ty: str, bound: float = 0.0) -> Var:
        v = Var(name, ty, bound)
        self.scopes[-1].vars.append(v)
        return v

    def emit(self, text: str) -> None:
        self.lines.append("    " * (self.depth + 1) + text)

    # ------------------------------------------------------------------ expressions
    def expr(self, ty: str, d: int = 2) -> tuple[str, float]:
        """An exact expression of type `ty` and its magnitude bound (floats; 0 otherwise)."""
        if ty == "i32":
            return self.i32(d), 0.0
        if ty == "u32":
            return self.u32(d), 0.0
        if ty == "bool":
            return self.boolean(d), 0.0
        rule = EXPRESSIONS.get(ty)  # a feature's type (grammar.py)
        if rule is not None:
            return rule(self, ty, d)
        return self.flt(ty, d)

    def u64(self, d: int) -> str:
        """A uint64 expression (gen_dtypes.py)."""
        return gen_dtypes.u64(self, d)

    def extra_i32(self, d: int) -> str | None:
        """Now and then, an int32 through a feature's conversion (small types, uint64)."""
        if self.dtypes_on and self.r.random() < 0.06:
            if self.u64_on and self.r.random() < 0.5:
                return gen_dtypes.from_u64(self, "i32", d)
            return gen_dtypes.small_conversion(self, d)
        return None

    def i32(self, d: int) -> str:
        r = self.r
        vs = self.vars("i32")
        if self.extras and d > 0 and (x := self.extra_i32(d - 1)) is not None:
            return x
        if self.big_on and d > 0 and self.rbig.random() < 0.08:
            return self.big_i32(d - 1)
        if d <= 0 or r.random() < 0.25:
            k = r.random()
            if vs and k < 0.55:
                return r.choice(vs).name
            if k < 0.7:
                if self.in_helper:  # a helper sees its parameters and the module's names
                    return r.choice(("thread_idx.x", "block_idx.x"))
                return r.choice(("i", "t", "s0", "thread_idx.x", "block_idx.x", "len(ia)"))
            if k < 0.85 and not self.in_helper:
                return f"ia[({self.i32(0)}) % {INPUTS}]"
            lit = r.choice(I32_LITS)
            return f"({lit})" if lit < 0 else str(lit)
        k = r.randrange(12)
        if k <= 3:
            op = r.choice(("+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>", "+", "-"))
            return f"({self.i32(d - 1)} {op} {self.i32(d - 1)})"
        if k == 4:
            return (
                f"{r.choice(('-', '~'))}{self.i32(d - 1)}"
                if r.random() < 0.5
                else (f"abs({self.i32(d - 1)})")
            )
        if k == 5:
            return f"{r.choice(('min', 'max'))}({self.i32(d - 1)}, {self.i32(d - 1)})"
        if k == 6:
            f, b = self.flt("f32", d - 1)
            conv = r.choice(("int", "round", "math.floor", "math.trunc", "math.ceil"))
            if b < 1e9:
                return f"{conv}({f})"
            return f"({conv}({f}) if abs({f}) < 1e9 else 3)"
        if k == 7:
            return f"({self.i32(d - 1)} if {self.boolean(d - 1)} else {self.i32(d - 1)})"
        if k == 8:
            return f"simt.int32({self.u32(d - 1)})"
        if k == 9:
            exps = ("0", "1", "2", "3", f"({self.i32(0)} & 3)")
            return f"({self.i32(d - 1)} ** {r.choice(exps)})"
        if k == 10 and self.helpers_ok():
            return self.call_helper("i32")
        if self.in_helper:
            return f"({self.i32(d - 1)} + {self.i32(d - 1)})"
        return f"ia[{self.index(d - 1)}]"

    def out_of_bounds(self) -> None:
        """One access outside its array (the `oob` option), at the kernel's top level, where
        every thread reaches it; the kinds users write by mistake: a missing guard (more
        threads than elements), an off-by-one bound or slot, a negative index, a guard on the
        wrong array, `<=` in a guard on a multiple of `i`. A value read goes into a variable
        the outputs keep (never dead code).
        Some are a loop that only ends by failing (`walk_off`: `while koob >= 0:` reading
        on past the array's end), and some are followed by a barrier, so that the threads
        that did not raise meet there (a thread that raised is counted out, #23)."""
        r = random.Random(self.seed ^ 0x00B)
        # (a stream of its own: the kernels drawn before these kinds stay the text they were)
        rw = random.Random(self.seed ^ 0xBB0)
        walk, meet = rw.random() < 0.3, rw.random() < 0.4
        threads = self.grid * self.block_size
        src = r.choice(("fa", "ia", "ua"))
        ty = {"fa": "f32", "ia": "i32", "ua": "u32"}[src]
        kinds = ["off_by_one", "loop_off_by_one", "negative", "slot_off_by_one", "store_negative"]
        if threads > INPUTS and r.random() < 0.4:  # more threads than an input has elements
            kinds = ["missing_guard", "wrong_guard"]
        kind = r.choice(kinds)
        if walk:
            kind = "walk_off"
        elif threads > INPUTS // 2 and random.Random(self.seed ^ 0x57E).random() < 0.15:
            kind = "stride_off_by_one"  # (a stream of its own, as `walk` above)
        self.oob_kind = kind + "+barrier" * meet
        name = "qoob"  # `reassign` leaves q-names alone: the read value stays live
        if kind in ("slot_off_by_one", "store_negative"):
            dst = r.choice(("fo", "io", "uo"))
            val = {"fo": "1.5", "io": "7", "uo": "simt.uint32(7)"}[dst]
            at = f"i * NSLOT_{dst} + NSLOT_{dst}" if kind == "slot_off_by_one" else "t - 2"
            self.oob_array = dst
            self.emit(f"{dst}[{at}] = {val}")
            if meet:
                self.emit("simt.syncthreads()  # the threads that did not raise meet here")
            return
        self.oob_array = src
        if kind == "walk_off":
            self.emit(f"{name} = {src}[0]")
            self.emit("koob = t")
            self.emit("while koob >= 0:  # ends only by failing: nothing bounds koob")
            op = "+" if ty != "f32" else "-"
            self.emit(f"    {name} = {name} {op} {src}[koob]" if ty != "f32"
                      else f"    {name} = ({name} + {src}[koob]) % 1000.0")  # fmt: skip
            self.emit("    koob += 1")
        elif kind == "stride_off_by_one":  # `<=` on a multiple of `i`: `i * 2 == len`
            self.emit(f"{name} = {src}[0]")
            self.emit("joob = i * 2")
            self.emit(f"if joob <= len({src}):  # `<` was meant")
            self.emit(f"    {name} = {src}[joob]")
        elif kind == "loop_off_by_one":
            self.emit(f"{name} = {src}[0]")
            self.emit(f"for koob in range(1, len({src}) + 1):  # `<=` where `<` was meant")
            op = "+" if ty != "f32" else "-"
            self.emit(f"    {name} = {name} {op} {src}[koob]" if ty != "f32"
                      else f"    {name} = ({name} + {src}[koob]) % 1000.0")  # fmt: skip
        else:
            index = {
                "off_by_one": f"len({src}) - t",  # `len - 1 - t` was meant
                "negative": r.choice(("i - 1", "t - 3", "i - 64")),
                "missing_guard": "i",
                "wrong_guard": "i",
            }[kind]
            if kind == "wrong_guard":
                other = r.choice(("fo", "io", "uo"))  # as long as the threads, or longer
                self.emit(f"{name} = {src}[0]")
                self.emit(f"if i < len({other}):  # the guard of another array")
                self.emit(f"    {name} = {src}[{index}]")
            else:
                self.emit(f"{name} = {src}[{index}]")
        if meet:
            self.emit("simt.syncthreads()  # the threads that did not raise meet here")
        self.declare(name, ty, 1000.0 if ty == "f32" else 0.0)

    def big_i32(self, d: int) -> str:
        """An int32 made from an int64 operation with a constant int32 cannot hold: the
        constant makes the operation int64 and keeps Python's value; the result is wrapped back
        to int32 by `simt.int32` (no int64 overflow: products stay below 2**63)."""
        r = self.rbig
        self.features.add("int64")
        x = self.i32(d)
        form = r.randrange(6)
        if form == 0:
            e = f"({x} {r.choice(('+', '-', '&', '|', '^'))} {r.choice(BIG_LITS)})"
        elif form == 1:
            e = f"({x} * {r.choice(BIG_FACTORS)})"
        elif form == 2:
            e = f"({x} {r.choice(('//', '%'))} {r.choice(BIG_LITS)})"
        elif form == 3:
            e = f"({r.choice(BIG_LITS)} {r.choice(('//', '%', '-'))} {x})"
        elif form == 4:
            e = f"{r.choice(('min', 'max'))}({x}, {r.choice(BIG_LITS)})"
        else:  # a compare: as Python's numbers
            c = r.choice(BIG_LITS)
            return f"(1 if {x} + {c} {r.choice(('<', '>=', '=='))} {c} else 0)"
        return f"simt.int32({e})"

    def index(self, d: int) -> str:
        return f"({self.i32(d)}) % {INPUTS}"

    def u32(self, d: int) -> str:
        r = self.r
        vs = self.vars("u32")
        if d <= 0 or r.random() < 0.25:
            k = r.random()
            if vs and k < 0.5:
                return r.choice(vs).name
            if k < 0.6 and not self.in_helper:
                return "s1"
            if k < 0.8 and not self.in_helper:
                return f"ua[({self.i32(0)}) % {INPUTS}]"
            return f"simt.uint32({r.choice(U32_LITS)})"
        k = r.randrange(8)
        if k <= 2:
            op = r.choice(("+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"))
            return f"({self.u32(d - 1)} {op} {self.u32(d - 1)})"
        if k == 3:  # int32 with uint32 promotes to uint32
            op = r.choice(("+", "*", "&", "^"))
            return f"({self.u32(d - 1)} {op} {self.i32(d - 1)})"
        if k == 4:
            return f"simt.uint32({self.i32(d - 1)})"
        if k == 5:
            return f"{r.choice(('min', 'max'))}({self.u32(d - 1)}, {self.u32(d - 1)})"
        if k == 6:
            return f"({self.u32(d - 1)} if {self.boolean(d - 1)} else {self.u32(d - 1)})"
        return f"({self.u32(d - 1)} + {r.choice(U32_LITS[:5])})"

    def flt(self, ty: str, d: int) -> tuple[str, float]:
        r = self.r
        vs = self.vars(ty)
        if self.complex_on and d > 0 and r.random() < 0.1:
            return gen_complex.complex_part(self, ty, d - 1)
        if d <= 0 or r.random() < 0.25:
            k = r.random()
            if vs and k < 0.5:
                v = r.choice(vs)
                return v.name, v.bound
            if k < 0.75 and not self.in_helper:
                src = "fa" if ty == "f32" else "da"
                return f"{src}[({self.i32(0)}) % {INPUTS}]", 100.0
            if k < 0.85:
                cast = "float" if ty == "f32" or r.random() < 0.5 else "simt.float64"
                if ty == "f32":
                    return f"{cast}({self.i32(0)})", 2.2e9
                return f"{cast}({self.i32(0)})", 2.2e9
            lit = r.choice(F_LITS)
            return (f"({lit})" if lit < 0 else repr(lit)), abs(lit)
        k = r.randrange(10)
        if k <= 3:
            (a, ba), (b, bb) = self.flt(ty, d - 1), self.flt(ty, d - 1)
            op = r.choice(("+", "-", "*"))
            if op == "*" and ba * bb <= EXPR_CAP:
                return f"({a} * {b})", ba * bb
            op = "-" if op == "-" else "+"
            if ba + bb > EXPR_CAP:
                return a, ba
            return f"({a} {op} {b})", ba + bb
        if k == 4:
            a, ba = self.flt(ty, d - 1)
            m, bm = self.divisor(ty, d - 1)
            return f"({a} % {m})", bm
        if k == 5:
            a, ba = self.flt(ty, d - 1)
            f = r.choice(("-", "abs", "math.fabs"))
            return (f"-{a}" if f == "-" else f"{f}({a})"), ba
        if k == 6:
            (a, ba), (b, bb) = self.flt(ty, d - 1), self.flt(ty, d - 1)
            return f"{r.choice(('min', 'max'))}({a}, {b})", max(ba, bb)
        if k == 7:
            (a, ba), (b, bb) = self.flt(ty, d - 1), self.flt(ty, d - 1)
            return f"({a} if {self.boolean(d - 1)} else {b})", max(ba, bb)
        if k == 8:
            if ty == "f64":
                a, ba = self.flt("f32", d - 1)
                return f"simt.float64({a})", ba
            if self.fp64:
                a, ba = self.flt("f64", d - 1)
                return f"simt.float32({a})", ba
            return f"simt.float32({self.u32(d - 1)})", 4.3e9
        if k == 9 and self.helpers_ok():
            return self.call_helper(ty), F32_CAP
        a, ba = self.flt(ty, d - 1)
        return f"float(math.floor({a}) if abs({a}) < 1e9 else 0)", min(ba + 1, 1e9)

    def divisor(self, ty: str, d: int) -> tuple[str, float]:
        """A float expression that is never zero."""
        r = self.r
        k = r.randrange(3)
        if k == 0:
            lit = r.choice((0.5, 3.0, -2.25, 7.0, 1000.0, 0.1, -1e-3))
            return (f"({lit})" if lit < 0 else repr(lit)), abs(lit)
        if k == 1 and not self.in_helper:
            src = "fa" if ty == "f32" else "da"
            return f"{src}[{self.index(0)}]", 100.0
        a, ba = self.flt(ty, d)
        return f"(abs({a}) + 0.5)", ba + 0.5

    def boolean(self, d: int) -> str:
        r = self.r
        vs = self.vars("bool")
        if d <= 0 or r.random() < 0.2:
            if vs and r.random() < 0.5:
                return r.choice(vs).name
            if self.in_helper:
                return r.choice(("True", "False", "(thread_idx.x < 7)"))
            return r.choice(("True", "False", "(i < 7)", "(t % 2 == 0)", "(s0 > 0)"))
        if self.complex_on and r.random() < 0.1:
            return gen_complex.complex_compare(self, d - 1)
        k = r.randrange(6)
        if k <= 2:
            ty = r.choice(("i32", "i32", "u32", "f32") + (("f64",) if self.fp64 else ())
                          + (("u64",) if self.u64_on else ()))  # fmt: skip
            op = r.choice(("<", "<=", ">", ">=", "==", "!="))
            a, b = self.expr(ty, d - 1)[0], self.expr(ty, d - 1)[0]
            if ty == "i32" and self.r64.random() < 0.3:  # compare them as int64 instead
                self.features.add("int64")
                a, b = self.widen(a), self.widen(b)
            if r.random() < 0.2:
                return f"({a} {op} {b} {r.choice(('<', '<='))} {self.expr(ty, d - 1)[0]})"
            return f"({a} {op} {b})"
        if k == 3:
            return f"(not {self.boolean(d - 1)})"
        if k == 4:
            return f"({self.boolean(d - 1)} {r.choice(('and', 'or'))} {self.boolean(d - 1)})"
        return (
            f"({self.boolean(d - 1)} {r.choice(('!=', '==', '&', '|', '^'))} {self.boolean(d - 1)})"
        )

    def widen(self, x: str) -> str:
        """The int32 expression `x` as an int64 that cannot overflow (below 6.5e18): widened,
        maybe scaled and offset by a conditional (a naga/lavapipe miscompare hid in that shape)."""
        r = self.r64
        if r.random() < 0.5:
            return f"simt.int64({x})"
        conds = (
            ("(thread_idx.x < 7)",) if self.in_helper else ("(i < 7)", "(t % 2 == 0)", "(s0 > 3)")
        )
        k = r.choice(("3", "-7", "3_000_000_000"))
        return f"(simt.int64({x}) * {k} + ({r.choice(('6', '-5'))} if {r.choice(conds)} else 0))"

    # ------------------------------------------------------------------ helpers
    def helpers_ok(self) -> bool:
        return not self.in_helper and len(self.helpers) < 3 and self.r.random() < 0.5

    def call_helper(self, want: str, other: str | None = None) -> str:
        """Define a helper returning a pair (with early returns) and return a call of it (a
        tuple whose first item has type `want`; `[0]` of it unless `other` is given)."""
        pair = other is not None
        other = other or self.r.choice(("i32", "u32", "f32"))
        params = [self.r.choice(("i32", "f32", "u32")) for _ in range(self.r.randint(1, 3))]
        args = [self.capped(*self.expr(p, 1)) for p in params]
        name = f"helper{len(self.helpers)}"
        self.helpers.append("")  # reserve the name (helpers do not call helpers)
        self.helpers[-1] = self.write_helper(name, params, (want, other))
        self.features.add("helpers")
        call = f"{name}({', '.join(args)})"
        return call if pair else f"{call}[0]"

    def write_helper(self, name: str, params: list[str], rets: tuple[str, str]) -> str:
        saved = (self.scopes, self.lines, self.depth, self.loops, self.budget, self.in_helper)
        self.scopes = [_Scope([Var(f"p{k}", t, F32_CAP if t == "f32" else 0.0)
                               for k, t in enumerate(params)])]  # fmt: skip
        self.lines, self.depth, self.loops, self.budget, self.in_helper = [], 0, 0, 5, True
        self.ret_types = rets
        while self.budget > 0:
            self.statement()
        self.emit(f"return {self.ret_value(rets[0])}, {self.ret_value(rets[1])}")
        body = self.lines
        self.scopes, self.lines, self.depth, self.loops, self.budget, self.in_helper = saved
        head = f"def {name}({', '.join(f'p{k}' for k in range(len(params)))}):"
        return "\n".join([head, *body])

    def ret_value(self, ty: str) -> str:
        text, bound = self.expr(ty, 2)
        return self.capped(text, bound) if ty in ("f32", "f64") else text

    def capped(self, text: str, bound: float) -> str:
        """`text` kept below F32_CAP in magnitude."""
        return text if bound <= F32_CAP else f"({text}) % {F32_CAP!r}"

    # ------------------------------------------------------------------ statements
    def statement(self) -> None:
        self.budget -= 1
        r = self.r
        k = r.randrange(20)
        nested = self.depth < 3
        if k <= 4:
            self.assign_new()
        elif k <= 7:
            self.reassign()
        elif k <= 9 and nested:
            self.if_stmt()
        elif k <= 11 and nested:
            self.for_stmt()
        elif k == 12 and nested:
            self.while_stmt()
        elif k == 13 and self.loops:
            self.emit(f"if {self.boolean(1)}:")
            self.emit(f"    {r.choice(('break', 'continue'))}")
        elif k == 14 and self.in_helper:
            self.emit(f"if {self.boolean(1)}:")
            rets = self.ret_types
            self.depth += 1
            self.emit(f"return {self.ret_value(rets[0])}, {self.ret_value(rets[1])}")
            self.depth -= 1
        elif k == 14 and not self.in_helper:
            # one kind of atomic per histogram: add and max do not commute with each other
            self.emit(f"simt.atomic.{self.atomic_op}"
                      f"(hist, ({self.i32(1)}) % {HIST}, {self.i32(1)})")  # fmt: skip
            self.features.add("atomics")
        elif k == 15 and nested:
            self.local_array()
        elif k == 16 and not self.in_helper:
            self.print_stmt()
        elif k == 17 and self.depth == 0 and not self.in_helper:
            self.shared_phase()
        elif k == 18 and not self.in_helper and len(self.helpers) < 3:
            a, b = self.r.choice(("i32", "u32", "f32")), self.r.choice(("i32", "f32", "bool"))
            call = self.call_helper(a, b)
            va, vb = self.fresh(), self.fresh()
            self.emit(f"{va}, {vb} = {call}")
            self.declare(va, a, F32_CAP if a == "f32" else 0.0)
            self.declare(vb, b, F32_CAP if b == "f32" else 0.0)
        else:
            self.assign_new()

    def assign_new(self) -> None:
        extra = (("u64",) * self.u64_on) + (("c64", "c64") * self.complex_on)
        ty = self.r.choice(
            ("i32", "i32", "u32", "f32", "f32", "bool") + (("f64",) * self.fp64) + extra
        )
        text, bound = self.expr(ty, 2)
        name = self.fresh()
        if ty in ("f32", "f64"):
            text, bound = self.capped(text, bound), min(bound, F32_CAP)
        self.emit(f"{name} = {text}")
        self.declare(name, ty, bound)

    def reassign(self) -> None:
        cands = [v for s in self.scopes for v in s.vars if not v.name.startswith(("k", "q"))]
        if not cands:
            return self.assign_new()
        v = self.r.choice(cands)
        text, bound = self.expr(v.ty, 2)
        if v.ty in ("c64", "c128"):
            if bound <= v.bound:
                self.emit(f"{v.name} = {text}")
            return None
        if v.ty in ("f32", "f64"):
            text = self.capped(text, bound) if bound <= v.bound else f"({text}) % {v.bound!r}"
            if v.bound == 0.0:
                return None
        elif v.ty in ("i32", "u32", "u64") and self.r.random() < 0.4:
            self.emit(f"{v.name} {self.r.choice(('+=', '-=', '*=', '^=', '|='))} {text}")
            return None
        self.emit(f"{v.name} = {text}")
        return None

    def block(self, n: int, loop: bool = False) -> None:
        self.depth += 1
        self.loops += loop
        self.scopes.append(_Scope())
        start = len(self.lines)
        for _ in range(n):
            if self.budget <= 0:
                break
            self.statement()
        if len(self.lines) == start:
            self.emit("pass")
        self.scopes.pop()
        self.loops -= loop
        self.depth -= 1

    def if_stmt(self) -> None:
        self.emit(f"if {self.boolean(2)}:")
        self.block(self.r.randint(1, 3))
        if self.r.random() < 0.3:
            self.emit(f"elif {self.boolean(2)}:")
            self.block(self.r.randint(1, 2))
        if self.r.random() < 0.5:
            self.emit("else:")
            self.block(self.r.randint(1, 2))

    def for_stmt(self) -> None:
        r = self.r
        k = self.fresh("k")
        if r.random() < 0.3:  # uint32 bounds, start possibly above 2**31
            starts = ("simt.uint32(0)", f"simt.uint32(({self.i32(1)}) % 4)")
            start = r.choice(starts + (() if self.in_helper else ("s1", "s1")))
            stop = f"simt.uint32(({self.i32(1)}) % 9)"
            step = r.choice(("simt.uint32(1)", f"simt.uint32(1 + ({self.i32(1)}) % 3)"))
            self.emit(f"for {k} in range({start}, {stop}, {step}):")
            ty = "u32"
        else:
            a, b = f"({self.i32(1)}) % 5", f"({self.i32(1)}) % 9"
            form = r.randrange(4)
            if form == 0:
                self.emit(f"for {k} in range({b}):")
            elif form == 1:
                self.emit(f"for {k} in range({a}, {b}):")
            elif form == 2:
                step = r.choice(("2", "3", f"1 + ({self.i32(1)}) % 3"))
                self.emit(f"for {k} in range({a}, {b}, {step}):")
            else:
                step = r.choice(("-1", "-2", f"-1 - ({self.i32(1)}) % 3"))
                self.emit(f"for {k} in range({b}, {a} - 3, {step}):")
            ty = "i32"
        self.scopes.append(_Scope([Var(k, ty)]))
        self.block(r.randint(1, 3), loop=True)
        self.scopes.pop()

    def while_stmt(self) -> None:
        w = self.fresh("w")
        self.emit(f"{w} = 0")
        self.emit(f"while {w} < ({self.i32(1)}) % 6:")
        self.depth += 1
        self.emit(f"{w} += 1")  # first, so `continue` cannot skip it
        self.depth -= 1
        self.block(self.r.randint(1, 3), loop=True)

    def local_array(self) -> None:
        ty = self.r.choice(("i32", "f32"))
        la, q = self.fresh("la"), self.fresh("q")
        dt = "simt.int32" if ty == "i32" else "simt.float32"
        self.emit(f"{la} = simt.local.array(8, {dt})")
        self.emit(f"for {q} in range(8):")
        self.scopes.append(_Scope([Var(q, "i32")]))
        text, bound = self.expr(ty, 1)
        self.emit(f"    {la}[{q}] = {self.capped(text, bound)}")
        self.scopes.pop()
        text, bound = self.expr(ty, 1)
        self.emit(f"{la}[({self.i32(1)}) % 8] = {self.capped(text, bound)}")
        v = self.fresh()
        self.emit(f"{v} = {la}[({self.i32(1)}) % 8]")
        self.declare(v, ty, F32_CAP if ty == "f32" else 0.0)
        self.features.add("local")

    def print_stmt(self) -> None:
        vals = [self.r.choice(self.vars(ty)).name for ty in ("i32", "u32", "f32", "bool")
                if self.vars(ty) and self.r.random() < 0.6]  # fmt: skip
        if not vals:
            vals = ["i"]
        if self.r.random() < 0.5:
            self.emit(f'if i < 3:\n{"    " * (self.depth + 2)}print("p", {", ".join(vals)})')
        else:
            fields = " ".join(f"{{{v}}}" for v in vals)
            self.emit(f'if i % 50 == 1:\n{"    " * (self.depth + 2)}print(f"t{{i}}: {fields}")')
        self.features.add("print")

    def shared_phase(self) -> None:
        ty = self.r.choice(("i32", "f32"))
        sh = self.fresh("sh")
        dt = "simt.int32" if ty == "i32" else "simt.float32"
        self.emit(f"{sh} = simt.shared.array({self.block_size}, {dt})")
        text, bound = self.expr(ty, 2)
        self.emit(f"{sh}[t] = {self.capped(text, bound)}")
        self.emit("simt.syncthreads()")
        v = self.fresh()
        self.emit(f"{v} = {sh}[(t + {self.r.randint(1, 40)}) % {self.block_size}]")
        self.declare(v, ty, F32_CAP if ty == "f32" else 0.0)
        self.features.add("shared")
        if ty == "f32" and self.rtree.random() < 0.4:
            # a tree sum over the tile in Harris's interleaved steps: `t % (2 * w) == 0`
            # keeps `t + w` in the tile (the bounds pass's alignment rule; fixed order, so
            # every backend rounds alike)
            w, total = self.fresh("w"), self.fresh()
            self.emit("simt.syncthreads()  # after the neighbour's read above")
            self.emit(f"{w} = 1")
            self.emit(f"while {w} < {self.block_size}:")
            self.emit(f"    if t % (2 * {w}) == 0:")
            self.emit(f"        {sh}[t] += {sh}[t + {w}]")
            self.emit("    simt.syncthreads()")
            self.emit(f"    {w} *= 2")
            self.emit(f"{total} = {sh}[0]")
            self.declare(total, ty, F32_CAP * self.block_size)
        if self.rtile.random() < 0.3:
            # nbody's tile loop: a counter of the loop's iterations times the block indexes
            # an input (`tile * block_dim.x + t`), in bounds because the inputs' length is a
            # multiple of the block; the bounds pass tests that once per block (#23)
            src = "fa" if ty == "f32" else "ia"
            k, acc = self.fresh("k"), self.fresh()
            self.emit(f"{k} = 0")
            self.emit(f"{acc} = {sh}[t]")
            self.emit(f"for _ in range(0, len({src}), {self.block_size}):")
            self.emit("    simt.syncthreads()  # every read of the tile above is done")
            self.emit(f"    {sh}[t] = {src}[{k} * simt.block_dim.x + t]")
            self.emit("    simt.syncthreads()")
            self.emit(f"    {acc} = {acc} + {sh}[({k} + t) % {self.block_size}]")
            self.emit(f"    {k} += 1")
            self.declare(acc, ty, F32_CAP * (self.block_size + 1) if ty == "f32" else 0.0)

    # ------------------------------------------------------------------ the kernel
    def sinks(self) -> list[str]:
        """Approximate results (division, math functions) of exact values, to `fx`."""
        out = []
        for _ in range(self.r.randint(1, 3)):
            a, _ = self.flt("f32", 1)
            m, _ = self.divisor("f32", 1)
            out.append(self.r.choice((
                f"{a} / {m}",
                f"{a} // {m}",
                f"math.sqrt(abs({a}))",
                f"math.sin({a} % 6.0)",
                f"math.cos({a} % 6.0)",
                f"math.exp({a} % 8.0)",
                f"math.log(abs({a}) + 1.0)",
                f"math.tanh({a} % 8.0)",
                f"(abs({a}) + 1.0) ** 1.5",
                f"float({self.i32(1)}) / {m}",
            )))  # fmt: skip
        if self.complex_on:
            out += [gen_complex.complex_sink(self) for _ in range(self.r.randint(1, 2))]
        if self.rmath.random() < 0.3:
            self.features.add("math")
            rows = MATH_SINKS + MATH_SINKS_F64 * self.fp64
            for _ in range(self.rmath.randint(1, 2)):
                out.append(self.rmath.choice(rows))
        if self.rfmod.random() < 0.15:
            self.features.add("fmod")
            out.append(self.rfmod.choice(FMOD_SINKS + FMOD_SINKS_F64 * self.fp64))
        return out

    def program(self) -> Program:
        r = self.r
        self.block_size = r.choice((32, 64))
        self.grid = grid = r.choice((1, 2, 3))
        self.emit("i = simt.grid(1)")
        self.emit("t = thread_idx.x")
        self.declare("x0", "f32", 100.0)
        self.emit("x0 = fa[i % 64]")
        self.declare("j0", "i32")
        self.emit("j0 = ia[(i * 7) % 64]")
        self.declare("u0", "u32")
        self.emit("u0 = ua[i % 64]")
        if self.fp64:
            self.declare("d0", "f64", 100.0)
            self.emit("d0 = da[i % 64]")
        if self.rstride.random() < 0.2:
            # a read at a multiple of `i` under a guard on that index (`i * 2 < len(fa)`): the
            # guard bounds it once a block test says the product does not wrap (#23)
            src = self.rstride.choice(("fa", "ia"))
            c = self.rstride.choice((2, 3))
            self.emit(f"js = i * {c}")
            self.emit(f"xs = {src}[0]")
            self.emit(f"if js < len({src}):")
            self.emit(f"    xs = {src}[js]")
            self.declare("xs", "f32" if src == "fa" else "i32", 100.0 if src == "fa" else 0.0)
        # the out-of-bounds access (`oob`) goes after this many top-level statements
        oob_at = self.r.randrange(self.budget + 1) if self.oob_on else -1
        while self.budget > 0:
            if self.depth == 0 and self.budget == oob_at:
                self.out_of_bounds()
            self.statement()
        if self.oob_on and self.oob_array is None:
            self.out_of_bounds()
        self.sections()
        outs = {"i32": "io", "bool": "io", "u32": "uo", "f32": "fo", "f64": "do"}
        outs |= {"u64": "q64", "c64": "cz", "c128": "cw"}
        live = [v for v in self.scopes[0].vars]
        for v in live:
            arr = outs[v.ty]
            if arr in ("q64", "cz", "cw"):
                self.extras.add(arr)
                self.emit(f"{arr}[{out_slot(self, arr)}] = {v.name}")
                continue
            self.emit(f"{arr}[i * NSLOT_{arr} + {self.slots[arr]}] = {v.name}")
            self.slots[arr] += 1
        for s in self.sinks():
            self.emit(f"fx[i * NSLOT_fx + {self.slots['fx']}] = {s}")
            self.slots["fx"] += 1
        extras = tuple(x for x in EXTRA_ORDER if x in self.extras)
        params = "fa, ia, ua, fo, io, uo, fx, hist, s0, s1" + (", da, do" if self.fp64 else "")
        params += "".join(f", {x}" for x in extras)
        flags = ["fp64=True"] * self.fp64 + ["debug=True"] * (self.oob_on and OOB_DEBUG)
        if self.features & HEAP_FEATURES:
            flags.append(f"heap={HEAP}")
        deco = f"@simt.kernel({', '.join(flags)})" if flags else "@simt.kernel"
        consts = "\n".join(f"NSLOT_{k} = {max(v, 1)}" for k, v in self.slots.items())
        slots = {k: max(v, 1) for k, v in self.slots.items()}
        launch: dict[str, Any] = {
            "seed": self.seed, "grid": grid, "block": self.block_size, "fp64": self.fp64
        }  # fmt: skip
        if extras:
            launch["extras"] = list(extras)
        if "int64" in self.features:
            launch["int64"] = True  # also where only big constants make int64 operations
        if self.oob_array is not None:
            launch["oob"] = [self.oob_array, self.oob_kind]
        src = "\n".join([
            f'"""simt fuzz kernel, seed {self.seed}."""',
            "",
            "import cmath\n" * self.complex_on + "import math",
            "",
            "import simt",
            "from simt import block_idx, thread_idx",
            "",
            f"LAUNCH = {launch!r}",
            consts,
            "",
            *[h + "\n" for h in self.helpers],
            "",
            deco,
            f"def kernel({params}):",
            *self.lines,
            "",
        ])  # fmt: skip
        feats = set(self.features) | ({"fp64"} if self.fp64 else set())
        if self.numba:
            src = numba_spelling(src)
            feats.add("numba")
        oob = (self.oob_array, self.oob_kind) if self.oob_array is not None else None
        return Program(
            self.seed, src, grid, self.block_size, slots, self.fp64, frozenset(feats), extras,
            self.numba, oob,
        )  # fmt: skip

    def sections(self) -> None:
        """The optional features' sections (grammar.SECTIONS, in FEATURES' order), each
        drawing from `rx`."""
        for feature in FEATURES:
            if not getattr(self, f"{feature}_on"):
                continue
            section = SECTIONS[feature]
            saved = self.r
            self.r, self.budget = self.rx, 4
            section(self)
            self.r = saved


# simt's spelling -> Numba-CUDA's, for `numba_spelling` (each a regular expression)
NUMBA_SPELLING = (
    (r"^@simt\.kernel(\(fp64=True\))?$", "@cuda.jit"),
    (r"\bsimt\.grid\(", "cuda.grid("),
    (r"\bthread_idx\.", "cuda.threadIdx."),
    (r"\bblock_idx\.", "cuda.blockIdx."),
    (r"\bsimt\.block_dim\.", "cuda.blockDim."),
    (r"\bsimt\.syncthreads\(", "cuda.syncthreads("),
    (r"\bsimt\.(shared|local|atomic)\.", r"cuda.\1."),
    (r"\bsimt\.(u?int(8|16|32|64)|float(16|32|64))\b", r"np.\1"),
    (r"^from simt import block_idx, thread_idx$", "import numpy as np\n\nfrom simt import cuda"),
    (r"^def (?!kernel\()", "@cuda.jit(device=True)\ndef "),
)


def numba_spelling(source: str) -> str:
    """A generated module spelled as a Numba-CUDA program: `@cuda.jit` kernel, device
    functions, `cuda.grid`, `cuda.threadIdx`, `cuda.shared/local/atomic`, NumPy casts. The
    module still says `import simt` only where a name has no Numba spelling."""
    import re

    for pattern, repl in NUMBA_SPELLING:
        source = re.sub(pattern, repl, source, flags=re.M)
    if not re.search(r"\bsimt\.", source.replace("simt fuzz kernel", "")):
        source = re.sub(r"^import simt\n", "", source, flags=re.M)
    return source


def from_source(source: str) -> Program:
    """The program a generated (or shrunk, or saved) module's text describes."""
    tree = ast.parse(source)
    consts: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name == "LAUNCH" or name.startswith("NSLOT_"):  # not the features' preludes
                consts[name] = ast.literal_eval(node.value)  # (gen_files: FDIR = a call)
    launch = consts["LAUNCH"]
    slots = {k[len("NSLOT_") :]: v for k, v in consts.items() if k.startswith("NSLOT_")}
    extras = tuple(launch.get("extras", ()))
    numba = "@cuda.jit" in source
    feats = frozenset(
        ({"fp64"} if launch["fp64"] else set())
        | (
            {"int64"}
            if "simt.int64(" in source or "np.int64(" in source or launch.get("int64")
            else set()
        )
        | ({"numba"} if numba else set())
    )
    oob = tuple(launch["oob"]) if "oob" in launch else None
    return Program(
        launch["seed"], source, launch["grid"], launch["block"], slots, launch["fp64"], feats,
        extras, numba, oob,  # type: ignore[arg-type]
    )  # fmt: skip


def generate(seed: int, **options: Any) -> Program:
    """The kernel of `seed` (the same text on every machine and Python version)."""
    return Generator(seed, **options).program()
