"""Shapes: every node's extents from the inputs' shapes, with LaunchErrors that name the input,
the pattern and the dimension that disagree."""

from __future__ import annotations

from ..errors import LaunchError
from .graph import Graph, Ref


def _describe(g: Graph, ref: Ref) -> str:
    if ref[0] == "in":
        return f"component input {ref[1]}"
    return f"the result of {g.nodes[ref[1]].expr.body()!r}"


def infer(g: Graph, input_shapes: list[tuple[int, ...]]) -> list[dict[str, int]]:
    """Per node, the extent of every axis of its expression (output and reduced axes)."""
    if len(input_shapes) != g.n_inputs:
        raise LaunchError(f"the component takes {g.n_inputs} input(s), got {len(input_shapes)}")
    extents: list[dict[str, int]] = []

    def shape_of(ref: Ref) -> tuple[int, ...]:
        if ref[0] == "in":
            return input_shapes[ref[1]]
        node = g.nodes[ref[1]]
        return tuple(extents[ref[1]][a] for a in node.expr.output)

    for node in g.nodes:
        e = node.expr
        ext: dict[str, int] = {}
        where: dict[str, tuple[int, int]] = {}
        for k, (pattern, ref) in enumerate(zip(e.inputs, node.args)):
            shape = shape_of(ref)
            if len(shape) != len(pattern):
                want = (
                    f"pattern {pattern!r} has {len(pattern)} axes"
                    if pattern
                    else "pattern '.' is a scalar"
                )
                raise LaunchError(
                    f"{e.body()!r}: input {k} ({_describe(g, ref)}) has shape {shape} "
                    f"(rank {len(shape)}), but its {want}"
                )
            for d, a in enumerate(pattern):
                if a in ext and ext[a] != shape[d]:
                    k0, d0 = where[a]
                    raise LaunchError(
                        f"{e.body()!r}: axis {a!r} is {ext[a]} in input {k0} "
                        f"({_describe(g, node.args[k0])}, pattern {e.inputs[k0]!r}, dimension "
                        f"{d0}) but {shape[d]} in input {k} ({_describe(g, ref)}, pattern "
                        f"{pattern!r}, dimension {d})"
                    )
                ext[a] = int(shape[d])
                where.setdefault(a, (k, d))
        extents.append(ext)
    return extents


def output_shape(g: Graph, extents: list[dict[str, int]], n: int) -> tuple[int, ...]:
    """The shape of node n's result."""
    return tuple(extents[n][a] for a in g.nodes[n].expr.output)
