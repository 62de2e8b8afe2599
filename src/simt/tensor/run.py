"""Running a component: inputs to arrays, plans to compiled kernels (cached), launches.

`prepare_inputs` is the one place that turns what a user passes into arrays a kernel takes;
`Program` is a component compiled for one set of input types, ranks, grid layouts and backend:
its kernels are ordinary `simt.Kernel`s whose IR comes from `lower` instead of the Python front
end, so the runtime's compile (and its disk cache), launches, the cost model and the benchtool
all work on them unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .. import types as T
from ..array import DeviceArray
from ..errors import LaunchError
from ..foreign import cuda_interface
from ..ir import format_function
from ..kernel import Kernel
from ..runtime import registry
from ..runtime.base import Runtime
from ..runtime.cpu_fast import FAILED, OTHER_ARGUMENTS
from . import gemm
from . import shapes as S
from .graph import Graph, Ref
from .lower import ROW_THREADS, Layout, lower, node_types, thread_layout
from .plan import KernelPlan, Plan, plan

# dtypes kernels read as they are; others are converted on the host first (see docs/tensor.md)
_KEPT = {"float32", "float64", "int32", "int64", "uint32"}
# NumPy's dtype objects of those (native byte order; an equal dtype that is another object
# only misses `signature`'s quick path)
_KEPT_IDS = frozenset(
    id(np.dtype(c)) for c in "bhilqBHILQefdg" if np.dtype(c).name in _KEPT
)
_CONVERT = {
    "bool": np.int32, "int8": np.int32, "int16": np.int32, "uint8": np.int32,
    "uint16": np.int32, "float16": np.float32,
}  # fmt: skip
COOPERATIVE_MAX_OUTPUTS = 4096  # a reduction with fewer outputs than this ...
COOPERATIVE_MIN_REDUCED = 256  # ... over at least this many elements each runs a block per output
# a reduction whose threads would read far apart (no input contiguous along the output's last
# axis, e.g. a row sum of a C-ordered matrix) runs a block per output from this many elements
COOPERATIVE_MIN_ROW = 64
# a reduction to fewer outputs than this over at least this many elements each is split: a
# block per chunk of SPLIT_CHUNK elements or more (at most SPLIT_MAX_CHUNKS), then a second
# kernel combines each output's partial results (`+ij~.` of a large matrix fills every core)
SPLIT_MAX_OUTPUTS = 64
SPLIT_MIN_REDUCED = 65536
SPLIT_CHUNK = 16384
SPLIT_MAX_CHUNKS = 64


@dataclass
class Inputs:
    """The component's inputs as kernel arguments, with their element types and shapes."""

    arrays: list[Any]  # np.ndarray or DeviceArray (rank-0 values as 1-element arrays)
    types: list[T.Scalar]
    shapes: list[tuple[int, ...]]  # the user's shapes (() for scalars)
    on_device: bool  # some input was a device array: outputs stay on the device


