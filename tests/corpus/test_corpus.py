"""Differential test: every corpus kernel on every backend present, against its NumPy reference.

A backend that is absent here is skipped with its probe's reason. A case a backend cannot
support (float64 on WebGPU, ...) must raise `CompileError` there: those pairs are listed in
`EXPECTED_COMPILE_ERRORS`, never skipped silently.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt
from simt.runtime import registry

from . import CASES, Case, refusal_problem

BACKENDS = ("sim", "cpu", "webgpu", "cuda")

_probes: dict[str, tuple[bool, str]] = {}


def _probe(name: str) -> tuple[bool, str]:
    if name not in _probes:
        _probes[name] = registry.probe(name)
    return _probes[name]


def _copy(args: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _launch(case: Case, backend: str, args: tuple[Any, ...]) -> None:
    simt.use(backend)
    if case.raises is None:
        case.kernel[case.grid, case.block](*args)
        simt.synchronize()
        return
    with pytest.raises(simt.KernelError) as e:
        case.kernel[case.grid, case.block](*args)
        simt.synchronize()
    why = case.raises(e.value)
    assert why is None, f"{case.name} on {backend}: {why}\n{e.value}"


def _check(case: Case, before: tuple[Any, ...], after: tuple[Any, ...]) -> list[str]:
    """Every difference from the reference, as lines (empty when the case passed)."""
    problems: list[str] = []
    if case.verify is not None:
        why = case.verify(before, after)
        if why:
            problems.append(why)
        return problems
    assert case.reference is not None, f"{case.name}: a case needs a reference or a verifier"
    expected = case.reference(*_copy(before))
    for pos, arg in enumerate(after):
        if not isinstance(arg, np.ndarray):
            continue
        if arg.dtype != before[pos].dtype or arg.shape != before[pos].shape:
            problems.append(f"argument {pos} changed dtype/shape to {arg.dtype}{arg.shape}")
        elif pos in expected:
            why = case.tol_for(pos).check(arg, expected[pos])
            if why:
                problems.append(f"argument {pos}: {why}")
        elif not np.array_equal(arg, before[pos]):
            problems.append(f"argument {pos} is an input but came back changed")
    return problems


@pytest.fixture
def keep_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Restore the backend other tests see after `simt.use`."""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_corpus(
    case: Case, backend: str, keep_backend: None, capsys: pytest.CaptureFixture[str]
) -> None:
    ok, why = _probe(backend)
    if not ok:
        pytest.skip(f"backend {backend!r} not present: {why}")
    args = case.make_args()
    before = _copy(args)
    capsys.readouterr()
    refusal = case.expected_error(backend)
    if refusal is not None:
        try:
            _launch(case, backend, args)
        except simt.CompileError as e:
            why = refusal_problem(case.features, str(e))
            assert why is None, (
                f"{case.name} on {backend}: expected a refusal ({refusal}), got {why}"
            )
            return  # the expected refusal
        # the backend supports the feature after all: then its result must be right
    else:
        _launch(case, backend, args)
    out = capsys.readouterr().out
    problems = _check(case, before, args)
    expected_text = case.stdout(*before) if case.stdout is not None else ""
    if out != expected_text:
        problems.append(f"printed\n{out!r}\nexpected\n{expected_text!r}")
    assert not problems, f"{case.name} on {backend}:\n" + "\n".join(problems)


def _function(case: Case) -> simt.ir.Function:
    """The optimised IR of the case's specialisation (compiled for `sim`, which is always here)."""
    kernel = case.kernel
    return kernel.specialise(kernel.bind(*case.make_args()), registry.get("sim")).fn


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_ir_verifies_and_prints(case: Case) -> None:
    fn = _function(case)
    simt.ir.verify(fn)
    text = simt.ir.format_function(fn)
    assert text.strip()
    # the user-facing printer shows the same program (value numbers differ between builds)
    assert case.kernel.ir(*case.make_args()).count("\n") == text.count("\n")
    if case.ir_check is not None:
        why = case.ir_check(text)
        assert why is None, f"{case.name}: {why}\n{text}"


def test_every_corpus_file_has_cases() -> None:
    """Each k_*.py contributes at least one case: `CASES` is what other tests import."""
    import pkgutil

    from . import __path__ as corpus_path

    files = {m.name for m in pkgutil.iter_modules(corpus_path) if m.name.startswith("k_")}
    modules = {c.kernel.pyfunc.__module__.rsplit(".", 1)[-1] for c in CASES}
    assert files and files == modules


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_cost_model_predicts_every_case(case: Case) -> None:
    """`kernel.cost()` evaluates every corpus kernel (every op the corpus reaches, on the
    launch's real shapes and values) and gives a whole prediction."""
    cost = case.kernel.cost(case.grid, case.block, *case.make_args())
    grid, block = simt.Dim.of(case.grid, "grid"), simt.Dim.of(case.block, "block")
    assert cost.threads == grid.size * block.size
    assert cost.time > 0 and cost.bound
    assert cost.bytes_read >= 0 and cost.bytes_written >= 0 and cost.flops >= 0
