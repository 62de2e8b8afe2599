"""What a target cannot compile, refused before rendering, at the user's line.

A renderer gets IR its language can say; what the language or the device lacks is found here,
as data (`Target`), not inside the renderer: types the device does not have (float64,
int64: `Runtime.has_float64()` / `has_int64()`), complex128 arguments without float64 (named
as the user wrote them, not as the two float64 parts the IR sees), math a language computes
in float32 precision only, a float64 `**`, atomics on elements the language has no atomics
for, and a known index outside a shared or local array (a shader compiler refuses the
shader). WebGPU's runtime builds its `Target` from its adapter (`runtime/webgpu.py`); a
target that lacks nothing passes every kernel.

Only checks: the IR is not changed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import CompileError
from ..ir import Function, Op, Value, walk
from ..ir.ops import ATOMICS
from ..types import FLOAT64, INT64, SHARED, UINT64, ArrayType, Scalar


@dataclass(frozen=True)
class Target:
    """What a target lacks. `backend`, `language` and `device` name it in messages ("webgpu",
    "WGSL", "the WebGPU adapter"); `float64` / `int64`: the device computes in them;
    `missing_math`: math rows the language has no spelling for; `float32_only_math`:
    math rows computed in float32 precision whatever the operand (refused on float64);
    `float64_pow`: `**` on float64 is exact enough; `atomic_bits`: atomics only on elements of
    this width (not bool; float32 emulated), None for any; `known_index_in_bounds`: a known
    index outside a shared or local array is a compile error of the language."""

    backend: str
    language: str = ""
    device: str = ""
    missing_math: frozenset[str] = frozenset()
    float64: bool = True
    int64: bool = True
    float32_only_math: frozenset[str] = frozenset()
    float64_pow: bool = True
    atomic_bits: int | None = None
    known_index_in_bounds: bool = False


def check(fn: Function, target: Target) -> None:
    """Raise the CompileError (at the user's line) of the first construct of `fn` that
    `target` cannot compile: its types first (arguments, then every value), then each op."""
    _complex_args(fn, target)
    for p in fn.params:
        _value(fn, target, p.value, None)
    for op in walk(fn.body):
        for v in (*op.operands, *op.results):
            _value(fn, target, v, op)
    consts = {op.result.id: op.attrs["value"] for op in walk(fn.body) if op.opcode == "const"}
    for op in walk(fn.body):
        _op(fn, target, op, consts)


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
            f"math.{name} is not available on {target.backend} ({target.language} has no "
            f"{name})",
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
        if not target.float64_pow:
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
