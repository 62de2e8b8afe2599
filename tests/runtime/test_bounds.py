"""Bounds safety by default (issue 23): the first mistakes of GPU programming are a KernelError
naming the array, the index and the shape on every backend, never a crash, never a read or
write of other memory. Each backend runs the examples in a subprocess of its own, so a crash
(the segfault or heap abort these examples gave on `cpu` before) fails the test instead of
ending the test run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from simt.runtime import registry

BACKENDS = ["sim", "cpu", "webgpu"]

# Each example: its launch in the subprocess and what its KernelError must say.
SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import simt

    @simt.kernel
    def add(a, b, c):
        i = simt.grid(1)
        c[i] = a[i] + b[i]            # the `if i < len(c)` guard forgotten

    @simt.kernel
    def copy(a, out):
        i = simt.grid(1)
        if i < len(out):              # guarded on the output, the input is too small
            out[i] = a[i]

    @simt.kernel
    def diff(a, out):
        i = simt.grid(1)
        if i < len(out):
            out[i] = a[i] - a[i - 1]  # a[-1] at i == 0

    @simt.kernel
    def right(m, out):
        x, y = simt.grid(2)
        if y < out.shape[0] and x < out.shape[1]:
            out[y, x] = m[y, x + 1]   # past the end of a row at the last column

    @simt.kernel
    def shared(out):
        s = simt.shared.array(8, simt.float32)
        t = simt.thread_idx.x
        s[t] = 1.0                    # 16 threads, 8 elements
        simt.syncthreads()
        out[t] = s[0]

    @simt.kernel
    def local(out, n):
        i = simt.grid(1)
        a = simt.local.array(4, simt.int32)
        a[n] = i
        out[i] = a[0]

    @simt.kernel
    def fill(c):
        i = simt.grid(1)
        c[i] = 1.0                    # no guard: the store must not land past c

    f32 = np.float32
    n = 1000
    buf = np.full(n + 24, 7.0, f32)   # c is a view of its start; the rest must stay 7.0
    examples = {
        "add": lambda: add[(n + 255) // 256, 256](np.ones(n, f32), np.ones(n, f32),
                                                  np.zeros(n, f32)),
        "copy": lambda: copy[4, 256](np.ones(500, f32), np.zeros(n, f32)),
        "diff": lambda: diff[4, 256](np.ones(n, f32), np.zeros(n, f32)),
        "right": lambda: right[(1, 2), (8, 4)](np.ones((8, 8), f32), np.zeros((8, 8), f32)),
        "shared": lambda: shared[1, 16](np.zeros(16, f32)),
        "local": lambda: local[1, 8](np.zeros(8, np.int32), 5),
        "fill": lambda: fill[(n + 255) // 256, 256](buf[:n]),
    }
    simt.use(sys.argv[1])
    out = {}
    for name, run in examples.items():
        try:
            run()
            simt.synchronize()
            out[name] = "no error"
        except simt.KernelError as e:
            out[name] = str(e)
    out["fill tail"] = buf[n:].tolist()
    print(json.dumps(out))
    """
)

