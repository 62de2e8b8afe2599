"""The CPU renderer turns atomics on shared memory into plain read-modify-writes (a block's
threads run on one CPU thread) and keeps global ones atomic."""

from __future__ import annotations

from corpus.k_shared_atomics import _make, shared_atomics
from simt.runtime.cpu import lower_and_render


def test_shared_atomics_are_plain_and_global_ones_atomic() -> None:
    from simt.pipeline import build

    args = _make()
    specs = shared_atomics.arg_specs(*args, backend="cpu")
    text, _ = lower_and_render(build(shared_atomics.pyfunc, specs, False, False))
    # the kernel's own atomics, not those of the bounds checks' failure paths (the error
    # word's `atomicrmw min ptr %ctx`, the error record's lock)
    lines = [ln for ln in text.splitlines() if "%ctx" not in ln and "acquire" not in ln]
    kernel_text = "\n".join(lines)
    # the global adds/min/max of the block's results stay atomic; the shared ones do not
    assert kernel_text.count("atomicrmw") == 4  # claims add, hist add, lo_hi min and max
    assert "cmpxchg" not in kernel_text  # the cas on the shared flag
