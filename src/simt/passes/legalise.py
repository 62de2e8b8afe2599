"""What a target cannot compile, refused before rendering, at the user's line; and what its
device needs written differently, rewritten in the IR before rendering.

A renderer gets IR its language can say; what the language or the device lacks is found here,
as data (`Target`), not inside the renderer: types the device does not have (float64,
int64: `Runtime.has_float64()` / `has_int64()`), complex128 arguments without float64 (named
as the user wrote them, not as the two float64 parts the IR sees), math a language computes
in float32 precision only, a float64 `**`, atomics on elements the language has no atomics
for, a known index outside a shared or local array (a shader compiler refuses the
shader), and the device's limits: storage buffers one kernel binds, shared memory a block has.
WebGPU's runtime builds its `Target` from its adapter (`runtime/webgpu.py`); a target that
lacks nothing passes every kernel.

`check` only checks. `legalise` also rewrites, in place, what the target declares its
compilers get wrong, leaving the renderer only spellings:
- on a device that leaves an invocation's loops after a budget of iterations (`loop_limit`:
  Mesa's llvmpipe), every loop is followed by its condition, evaluated again on the values
  it left, and an `assert` that it is false (`_loop_checks`);
- where the compilers fold some 64-bit integer constants wrongly (`hide_wide_ints`), those
  constants are marked `HIDE` (`_hide_wide_ints`);
- where they contract and fold float arithmetic (`exact_float`: `a * b + c` fused into an
  FMA, `(x * 0.1) * 10` folded into `x`, `x / 0.0` folded to 0 as if floats were finite),
  float `+ - *` results that feed more of them are marked `EXACT`, and a division by a known
  zero or infinity divides by a `HIDE` copy of it (`_exact_float`); NumPy, the reference,
  does none of that;
- where they evaluate an expression of literals when the shader is made (`bind_literals`:
  WGSL, where `1 / 0`, an overflow or a float64 `round` of literals is an error there, not a
  value), the constants an op reads when all its operands are constants are marked `BIND`,
  and a float64 constant a math op reads `HIDE` (a row's spelling may apply a builtin to it
  alone, which naga evaluates and cannot for float64: `abs(1.0lf)` in copysign)
  (`_bind_literals`);
- where their integer `abs` is not the IR's at the minimum value (`wrapping_abs`: naga emits
  SAbs, which lavapipe's LLVM lowers with INT_MIN poison, so `abs(-2**31) >> t` then `% 64`
  gave garbage: fuzzer seed 21623), a signed `abs` is written `x < 0 ? 0 - x : x` with the
  IR's wrapping subtraction (`_wrapping_abs`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import CompileError
from ..ir import Block, Builder, Function, Op, Value, walk, walk_blocks
from ..ir.failures import LOOP_BUDGET, error_sites
from ..ir.ops import ATOMICS, BIND, EFFECTS, EXACT, HIDE, STRUCTURED
from ..types import FLOAT64, INT64, SHARED, UINT64, ArrayType, Scalar
from .rewrite import clone_op


@dataclass(frozen=True)
class Target:
    """What a target lacks. `backend`, `language` and `device` name it in messages ("webgpu",
    "WGSL", "the WebGPU adapter"); `float64` / `int64`: the device computes in them;
    `missing_math`: math rows the language has no spelling for; `float32_only_math`:
    math rows computed in float32 precision whatever the operand (refused on float64, and
    so is float64 `**` where `pow` is one of them); `atomic_bits`: atomics only on elements of
    this width (not bool; float32 emulated), None for any; `known_index_in_bounds`: a known
    index outside a shared or local array is a compile error of the language.

    What the device declares: `storage_buffers`, the most storage buffers one kernel binds (a
    kernel binds one per array argument, and one each for its failure records, its print
    records and their float64 values when it has them); `workgroup_bytes`, the shared memory
    of a block, where each shared element takes at least `shared_word` bytes; `loop_limit`,
    the loop iterations after which the device leaves an invocation's loops (None: never).

    What its compilers get wrong (rewritten by `legalise`): `hide_wide_ints`, some 64-bit
    integer constants; `exact_float`, float arithmetic contracted or folded as if exact;
    `bind_literals`, expressions of literals (evaluated when the program is made);
    `wrapping_abs`, a signed integer `abs` at the
    type's minimum."""

    backend: str
    language: str = ""
    device: str = ""
    missing_math: frozenset[str] = frozenset()
    float64: bool = True
    int64: bool = True
    float32_only_math: frozenset[str] = frozenset()
    atomic_bits: int | None = None
    known_index_in_bounds: bool = False
    storage_buffers: int | None = None
    workgroup_bytes: int | None = None
    shared_word: int = 1
    loop_limit: int | None = None
    hide_wide_ints: bool = False
    exact_float: bool = False
    bind_literals: bool = False
    wrapping_abs: bool = False


