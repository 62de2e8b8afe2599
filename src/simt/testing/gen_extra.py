"""The generator's newer features, each behind an option of `Generator` (generator.py):

- `dtypes`: arrays of int8, uint8, int16, uint16, float16 and uint64. The small types are
  storage types (docs/semantics.md, "Types"): a load gives an int32 (float32), a store wraps
  to the width (rounds to the nearest float16); `simt.uint8(x)` and the like convert. uint64
  values get arithmetic of their own (wrapping, shifts modulo 64, `//` and `%` by zero 0).
- `complexes`: complex64 (complex128 in float64 kernels) numbers and arrays: `complex(a, b)`,
  `.real`, `.imag`, `conjugate()`, `+ - *`, `** n` (n known, 0..3), `==`; the approximate
  `abs`, `/`, `cmath.exp/log/sqrt/phase` only feed `fx`, their arguments kept away from
  overflow and branch cuts (`exp` of real part in [-4, 4], `log`/`sqrt` of a positive real
  part, `phase` of a positive imaginary part).
- `views`: rows, columns and slices of arrays (`m2[r]`, `m2[r, :]`, `m2[:, c]`,
  `m2[1:-1, 1:-1]`, `ia[::2]`, `ia[lo:hi]` with run-time bounds, `ia[lo:][::3]`, `ua[::-1]`),
  `len`/`.shape`/`.size` of them, views passed to helpers that read and write them, writes
  through a row view of the 2-D output `vo` (one element, or a slice given a tuple), atomics
  on a view of the histogram.

Each feature writes a section of statements after the kernel's main body, drawing its
choices from a random stream of its own (`Generator.rx`), so a kernel without the feature is
the text the generator wrote before the feature existed. The values a section loads or makes
are ordinary variables afterwards: the statements it mixes in (loops, ifs, helpers) use them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .generator import Generator

# extra kernel parameters: name -> NumPy dtype (1-D: INPUTS inputs, then per-thread slots)
SMALL = {"b8": np.int8, "ub8": np.uint8, "h16": np.int16, "uh16": np.uint16, "hf": np.float16}
EXTRA_DTYPES = {**SMALL, "q64": np.uint64, "cz": np.complex64, "cw": np.complex128}
U64_LITS = (0, 1, 3, 255, 2**32, 2**32 + 7, 2**63, 2**64 - 1, 12345678901234567)
F16_CAP = 60000.0  # a float16 store rounds; below 65504 it never becomes inf
M2 = 8  # the 2-D input `m2` is M2 x M2


def make_extra(name: str, seed: int, inputs: int, threads: int, slots: int) -> np.ndarray:
    """The argument for extra parameter `name`: inputs, then zeroed per-thread outputs."""
    g = np.random.default_rng([seed, 1 + sorted([*EXTRA_DTYPES, "m2", "vo"]).index(name)])
    if name == "m2":
        return (g.integers(-800, 800, (M2, M2)) / 8.0).astype(np.float32)
    if name == "vo":
        return np.zeros((threads, slots), np.int32)
    dt = np.dtype(EXTRA_DTYPES[name])
    n = inputs + threads * slots
    out = np.zeros(n, dt)
    if dt.kind in "iu" and dt.itemsize < 8:
        info = np.iinfo(dt)  # type: ignore[type-var]
        out[:inputs] = g.integers(info.min, int(info.max) + 1, inputs)
    elif dt.kind == "u":
        out[:inputs] = g.choice(np.array(U64_LITS, np.uint64), inputs)
        out[: inputs // 2] = g.integers(0, 2**63, inputs // 2, dtype=np.uint64) * np.uint64(2)
    elif dt.kind == "f":
        out[:inputs] = g.integers(-800, 800, inputs) / 8.0
    else:
        re, im = g.integers(-800, 800, (2, inputs)) / 8.0
        out[:inputs] = re + 1j * im
        if dt == np.complex128:
            out[:inputs] /= 3.0
    return out


def out_slot(g: Generator, name: str) -> str:
    """The index of the thread's next output slot of extra array `name`."""
    k = g.slots.setdefault(name, 0)
    g.slots[name] = k + 1
    return f"{g.inputs} + i * NSLOT_{name} + {k}"


