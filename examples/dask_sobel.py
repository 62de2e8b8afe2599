"""Sobel edges of an image too large to hold twice, on a Dask cluster (`simt[dask]`).

    python examples/dask_sobel.py [--size 8192] [--chunk 2048] [--workers 2] [--backend cpu]

The image function is the one of `examples/sobel.py`, unchanged. Called on a dask array it
returns a dask array, lazily: nothing has run yet. `.compute()` (or `.to_zarr(...)`) sends
every chunk, with the one-pixel halo Sobel reads from its neighbours, through the compiled
kernel on the cluster's workers. The result is checked, bit for bit, against the same function
called on the whole NumPy image, and the time of the cluster run is printed beside it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import simt
from simt.image import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sobel import edgeDetect, sobelKernel  # noqa: E402 - the example next to this one


def main() -> None:
    ap = argparse.ArgumentParser(description="simt's Sobel over a chunked image on Dask")
    ap.add_argument("--size", type=int, default=4096, help="image side (pixels)")
    ap.add_argument("--chunk", type=int, default=1024, help="chunk side (pixels)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes, one thread each")
    ap.add_argument("--backend", default=None, help="cuda, webgpu, cpu or sim")
    ap.add_argument("--edge", default="clamp", choices=("clamp", "wrap", "zero"))
    args = ap.parse_args()
    try:
        import dask.array as da
        from distributed import Client, LocalCluster
    except ImportError:
        sys.exit("this example needs the dask extra: pip install 'simt[dask]'")
    if args.backend:
        simt.use(args.backend)

    cluster = LocalCluster(
        n_workers=args.workers, threads_per_worker=1, host="127.0.0.1",
        dashboard_address="127.0.0.1:8787",
    )  # fmt: skip
    client = Client(cluster)
    print(f"cluster: {args.workers} workers x 1 thread; dashboard {client.dashboard_link}")
    try:
        photo = da.random.default_rng(0).random((args.size, args.size), chunks=args.chunk)
        photo = photo.astype(np.float32).persist()  # made on the workers, kept there

        sobel = simt.compile(edgeDetect, kernel=sobelKernel)
        edges = sobel(Image(photo, edge=args.edge))  # a dask array; nothing has run yet
        print(f"edges: {edges.shape} {edges.dtype} in {edges.npartitions} chunks, lazy")

        t0 = time.perf_counter()
        result = edges.compute()  # every chunk through the compiled kernel, halos included
        took = time.perf_counter() - t0
        print(f"computed on the cluster (backend {simt.backend()}) in {took:.2f} s "
              "(the first run compiles on every worker)")  # fmt: skip

        whole = sobel(Image(photo.compute(), edge=args.edge))
        same = np.array_equal(result, whole)
        print(f"equal bit for bit to one call on the whole image: {same}")
        assert same, "the chunked result differs"
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
