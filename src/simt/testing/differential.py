"""Running one kernel on every backend present and comparing each with `sim`.

A kernel's source is written to a file (simt compiles from source text) and imported. Its
verdict is a list of `Finding`s: an empty list means every backend gave `sim`'s answer, the
CUDA C++ compiled with NVRTC, and nothing raised.

How results are compared (docs/testing.md says the same):

- integer, bool and histogram outputs, and printed text, must be identical (printed text up
  to the sign of a zero, `-0.0` against `0.0`, as the float outputs);
- exact float outputs (`fo`, `do`: built only from `+ - *`, `%`, comparisons, conversions,
  `abs`, `min`, `max`, `floor`) must be bit-identical, except that every NaN equals every NaN
  and -0.0 equals 0.0;
- approximate float outputs (`fx`: `/`, `//` on floats, `sqrt`, `sin`, `exp`, ... of exact
  values, and of complex values `abs`, `/`, `cmath.*`) must satisfy
  |got - ref| <= 2**-10 * max(1, |ref|), the loosest accuracy WGSL allows for these
  functions on the generated argument ranges;
- complex outputs compare their real and imaginary parts by the exact rule;
- the `specials` feature's results in `sv` (copysign, negation, `abs`, selects, `min`/`max`
  of -0.0, NaN and infinities: gen_special.py) are bit-identical with the sign of a zero,
  except that every NaN equals every NaN;
- float16 outputs (a float32 rounded to the nearest half on store) are bit-identical too,
  except that values below 2**-14 in magnitude (float16's subnormals, which a GPU may flush
  to zero, docs/semantics.md) equal each other and 0.

Each backend but `sim` runs the kernel a second time through the same launcher, with fresh
arguments: after a launch that ran, that launch takes the runtime's cached launch path where it
has one (cpu's native fast launch); after one that failed, the ordinary path again, which must
not be changed by what the failure left behind. Its results and errors are judged as the
first's (`second launch:`).

A kernel with an out-of-bounds access (the generator's `oob` option) has no output to
compare: on `sim` and on every backend its launch must raise the grouped `KernelError` of
threads that raised IndexError, its first line naming the array of that access, with the same
count of raising threads per line and of finished threads as on `sim` (`expect_oob`), in
kernels whose threads meet at barriers or warp functions too; such a kernel whose unproven
accesses are all tested once per block keeps the first-failure report on every backend: the
same thread (the smallest global id that failed), line, array and index as on `sim`
(docs/semantics.md); no error is a `silent` finding, another error or another array a
`wrong-error` one, other counts or another form a `mismatch`.

A `webgpu` refusal (`CompileError`) naming an element type the kernel uses that webgpu does
not have yet (int8, uint8, int16, uint16, float16, uint64, complex128; docs/semantics.md) or
float64 / int64 on an adapter without them is not a failure but a recorded non-comparison:
`check` lists it in `refused`, and the campaign counts and prints each one.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import re
import sys
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CompileError, SimtError
from ..runtime import printing, registry
from .generator import Program

APPROX_TOL = 2.0**-10
# words that must never reach a user (issue #15, item 13)
INTERNAL_WORDS = ("internal error", "<probe", "_simt_", "NeedsKnown", "simt_P", "Traceback")


@dataclass
class Finding:
    """One thing wrong with one kernel on one backend."""

    seed: int
    backend: str
    kind: str  # "mismatch", "internal", "rejected", "crash", "nvrtc", "wording"
    detail: str

    def __str__(self) -> str:
        return f"seed {self.seed} on {self.backend}: {self.kind}: {self.detail}"


_folder: Path | None = None


def load(program: Program, folder: Path | None = None) -> Any:
    """Import the program's module from a file and return its `kernel`."""
    global _folder
    if folder is None:
        if _folder is None:
            _folder = Path(tempfile.mkdtemp(prefix="simt-fuzz-"))
        folder = _folder
    # one file per loaded text: a rewritten file could be read stale through linecache
    digest = hashlib.sha1(program.source.encode()).hexdigest()[:12]
    path = folder / f"fuzz_{program.seed}_{digest}.py"
    path.write_text(program.source)
    name = f"simt_fuzz_{program.seed}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # while it runs (a dataclass looks its module up)
    try:
        spec.loader.exec_module(module)
    finally:
        # not kept there: the campaign's kernels, and all they compiled on every backend,
        # go when it is done with each (a fuzz slice kept hundreds of them, mem11)
        sys.modules.pop(name, None)
    k = module.kernel
    # a Numba-spelled program's `cuda.jit` kernel: the simt Kernel it launches with
    return k.kernel(0) if hasattr(k, "py_func") else k