# an out-of-bounds access is an IndexError of its thread: the thread stops, the others finish,
# and the launch raises one KernelError grouping the threads that raised
EXPECTED = {
    "add": "24 threads raised IndexError at ",
    "copy": "500 threads raised IndexError at ",
    "diff": "1 thread raised IndexError at ",
    "right": "8 threads raised IndexError at ",
    "local": "8 threads raised IndexError at ",
    "fill": "24 threads raised IndexError at ",
}
FIRST = {
    "add": "(first: thread 1000: index 1000 is out of bounds of `a` with size 1000)",
    "copy": "(first: thread 500: index 500 is out of bounds of `a` with size 500)",
    "diff": "(first: thread 0: index -1 is out of bounds of `a` with size 1000)",
    "right": "(first: thread 7: index 8 is out of bounds for axis 1 of `m` with size 8)",
    "local": "(first: thread 0: index 5 is out of bounds of `a` with size 4)",
    "fill": "(first: thread 1000: index 1000 is out of bounds of `c` with size 1000)",
}
FINISHED = {"add": 1000, "copy": 524, "diff": 1023, "right": 56, "local": 0, "fill": 1000}
# a kernel whose threads meet at a barrier and whose unproven accesses are all tested once per
# block keeps the backends' own check in the blocks the test fails (docs/semantics.md)
FIRST_FAILURE = {
    "shared": "index out of bounds in array write of `s` (index 8, length 8) (block (0, 0, 0), "
              "thread (8, 0, 0))",
}
LINES = {
    "add": "c[i] = a[i] + b[i]",
    "copy": "out[i] = a[i]",
    "diff": "out[i] = a[i] - a[i - 1]",
    "right": "out[y, x] = m[y, x + 1]",
    "shared": "s[t] = 1.0",
    "local": "a[n] = i",
    "fill": "c[i] = 1.0",
}


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_of_bounds_examples_are_kernel_errors(backend: str, tmp_path: object) -> None:
    if backend != "sim" and not registry.probe(backend)[0]:
        pytest.skip(f"{backend} not present: {registry.probe(backend)[1]}")
    script = os.path.join(str(tmp_path), "oob.py")
    with open(script, "w") as f:
        f.write(SCRIPT)
    run = subprocess.run(
        [sys.executable, script, backend], capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, f"the process died ({run.returncode}):\n{run.stderr[-3000:]}"
    got = json.loads(run.stdout.strip().splitlines()[-1])
    for name, want in EXPECTED.items():
        assert got[name].startswith(want), (name, got[name])
        assert FIRST[name] in got[name], (name, got[name])
        assert got[name].endswith(f"\n{FINISHED[name]:,} threads finished"), (name, got[name])
        assert LINES[name] in got[name], (name, got[name])  # the user's line
        assert "oob.py" in got[name], (name, got[name])
    for name, want in FIRST_FAILURE.items():
        assert want in got[name] and "oob.py:" in got[name], (name, got[name])
        assert LINES[name] in got[name], (name, got[name])
    assert got["fill tail"] == [7.0] * 24  # the failing stores wrote nothing past `c`


def test_a_coarsened_cpu_launch_names_the_users_block_and_thread() -> None:
    """On `cpu`, adjacent blocks run as one wider block (`passes.spmd.coarsen`) also with
    checks on; the failing thread is named in the launch the user asked for."""
    import numpy as np

    import simt
    from simt.runtime.base import Dim3
    from simt.runtime.cpu import coarse_thread

    # thread 37 of a wide block of 4 x 64 threads (grid 8 wide blocks, 32 asked): block 2 * 4
    # + 37 // 64 = 8 of the user's launch, its thread 37
    assert coarse_thread(2 * 256 + 37, Dim3(8, 1, 1), Dim3(256, 1, 1), 64) == (
        (8, 0, 0),
        (37, 0, 0),
    )

    @simt.kernel
    def add(a: Any, b: Any, c: Any) -> None:
        i = simt.grid(1)
        c[i] = a[i] + b[i]

    n = 4096 * 256 - 5  # a launch large enough to be coarsened
    a = np.ones(n, np.float32)
    with simt.using("cpu"):
        with pytest.raises(simt.KernelError) as e:
            add[4096, 256](a, a, np.zeros(n, np.float32))
    want = "(first: thread 1048571: index 1048571 is out of bounds of `a` with size 1048571)"
    assert want in str(e.value)
    assert (e.value.block, e.value.thread) == ((4095, 0, 0), (251, 0, 0))
    assert e.value.finished == n and [f.thread for f in e.value.failures] == list(range(n, n + 5))


def test_a_thread_raising_before_a_try_is_not_caught_by_it() -> None:
    """Fuzz seed 40005 (--oob): a thread that raised IndexError outside any `try` then
    reached a `try` whose handler took the exception for its own; the launch was silent."""
    import numpy as np

    import simt

    @simt.kernel
    def k(out: Any) -> None:
        i = simt.grid(1)
        out[i + 1] = 1.5  # the last thread stores past the end
        x = i
        try:
            if i < 0:
                raise ValueError("never")
            x = x * 2
        except ValueError:
            x = -1
        out[i] = x

    for backend in ("sim", "cpu"):
        out = np.zeros(8, np.float32)
        with simt.using(backend), pytest.raises(simt.KernelError, match="index 8 is out of"):
            k[1, 8](out)
        assert out.tolist() == [0, 2, 4, 6, 8, 10, 12, 1.5], backend  # thread 7 stopped