def legalise(fn: Function, target: Target) -> Function:
    """`fn` as `target` compiles it (changed in place, and returned; a second call changes
    nothing more): the target's rewrites (see the module doc), then `check`."""
    if target.loop_limit is not None:
        _loop_checks(fn.body, target.loop_limit)
    if target.hide_wide_ints:
        _hide_wide_ints(fn)
    if target.exact_float:
        _exact_float(fn)
    if target.wrapping_abs:
        _wrapping_abs(fn)
    if target.bind_literals:  # last: the rewrites above make constants too
        _bind_literals(fn)
    check(fn, target)
    return fn


def misread_int(v: int) -> bool:
    """Whether a 64-bit integer constant is one NVIDIA's Vulkan driver got wrong (it multiplied
    an int64 by 2147483648 as by -2147483648: the corpus case big_constants, H100 2026-11-26):
    those of magnitude 2**31 to 2**32 (a 32-bit pattern with its top bit set, which a driver
    may take for a sign-extended int32) and the powers of two from 2**31 (a multiply the
    driver makes a shift). Which of the two it got wrong is not established
    (docs/backends.md), so both are hidden."""
    m = abs(v) if v != -(2**63) else 2**63
    return m >= 2**31 and (m <= 2**32 or m & (m - 1) == 0)


def _hide_wide_ints(fn: Function) -> None:
    for op in walk(fn.body):
        t = op.results[0].type if op.opcode == "const" else None
        if isinstance(t, Scalar) and t.is_int and t.bits == 64:
            if misread_int(int(op.attrs["value"])):
                op.attrs[HIDE] = True


# ops whose operands, when all are literals, make an expression a compiler evaluates
_EXPRESSIONS = ("bin", "un", "cmp", "cast", "math", "select")


def _bind_literals(fn: Function) -> None:
    consts = {op.result.id: op for op in walk(fn.body) if op.opcode == "const"}
    for op in walk(fn.body):
        if op.opcode in _EXPRESSIONS and op.operands:
            every = all(v.id in consts for v in op.operands)
            for v in op.operands:
                c = consts.get(v.id)
                if c is None or c.attrs.get(HIDE):  # (HIDE: already a run-time value)
                    continue
                if op.opcode == "math" and v.type == FLOAT64:
                    # a math row's spelling may apply a builtin to one operand alone
                    # (copysign's `abs({0})`): naga evaluates that of a float64 literal, or
                    # of a `let` bound to one, and has no float64 `abs` ("Cannot apply math
                    # function to type"): the value comes from behind a run-time zero
                    c.attrs[HIDE] = True
                elif every:
                    c.attrs[BIND] = True


_ARITH = ("add", "sub", "mul")
_NOT_FINITE_DIVISORS = (0.0, math.inf, -math.inf)


def _exact_float(fn: Function) -> None:
    arith = [
        op
        for op in walk(fn.body)
        if op.opcode == "bin" and op.attrs["op"] in _ARITH and op.result.scalar.is_float
    ]
    fed = {v.id for op in arith for v in op.operands}
    for op in arith:
        if op.result.id in fed:
            op.attrs[EXACT] = True
    consts = {op.result.id: op for op in walk(fn.body) if op.opcode == "const"}
    for block in walk_blocks(fn.body):
        ops: list[Op] = []
        for op in block.ops:
            if op.opcode == "bin" and op.attrs["op"] == "div" and op.result.scalar.is_float:
                k = consts.get(op.operands[1].id)
                if k is not None and not k.attrs.get(HIDE):
                    if k.attrs["value"] in _NOT_FINITE_DIVISORS:
                        hidden = Op("const", [], [Value(k.result.type, k.result.hint)],
                                    {**k.attrs, HIDE: True}, [], k.loc)  # fmt: skip
                        ops.append(hidden)
                        op.operands = [op.operands[0], hidden.result]
            ops.append(op)
        block.ops = ops


def check(fn: Function, target: Target) -> None:
    """Raise the CompileError (at the user's line) of the first construct of `fn` that
    `target` cannot compile: its types first (arguments, then every value), then each op,
    then the device's limits."""
    _complex_args(fn, target)
    for p in fn.params:
        _value(fn, target, p.value, None)
    for op in walk(fn.body):
        for v in (*op.operands, *op.results):
            _value(fn, target, v, op)
    consts = {op.result.id: op.attrs["value"] for op in walk(fn.body) if op.opcode == "const"}
    for op in walk(fn.body):
        _op(fn, target, op, consts)
    _limits(fn, target)


