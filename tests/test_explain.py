"""`kernel.explain`: a thread's path through a launch on sim, and two threads side by side."""

from __future__ import annotations

import io

import numpy as np
import pytest

import simt
from simt import block_dim, block_idx, thread_idx
from simt.errors import LaunchError


@simt.kernel
def divergent(a, out):
    i = block_idx.x * block_dim.x + thread_idx.x
    s = 0.0
    if i % 2 == 0:
        for j in range(i):
            s += a[j]
    else:
        s = a[i] * 2.0
    out[i] = s


@simt.kernel
def block_sum(a, out):
    cache = simt.shared.array(8, np.float32)
    t = thread_idx.x
    cache[t] = a[t]
    simt.syncthreads()
    s = 4
    while s > 0:
        if t < s:
            cache[t] += cache[t + s]
        simt.syncthreads()
        s //= 2
    if t == 0:
        out[0] = cache[0]


def _explain(k, *args, **kw) -> list[str]:  # type: ignore[no-untyped-def]
    buf = io.StringIO()
    k.explain(*args, file=buf, **kw)
    return buf.getvalue().splitlines()


def test_one_thread_lines_values_memory_and_folded_loop() -> None:
    a = np.arange(16, dtype=np.float32)
    out = np.zeros(16, np.float32)
    rows = _explain(divergent, 2, 8, a, out, thread=(1, 2))
    assert rows[0] == "divergent[2, 8] on sim: block 1, thread 2"
    text = "\n".join(rows)
    assert "i = 10" in text
    assert "loop: 10 iterations" in text
    assert "6 more iterations folded" in text
    assert "read a[0] -> 0.0; s = 0.0" in text
    assert "read a[9] -> 9.0; s = 45.0" in text  # the last iteration is shown
    assert "read a[5]" not in text  # folded
    assert "out[i] = s" in rows[-1] and rows[-1].endswith("out[10] = 45.0")
    assert "s = a[i] * 2.0" not in text  # the other branch was not run
    assert not out.any()  # explain runs on copies


def test_other_branch_and_order_of_lines() -> None:
    a = np.arange(16, dtype=np.float32)
    rows = _explain(divergent, 2, 8, a, np.zeros(16, np.float32), thread=(0, 3))
    sources = [r[9:].split("  ")[0] for r in rows[2:]]
    assert sources == [
        "i = block_idx.x * block_dim.x + thread_idx.x", "s = 0.0", "if i % 2 == 0:",
        "s = a[i] * 2.0", "out[i] = s",
    ]  # fmt: skip
    assert rows[5].endswith("read a[3] -> 3.0; s = 6.0")


def test_two_threads_mark_divergence() -> None:
    a = np.arange(16, dtype=np.float32)
    rows = _explain(divergent, 2, 8, a, np.zeros(16, np.float32), threads=((0, 3), (0, 4)))
    assert "block 0, thread 3" in rows[1] and "block 0, thread 4" in rows[1]

    def row(src: str) -> tuple[str, str]:
        r = next(r for r in rows[2:-1] if r[12:].startswith(src))
        return r[2:4].strip(), r

    assert row("i = block_idx.x")[0] == "*"  # i differs
    assert row("if i % 2 == 0:")[0] == ""  # both ran the if, same (no) values
    assert row("s = a[i] * 2.0")[0] == ">>" and "(not run by this thread)" in row("s = a[i]")[1]
    assert row("for j in range(i):")[0] == ">>" and "loop: 4 iterations" in row("for j")[1]
    assert row("out[i] = s")[0] == "*"


def test_barriers_and_shared_memory() -> None:
    a = np.arange(8, dtype=np.float32)
    text = "\n".join(_explain(block_sum, 1, 8, a, np.zeros(1, np.float32), thread=(0, 0)))
    assert text.count("waits at syncthreads() for its block") == 4
    assert "cache[0] = 28.0" in text and "out[0] = 28.0" in text
    two = _explain(block_sum, 1, 8, a, np.zeros(1, np.float32), threads=((0, 0), (0, 3)))
    diverged = [r for r in two if r.startswith("  >>") and "cache[t] += cache[t + s]" in r]
    assert len(diverged) == 2  # thread 3 sits out the second and third halvings


