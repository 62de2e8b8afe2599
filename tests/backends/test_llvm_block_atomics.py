"""The CPU renderer turns atomics on shared memory into plain read-modify-writes (a block's
threads run on one CPU thread) and keeps global ones atomic."""

from __future__ import annotations

import sys
from pathlib import Path

from simt.backends.llvm import render

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests/ folder
from corpus.k_shared_atomics import _make, shared_atomics  # noqa: E402


def test_shared_atomics_are_plain_and_global_ones_atomic() -> None:
    from simt.pipeline import build

    args = _make()
    specs, _ = shared_atomics._specs(shared_atomics._bind(args, {}), "cpu")
    text = render(build(shared_atomics.pyfunc, specs, False, False))
    # the global adds/min/max of the block's results stay atomic; the shared ones do not
    assert text.count("atomicrmw") == 4  # claims add, hist add, lo_hi min and max
    assert "cmpxchg" not in text  # the cas on the shared flag
