"""The renderers as tables: one dispatch idiom (`ir.rules.Rules`) for every renderer and the cost
model's evaluator, every IR operator spelled by each C-like language's BIN/UN table, CUDA's
atomics spelled (or refused) per element type."""

from __future__ import annotations

import dataclasses
import re

import pytest

from simt.backends import cuda, cuda_types, llvm, sim, wgsl
from simt.benchtool import cost
from simt.builtins import MATH
from simt.errors import CompileError
from simt.ir import Block, Builder, Function, Param, Value, ops, verify
from simt.ir.ops import ATOMIC_OPS, BIN_OPS, UN_OPS
from simt.ir.rules import Rules
from simt.passes.legalise import Target, check
from simt.types import (
    BOOL,
    FLOAT32,
    FLOAT64,
    INT32,
    INT64,
    UINT32,
    UINT64,
    ArrayType,
    Scalar,
)

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
BASE_ONLY = ("in_bounds", "guarded", "checked_value", "offset", "element", "fail_at",
             "op_print", "op_barrier", "op_fence", "op_special", "assert_", "op_bin", "op_un",
             "op_cmp", "op_select", "op_math", "math_call", "use_helper", "use_helpers_in",
             "fail", "define", "if_", "for_", "while_", "op_const", "op_shape", "op_alloc",
             "extents", "helper_texts")  # fmt: skip
# what each C-like language says of its memory and prints: data, not rules
LANGUAGE_HOOKS = ("shape_param", "index_below", "param_strides", "index_as", "index_words",
                  "extent_word", "print_reserve", "print_puts", "special", "type_name",
                  "literal")  # fmt: skip


@pytest.mark.parametrize("name", ["cuda", "wgsl"])
def test_each_c_like_language_gives_tables_and_access_hooks_not_rules_of_its_own(
    name: str,
) -> None:
    from simt.backends.clike import CRenderer

    cls = RENDERERS[name]
    for opcode in ("load", "store", "atomic", "cas", "print", "assert", "select", "cmp",
                   "math", "if", "for", "while", "barrier", "fence", "special", "const", "shape",
                   "alloc"):  # fmt: skip
        assert cls.RULES[opcode] == CRenderer.RULES[opcode], (name, opcode)
    for method in BASE_ONLY:
        assert getattr(cls, method) is getattr(CRenderer, method), (name, method)
    for hook in LANGUAGE_HOOKS:
        assert getattr(cls, hook) is not getattr(CRenderer, hook), (name, hook)
    assert "{c}" in cls.ASSERT and "{site}" in cls.ASSERT
    assert "{site}" in cls.FAIL and {"{site}", "{n}", "{words}"} <= set(
        re.findall(r"\{\w+\}", cls.FAIL_AT)
    )
    assert {"{c}", "{a}", "{b}"} <= set(re.findall(r"\{\w\}", cls.SELECT))
    assert "{}" in cls.ORDERED_BOOL
    assert cls.BARRIER and set(cls.FENCE) == {"block", "device", "system"}
    assert all(hasattr(row, cls.MATH_SPELLING) for row in MATH.values())  # a row's field


def test_constants_extents_and_allocations_are_the_base_s_rules_over_language_templates() -> None:
    """`const`, `shape`, `alloc` and an access's extents are one rule each (`clike`): a
    parameter's extent is its kernel parameter (CUDA reads it where used, WGSL binds a `let`:
    `SHAPE_LET`), a known one a literal; a table, a shared and a per-thread array are each
    language's declaration template, a table's at module scope."""
    a, i = Value(ArrayType(FLOAT32, 1), "a"), Value(INT32, "i")
    body = Block()
    b = Builder(body)
    table = b.op("alloc", [], [ArrayType(INT32, 1, shape=(3,), space="const")],
                 data=[1, 2, 3]).result  # fmt: skip
    sh = b.op("alloc", [], [ArrayType(FLOAT32, 2, shape=(4, 8), space="shared")]).result
    loc = b.op("alloc", [], [ArrayType(FLOAT32, 1, shape=(5,), space="local")]).result
    n = b.op("shape", [a], [INT32], dim=0).result
    m = b.op("shape", [sh], [INT32], dim=1).result
    k = b.op("load", [table, i], [INT32]).result
    x = b.op("load", [a, b.bin("add", b.bin("add", n, m), k)], [FLOAT32]).result
    b.op("store", [loc, i, x])
    b.op("store", [sh, i, i, x])
    fn = Function("decls", [Param("a", 0, a), Param("i", 1, i)], body, filename="t.py",
                  boundscheck=True)  # fmt: skip
    verify(fn)
    c, w = cuda.render(fn), wgsl.render(fn)
    assert re.search(r"^__constant__ int v\d+\[3\] = \{1, 2, 3\};$", c, re.M), c
    assert re.search(r"^    __shared__ float v\d+\[32\];$", c, re.M), c
    assert re.search(r"^    float v\d+\[5\];$", c, re.M), c
    assert re.search(r"\(unsigned int\)a_\d+_shape0 \+ \(unsigned int\)8\)", c), c
    assert re.search(r"< \(unsigned long long\)a_\d+_shape0\)", c), c
    assert re.search(r"< \(unsigned long long\)3\)", c), c
    t = r"array<i32, 3>"
    assert re.search(rf"^var<private> v\d+: {t} = {t}\(1i, 2i, 3i\);$", w, re.M), w
    assert re.search(r"^var<workgroup> v\d+: array<f32, 32>;$", w, re.M), w
    assert re.search(r"^    var v\d+: array<f32, 5>;$", w, re.M), w
    assert re.search(r"let v\d+: i32 = simt_P\.a_\d+_shape0;", w), w
    assert re.search(r"let v\d+: i32 = 8i;", w), w
    assert re.search(r"< i32\(simt_P\.a_\d+_shape0\)", w), w
    assert re.search(r"< 3i\b", w), w
    # IR legalised for WGSL (its constants marked HIDE/BIND) renders as CUDA as if unmarked
    marked = b.const(2**31, INT64)
    b.op("store", [loc, i, b.op("cast", [b.bin("add", marked, b.const(1, INT64))],
                                [FLOAT32]).result])  # fmt: skip
    before = cuda.render(fn)
    for op in body.ops:
        if op.opcode == "const":
            op.attrs.update({ops.HIDE: True, ops.BIND: True})
    assert cuda.render(fn) == before
    assert "2147483648LL" in before
    assert "(2147483648li ^ i64(simt_P.zero))" in wgsl.render(fn)


