"""What each runtime declares of itself: its renderer, whether its memory is host memory, its
nominal profile and its device's facts; the pipeline and the profiles read them."""

from __future__ import annotations

import numpy as np
import pytest

import simt
from simt import pipeline
from simt.benchtool.profile import load_profile
from simt.errors import BackendUnavailable
from simt.runtime import registry
from simt.runtime.base import Nominal


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


def test_the_pipeline_renders_through_the_runtime() -> None:
    a = np.ones(4, np.float32)
    fn = double.specialise(double._bind((a, a.copy()), {}), registry.get("sim")).fn
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
