"""Vector math for the CPU renderer: float32 `exp`, `log`, `sin`, `cos`, `tanh`, `erf` and
`pow` as LLVM IR functions that LLVM's loop vectoriser can widen.

A call of the C library (`expf`, or `llvm.exp.f32`, which the code generator turns back into
`expf`) inside a thread loop stays one scalar call per lane, and a call LLVM cannot prove free
of side effects (`tanhf`, `erff`: they may set `errno`) stops the loop from being vectorised
at all. These functions are straight-line code (selects, no branches, no calls), marked
`alwaysinline`: once inlined into a thread loop, the loop vectoriser turns them into SIMD like
any other arithmetic.

Each computes in float64 and rounds once to float32 at the end, so the float32 result is
within about half an ulp of the exact value plus the error of the double-precision kernel
(below 1e-10 relative): the measured errors are in docs/semantics.md ("Vector math on the CPU").
The kernels use only exactly known coefficients (Taylor series: 1/k!, 1/(2k+1), and
alternating `erf` series terms) and constants computed here from pi and ln 2 to 100 digits:

- `exp`: x = n ln2 + r, |r| <= ln2/2 (ln 2 in two parts, the first exact in n * ln2_hi);
  e^r by its Taylor series to r^10; the result scaled by 2^n through the exponent bits;
- `log`: x = m 2^e, m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s), s = (m - 1)/(m + 1), by
  its series to s^17;
- `sin`, `cos`: quadrant j = rint(x 2/pi) and r = x - j pi/2 with pi/2 in three parts (the
  first two exact in j * part); |x| >= 2^24 is first reduced exactly as M * (2^s mod 2 pi)
  (x = M 2^s, a table of 2^s mod 2 pi in two parts), so every float32 argument is reduced
  correctly; sine and cosine of r by their Taylor series to r^13 / r^14;
- `tanh`: 1 - 2 / (e^{2|x|} + 1), and its Taylor series below |x| = 1/16 (no cancellation);
- `erf`: the alternating series sum (-1)^n x^(2n+1) / (n! (2n+1)) to n = 60 for |x| < 4
  (absolute error below 2e-11), +-1 beyond (erf(4) rounds to 1 in float32);
- `pow`: exp(y log|x|) in double with C99's special cases (negative bases with integer
  exponents, zeros, infinities, `pow(1, y) = pow(x, 0) = 1`).

NaN in gives NaN out; infinities and zeros follow C99 (`sin(inf)` is NaN, `log(0)` is -inf,
`log(-1)` NaN, `exp(-inf)` 0).
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal, getcontext
from functools import cache

_KERNELS = ("exp", "log", "sin", "cos", "tanh", "erf", "pow")
# the float32 kernels this module defines, by the name a math row's `llvm_f32` gives
KERNELS = frozenset(f"simt.vm.{k}.f32" for k in _KERNELS)
TABLE = 105  # 2^s mod 2 pi for s = 0 .. 104 (float32 arguments up to 2^128 = M * 2^104)


def _hex(v: float) -> str:
    return "0x" + struct.pack(">d", float(v)).hex().upper()


@cache
def _pi() -> Decimal:
    """pi to 100 digits (Machin's formula in Decimal arithmetic)."""
    getcontext().prec = 110

    def arctan_inv(k: int) -> Decimal:
        x = Decimal(1) / k
        x2 = x * x
        term, total, n = x, x, 1
        while True:
            term *= -x2
            n += 2
            t = term / n
            if abs(t) < Decimal(10) ** -108:
                return total
            total += t

    return 16 * arctan_inv(5) - 4 * arctan_inv(239)


def _ln2() -> Decimal:
    getcontext().prec = 110
    return Decimal(2).ln()


def _bits_split(x: Decimal, bits: int) -> float:
    """`x` rounded toward zero to a double with `bits` significant bits."""
    f = float(x)
    m, e = math.frexp(f)
    scale = 2.0**bits
    hi = math.floor(m * scale) / scale
    out = math.ldexp(hi, e)
    if Decimal(out) > x:  # float(x) rounded up: one unit less
        out = math.ldexp(hi - 1 / scale, e)
    return out


@cache
def constants() -> dict[str, float]:
    """The constants of the kernels, as doubles."""
    pi = _pi()
    half_pi = pi / 2
    p1 = _bits_split(half_pi, 26)
    p2 = _bits_split(half_pi - Decimal(p1), 26)
    p3 = float(half_pi - Decimal(p1) - Decimal(p2))
    ln2 = _ln2()
    ln2_hi = _bits_split(ln2, 32)
    ln2_lo = float(ln2 - Decimal(ln2_hi))
    return {
        "P1": p1, "P2": p2, "P3": p3, "TWO_OVER_PI": float(2 / pi),
        "LN2": float(ln2), "LN2_HI": ln2_hi, "LN2_LO": ln2_lo, "LOG2E": float(1 / ln2),
        "SQRT2": float(Decimal(2).sqrt()), "TWO_OVER_SQRTPI": float(2 / pi.sqrt()),
    }  # fmt: skip


@cache
def table() -> tuple[list[float], list[float]]:
    """2^s mod 2 pi for s = 0 .. TABLE - 1 as (hi, lo): hi with 29 significant bits (so that
    a 24-bit integer times hi is exact in double), lo the rest."""
    two_pi = 2 * _pi()
    his, los = [], []
    for s in range(TABLE):
        t = Decimal(2) ** s % two_pi
        hi = _bits_split(t, 29) if t else 0.0
        his.append(hi)
        los.append(float(t - Decimal(hi)))
    return his, los


class _Fn:
    """Builds one IR function's body: numbered temporaries, one instruction a line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.n = 0

    def __call__(self, text: str) -> str:
        self.n += 1
        r = f"%v{self.n}"
        self.lines.append(f"  {r} = {text}")
        return r

    def horner(self, z: str, coeffs: list[float]) -> str:
        """sum c_k z^k (coeffs lowest first), in double."""
        acc = _hex(coeffs[-1])
        for c in reversed(coeffs[:-1]):
            acc = self(f"fmul double {acc}, {z}")
            acc = self(f"fadd double {acc}, {_hex(c)}")
        return acc

    def call(self, fn: str, *args: str) -> str:
        return self(f"call double @{fn}({', '.join('double ' + a for a in args)})")

    def sel(self, c: str, a: str, b: str, ty: str = "double") -> str:
        return self(f"select i1 {c}, {ty} {a}, {ty} {b}")


def _define(name: str, params: str, ret: str, f: _Fn, result: str) -> str:
    body = "\n".join(f.lines)
    return (f"define internal {ret} @{name}({params}) alwaysinline nounwind {{\n{body}\n"
            f"  ret {ret} {result}\n}}")  # fmt: skip


INTRINSICS = [
    "declare double @llvm.rint.f64(double)",
    "declare double @llvm.fabs.f64(double)",
    "declare double @llvm.minnum.f64(double, double)",
    "declare double @llvm.maxnum.f64(double, double)",
    "declare double @llvm.copysign.f64(double, double)",
    "declare float @llvm.fabs.f32(float)",
    "declare float @llvm.rint.f32(float)",
    "declare float @llvm.copysign.f32(float, float)",
]


def _expd() -> str:
    """e^x for double x in [-700, 700] (callers clamp; NaN never reaches it)."""
    k = constants()
    f = _Fn()
    t = f(f"fmul double %x, {_hex(k['LOG2E'])}")
    n = f"{f.call('llvm.rint.f64', t)}"
    a = f(f"fmul double {n}, {_hex(k['LN2_HI'])}")
    r0 = f(f"fsub double %x, {a}")
    b = f(f"fmul double {n}, {_hex(k['LN2_LO'])}")
    r = f(f"fsub double {r0}, {b}")
    p = f.horner(r, [1 / math.factorial(i) for i in range(11)])
    ni = f(f"fptosi double {n} to i64")
    e = f(f"add i64 {ni}, 1023")
    bits = f(f"shl i64 {e}, 52")
    s = f(f"bitcast i64 {bits} to double")
    out = f(f"fmul double {p}, {s}")
    return _define("simt.vm.expd", "double %x", "double", f, out)


def _logd() -> str:
    """log x for a positive, finite, normal double x."""
    k = constants()
    f = _Fn()
    bits = f("bitcast double %x to i64")
    eb = f(f"lshr i64 {bits}, 52")
    e0 = f(f"sub i64 {eb}, 1023")
    mb = f(f"and i64 {bits}, 4503599627370495")
    mb1 = f(f"or i64 {mb}, 4607182418800017408")
    m0 = f(f"bitcast i64 {mb1} to double")
    big = f(f"fcmp ogt double {m0}, {_hex(k['SQRT2'])}")
    mh = f(f"fmul double {m0}, 0x3FE0000000000000")
    m = f.sel(big, mh, m0)
    e1 = f(f"add i64 {e0}, 1")
    e = f.sel(big, e1, e0, "i64")
    num = f(f"fsub double {m}, 0x3FF0000000000000")
    den = f(f"fadd double {m}, 0x3FF0000000000000")
    s = f(f"fdiv double {num}, {den}")
    z = f(f"fmul double {s}, {s}")
    q = f.horner(z, [2 / (2 * i + 1) for i in range(9)])  # 2 atanh(s) / s
    lm = f(f"fmul double {s}, {q}")
    ed = f(f"sitofp i64 {e} to double")
    el = f(f"fmul double {ed}, {_hex(k['LN2'])}")
    out = f(f"fadd double {el}, {lm}")
    return _define("simt.vm.logd", "double %x", "double", f, out)


def _nan_guard(f: _Fn, res: str) -> str:
    """The float32 result, or `%x` itself when it is NaN."""
    isnan = f("fcmp uno float %x, %x")
    return f(f"select i1 {isnan}, float %x, float {res}")


def _exp() -> str:
    f = _Fn()
    d = f("fpext float %x to double")
    c = f.call("llvm.minnum.f64", d, _hex(200.0))
    c = f.call("llvm.maxnum.f64", c, _hex(-200.0))
    e = f.call("simt.vm.expd", c)
    r = f(f"fptrunc double {e} to float")
    return _define("simt.vm.exp.f32", "float %x", "float", f, _nan_guard(f, r))


def _log() -> str:
    f = _Fn()
    d = f("fpext float %x to double")
    lg = f.call("simt.vm.logd", d)
    r = f(f"fptrunc double {lg} to float")
    zero = f("fcmp oeq float %x, 0.0")
    r = f(f"select i1 {zero}, float 0xFFF0000000000000, float {r}")
    neg = f("fcmp olt float %x, 0.0")
    r = f(f"select i1 {neg}, float 0x7FF8000000000000, float {r}")
    inf = f("fcmp oeq float %x, 0x7FF0000000000000")
    r = f(f"select i1 {inf}, float %x, float {r}")
    return _define("simt.vm.log.f32", "float %x", "float", f, _nan_guard(f, r))


def _reduce(f: _Fn) -> tuple[str, str]:
    """(r, q) with |x| = q pi/2 + r (q as i64, only its last two bits matter)."""
    k = constants()
    a = f("call float @llvm.fabs.f32(float %x)")
    ad = f(f"fpext float {a} to double")
    ai = f(f"bitcast float {a} to i32")
    ex = f(f"lshr i32 {ai}, 23")
    s0 = f(f"sub i32 {ex}, 150")
    lo = f(f"icmp slt i32 {s0}, 0")
    s1 = f(f"select i1 {lo}, i32 0, i32 {s0}")
    hi = f(f"icmp sgt i32 {s1}, {TABLE - 1}")
    s = f(f"select i1 {hi}, i32 {TABLE - 1}, i32 {s1}")
    idx = f(f"zext i32 {s} to i64")
    mant = f(f"and i32 {ai}, 8388607")
    mi = f(f"or i32 {mant}, 8388608")
    md = f(f"sitofp i32 {mi} to double")
    php = f(f"getelementptr inbounds [{TABLE} x double], ptr @simt.vm.t2pi.hi, i64 0, i64 {idx}")
    plp = f(f"getelementptr inbounds [{TABLE} x double], ptr @simt.vm.t2pi.lo, i64 0, i64 {idx}")
    th = f(f"load double, ptr {php}, align 8")
    tl = f(f"load double, ptr {plp}, align 8")
    abig = f(f"fmul double {md}, {th}")
    bbig = f(f"fmul double {md}, {tl}")
    big = f(f"fcmp oge float {a}, 0x4170000000000000")  # 2^24
    aa = f.sel(big, abig, ad)
    bb = f.sel(big, bbig, "0.0")
    tot = f(f"fadd double {aa}, {bb}")
    t = f(f"fmul double {tot}, {_hex(k['TWO_OVER_PI'])}")
    j = f.call("llvm.rint.f64", t)
    j1 = f(f"fmul double {j}, {_hex(k['P1'])}")
    r1 = f(f"fsub double {aa}, {j1}")
    j2 = f(f"fmul double {j}, {_hex(k['P2'])}")
    r2 = f(f"fsub double {r1}, {j2}")
    r3 = f(f"fadd double {r2}, {bb}")
    j3 = f(f"fmul double {j}, {_hex(k['P3'])}")
    r = f(f"fsub double {r3}, {j3}")
    q = f(f"fptosi double {j} to i64")
    return r, q


def _sin_cos(f: _Fn, r: str) -> tuple[str, str]:
    z = f(f"fmul double {r}, {r}")
    ps = f.horner(z, [(-1) ** i / math.factorial(2 * i + 1) for i in range(7)])
    sr = f(f"fmul double {r}, {ps}")
    cr = f.horner(z, [(-1) ** i / math.factorial(2 * i) for i in range(8)])
    return sr, cr


def _trig(name: str) -> str:
    f = _Fn()
    r, q = _reduce(f)
    sr, cr = _sin_cos(f, r)
    odd = f(f"and i64 {q}, 1")
    isodd = f(f"icmp ne i64 {odd}, 0")
    if name == "sin":
        base = f.sel(isodd, cr, sr)
        q2 = f(f"and i64 {q}, 2")
        neg_q = f(f"icmp ne i64 {q2}, 0")
        xi = f("bitcast float %x to i32")
        neg_x = f(f"icmp slt i32 {xi}, 0")
        neg = f(f"xor i1 {neg_q}, {neg_x}")
    else:
        base = f.sel(isodd, sr, cr)
        q1 = f(f"add i64 {q}, 1")
        q2 = f(f"and i64 {q1}, 2")
        neg = f(f"icmp ne i64 {q2}, 0")
    nb = f(f"fneg double {base}")
    res = f.sel(neg, nb, base)
    out = f(f"fptrunc double {res} to float")
    a = f("call float @llvm.fabs.f32(float %x)")
    inf = f(f"fcmp oeq float {a}, 0x7FF0000000000000")
    out = f(f"select i1 {inf}, float 0x7FF8000000000000, float {out}")
    return _define(f"simt.vm.{name}.f32", "float %x", "float", f, _nan_guard(f, out))


def _tanh() -> str:
    f = _Fn()
    d = f("fpext float %x to double")
    a = f.call("llvm.fabs.f64", d)
    c = f.call("llvm.minnum.f64", a, _hex(20.0))
    c2 = f(f"fmul double {c}, 0x4000000000000000")
    e = f.call("simt.vm.expd", c2)
    e1 = f(f"fadd double {e}, 0x3FF0000000000000")
    q = f(f"fdiv double 0x4000000000000000, {e1}")
    t = f(f"fsub double 0x3FF0000000000000, {q}")
    z = f(f"fmul double {a}, {a}")
    # tanh x = x - x^3/3 + 2x^5/15 - 17x^7/315 + 62x^9/2835 - 1382x^11/155925
    ser = f.horner(z, [1.0, -1 / 3, 2 / 15, -17 / 315, 62 / 2835, -1382 / 155925])
    ser = f(f"fmul double {a}, {ser}")
    small = f(f"fcmp olt double {a}, {_hex(0.0625)}")
    m = f.sel(small, ser, t)
    s = f.call("llvm.copysign.f64", m, d)
    out = f(f"fptrunc double {s} to float")
    return _define("simt.vm.tanh.f32", "float %x", "float", f, _nan_guard(f, out))


def _erf() -> str:
    k = constants()
    f = _Fn()
    d = f("fpext float %x to double")
    a = f.call("llvm.fabs.f64", d)
    c = f.call("llvm.minnum.f64", a, _hex(4.0))
    z = f(f"fmul double {c}, {c}")
    ser = f.horner(z, [(-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(61)])
    v = f(f"fmul double {c}, {ser}")
    v = f(f"fmul double {v}, {_hex(k['TWO_OVER_SQRTPI'])}")
    v = f.call("llvm.minnum.f64", v, "0x3FF0000000000000")
    big = f(f"fcmp oge double {a}, {_hex(4.0)}")
    v = f.sel(big, "0x3FF0000000000000", v)
    s = f.call("llvm.copysign.f64", v, d)
    out = f(f"fptrunc double {s} to float")
    return _define("simt.vm.erf.f32", "float %x", "float", f, _nan_guard(f, out))


def _pow() -> str:
    f = _Fn()
    xd = f("fpext float %x to double")
    yd = f("fpext float %y to double")
    ax = f.call("llvm.fabs.f64", xd)
    lg = f.call("simt.vm.logd", ax)
    zero = f(f"fcmp oeq double {ax}, 0.0")
    lg = f.sel(zero, "0xFFF0000000000000", lg)
    inf = f(f"fcmp oeq double {ax}, 0x7FF0000000000000")
    lg = f.sel(inf, "0x7FF0000000000000", lg)
    t = f(f"fmul double {yd}, {lg}")
    t = f.call("llvm.minnum.f64", t, _hex(700.0))
    t = f.call("llvm.maxnum.f64", t, _hex(-700.0))
    e = f.call("simt.vm.expd", t)
    mag = f(f"fptrunc double {e} to float")
    # y an integer? odd? (every float32 of magnitude 2^24 or more is an even integer)
    ry = f("call float @llvm.rint.f32(float %y)")
    yint = f(f"fcmp oeq float {ry}, %y")
    ay = f("call float @llvm.fabs.f32(float %y)")
    small = f(f"fcmp olt float {ay}, 0x4170000000000000")
    ys = f(f"select i1 {small}, float %y, float 0.0")
    yi = f(f"fptosi float {ys} to i32")
    yb = f(f"and i32 {yi}, 1")
    yodd0 = f(f"icmp ne i32 {yb}, 0")
    yodd1 = f(f"and i1 {yodd0}, {small}")
    yodd = f(f"and i1 {yodd1}, {yint}")
    xi = f("bitcast float %x to i32")
    xneg = f(f"icmp slt i32 {xi}, 0")
    flip = f(f"and i1 {xneg}, {yodd}")
    nm = f(f"fneg float {mag}")
    r = f(f"select i1 {flip}, float {nm}, float {mag}")
    # a negative finite base with a finite non-integer exponent: NaN
    xlt = f("fcmp olt float %x, 0.0")
    axf = f("call float @llvm.fabs.f32(float %x)")
    xfin = f(f"fcmp one float {axf}, 0x7FF0000000000000")
    yfin = f(f"fcmp one float {ay}, 0x7FF0000000000000")
    nonint = f(f"xor i1 {yint}, true")
    bad0 = f(f"and i1 {xlt}, {xfin}")
    bad1 = f(f"and i1 {bad0}, {yfin}")
    bad = f(f"and i1 {bad1}, {nonint}")
    r = f(f"select i1 {bad}, float 0x7FF8000000000000, float {r}")
    anynan = f("fcmp uno float %x, %y")
    sumn = f("fadd float %x, %y")
    r = f(f"select i1 {anynan}, float {sumn}, float {r}")
    one_x = f("fcmp oeq float %x, 1.0")
    zero_y = f("fcmp oeq float %y, 0.0")
    yinf = f(f"fcmp oeq float {ay}, 0x7FF0000000000000")
    mone = f("fcmp oeq float %x, -1.0")
    mone_inf = f(f"and i1 {mone}, {yinf}")
    one0 = f(f"or i1 {one_x}, {zero_y}")
    one = f(f"or i1 {one0}, {mone_inf}")
    r = f(f"select i1 {one}, float 1.0, float {r}")
    return _define("simt.vm.pow.f32", "float %x, float %y", "float", f, r)


def _tables() -> list[str]:
    his, los = table()
    out = []
    for name, vals in (("hi", his), ("lo", los)):
        body = ", ".join(f"double {_hex(v)}" for v in vals)
        out.append(f"@simt.vm.t2pi.{name} = internal unnamed_addr constant [{TABLE} x double] "
                   f"[{body}], align 8")  # fmt: skip
    return out


@cache
def helpers(kernel: str) -> dict[str, str]:
    """The module-level text the float32 kernel `kernel` (one of KERNELS, the `llvm_f32` of
    a math row) needs besides the declarations of INTRINSICS, keyed so that each piece is
    emitted once: tables and functions."""
    if kernel not in KERNELS:
        raise KeyError(f"no float32 kernel {kernel!r} in backends/llvm_math.py")
    name = kernel.split(".")[2]
    out: dict[str, str] = {}
    if name in ("exp", "tanh", "pow"):
        out["simt.vm.expd"] = _expd()
    if name in ("log", "pow"):
        out["simt.vm.logd"] = _logd()
    if name in ("sin", "cos"):
        for i, t in enumerate(_tables()):
            out[f"simt.vm.t2pi.{i}"] = t
    make = {"exp": _exp, "log": _log, "tanh": _tanh, "erf": _erf, "pow": _pow}
    out[kernel] = make[name]() if name in make else _trig(name)
    return out


__all__ = ["KERNELS", "constants", "helpers", "table"]