def kernel_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype index-expression kernels read an input of `dtype` as (bool, small ints and
    float16 are widened on the host first; see docs/tensor.md)."""
    return np.dtype(_CONVERT.get(dtype.name, dtype))


def python_float_dtype(values: Sequence[Any]) -> np.dtype[Any]:
    """The dtype a Python float input takes (NEP 50's weak floats, as in kernels): float64 when
    some other input holds float64 data (an array or a NumPy scalar of float64 or complex128,
    on the host, on a simt device or behind `__cuda_array_interface__`), else float32."""
    for v in values:
        dtype = getattr(v, "dtype", None)
        if dtype is None:
            cai = cuda_interface(v)
            dtype = None if cai is None else cai["typestr"]
        if dtype is not None and np.dtype(dtype).name in ("float64", "complex128"):
            return np.dtype(np.float64)
    return np.dtype(np.float32)


def host_array(k: int, v: Any, float_dtype: Any = np.float32) -> np.ndarray:
    """Input `k` (a NumPy array, a number, a nested list) as the NumPy array kernels read:
    a Python float as `float_dtype` (`python_float_dtype` of all inputs), nested lists of
    floats float32, dtypes converted (`kernel_dtype`); LaunchError for others."""
    if isinstance(v, np.ndarray):
        a = v
    elif isinstance(v, (bool, np.bool_)):
        a = np.array(int(v), np.int32)
    elif isinstance(v, int) and not isinstance(v, bool):
        a = np.array(v, np.int32 if -(2**31) <= v < 2**31 else np.int64)
    elif isinstance(v, float):
        a = np.array(v, float_dtype)  # weak, as in kernels: the other inputs' width
    elif isinstance(v, np.generic):
        a = np.asarray(v)
    elif isinstance(v, (list, tuple)):
        try:
            a = np.asarray(v)
        except ValueError:
            raise LaunchError(
                f"input {k} is a ragged nested list; give rows of one length"
            ) from None
        if a.dtype == np.float64:
            a = a.astype(np.float32)  # lists of floats are float32 data
        elif a.dtype == np.int64 and a.size and -(2**31) <= a.min() and a.max() < 2**31:
            a = a.astype(np.int32)
    else:
        raise LaunchError(
            f"input {k} is a {type(v).__name__}; index expressions take NumPy arrays, simt "
            "device arrays, nested lists and numbers"
        )
    name = a.dtype.name
    if name in _CONVERT:
        a = a.astype(_CONVERT[name])
    elif name not in _KEPT:
        raise LaunchError(
            f"input {k} has dtype {a.dtype}, which index expressions do not take; convert it to "
            "a float or integer dtype (e.g. a.astype(np.float32))"
        )
    return a


def prepare_inputs(values: Sequence[Any], rt: Runtime) -> Inputs:
    """What the user passed, as arrays for `rt`'s kernels (one function, so that another kind of
    array can be accepted with a small hook here)."""
    arrays: list[Any] = []
    types: list[T.Scalar] = []
    shapes: list[tuple[int, ...]] = []
    on_device = False
    weak = python_float_dtype(values)
    for k, v in enumerate(values):
        if isinstance(v, DeviceArray):
            if v.runtime is not rt:
                raise LaunchError(
                    f"input {k} lives on backend {v.runtime.name!r} but this runs on "
                    f"{rt.name!r}; copy it with .numpy() or make it on this backend"
                )
            t = T.scalar_of_dtype(v.dtype)
            if t is None or t == T.BOOL:
                raise LaunchError(
                    f"input {k} has dtype {v.dtype}, which index expressions do not take"
                )
            arrays.append(v)
            types.append(t)
            shapes.append(v.shape)
            on_device = True
            continue
        cai = cuda_interface(v)
        if cai is not None:
            t = T.scalar_of_dtype(np.dtype(cai["typestr"]))
            if t is None or t == T.BOOL:
                raise LaunchError(
                    f"input {k} has dtype {cai['typestr']}, which index expressions do not take"
                )
            arrays.append(v)
            types.append(t)
            shapes.append(tuple(cai["shape"]))
            on_device = True
            continue
        a = host_array(k, v, weak)
        if a.size >= 2**31:
            raise LaunchError(
                f"input {k} has {a.size} elements; index expressions take fewer than 2**31"
            )
        shapes.append(a.shape)
        if a.ndim == 0:
            a = a.reshape(1)
        types.append(T.scalar_of_dtype(a.dtype))  # type: ignore[arg-type]
        if not rt.host_memory:
            arrays.append(DeviceArray(rt, rt.upload(np.ascontiguousarray(a)), a.shape, a.dtype))
        else:
            arrays.append(a)
    return Inputs(arrays, types, shapes, on_device)


@dataclass
class Step:
    """One kernel of a program and how to launch it."""

    kp: KernelPlan
    kernel: Kernel
    layout: Layout | None
    note: str = ""
    finish: Kernel | None = None  # a split reduction's second kernel
    # a register-tiled GEMM's packing kernels, run first: ("u" or "v", kernel)
    packs: list[tuple[str, Kernel]] = field(default_factory=list)
    per_block: bool = False  # a GEMM thread is a block (`spmd` runtimes: the CPU)


@dataclass
class Program:
    """A component compiled for one input signature and backend."""

    graph: Graph
    plan: Plan
    steps: list[Step]
    types: list[T.Scalar]
    notes: list[str] = field(default_factory=list)


_plans: dict[str, Plan] = {}
_programs: dict[Any, Program] = {}


def get_plan(g: Graph) -> Plan:
    key = g.key()
    p = _plans.get(key)
    if p is None:
        p = _plans[key] = plan(g)
    return p


def choices(g: Graph, p: Plan, extents: list[dict[str, int]]) -> tuple[Any, ...]:
    """The shape-dependent decisions: a thread kernel's grid layout, and whether a reduction
    with few outputs runs cooperatively (a block per output)."""
    out: list[Any] = []
    for kp in p.kernels:
        e = g.nodes[kp.root].expr
        ext = extents[kp.root]
        if kp.tiling is not None:
            out.append(("gemm",))
            continue
        if kp.cooperative_root:
            outputs = math.prod(ext[a] for a in e.output)
            reduced = math.prod(ext[a] for a in e.reduced)
            few = outputs < COOPERATIVE_MAX_OUTPUTS and reduced >= COOPERATIVE_MIN_REDUCED
            gather = not kp.x_contiguous and reduced >= COOPERATIVE_MIN_ROW
            if outputs < SPLIT_MAX_OUTPUTS and reduced >= SPLIT_MIN_REDUCED:
                chunks = min(SPLIT_MAX_CHUNKS, max(2, reduced // SPLIT_CHUNK))
                out.append(("split", ROW_THREADS, chunks))
                continue
            if few or gather:
                out.append(("coop", row_threads(reduced)))
                continue
        if kp.form == "thread":
            out.append(thread_layout(e, ext))
            continue
        per_row = math.prod(ext[a] for a in e.output if a not in kp.row)
        for n, _ in kp.row_values:
            e2 = g.nodes[n].expr
            per_row = max(per_row, math.prod(extents[n][a] for a in e2.reduced))
        out.append(("row", row_threads(per_row)))
    return tuple(out)


def row_threads(work: int) -> int:
    """Threads of a row kernel's block for `work` elements per row: about 32 per thread, from
    32 to `ROW_THREADS` (a short row wastes no lanes on an idle tree; a long one fills them)."""
    t = 32
    while t < ROW_THREADS and t * 32 < work:
        t *= 2
    return t


def program(
    g: Graph, types: list[T.Scalar], ranks: list[int], backend: str, chosen: tuple[Any, ...]
) -> Program:
    """The compiled program for these input types/ranks, layouts and backend (cached)."""
    key = (g.key(), tuple(t.name for t in types), tuple(ranks), backend, chosen)
    prog = _programs.get(key)
    if prog is not None:
        return prog
    from ..pipeline import finish as passes

    p = get_plan(g)
    ntypes = node_types(g, types)
    steps = []
    for kp, choice in zip(p.kernels, chosen):
        layout = choice if isinstance(choice, Layout) else None
        if layout is None and choice[0] != "gemm":
            kp = replace(kp, threads=choice[1])
        second = None
        if layout is None and choice[0] == "split":
            kp = replace(kp, form="split", chunks=choice[2])
            kp.notes = [
                f"split reduction: {choice[2]} blocks of {kp.threads} threads per output element, "
                "then a kernel combining their partial results"
            ]
            fin = lower(g, replace(kp, form="finish"), ntypes, types, ranks, None, f"t{kp.root}_2")
            second = Kernel.from_ir(passes(fin), f"{g.nodes[kp.root].expr} (partial results)")
        if layout is None and choice[0] == "coop":
            e = g.nodes[kp.root].expr
            kp = replace(kp, form="row", row=tuple(e.output),
                         row_values=[(kp.root, tuple(e.output))])  # fmt: skip
            kp.notes = [
                f"cooperative reduction: one block of {kp.threads} threads per output element"
            ]
        e = g.nodes[kp.root].expr
        doc = f"{e} -> t{kp.root}"
        note = "; ".join([*kp.notes, p.notes.get(kp.root, "")]).strip("; ")
        if kp.tiling is not None:
            steps.append(_gemm_step(kp, kp.tiling, ntypes, types, backend, doc, note))
            continue
        fn = lower(g, kp, ntypes, types, ranks, layout, f"t{kp.root}")
        fn = passes(fn)
        steps.append(Step(kp, Kernel.from_ir(fn, doc), layout, note, second))
    prog = Program(g, p, steps, ntypes)
    if len(_programs) > 512:
        _programs.clear()
    _programs[key] = prog
    return prog


def _gemm_step(kp: KernelPlan, t: gemm.Tiling, ntypes: list[T.Scalar], types: list[T.Scalar],
               backend: str, doc: str, note: str) -> Step:  # fmt: skip
    """A register-tiled GEMM's step: its packing kernels and the GEMM kernel (`gemm.py`)."""
    from ..pipeline import finish as passes

    def elem(ref: Ref) -> T.Scalar:
        return types[ref[1]] if ref[0] == "in" else ntypes[ref[1]]

    a_t, b_t = elem(t.a.ref), elem(t.b.ref)
    packs = []
    per_block = registry.has(backend, "spmd")
    for which, on, et in (("u", t.pack_u, a_t), ("v", t.pack_v, b_t)):
        if on:
            fn = passes(gemm.lower_pack(t, which, et, et, f"t{kp.root}_pack_{which}", per_block))
            kernel = Kernel.from_ir(fn, f"{doc} (packing an operand)")
            kernel.advice_shown = True  # (blocks of one thread on the CPU, as the GEMM's)
            packs.append((which, kernel))
    if t.dot:  # the dot-product micro-kernel: threads as on the CPU everywhere
        fn = gemm.lower_dot(t, ntypes[kp.root], a_t, b_t, f"t{kp.root}", per_block)
    elif per_block:  # the CPU: a thread a block, its tile loop one lane wide
        fn = gemm.lower_gemm(t, ntypes[kp.root], a_t, b_t, f"t{kp.root}", per_block)
    else:  # GPUs: blocks of threads staging the panels in shared memory
        fn = gemm.lower_gemm_shared(t, ntypes[kp.root], a_t, b_t, f"t{kp.root}", GEMM_BLOCK)
    fn = passes(fn)
    kernel = Kernel.from_ir(fn, doc)
    # blocks of one thread on the CPU are the schedule's (a thread is a block), not waste: no
    # launch advice about them
    kernel.advice_shown = True
    return Step(kp, kernel, None, note, packs=packs, per_block=per_block)


