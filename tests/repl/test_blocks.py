"""`%block`: threads that cooperate in blocks, `syncthreads()` and shared arrays in the REPL."""

from __future__ import annotations

import io

import pytest

from simt.repl import commands
from simt.repl.session import Session
from simt.runtime import registry

from .sessions import new_session

# gpusnek's Figure 3: the average of an array, by the threads of a block through a shared cache
FIGURE3 = [
    "%block 256",
    "%bind data 256 float64",
    "import math",
    "N = 256",
    "data[threadIdx] = threadIdx * 0.5 + 1",
    "cache = shared(N)",
    "cache[threadIdx] = data[threadIdx]\nsyncthreads()",
    "steps = int(math.log(N, 2))",
    "for i in range(steps):\n    half = N >> (i + 1)\n    if threadIdx < half:\n"
    "        cache[threadIdx] += cache[threadIdx + half]\n    syncthreads()\n",
    "data[0] = cache[0] / len(data)",
]


def _run(s: Session, buf: io.StringIO, text: str) -> str:
    buf.seek(0)
    buf.truncate()
    registry.use(s.backend)
    if text.startswith("%"):
        commands.run(s, text)
    else:
        s.run(text)
    return buf.getvalue()


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_figure3_average_on_a_million_threads(backend: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    s, buf = new_session(backend, 1 << 20)
    outs = [_run(s, buf, t) for t in FIGURE3]
    assert "1048576 threads in 4096 blocks of 256" in outs[0]
    assert "cache: shared 256 float64, zeros, one per block" in outs[5]
    assert "Error" not in "".join(outs)
    assert _run(s, buf, "data[0]") == "64.75\n"  # mean of 1, 1.5, ..., 128.5
    assert s.shared["cache"].shape == (4096, 256)
    assert (s.shared["cache"][:, 0] == 64.75 * 256).all()  # every block summed its own copy


def test_block_indices_and_a_shared_array_inside_one_input(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    s, buf = new_session("sim", 8)
    _run(s, buf, "%block 4")
    assert _run(s, buf, "(blockIdx, threadIdx, blockDim, tid)") == (
        "----- 1x -----\n(0, 0, 4, 0)\n----- 1x -----\n(0, 1, 4, 1)\n----- 1x -----\n"
        "(0, 2, 4, 2)\n----- 1x -----\n(0, 3, 4, 3)\n----- 1x -----\n(1, 0, 4, 4)\n"
        "----- 1x -----\n(1, 1, 4, 5)\n----- 1x -----\n(1, 2, 4, 6)\n----- 1x -----\n"
        "(1, 3, 4, 7)\n"
    )
    # a shared array of the session, then one made inside an input (for that input only):
    # both reverse the threads' ids within each block
    out = _run(
        s, buf, "t = shared(4, 'int64')\nt[threadIdx] = tid\nsyncthreads()\nt[3 - threadIdx]"
    )
    assert out.split("\n")[2::2][:8] == ["3", "2", "1", "0", "7", "6", "5", "4"]
    assert _run(s, buf, "t[0] + t[3]").split("\n")[1::2] == ["3", "11"]  # kept, per block
    _run(
        s,
        buf,
        "if True:\n    u = shared(4, int)\n    u[threadIdx] = tid\n    syncthreads()\n"
        "    v = u[3 - threadIdx]\n",
    )
    assert _run(s, buf, "v").split("\n")[1::2] == ["3", "2", "1", "0", "7", "6", "5", "4"]


def test_block_mode_errors(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    s, buf = new_session("sim", 100)
    out = _run(s, buf, "syncthreads()")
    assert "`syncthreads` is for threads that cooperate in blocks" in out and "%block 256" in out
    assert "do not make whole blocks of 64" in _run(s, buf, "%block 64")
    assert s.block is None
    _run(s, buf, "%block 50")
    assert "do not make whole blocks of 50" in _run(s, buf, "%threads 120")
    assert "shared(n, dtype) needs a size" in _run(s, buf, "c = shared(-1)")
    # a barrier under a condition only some threads of a block take: the threads reach
    # different barriers (issue 25's rule: sim names the line); one every thread takes is fine
    out = _run(s, buf, "if tid < 3:\n    syncthreads()\n")
    assert "KernelError" in out and "reach different barriers" in out and "syncthreads" in out
    assert _run(s, buf, "if tid < 1000:\n    syncthreads()\n") == ""
    assert "one flat launch" in _run(s, buf, "%block off")
    assert _run(s, buf, "threadIdx == tid") == "True\n"


def test_an_input_that_assigns_a_block_name_changes_it_for_that_input_only() -> None:
    # #27: `blockIdx = 9` was kept as a session variable (a host value, or a per-thread one)
    # that every later input's own `blockIdx` hid, and that outlived `%block off`; the
    # block's row of a shared array was read through the user's name
    s, buf = new_session("sim", 8)
    _run(s, buf, "%block 4")
    _run(s, buf, "t = shared(4, 'int64')")
    assert _run(s, buf, "blockIdx = 9\nblockDim = 2\nq = blockIdx * blockDim") == ""
    assert s.globals.get("q") == 18
    assert "blockIdx" not in s.globals and "blockDim" not in s.globals
    assert _run(s, buf, "blockIdx = tid\nt[threadIdx] = blockIdx") == ""
    assert "blockIdx" not in s.state
    assert _run(s, buf, "blockIdx").split("\n")[1::2] == ["0", "1"]
    assert s.shared["t"].tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert "one flat launch" in _run(s, buf, "%block off")
    assert "blockIdx" not in s.state and "blockIdx" not in s.globals
