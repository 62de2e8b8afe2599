"""The text of the LLVM functions the CPU renderer links into a kernel's module.

`ARITH` (Python's floor `//` and `%`, integer `**`), `MATH_HELPERS` (the math rows that are
neither an LLVM intrinsic nor one C library call), `FAIL_AT` (a failing access's report, out of
line and cold), `ENTRY_WITH_JUMP` (the entry of a kernel that polls for Ctrl-C) and
`VERSIONED_BLOCKS` (the block loop of a body versioned on a block-level test). Each is
text with `{t}`-style holes the renderer fills for the operands' type; the renderer adds only
those a kernel uses.
"""

from __future__ import annotations

from .llvm_abi import ERROR_RECORD, RECORD_DIMS

# The entry of a kernel that polls for Ctrl-C: a jump buffer for `simt_poll`, then the body;
# after a jump, the body's heap area (its address in the word after the buffer) is freed.
ENTRY_WITH_JUMP = """define void @{entry}(ptr noalias %args, ptr noalias %ctx, i64 %begin,
                                      i64 %end) {{
entry:
  %jb = alloca i64, i64 {slots}, align 16
  %heapp = getelementptr i64, ptr %jb, i64 {words}
  store volatile ptr null, ptr %heapp, align 8
  %r = call i32 @_setjmp(ptr %jb) returns_twice
  %first = icmp eq i32 %r, 0
  br i1 %first, label %run, label %stopped
run:
  call void @{body}(ptr %args, ptr %ctx, i64 %begin, i64 %end, ptr %jb)
  ret void
stopped:
  %heap = load volatile ptr, ptr %heapp, align 8
  call void @free(ptr %heap)
  ret void
}}"""


# The blocks of a kernel whose body is versioned on a block-level test: from each block not yet
# run, the run of blocks that pass the test (`{test}`, inlined: a few integer operations a block)
# through `{fast}` in one call, then the block that fails it, if any, through `{checked}`; that
# block runs unless a failure so far beats every thread of it (as a block loop's latch) or a
# copy found no memory for its arrays (`simt_may_run`), and after it the same holds for the
# next; each block that fails adds its threads to `{counter}` (`llvm_abi.CHECKED_THREADS`). `{jb}`:
# `, ptr noalias %jb` where the kernel polls for Ctrl-C (`{jbarg}`: `, ptr %jb`), else empty.
VERSIONED_BLOCKS = """define {linkage}void @{name}(ptr noalias %args, ptr noalias %ctx, i64 %begin,
                                      i64 %end{jb}) {attrs}{{
entry:
  %bx.p = getelementptr i64, ptr %args, i64 3
  %bx = load i64, ptr %bx.p, align 8
  %by.p = getelementptr i64, ptr %args, i64 4
  %by = load i64, ptr %by.p, align 8
  %bz.p = getelementptr i64, ptr %args, i64 5
  %bz = load i64, ptr %bz.p, align 8
  %bxy = mul i64 %bx, %by
  %threads = mul i64 %bxy, %bz
  br label %next
next:
  %b = phi i64 [%begin, %entry], [%after, %checked]
  br label %scan
scan:
  %r = phi i64 [%b, %next], [%r1, %pass]
  %more = icmp slt i64 %r, %end
  br i1 %more, label %try, label %run
try:
  %passes = call i1 @{test}(ptr %args, i64 %r)
  br i1 %passes, label %pass, label %run
pass:
  %r1 = add i64 %r, 1
  br label %scan
run:
  %some = icmp slt i64 %b, %r
  br i1 %some, label %fast, label %failing
fast:
  call void @{fast}(ptr %args, ptr %ctx, i64 %b, i64 %r{jbarg})
  br label %failing
failing:
  %left = icmp slt i64 %r, %end
  br i1 %left, label %go, label %done
go:
  %ok = call i1 @simt_may_run(ptr %ctx, i64 %r, i64 %threads)
  br i1 %ok, label %checked, label %done
checked:
  %after = add i64 %r, 1
  %counted = atomicrmw add ptr @{counter}, i64 %threads monotonic, align 8
  call void @{checked}(ptr %args, ptr %ctx, i64 %r, i64 %after{jbarg})
  %ok2 = call i1 @simt_may_run(ptr %ctx, i64 %after, i64 %threads)
  br i1 %ok2, label %next, label %done
done:
  ret void
}}
define internal i1 @simt_may_run(ptr %ctx, i64 %block, i64 %threads) alwaysinline {{
  %err = load atomic i64, ptr %ctx monotonic, align 8
  %first = mul i64 %block, %threads
  %key = shl i64 %first, {site_bits}
  %later = icmp sge i64 %err, %key
  %memory = icmp ne i64 %err, {no_memory}
  %ok = and i1 %later, %memory
  ret i1 %ok
}}"""