def storage_buffers(fn: Function) -> int:
    """The storage buffers `fn` binds (see `Target`)."""
    arrays = sum(1 for p in fn.params if isinstance(p.value.type, ArrayType))
    prints = [op for op in walk(fn.body) if op.opcode == "print"]
    f64 = any(v.type == FLOAT64 for op in prints for v in op.operands)
    return arrays + bool(error_sites(fn, fn.checks_bounds)) + bool(prints) + f64


def shared_bytes(fn: Function, word: int = 1) -> int:
    """The bytes of `fn`'s shared arrays, each element taking at least `word` bytes."""
    total = 0
    for op in walk(fn.body):
        if op.opcode == "alloc" and op.result.array.space == SHARED:
            a = op.result.array
            n = int(np.prod(a.shape or (1,), dtype=np.int64))
            total += n * max(a.dtype.bits // 8, word)
    return total


def _limits(fn: Function, target: Target) -> None:
    if target.storage_buffers is not None:
        n = storage_buffers(fn)
        if n > target.storage_buffers:
            raise _error(
                fn,
                None,
                f"kernel {fn.name} needs {n} storage buffers (its array arguments plus "
                f"print and error buffers); {target.device} binds at most "
                f"{target.storage_buffers}",
                "pass fewer arrays (pack several into one)",
            )
    if target.workgroup_bytes is not None:
        shared = shared_bytes(fn, target.shared_word)
        if shared > target.workgroup_bytes:
            raise _error(
                fn,
                None,
                f"kernel {fn.name} uses {shared} bytes of shared memory; {target.device} "
                f"allows {target.workgroup_bytes}",
                "use smaller simt.shared.array tiles",
            )


def _wrapping_abs(fn: Function) -> None:
    for block in walk_blocks(fn.body):
        ops: list[Op] = []
        for op in block.ops:
            t = op.result.type if op.opcode == "un" and op.attrs["op"] == "abs" else None
            if not (isinstance(t, Scalar) and t.is_int and t.is_signed):
                ops.append(op)
                continue
            b = Builder(Block())
            b.loc = op.loc
            (x,) = op.operands
            zero = b.const(0, t)
            negative = b.cmp("lt", x, zero)
            b.op("select", [negative, b.bin("sub", zero, x), x], [t])
            b.block.ops[-1].results = [op.result]  # its uses read the select
            ops.extend(b.block.ops)
        block.ops = ops


# ops whose evaluation does something besides giving a value: a `while` condition holding one
# is not evaluated again after its loop
_REPEATS = EFFECTS | STRUCTURED | {"alloc"}


def _loop_checks(block: Block, limit: int) -> None:
    """After every loop in `block` (nested ones too) not checked yet: its condition evaluated
    again on the values it left, and `assert` that it is false (a KernelError at the loop's
    line saying the device left it: the loop may also never end). A flag cleared at the
    loop's own exit does not work: a shader compiler knows that exit is the only one and
    drops the check. A `for` carries its next counter value out for that; a `while` whose
    condition does something (a store, a print, a loop) is not checked."""
    ops: list[Op] = []
    for op in block.ops:
        for region in op.regions:
            _loop_checks(region, limit)
        ops.append(op)
        if op.opcode not in ("for", "while") or op.attrs.get(LOOP_BUDGET):
            continue
        after = Block()
        b = Builder(after)
        b.loc = op.loc
        if op.opcode == "while":
            cond = op.regions[0]
            if any(o.opcode in _REPEATS for o in walk(cond)):
                continue
            vmap = {a.id: r for a, r in zip(cond.args, op.results)}
            for o in cond.ops[:-1]:
                after.ops.append(clone_op(o, vmap))
            c = cond.ops[-1].operands[0]
            going = vmap.get(c.id, c)
        else:
            going = _for_going_on(b, op)
        op.attrs[LOOP_BUDGET] = limit
        check = b.op("assert", [b.un("not", going)], [], msg=None)
        check.attrs[LOOP_BUDGET] = limit
        ops.extend(after.ops)
    block.ops = ops


def _for_going_on(b: Builder, op: Op) -> Value:
    """Whether `for` loop `op` would go round again after its last iteration: its counter's
    next value (carried out of the loop as one more result) against its stop."""
    start, stop, step = op.operands[:3]
    (body,) = op.regions
    t = start.scalar
    carried = Value(t, "next")
    body.args.append(carried)
    term = body.ops[-1]
    step_op = Op("bin", [body.args[0], step], [Value(t, "next")], {"op": "add"}, [], op.loc)
    body.ops.insert(len(body.ops) - 1, step_op)
    term.operands.append(step_op.result)
    op.operands.append(start)
    end = Value(t, "next")
    op.results.append(end)
    sign = op.attrs.get("sign", 0)
    if sign > 0:
        return b.cmp("lt", end, stop)
    if sign < 0:
        return b.cmp("gt", end, stop)
    zero = b.const(0, t)
    up = b.bin("and", b.cmp("gt", step, zero), b.cmp("lt", end, stop))
    down = b.bin("and", b.cmp("lt", step, zero), b.cmp("gt", end, stop))
    return b.bin("or", up, down)


def _error(fn: Function, op: Op | None, message: str, hint: str | None) -> CompileError:
    loc = op.loc if op is not None else None
    if loc is None:
        return CompileError(message, fn.filename, hint=hint)
    return CompileError(message, loc.filename, loc.line, loc.col, loc.source_line, hint)


def _type(fn: Function, target: Target, t: Scalar, op: Op | None) -> None:
    if t == FLOAT64 and not target.float64:
        raise _error(
            fn,
            op,
            f"float64 is not available on {target.backend} with {target.device} "
            "(it reports no shader-f64 feature)",
            "use float32 arrays and values, or another backend",
        )
    if t in (INT64, UINT64) and not target.int64:
        raise _error(
            fn,
            op,
            f"{t} is not available on {target.backend} with {target.device} "
            "(it reports no shader-int64 feature)",
            f"use {'int32' if t == INT64 else 'uint32'} arrays and values, or another backend",
        )


def _value(fn: Function, target: Target, v: Value, op: Op | None) -> None:
    t = v.type
    if isinstance(t, ArrayType):
        _type(fn, target, t.dtype, op)
        if t.space != SHARED and t.shape is None:
            _type(fn, target, t.index, op)
    else:
        _type(fn, target, t, op)


def _complex_args(fn: Function, target: Target) -> None:
    """A complex128 argument (array or number) without float64: refused naming complex128
    (the IR only sees its float64 parts), at the first line that uses it."""
    if target.float64:
        return
    kinds = fn.attrs.get("complex_params", {})
    for p in fn.params:
        arg = p.name.removesuffix("__re").removesuffix("__im") if p.part else p.name
        kind = kinds.get(arg, "")
        if not kind.startswith("complex128"):
            continue
        use = next((op for op in walk(fn.body) if p.value in op.operands), None)
        fix = f"{arg}.astype(np.complex64)" if kind.endswith("array") else f"np.complex64({arg})"
        raise _error(
            fn,
            use,
            f"argument {arg!r} is a {kind}: complex128 on {target.backend} needs float64, "
            f"which {target.device} does not have (it reports no shader-f64 feature)",
            f"pass {fix} (two float32 parts), or use another backend",
        )


def _op(fn: Function, target: Target, op: Op, consts: dict[int, object]) -> None:
    k = op.opcode
    if target.known_index_in_bounds and k in ("load", "store", "atomic", "cas"):
        _known_index(fn, op, consts)
    if k == "math" and op.attrs["fn"] in target.missing_math:
        name = op.attrs["fn"]
        raise _error(
            fn,
            op,
            f"math.{name} is not available on {target.backend} ({target.language} has no {name})",
            f"write it from the functions {target.language} has, or use another backend",
        )
    if k == "math" and op.attrs["fn"] in target.float32_only_math:
        if any(v.scalar == FLOAT64 for v in op.operands):
            name = op.attrs["fn"]
            raise _error(
                fn,
                op,
                f"math.{name} of a float64 is not available on {target.backend} ("
                f"{target.language} computes it in float32 precision)",
                "compute it in float32 (simt.float32(x)), or use another backend",
            )
    elif k == "bin" and op.attrs["op"] == "pow" and op.result.scalar == FLOAT64:
        if "pow" in target.float32_only_math:  # `**` of floats is the `pow` row
            raise _error(
                fn,
                op,
                f"float64 ** is not available on {target.backend} "
                f"({target.language} computes pow in float32 precision)",
                "compute it in float32, or use an integer exponent known at compile time",
            )
    elif k in ATOMICS and target.atomic_bits is not None:
        a = op.operands[0].array
        dt = a.dtype
        if a.space != "local" and (dt.is_bool or dt.bits > target.atomic_bits):
            raise _error(
                fn,
                op,
                f"atomics on {dt} arrays are not available on {target.backend} "
                f"({target.language} atomics are {target.atomic_bits}-bit integers; float32 is "
                "emulated)",
                "use an int32, uint32 or float32 array",
            )


def _known_index(fn: Function, op: Op, consts: dict[int, object]) -> None:
    """A shared or local array indexed out of bounds by known values."""
    a = op.operands[0].array
    idx = op.operands[1 : 1 + a.ndim]
    if a.shape is None or not idx or not all(i.id in consts for i in idx):
        return
    known = [int(consts[i.id]) for i in idx]  # type: ignore[call-overload]
    if any(not 0 <= n < s for n, s in zip(known, a.shape)):
        where = ", ".join(map(str, known))
        raise _error(
            fn,
            op,
            f"index [{where}] is out of bounds for a {a.space} array of shape {a.shape}",
            "index within the array's shape",
        )
