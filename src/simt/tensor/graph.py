"""The component graph: inputs, expression nodes and outputs, and the five combinators on it.

A `Graph` has `n_inputs` inputs, `nodes` (each an expression applied to references) in an order
where producers come first, and `outputs` (references). A reference is `("in", k)` for input k
or `("node", n)` for node n's result. The combinators follow the peer's rules:

- `a >> b` (chain): a's outputs feed b's free (unbound) inputs left to right (as many as both
  have); b's other inputs come after a's inputs; a's unused outputs stay outputs, before b's.
- `a << b` (compose): b's outputs feed a's free inputs; inputs are b's then a's others; unused
  outputs of b come after a's.
- `a & b` (fan-out): b's free inputs read a's free inputs (as many as both have); b's other
  inputs come after a's; outputs are a's then b's.
- `a | b` (pair): side by side: a's inputs then b's, a's outputs then b's.
- `~a` (swap) swaps the first two outputs (a graph with fewer is unchanged).
"""

from __future__ import annotations

from dataclasses import dataclass

from .parse import Expr

Ref = tuple[str, int]


@dataclass(frozen=True)
class Node:
    """One expression applied to its arguments."""

    expr: Expr
    args: tuple[Ref, ...]


@dataclass(frozen=True)
class Graph:
    """A component's dataflow: see the module doc."""

    n_inputs: int
    nodes: tuple[Node, ...]
    outputs: tuple[Ref, ...]

    @staticmethod
    def leaf(expr: Expr) -> Graph:
        n = len(expr.inputs)
        return Graph(n, (Node(expr, tuple(("in", k) for k in range(n))),), (("node", 0),))

    @staticmethod
    def identity() -> Graph:
        return Graph(1, (), (("in", 0),))

    def key(self) -> str:
        """A text that tells apart every graph computing differently (for caches); made once
        per graph, since every `exec` looks its program up by it."""
        cached = self.__dict__.get("_key")
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        nodes = ";".join(f"{n.expr}@{','.join(f'{k}{i}' for k, i in n.args)}" for n in self.nodes)
        outs = ",".join(f"{k}{i}" for k, i in self.outputs)
        key = f"{self.n_inputs}|{nodes}|{outs}"
        object.__setattr__(self, "_key", key)  # a frozen dataclass: set once, here
        return key


def _embed(g: Graph, inputs: list[Ref], node_base: int) -> tuple[list[Node], list[Ref]]:
    """g's nodes renumbered after `node_base`, its inputs replaced by `inputs`; and its outputs."""

    def ref(r: Ref) -> Ref:
        return inputs[r[1]] if r[0] == "in" else ("node", r[1] + node_base)

    nodes = [Node(n.expr, tuple(ref(a) for a in n.args)) for n in g.nodes]
    return nodes, [ref(o) for o in g.outputs]


def _rest(g: Graph, consumed: list[int], base: int) -> dict[int, Ref]:
    """g's inputs not in `consumed`, in order, numbered from `base` in the combined graph."""
    rest = [k for k in range(g.n_inputs) if k not in consumed]
    return {k: ("in", base + n) for n, k in enumerate(rest)}


def chain(a: Graph, b: Graph, b_free: list[int]) -> Graph:
    """`a >> b`: a's outputs feed b's free inputs `b_free`, left to right."""
    paired = min(len(a.outputs), len(b_free))
    a_nodes, a_out = _embed(a, [("in", k) for k in range(a.n_inputs)], 0)
    fed = dict(zip(b_free[:paired], a_out[:paired]))
    rest = _rest(b, b_free[:paired], a.n_inputs)
    b_nodes, b_out = _embed(b, [fed.get(k) or rest[k] for k in range(b.n_inputs)], len(a_nodes))
    return Graph(a.n_inputs + len(rest), tuple(a_nodes + b_nodes), tuple(a_out[paired:] + b_out))


def compose(a: Graph, b: Graph, a_free: list[int]) -> Graph:
    """`a << b`: b's outputs feed a's free inputs `a_free`, left to right."""
    paired = min(len(a_free), len(b.outputs))
    b_nodes, b_out = _embed(b, [("in", k) for k in range(b.n_inputs)], 0)
    fed = dict(zip(a_free[:paired], b_out[:paired]))
    rest = _rest(a, a_free[:paired], b.n_inputs)
    a_nodes, a_out = _embed(a, [fed.get(k) or rest[k] for k in range(a.n_inputs)], len(b_nodes))
    return Graph(b.n_inputs + len(rest), tuple(b_nodes + a_nodes), tuple(a_out + b_out[paired:]))


def fanout(a: Graph, b: Graph, a_free: list[int], b_free: list[int]) -> Graph:
    """`a & b`: b's free inputs read a's free inputs, left to right."""
    paired = min(len(a_free), len(b_free))
    a_nodes, a_out = _embed(a, [("in", k) for k in range(a.n_inputs)], 0)
    fed: dict[int, Ref] = {bk: ("in", ak) for ak, bk in zip(a_free, b_free[:paired])}
    rest = _rest(b, b_free[:paired], a.n_inputs)
    b_nodes, b_out = _embed(b, [fed.get(k) or rest[k] for k in range(b.n_inputs)], len(a_nodes))
    return Graph(a.n_inputs + len(rest), tuple(a_nodes + b_nodes), tuple(a_out + b_out))


def pair(a: Graph, b: Graph) -> Graph:
    """`a | b`: side by side."""
    a_nodes, a_out = _embed(a, [("in", k) for k in range(a.n_inputs)], 0)
    b_inputs: list[Ref] = [("in", a.n_inputs + k) for k in range(b.n_inputs)]
    b_nodes, b_out = _embed(b, b_inputs, len(a_nodes))
    return Graph(a.n_inputs + b.n_inputs, tuple(a_nodes + b_nodes), tuple(a_out + b_out))


def swap(a: Graph) -> Graph:
    """`~a`: the first two outputs swapped."""
    if len(a.outputs) < 2:
        return a
    outs = (a.outputs[1], a.outputs[0]) + a.outputs[2:]
    return Graph(a.n_inputs, a.nodes, outs)