# Python's floor division and modulo, integer power: (operator, kind) -> function text.
ARITH: dict[tuple[str, str], str] = {
    ("floordiv", "i"): """define internal {t} @{name}({t} %a, {t} %b) alwaysinline {{
  %z = icmp eq {t} %b, 0
  %m1 = icmp eq {t} %b, -1
  %bad = or i1 %z, %m1
  %bs = select i1 %bad, {t} 1, {t} %b
  %q = sdiv {t} %a, %bs
  %r = srem {t} %a, %bs
  %rnz = icmp ne {t} %r, 0
  %x = xor {t} %r, %bs
  %neg = icmp slt {t} %x, 0
  %adj = and i1 %rnz, %neg
  %q1 = sub {t} %q, 1
  %qa = select i1 %adj, {t} %q1, {t} %q
  %na = sub {t} 0, %a
  %q2 = select i1 %m1, {t} %na, {t} %qa
  %q3 = select i1 %z, {t} 0, {t} %q2
  ret {t} %q3
}}""",
    ("mod", "i"): """define internal {t} @{name}({t} %a, {t} %b) alwaysinline {{
  %z = icmp eq {t} %b, 0
  %m1 = icmp eq {t} %b, -1
  %bad = or i1 %z, %m1
  %bs = select i1 %bad, {t} 1, {t} %b
  %r = srem {t} %a, %bs
  %rnz = icmp ne {t} %r, 0
  %x = xor {t} %r, %bs
  %neg = icmp slt {t} %x, 0
  %adj = and i1 %rnz, %neg
  %r1 = add {t} %r, %bs
  %ra = select i1 %adj, {t} %r1, {t} %r
  %r2 = select i1 %bad, {t} 0, {t} %ra
  ret {t} %r2
}}""",
    ("floordiv", "u"): """define internal {t} @{name}({t} %a, {t} %b) alwaysinline {{
  %z = icmp eq {t} %b, 0
  %bs = select i1 %z, {t} 1, {t} %b
  %q = udiv {t} %a, %bs
  %q2 = select i1 %z, {t} 0, {t} %q
  ret {t} %q2
}}""",
    ("mod", "u"): """define internal {t} @{name}({t} %a, {t} %b) alwaysinline {{
  %z = icmp eq {t} %b, 0
  %bs = select i1 %z, {t} 1, {t} %b
  %r = urem {t} %a, %bs
  %r2 = select i1 %z, {t} 0, {t} %r
  ret {t} %r2
}}""",
    ("floordiv", "f"): """define internal {t} @{name}({t} %a, {t} %b) alwaysinline {{
  %mod = frem {t} %a, %b
  %am = fsub {t} %a, %mod
  %div = fdiv {t} %am, %b
  %modnz = fcmp une {t} %mod, 0.0
  %bneg = fcmp olt {t} %b, 0.0
  %mneg = fcmp olt {t} %mod, 0.0
  %diff = xor i1 %bneg, %mneg
  %adj = and i1 %modnz, %diff
  %div1 = fsub {t} %div, 1.0
  %d = select i1 %adj, {t} %div1, {t} %div
  %fl = call {t} @llvm.floor.{sfx}({t} %d)
  %gap = fsub {t} %d, %fl
  %up = fcmp ogt {t} %gap, 0.5
  %fl1 = fadd {t} %fl, 1.0
  %fd = select i1 %up, {t} %fl1, {t} %fl
  %q = fdiv {t} %a, %b
  %z0 = call {t} @llvm.copysign.{sfx}({t} 0.0, {t} %q)
  %dnz = fcmp une {t} %d, 0.0
  %res = select i1 %dnz, {t} %fd, {t} %z0
  %bz = fcmp oeq {t} %b, 0.0
  %out = select i1 %bz, {t} %q, {t} %res
  ret {t} %out
}}""",
    ("mod", "f"): """define internal {t} @{name}({t} %a, {t} %b) alwaysinline {{
  %mod = frem {t} %a, %b
  %modnz = fcmp une {t} %mod, 0.0
  %bneg = fcmp olt {t} %b, 0.0
  %mneg = fcmp olt {t} %mod, 0.0
  %diff = xor i1 %bneg, %mneg
  %adj = and i1 %modnz, %diff
  %m1 = fadd {t} %mod, %b
  %m = select i1 %adj, {t} %m1, {t} %mod
  %z0 = call {t} @llvm.copysign.{sfx}({t} 0.0, {t} %b)
  %out = select i1 %modnz, {t} %m, {t} %z0
  ret {t} %out
}}""",
    ("pow", "i"): """define internal {t} @{name}({t} %a, {t} %e) alwaysinline {{
entry:
  %neg = icmp slt {t} %e, 0
  br i1 %neg, label %negative, label %loop
negative:
  %is1 = icmp eq {t} %a, 1
  %ism1 = icmp eq {t} %a, -1
  %odd = and {t} %e, 1
  %isodd = icmp ne {t} %odd, 0
  %pm = select i1 %isodd, {t} -1, {t} 1
  %r0 = select i1 %ism1, {t} %pm, {t} 0
  %r1 = select i1 %is1, {t} 1, {t} %r0
  ret {t} %r1
loop:
  %r = phi {t} [1, %entry], [%rn, %body]
  %x = phi {t} [%a, %entry], [%xn, %body]
  %k = phi {t} [%e, %entry], [%kn, %body]
  %more = icmp ne {t} %k, 0
  br i1 %more, label %body, label %done
body:
  %bit = and {t} %k, 1
  %set = icmp ne {t} %bit, 0
  %rx = mul {t} %r, %x
  %rn = select i1 %set, {t} %rx, {t} %r
  %xn = mul {t} %x, %x
  %kn = lshr {t} %k, 1
  br label %loop
done:
  ret {t} %r
}}""",
}
ARITH[("pow", "u")] = ARITH[("pow", "i")].replace("icmp slt {t} %e, 0", "icmp slt {t} 0, 0")


