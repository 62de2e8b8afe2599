"""The delta-debugging shrinker reduces a kernel while a failure persists."""

from __future__ import annotations

from simt.testing.generator import Program, generate
from simt.testing.shrink import shrink


def test_shrinks_to_the_lines_that_matter() -> None:
    program = next(p for p in map(generate, range(50)) if "simt.atomic" in p.source)

    def fails(p: Program) -> bool:  # stands for "still gives the same wrong answer"
        return "simt.atomic" in p.source

    small = shrink(program, fails)
    kernel = small.source[small.source.index("def kernel(") :]
    assert "simt.atomic" in kernel
    assert len(kernel.splitlines()) <= 3, kernel
    assert len(small.source) < len(program.source) / 2