def _launch(kernel: Any, program: Program, backend: str) -> tuple[list[np.ndarray], str]:
    from .. import api

    api.use(backend)
    args = program.make_args()
    out = io.StringIO()
    # whole output only: a launch slowed by load would stream its prints as it runs, and
    # streamed batches of two threads may interleave (a run-time string prints a character a
    # record), which is allowed and differs from backend to backend
    printing.stream_print(None)
    try:
        with contextlib.redirect_stdout(out):
            kernel[program.grid, program.block](*args)
            api.synchronize()
    finally:
        printing.stream_print()
    return [a for a in args if isinstance(a, np.ndarray)], out.getvalue()


_NAMES = ("fa", "ia", "ua", "fo", "io", "uo", "fx", "hist", "da", "do")
F16_TINY = 2.0**-14  # the smallest normal float16


def compare(
    seed: int,
    backend: str,
    want: list[np.ndarray],
    got: list[np.ndarray],
    names: tuple[str, ...] = _NAMES,
) -> list[Finding]:
    """Differences between `sim`'s arrays and `backend`'s, by the rules above."""
    found = []
    for name, w, g in zip(names, want, got):
        w, g = w.ravel(), g.ravel()
        if w.dtype.kind == "c":  # parts, by the exact rule
            w, g = w.view(w.real.dtype), g.view(g.real.dtype)
        if w.dtype.kind != "f":
            bad = np.flatnonzero(w != g)
        elif w.dtype == np.float16:
            tiny = (np.abs(w) < F16_TINY) & (np.abs(g) < F16_TINY)
            bad = np.flatnonzero(~((w == g) | (np.isnan(w) & np.isnan(g)) | tiny))
        elif name == "sv":  # the `specials` feature's sign-exact results: -0.0 is not 0.0
            same = (w == g) & (np.signbit(w) == np.signbit(g))
            bad = np.flatnonzero(~(same | (np.isnan(w) & np.isnan(g))))
        elif name == "fx":
            wd, gd = w.astype(np.float64), g.astype(np.float64)
            tol = APPROX_TOL * np.maximum(1.0, np.abs(wd))
            same = (np.abs(wd - gd) <= tol) | (np.isnan(wd) & np.isnan(gd)) | (wd == gd)
            bad = np.flatnonzero(~same)
        else:
            bad = np.flatnonzero(~((w == g) | (np.isnan(w) & np.isnan(g))))
        if bad.size:
            k = int(bad[0])
            found.append(
                Finding(
                    seed,
                    backend,
                    "mismatch",
                    f"{name}[{k}] = {g[k]!r}, sim gives {w[k]!r} ({bad.size} differ)",
                )  # fmt: skip
            )
    return found


def _error_finding(seed: int, backend: str, e: BaseException) -> Finding:
    text = f"{type(e).__name__}: {e}"
    if not isinstance(e, SimtError):
        tb = "".join(traceback.format_exception(e)[-6:])
        return Finding(seed, backend, "internal", f"{text}\n{tb}")
    if "internal error" in str(e) or "a bug in simt" in str(e):
        return Finding(seed, backend, "internal", text)
    return Finding(seed, backend, "rejected", text)


def _device_has(backend: str, question: str) -> bool:
    """The answer of `backend`'s device to `question` ("has_int64", "has_float64"); True
    where the backend cannot be opened here (it compiles without its device: NVRTC)."""
    try:
        rt = registry.get(backend)
    except SimtError:
        return True
    return bool(getattr(rt, question)())


