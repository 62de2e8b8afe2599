"""Run-time lists (frontend/lists.py, frontend/arena.py): Python's semantics per thread,
the errors a user gets (mixed item types, an index outside the list, a full heap), and the
heap option."""

from __future__ import annotations

import numpy as np
import pytest

import simt

BACKENDS = ("sim", "cpu")


def _grow(xs, n):  # a helper appending to the caller's list
    for j in range(n):
        xs.append(j * 10)


@simt.kernel
def aliasing(out, n):
    t = simt.grid(1)
    xs = []
    ys = xs  # the same list, as in Python
    _grow(ys, n + t)
    xs.append(-1)
    out[t, 0] = len(xs)
    out[t, 1] = ys[-1]
    out[t, 2] = xs.pop(0)  # the first item, the rest move down
    out[t, 3] = xs[0]
    zs = [t, t + 1, t + 2]
    zs.insert(-1, 99)  # Python: before the last item
    zs.insert(100, 7)  # clipped to the end
    out[t, 4] = zs[2] * 100 + zs[-1]
    out[t, 5] = len([k for k in range(n) if k % 2 == 1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_lists_behave_as_pythons(backend: str) -> None:
    simt.use(backend)
    out = np.zeros((8, 6), np.int32)
    aliasing[1, 8](out, 3)
    for t in range(8):
        xs = [j * 10 for j in range(3 + t)] + [-1]
        first = xs.pop(0)
        zs = [t, t + 1, t + 2]
        zs.insert(-1, 99)
        zs.insert(100, 7)
        assert list(out[t]) == [len(xs) + 1, -1, first, xs[0], zs[2] * 100 + zs[-1], 1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_index_outside_a_list_is_an_index_error_at_the_users_line(backend: str) -> None:
    @simt.kernel
    def k(out, n):
        t = simt.grid(1)
        xs = [0.5] * n
        out[t] = xs[t]  # thread 3 reads past the end

    simt.use(backend)
    with pytest.raises(simt.KernelError) as info:
        k[1, 4](np.zeros(4, np.float32), 3)
    text = str(info.value)
    assert "1 thread raised IndexError" in text and "thread 3: list index out of range" in text
    assert "out[t] = xs[t]" in text and "3 threads finished" in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_full_heap_is_a_memory_error_and_heap_gives_more(backend: str) -> None:
    def body(out, n):
        t = simt.grid(1)
        xs = []
        for j in range(n):
            xs.append(j)
        out[t] = len(xs)

    simt.use(backend)
    out = np.zeros(4, np.int32)
    with pytest.raises(simt.KernelError) as info:
        simt.kernel(body)[1, 4](out, 300)
    assert "MemoryError" in str(info.value) and "xs.append(j)" in str(info.value)
    simt.kernel(heap=4096)(body)[1, 4](out, 300)
    assert list(out) == [300] * 4


def test_mixing_item_types_is_a_compile_error_naming_the_line() -> None:
    @simt.kernel
    def k(out):
        xs = [1, 2]
        xs.append(out[0])  # a float32 into an int32 list

    with pytest.raises(simt.CompileError) as info:
        k[1, 1](np.zeros(1, np.float32))
    assert "mix types" in str(info.value) and info.value.source_line.strip().startswith("xs.append")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_read_before_the_line_that_fixes_its_type(backend: str) -> None:
    @simt.kernel
    def k(a, out):
        t = simt.grid(1)
        xs = []
        for v in a:
            if xs and v > 0.5:
                out[t] += xs.pop()  # before the append, in program order
            xs.append(v * 2.0)  # float32: the kernel is translated again knowing it
        out[t] += len(xs)

    simt.use(backend)
    a = np.array([0.25, 0.75, 0.5, 0.875], np.float32)
    out = np.zeros(2, np.float32)
    k[1, 2](a, out)
    assert list(out) == [0.5 + 1.0 + 2.0] * 2  # pops 0.5 and 1.0; keeps 1.0 and 1.75


def test_heap_must_be_a_number_of_bytes() -> None:
    def k(out):
        out[0] = 1

    for bad in (16, "big", True):
        with pytest.raises(simt.CompileError) as info:
            simt.kernel(heap=bad)(k)
        assert "heap=" in str(info.value)


def test_a_list_known_at_compile_time_stays_a_tuple() -> None:
    @simt.kernel
    def k(out):
        taps = [1.0, 2.0, 1.0]  # never changed: unrolled, no heap
        s = 0.0
        for w in taps:
            s += w
        out[0] = s

    out = np.zeros(1, np.float32)
    simt.use("sim")
    k[1, 1](out)
    assert out[0] == 4.0
    assert "heap" not in k.ir(out)


@pytest.mark.parametrize("backend", BACKENDS)
def test_index_and_memory_errors_are_catchable(backend: str) -> None:
    @simt.kernel(heap=256)
    def k(out, n):
        t = simt.grid(1)
        xs = [1, 2, 3]
        try:
            xs[t] = 7  # threads 3 and up: IndexError, and xs stays as it was
        except IndexError:
            out[t, 0] = -1
        ys = []
        try:
            for j in range(n * t):  # the later threads run out of their 256 bytes
                ys.append(j)
        except MemoryError:
            out[t, 1] = -2
        out[t, 2] = xs[0] + xs[1] + xs[2]
        out[t, 3] = len(ys)

    simt.use(backend)
    out = np.zeros((6, 4), np.int32)
    k[1, 6](out, 20)
    for t in range(6):
        xs = [1, 2, 3]
        if t < 3:
            xs[t] = 7
        room = 256 // 4 - 16 - 6 - 3  # bookkeeping, two list headers, the items of xs
        assert list(out[t]) == [
            0 if t < 3 else -1, 0 if 20 * t <= room else -2, sum(xs), min(20 * t, room)
        ], (t, out[t])


@pytest.mark.parametrize("backend", BACKENDS)
def test_print_shows_a_list_as_python_does(
    backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    @simt.kernel
    def k(n):
        t = simt.grid(1)
        xs = []
        for j in range(t):
            xs.append(j * 0.5)
        print("t", t, xs, [j > 1 for j in range(n)], sep="|")

    simt.use(backend)
    k[1, 3](3)
    assert capsys.readouterr().out == "".join(
        f"t|{t}|{[j * 0.5 for j in range(t)]}|[False, False, True]\n" for t in range(3)
    )


@simt.kernel
def known_length_slices(out, a):
    i = simt.grid(1)
    xs = [(j % 8) * 0.125 + a[i] for j in range(4)]  # a known length: unrolled, read-only
    ys = xs[1:]
    zs = xs[::-2]
    t = (a[i], 2.0, 3.0)
    out[i, 0] = len(ys) + ys[0]
    out[i, 1] = zs[0] + zs[1]
    out[i, 2] = sum(t[1:]) + len(t[5:])
    out[i, 3] = 1.0 if 0.25 + a[i] in ys else 0.0


@simt.kernel
def run_time_bound(out, n):
    i = simt.grid(1)
    xs = [j * 2 for j in range(4)]
    out[i] = len(xs[n:])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tuple_or_a_list_of_known_length_slices_as_pythons(backend: str) -> None:
    """Slices of a tuple and of a list whose length is known at compile time (a comprehension
    over a known range is unrolled) by known bounds are the items Python's slice picks; the
    fuzzer's `--oob` seed 29 met `xs[1:]` of such a list as "slices: not supported"."""
    simt.use(backend)
    a = np.arange(4, dtype=np.float32)
    out = np.zeros((4, 4), np.float32)
    known_length_slices[1, 4](out, a)

    def py(i: int) -> list[float]:
        xs = [(j % 8) * 0.125 + float(a[i]) for j in range(4)]
        ys, zs, t = xs[1:], xs[::-2], (float(a[i]), 2.0, 3.0)
        return [len(ys) + ys[0], zs[0] + zs[1], sum(t[1:]) + len(t[5:]),
                1.0 if 0.25 + a[i] in ys else 0.0]  # fmt: skip

    np.testing.assert_array_equal(out, np.array([py(i) for i in range(4)], np.float32))


def test_a_run_time_bound_on_a_list_of_known_length_says_what_to_do() -> None:
    with pytest.raises(simt.CompileError) as e:
        run_time_bound[1, 4](np.zeros(4, np.int32), 1)
    msg = str(e.value)
    assert "test_lists.py" in msg and "xs[n:]" in msg
    assert "sliced by integers known at compile time" in msg and "run-time list" in msg


_DATA = b"hello world"


@simt.kernel
def bytes_run_time_bound(out, n):
    i = simt.grid(1)
    out[i] = len(_DATA[n:])


def test_a_run_time_bound_on_known_bytes_names_bytes_not_a_tuple() -> None:
    with pytest.raises(simt.CompileError) as e:
        bytes_run_time_bound[1, 4](np.zeros(4, np.int32), 1)
    msg = str(e.value)
    assert "a bytes string known at compile time" in msg and "np.frombuffer" in msg
    assert "tuple" not in msg


def _chain(out, n, m):  # each list widened by the one before: one translation apiece
    x0 = [0]
    x1 = [0]
    x2 = [0]
    x3 = [0]
    x4 = [0]
    x5 = [0]
    x6 = [0]
    x7 = [0]
    x8 = [0]
    x9 = [0]  # the list still unsettled after four translations
    for _ in range(m):
        x9.append(x8[-1])
        x8.append(x7[-1])
        x7.append(x6[-1])
        x6.append(x5[-1])
        x5.append(x4[-1])
        x4.append(x3[-1])
        x3.append(x2[-1])
        x2.append(x1[-1])
        x1.append(x0[-1])
        x0.append(n)
    for k, xs in enumerate((x0, x1, x2, x3, x4, x5, x6, x7, x8, x9)):
        out[k] = xs[-1]


def _chain_settled(out, n, m):  # the advice taken: the last list starts as int64
    x0 = [0]
    x1 = [0]
    x2 = [0]
    x3 = [0]
    x4 = [0]
    x5 = [0]
    x6 = [0]
    x7 = [0]
    x8 = [0]
    x9 = [simt.int64(0)]
    for _ in range(m):
        x9.append(x8[-1])
        x8.append(x7[-1])
        x7.append(x6[-1])
        x6.append(x5[-1])
        x5.append(x4[-1])
        x4.append(x3[-1])
        x3.append(x2[-1])
        x2.append(x1[-1])
        x1.append(x0[-1])
        x0.append(n)
    for k, xs in enumerate((x0, x1, x2, x3, x4, x5, x6, x7, x8, x9)):
        out[k] = xs[-1]


def test_a_list_still_unsettled_after_the_last_translation_is_refused_at_its_line() -> None:
    """Lists widened one translation after another (an int64 item reaching each through
    the one before) that are still not settled after the last round are a CompileError at
    the list, saying what settles it; the kernel ran on with a list typed wrong before."""
    simt.use("sim")
    out = np.zeros(10, np.int64)
    n = np.int64(2**40 + 3)
    with pytest.raises(simt.CompileError) as info:
        simt.kernel(_chain)[1, 1](out, n, 3)
    err = info.value
    assert err.line is not None and "x9 = [0]" in str(err), str(err)
    assert "not settled after 4 translations" in str(err), str(err)
    assert "simt.int64(0)" in str(err), str(err)
    simt.kernel(_chain_settled)[1, 1](out, n, 3)
    assert list(out) == [n, n, n] + [0] * 7
