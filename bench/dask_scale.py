"""Scale-out on Dask: Sobel of a 1 GiB image on a LocalCluster, against one process and SciPy.

    PYTHONPATH=src python bench/dask_scale.py                       # 16384^2 in 4096^2 chunks
    PYTHONPATH=src python bench/dask_scale.py --size 4096 --chunk 1024 --turns 3   # a quick look

Variants (cpu backend; each result checked first, then the variants take turns, `--turns`
times, and the median of each is reported with ratios):

- `simt on the cluster`: `sobel(photo)` with `photo` a dask array held by a
  `LocalCluster(2 workers x 1 thread)`; `persist()` and wait: every chunk computed with its
  one-pixel halo (`map_overlap`), the result kept on the workers (as before `.to_zarr`);
- `simt, one process`: the same image function on the whole NumPy image in this process (the
  cpu backend's 2 threads), returning a new image (as the cluster makes a new one);
- `scipy on the cluster`: `hypot(ndimage.sobel(x, 0), ndimage.sobel(x, 1))` per chunk through
  `map_overlap(depth=1, boundary="nearest")` on the same cluster, persisted likewise;
- with `--matmul N` (and `simt.tensor` present): `i("ik*kj~ijk") >> i("+ijk~ij")` on dask
  inputs (blockwise, chunked reduction) on the cluster against `exec` in one process.

Checks before timing: the single-process result against a float64 NumPy Sobel (nearest-edge
borders) on subregions that cross chunk boundaries and the image's corners; the cluster's simt
result equal to the single-process one bit for bit (the whole image); SciPy's within float32
rounding of the reference on the same subregions.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import simt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
from sobel import edgeDetect, sobelKernel  # noqa: E402 - the published example, as written


def sobel64(padded: np.ndarray) -> np.ndarray:
    """The float64 Sobel magnitude of the interior of an edge-padded block."""
    a = padded.astype(np.float64)
    gx = (a[:-2, 2:] + 2 * a[1:-1, 2:] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[1:-1, :-2] + a[2:, :-2])
    gy = (a[2:, :-2] + 2 * a[2:, 1:-1] + a[2:, 2:]) - (a[:-2, :-2] + 2 * a[:-2, 1:-1] + a[:-2, 2:])
    return np.hypot(gx, gy)


def regions(n: int, chunk: int) -> list[tuple[slice, slice]]:
    """Subregions to check: the two corners and a window across a chunk corner."""
    m = min(n, 256)
    c = min(chunk, n - 64) if n > chunk else n // 2
    return [
        (slice(0, m), slice(0, m)),
        (slice(n - m, n), slice(n - m, n)),
        (slice(c - 64, c + 64), slice(c - 64, c + 64)),
    ]


def reference(img: np.ndarray, rows: slice, cols: slice) -> np.ndarray:
    """float64 Sobel of img[rows, cols] with nearest-edge borders."""
    n0, n1 = img.shape
    r = np.clip(np.arange(rows.start - 1, rows.stop + 1), 0, n0 - 1)
    c = np.clip(np.arange(cols.start - 1, cols.stop + 1), 0, n1 - 1)
    return sobel64(img[np.ix_(r, c)])


def scipy_sobel(block: np.ndarray) -> np.ndarray:
    """The SciPy pipeline for one padded chunk: two 1-D-separable Sobel filters and hypot."""
    from scipy import ndimage

    return np.hypot(
        ndimage.sobel(block, 0, mode="nearest"), ndimage.sobel(block, 1, mode="nearest")
    )


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=16384)
    ap.add_argument("--chunk", type=int, default=4096)
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--matmul", type=int, default=0, help="also matmul N (simt.tensor)")
    ap.add_argument("--mchunk", type=int, default=2048, help="matmul chunk side")
    args = ap.parse_args()

    import dask.array as da
    from distributed import Client, LocalCluster, wait

    simt.use("cpu")
    n, chunk = args.size, args.chunk
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address="127.0.0.1:0", memory_limit=0,
    )  # fmt: skip
    client = Client(cluster)
    try:
        t0 = time.perf_counter()
        photo = da.random.default_rng(0).random((n, n), chunks=chunk, dtype=np.float32).persist()
        wait(photo)
        img = photo.compute()  # the same image in this process
        made = time.perf_counter() - t0
        print(f"image {n} x {n} float32 ({img.nbytes / 2**30:.2f} GiB) in {chunk}^2 chunks "
              f"({photo.npartitions}); made in {made:.1f} s", flush=True)  # fmt: skip

        sobel = simt.compile(edgeDetect, kernel=sobelKernel)
        out = np.empty_like(img)

        # checks ---------------------------------------------------------------------------
        sobel(img, out=out)
        worst = 0.0
        for rows, cols in regions(n, chunk):
            ref = reference(img, rows, cols)
            worst = max(worst, float(np.abs(out[rows, cols] - ref).max() / max(ref.max(), 1e-30)))
        assert worst < 1e-5, f"simt single process differs from float64 by {worst:.1e}"
        on_cluster = sobel(photo).persist()
        wait(on_cluster)
        assert np.array_equal(on_cluster.compute(), out), "cluster result differs"
        del on_cluster
        sp = da.map_overlap(scipy_sobel, photo, depth=1, boundary="nearest", dtype=np.float32)
        sp = sp.persist()
        wait(sp)
        sworst = 0.0
        for rows, cols in regions(n, chunk):
            ref = reference(img, rows, cols)
            got = sp[rows, cols].compute()
            sworst = max(sworst, float(np.abs(got - ref).max() / max(ref.max(), 1e-30)))
        assert sworst < 1e-5, f"scipy differs from float64 by {sworst:.1e}"
        del sp
        print(f"checked: simt vs float64 NumPy {worst:.1e} (relative, on corner and "
              f"chunk-corner windows); cluster == one process bit for bit; "
              f"scipy vs float64 {sworst:.1e}", flush=True)  # fmt: skip

        # timing: the variants take turns ---------------------------------------------------
        def cluster_simt() -> None:
            r = sobel(photo).persist()
            wait(r)
            del r

        def single_simt() -> None:
            r = sobel(img)  # a new image, as the cluster makes one
            del r

        def cluster_scipy() -> None:
            r = da.map_overlap(scipy_sobel, photo, depth=1, boundary="nearest",
                               dtype=np.float32).persist()  # fmt: skip
            wait(r)
            del r

        variants: dict[str, Callable[[], None]] = {
            "simt on the cluster (2 workers x 1 thread)": cluster_simt,
            "simt, one process (2 threads)": single_simt,
            "scipy.ndimage.sobel on the cluster": cluster_scipy,
        }
        times: dict[str, list[float]] = {k: [] for k in variants}
        for _ in range(args.turns):
            for name, fn in variants.items():
                times[name].append(timed(fn))
        med = {k: statistics.median(v) for k, v in times.items()}
        base = med["simt, one process (2 threads)"]
        print(f"\nSobel {n} x {n} float32, {chunk}^2 chunks, median of {args.turns} turns:")
        print("| variant | median s | min s | / simt one process |")
        print("|---|---|---|---|")
        for k in variants:
            print(f"| {k} | {med[k]:.3f} | {min(times[k]):.3f} | {med[k] / base:.2f}x |")
        simt_cluster = med["simt on the cluster (2 workers x 1 thread)"]
        ratio = med["scipy.ndimage.sobel on the cluster"] / simt_cluster
        print(f"cluster simt / one process: {simt_cluster / base:.2f}x (target <= 1.5x); "
              f"scipy / simt on the cluster: {ratio:.1f}x (target >= 10x)")  # fmt: skip

        if args.matmul:
            matmul_bench(client, args.matmul, args.mchunk, args.turns)
    finally:
        client.close()
        cluster.close()


def matmul_bench(client: Any, n: int, chunk: int, turns: int) -> None:
    """Matmul through index expressions: blockwise on the cluster vs `exec` in one process."""
    try:
        from simt.tensor import i
    except ImportError:
        print("\nmatmul: simt.tensor is not present; skipped")
        return
    import dask.array as da
    from distributed import wait

    mm = i("ik*kj~ijk") >> i("+ijk~ij")
    rng = np.random.default_rng(1)
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    da_a = da.from_array(a, chunks=chunk).persist()
    da_b = da.from_array(b, chunks=chunk).persist()
    wait([da_a, da_b])
    single = np.asarray(mm.exec(a, b))
    rows = slice(0, 64)
    ref = a[rows].astype(np.float64) @ b.astype(np.float64)
    err = float(np.abs(single[rows] - ref).max() / np.abs(ref).max())
    assert err < 1e-4, f"exec differs from float64 by {err:.1e}"
    dist = mm.exec(da_a, da_b).persist()
    wait(dist)
    derr = float(np.abs(dist.compute() - single).max() / np.abs(single).max())
    assert derr < 1e-5, f"blockwise differs from exec by {derr:.1e}"
    print(f"\nmatmul {n}: exec vs float64 {err:.1e} (first 64 rows); blockwise vs exec {derr:.1e}")

    def cluster() -> None:
        r = mm.exec(da_a, da_b).persist()
        wait(r)
        del r

    def one() -> None:
        mm.exec(a, b)

    t: dict[str, list[float]] = {"cluster": [], "one": []}
    for _ in range(turns):
        t["cluster"].append(timed(cluster))
        t["one"].append(timed(one))
    mc, mo = statistics.median(t["cluster"]), statistics.median(t["one"])
    print(f"| matmul {n}, {chunk}^2 chunks | median s | / exec one process |")
    print("|---|---|---|")
    print(f"| blockwise on the cluster (2 workers x 1 thread) | {mc:.3f} | {mc / mo:.2f}x |")
    print(f"| exec, one process (2 threads) | {mo:.3f} | 1.00x |")
    print(f"target: within 2x: {'met' if mc / mo <= 2 else 'not met'}")


if __name__ == "__main__":
    main()