def _refusal_ok(program: Program, backend: str, e: BaseException) -> bool:
    """A refusal naming float64 (int64) of a float64 (int64) kernel, on a device without them
    (`has_float64()`, `has_int64()`) or by a language that refuses some of their uses
    (`refuses_types`: WGSL's float32-precision math), is the expected answer; so is one
    naming an element type the kernel uses that the language does not have in that use
    (docs/semantics.md, "Types")."""
    if not isinstance(e, CompileError) or "internal" in str(e):
        return False
    by_type = registry.has(backend, "refuses_types")
    text = str(e)
    # Numba's typing makes floats from integers float64 in any Numba-spelled kernel
    wide = program.fp64 or program.numba
    fp64 = wide and any(w in text for w in ("float64", "f64", "fp64"))
    if fp64 and (by_type or not _device_has(backend, "has_float64")):
        return True
    i64 = "int64" in program.features and "int64" in text
    if i64 and (by_type or not _device_has(backend, "has_int64")):
        return True
    return by_type and backend in text and any(
        re.search(rf"\b{t}\b", text) for t in program.refusable_types
    )


def _unsigned_zeros(text: str) -> str:
    """Printed text with `-0.0` written `0.0`: the sign of a zero may differ on webgpu
    (docs/semantics.md), as the array comparison allows."""
    return re.sub(r"(?<![\w.])-0\.0(?![\d])", "0.0", text)


def nvrtc_findings(kernel: Any, program: Program, arch: str = "sm_80") -> list[Finding]:
    """Render the kernel to CUDA C++ and compile it with NVRTC (no GPU needed): the IR the
    CUDA runtime would compile, made by a runtime with its capabilities and its device's
    answers (warp functions native, int64 under Numba's typing) that compiles nothing."""
    from ..backends import cuda
    from ..ir import Function
    from ..runtime import nvrtc
    from ..runtime.base import Compiled
    from ..runtime.cuda import CudaRuntime, nvrtc_options

    class _IrOnly(CudaRuntime):
        def __init__(self) -> None:  # no driver: nothing of the device is opened
            pass

        def compile(self, fn: Function) -> Compiled:
            return Compiled(fn, "")

    try:
        fn = kernel.specialise(list(program.make_args()), _IrOnly()).fn
        kern = cuda.build(fn)
        nvrtc.compile_cubin(kern.source, arch, nvrtc_options(kern))
    except nvrtc.NvrtcError as e:
        return [Finding(program.seed, "cuda", "nvrtc", str(e)[-2000:])]
    except Exception as e:  # noqa: BLE001 - every failure is a finding
        return [_error_finding(program.seed, "cuda", e)]
    return []


def _oob_finding(program: Program, backend: str, e: BaseException | None) -> Finding | None:
    """What is wrong with a launch of an out-of-bounds kernel that raised `e` (None: it
    returned): None when it is a KernelError naming the access's array."""
    from ..errors import KernelError

    assert program.oob is not None
    array, kind = program.oob
    if e is None:
        why = f"no KernelError: the out-of-bounds access of `{array}` ({kind}) went unnoticed"
        return Finding(program.seed, backend, "silent", why)
    first = str(e).split("\n")[0]
    if isinstance(e, KernelError) and f"`{array}`" in first and (
        (e.counts and e.counts[0][0] == "IndexError" and " raised IndexError at " in first)
        or (not e.counts and "index out of bounds" in first)
    ):  # the grouped IndexError, or the first failure of a kernel with barriers whose
        # unproven accesses are all tested once per block (`_form`)
        return None
    if not isinstance(e, SimtError) or "internal error" in str(e):
        return _error_finding(program.seed, backend, e)
    why = f"expected a KernelError naming `{array}` ({kind}), got {type(e).__name__}: {e}"
    return Finding(program.seed, backend, "wrong-error", why[:2000])


def _form(e: Any) -> tuple[Any, ...]:
    """What every backend must report as `sim` did: the counts of threads that raised per
    line and of those that finished (the grouped IndexError); for a kernel whose threads
    meet at barriers or warp functions and whose unproven accesses are all tested once per
    block, which keeps the first-failure report, the failing
    thread with the smallest global id, its line and its message (array, index, size:
    docs/semantics.md)."""
    if not e.counts:
        return ("first failure", e.block, e.thread, e.line, str(e).split("\n")[0])
    return (tuple(e.counts), e.finished)