@pytest.mark.parametrize("language", ["cuda", "wgsl"])
def test_helpers_are_one_table_each_emitted_after_the_helpers_it_calls(language: str) -> None:
    """One helper scheme (`clike.helper_order`) for both languages: the helpers one calls are
    read from its text; each is emitted after those it calls, else by name."""
    from simt.backends import cuda_helpers, wgsl_helpers
    from simt.backends.clike import helper_calls, helper_order

    table = {"cuda": cuda_helpers.HELPERS, "wgsl": wgsl_helpers.HELPERS}[language]
    assert RENDERERS[language].HELPERS is table
    calling = [name for name in table if helper_calls(table, name)]
    assert calling, "no helper calls another: the order is not tested"
    for name in table:
        order = helper_order(table, [name])
        assert order[-1] == name and len(set(order)) == len(order), order
        for k, helper in enumerate(order):
            assert set(helper_calls(table, helper)) <= set(order[:k]), (helper, order)
    if language == "cuda":
        assert helper_calls(table, "simt_fail") == ["simt_tid", "simt_flag"]
        assert helper_order(table, ["simt_record", "simt_fail"]) == [
            "simt_tid", "simt_flag", "simt_fail", "simt_record"]  # fmt: skip


def test_memory_rules_are_one_a_opcode_in_every_renderer() -> None:
    """Each of load, store, atomic and cas has its own rule in every renderer (no rule that
    branches on the opcode): CUDA keeps the C-like base's (an element is an lvalue, an
    atomic an expression: `atomic_call`, `cas_call`), WGSL's storage layer replaces them."""
    from simt.backends.clike import CRenderer

    for name, cls in WALKERS.items():
        if name == "cost":
            continue
        rules = [cls.RULES[k] for k in ("load", "store", "atomic", "cas")]
        assert len(set(rules)) == 4, (name, rules)
    for opcode in ("load", "store", "atomic", "cas"):
        method = CRenderer.RULES[opcode]
        assert getattr(cuda._Renderer, method) is getattr(CRenderer, method), opcode
        assert getattr(wgsl._Renderer, method) is not getattr(CRenderer, method), opcode
    assert cuda._Renderer.atomic_call is not CRenderer.atomic_call
    assert set(sim._Renderer.TRACES) >= {"load", "store", "atomic", "cas", "barrier", "note"}


def test_one_addressing_routine_for_both_c_like_languages() -> None:
    """`CRenderer.offset` is the one routine: the same 2-D access of a kernel parameter and
    of a shared array, addressed by each language's strides and index type."""
    a, i, j = Value(ArrayType(FLOAT32, 2), "a"), Value(INT32, "i"), Value(INT32, "j")
    body = Block()
    b = Builder(body)
    sh = b.op("alloc", [], [ArrayType(FLOAT32, 2, shape=(4, 8), space="shared")]).result
    x = b.op("load", [a, i, j], [FLOAT32]).result
    b.op("store", [sh, i, j, x])
    fn = Function("addr", [Param("a", 0, a), Param("i", 1, i), Param("j", 2, j)], body,
                  filename="t.py")  # fmt: skip
    verify(fn)
    c, w = cuda.render(fn), wgsl.render(fn)
    assert re.search(r"a_\d+\[\(long long\)i_\d+ \* a_\d+_stride0 \+ \(long long\)j_\d+ \* "
                     r"a_\d+_stride1\]", c), c  # fmt: skip
    assert re.search(r"\[\(int\)i_\d+ \* 8 \+ \(int\)j_\d+\] = ", c), c
    i_, j_ = r"simt_P\.i_\d+", r"simt_P\.j_\d+"  # (WGSL's scalar parameters are uniforms)
    assert re.search(rf"a_\d+\[{i_} \* simt_P\.a_\d+_stride0 \+ {j_}\]", w), w
    assert re.search(rf"\[{i_} \* 8i \+ {j_}\] = ", w), w


