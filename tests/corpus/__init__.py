"""The kernel corpus: one file per kernel (`k_*.py`), each with its inputs and NumPy reference.

Every `k_*.py` module defines its kernel(s) exactly as a user writes them and a list `CASES`
of `Case`s: the kernel, a function making fresh (seeded, random) arguments, the launch shape,
a NumPy reference (float64 where floats) and the tolerance the comparison uses.
`test_corpus.py` runs every case on every backend present and compares with the reference.

Other tests (the CUDA, WebGPU and CPU backends' own) import the cases to compile every corpus
kernel without a device (`tests/` is on the path: `pythonpath` in the pytest config):

    from corpus import CASES

    for case in CASES:
        src = case.kernel.source("cuda", *case.make_args())

`FEATURES` names what a case needs beyond the common language (e.g. `"fp64"`) and
`EXPECTED_COMPILE_ERRORS` lists the (backend, feature) pairs that must give a `CompileError`
rather than a result.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# What a case may need beyond the common language; the backends that cannot give it must
# answer with a CompileError (listed below), never a wrong result or a crash.
FEATURES = {
    "fp64": "float64 arithmetic and float64 arrays",
    "atomic_float": "atomic add on float32 arrays",
    "int64": "int64 arithmetic and int64 arrays",
    "wgsl_math": "a math function WGSL has no spelling for (builtins.MATH row with wgsl None)",
    "small_int": "8- and 16-bit integer arrays",
    "fp16": "float16 arrays",
    "uint64": "uint64 arithmetic and arrays",
}

# (backend, feature) -> why that backend must refuse it with a CompileError. A backend that
# does support the feature after all (an adapter with shader-f64, an emulated atomic) passes
# too, as long as its result is right. The refusal must name the feature (one of
# FEATURE_WORDS) and must not be an internal error: a crash dressed as a refusal is a bug.
EXPECTED_COMPILE_ERRORS: dict[tuple[str, str], str] = {
    ("webgpu", "fp64"): "WGSL has no f64 type",
    ("webgpu", "atomic_float"): "WGSL atomics are integer only",
    ("webgpu", "int64"): "WGSL has no 64-bit integers",
    ("webgpu", "wgsl_math"): "WGSL has no such function",
    ("webgpu", "uint64"): "u64 needs the adapter's shader-int64 feature",
}

FEATURE_WORDS: dict[str, tuple[str, ...]] = {
    "fp64": ("float64", "f64", "fp64"),
    "atomic_float": ("atomic",),
    "int64": ("int64", "i64", "64-bit"),
    "wgsl_math": ("is not available on webgpu",),
    "small_int": ("int8", "int16"),
    "fp16": ("float16",),
    "uint64": ("uint64",),
}


def refusal_problem(feature_set: frozenset[str], message: str) -> str | None:
    """None when `message` is a proper refusal of one of `feature_set`, else what is wrong."""
    if "internal error" in message:
        return f"an internal error instead of a refusal naming the feature:\n{message}"
    words = [w for f in feature_set for w in FEATURE_WORDS.get(f, ())]
    if not any(w in message for w in words):
        return f"a CompileError that names none of {words}:\n{message}"
    return None


@dataclass(frozen=True)
class Tol:
    """How a result is compared with its reference.

    kind: "exact" (equal, dtype and all); "close" (elementwise |d| <= atol + rtol * |ref|);
    "norm" (max|d| / max|ref| <= rtol: for results with values near zero, as Sobel);
    "ulp" (at most `ulps` units in the last place of the result's dtype);
    "l1" (sum|d| / sum|ref| <= rtol: Mandelbrot counts may differ by one at a few
    boundary pixels between float32 and float64);
    "any" (the reference stacks acceptable answers along a first axis; each element must be
    within `ulps` of one of them: a GPU compiler may fuse `a * b + c` into one rounding).
    """

    kind: str = "exact"
    rtol: float = 0.0
    atol: float = 0.0
    ulps: int = 0

    def check(self, out: np.ndarray, ref: np.ndarray) -> str | None:
        """None when `out` matches `ref`, else a line saying where and by how much not."""
        out = np.asarray(out)
        ref = np.asarray(ref)
        if self.kind == "any":
            return self._check_any(out, ref)
        if out.shape != ref.shape:
            return f"shape {out.shape} != reference shape {ref.shape}"
        if self.kind == "exact":
            bad = out != ref
        elif self.kind == "ulp":
            ref_c = ref.astype(out.dtype)
            spacing = np.abs(np.spacing(np.maximum(np.abs(out), np.abs(ref_c))))
            d = np.abs(out.astype(np.float64) - ref_c.astype(np.float64))
            bad = d > self.ulps * spacing.astype(np.float64)
        else:
            wide = np.complex128 if "c" in (out.dtype.kind, ref.dtype.kind) else np.float64
            d = np.abs(out.astype(wide) - ref.astype(wide))
            if not np.all(np.isfinite(d)):
                bad = ~np.isfinite(d)
            elif self.kind == "close":
                bad = d > self.atol + self.rtol * np.abs(ref.astype(wide))
            elif self.kind == "norm":
                err = float(d.max() / max(float(np.abs(ref).max()), 1e-300)) if d.size else 0.0
                return None if err <= self.rtol else f"max|d|/max|ref| = {err:.3g} > {self.rtol}"
            elif self.kind == "l1":
                total = max(float(np.abs(ref.astype(np.float64)).sum()), 1e-300)
                err = float(d.sum()) / total
                return None if err <= self.rtol else f"sum|d|/sum|ref| = {err:.3g} > {self.rtol}"
            else:
                raise ValueError(f"unknown tolerance kind {self.kind!r}")
        if not np.any(bad):
            return None
        where = np.argwhere(bad)
        first = tuple(int(x) for x in where[0])
        return (
            f"{len(where)} of {out.size} elements differ ({self.kind}); first at {first}: "
            f"got {out[first]!r}, expected {ref[first]!r}"
        )

    def _check_any(self, out: np.ndarray, refs: np.ndarray) -> str | None:
        if refs.shape[1:] != out.shape:
            return f"shape {out.shape} != reference shape {refs.shape[1:]}"
        one = Tol("ulp", ulps=self.ulps)
        ok = np.zeros(out.shape, bool)
        for ref in refs:
            ref_c = ref.astype(out.dtype)
            spacing = np.abs(np.spacing(np.maximum(np.abs(out), np.abs(ref_c))))
            d = np.abs(out.astype(np.float64) - ref_c.astype(np.float64))
            ok |= d <= one.ulps * spacing.astype(np.float64)
        if np.all(ok):
            return None
        where = np.argwhere(~ok)
        first = tuple(int(x) for x in where[0])
        alts = [r[first] for r in refs]
        return (
            f"{len(where)} of {out.size} elements match none of the accepted answers; first at "
            f"{first}: got {out[first]!r}, accepted {alts!r}"
        )


EXACT = Tol("exact")


def close(rtol: float, atol: float = 0.0) -> Tol:
    """Elementwise |d| <= atol + rtol * |ref|."""
    return Tol("close", rtol=rtol, atol=atol)


def norm(rtol: float) -> Tol:
    """max|d| / max|ref| <= rtol."""
    return Tol("norm", rtol=rtol)


def ulp(n: int) -> Tol:
    """At most `n` units in the last place of the result's own dtype."""
    return Tol("ulp", ulps=n)


def any_of(ulps: int) -> Tol:
    """Within `ulps` of one of the answers stacked along the reference's first axis."""
    return Tol("any", ulps=ulps)


def l1(rtol: float) -> Tol:
    """sum|d| / sum|ref| <= rtol."""
    return Tol("l1", rtol=rtol)


Reference = Callable[..., dict[int, np.ndarray]]
Verifier = Callable[[tuple[Any, ...], tuple[Any, ...]], "str | None"]


@dataclass(frozen=True)
class Case:
    """One launch of one corpus kernel and what it must produce.

    `make_args()` returns fresh arguments (seeded; random, never all zeros). `reference` is
    called with copies of those arguments as they were before the launch and returns
    {argument position: expected array} for each array the kernel writes; every other array
    argument must come back unchanged. `verify(before, after)` replaces `reference` where the
    result is not unique (atomics racing for a slot): it returns None or what is wrong.
    `stdout(*before)` is the exact text the launch prints, when it prints.
    `ir_check(text)` inspects the printed IR (e.g. "no float64 anywhere").
    `raises(error)` checks the KernelError of a launch in which threads raise (an index out
    of bounds): None when it is the one expected.
    """

    name: str
    kernel: Any
    make_args: Callable[[], tuple[Any, ...]]
    grid: Any
    block: Any
    reference: Reference | None = None
    tol: Tol = EXACT
    verify: Verifier | None = None
    stdout: Callable[..., str] | None = None
    ir_check: Callable[[str], str | None] | None = None
    features: frozenset[str] = field(default_factory=frozenset)
    # per-argument tolerances where one kernel writes arrays of different kinds
    tols: dict[int, Tol] = field(default_factory=dict)
    # a launch whose threads raise: the KernelError is checked by this (None or what is
    # wrong), then the arrays by the reference (what the threads that finished wrote)
    raises: Callable[[Any], str | None] | None = None
    # why a thread's accesses stride (a row of results per thread, interleaved colour or
    # complex parts, a view's step): the launch advisor rightly flags such a case as
    # uncoalesced (tests/benchtool/test_advise.py); "" for a case whose threads access
    # consecutive elements
    strided: str = ""

    def tol_for(self, pos: int) -> Tol:
        """The tolerance for written argument `pos`."""
        return self.tols.get(pos, self.tol)

    def expected_error(self, backend: str) -> str | None:
        """Why `backend` must answer this case with a CompileError, or None."""
        for feat in sorted(self.features):
            why = EXPECTED_COMPILE_ERRORS.get((backend, feat))
            if why is not None:
                return why
        return None


def rng(seed: int) -> np.random.Generator:
    """The corpus's seeded generator (one seed per case, so cases do not depend on order)."""
    return np.random.default_rng(20261122 + seed)


def uniform(
    g: np.random.Generator,
    shape: int | Sequence[int],
    dtype: Any = np.float32,
    lo: float = 0.5,
    hi: float = 1.5,
) -> np.ndarray:
    """Random floats in [lo, hi) of `dtype` (never zero with the default bounds)."""
    return g.uniform(lo, hi, size=shape).astype(dtype)


def blocks(n: int, per_block: int) -> int:
    """Blocks of `per_block` threads needed to cover `n` items."""
    return (n + per_block - 1) // per_block


def _load() -> list[Case]:
    cases: list[Case] = []
    for mod in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if mod.name.startswith("k_"):
            module = importlib.import_module(f"{__name__}.{mod.name}")
            cases.extend(module.CASES)
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise RuntimeError(f"corpus case names must be unique: {sorted(dup)}")
    return cases


CASES: list[Case] = _load()