# ---------------------------------------------------------------------- small types, uint64
def dtypes_section(g: Generator) -> None:
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


def small_value(g: Generator, name: str) -> str:
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


def small_conversion(g: Generator, d: int) -> str:
    """An int32 expression through a small-type conversion (`simt.uint8(300) == 44`)."""
    conv = g.r.choice(("simt.int8", "simt.uint8", "simt.int16", "simt.uint16"))
    return f"{conv}({g.i32(d)})"


def u64(g: Generator, d: int) -> str:
    """A uint64 expression."""
    r = g.r
    vs = g.vars("u64")
    if d <= 0 or r.random() < 0.25:
        k = r.random()
        if vs and k < 0.5:
            return r.choice(vs).name
        if k < 0.7:
            return f"simt.uint64({g.i32(0)})"
        if k < 0.8:
            return f"simt.uint64({g.u32(0)})"
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


def from_u64(g: Generator, ty: str, d: int) -> str:
    """An int32 / uint32 expression made from a uint64 one (wrapping conversions)."""
    conv = "simt.int32" if ty == "i32" else "simt.uint32"
    return f"{conv}({u64(g, d)})"


# ---------------------------------------------------------------------- complex numbers
def cty(g: Generator) -> str:
    return "c128" if g.fp64 and g.r.random() < 0.4 else "c64"


def cplx(g: Generator, ty: str, d: int) -> tuple[str, float]:
    """An exact complex expression of type `ty` ("c64"/"c128") and a bound on its parts."""
    r = g.r
    fty = "f32" if ty == "c64" else "f64"
    arr = "cz" if ty == "c64" else "cw"
    vs = g.vars(ty)
    if d <= 0 or r.random() < 0.25:
        k = r.random()
        if vs and k < 0.45:
            v = r.choice(vs)
            return v.name, v.bound
        if k < 0.7 and not g.in_helper:
            g.extras.add(arr)
            return f"{arr}[({g.i32(0)}) % {g.inputs}]", 100.0
        if k < 0.9:
            (a, ba), (b, bb) = g.flt(fty, 0), g.flt(fty, 0)
            return f"complex({a}, {b})", max(ba, bb)
        lit = r.choice(("1j", "(0.5 - 2j)", "(3 + 0.25j)", "(-1.5 + 1j)"))
        return lit, 3.0
    k = r.randrange(8)
    (a, ba) = cplx(g, ty, d - 1)
    if k <= 1:
        b, bb = cplx(g, ty, d - 1)
        op = r.choice(("+", "-"))
        return (f"({a} {op} {b})", ba + bb) if ba + bb <= g.cap else (a, ba)
    if k == 2:
        b, bb = cplx(g, ty, d - 1)
        return (f"({a} * {b})", 2 * ba * bb) if 2 * ba * bb <= g.cap else (a, ba)
    if k == 3:  # a real operand is not promoted: two multiplications (or one addition)
        f, bf = g.flt(fty, d - 1)
        if r.random() < 0.5 and ba * bf <= g.cap:
            return (f"({a} * {f})" if r.random() < 0.5 else f"({f} * {a})"), ba * bf
        return (f"({a} + {f})", ba + bf) if ba + bf <= g.cap else (a, ba)
    if k == 4:
        return (f"{a}.conjugate()", ba) if r.random() < 0.5 else (f"-{a}", ba)
    if k == 5:
        n = r.randint(0, 3)
        bound = 1.0 if n == 0 else (2 * ba) ** n
        return (f"({a} ** {n})", max(bound, 1.0)) if bound <= g.cap else (a, ba)
    if k == 6:
        b, bb = cplx(g, ty, d - 1)
        return f"({a} if {g.boolean(d - 1)} else {b})", max(ba, bb)
    return a, ba


def complex_part(g: Generator, fty: str, d: int) -> tuple[str, float]:
    """A float from a complex number: its real or imaginary part (exact)."""
    a, ba = cplx(g, "c128" if fty == "f64" else "c64", d)
    return f"{a}.{g.r.choice(('real', 'imag'))}", ba


