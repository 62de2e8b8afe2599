"""Never a hang (issue 23): a thread whose loop ends only by failing (its index walks off an
array) stops at the failing access and the launch ends with the grouped KernelError, in every
kind of kernel: one whose threads meet at a barrier, one compiled with `debug=True`, and a
REPL input (docs/semantics.md, "Arrays and memory"). Before, those kernels kept the backends'
own checks, under which a failing load read 0 and its thread went on: the loops below never
ended (sim, cpu, webgpu).

Each backend runs the three cases in a child process with a time limit, so that a regression
fails the test instead of hanging the test run; the child prints what each case ended with,
so a limit reached names the case that hung. `cuda` (no GPU here): NVRTC compiles the same
kernels, and their barriers are all reached by every thread of a block (`passes.barriers`),
so a thread that stopped cannot keep its block waiting at a later `__syncthreads()`."""

from __future__ import annotations

import importlib.util
import inspect
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simt
from simt.runtime import nvrtc, registry
from spawn_env import pythonpath

LIMIT_S = 240  # a child's time limit: compiling three kernels on a loaded machine included

CHILD = textwrap.dedent(
    """
    import io, json, sys
    import numpy as np
    import simt
    from simt.repl.console import PlainSink
    from simt.repl.session import Session

    @simt.kernel
    def with_barrier(a, out):
        i = simt.thread_idx.x
        while a[i] != 5:  # barrier
            i += 1
        simt.syncthreads()
        out[simt.grid(1)] = i

    @simt.kernel(debug=True)
    def in_debug(a, out):
        i = simt.thread_idx.x
        while a[i] != 5:  # debug
            i += 1
        out[simt.grid(1)] = i

    def launch(case, k):
        a = np.zeros(40, np.int32)
        a[20] = 5  # threads 0 to 20 of each block find it; 21 to 31 walk off the end
        out = np.full(64, -1, np.int32)
        try:
            k[2, 32](a, out)
            simt.synchronize()
            error = None
        except simt.KernelError as e:
            error = str(e)
        print(json.dumps([case, error, out.tolist()]), flush=True)

    if __name__ == "__main__":
        backend = sys.argv[1]
        simt.use(backend)
        launch("barrier", with_barrier)
        launch("debug", in_debug)
        buf = io.StringIO()
        s = Session(PlainSink(buf), threads=64, backend=backend)
        s.bind("a", (40,), np.dtype(np.int32))
        s.bound["a"][20] = 5
        s.run("i = tid\\nwhile a[i] != 5:\\n    i += 1\\n")
        print(json.dumps(["repl", buf.getvalue(), None]), flush=True)
    """
)


def _line(case: str) -> int:
    """The line of the loop marked `# case` in the child's source (1-based)."""
    lines = CHILD.splitlines()
    return next(n for n, t in enumerate(lines, 1) if t.endswith(f"# {case}"))


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_a_loop_that_walks_off_an_array_ends_with_the_kernel_error(
    backend: str, tmp_path: Path
) -> None:
    present, why = registry.probe(backend)
    if not present:  # (CI requires every backend: tests/conftest.py)
        pytest.skip(f"{backend} not present: {why}")
    script = tmp_path / "walk.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=pythonpath())
    try:
        run = subprocess.run(
            [sys.executable, str(script), backend], capture_output=True, text=True,
            timeout=LIMIT_S, env=env,
        )  # fmt: skip
    except subprocess.TimeoutExpired as e:
        done = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        pytest.fail(f"the launches did not end in {LIMIT_S} s (a hang); they printed:\n{done}")
    assert run.returncode == 0, run.stderr
    got = {case: (error, out) for case, error, out in map(json.loads, run.stdout.splitlines())}
    for case in ("barrier", "debug"):
        # 11 threads of each block raised (the first: block 0's thread 21), 21 of each finished
        assert got[case][0] == (
            f"22 threads raised IndexError at {script}:{_line(case)} (first: thread 21: "
            "index 40 is out of bounds of `a` with size 40)\n"
            f"    while a[i] != 5:  # {case}\n"
            "42 threads finished"
        ), case
        # the threads that raised stored nothing after their loop; the others finished
        assert got[case][1] == ([20] * 21 + [-1] * 11) * 2, case
    assert got["repl"][0] == (
        "KernelError: 43 threads raised IndexError at <input 1>:2 (first: thread 21: index 40 "
        "is out of bounds of `a` with size 40)\n    while a[i] != 5:\n21 threads finished\n"
        # (no note on `i`: every thread assigned it in the statement before the one that
        # raised, and a raising thread keeps what the statements before that one assigned
        # since e1dcacb)
    )


def _cuda_checks(k: simt.Kernel, *args: object) -> None:
    """What the cuda runtime compiles of `k` on `args`: every barrier is under control that
    is the same in every thread of the block; the failing access raises IndexError (the
    failure buffer, the records' atomics); the kernel never leaves early (no `return`: a
    thread that raised runs on to the kernel's end without effects); NVRTC compiles it."""
    from simt.ir import walk
    from simt.passes.barriers import _divergent, has_barrier
    from simt.passes.uniformity import varying
    from simt.pipeline import for_runtime, render

    fn = for_runtime(k.build_ir(k.arg_specs(*args, backend="cuda")), "cuda")
    var = varying(fn, loads=False)
    assert not any(_divergent(op, var) for op in walk(fn.body) if has_barrier(op))
    src = render("cuda", k.build_ir(k.arg_specs(*args, backend="cuda")))
    assert "simt_failures" in src and "atomicAdd" in src
    kernel = src.split('extern "C" __global__', 1)[1]  # (after simt's helper functions)
    assert "return" not in kernel
    if nvrtc.version() is not None:
        nvrtc.compile_cubin(src, "sm_80")


def test_cuda_kernels_stop_a_failing_thread_without_a_barrier_it_misses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The barrier and debug kernels and the REPL input as `cuda` compiles them (no GPU
    here): each `__syncthreads()` is reached by every thread of the block, so a thread that
    stopped cannot keep the others waiting (`_cuda_checks`)."""
    script = tmp_path / "walk.py"
    script.write_text(CHILD)
    spec = importlib.util.spec_from_file_location("walk", script)
    assert spec is not None and spec.loader is not None
    walk_py = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(walk_py)  # the child's kernels, not its launches
    a, out = np.zeros(40, np.int32), np.zeros(64, np.int32)
    _cuda_checks(walk_py.with_barrier, a, out)
    assert "__syncthreads();" in walk_py.with_barrier.source("cuda", a, out)
    _cuda_checks(walk_py.in_debug, a, out)

    made: list[simt.Kernel] = []
    real = simt.kernel

    def record(*args: Any, **kw: Any) -> Any:
        k = real(*args, **kw)
        made.append(k)
        return k

    monkeypatch.setattr(simt, "kernel", record)
    from simt.repl.console import PlainSink
    from simt.repl.session import Session

    with simt.using("sim"):
        s = Session(PlainSink(io.StringIO()), threads=64, backend="sim")
    s.bind("a", (40,), np.dtype(np.int32))
    s.bound["a"][20] = 5
    with simt.using("sim"):
        s.run("i = tid\nwhile a[i] != 5:\n    i += 1\n")
    (k,) = made
    # its arguments by parameter: the bound array, each thread's done flag, `i` leaving
    args = [s.bound["a"] if p == "a" else np.zeros(64, np.bool_ if "done" in p else np.int64)
            for p in inspect.signature(k.pyfunc).parameters]  # fmt: skip
    _cuda_checks(k, *args)