def fail_at_text() -> str:
    """`@simt.fail.at(ctx, key, ndim, 4 indices, 4 extents)`: a failing access's report, out
    of line and cold. The smallest key goes to the error word (an atomic min); the index and
    extents of the access with the smallest key are kept in the record after it, under a lock
    (context words `ERROR_RECORD`..), for the KernelError's message."""
    r = ERROR_RECORD
    params = ", ".join([f"i64 %i{k}" for k in range(RECORD_DIMS)]
                       + [f"i64 %s{k}" for k in range(RECORD_DIMS)])  # fmt: skip
    stores = []
    for k in range(RECORD_DIMS):
        stores.append(f"  %pi{k} = getelementptr i64, ptr %ctx, i64 {r + 3 + k}")
        stores.append(f"  store i64 %i{k}, ptr %pi{k}, align 8")
        stores.append(f"  %ps{k} = getelementptr i64, ptr %ctx, i64 {r + 3 + RECORD_DIMS + k}")
        stores.append(f"  store i64 %s{k}, ptr %ps{k}, align 8")
    body = "\n".join(stores)
    head = f"define internal void @simt.fail.at(ptr %ctx, i64 %key, i64 %nd, {params})"
    return f"""{head} noinline cold {{
entry:
  %old = atomicrmw min ptr %ctx, i64 %key monotonic
  %lockp = getelementptr i64, ptr %ctx, i64 {r}
  %keyp = getelementptr i64, ptr %ctx, i64 {r + 1}
  %ndp = getelementptr i64, ptr %ctx, i64 {r + 2}
  br label %spin
spin:
  %pair = cmpxchg ptr %lockp, i64 0, i64 1 acquire monotonic
  %got = extractvalue {{ i64, i1 }} %pair, 1
  br i1 %got, label %crit, label %spin
crit:
  %cur = load i64, ptr %keyp, align 8
  %less = icmp slt i64 %key, %cur
  br i1 %less, label %rec, label %unlock
rec:
  store i64 %key, ptr %keyp, align 8
  store i64 %nd, ptr %ndp, align 8
{body}
  br label %unlock
unlock:
  store atomic i64 0, ptr %lockp release, align 8
  ret void
}}"""


