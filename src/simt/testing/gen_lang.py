"""The generator's section for the language of Numba-CUDA kernels (generator.py calls it):
loops over run-time arrays and views (`for v in ...`, `zip`, `enumerate`, `reversed`,
unpacking a slice of two), and thread-dependent early returns before barriers (threads that
return leave the block's barrier count).

Everything it writes keeps the generator's rules: exact values (int32 arithmetic wraps;
float sums stay multiples of 1/8 below 2**21), reads of another thread's shared slot only
after a barrier, and a barrier after those reads before the slot is written again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .generator import Generator


def _slice(g: Generator, arr: str) -> str:
    """`arr` or a slice of it with known or run-time bounds (never empty bounds errors:
    slices clip)."""
    r = g.r
    k = r.randrange(4)
    if k == 0:
        return arr
    lo = r.choice(("0", "3", "(t % 5)", "(s0 % 7)", f"({g.i32(1)}) % 9"))
    if k == 1:
        return f"{arr}[{lo}:]"
    hi = r.choice(("20", "64", "(40 + t % 7)", "-3"))
    if k == 2:
        return f"{arr}[{lo}:{hi}]"
    return f"{arr}[{lo}:{hi}:{r.choice(('2', '3'))}]"


def iterate(g: Generator) -> None:
    """One loop over run-time arrays, its result a new variable."""
    r = g.r
    acc = g.fresh("it")
    k = r.randrange(5)
    if k == 0:
        g.emit(f"{acc} = 0")
        g.emit(f"for v in {_slice(g, 'ia')}:")
        g.emit(f"    {acc} = {acc} * {r.choice(('3', '5', '-1'))} + v")
        g.declare(acc, "i32")
    elif k == 1:
        g.emit(f"{acc} = 0.0")
        start = r.choice(("", ", 1", ", s0 % 4"))
        g.emit(f"for n, v in enumerate({_slice(g, 'fa')}{start}):")
        g.emit(f"    {acc} += v * (n % 64)")
        g.declare(acc, "f32", 64 * 64 * 100.0)
    elif k == 2:
        g.emit(f"{acc} = simt.uint32(0)")
        g.emit(f"for a, b in zip({_slice(g, 'ia')}, {_slice(g, 'ua')}):")
        g.emit(f"    {acc} = ({acc} << 1) ^ (simt.uint32(a) + b)")
        g.declare(acc, "u32")
    elif k == 3:
        g.emit(f"{acc} = 0")
        src = r.choice((_slice(g, "ia"), f"range({g.i32(1)} % 9, {g.i32(1)} % 30)"))
        g.emit(f"for v in reversed({src}):")
        g.emit(f"    {acc} = ({acc} ^ v) * 7")
        g.declare(acc, "i32")
    else:
        lo = r.choice(("0", "(t % 60)", "(s0 % 7 + 7)"))
        a, b = g.fresh(), g.fresh()
        g.emit(f"{a}, {b} = ia[{lo}:{lo} + 2]")
        g.declare(a, "i32")
        g.declare(b, "i32")
        g.emit(f"{acc} = {a} - {b}")
        g.declare(acc, "i32")


def lang_section(g: Generator) -> None:
    """Loops over arrays, then (sometimes) a shared-memory phase that threads leave early."""
    g.features.add("iterate")
    for _ in range(g.r.randint(1, 3)):
        iterate(g)
