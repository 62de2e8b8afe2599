"""Index expressions: the 𝚒 tensor language as simt's second front end.

    from simt.tensor import i, I
    matmul = i("ik*kj~ijk") >> i("+ijk~ij")     # one fused kernel; no 3-D buffer
    c = matmul.exec(a, b)

An expression is parsed (`parse`), combined into a component graph (`graph`, `component`),
planned into kernels with fusion (`plan`), lowered to ordinary simt IR (`lower`) and run by
simt's runtimes (`run`). See docs/tensor.md for the language.
"""

from __future__ import annotations

from ..errors import user_facing
from .component import Component, _caller
from .graph import Graph
from .ops import OPS

I = Component(Graph.identity())  # noqa: E741 - the language's name for the identity


@user_facing
def i(expr: str) -> Component:
    """The component of one index expression, e.g. `i("ik*kj~ijk | i:16,k:16 | ii'jkk'")`."""
    return Component.parse(expr, _caller())


i.I = I  # type: ignore[attr-defined]

__all__ = ["I", "OPS", "Component", "i"]
