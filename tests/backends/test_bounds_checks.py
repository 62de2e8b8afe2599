"""Bounds checks without a device: by default an access no proof covers is checked by the
front end as raising the thread's IndexError (`frontend.raising.check_index`, the same IR for
every backend), the access itself then marked in bounds; the renderers' own checks
(`backends.common.checked`, `clike.CRenderer.in_bounds`, the LLVM renderer's `_address`) are
those of debug mode and of kernels whose threads meet at barriers: which accesses they check,
the opt-out, an access proven in bounds (`op.attrs["inbounds"]`, set by the proving pass), the
CUDA error record decoded, checked kernels compiled by NVRTC. That a failing access is a
KernelError at run time is tests/runtime/test_bounds.py's job."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import simt
from simt.backends import cuda, cuda_layout, wgsl
from simt.backends.common import error_sites
from simt.ir import Function, walk
from simt.ir.ops import MEMORY
from simt.pipeline import build, prepare
from simt.runtime import nvrtc
from simt.runtime.base import Compiled, Dim3
from simt.runtime.cpu import lower_and_render
from simt.runtime.cuda import decode_error, nvrtc_options


class _IrOnly:
    """A stand-in runtime for `Kernel.specialise` that keeps the IR and compiles nothing."""

    name = "ir-only"
    checks_views = True  # `pipeline.prepare` leaves the IR as the front end made it (no proofs)
    lockstep = warp_native = True  # nor lowers barriers or warp functions

    def has_int64(self) -> bool:  # a cuda.jit kernel asks (Numba's int64 typing needs it)
        return True

    def compile(self, fn: Function) -> object:
        return Compiled(fn, "")


def _shift(a: Any, out: Any) -> None:
    i = simt.grid(1)
    if i < len(out):
        out[i] = a[i + 1]


def _unguarded(a: Any, out: Any) -> None:
    i = simt.grid(1)
    out[i] = a[i + 1]


def _rows(m: Any, out: Any) -> None:
    i, j = simt.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = m[i, j + 1] * 2.0


def ir(pyfunc: Any, *args: Any, **options: Any) -> Function:
    """The IR a launch of `pyfunc` compiled with `options` would start from."""
    k = simt.kernel(pyfunc, **options)
    return k.specialise(list(args), _IrOnly()).fn  # type: ignore[arg-type]


def renderer_ir(pyfunc: Any, *args: Any, **options: Any) -> Function:
    """`ir`, without the front end's IndexError checks (`pipeline.build(raising=False)`):
    every access left to the renderers' checks, as in debug mode."""
    k = simt.kernel(pyfunc, **options)
    specs = k.arg_specs(*args)
    return build(pyfunc, specs, False, False, raising=False)  # type: ignore[no-any-return]


def _raising(fn: Function) -> list[str]:
    """The arrays whose accesses the front end checks as raising IndexError (sorted)."""
    return sorted({op.attrs["array"] for op in walk(fn.body) if op.attrs.get("check")})


def _args() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(9, np.float32), np.zeros(8, np.float32)


def _checks(backend: str, fn: Function) -> int:
    """How many accesses the backend's text checks."""
    if backend == "cuda":
        kern = cuda.build(fn)
        return sum(1 for op in kern.sites if op.opcode in MEMORY)
    if backend == "webgpu":
        return len(re.findall(r"let in_bounds\d+ =", wgsl.render_kernel(fn).source))
    _, meta = lower_and_render(fn)
    return sum(1 for op in meta.sites.values() if op.opcode in MEMORY)


BACKENDS = ("cuda", "webgpu", "cpu")


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_access_is_checked_by_default(backend: str) -> None:
    fn = ir(_shift, *_args())
    assert fn.boundscheck and fn.checks_bounds and not fn.debug
    # the load of `a` (guarded on `out`: no proof for every launch), and so every access, is
    # checked by the front end as raising IndexError; none by the renderer
    assert _raising(fn) == ["a", "out"] and _checks(backend, fn) == 0
    prepare(fn, backend)  # as a launch compiles it: the store's check proven and gone
    assert _raising(fn) == ["a"] and _checks(backend, fn) == 0
    # with every access unguarded, each one raises IndexError
    assert _raising(ir(_unguarded, *_args())) == ["a", "out"]
    # the renderers check every access themselves where the front end does not
    assert _checks(backend, renderer_ir(_shift, *_args())) == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_boundscheck_false_compiles_no_check(backend: str) -> None:
    fn = ir(_shift, *_args(), boundscheck=False)
    assert not fn.checks_bounds
    assert _checks(backend, fn) == 0
    if backend == "cpu":
        text, _ = lower_and_render(fn)
        assert "simt.fail" not in text and "!prof" not in text
    elif backend == "cuda":
        assert "simt_fail" not in cuda.build(fn).source
    else:
        assert "simt_fail" not in wgsl.render_kernel(fn).source


