"""The fuzz generator's `complexes` feature: complex64 (complex128 in float64 kernels) numbers
and arrays: `complex(a, b)`, `.real`, `.imag`, `conjugate()`, `+ - *`, `** n` (n known,
0..3), `==`; the approximate `abs`, `/`, `cmath.exp/log/sqrt/phase` only feed `fx`, their
arguments kept away from overflow and branch cuts (`exp` of real part in [-4, 4], `log`/`sqrt`
of a positive real part, `phase` of a positive imaginary part). Registers the "c64"/"c128"
expressions and the `complexes` section (grammar.py)."""

from __future__ import annotations

from .grammar import EXPRESSIONS, SECTIONS, Grammar


# ---------------------------------------------------------------------- complex numbers
def cty(g: Grammar) -> str:
    return "c128" if g.fp64 and g.r.random() < 0.4 else "c64"


def cplx(g: Grammar, ty: str, d: int) -> tuple[str, float]:
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


def complex_part(g: Grammar, fty: str, d: int) -> tuple[str, float]:
    """A float from a complex number: its real or imaginary part (exact)."""
    a, ba = cplx(g, "c128" if fty == "f64" else "c64", d)
    return f"{a}.{g.r.choice(('real', 'imag'))}", ba


def complex_compare(g: Grammar, d: int) -> str:
    """`==` / `!=` of two complex numbers."""
    ty = cty(g)
    return f"({cplx(g, ty, d)[0]} {g.r.choice(('==', '!='))} {cplx(g, ty, d)[0]})"


def complex_sink(g: Grammar) -> str:
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


def complex_section(g: Grammar) -> None:
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


def complex_helper_call(g: Grammar) -> None:
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



EXPRESSIONS["c64"] = EXPRESSIONS["c128"] = cplx
SECTIONS["complexes"] = complex_section
