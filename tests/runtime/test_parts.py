"""What each runtime declares of itself: its renderer, its capabilities (host memory, view
checks, ...), its nominal profile and its device's facts; the pipeline, the profiles, the
advisor, the benchmark suite and the fuzzer read them."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import simt
from simt import pipeline
from simt.benchtool.profile import load_profile
from simt.errors import BackendUnavailable
from simt.runtime import registry
from simt.runtime.base import Nominal, Runtime


@simt.kernel
def double(a, out):
    i = simt.grid(1)
    if i < len(out):
        out[i] = a[i] * 2.0


@pytest.mark.parametrize("name", list(registry.RUNTIMES))
def test_every_runtime_declares_its_parts(name: str) -> None:
    cls = registry.runtime_class(name)
    assert isinstance(cls.nominal, Nominal) and cls.nominal.copy_bandwidth > 0
    assert cls.host_memory == (name in ("sim", "cpu"))
    a = np.ones(4, np.float32)
    text = double.source(name, a, np.zeros(4, np.float32))  # no device needed
    assert text.strip()


# what each backend is, stated once here and checked against the capabilities it declares
# (every other part asks the capability, never the name: tests/test_layering.py)
CAPABILITIES = {
    "sim": {"host_memory", "checks_views", "reference", "lockstep", "warp_native"},
    "cpu": {"host_memory", "spmd", "host_threads"},
    "cuda": {"latency_hiding", "compiles_without_device", "cuda_arrays", "warp_native"},
    "webgpu": {"latency_hiding", "refuses_types"},
}
FLAGS = sorted(
    n for n, v in vars(Runtime).items() if isinstance(v, bool) and not n.startswith("_")
)


@pytest.mark.parametrize("name", list(registry.RUNTIMES))
def test_every_runtime_declares_its_capabilities(name: str) -> None:
    cls = registry.runtime_class(name)
    assert {f for f in FLAGS if getattr(cls, f)} == CAPABILITIES[name]
    assert all(registry.has(name, f) == (f in CAPABILITIES[name]) for f in FLAGS)
    assert cls.unit_word == ("cores" if cls.host_memory else "multiprocessors")
    assert cls.source_comment == ("#" if name == "sim" else "//")
    assert not registry.has("metal", "host_memory")  # no such backend: no capability
    with pytest.raises(AttributeError, match="no capability"):
        registry.has(name, "host_memroy")


def test_the_reference_runtime_is_the_one_declaring_it() -> None:
    """`registry.reference()`, what differential runs compare with and tuning's host stand-ins
    are made for, is the runtime declaring `reference` (CAPABILITIES: sim), always present."""
    (ref,) = (n for n, caps in CAPABILITIES.items() if "reference" in caps)
    assert registry.reference() == ref
    assert registry.probe(ref)[0] and registry.has(ref, "host_memory")


def test_every_runtime_keeps_view_checks_unless_boundscheck_is_off() -> None:
    """`pipeline.for_runtime` keeps the front end's view checks for every runtime, as it keeps
    array bounds checks (they were dropped outside debug mode, and an index past a view read
    the array's next elements on cpu and webgpu); `boundscheck=False` drops them everywhere
    but on sim, which checks every access itself (`checks_views`)."""

    def window(a, out, lo):
        i = simt.grid(1)
        if i < len(out):
            w = a[lo:]
            out[i] = w[i]

    def checks(fn: simt.ir.Function) -> int:
        return sum(op.opcode == "assert" and bool(op.attrs.get("view_check"))
                   for op in simt.ir.walk(fn.body))  # fmt: skip

    def kept_by(kernel: simt.Kernel) -> set[str]:
        fn, _ = kernel.specialised_ir(np.ones(8, np.float32), np.zeros(4, np.float32), 2)
        assert checks(fn) > 0
        prepared = {name: pipeline.for_runtime(copy.deepcopy(fn), registry.runtime_class(name))
                    for name in registry.RUNTIMES}  # fmt: skip
        return {name for name, f in prepared.items() if checks(f)}

    assert kept_by(simt.kernel(window)) == set(registry.RUNTIMES)
    assert kept_by(simt.kernel(boundscheck=False)(window)) == {"sim"}


def test_the_pipeline_renders_through_the_runtime() -> None:
    a = np.ones(4, np.float32)
    fn = double.specialise(double.bind(a, a.copy()), registry.get("sim")).fn
    assert pipeline.render("sim", fn) == registry.runtime_class("sim").source(fn)
    assert pipeline.render("ir", fn) == simt.ir.format_function(fn)
    with pytest.raises(BackendUnavailable, match="choose one of"):
        pipeline.render("metal", fn)


def test_host_memory_arrays_are_numpy_buffers() -> None:
    with simt.using("sim"):
        d = simt.to_device(np.arange(3, dtype=np.float32))
        assert isinstance(d.buf, np.ndarray)


def test_an_uncalibrated_profile_is_the_runtimes_nominal_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path))
    from simt.benchtool import profile

    monkeypatch.setattr(profile, "_loaded", {})
    prof = load_profile("sim")
    nom = registry.runtime_class("sim").nominal
    assert not prof.calibrated
    assert (prof.copy_bandwidth, prof.launch_overhead, prof.line_bytes) == (
        nom.copy_bandwidth,
        nom.launch_overhead,
        nom.line_bytes,
    )
    assert prof.device == "numpy"
