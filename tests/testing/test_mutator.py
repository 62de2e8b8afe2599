"""The front-end mutator: every construct outside the language gets a located CompileError."""

from __future__ import annotations

import pytest

from simt.testing.mutator import CONSTRUCTS, mutate, verdict

NAMES = [n for n, s in CONSTRUCTS.items() if s]


@pytest.mark.parametrize("construct", NAMES)
def test_each_construct_is_refused_where_it_stands(construct: str) -> None:
    seed = NAMES.index(construct)  # mutate() picks construct `seed % len(NAMES)`
    m = mutate(seed)
    assert m.construct == construct
    assert verdict(m) is None


def test_an_accepted_mutant_is_reported() -> None:
    m = mutate(0)
    m.source = m.program.source = m.program.source  # unchanged: a valid kernel
    valid = mutate(0)
    lines = valid.source.splitlines()
    del lines[valid.first_line - 1 : valid.last_line]
    valid.program.source = "\n".join(lines) + "\n"
    assert "accepted" in (verdict(valid) or "")
