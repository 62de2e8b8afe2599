"""The op groups of `simt.ir.ops`: the one place passes and renderers ask what an op is."""

from __future__ import annotations

import re

from simt.ir import ops


def _opcodes() -> set[str]:
    """The opcodes of the table in the module's docstring."""
    doc = ops.__doc__ or ""
    return set(re.findall(r"^\| (\w+) +\|", doc, re.M)) - {"opcode"}


def test_groups_name_only_opcodes() -> None:
    known = _opcodes()
    assert {"const", "load", "while", "condition"} <= known
    for group in (ops.EFFECTS, ops.PURE, ops.MEMORY, ops.STORES, ops.ATOMICS, ops.WRITES):
        assert group <= known, group - known


def test_groups_agree_with_each_other() -> None:
    assert not ops.PURE & ops.EFFECTS
    assert not ops.PURE & ops.MEMORY
    assert ops.ATOMICS <= ops.STORES <= ops.MEMORY
    assert ops.STORES <= ops.EFFECTS and ops.STORES <= ops.WRITES
    assert "barrier" in ops.WRITES and "load" not in ops.WRITES
    assert ops.COMMUTATIVE <= set(ops.BIN_OPS) | set(ops.CMP_OPS)
    assert not {"sub", "div", "min", "max", "lt"} & ops.COMMUTATIVE
