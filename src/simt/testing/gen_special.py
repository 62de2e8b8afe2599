"""The fuzz generator's `specials` feature (registers its section in grammar.py): float32
operands that are -0.0, NaN, +-inf or huge, read from the input part of the array `sv`
(`SPECIAL_VALUES`, drawn per seed by `grammar.make_extra`), fed to `math.copysign`,
`math.isnan`, `math.isinf`, `math.isfinite`, the sign test `math.copysign(1.0, x) < 0.0`,
`min`/`max` with a non-NaN operand, the six comparisons, negation, `abs`, a select, and
`+ - *`.

The values come from memory because a constant one is folded by drivers (lavapipe makes
`x * 0.0` +0.0 for a negative `x`). Every result is defined by docs/semantics.md whatever
backend computes it: the sign-exact ones (copysign, negation, `abs`, a select, `min`/`max`
of a non-NaN and a non-zero constant) go to the thread's slots of `sv`, compared with their
sign (-0.0 is not 0.0 there; every NaN equals every NaN: which NaN an operation makes is
unspecified); the flags of the tests go to `io`; `+ - *` of specials (NaN for inf - inf,
inf * 0; the sign of a zero result is unspecified on webgpu) go to `fo`, whose zeros
compare without sign. `min`/`max` of a NaN is unspecified, and so never drawn.
"""

from __future__ import annotations

from .grammar import SECTIONS, Grammar, out_slot

# the input part of `sv` draws from SPECIAL_VALUES (grammar.py; no subnormals: a GPU may
# flush them)
# non-zero, non-NaN constants for copysign, min and max (a zero against -0.0 would leave
# which zero min/max gives unspecified)
_CONSTS = ("1.5", "-2.0", "100.0", "-0.5", "math.inf", "-math.inf")
_CMPS = ("<", "<=", ">", ">=", "==", "!=")


def _exact(g: Grammar, a: str, b: str) -> str:
    """A float32 expression of specials `a`, `b` whose every bit is defined, sign of a zero
    and infinities included (NaNs: any NaN)."""
    r = g.r
    c = r.choice(_CONSTS)
    k = r.randrange(8)
    if k == 0:
        return f"math.copysign({r.choice(('1.5', '-2.0', '0.25'))}, {a})"
    if k == 1:
        return f"math.copysign({a}, {r.choice((b, c))})"
    if k == 2:
        return f"-{a}"
    if k == 3:
        return f"abs({a})"
    if k == 4:
        f = r.choice(("min", "max"))
        return f"({f}({a}, {c}) if not math.isnan({a}) else {r.choice(_CONSTS[:4])})"
    if k == 5:
        return f"({a} if {a} {r.choice(_CMPS)} {b} else {b})"
    if k == 6:
        return f"(-{b} if math.isinf({a}) else math.copysign(2.0, {b}))"
    return f"math.copysign(abs({a}) + 1.0, {b})"


def _flags(g: Grammar, a: str, b: str) -> str:
    """An int32 of the tests of `a` and `b`: one bit each."""
    r = g.r
    tests = [f"math.isnan({a})", f"math.isinf({a})", f"math.isfinite({a})",
             f"math.copysign(1.0, {a}) < 0.0",
             f"{a} {r.choice(_CMPS)} {b}", f"{a} {r.choice(_CMPS)} {r.choice(_CONSTS + ('0.0',))}",
             f"not ({a} {r.choice(_CMPS)} {b})"]  # fmt: skip
    r.shuffle(tests)
    n = r.randint(3, len(tests))
    return " + ".join(f"({1 << k} if {t} else 0)" for k, t in enumerate(tests[:n]))


def specials_section(g: Grammar) -> None:
    """Two specials per thread, then sign-exact results into `sv`, a flags int and an
    arithmetic float into the outputs."""
    r = g.r
    g.extras.add("sv")
    g.features.add("specials")
    a, b = g.fresh("sp"), g.fresh("sp")
    g.emit(f"{a} = sv[({g.i32(1)}) % {g.inputs}]")
    g.emit(f"{b} = sv[(i * {r.choice((3, 5, 7, 11))} + {r.randrange(g.inputs)}) % {g.inputs}]")
    for _ in range(r.randint(2, 4)):
        g.emit(f"sv[{out_slot(g, 'sv')}] = {_exact(g, a, b)}")
    # straight into the outputs, never declared: a NaN or an infinity must not reach the
    # expressions written after the sections (the approximate sinks)
    g.emit(f"io[i * NSLOT_io + {_slot(g, 'io')}] = {_flags(g, a, b)}")
    if r.random() < 0.7:
        x, _ = g.flt("f32", 1)
        ops = (f"{a} {r.choice('+-*')} {b}", f"{a} * ({x})", f"({x}) - {a}",
               f"{a} * {b} + {a}")  # fmt: skip
        g.emit(f"fo[i * NSLOT_fo + {_slot(g, 'fo')}] = {r.choice(ops)}")


def _slot(g: Grammar, out: str) -> int:
    """The thread's next slot of core output `out` (`io`, `fo`)."""
    k = g.slots[out]
    g.slots[out] = k + 1
    return k


SECTIONS["specials"] = specials_section
