"""The fuzz generator's `views` feature: rows, columns and slices of arrays (`m2[r]`,
`m2[r, :]`, `m2[:, c]`, `m2[1:-1, 1:-1]`, `ia[::2]`, `ia[lo:hi]` with run-time bounds,
`ia[lo:][::3]`, `ua[::-1]`), `len`/`.shape`/`.size` of them, views passed to helpers that read
and write them, writes through a row view of the 2-D output `vo` (one element, or a slice
given a tuple), atomics on a view of the histogram. Registers the `views` section
(grammar.py)."""

from __future__ import annotations

from .grammar import M2, SECTIONS, Grammar


# ---------------------------------------------------------------------- views
def view_expr(g: Grammar) -> tuple[str, str, int]:
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


def view_read(g: Grammar, v: str, rank: int) -> str:
    if rank == 1:
        return f"{v}[({g.i32(1)}) % len({v})]"
    return f"{v}[({g.i32(1)}) % {v}.shape[0], ({g.i32(1)}) % {v}.shape[1]]"


def view_helper(g: Grammar, ty: str, rank: int) -> str:
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


def views_section(g: Grammar) -> None:
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



SECTIONS["views"] = views_section
