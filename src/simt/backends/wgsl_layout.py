"""The interface of a WGSL kernel: what the runtime binds and fills, and the module text around
the kernel's body.

- one storage buffer per array parameter (`read` when the kernel never writes it; element
  types from `wgsl_storage`);
- one uniform struct `simt_P` with the scalar parameters, each array's shape and strides (in
  elements, the last stride is always 1), and the launch grid (`UniformField`, laid out by
  `layout_uniform`);
- the block shape as pipeline-overridable constants `simt_bx/by/bz`, so one WGSL text serves
  every block shape;
- the grid is dispatched as a linear number of workgroups folded into x, y (and z) when it
  has more than the adapter's per-dimension maximum (65,535); `block_idx` is rebuilt from
  the linear workgroup id and the grid in `simt_P`;
- an error buffer (one u32 per error site: the smallest linear thread id that failed there,
  then a failing access's record) when the kernel has `assert`s or checked accesses;
- a print buffer of records `[thread, seq, print id, values...]` when the kernel prints
  (float64 values go to a second buffer of f64, their record word is its index).

What the renderer made goes out as `WgslKernel`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir import Function, Op
from ..types import BOOL, FLOAT32, FLOAT64, INT32, INT64, UINT32, UINT64, ArrayType, Scalar
from .clike import Lines, value_name
from .wgsl_types import literal, wgsl_type

UNIFORM = "simt_P"  # the uniform struct's variable
BLOCK_OVERRIDES = ("simt_bx", "simt_by", "simt_bz")
# The error buffer: one word per error site (the smallest failing thread), then a record of
# one failing access: a lock, its thread and site, its number of dimensions, RECORD_DIMS
# indices (two words each: low, high) and RECORD_DIMS extents.
RECORD_DIMS = 4
RECORD_ARGS = 1 + 3 * RECORD_DIMS  # dimensions, index words (low, high), extents
RECORD_WORDS = 3 + RECORD_ARGS


@dataclass(frozen=True)
class Binding:
    """One binding of group 0: `kind` is "array" (parameter `param`), "params" (the uniform
    struct), "errors", "prints" or "prints64"; `read_only` for storage the kernel never
    writes."""

    index: int
    kind: str
    name: str
    param: int = -1
    read_only: bool = False


@dataclass(frozen=True)
class UniformField:
    """One member of the uniform struct: `source` says what the runtime writes there:
    ("scalar", param) | ("shape", param, dim) | ("stride", param, dim) | ("grid", axis) |
    ("blocks",) | ("zero",)."""

    name: str
    type: Scalar
    offset: int
    source: tuple[object, ...]


@dataclass
class WgslKernel:
    """A rendered kernel: the WGSL text and the layout the runtime binds and fills."""

    source: str
    bindings: list[Binding]
    uniform: list[UniformField]
    uniform_size: int
    print_formats: list[tuple[object, ...]] = field(default_factory=list)
    print_types: list[list[Scalar]] = field(default_factory=list)
    error_ops: list[Op] = field(default_factory=list)
    entry: str = "main"
    error_record: bool = False  # the error buffer ends with a failing access's record


def print_words(t: Scalar) -> int:
    """Words one printed value of type `t` takes in a print record."""
    return 2 if t in (INT64, UINT64) else 1


def bind_params(
    fn: Function, written: set[int], writable: frozenset[int]
) -> tuple[list[Binding], list[UniformField], dict[int, str]]:
    """The bindings of `fn`'s array parameters (read only unless `written` holds the array's
    value id or `writable` its position) and of the uniform struct, the struct's members (not
    laid out yet) and the text that reads each parameter, by value id."""
    bindings: list[Binding] = []
    uniform: list[UniformField] = []
    names: dict[int, str] = {}
    for i, p in enumerate(fn.params):
        v = p.value
        n = value_name(v)
        if isinstance(v.type, ArrayType):
            read_only = v.id not in written and i not in writable
            bindings.append(Binding(len(bindings), "array", n, i, read_only))
            idx = v.type.index
            for d in range(v.type.ndim):
                uniform.append(UniformField(f"{n}_shape{d}", idx, 0, ("shape", i, d)))
            for d in range(v.type.ndim - 1):
                uniform.append(UniformField(f"{n}_stride{d}", INT32, 0, ("stride", i, d)))
            names[v.id] = n
        else:
            t = v.scalar
            stored = UINT32 if t.is_bool else t
            uniform.append(UniformField(n, stored, 0, ("scalar", i)))
            member = f"{UNIFORM}.{n}"
            names[v.id] = f"({member} != 0u)" if t.is_bool else member
    for axis, a in enumerate("xyz"):
        uniform.append(UniformField(f"grid_{a}", UINT32, 0, ("grid", axis)))
    uniform.append(UniformField("blocks", UINT32, 0, ("blocks",)))
    uniform.append(UniformField("zero", UINT32, 0, ("zero",)))
    bindings.append(Binding(len(bindings), "params", UNIFORM))
    return bindings, uniform, names


def record_words(types: list[Scalar]) -> int:
    """The words of a print record of values of `types`: thread, sequence, print id, values."""
    return 3 + sum(print_words(t) for t in types)


def print_record(pid: int, types: list[Scalar], vals: list[str]) -> tuple[list[str], bool]:
    """The statements writing one print record `[thread, seq, print id, values...]` at `base`
    (where the buffer had room: `clike.CRenderer.op_print`); True when a float64 value went
    to the second buffer (`simt_prints64`: its record word is the index there)."""
    f64 = False
    lines = [
        "simt_prints.words[base] = simt_tid;",
        "simt_prints.words[base + 1u] = simt_seq;",
        f"simt_prints.words[base + 2u] = {pid}u;",
    ]
    w = 3
    for t, v in zip(types, vals):
        slot = f"simt_prints.words[base + {w}u]"
        if t in (INT64, UINT64):
            m = literal(0xFFFFFFFF, t)
            lines.append(f"{slot} = u32({v} & {m});")
            lines.append(f"simt_prints.words[base + {w + 1}u] = u32(({v} >> 32u) & {m});")
        elif t == FLOAT64:
            f64 = True
            j = f"j{w}"
            lines.append(f"let {j} = atomicAdd(&simt_prints64.head, 1u);")
            lines.append(f"if ({j} < arrayLength(&simt_prints64.values)) {{")
            lines.append(f"    simt_prints64.values[{j}] = {v};")
            lines.append("}")
            lines.append(f"{slot} = {j};")
        elif t in (INT32, FLOAT32):
            lines.append(f"{slot} = bitcast<u32>({v});")
        elif t == BOOL:
            lines.append(f"{slot} = select(0u, 1u, {v});")
        else:
            lines.append(f"{slot} = {v};")
        w += print_words(t)
    return lines, f64


def special(reg: str, axis: int) -> str:
    """Thread index `reg` (thread_idx, block_idx, block_dim, grid_dim) on `axis`, an i32."""
    a = "xyz"[axis]
    if reg == "thread_idx":
        return f"i32(simt_lid.{a})"
    if reg == "block_dim":
        return f"i32({BLOCK_OVERRIDES[axis]})"
    if reg == "grid_dim":
        return f"i32({UNIFORM}.grid_{a})"
    # block_idx: from the linear block id (x fastest), whatever the dispatch's shape
    if axis == 0:
        return f"i32(simt_block % {UNIFORM}.grid_x)"
    if axis == 1:
        return f"i32((simt_block / {UNIFORM}.grid_x) % {UNIFORM}.grid_y)"
    return f"i32(simt_block / ({UNIFORM}.grid_x * {UNIFORM}.grid_y))"


def layout_uniform(fields: list[UniformField]) -> tuple[list[UniformField], int]:
    """The uniform struct's members with their offsets, and its size in bytes: 8-byte members
    first, so every member is at its natural alignment with no padding."""
    out: list[UniformField] = []
    offset = 0
    for f in sorted(fields, key=lambda f: -(f.type.bits // 8)):
        size = max(f.type.bits // 8, 4)
        out.append(UniformField(f.name, f.type, offset, f.source))
        offset += size
    return out, (offset + 15) // 16 * 16


def assemble(
    fn: Function,
    body: str,
    bindings: list[Binding],
    uniform: list[UniformField],
    elems: dict[int, str],
    module_decls: list[str],
    helper_texts: list[str],
    prints: bool,
    f64_prints: bool,
    n_errors: int,
    record_index: bool,
) -> str:
    """The shader's text: overrides, the uniform and print structs, the bindings (`elems`: the
    element type of each array binding, by index), module-scope declarations, the error
    functions, the helpers, then `main` around `body` (the kernel's statements, indented)."""
    out = Lines()
    out.add(f"// simt kernel {fn.name}, from {fn.filename}")
    out.add("")
    for name in BLOCK_OVERRIDES:
        out.add(f"override {name}: u32 = 1u;")
    out.add("")
    out.open("struct SimtParams {")
    for f in uniform:
        out.add(f"{f.name}: {wgsl_type(f.type)},")
    out.close("}")
    if prints:
        out.open("struct SimtPrints {")
        out.add("head: atomic<u32>,")
        out.add("words: array<u32>,")
        out.close("}")
        if f64_prints:
            out.open("struct SimtPrints64 {")
            out.add("head: atomic<u32>,")
            out.add("pad: u32,")
            out.add("values: array<f64>,")
            out.close("}")
    out.add("")
    for b in bindings:
        head = f"@group(0) @binding({b.index})"
        if b.kind == "params":
            out.add(f"{head} var<uniform> {UNIFORM}: SimtParams;")
        elif b.kind == "array":
            access = "read" if b.read_only else "read_write"
            out.add(f"{head} var<storage, {access}> {b.name}: array<{elems[b.index]}>;")
        elif b.kind == "errors":
            out.add(f"{head} var<storage, read_write> simt_errors: array<atomic<u32>>;")
        elif b.kind == "prints":
            out.add(f"{head} var<storage, read_write> simt_prints: SimtPrints;")
        else:
            out.add(f"{head} var<storage, read_write> simt_prints64: SimtPrints64;")
    for decl in module_decls:
        out.add(decl)
    out.add("")
    out.add("var<private> simt_tid: u32;  // launch-wide linear thread id")
    if prints:
        out.add("var<private> simt_seq: u32;  // prints so far by this thread")
    if n_errors:
        out.add("var<private> simt_failed: bool;")
        out.add("")
        out.open("fn simt_fail(site: u32) {")
        out.add("// the first failure of a thread counts; the host reports the lowest thread")
        out.open("if (!simt_failed) {")
        out.add("simt_failed = true;")
        out.add("atomicMin(&simt_errors[site], simt_tid);")
        out.close()
        out.close()
        if record_index:
            base = n_errors  # after one word per site: the record (runtime)
            out.add(f"var<private> simt_at: array<u32, {RECORD_ARGS}>;")
            out.add("var<private> simt_at_site: u32 = 0xffffffffu;")
            out.add("")
            out.open(f"fn simt_fail_at(site: u32, at: array<u32, {RECORD_ARGS}>) {{")
            out.add("// a failing access: kept in private variables, reported once at the end")
            out.add("// of `main` (`simt_report_at`): every check stays a few stores, so a")
            out.add("// shader with many checked accesses compiles as fast as one with few")
            out.add("if (simt_failed) { return; }")
            out.add("simt_failed = true;")
            out.add("simt_at_site = site;")
            out.add("simt_at = at;")
            out.close()
            out.add("")
            out.open("fn simt_report_at() {")
            out.add("// keep the index of the failing access with the smallest (thread, site)")
            out.add("// under a lock; the lock is taken and released in one iteration. A thread")
            out.add("// that a smaller one beat (at its site, or in the record) keeps out: when")
            out.add("// all of a million threads fail, each taking the lock in turn on a GPU")
            out.add("// is minutes of contention on one word")
            out.add("let site = simt_at_site;")
            out.add("let at = simt_at;")
            out.add("atomicMin(&simt_errors[site], simt_tid);")
            out.add("var done = false;")
            out.open("loop {")
            out.add("if (done) { break; }")
            out.add(
                f"if (atomicLoad(&simt_errors[site]) < simt_tid"
                f" || atomicLoad(&simt_errors[{base + 1}u]) < simt_tid) {{ break; }}"
            )
            out.add(f"let r = atomicCompareExchangeWeak(&simt_errors[{base}u], 0u, 1u);")
            out.open("if (r.exchanged) {")
            out.add(f"let t = atomicLoad(&simt_errors[{base + 1}u]);")
            out.add(f"let s = atomicLoad(&simt_errors[{base + 2}u]);")
            out.open("if (simt_tid < t || (simt_tid == t && site < s)) {")
            out.add(f"atomicStore(&simt_errors[{base + 1}u], simt_tid);")
            out.add(f"atomicStore(&simt_errors[{base + 2}u], site);")
            out.open(f"for (var k = 0u; k < {RECORD_ARGS}u; k++) {{")
            out.add(f"atomicStore(&simt_errors[{base + 3}u + k], at[k]);")
            out.close()
            out.close()
            out.add(f"atomicStore(&simt_errors[{base}u], 0u);")
            out.add("done = true;")
            out.close()
            out.close()
            out.close()
    for text in helper_texts:
        out.add("")
        for line in text.splitlines():
            out.add(line)
    out.add("")
    out.add("@compute @workgroup_size(simt_bx, simt_by, simt_bz)")
    out.open("fn main(")
    out.add("@builtin(local_invocation_id) simt_lid: vec3<u32>,")
    out.add("@builtin(local_invocation_index) simt_lix: u32,")
    out.add("@builtin(workgroup_id) simt_wid: vec3<u32>,")
    out.add("@builtin(num_workgroups) simt_nwg: vec3<u32>,")
    out.close(") {")
    out.depth += 1
    out.add("// the linear block id: grids wider than the adapter allows are folded into y, z")
    out.add(
        "let simt_block = simt_wid.x + simt_nwg.x * (simt_wid.y + simt_nwg.y * simt_wid.z);"
    )
    out.add(f"if (simt_block >= {UNIFORM}.blocks) {{ return; }}")
    out.add("simt_tid = simt_block * (simt_bx * simt_by * simt_bz) + simt_lix;")
    out.depth -= 1
    tail = ""
    if n_errors and record_index:  # the body has no `return`: every thread ends here
        tail = "    if (simt_at_site != 0xffffffffu) { simt_report_at(); }\n"
    text = out.text() + body + tail + "}\n"
    return text
