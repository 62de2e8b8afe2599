"""Every REPL input runs with bounds checks on every backend: an index past an array is a
KernelError naming the array, the input's line and a thread, never a write into memory."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

import simt
from simt.repl import commands
from simt.repl.session import Session
from simt.runtime import nvrtc

from .sessions import new_session


def _run(s: Session, buf: io.StringIO, text: str) -> str:
    buf.seek(0)
    buf.truncate()
    with simt.using(s.backend):
        s.run(text)
    return buf.getvalue()


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_store_and_load_past_a_bound_array(backend: str) -> None:
    s, buf = new_session(backend, 64)
    s.bind("buf", (10,), np.dtype(np.int32))
    out = _run(s, buf, "buf[tid] = 1")
    assert out == (  # (each thread that raised stopped there, as in any kernel: #23)
        "KernelError: 54 threads raised IndexError at <input 1>:1 (first: thread 10: index 10 "
        "is out of bounds of `buf` with size 10)\n"
        "    buf[tid] = 1\n"
        "10 threads finished\n"
    )
    out = _run(s, buf, "x = buf[tid + 5]")
    assert out.startswith("KernelError: 59 threads raised IndexError at <input 2>:1 (first: "
                          "thread 5: index 10 is out of bounds of `buf` with size 10)"), out
    # as with any exception of a thread: the threads that finished assigned `x`, those that
    # raised stored nothing (a new variable starts at 0)
    assert s.state["x"].tolist() == [1] * 5 + [0] * 59
    assert _run(s, buf, "buf[tid % 10] = tid % 10") == ""  # the session goes on
    assert s.bound["buf"].tolist() == list(range(10))


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_negative_index_and_shared_arrays_are_checked(backend: str) -> None:
    s, buf = new_session(backend, 64)
    s.bind("buf", (8, 8), np.dtype(np.float64))
    out = _run(s, buf, "buf[tid // 8 - 1, tid % 8] = 1.0")
    assert "(first: thread 0: index -1 is out of bounds for axis 0 of `buf` with size 8)" in out
    with simt.using(s.backend):
        commands.run(s, "%block 16")
    _run(s, buf, "cache = shared(16)")
    out = _run(s, buf, "cache[threadIdx + 1] = 2.0")
    assert out.startswith("KernelError: 4 threads raised IndexError at <input 3>:1 (first: "
                          "thread 15: index 16 is out of bounds for axis 1 of `cache` with "
                          "size 16)"), out


def test_repl_kernels_are_built_with_bounds_checks_for_cuda(monkeypatch: Any) -> None:
    """The cuda backend runs the same kernel: its CUDA C++ checks every access (compiled
    by NVRTC where present)."""
    made: list[Any] = []
    real = simt.kernel

    def record(*a: Any, **kw: Any) -> Any:
        k = real(*a, **kw)
        made.append(k)
        return k

    monkeypatch.setattr(simt, "kernel", record)
    s, buf = new_session("sim", 64)
    s.bind("buf", (10,), np.dtype(np.int32))
    _run(s, buf, "buf[tid] = 1")
    (k,) = made
    src = k.source("cuda", np.zeros(64, np.int32), np.zeros(10, np.int32))  # progress, buf
    assert "simt_failures" in src  # the store is guarded; the thread's record names it
    if nvrtc.version() is not None:
        nvrtc.compile_cubin(src, "sm_80")
