"""How far an image function reads from the pixel it computes: the halo a chunk needs.

Partial evaluation leaves every read of an image as a `load` whose indices are the pixel's
position plus a known offset (`im(p + d)` with `d` known), passed through the image's edge
handling (`min`/`max` for clamp, `mod` for wrap, a guarded read for zero). This analysis walks
the optimised IR of the single-array wrapper kernel (`simt.imagefn`) and finds, for each image
parameter, the largest offset along rows and along columns. A read whose index is anything
else (a run-time offset, a mirrored position) has no known reach: `None`, and the caller asks
for `halo=`.
"""

from __future__ import annotations

from ..ir import Function, Op, Value, walk

_X, _Y = "_simt_x", "_simt_y"  # the wrapper's names for the pixel's column and row


def _base(hint: str) -> str | None:
    """`_simt_x.427` -> `_simt_x` (the printer's numbering is not part of the hint, but
    renamed copies may carry a suffix)."""
    for name in (_X, _Y):
        if hint == name or hint.startswith(name + "."):
            return name
    return None


class _Affine:
    """Finds `axis + constant` forms of the IR's integer values."""

    def __init__(self, fn: Function) -> None:
        self.defs: dict[int, Op] = {}
        for op in walk(fn.body):
            for r in op.results:
                self.defs[r.id] = op
        self.memo: dict[int, tuple[str, int] | None] = {}

    def const(self, v: Value) -> int | None:
        op = self.defs.get(v.id)
        if op is not None and op.opcode == "const" and isinstance(op.attrs.get("value"), int):
            return int(op.attrs["value"])
        if op is not None and op.opcode == "cast":
            return self.const(op.operands[0])
        return None

    def of(self, v: Value) -> tuple[str, int] | None:
        """(axis, offset) when `v` is the pixel's column or row plus a known offset, seen
        through the edge handling; None otherwise."""
        if v.id in self.memo:
            return self.memo[v.id]
        self.memo[v.id] = None  # (no cycles in SSA outside loops; guards them anyway)
        got = self._of(v)
        self.memo[v.id] = got
        return got

    def _of(self, v: Value) -> tuple[str, int] | None:
        op = self.defs.get(v.id)
        if op is None:
            return None
        base = _base(v.hint)
        if base is not None and op.opcode == "bin" and op.attrs.get("op") == "add":
            # the wrapper's own `block_idx * block_dim + thread_idx`
            if all(self.defs.get(o.id) is not None for o in op.operands) and all(
                self.defs[o.id].opcode in ("special", "bin") for o in op.operands
            ):
                return (base, 0)
        if op.opcode == "cast":
            return self.of(op.operands[0])
        if op.opcode != "bin":
            return None
        kind = op.attrs.get("op")
        a, b = op.operands
        fa, fb = self.of(a), self.of(b)
        ca, cb = self.const(a), self.const(b)
        if kind == "add":
            if fa is not None and cb is not None:
                return (fa[0], fa[1] + cb)
            if fb is not None and ca is not None:
                return (fb[0], fb[1] + ca)
            return None
        if kind == "sub":
            if fa is not None and cb is not None:
                return (fa[0], fa[1] - cb)
            return None
        if kind in ("min", "max"):
            # clamping to the image: the reach inside it is the unclamped one's
            if fa is not None and fb is None:
                return fa
            if fb is not None and fa is None:
                return fb
            return None
        if kind == "mod" and fa is not None and fb is None:  # wrapping around
            return fa
        return None


def image_reach(fn: Function, images: list[str]) -> dict[str, tuple[int, int] | None]:
    """For each image parameter: (rows, columns) it reads away from the pixel at most, or
    None when some read of it is not at a known offset. An image never read reaches (0, 0)."""
    by_value = {p.value.id: p.name for p in fn.params}
    reach: dict[str, tuple[int, int] | None] = {n: (0, 0) for n in images}
    aff = _Affine(fn)
    for op in walk(fn.body):
        if op.opcode not in ("load", "atomic", "cas", "store"):
            continue
        name = by_value.get(op.operands[0].id)
        if name not in reach:
            continue
        if op.opcode != "load":
            reach[name] = None  # writing into an input image: not a stencil
            continue
        if reach[name] is None:
            continue
        idx = op.operands[1:]
        fy = aff.of(idx[0]) if len(idx) >= 2 else None
        fx = aff.of(idx[1]) if len(idx) >= 2 else None
        if fy is None or fx is None or fy[0] != _Y or fx[0] != _X:
            reach[name] = None
            continue
        ry, rx = reach[name]  # type: ignore[misc]
        reach[name] = (max(ry, abs(fy[1])), max(rx, abs(fx[1])))
    return reach
