"""The fuzz generator's `lang` feature, the language of Numba-CUDA kernels (registers its
section in grammar.py):
loops over run-time arrays and views (`for v in ...`, `zip`, `enumerate`, `reversed`,
unpacking a slice of two), constant tables (a known tuple indexed by a run-time value),
warp functions where every lane runs them, and thread-dependent early returns before
barriers (threads that return leave the block's barrier count).

Everything it writes keeps the generator's rules: exact values (int32 arithmetic wraps;
float sums stay multiples of 1/8 below 2**21), reads of another thread's shared slot only
after a barrier, and a barrier after those reads before the slot is written again.
"""

from __future__ import annotations

from .grammar import SECTIONS, Grammar


def _slice(g: Grammar, arr: str) -> str:
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


def iterate(g: Grammar) -> None:
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


def early_return(g: Grammar) -> None:
    """A shared-memory phase some threads leave with `return` before (or between) the
    barriers: the others go on synchronising without them. Returned threads write none of
    their outputs (they stay zero); every slot is written before any thread leaves, read only
    after the barrier that follows its write, and written again only after the barrier that
    follows the read."""
    r = g.r
    bs = g.block_size
    g.features.add("early_return")
    sh = g.fresh("sh")
    g.emit(f"{sh} = simt.shared.array({bs}, simt.int32)")
    if r.random() < 0.5:
        g.emit(f"{sh}[t] = {g.i32(2)}")
        cond = r.choice(("t % 7 == 3", f"i >= s0 + {r.randint(10, 90)}", f"t >= {bs - 5}",
                         f"({g.i32(1)}) % 4 == 1"))  # fmt: skip
        g.emit(f"if {cond}:")
        g.emit("    return")
        g.emit("simt.syncthreads()")
        v = g.fresh()
        g.emit(f"{v} = {sh}[(t + {r.randint(1, bs - 1)}) % {bs}]")
        g.declare(v, "i32")
        return
    acc, k = g.fresh("ra"), g.fresh("q")
    g.emit(f"{acc} = {g.i32(1)}")
    g.declare(acc, "i32")
    # every slot written before any thread leaves (shared memory starts undefined)
    g.emit(f"{sh}[t] = {acc}")
    g.emit("simt.syncthreads()")
    g.emit(f"for {k} in range({r.randint(2, 4)}):")
    g.depth += 1
    g.emit(f"if (t * {r.choice((3, 5, 7))} + {k}) % {r.choice((5, 9, 13))} == 0:")
    g.emit("    return")
    g.emit(f"{sh}[t] = {acc} * {r.choice((3, 5, -1))} + {k}")
    g.emit("simt.syncthreads()")
    g.emit(f"{acc} = {acc} ^ {sh}[(t + {r.randint(1, bs - 1)}) % {bs}]")
    g.emit("simt.syncthreads()")
    g.depth -= 1


def warp(g: Grammar) -> None:
    """A warp function at the kernel's top level, where every lane of each (full) warp runs
    it: shuffles of exact values and votes. Masks name every lane (or the lanes running the
    call): CUDA leaves a mask that names a lane not making the call, or that leaves a caller
    out, undefined (an H100 raised an illegal instruction), and sim refuses it."""
    r = g.r
    g.features.add("warp")
    x = g.fresh("wp")
    k = r.randrange(6)
    if k <= 3:
        fn = ("shfl_sync", "shfl_up_sync", "shfl_down_sync", "shfl_xor_sync")[k]
        ty = r.choice(("i32", "f32", "u32"))
        text, bound = g.expr(ty, 2)
        text = g.capped(text, bound) if ty == "f32" else text
        g.emit(f"{x} = simt.{fn}(0xFFFFFFFF, {text}, {r.choice(('1', '3', '16', 't % 7'))})")
        g.declare(x, ty, min(bound, 1e6) if ty == "f32" else 0.0)
    elif k == 4:
        g.emit(f"{x} = simt.ballot_sync({r.choice(('0xFFFFFFFF', 'simt.activemask()'))}, "
               f"{g.boolean(2)}) & 0x0F0F0F0F")  # fmt: skip
        g.declare(x, "u32")
    else:
        fn = r.choice(("all_sync", "any_sync"))
        g.emit(f"{x} = simt.{fn}(0xFFFFFFFF, {g.boolean(2)}) != (simt.laneid == 3)")
        g.declare(x, "bool")


def table(g: Grammar) -> None:
    """A tuple of known numbers indexed by a run-time value (a constant table: CUDA constant
    memory, a WGSL module array, an LLVM constant global), sometimes inside a range loop that
    unrolls around a thread-dependent index; the index is taken modulo the length (Python's
    `%`: never negative), so every read is inside the table."""
    r = g.r
    x, tb = g.fresh("tb"), g.fresh("tt")
    n = r.randint(2, 9)
    floats = r.random() < 0.4
    items = [r.randint(-800, 800) / 8.0 if floats else r.randint(-(2**31), 2**31 - 1)
             for _ in range(n)]  # fmt: skip
    g.emit(f"{tb} = ({', '.join(map(repr, items))},)")
    if r.random() < 0.5:
        g.emit(f"{x} = {tb}[({g.i32(2)}) % {n}]")
    else:
        g.emit(f"{x} = {'0.0' if floats else '0'}")
        g.emit(f"for j in range({r.randint(1, 4)}):")
        if floats:
            g.emit(f"    {x} += {tb}[(t + j * ({g.i32(1)})) % {n}]")
        else:
            g.emit(f"    {x} = ({x} * 3) ^ {tb}[(t + j * ({g.i32(1)})) % {n}]")
    g.declare(x, "f32" if floats else "i32", 4 * 100.0)


def lang_section(g: Grammar) -> None:
    """Loops over arrays, warp functions, then (sometimes) a shared-memory phase that threads
    leave early."""
    g.features.add("iterate")
    for _ in range(g.r.randint(1, 3)):
        iterate(g)
    if g.r.random() < 0.5:
        g.features.add("tables")
        table(g)
    if g.r.random() < 0.4:
        warp(g)
    if g.r.random() < 0.5:
        early_return(g)


SECTIONS["lang"] = lang_section