def _power_kernel(t: Scalar) -> Function:
    """out[0] = out[0] ** x in type `t` (the `bin pow` op, as the front end writes `**`)."""
    out, x = Value(ArrayType(t, 1), "out"), Value(t, "x")
    body = Block()
    b = Builder(body)
    zero = b.const(0, INT32)
    y = b.op("load", [out, zero], [t]).result
    b.op("store", [out, zero, b.bin("pow", y, x)])
    fn = Function("power", [Param("out", 0, out), Param("x", 1, x)], body, filename="t.py")
    verify(fn)
    return fn


def test_float_power_is_spelled_by_the_pow_math_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """`x ** y` of floats is the `pow` row's call in each C-like language and in LLVM IR (no
    spelling of its own): a row spelled differently changes what `**` renders."""
    row = dataclasses.replace(
        MATH["pow"], c="simt_row_pow{f}({0}, {1})", c_fast="simt_row_fast({0}, {1})",
        wgsl="simt_row_pow({0}, {1})",
    )  # fmt: skip
    monkeypatch.setitem(MATH, "pow", row)
    fn = _power_kernel(FLOAT32)
    assert "simt_row_powf(" in cuda.build(fn, fast_math=False).source
    assert "simt_row_fast(" in cuda.build(fn, fast_math=True).source
    assert "simt_row_pow(" in cuda.build(_power_kernel(FLOAT64), fast_math=True).source
    assert "simt_row_pow(" in wgsl.render(fn)
    # integer `**` is the languages' own helper (no math row is defined on integers)
    assert "simt_row" not in cuda.render(_power_kernel(INT32))
    assert "simt_row" not in wgsl.render(_power_kernel(INT32))
    # and in the CPU's LLVM IR: the row's `llvm` spelling (or its `llvm_f32` kernel)
    monkeypatch.setitem(MATH, "pow", dataclasses.replace(row, llvm="llvm.simt.row.pow",
                                                         llvm_f32=None, llvm_folds=()))  # fmt: skip
    assert "@llvm.simt.row.pow.f32(" in llvm.render_lowered(fn)[0]
    assert "@llvm.simt.row.pow.f64(" in llvm.render_lowered(_power_kernel(FLOAT64))[0]
    assert "simt.row" not in llvm.render_lowered(_power_kernel(INT32))[0]


def test_float64_power_is_refused_where_the_pow_row_is_float32_only() -> None:
    """`passes.legalise` refuses float64 `**` from the row's fact (the target's
    float32-only math), as it refuses `math.pow` of a float64."""
    f32_pow = Target("gpu", language="GL", float32_only_math=frozenset({"pow"}))
    with pytest.raises(CompileError, match=r"float64 \*\* is not available on gpu"):
        check(_power_kernel(FLOAT64), f32_pow)
    check(_power_kernel(FLOAT32), f32_pow)
    check(_power_kernel(FLOAT64), Target("gpu", language="GL"))


def test_the_evaluator_computes_each_scalar_opcode_by_its_table() -> None:
    """The cost model's evaluator: a rule per scalar opcode (no branching on the opcode inside
    one), each value from `cost.COMPUTE`, the table `cost.compute` reads."""
    scalar = {"bin", "cmp", "un", "cast", "select", "math"}
    assert set(cost.COMPUTE) == scalar
    assert all(cost._Eval.RULES[k] != cost._Eval.RULES["load"] for k in scalar)
    assert cost._Eval.RULES["cmp"] != cost._Eval.RULES["bin"]  # a flop where it compares floats


def test_the_cpus_operators_are_tables_too() -> None:
    """The LLVM renderer spells every operator by a table, as the C-like languages do: one
    instruction (`BIN`), else the operator's spelling (`BIN_SPELLING`, `UN_SPELLING`)."""
    from simt.backends import llvm_ops

    assert set(llvm_ops.BIN) | set(llvm_ops.BIN_SPELLING) == set(BIN_OPS)
    assert not set(llvm_ops.BIN) & set(llvm_ops.BIN_SPELLING)
    assert set(llvm_ops.UN_SPELLING) == set(UN_OPS)