def complex_compare(g: Generator, d: int) -> str:
    """`==` / `!=` of two complex numbers."""
    ty = cty(g)
    return f"({cplx(g, ty, d)[0]} {g.r.choice(('==', '!='))} {cplx(g, ty, d)[0]})"


def complex_sink(g: Generator) -> str:
    """An approximate real result of complex values (abs, /, cmath), for `fx`."""
    r = g.r
    a, _ = cplx(g, "c64", 1)
    safe = f"complex(abs({a}.real) + 0.5, {a}.imag)"  # nonzero, right of the branch cut
    b, _ = cplx(g, "c64", 1)
    part = r.choice(("real", "imag"))
    return r.choice((
        f"abs({a})",
        f"cmath.phase(complex({a}.real, abs({a}.imag) + 0.5))",
        f"({b} / {safe}).{part}",
        f"({b} / {r.choice(('2.0', '(-0.5)', '3.0'))}).{part}",
        f"cmath.exp(complex({a}.real % 8.0 - 4.0, {a}.imag % 6.0 - 3.0)).{part}",
        f"cmath.log({safe}).{part}",
        f"cmath.sqrt({safe}).{part}",
        f"({safe} ** -1).{part}",
    ))  # fmt: skip


def complex_section(g: Generator) -> None:
    """Complex variables, a run-time loop carrying one (`z = z * z + c`), stores."""
    r = g.r
    g.features.add("complex")
    g.complex_on = True
    for _ in range(r.randint(1, 3)):
        ty = cty(g)
        text, bound = cplx(g, ty, 2)
        v = g.fresh("z")
        g.emit(f"{v} = {text}")
        g.declare(v, ty, bound)
    if r.random() < 0.5:  # the Mandelbrot shape, kept bounded by a cap each pass
        z, c, k = g.fresh("z"), g.fresh("z"), g.fresh("k")
        g.emit(f"{z} = complex(0.0, 0.0)")
        g.emit(f"{c} = complex(fa[({g.i32(0)}) % {g.inputs}] * 0.01, 0.5)")
        g.emit(f"for {k} in range(({g.i32(1)}) % 6):")
        g.emit(f"    {z} = {z} * {z} + {c}")
        g.emit(f"    if abs({z}.real) + abs({z}.imag) > 4.0:")
        g.emit("        break")
        g.declare(z, "c64", 40.0)
        g.declare(c, "c64", 1.0)
        g.extras.add("cz")
    if r.random() < 0.5 and len(g.helpers) < 5:
        complex_helper_call(g)
    for _ in range(r.randint(1, 2)):
        g.statement()


def complex_helper_call(g: Generator) -> None:
    """A helper taking complex numbers and returning a complex and a float, with an early
    return on a run-time condition; called with the section's values."""
    name = f"chelper{g.names}"
    g.names += 1
    a, ba = cplx(g, "c64", 1)
    b, bb = cplx(g, "c64", 1)
    ops = g.r.choice(("p0 * p1 + p0.conjugate()", "p0 - p1 * 2.0", "(p0 + p1) ** 2", "-p1"))
    g.helpers.append(
        "\n".join([
            f"def {name}(p0, p1):",
            "    if p0.real > p1.imag:",
            "        return p1 + 1j, p0.imag",
            f"    return {ops}, p1.real",
        ])
    )  # fmt: skip
    z, x = g.fresh("z"), g.fresh()
    g.emit(f"{z}, {x} = {name}({a}, {b})")
    bound = 2 * max(ba, bb, 1.0) ** 2 + 4 * max(ba, bb, 1.0) + 1
    g.declare(z, "c64", bound)
    g.declare(x, "f32", max(ba, bb))