def test_kernel_error_is_shown_after_the_path() -> None:
    @simt.kernel
    def oob(a):
        i = thread_idx.x
        a[i + 1] = 1.0

    rows = _explain(oob, 1, 4, np.zeros(4, np.float32), thread=(0, 0))
    assert rows[2].endswith("i = 0")
    assert rows[3].strip().endswith("a[i + 1] = 1.0    a[1] = 1.0")  # in bounds: it stored
    # thread 3's IndexError, the others finished (the launch does not stop)
    assert rows[4].startswith("the launch raised: 1 thread raised IndexError at ")
    assert "(first: thread 3: index 4 is out of bounds of `a` with size 4)" in rows[4]
    assert rows[-1] == "3 threads finished"


@pytest.mark.parametrize(
    "kw, match",
    [({}, "thread="), ({"thread": (2, 0)}, "block index"), ({"thread": (0, 9)}, "thread index"),
     ({"thread": 3}, r"\(block, thread\)")],
)  # fmt: skip
def test_bad_thread_picks(kw: dict, match: str) -> None:
    with pytest.raises(LaunchError, match=match):
        divergent.explain(2, 8, np.zeros(16, np.float32), np.zeros(16, np.float32), **kw)


def test_two_dimensional_launch() -> None:
    @simt.kernel
    def k2(out):
        x, y = simt.grid(2)
        out[y, x] = x * 10 + y

    text = "\n".join(
        _explain(k2, (2, 2), (4, 4), np.zeros((8, 8), np.int32), thread=((1, 0), (2, 3)))
    )
    assert "block (1, 0), thread (2, 3)" in text
    assert "out[3, 6] = 63" in text


@simt.kernel
def aliases(a, out, n):
    i = block_idx.x * block_dim.x + thread_idx.x
    b = a
    m = n
    s = 0.0
    if i % 2 == 0:
        t = i
        s = 1.5
    else:
        t = m
    out[i] = s + t + b[i]


def test_constants_and_aliases_are_shown_with_their_values() -> None:
    """`s = 0.0`, `m = n` and `b = a` make no op of their own; the trace still shows them."""
    a = np.arange(4, dtype=np.float32)
    rows = _explain(aliases, 1, 4, a, np.zeros(4, np.float32), 7, threads=((0, 0), (0, 1)))

    def row(source: str) -> tuple[str, str, str]:
        r = next(r for r in rows if f"  {source}  " in r)
        left, right = r.split(" | ")
        return r[:4].strip(), left.split(f"  {source}  ", 1)[1].strip(), right.strip()

    assert row("b = a") == ("", "b is the array a", "b is the array a")
    assert row("m = n") == ("", "m = 7", "m = 7")
    assert row("s = 0.0") == ("", "s = 0.0", "s = 0.0")
    assert row("s = 1.5") == (">>", "s = 1.5", "(not run by this thread)")  # diverged
    assert row("t = m") == (">>", "(not run by this thread)", "t = 7")
    # the first test's kernel: `s = 0.0` is on the path of every thread
    rows = _explain(divergent, 2, 8, a.repeat(4), np.zeros(16, np.float32), thread=(0, 3))
    assert rows[3].split()[1:] == ["s", "=", "0.0", "s", "=", "0.0"]


@simt.kernel
def _count_unused(a):
    simt.atomic.add(a, 0, 1.0)  # the old value is not used


def test_an_unused_atomic_result_still_shows_its_old_value() -> None:
    """Issue 26: `explain` printed `old value None` for an atomic whose result is unused."""
    buf = io.StringIO()
    _count_unused.explain(1, 4, np.zeros(1, np.float32), thread=(0, 2), file=buf)
    assert "atomic on a[0] (old value 2.0)" in buf.getvalue(), buf.getvalue()
