"""The fuzz generator's `dtypes` feature: arrays of int8, uint8, int16, uint16, float16 and
uint64. The small types are storage types (docs/semantics.md, "Types"): a load gives an int32
(float32), a store wraps to the width (rounds to the nearest float16); `simt.uint8(x)` and the
like convert. uint64 values get arithmetic of their own (wrapping, shifts modulo 64, `//` and
`%` by zero 0). Registers the "u64" expressions and the `dtypes` section (grammar.py)."""

from __future__ import annotations

from .grammar import EXPRESSIONS, F16_CAP, SECTIONS, SMALL, U64_LITS, Grammar, out_slot


# ---------------------------------------------------------------------- small types, uint64
def dtypes_section(g: Grammar) -> None:
    """Loads, arithmetic and stores of the small types and uint64."""
    r = g.r
    names = r.sample(sorted(SMALL) + ["q64"], r.randint(1, 3))
    for name in names:
        g.extras.add(name)
        g.features.add("f16" if name == "hf" else "u64" if name == "q64" else "small_int")
    for name in names:
        v = g.fresh()
        if name == "q64":
            g.u64_on = True
            g.emit(f"{v} = q64[({g.i32(1)}) % {g.inputs}]")
            g.declare(v, "u64")
        elif name == "hf":
            g.emit(f"{v} = hf[({g.i32(1)}) % {g.inputs}]")
            g.declare(v, "f32", 100.0)
        else:
            g.emit(f"{v} = {name}[({g.i32(1)}) % {g.inputs}]")
            g.declare(v, "i32")
    for _ in range(r.randint(1, 3)):
        g.statement()
    for name in names:
        for _ in range(r.randint(1, 2)):
            g.emit(f"{name}[{out_slot(g, name)}] = {small_value(g, name)}")
    if "q64" in names:
        # uint64 variables are stored by the kernel's epilogue like the others
        g.extras.add("q64")


def small_value(g: Grammar, name: str) -> str:
    """A value to store into extra array `name` (wrapping or rounding as the docs say)."""
    r = g.r
    if name == "q64":
        return g.u64(2)
    if name == "hf":
        text, bound = g.flt("f32", 2)
        if bound > F16_CAP:
            text = f"({text}) % {F16_CAP!r}"
        return f"simt.float16({text})" if r.random() < 0.2 else text
    k = r.random()
    if k < 0.6:
        return g.i32(2)
    if k < 0.8:  # a float store truncates toward zero, then wraps
        text, bound = g.flt("f32", 1)
        return text if bound < 1e9 else f"({text}) % 1000000.0"
    conv = r.choice(("simt.int8", "simt.uint8", "simt.int16", "simt.uint16"))
    return f"{conv}({g.i32(1)})"


def small_conversion(g: Grammar, d: int) -> str:
    """An int32 expression through a small-type conversion (`simt.uint8(300) == 44`)."""
    conv = g.r.choice(("simt.int8", "simt.uint8", "simt.int16", "simt.uint16"))
    return f"{conv}({g.i32(d)})"


def u64(g: Grammar, d: int) -> str:
    """A uint64 expression."""
    r = g.r
    vs = g.vars("u64")
    if d <= 0 or r.random() < 0.25:
        k = r.random()
        if vs and k < 0.5:
            return r.choice(vs).name
        if k < 0.7:
            return f"simt.uint64({g.i32(0)})"
        if k < 0.75:
            return f"simt.uint64({g.u32(0)})"
        if k < 0.8:  # a float64 in [1.5e16, 1.5e19]: from 2**63 up once exact on cpu only
            g.features.add("fp64")  # (2026-11-27; sim, cuda and webgpu were right)
            return f"simt.uint64(simt.float64({g.i32(0)} % 1000 + 1) * 1.5e16)"
        return f"simt.uint64({r.choice(U64_LITS)})"
    k = r.randrange(7)
    if k <= 2:
        op = r.choice(("+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>"))
        return f"({u64(g, d - 1)} {op} {u64(g, d - 1)})"
    if k == 3:  # an int32 with a uint64 gives uint64 (as C)
        op = r.choice(("+", "*", "&", "^", "-"))
        return f"({u64(g, d - 1)} {op} {g.i32(d - 1)})"
    if k == 4:
        return f"{r.choice(('min', 'max'))}({u64(g, d - 1)}, {u64(g, d - 1)})"
    if k == 5:
        return f"({u64(g, d - 1)} if {g.boolean(d - 1)} else {u64(g, d - 1)})"
    return f"(~{u64(g, d - 1)})"


def from_u64(g: Grammar, ty: str, d: int) -> str:
    """An int32 / uint32 expression made from a uint64 one (wrapping conversions)."""
    conv = "simt.int32" if ty == "i32" else "simt.uint32"
    return f"{conv}({u64(g, d)})"



EXPRESSIONS["u64"] = lambda g, ty, d: (u64(g, d), 0.0)
SECTIONS["dtypes"] = dtypes_section
