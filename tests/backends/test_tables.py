"""The renderers as tables: one dispatch idiom (`ir.rules.Rules`) for every renderer and the cost
model's evaluator, every IR operator spelled by each C-like language's BIN/UN table, CUDA's
atomics spelled (or refused) per element type."""

from __future__ import annotations

import re

import pytest

from simt.backends import cuda, cuda_types, llvm, sim, wgsl
from simt.benchtool import cost
from simt.builtins import MATH
from simt.ir import ops
from simt.ir.ops import ATOMIC_OPS, BIN_OPS, UN_OPS
from simt.ir.rules import Rules
from simt.types import BOOL, FLOAT32, FLOAT64, INT32, INT64, UINT32, UINT64

RENDERERS = {"cuda": cuda._Renderer, "wgsl": wgsl._Renderer, "llvm": llvm._Renderer}
WALKERS = {**RENDERERS, "sim": sim._Renderer, "cost": cost._Eval}


@pytest.mark.parametrize("name", WALKERS)
def test_every_renderer_dispatches_through_rules_to_its_own_methods(name: str) -> None:
    cls = WALKERS[name]
    assert issubclass(cls, Rules)
    for opcode, method in cls.RULES.items():
        assert callable(getattr(cls, method, None)), (name, opcode, method)
    for opcode in ("const", "bin", "un", "cmp", "cast", "load", "store", "if", "for", "while"):
        assert opcode in cls.RULES, (name, opcode)


def test_sim_has_a_rule_for_every_opcode() -> None:
    """sim runs IR as the front end makes it (no lowering first): every opcode of the table in
    ir/ops.py but the terminators has its rule."""
    opcodes = set(re.findall(r"^\| (\w+) +\|", ops.__doc__ or "", re.M)) - {"opcode"}
    assert {"const", "warp", "exit", "note"} <= opcodes
    assert opcodes - ops.TERMINATORS - set(sim._Renderer.RULES) == set()


@pytest.mark.parametrize("name", ["cuda", "wgsl"])
def test_every_operator_has_a_spelling_in_each_c_like_language(name: str) -> None:
    cls = RENDERERS[name]
    assert set(cls.BIN) == set(BIN_OPS)
    assert set(cls.UN) == set(UN_OPS)
    assert cls.RULES["bin"] == "op_bin" and cls.RULES["un"] == "op_un"  # the base's rules


def test_cuda_atomics_are_a_table_with_one_fallback_rule() -> None:
    for k in ATOMIC_OPS:
        for t in (INT32, UINT32, INT64, UINT64, FLOAT32, FLOAT64):
            template = cuda_types.atomic_template(k, t)
            if template is None:  # refused: bitwise atomics on floats only
                assert t.is_float and k in ("and", "or", "xor"), (k, t)
                continue
            assert "{p}" in template and "{v}" in template, (k, t)
    assert cuda_types.atomic_template("sub", INT64) != cuda_types.atomic_template("sub", INT32)
    assert "atomicAdd" in str(cuda_types.atomic_template("sub", FLOAT32))  # add of -v
    assert BOOL.name not in cuda_types.CAS


# what the C-like base writes once: no language keeps its own copy
BASE_ONLY = ("memory", "in_bounds", "guarded", "checked_value", "assert_", "op_bin", "op_un",
             "op_cmp", "op_select", "op_math", "math_call", "use_helper", "use_helpers_in",
             "fail", "define", "if_", "for_", "while_")  # fmt: skip


@pytest.mark.parametrize("name", ["cuda", "wgsl"])
def test_each_c_like_language_gives_tables_and_access_hooks_not_rules_of_its_own(
    name: str,
) -> None:
    from simt.backends.clike import CRenderer

    cls = RENDERERS[name]
    for opcode in ("load", "store", "atomic", "cas", "assert", "select", "cmp", "math", "if",
                   "for", "while"):  # fmt: skip
        assert cls.RULES[opcode] == CRenderer.RULES[opcode], (name, opcode)
    for method in BASE_ONLY:
        assert getattr(cls, method) is getattr(CRenderer, method), (name, method)
    for hook in ("extents", "index_below", "fail_at", "access", "type_name", "literal"):
        assert getattr(cls, hook) is not getattr(CRenderer, hook), (name, hook)
    assert "{c}" in cls.ASSERT and "{site}" in cls.ASSERT
    assert {"{c}", "{a}", "{b}"} <= set(re.findall(r"\{\w\}", cls.SELECT))
    assert "{}" in cls.ORDERED_BOOL
    assert all(hasattr(row, cls.MATH_SPELLING) for row in MATH.values())  # a row's field
