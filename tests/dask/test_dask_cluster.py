"""simt on a real `distributed.LocalCluster`: two worker processes on the loopback interface,
no mocks. Image functions and kernels travel to the workers (by module reference or by value
with their source), each worker builds and compiles them once; the fault cases: a worker
killed mid-job, a failing chunk, a worker without the client's backend.

Every wait is bounded; the cluster is started once for the module."""

from __future__ import annotations

import importlib.util
import logging
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
import dask.array as da  # noqa: E402

import simt  # noqa: E402
from simt.dask import shipping  # noqa: E402
from simt.image import Image, Position  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WAIT = 90  # seconds: the longest any result may take on a busy 2-core machine


def _load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


ex = _load("simt_example_sobel_cluster", ROOT / "examples" / "sobel.py")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL,
    )  # fmt: skip
    c = distributed.Client(cluster, timeout=WAIT)
    try:
        c.wait_for_workers(2, timeout=WAIT)
        yield c
    finally:
        c.close()
        cluster.close()


def slow(n: int, im: Image, p: Position) -> Any:
    """A pixel that takes a while (n steps), to keep a job running long enough to break."""
    acc = 0.0
    v = im(p + (1, 0))
    for k in range(n):
        acc = acc * 0.999 + v * k
    return acc


@simt.kernel
def saxpy(a, x, y):  # type: ignore[no-untyped-def]
    i = simt.grid(1)
    if i < len(y):
        y[i] = a * x[i] + y[i]


@simt.kernel
def blur3(x, y):  # type: ignore[no-untyped-def]
    i = simt.grid(1)
    n = len(x)
    if i < n:
        y[i] = (x[max(i - 1, 0)] + x[i] + x[min(i + 1, n - 1)]) / 3.0


@simt.kernel
def checked_sqrt(x, y):  # type: ignore[no-untyped-def]
    i = simt.grid(1)
    if i < len(x):
        assert x[i] >= 0.0, "negative input"
        y[i] = x[i] ** 0.5


# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("edge", ["clamp", "wrap", "zero"])
def test_sobel_on_the_cluster_by_value(client: Any, edge: str) -> None:
    # examples/sobel.py loaded by path: the workers cannot import it, so edgeDetect and its
    # helpers travel by value with their source file
    ref = shipping.ref(ex.edgeDetect)
    assert ref.pickled is not None and str(ROOT / "examples" / "sobel.py") in ref.sources
    sobel = simt.compile(ex.edgeDetect, kernel=ex.sobelKernel)
    a = np.random.default_rng(0).random((90, 77), dtype=np.float32)
    lazy = sobel(Image(da.from_array(a, chunks=(31, 19)), edge=edge))
    got = client.compute(lazy).result(timeout=WAIT)
    np.testing.assert_array_equal(got, sobel(Image(a, edge=edge)))


def test_by_reference_and_compiled_once_per_worker(client: Any) -> None:
    assert shipping.importable(slow) and shipping.ref(slow).pickled is None
    f = simt.compile(slow)
    a = np.random.default_rng(1).random((60, 60), dtype=np.float32)
    lazy = f(5, da.from_array(a, chunks=(15, 15)))  # 16 chunks
    np.testing.assert_array_equal(client.compute(lazy).result(timeout=WAIT), f(5, a))
    again = f(7, da.from_array(a[::-1].copy(), chunks=(20, 15)))  # a second array, same kinds
    np.testing.assert_array_equal(client.compute(again).result(timeout=WAIT), f(7, a[::-1]))

    def built() -> list[int]:  # per recipe: specialisations compiled in this worker
        mine = [b for b in shipping._built.values() if getattr(b, "fn", None) is not None]
        return [len(b.kernel._cache) for b in mine if b.fn.__name__ == "slow"]

    counts = client.run(built)  # one build, one specialisation per worker, for both arrays
    assert all(c in ([], [1]) for c in counts.values()), counts
    assert any(c == [1] for c in counts.values())
    # and the workers share the client's disk cache folder (a LocalCluster inherits it)
    dirs = client.run(lambda: os.environ.get("SIMT_CACHE_DIR"))
    assert set(dirs.values()) == {os.environ.get("SIMT_CACHE_DIR")}


def test_kernels_on_the_cluster(client: Any) -> None:
    x = np.random.default_rng(2).random(5000).astype(np.float32)
    y = np.random.default_rng(3).random(5000).astype(np.float32)
    dx, dy = da.from_array(x, chunks=777), da.from_array(y, chunks=777)
    ref = y.copy()
    saxpy[40, 128](np.float32(2.0), x, ref)
    got = client.compute(simt.map_blocks(saxpy, 2.0, dx, dy, block=128)).result(timeout=WAIT)
    np.testing.assert_array_equal(got, ref)
    ref = np.empty_like(x)
    blur3[40, 128](x, ref)
    lazy = simt.map_blocks(blur3, dx, da.zeros_like(dx), block=128, halo=1)
    np.testing.assert_array_equal(client.compute(lazy).result(timeout=WAIT), ref)


