"""Streaming `print` (runtime/printing.py): a launch on `cpu` or `sim` that runs longer than
`SIMT_STREAM_PRINT` seconds writes what its threads printed while it runs, each thread's lines
in their order; a short one (or with streaming off) writes thread-major when it ends."""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest

import simt
from simt.runtime import printing


@simt.kernel
def progress(n, work, out):
    i = simt.grid(1)
    acc = 0.0
    for step in range(n):
        for k in range(work):
            acc += k * 0.5
        if i < 3:
            print("thread", i, "step", step)
    out[i] = acc


class Writes:
    """A stdout recording each write with the time it came."""

    def __init__(self) -> None:
        self.writes: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        self.writes.append((time.monotonic(), text))
        return len(text)

    def flush(self) -> None:
        pass

    def lines(self) -> list[str]:
        return "".join(t for _, t in self.writes).splitlines()


def _run(backend: str, n: int, work: int, monkeypatch: pytest.MonkeyPatch) -> Writes:
    simt.use(backend)
    out = np.zeros(8, np.float32)
    progress[1, 8](1, 1, out)  # compiled before the timed launch
    w = Writes()
    monkeypatch.setattr(sys, "stdout", w)
    progress[1, 8](n, work, out)
    monkeypatch.setattr(sys, "stdout", sys.__stdout__)
    return w


def _per_thread(lines: list[str]) -> dict[str, list[str]]:
    got: dict[str, list[str]] = {}
    for line in lines:
        got.setdefault(line.split()[1], []).append(line)
    return got


def test_sim_streams_each_print_as_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMT_STREAM_PRINT", "0")
    w = _run("sim", 4, 2, monkeypatch)
    # one write per print op run: step by step, the three threads' lines in thread order
    assert [t for _, t in w.writes] == [
        "".join(f"thread {i} step {s}\n" for i in range(3)) for s in range(4)
    ]


def test_cpu_streams_while_the_launch_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMT_STREAM_PRINT", "0")
    start = time.monotonic()
    w = _run("cpu", 40, 3_000_000, monkeypatch)
    took = time.monotonic() - start
    lines = w.lines()
    per = _per_thread(lines)
    assert sorted(per) == ["0", "1", "2"]
    for i, got in per.items():  # every line once, each thread's in its order
        assert got == [f"thread {i} step {s}" for s in range(40)]
    if took > 0.5:  # the watcher polls every 0.1 s: a launch this long streamed in parts
        assert len(w.writes) > 1


@pytest.mark.parametrize("setting", ["off", "5"])
def test_short_or_unstreamed_launches_print_thread_major(
    setting: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIMT_STREAM_PRINT", setting)
    for backend in ("sim", "cpu"):
        w = _run(backend, 3, 2, monkeypatch)
        assert len(w.writes) == 1
        assert w.lines() == [f"thread {i} step {s}" for i in range(3) for s in range(3)]


def test_stream_print_api_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMT_STREAM_PRINT", "off")
    assert printing.stream_after() is None
    monkeypatch.setenv("SIMT_STREAM_PRINT", "")
    assert printing.stream_after() == printing.DEFAULT_STREAM_AFTER
    try:
        simt.stream_print(0.25)
        assert printing.stream_after() == 0.25
        simt.stream_print(None)
        assert printing.stream_after() is None
    finally:
        simt.stream_print()  # back to the environment's setting
    monkeypatch.setenv("SIMT_STREAM_PRINT", "2")
    assert printing.stream_after() == 2.0


def test_the_repl_capture_never_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMT_STREAM_PRINT", "0")
    with printing.capture() as sink:
        w = _run("sim", 2, 1, monkeypatch)
    assert w.writes == []  # (the first three records: the compiling launch)
    assert [t for t, _ in sink][3:] == [0, 0, 1, 1, 2, 2]
