"""The webgpu runtime's disk cache of rendered WGSL (`runtime/webgpu_cache.py`): a kernel's
WGSL and layout are stored keyed on its IR, and a later compile of the same IR (as in a new
process) takes them from disk instead of rendering again, with its error sites in its own IR."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import thread_idx
from simt.backends.wgsl import render_kernel
from simt.ir import walk
from simt.runtime import registry, webgpu_cache
from simt.runtime import webgpu as W
from simt.runtime.fingerprint import fingerprint
from simt.runtime.webgpu_device import WgslCaps


def _gather(x, idx, out):
    i = thread_idx.x
    out[i] = x[idx[i]]


def _shout(x):
    print("x is", x[0])


def _ir(pyfunc: object, *args: object) -> object:
    fn, _ = simt.kernel(pyfunc).specialised_ir(*args)
    return fn


ARGS = (np.zeros(8, np.float32), np.zeros(8, np.int32), np.zeros(8, np.float32))


def test_an_entry_gives_back_what_was_rendered(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path))
    fn = _ir(_gather, *ARGS)
    caps = WgslCaps(f64=False, i64=False)
    k = W.render_checked(fn, caps)
    assert k.error_ops, "the gather's access is checked: an error site"
    key = webgpu_cache.key(fn, caps, frozenset())
    assert webgpu_cache.load(key, fn) is None
    webgpu_cache.store(key, fn, k)
    again = _ir(_gather, *ARGS)  # the same kernel translated again: other op objects
    assert fingerprint(again) == fingerprint(fn)
    got = webgpu_cache.load(webgpu_cache.key(again, caps, frozenset()), again)
    assert got is not None
    assert (got.source, got.bindings, got.uniform, got.uniform_size, got.entry,
            got.error_record) == (k.source, k.bindings, k.uniform, k.uniform_size, k.entry,
                                  k.error_record)  # fmt: skip
    ops = list(walk(again.body))
    assert [ops.index(o) for o in got.error_ops] == [
        list(walk(fn.body)).index(o) for o in k.error_ops
    ]
    assert [o.loc for o in got.error_ops] == [o.loc for o in k.error_ops]
    # other capabilities or writable arrays: another key
    assert webgpu_cache.key(fn, WgslCaps(), frozenset()) != key
    assert webgpu_cache.key(fn, caps, frozenset({0})) != key


def test_a_changed_renderer_does_not_reuse_old_wgsl(monkeypatch: pytest.MonkeyPatch) -> None:
    # the key once held only simt's version: a driver workaround added to the renderer was
    # not used for kernels already in the cache (a float64 `%` kept NVIDIA's failing form)
    fn = _ir(_gather, *ARGS)
    key = webgpu_cache.key(fn, WgslCaps(), frozenset())
    monkeypatch.setattr(webgpu_cache, "renderer_digest", lambda: "another renderer")
    assert webgpu_cache.key(fn, WgslCaps(), frozenset()) != key


def test_kernels_that_print_are_not_stored(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path))
    fn = _ir(_shout, np.zeros(1, np.float32))
    k = render_kernel(fn)
    key = webgpu_cache.key(fn, WgslCaps(), frozenset())
    webgpu_cache.store(key, fn, k)
    assert webgpu_cache.load(key, fn) is None


def test_a_second_compile_renders_nothing(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    ok, why = registry.probe("webgpu")
    if not ok:
        pytest.skip(f"no WebGPU adapter: {why}")
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path))
    x = np.arange(8, dtype=np.float32)
    idx = np.arange(8, dtype=np.int32)[::-1].copy()
    with simt.using("webgpu"):
        out = np.zeros(8, np.float32)
        simt.kernel(_gather)[1, 8](x, idx, out)
        np.testing.assert_array_equal(out, x[::-1])
        rendered: list[int] = []
        real = W.render_kernel

        def counted(*a: object, **k: object) -> object:
            rendered.append(1)
            return real(*a, **k)  # type: ignore[arg-type]

        monkeypatch.setattr(W, "render_kernel", counted)
        fresh = simt.kernel(_gather)  # a new kernel object: specialised and compiled again
        out2 = np.zeros(8, np.float32)
        fresh[1, 8](x, idx, out2)
        np.testing.assert_array_equal(out2, x[::-1])
        assert not rendered
        bad = idx.copy()
        bad[2] = 8
        with pytest.raises(simt.KernelError, match=r"x\[idx\[i\]\]"):
            fresh[1, 8](x, bad, out2)