@pytest.mark.parametrize("backend", BACKENDS)
def test_debug_checks_even_with_boundscheck_false(backend: str) -> None:
    fn = ir(_shift, *_args(), boundscheck=False, debug=True)
    # (as raising IndexError, the front end's checks, as in any kernel: #23)
    assert _raising(fn) == ["a", "out"] and _checks(backend, fn) == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_access_marked_inbounds_has_no_check(backend: str) -> None:
    fn = renderer_ir(_shift, *_args())
    store = next(op for op in walk(fn.body) if op.opcode == "store")
    store.attrs["inbounds"] = True  # what the proving pass sets
    assert _checks(backend, fn) == 1  # the load only
    assert store not in error_sites(fn, fn.checks_bounds)
    assert store in error_sites(fn, True, proven_too=True)  # sim checks it all the same


def test_boundscheck_false_is_in_the_ir_and_its_text() -> None:
    fn = ir(_shift, *_args(), boundscheck=False)
    assert fn.boundscheck is False
    assert "boundscheck=False" in simt.ir.format_function(fn)


def test_boundscheck_travels_through_simt_compile() -> None:
    k = simt.compile(_shift, boundscheck=False)
    assert isinstance(k, simt.Kernel) and k.boundscheck is False
    assert simt.compile(simt.kernel(_shift, boundscheck=False)).boundscheck is False
    assert simt.compile(_shift).boundscheck is True


def test_cuda_error_record_names_the_index_and_shape() -> None:
    fn = renderer_ir(_rows, np.zeros((4, 5), np.float32), np.zeros((4, 5), np.float32))
    kern = cuda.build(fn)
    load = next(op for op in kern.sites if op.opcode == "load")
    site = kern.sites.index(load) + 1
    grid, block = Dim3(1, 1, 1), Dim3(8, 4, 1)
    thread = 3 * 8 + 4  # thread (4, 3): i = 3, j = 4 reads m[3, 5]
    key = thread << 20 | site
    words = np.full(cuda_layout.ERR_WORDS, 0, np.uint64)
    words[0] = key
    words[cuda_layout.ERR_RECORD + 1] = key
    words[cuda_layout.ERR_RECORD + 2] = 2
    base = cuda_layout.ERR_RECORD + 3
    words[base : base + 2] = [3, 5]
    words[base + cuda_layout.RECORD_DIMS : base + cuda_layout.RECORD_DIMS + 2] = [4, 5]
    err = decode_error(words, kern, grid, block)
    assert err is not None
    msg = str(err)
    assert "`m`" in msg and "(index (3, 5), shape (4, 5))" in msg
    assert "m[i, j + 1]" in msg
    assert err.thread == (4, 3, 0)  # type: ignore[attr-defined]
    words[0] = np.uint64(2**64 - 1)
    assert decode_error(words, kern, grid, block) is None


def test_cuda_negative_index_is_reported_signed() -> None:
    fn = renderer_ir(_shift, *_args())
    kern = cuda.build(fn)
    site = next(k for k, op in enumerate(kern.sites, 1) if op.opcode == "load")
    words = np.zeros(cuda_layout.ERR_WORDS, np.uint64)
    words[0] = words[cuda_layout.ERR_RECORD + 1] = 7 << 20 | site
    words[cuda_layout.ERR_RECORD + 2] = 1
    words.view(np.int64)[cuda_layout.ERR_RECORD + 3] = -1
    words[cuda_layout.ERR_RECORD + 3 + cuda_layout.RECORD_DIMS] = 9
    err = decode_error(words, kern, Dim3(1, 1, 1), Dim3(8, 1, 1))
    assert err is not None and "(index -1, length 9)" in str(err)


needs_nvrtc = pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is not installed")


@needs_nvrtc
@pytest.mark.parametrize("pyfunc", [_shift, _rows], ids=["1d", "2d"])
def test_checked_kernels_compile_with_nvrtc(pyfunc: Any) -> None:
    args = _args() if pyfunc is _shift else (np.zeros((4, 6)), np.zeros((4, 5)))
    # the renderer's own checks (debug mode's), and the default: the thread's IndexError
    checked = cuda.build(renderer_ir(pyfunc, *args))
    assert "simt_fail_at(" in checked.source
    raising = cuda.build(ir(pyfunc, *args))
    assert "simt_failures" in raising.source
    for kern in (checked, raising):
        for arch in ("sm_80", "sm_90"):
            nvrtc.compile_cubin(kern.source, arch, nvrtc_options(kern))