def test_a_killed_worker_does_not_change_the_result(client: Any) -> None:
    f = simt.compile(slow)
    a = np.random.default_rng(4).random((400, 300), dtype=np.float32)
    lazy = f(50_000, da.from_array(a, chunks=(40, 60)))  # 50 chunks of ~40 ms each
    assert lazy.npartitions == 50
    job = client.persist(lazy)
    futures = distributed.futures_of(job)
    pids = client.run(os.getpid)
    deadline = time.monotonic() + WAIT
    while not any(fu.done() for fu in futures):
        assert time.monotonic() < deadline, "no chunk finished in time"
        time.sleep(0.01)
    holders = client.who_has(futures)
    victim = next(w for ws in holders.values() for w in ws)  # holds finished chunks
    done = sum(fu.done() for fu in futures)
    os.kill(pids[victim], signal.SIGKILL)
    assert done < 50, "the job finished before the worker could be killed"
    got = client.compute(job).result(timeout=WAIT)
    np.testing.assert_array_equal(got, f(50_000, a))
    client.wait_for_workers(2, timeout=WAIT)  # the nanny restarts it for the next tests


def test_a_failing_chunk_is_a_kernel_error_with_its_index(client: Any) -> None:
    x = np.abs(np.random.default_rng(5).random(1000).astype(np.float32))
    x[3 * 100 + 17] = -1.0
    lazy = simt.map_blocks(checked_sqrt, da.from_array(x, chunks=100), da.zeros(1000, chunks=100),
                           block=64)  # fmt: skip
    # as docs/dask.md says: the failure (its first thread), then the chunk
    with pytest.raises(simt.KernelError, match=r"1 thread raised AssertionError at .*: negative "
                       r"input\) in chunk \(3,\) of checked_sqrt\(\)\n") as info:
        client.compute(lazy).result(timeout=WAIT)
    assert info.value.chunk == (3,)  # type: ignore[attr-defined]
    assert info.value.finished == 127 and info.value.thread == (17, 0, 0)
    assert "test_dask_cluster.py" in str(info.value)  # the user's line


def checked_pixel(im: Image, p: Position) -> Any:
    v = im(p + (1, 0))
    assert v >= 0.0, "negative pixel"
    return v


def test_a_failing_image_chunk_names_its_chunk(client: Any) -> None:
    a = np.random.default_rng(7).random((40, 60), dtype=np.float32)
    a[25, 37] = -1.0  # read by pixel (25, 36): chunk (1, 2) of 20 x 15 chunks
    lazy = simt.compile(checked_pixel)(da.from_array(a, chunks=(20, 15)))
    with pytest.raises(simt.KernelError, match=r"negative pixel.*chunk \(1, 2\)") as info:
        client.compute(lazy).result(timeout=WAIT)
    assert info.value.chunk == (1, 2)  # type: ignore[attr-defined]


def test_a_worker_without_the_backend_says_so(tmp_path: Path) -> None:
    # a worker process whose environment has no llvmlite: simt's cpu backend cannot start
    # there, while this process (the client) uses it
    preload = tmp_path / "no_llvmlite.py"
    preload.write_text("import sys\nsys.modules['llvmlite'] = None  # not installed here\n")
    simt.use("cpu")
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address="127.0.0.1:0", silence_logs=logging.CRITICAL, preload=[str(preload)],
    )  # fmt: skip
    try:
        with distributed.Client(cluster, timeout=WAIT, set_as_default=False) as c:
            lazy = simt.map_blocks(saxpy, 2.0, da.ones(100, chunks=50), da.ones(100, chunks=50),
                                   block=64)  # fmt: skip
            with pytest.raises(
                simt.BackendUnavailable, match=r"dask worker tcp://127\.0\.0\.1.*'cpu'"
            ):
                c.compute(lazy).result(timeout=WAIT)
    finally:
        cluster.close()


def test_index_expressions_on_the_cluster(client: Any) -> None:
    from simt.tensor import i

    matmul = i("ik*kj~ijk") >> i("+ijk~ij")
    rng = np.random.default_rng(6)
    a, b = rng.random((60, 90), dtype=np.float32), rng.random((90, 40), dtype=np.float32)
    lazy = matmul.exec(da.from_array(a, chunks=30), da.from_array(b, chunks=30))
    got = client.compute(lazy).result(timeout=WAIT)
    np.testing.assert_allclose(got, matmul.exec(a, b), rtol=2e-6, atol=2e-6)