def expect_oob(
    kernel: Any, program: Program, backends: tuple[str, ...], refused: list[Finding] | None
) -> list[Finding]:
    """Run an out-of-bounds kernel on `sim` and each backend (twice: what a failed launch
    leaves behind, its failure buffer or context, must not change the next): each launch must
    raise a KernelError naming the array (see the module's doc)."""
    found: list[Finding] = []
    want: tuple[Any, ...] | None = None  # sim's counts of raising and finished threads
    reference = registry.reference()
    for backend in (reference, *backends):
        for again in (False,) if backend == reference else (False, True):
            err: BaseException | None = None
            try:
                _launch(kernel, program, backend)
            except Exception as e:  # noqa: BLE001 - judged below
                if _refusal_ok(program, backend, e) and not again:
                    if refused is not None:
                        refused.append(Finding(program.seed, backend, "refused", str(e)[:200]))
                    break
                err = e
            f = _oob_finding(program, backend, err)
            if f is None and want is not None and _form(err) != want:
                why = f"threads raised and finished {_form(err)}, sim: {want}"
                f = Finding(program.seed, backend, "mismatch", why[:2000])
            if f is not None:
                found.append(_second(f) if again else f)
                break
            if want is None:
                want = _form(err)
    return found


def _second(f: Finding) -> Finding:
    """Finding `f` of a backend's second launch."""
    return Finding(f.seed, f.backend, f.kind, f"second launch: {f.detail}")


def _judge(
    program: Program, backend: str, want: list[np.ndarray], want_text: str,
    got: list[np.ndarray], text: str,
) -> list[Finding]:  # fmt: skip
    """The differences of one launch's arrays and printed text from `sim`'s."""
    found = compare(program.seed, backend, want, got, program.array_names)
    if _unsigned_zeros(text) != _unsigned_zeros(want_text):
        why = f"printed {text[:300]!r}, sim printed {want_text[:300]!r}"
        found.append(Finding(program.seed, backend, "mismatch", why))
    return found


def check(
    program: Program,
    backends: tuple[str, ...],
    nvrtc: bool,
    refused: list[Finding] | None = None,
) -> list[Finding]:
    """Run `program` on `sim` and each of `backends`; compile for CUDA when `nvrtc`. The
    failures are returned; expected refusals (above) are appended to `refused`."""
    seed = program.seed
    try:
        kernel = load(program)
    except SyntaxError as e:  # the generator's fault: reported as such
        return [Finding(seed, "generator", "internal", f"generated source does not parse: {e}")]
    if program.oob is not None:
        wrong = expect_oob(kernel, program, backends, refused)
        return wrong + (nvrtc_findings(kernel, program) if nvrtc else [])
    reference = registry.reference()
    try:
        want, want_text = _launch(kernel, program, reference)
    except Exception as e:  # noqa: BLE001
        return [_error_finding(seed, reference, e)]
    found: list[Finding] = []
    for backend in backends:
        try:
            got, text = _launch(kernel, program, backend)
        except Exception as e:  # noqa: BLE001
            if not _refusal_ok(program, backend, e):
                found.append(_error_finding(seed, backend, e))
            elif refused is not None:
                refused.append(Finding(seed, backend, "refused", str(e).splitlines()[0]))
            continue
        found += _judge(program, backend, want, want_text, got, text)
        # the same launcher again, with fresh arguments: where the runtime keeps a cached path
        # for a launcher (cpu's native fast launch, `runtime/cpu_fast.py`) this launch takes it
        try:
            got, text = _launch(kernel, program, backend)
        except Exception as e:  # noqa: BLE001
            found.append(_second(_error_finding(seed, backend, e)))
            continue
        found += map(_second, _judge(program, backend, want, want_text, got, text))
    if nvrtc:
        found += nvrtc_findings(kernel, program)
    return found
