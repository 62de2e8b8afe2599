"""The failure buffer of launches on a runtime whose memory is the host's (`cpu`): the threads
that raised (an IndexError of an access no proof covers) are read from it after each launch.
A launch takes a zero buffer an earlier launch gave back (`Specialisation.take_failures`), a
cached launch has one of its own, and launches on two Python threads at once never see each
other's failures."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import simt
from simt.runtime import registry
from simt.runtime.base import Dim3

ok, why = registry.probe("cpu")
pytestmark = pytest.mark.skipif(not ok, reason=f"cpu backend unavailable: {why}")

N = 1 << 12


@simt.kernel
def gather(out, a, idx):
    i = simt.grid(1)
    if i < len(out):
        out[i] = a[idx[i]] * 2.0  # a data-dependent index: a kept check


def _data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.arange(N, dtype=np.float32)
    good = np.random.default_rng(1).integers(0, N, N).astype(np.int32)
    bad = good.copy()
    bad[[5, 77, N - 1]] = [N, -1, N + 9]
    return a, good, bad


def _threads(e: simt.KernelError) -> list[int]:
    return [f.thread for f in e.failures]


def test_a_cached_launch_reports_its_threads_and_the_next_is_clean() -> None:
    a, good, bad = _data()
    with simt.using("cpu"):
        run = gather.config(N // 128, 128)
        out = np.zeros(N, np.float32)
        run(out, a, good)
        run(out, a, good)
        fast = run._fast
        assert fast is not None and fast.words is not None  # a fast path, its own buffer
        out[:] = 0
        with pytest.raises(simt.KernelError) as e:
            run(out, a, bad)
        assert _threads(e.value) == [5, 77, N - 1] and e.value.finished == N - 3
        keep = np.ones(N, bool)
        keep[[5, 77, N - 1]] = False
        np.testing.assert_array_equal(out[keep], a[good[keep]] * 2)
        assert not fast.words.any()  # zero again
        run(out, a, good)  # the next launch is clean
        np.testing.assert_array_equal(out, a[good] * 2)


def test_an_ordinary_launch_reuses_a_zero_buffer() -> None:
    a, good, bad = _data()
    k = simt.kernel(gather.pyfunc)  # (its launches all take the ordinary path here)
    with simt.using("cpu"):
        out = np.zeros(N, np.float32)
        for idx in (bad, good, bad):
            try:
                k.launch(Dim3(N // 128, 1, 1), Dim3(128, 1, 1), (out, a, idx), {})
            except simt.KernelError as e:
                assert idx is bad and _threads(e) == [5, 77, N - 1]
            else:
                assert idx is good
        (spec,) = k._cache.values()
        assert len(spec.spare) == 1 and not spec.spare[0].any()  # one buffer, zero again


def test_launches_on_two_python_threads_keep_their_own_failures() -> None:
    """The same specialisation launched from four Python threads at once (the cached launch
    of one launcher and the ordinary path): each launch reports exactly its own threads."""
    a, good, bad = _data()
    wrong: list[object] = []

    def work(idx: np.ndarray, want: list[int]) -> None:
        run = gather.config(N // 128, 128)
        for _ in range(40):
            out = np.zeros(N, np.float32)
            try:
                run(out, a, idx)
                got: list[int] = []
            except simt.KernelError as e:
                got = _threads(e)
            except Exception as e:  # noqa: BLE001 - reported below
                got = [repr(e)]  # type: ignore[list-item]
            if got != want:
                wrong.append(got)

    with simt.using("cpu"):
        gather.config(N // 128, 128)(np.zeros(N, np.float32), a, good)
        workers = [threading.Thread(target=work, args=(good, [])),
                   threading.Thread(target=work, args=(bad, [5, 77, N - 1])),
                   threading.Thread(target=work, args=(good, [])),
                   threading.Thread(target=work, args=(bad, [5, 77, N - 1]))]  # fmt: skip
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    assert wrong == []


def test_a_device_reads_one_word_of_the_failure_buffer_when_no_thread_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a runtime whose memory is not the host's (`webgpu`), a launch reads the failure
    buffer's first word (the count of threads that raised), and the whole buffer only when a
    thread raised."""
    up, why_not = registry.probe("webgpu")
    if not up:
        pytest.skip(f"webgpu unavailable: {why_not}")
    rt = registry.get("webgpu")
    sizes: list[int] = []
    download = rt.download

    def counting(buf: object, out: np.ndarray) -> None:
        sizes.append(out.size)
        download(buf, out)

    monkeypatch.setattr(rt, "download", counting)
    a, good, bad = _data()
    n = 256
    with simt.using("webgpu"):
        out = np.zeros(n, np.float32)
        gather[n // 64, 64](out, a, good[:n])
        assert sizes == [n, 1]  # `out`, then one word of the failure buffer
        np.testing.assert_array_equal(out, a[good[:n]] * 2)
        sizes.clear()
        with pytest.raises(simt.KernelError) as e:
            gather[n // 64, 64](out, a, bad[:n])
        assert _threads(e.value) == [5, 77] and e.value.finished == n - 2
        assert sizes[:2] == [n, 1] and len(sizes) == 3 and sizes[2] > 10_000  # then all of it