GEMM_BLOCK = (8, 8)  # threads of a GEMM block where a thread is not a block (GPUs)


def launch_shape(
    step: Step, g: Graph, ext: dict[str, int]
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(grid, block) of a step for these extents; None when there is nothing to compute."""
    e = g.nodes[step.kp.root].expr
    if any(ext[a] == 0 for a in e.output):
        return None
    t = step.kp.tiling
    if t is not None:
        if step.per_block:
            return gemm.grid_of(t, ext), (1, 1)
        bx, by = GEMM_BLOCK
        if t.dot:  # a thread per strip and row block (`gemm.lower_dot`), in blocks of bx x by
            gx, gy = gemm.grid_of(t, ext)
            return (-(-gx // bx), -(-gy // by)), GEMM_BLOCK
        return (-(-ext[t.v] // (bx * t.nr)), -(-ext[t.u] // (by * t.mr))), GEMM_BLOCK
    if step.kp.form == "split":
        rows = math.prod(ext[a] for a in e.output)
        return (rows * step.kp.chunks,), (step.kp.threads,)
    if step.kp.form == "row":
        rows = math.prod(ext[a] for a in step.kp.row)
        return (rows,), (step.kp.threads,)
    lay = step.layout
    assert lay is not None
    if not e.output:
        return (1,), (1,)
    if lay.flat:
        total = math.prod(ext[a] for a in e.output)
        return (-(-total // lay.block[0]),), lay.block
    grid = tuple(-(-ext[a] // lay.block[d]) for d, a in enumerate(reversed(lay.order)))
    return grid, lay.block


def compile_for(g: Graph, inp: Inputs, backend: str) -> tuple[Program, list[dict[str, int]]]:
    """The program for these inputs on `backend`, and every node's extents. On a backend whose
    blocks run as vector lanes (the CPU), a contraction with no GEMM directives written gets
    `gemm.default_directives` (a peer's `| splits | order` on it is a hint they replace)."""
    extents = S.infer(g, inp.shapes)
    g = effective_graph(g, inp, backend, extents)
    p = get_plan(g)
    ranks = [len(s) for s in inp.shapes]
    return program(g, inp.types, ranks, backend, choices(g, p, extents)), extents


def effective_graph(g: Graph, inp: Inputs, backend: str,
                    extents: list[dict[str, int]] | None = None) -> Graph:  # fmt: skip
    """The graph `backend` runs for these inputs: `g`, with `gemm.default_directives` on its
    contractions on a backend whose blocks run as vector lanes (`compile_for`), or on a GPU
    (a runtime that hides latency with many threads: its shared-memory form)."""
    gpu = registry.has(backend, "latency_hiding")
    if not (registry.has(backend, "spmd") or gpu):
        return g
    extents = extents if extents is not None else S.infer(g, inp.shapes)
    threads, lanes = 1, 0
    if not gpu:  # the CPU's threads and vector width (a GPU is compiled for without one here)
        rt = registry.get(backend)
        threads, lanes = getattr(rt, "threads", 1), rt.device_facts().group_width
    return with_default_gemms(g, get_plan(g), extents, node_types(g, inp.types), inp.types,
                              gpu, threads, lanes)  # fmt: skip


def with_default_gemms(g: Graph, p: Plan, extents: list[dict[str, int]],
                       ntypes: list[T.Scalar], types: list[T.Scalar],
                       gpu: bool = False, threads: int = 1, lanes: int = 0) -> Graph:  # fmt: skip
    """`g` with `gemm.default_directives` on each contraction kernel that has none written
    (`threads`, `lanes`: the CPU's threads and float32 lanes a vector)."""
    from .graph import Node
    from .parse import parse

    nodes = list(g.nodes)
    for kp in p.kernels:
        if kp.tiling is not None or kp.form != "thread":
            continue
        e = g.nodes[kp.root].expr
        operand_types = [types[r[1]] if r[0] == "in" else ntypes[r[1]] for r in kp.reads]
        floats = len(operand_types) == 2 and all(t.is_float for t in operand_types)
        size = max(t.np.itemsize for t in operand_types) if floats else 0
        directives = gemm.default_directives(g, kp.root, kp.reads, extents[kp.root], size, gpu,
                                             threads, lanes)  # fmt: skip
        if directives is not None:
            nodes[kp.root] = Node(parse(f"{e.body()} | {directives}", e.where),
                                  g.nodes[kp.root].args)  # fmt: skip
    if nodes == list(g.nodes):
        return g
    return Graph(g.n_inputs, tuple(nodes), g.outputs)


@dataclass
class Launches:
    """A program's launches for one set of input types and shapes on one runtime: per step,
    its output buffer's shape and dtype, the launcher and where its arguments come from (an
    index into the buffers: the inputs, then each step's output), and how each output is
    given back. `run` needs only the input arrays; `execute` makes one per call, and
    `Component.exec` keeps them per input signature (the fast path of a repeated call)."""

    runtime: Runtime
    # per step: (buffer shape, dtype, launcher or None (nothing to compute), argument buffers,
    # a split reduction's partial-results shape and second launcher, or None, a GEMM's
    # packings: (argument position, packed shape, packing launcher) each)
    steps: list[tuple[tuple[int, ...], Any, Any, tuple[int, ...], Any, Any]]
    # per output: (buffer index, shape, whether it is an input (given back as a copy))
    outputs: list[tuple[int, tuple[int, ...], bool]]
    on_device: bool
    # host memory: the GEMMs' packed operands of an earlier call, each call's set in order,
    # for the next call to pack into (taken with `pop`, one per call at a time: a call on
    # another Python thread meanwhile makes its own). Fresh ones cost their pages' first
    # touch: matmul 2048 packs 32 MB a call, 15 ms of one core's time to fault in.
    scratch: list[list[Any]] = field(default_factory=list)
    # the buffer `run` gives back as it is (host memory, one output, a step's own buffer of
    # the output's shape), else -1: `finish` and `_output` would only pass it on
    direct: int = -1
    n_in: int = 0  # the component's inputs
    # `quick`'s fast launches, a step each (None: no launch), made after the first call that
    # ran (`run`); None before, [] where there are none or a call dropped them (see `quick`)
    quick: list[Any] | None = None


def launches(g: Graph, inp: Inputs, rt: Runtime) -> Launches:
    """The launches of `g`'s program on these inputs (compiled if new)."""
    prog, extents = compile_for(g, inp, rt.name)
    where: dict[Ref, int] = {("in", k): k for k in range(len(inp.arrays))}
    steps = []
    for step in prog.steps:
        n = step.kp.root
        shape = S.output_shape(g, extents, n)
        alloc = shape if shape else (1,)
        dtype = prog.types[n].np
        reads = tuple(where[r] for r in step.kp.reads)
        t = step.kp.tiling
        packs: list[tuple[int, tuple[int, ...], Any]] = []
        if t is not None:  # a GEMM reads (a, b), each packed first where its schedule says
            reads = (where[t.a.ref], where[t.b.ref])
            for which, kernel in step.packs:
                ps = gemm.packed_shape(t, which, extents[n])
                # nothing to pack when k is empty (the GEMM then stores zeros)
                config_ = gemm.pack_launch(t, which, extents[n], step.per_block)
                pack = kernel.config(*config_) if config_ is not None else None
                packs.append((0 if which == "u" else 1, ps, pack))
        where[("node", n)] = len(where)
        config = launch_shape(step, g, extents[n])
        launcher = None if config is None else step.kernel.config(*config)
        split = None
        if config is not None and step.finish is not None:
            part_shape = (math.prod(alloc), step.kp.chunks)
            split = (part_shape, step.finish.config((-(-part_shape[0] // 256),), (256,)))
        steps.append((alloc, dtype, launcher, reads, split, tuple(packs)))
    outputs = []
    for ref in g.outputs:
        if ref[0] == "in":
            shape = inp.shapes[ref[1]]
        else:
            shape = S.output_shape(g, extents, ref[1])
        outputs.append((where[ref], shape, ref[0] == "in"))
    lp = Launches(rt, steps, outputs, inp.on_device, n_in=len(inp.arrays))
    if rt.host_memory and not inp.on_device and len(outputs) == 1:
        k, shape, is_input = outputs[0]
        if not is_input and steps[k - len(inp.arrays)][0] == shape:
            lp.direct = k
    return lp


def run(lp: Launches, arrays: Sequence[Any], quick: bool = False) -> list[Any]:
    """Run the launches on these input arrays (as `prepare_inputs` made them); the outputs.
    `quick`: a call that `Component.exec` keeps the launches of: after its first, `lp.quick`
    is made (see `quick`)."""
    rt = lp.runtime
    host = rt.host_memory
    buffers = list(arrays)
    spare: list[Any] = []
    if host and lp.scratch:  # (no IndexError raised and caught where there is none: 10-25 µs
        try:  # of a call after a pause, under load)
            spare = lp.scratch.pop()
        except IndexError:  # another thread's call took it meanwhile
            pass
    kept: list[Any] = []
    calls: list[Any] | None = [] if quick and lp.quick is None else None  # `_quick_launches`
    for alloc, dtype, launcher, reads, split, packs in lp.steps:
        if host:
            buf: Any = np.empty(alloc, dtype)
        else:
            buf = DeviceArray(rt, rt.empty(alloc, dtype), alloc, dtype)
        buffers.append(buf)
        if launcher is None:
            continue
        if split is not None:  # a split reduction: partial results, then combined
            part_shape, finish = split
            if host:
                part: Any = np.empty(part_shape, dtype)
            else:
                part = DeviceArray(rt, rt.empty(part_shape, dtype), part_shape, dtype)
            launcher(part, *[buffers[r] for r in reads])
            finish(buf, part)
            continue
        args = [buffers[r] for r in reads]
        if not packs:
            call = (buf, *args)
            _launch(launcher, rt, call)
            if calls is not None:
                calls.append(call)
            continue
        for k, shape, pack in packs:  # a GEMM's operands packed first (`gemm.py`)
            src = args[k]
            if host:
                packed: Any = spare[len(kept)] if len(kept) < len(spare) else None
                if packed is None or packed.shape != shape or packed.dtype != src.dtype:
                    packed = np.empty(shape, src.dtype)
                kept.append(packed)
            else:
                packed = DeviceArray(rt, rt.empty(shape, src.dtype), shape, src.dtype)
            if pack is not None:
                pack(packed, src)
            args[k] = packed
        launcher(buf, *args)
    if kept and len(lp.scratch) < 2:
        lp.scratch.append(kept)
    if calls is not None:
        lp.quick = _quick_launches(lp, calls)
    if lp.direct >= 0:
        return [buffers[lp.direct]]
    return [
        _output(rt, buffers[k], shape, is_input, lp.on_device)
        for k, shape, is_input in lp.outputs
    ]


def quick(lp: Launches, inputs: Sequence[Any]) -> Any:
    """The output of a call of `lp`'s launches on `inputs` (as many as it takes), run by their
    fast launches of exact shapes (`lp.quick`, one a step), or None.

    An output only where every step's launch ran, each into a buffer of this call's own. None
    where `lp.quick` is not made yet or was dropped ([]): nothing runs. None where a launch
    did not run (other dtypes, shapes or kinds of array; BUSY: a launch on another thread
    meanwhile; FAILED: its error, which the ordinary path raises by running it again): the
    launches before it wrote only into this call's own buffers. The caller then takes the
    ordinary path, with its results and errors. Where some had run and a later one took other
    arguments (an input read late differs), `lp.quick` is dropped, so such calls do not run
    launches for nothing again.

    Why no key of the inputs is made: each launch checks in native code that its arrays are
    those it was made for, shapes included, and after a pause that key cost 11-17 µs and its
    lookup ~9 more."""
    fasts = lp.quick
    if not fasts or len(fasts) != len(lp.steps):  # none, or dropped by an earlier call
        return None
    buffers = [*inputs]
    ran = False
    for (alloc, dtype, _, reads, _, _), fast in zip(lp.steps, fasts):
        buf = np.empty(alloc, dtype)
        buffers.append(buf)
        if fast is not None:
            status = fast.fn((buf, *[buffers[r] for r in reads]))
            if status:  # not RAN
                if status == FAILED:
                    _settle(fast)
                elif ran and status == OTHER_ARGUMENTS:  # launches ran for nothing: these
                    lp.quick = []  # are not tried again
                return None
            ran = True
    return buffers[lp.direct]


def _settle(fast: Any) -> None:
    """After a `quick` launch that did not run: a FAILED one's entry freed (its error is
    raised again by the ordinary path, which runs the launch again)."""
    try:
        fast.failure()
    except Exception:  # noqa: BLE001 - a failure: said by the ordinary path
        pass


def _quick_launches(lp: Launches, calls: list[Any]) -> list[Any]:
    """`lp.quick` after a call whose launches (`calls`: each's argument tuple) ran: a fast
    launch of exact shapes a step, where `lp` gives back one output buffer of host memory
    (`direct`), every step is one launch (no packing, no split reduction) by a fast path
    with no failure buffer, and every input is read by some launch (so checked); else []."""
    if lp.direct < 0 or not lp.runtime.host_memory:
        return []
    read = {r for step in lp.steps for r in step[3] if step[2] is not None}
    if not set(range(lp.n_in)) <= read:
        return []
    out: list[Any] = []
    it = iter(calls)
    for _, _, launcher, _, split, packs in lp.steps:
        if launcher is None:
            out.append(None)
            continue
        fast = launcher.fast
        if split is not None or packs or fast is None or fast.words is not None:
            return []
        exact = launcher.kernel.fast_launch(launcher.grid, launcher.block, next(it), {},
                                            exact=True)  # fmt: skip
        if exact is None or exact.words is not None:
            return []
        out.append(exact)
    return out


def _launch(launcher: Any, rt: Runtime, args: tuple[Any, ...]) -> None:
    """`launcher(*args)`, by its runtime's fast path where it has one for these arguments
    (`Launcher.fast`); the ordinary launch otherwise."""
    fast = launcher.fast
    if fast is None or fast.runtime is not rt or fast.words is not None:
        launcher(*args)
        return
    status = fast.fn(args)
    if status:
        launcher.after_fast(status, fast, args)


def execute(g: Graph, values: Sequence[Any], into: Any = None) -> Any:
    """Run graph g on these inputs on the current backend; one output or a tuple."""
    rt = registry.current()
    inp = prepare_inputs(values, rt)
    return finish(run(launches(g, inp, rt), inp.arrays), into)


def key(values: Sequence[Any]) -> tuple[Any, ...] | None:
    """`signature`'s key of these inputs without its checks, for looking up a call that
    `signature` let in before (NumPy arrays of the same dtypes and shapes passed them too): a
    call after a pause spent 22-28 µs in `signature` against 11-17 here (2 inputs, under load)."""
    out = []
    for v in values:
        if type(v) is not np.ndarray:
            return None
        out.append((id(v.dtype), v.shape))
    return tuple(out)


def signature(values: Sequence[Any]) -> tuple[Any, ...] | None:
    """The key of a call whose inputs are NumPy arrays that `prepare_inputs` passes on as they
    are (kept dtypes, at least one dimension, fewer than 2**31 elements): their dtypes and
    shapes; None for any other call (numbers, lists, device arrays, conversions)."""
    key = []
    for v in values:
        if type(v) is not np.ndarray:
            return None
        dt = id(v.dtype)  # NumPy's own dtype objects (native byte order) are never freed
        shape = v.shape
        if dt not in _KEPT_IDS or not shape or v.size >= 2**31:
            return None
        key.append((dt, shape))
    return tuple(key)


def finish(outs: list[Any], into: Any) -> Any:
    """The result of `execute` from its outputs: written into `into` when given; one output or
    a tuple."""
    if into is not None:
        outs = _into(outs, into)
    return outs[0] if len(outs) == 1 else tuple(outs)


def _output(rt: Runtime, buf: Any, shape: tuple[int, ...], is_input: bool, device: bool) -> Any:
    """A result as the user gets it: NumPy, or a device array when an input was one. An
    output that is an input (the identity) is a copy."""
    if rt.host_memory:
        host = buf.buf if isinstance(buf, DeviceArray) else buf
        arr = np.array(host) if is_input else host
        if arr.shape != shape:
            arr = arr.reshape(shape)
        return DeviceArray(rt, arr, shape, arr.dtype) if device else arr
    if not device:
        return buf.numpy().reshape(shape)
    if is_input:
        buf = DeviceArray(rt, rt.upload(buf.numpy()), buf.shape, buf.dtype)
    return DeviceArray(rt, buf.buf, shape, buf.dtype)


def _into(outs: list[Any], into: Any) -> list[Any]:
    targets = list(into) if isinstance(into, (tuple, list)) else [into]
    if len(targets) != len(outs):
        raise LaunchError(
            f"into= has {len(targets)} array(s) but the component has {len(outs)} output(s)"
        )
    done: list[Any] = []
    for k, (o, t) in enumerate(zip(outs, targets)):
        src = o.numpy() if isinstance(o, DeviceArray) else o
        if not isinstance(t, (np.ndarray, DeviceArray)):
            raise LaunchError(
                f"into= output {k} is a {type(t).__name__}; give NumPy or simt device arrays"
            )
        if isinstance(t, DeviceArray):
            if t.shape != src.shape:
                raise LaunchError(
                    f"into= output {k} has shape {t.shape}, the result has {src.shape}"
                )
            if not np.can_cast(src.dtype, t.dtype, "same_kind"):
                raise LaunchError(
                    f"into= output {k} is {t.dtype}, but the result is {src.dtype} (a cast "
                    f"would lose its kind); give a {src.dtype} array"
                )
            t.copy_to_device(src.astype(t.dtype, copy=False))
            done.append(t)
            continue
        if t.shape != src.shape:
            raise LaunchError(f"into= output {k} has shape {t.shape}, the result has {src.shape}")
        if not np.can_cast(src.dtype, t.dtype, "same_kind"):
            raise LaunchError(
                f"into= output {k} is {t.dtype}, but the result is {src.dtype} (a cast would "
                f"lose its kind); give a {src.dtype} array"
            )
        if not t.flags.writeable:
            raise LaunchError(f"into= output {k} is a read-only array; give a writable one")
        np.copyto(t, src, casting="same_kind")
        done.append(t)
    return done


def sources(g: Graph, values: Sequence[Any], backend: str) -> str:
    """Every kernel's source for `backend` (or "ir"), with what it computes and why."""
    from ..pipeline import render

    rt = registry.current()
    inp = prepare_inputs(values, rt) if rt.host_memory else describe_inputs(values)
    prog, _ = compile_for(g, inp, backend)
    parts = []
    for k, step in enumerate(prog.steps, start=1):
        e = prog.graph.nodes[step.kp.root].expr  # with the schedule it runs (default GEMMs)
        head = f"kernel {k} of {len(prog.steps)}: t{step.kp.root} = {e}"
        if step.note:
            head += f"\n{step.note}"
        comment = "#" if backend == "ir" else registry.runtime_class(backend).source_comment
        head = "\n".join(f"{comment} {line}" for line in head.splitlines())
        for kernel in [*(k for _, k in step.packs), step.kernel]:
            fn = kernel.fn
            assert fn is not None  # made by Kernel.from_ir
            text = format_function(fn) if backend == "ir" else render(backend, fn)
            parts.append(f"{head}\n{text}")
    return "\n\n".join(parts)


def host_stand_ins(values: Sequence[Any]) -> list[Any]:
    """The inputs with device arrays (simt's, or by `__cuda_array_interface__`) replaced by
    uninitialised host arrays of their shapes and dtypes: what planning and the cost model
    read, wherever the data lives."""
    out: list[Any] = []
    for v in values:
        if isinstance(v, DeviceArray):
            out.append(np.empty(v.shape, v.dtype))
            continue
        cai = cuda_interface(v)
        out.append(v if cai is None else np.empty(tuple(cai["shape"]), np.dtype(cai["typestr"])))
    return out


def describe_inputs(values: Sequence[Any]) -> Inputs:
    """Types and shapes of the inputs without uploading anything, wherever they live (for
    `.source()`, the cost model and `tune`); no arrays."""
    types, shapes = [], []
    weak = python_float_dtype(values)
    for k, v in enumerate(values):
        if isinstance(v, DeviceArray):
            types.append(T.scalar_of_dtype(v.dtype))
            shapes.append(v.shape)
            continue
        cai = cuda_interface(v)
        if cai is not None:
            types.append(T.scalar_of_dtype(np.dtype(cai["typestr"])))
            shapes.append(tuple(cai["shape"]))
            continue
        a = host_array(k, v, weak)
        types.append(T.scalar_of_dtype(a.dtype))
        shapes.append(a.shape)
    return Inputs([], types, shapes, False)  # type: ignore[arg-type]