# ---------------------------------------------------------------------- views
def view_expr(g: Generator) -> tuple[str, str, int]:
    """A view: (text, element type, rank)."""
    r = g.r
    row = f"({g.i32(1)}) % {M2}"
    # views of the inputs of the other features' arrays (small types, complex)
    others = [x for x in ("b8", "ub8", "h16", "uh16", "hf", "cz") if x in g.extras]
    if others and r.random() < 0.3:
        name = r.choice(others)
        ty = "f32" if name == "hf" else "c64" if name == "cz" else "i32"
        form = r.choice(("[::2]", "[1:-1]", "[::-1]", "[({lo}) % 16:][::3]"))
        return f"{name}[:{g.inputs}]{form.format(lo=g.i32(1))}", ty, 1
    k = r.randrange(9)
    if k == 0:
        return f"m2[{row}]", "f32", 1
    if k == 1:
        return f"m2[{row}, :]", "f32", 1
    if k == 2:
        return f"m2[:, {row}]", "f32", 1
    if k == 3:
        return r.choice(("m2[1:-1, 1:-1]", "m2[1:-1]", "m2[::2, 1:]")), "f32", 2
    if k == 4:
        return r.choice(("ia[::2]", "ia[1:-1]", "ia[3::5]")), "i32", 1
    if k == 5:
        lo, hi = f"({g.i32(1)}) % 16", f"32 + ({g.i32(1)}) % 32"
        return f"ia[{lo}:{hi}]", "i32", 1
    if k == 6:
        return f"fa[({g.i32(1)}) % 16:][::3]", "f32", 1
    if k == 7:
        return "ua[::-1]", "u32", 1
    return f"m2[1:-1][{row} % 6]", "f32", 1


def view_read(g: Generator, v: str, rank: int) -> str:
    if rank == 1:
        return f"{v}[({g.i32(1)}) % len({v})]"
    return f"{v}[({g.i32(1)}) % {v}.shape[0], ({g.i32(1)}) % {v}.shape[1]]"


def view_helper(g: Generator, ty: str, rank: int) -> str:
    """A helper reading a whole view (and maybe writing the `vo` row it is given)."""
    name = f"vhelper{g.names}"
    g.names += 1
    mul = g.r.choice(("1", "3", "-2"))
    if rank == 1:
        body = ["    for q in range(len(v)):", f"        acc = acc + v[q] * {mul}"]
    else:
        body = [
            "    for q in range(v.shape[0]):",
            "        for q2 in range(v.shape[1]):",
            f"            acc = acc + v[q, q2] * {mul}",
        ]
    ret = "    return acc, len(v) + v.size" if ty != "u32" else "    return acc, len(v)"
    head = f"def {name}(v, p0):\n    acc = p0"
    g.helpers.append("\n".join([head, *body, ret]))
    return name


def views_section(g: Generator) -> None:
    """Views read, measured, passed to helpers; writes through a row of `vo`."""
    r = g.r
    g.features.add("views")
    g.extras |= {"m2", "vo"}
    row = g.fresh("row")
    g.emit(f"{row} = vo[i]")
    for _ in range(r.randint(1, 3)):
        text, ty, rank = view_expr(g)
        v = g.fresh("vw")
        g.emit(f"{v} = {text}")
        x = g.fresh()
        g.emit(f"{x} = {view_read(g, v, rank)}")
        g.declare(x, ty, 100.0 if ty in ("f32", "c64") else 0.0)
        n = g.fresh()
        g.emit(f"{n} = {r.choice((f'len({v})', f'{v}.shape[0]', f'{v}.size', f'{v}.ndim'))}")
        g.declare(n, "i32")
        if r.random() < 0.5 and len(g.helpers) < 5:
            name = view_helper(g, ty, rank)
            a, b = g.fresh(), g.fresh()
            init = {"f32": "0.0", "i32": "0", "u32": "simt.uint32(0)", "c64": "0j"}[ty]
            g.emit(f"{a}, {b} = {name}({v}, {init})")
            g.declare(a, ty, 1e5 if ty in ("f32", "c64") else 0.0)
            g.declare(b, "i32")
    if r.random() < 0.4:
        g.emit(f"simt.atomic.{g.atomic_op}(hist[4:], ({g.i32(1)}) % 12, {g.i32(1)})")
        g.features.add("atomics")
    for _ in range(r.randint(1, 2)):
        g.statement()
    for _ in range(r.randint(1, 3)):
        at = g.slots.setdefault("vo", 0)
        if r.random() < 0.3:  # slice assignment of a tuple of known length
            g.emit(f"{row}[{at}:{at + 2}] = ({g.i32(2)}, {g.i32(2)})")
            g.slots["vo"] += 2
            continue
        g.emit(f"{row}[{at}] = {g.i32(2)}")
        g.slots["vo"] += 1
