"""Kernel planning: which nodes get a buffer of their own (a kernel each) and which are fused.

Fusion is the default. A node's value is computed inside its consumer wherever that costs no
recomputation:

- a pointwise node is computed where it is used, unless it is expensive (a transcendental op
  or a fused reduction inside) and its consumer's loops run over an axis it does not have
  (it would be recomputed along that axis);
- a reduction is computed where it is used when its indices are exactly the axes bound there
  (a partial product chained into its reduction: one loop, no 3-D buffer);
- a reduction whose indices are some of the kernel's output axes (a row max or sum broadcast
  back over its row: the softmax shape) is computed once per row, cooperatively by the threads
  of the row's block; the kernel then becomes a *row* kernel over those axes;
- everything else is materialised: its own kernel writes a buffer the consumer reads, and
  `.source()` says why.

A written schedule's compute-at digits decide too: in an expression with an order, an input
whose digit is absent is materialised; one whose digit is present is fused when the rules above
allow it (otherwise materialised, with a note).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .gemm import Tiling, tiling
from .graph import Graph, Ref
from .ops import TRANSCENDENTAL

Axis = tuple[str, object]  # ("o", letter) for the kernel's output axes, ("r", token) for loops


@dataclass
class KernelPlan:
    """One kernel: the node it writes, its form and the row values computed per block."""

    root: int
    form: str  # "thread": a thread per output element; "row": a block per row
    row: tuple[str, ...] = ()  # the row axes (root output letters) of a row kernel
    row_values: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    reads: list[Ref] = field(default_factory=list)
    cooperative_root: bool = False  # a reduction that may run as a row kernel of itself
    # some array it reads is contiguous along the output's last axis (the thread form's x):
    # without one, neighbouring threads of a thread kernel read far apart (a gather)
    x_contiguous: bool = False
    threads: int = 256  # a row kernel's block size (chosen per shape, see run.row_threads)
    chunks: int = 0  # a split reduction's blocks per output element
    notes: list[str] = field(default_factory=list)
    # a register-tiled GEMM (the root's `tile(...)` directive): see `gemm.py`
    tiling: Tiling | None = None


@dataclass
class Plan:
    """The kernels of a component, in the order they run."""

    kernels: list[KernelPlan]
    materialised: set[int]
    notes: dict[int, str]


class _Materialise(Exception):
    def __init__(self, node: int, why: str) -> None:
        self.node = node
        self.why = why


def plan(g: Graph) -> Plan:
    """Decide buffers and kernels for graph g (shape-independent)."""
    out_nodes = {r[1] for r in g.outputs if r[0] == "node"}
    materialised = set(out_nodes)
    notes: dict[int, str] = {}
    for node in g.nodes:
        if not any(a.kind == "axis" or a.kind == "input" for a in node.expr.order):
            continue
        digits = {a.input for a in node.expr.order if a.kind == "input"}
        for k, ref in enumerate(node.args):
            if ref[0] != "node":
                continue
            if k not in digits and ref[1] not in materialised:
                materialised.add(ref[1])
                notes[ref[1]] = (
                    f"materialised: {node.expr.body()!r} has a schedule without compute-at "
                    f"directive {k} for it"
                )
    while True:
        try:
            kernels = [_walk(g, n, materialised) for n in sorted(materialised)]
        except _Materialise as m:
            materialised.add(m.node)
            notes[m.node] = "materialised: " + m.why
            continue
        return Plan(kernels, materialised, notes)


def _expensive(g: Graph, n: int, materialised: set[int], memo: dict[int, bool]) -> bool:
    if n in memo:
        return memo[n]
    node = g.nodes[n]
    result = node.expr.op in TRANSCENDENTAL or bool(node.expr.reduced)
    for ref in node.args:
        if ref[0] == "node" and ref[1] not in materialised:
            result = result or _expensive(g, ref[1], materialised, memo)
    memo[n] = result
    return result


def _walk(g: Graph, root: int, materialised: set[int]) -> KernelPlan:
    node = g.nodes[root]
    outs = {("o", c) for c in node.expr.output}
    reads: list[Ref] = []
    rows: dict[tuple[int, tuple[str, ...]], frozenset[Axis]] = {}
    memo: dict[int, bool] = {}
    nested: dict[int, int] = {}
    counter = [0]
    contiguous = [False]

    def visit(n: int, env: dict[str, Axis], bound: frozenset[Axis]) -> None:
        e = g.nodes[n].expr
        env = dict(env)
        for r in e.reduced:
            counter[0] += 1
            env[r] = ("r", counter[0])
            bound = bound | {env[r]}
        for pattern, ref in zip(e.inputs, g.nodes[n].args):
            visit_ref(ref, pattern, env, bound)

    def visit_ref(ref: Ref, pattern: str, env: dict[str, Axis], bound: frozenset[Axis]) -> None:
        if ref[0] == "in" or ref[1] in materialised:
            if ref not in reads:
                reads.append(ref)
            if pattern and node.expr.output and env[pattern[-1]] == ("o", node.expr.output[-1]):
                contiguous[0] = True
            return
        p = ref[1]
        producer = g.nodes[p].expr
        ids = tuple(env[c] for c in pattern)
        have = frozenset(ids)
        menv = {producer.output[d]: ids[d] for d in range(len(ids))}
        if not producer.reduced:
            if have >= bound or not _expensive(g, p, materialised, memo):
                visit(p, menv, bound)
                return
            missing = sorted(str(a[1]) for a in bound - have if a[0] == "o")
            where = ", ".join(missing) or "iteration of a loop"
            raise _Materialise(
                p, f"{producer.body()!r} would be recomputed for every {where} of its consumer"
            )
        if have == bound:
            nested[p] = nested.get(p, 0) + 1
            if nested[p] > 1:  # a second loop over the same reduction: compute it once
                raise _Materialise(p, f"the reduction {producer.body()!r} is used "
                                   "more than once in its consumer's kernel")  # fmt: skip
            visit(p, menv, bound)
            return
        if have and have < outs and len(have) == len(ids):
            letters = tuple(str(a[1]) for a in ids)
            key = (p, letters)
            if key not in rows:
                rows[key] = have
                visit(p, menv, have)
            return
        raise _Materialise(p, f"the reduction {producer.body()!r} would be recomputed by "
                           "every thread of its consumer")  # fmt: skip

    visit(root, {c: ("o", c) for c in node.expr.output}, frozenset(outs))
    kp = KernelPlan(root, "thread", reads=reads, x_contiguous=contiguous[0])
    kp.tiling = tiling(g, root, reads)
    if kp.tiling is not None:
        kp.notes.append(f"register-tiled GEMM: {kp.tiling.text()}")
        return kp
    if rows:
        first = min(rows)  # the producer nearest the inputs decides the row axes
        axes = rows[first]
        for key, have in rows.items():
            if have != axes:
                raise _Materialise(key[0], f"{g.nodes[key[0]].expr.body()!r} is reduced over "
                                   "other rows than the rest of its kernel")  # fmt: skip
        kp.form = "row"
        kp.row = tuple(c for c in node.expr.output if ("o", c) in axes)
        kp.row_values = sorted(rows)
        kp.notes.append(
            "row kernel: one block per "
            + ",".join(kp.row)
            + "; computed per row: "
            + ", ".join(g.nodes[k].expr.body() for k, _ in kp.row_values)
        )
    elif node.expr.reduced:
        kp.cooperative_root = True
    return kp