FAIL_AT = fail_at_text()


# Math rows (`builtins.MATH`) that are neither an LLVM intrinsic nor one C library call:
# helper name (a row's `llvm` spelling) -> (function text, the declarations it needs). `{t}`
# is the operand type, `{sfx}` its intrinsic suffix, `{fs}` the C float32 suffix, `{inf}`
# infinity; the integer ones read the instruction names of `SIGNED` / `UNSIGNED`.
SIGNED = {"itofp": "sitofp", "fptoi": "fptosi", "div": "sdiv", "rem": "srem", "gt": "sgt",
           "le": "sle", "lt": "slt"}  # fmt: skip
UNSIGNED = {"itofp": "uitofp", "fptoi": "fptoui", "div": "udiv", "rem": "urem", "gt": "ugt",
             "le": "ule", "lt": "ult"}  # fmt: skip
MATH_HELPERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "simt.math.frexp_mantissa": ("""define internal {t} @{name}({t} %x) alwaysinline {{
  %e = alloca i32
  %m = call {t} @frexp{fs}({t} %x, ptr %e)
  ret {t} %m
}}""", ("declare {t} @frexp{fs}({t}, ptr)",)),
    "simt.math.frexp_exponent": ("""define internal i32 @{name}({t} %x) alwaysinline {{
  %e = alloca i32
  %m = call {t} @frexp{fs}({t} %x, ptr %e)
  %r = load i32, ptr %e
  ret i32 %r
}}""", ("declare {t} @frexp{fs}({t}, ptr)",)),
    # x - trunc(x) with x's sign; 0 for infinities (as math.modf)
    "simt.math.modf_fraction": ("""define internal {t} @{name}({t} %x) alwaysinline {{
  %tr = call {t} @llvm.trunc.{sfx}({t} %x)
  %d = fsub {t} %x, %tr
  %ax = call {t} @llvm.fabs.{sfx}({t} %x)
  %inf = fcmp oeq {t} %ax, {inf}
  %f = select i1 %inf, {t} 0.0, {t} %d
  %r = call {t} @llvm.copysign.{sfx}({t} %f, {t} %x)
  ret {t} %r
}}""", ("declare {t} @llvm.trunc.{sfx}({t})", "declare {t} @llvm.fabs.{sfx}({t})",
          "declare {t} @llvm.copysign.{sfx}({t}, {t})")),
    # floor(sqrt(n)) from the float64 square root, corrected by one either way (enough for
    # 64-bit n: the estimate is within 1); -1 for n < 0
    "simt.math.isqrt": ("""define internal {t} @{name}({t} %n) alwaysinline {{
  %neg = icmp {lt} {t} %n, 0
  %d0 = {itofp} {t} %n to double
  %d = select i1 %neg, double 0.0, double %d0
  %s = call double @llvm.sqrt.f64(double %d)
  %r0 = {fptoi} double %s to {t}
  %z = icmp eq {t} %r0, 0
  %r0s = select i1 %z, {t} 1, {t} %r0
  %q0 = {div} {t} %n, %r0s
  %big = icmp {gt} {t} %r0, %q0
  %dec = zext i1 %big to {t}
  %r1 = sub {t} %r0, %dec
  %r1p = add {t} %r1, 1
  %q1 = {div} {t} %n, %r1p
  %small = icmp {le} {t} %r1p, %q1
  %inc = zext i1 %small to {t}
  %r2 = add {t} %r1, %inc
  %res = select i1 %neg, {t} -1, {t} %r2
  ret {t} %res
}}""", ("declare double @llvm.sqrt.f64(double)",)),
    # Euclid on magnitudes: never negative, gcd(0, 0) == 0
    "simt.math.gcd": ("""define internal {t} @{name}({t} %a0, {t} %b0) alwaysinline {{
entry:
  %na = sub {t} 0, %a0
  %an = icmp {lt} {t} %a0, 0
  %a = select i1 %an, {t} %na, {t} %a0
  %nb = sub {t} 0, %b0
  %bn = icmp {lt} {t} %b0, 0
  %b = select i1 %bn, {t} %nb, {t} %b0
  br label %loop
loop:
  %x = phi {t} [%a, %entry], [%y, %body]
  %y = phi {t} [%b, %entry], [%r, %body]
  %done = icmp eq {t} %y, 0
  br i1 %done, label %exit, label %body
body:
  %r = {rem} {t} %x, %y
  br label %loop
exit:
  ret {t} %x
}}""", ()),
    # a == b, or both finite and |a - b| <= max(rel_tol * max(|a|, |b|), abs_tol)
    "simt.math.isclose": ("""\
define internal i1 @{name}({t} %a, {t} %b, {t} %rt, {t} %at) alwaysinline {{
  %eq = fcmp oeq {t} %a, %b
  %fa = call {t} @llvm.fabs.{sfx}({t} %a)
  %fb = call {t} @llvm.fabs.{sfx}({t} %b)
  %fina = fcmp one {t} %fa, {inf}
  %finb = fcmp one {t} %fb, {inf}
  %d0 = fsub {t} %a, %b
  %d = call {t} @llvm.fabs.{sfx}({t} %d0)
  %m = call {t} @llvm.maxnum.{sfx}({t} %fa, {t} %fb)
  %s = fmul {t} %rt, %m
  %tol = call {t} @llvm.maxnum.{sfx}({t} %s, {t} %at)
  %le = fcmp ole {t} %d, %tol
  %fin = and i1 %fina, %finb
  %near = and i1 %fin, %le
  %r = or i1 %eq, %near
  ret i1 %r
}}""", ("declare {t} @llvm.fabs.{sfx}({t})", "declare {t} @llvm.maxnum.{sfx}({t}, {t})")),
    # |x| == inf, and |x| != inf and not NaN
    "simt.math.isinf": ("""define internal i1 @{name}({t} %x) alwaysinline {{
  %a = call {t} @llvm.fabs.{sfx}({t} %x)
  %r = fcmp oeq {t} %a, {inf}
  ret i1 %r
}}""", ("declare {t} @llvm.fabs.{sfx}({t})",)),
    "simt.math.isfinite": ("""define internal i1 @{name}({t} %x) alwaysinline {{
  %a = call {t} @llvm.fabs.{sfx}({t} %x)
  %r = fcmp one {t} %a, {inf}
  ret i1 %r
}}""", ("declare {t} @llvm.fabs.{sfx}({t})",)),
}  # fmt: skip
