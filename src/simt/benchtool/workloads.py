"""The benchmark suite W1-W6 as GPU-style simt kernels, with inputs, NumPy versions and float64
references.

The kernels are written the way a CUDA programmer writes them: one thread per output element,
blocks of 256 or 16 x 16, nothing arranged for a CPU. Shapes follow the workload table of
the peer benchmark kit (float32 inputs uniform in [0.5, 1.5), seeded), so the kit's C
references can be timed on the same inputs. Shared by `simt bench` and `bench/suite.py`
(`bench/workloads.py` re-exports this module). `launch_of` gives each workload's launch and
arguments for the cost model.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import simt
from simt import block_dim, block_idx, grid_dim, thread_idx

SEED = 20261122
TOL = 1e-4  # the kit's limit for every workload's relative error

SIZES: dict[str, dict[str, dict[str, int]]] = {
    "full": {
        "colsum": {"m": 256, "n": 262144},
        "vecadd": {"n": 1 << 24},
        "mandel": {"h": 1024, "w": 1024, "max_iter": 30},
        "sobel": {"h": 2048, "w": 2048},
        "reduce": {"n": 1 << 24},
        "matmul": {"n": 1024},
    },
    "quick": {
        "colsum": {"m": 64, "n": 8192},
        "vecadd": {"n": 1 << 16},
        "mandel": {"h": 128, "w": 128, "max_iter": 30},
        "sobel": {"h": 128, "w": 128},
        "reduce": {"n": 1 << 16},
        "matmul": {"n": 64},
    },
}

LABELS = {
    "colsum": "W1 colsum",
    "vecadd": "W2 vecadd",
    "mandel": "W3 mandelbrot",
    "sobel": "W4 sobel",
    "reduce": "W5 reduce",
    "matmul": "W6 matmul",
}

REDUCE_THREADS = 256
REDUCE_MAX_BLOCKS = 1024


# ------------------------------------------------------------------------------ kernels
@simt.kernel
def colsum(a, out):
    j = block_idx.x * block_dim.x + thread_idx.x
    if j < a.shape[1]:
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i, j]
        out[j] = s


@simt.kernel
def vecadd(a, b, c):
    i = block_idx.x * block_dim.x + thread_idx.x
    if i < len(c):
        c[i] = a[i] + b[i]


@simt.kernel
def mandel(out, max_iter):
    col = block_idx.x * block_dim.x + thread_idx.x
    row = block_idx.y * block_dim.y + thread_idx.y
    h, w = out.shape
    if row < h and col < w:
        x0 = col / w * 0.13 - 0.62
        y0 = row / h * 0.13 - 0.65
        x = 0.0
        y = 0.0
        it = 0
        while it < max_iter and x * x + y * y <= 4.0:
            xt = x * x - y * y + x0
            y = 2.0 * x * y + y0
            x = xt
            it += 1
        out[row, col] = it


@simt.kernel
def sobel(img, out):
    x = block_idx.x * block_dim.x + thread_idx.x
    y = block_idx.y * block_dim.y + thread_idx.y
    h, w = img.shape
    if y < h and x < w:
        xm = max(x - 1, 0)
        xp = min(x + 1, w - 1)
        ym = max(y - 1, 0)
        yp = min(y + 1, h - 1)
        gx = (img[ym, xp] + 2.0 * img[y, xp] + img[yp, xp]) - (
            img[ym, xm] + 2.0 * img[y, xm] + img[yp, xm]
        )
        gy = (img[yp, xm] + 2.0 * img[yp, x] + img[yp, xp]) - (
            img[ym, xm] + 2.0 * img[ym, x] + img[ym, xp]
        )
        out[y, x] = math.sqrt(gx * gx + gy * gy)


@simt.kernel
def reduce(a, partial):
    sh = simt.shared.array(REDUCE_THREADS, np.float32)  # type: ignore[attr-defined]
    tid = thread_idx.x
    acc = 0.0
    # a grid-stride loop; as a `for` its trips can be counted (an int32 `while` counter wraps,
    # which keeps CUDA's compiler from unrolling it)
    for i in range(block_idx.x * block_dim.x + tid, len(a), block_dim.x * grid_dim.x):
        acc += a[i]
    sh[tid] = acc
    simt.syncthreads()
    s = block_dim.x // 2
    while s > 0:
        if tid < s:
            sh[tid] += sh[tid + s]
        simt.syncthreads()
        s //= 2
    if tid == 0:
        partial[block_idx.x] = sh[0]


@simt.kernel
def matmul(a, b, c):
    row = block_idx.y * block_dim.y + thread_idx.y
    col = block_idx.x * block_dim.x + thread_idx.x
    n = c.shape[0]
    if row < n and col < c.shape[1]:
        acc = 0.0
        for k in range(a.shape[1]):
            acc += a[row, k] * b[k, col]
        c[row, col] = acc


# ------------------------------------------------------------------------------ inputs
def make_inputs(wl: str, p: dict[str, int]) -> dict[str, np.ndarray]:
    """Seeded float32 inputs uniform in [0.5, 1.5) (random, never zero), named as the kit
    names them (`a`, `b`, `img`) so its C references take them unchanged."""
    g = np.random.default_rng(SEED + sorted(LABELS).index(wl))

    def rnd(*shape: int) -> np.ndarray:
        return g.random(shape, dtype=np.float32) + np.float32(0.5)

    if wl == "colsum":
        return {"a": rnd(p["m"], p["n"])}
    if wl == "vecadd":
        return {"a": rnd(p["n"]), "b": rnd(p["n"])}
    if wl == "mandel":
        return {}
    if wl == "sobel":
        return {"img": rnd(p["h"], p["w"])}
    if wl == "reduce":
        return {"a": rnd(p["n"])}
    if wl == "matmul":
        return {"a": rnd(p["n"], p["n"]), "b": rnd(p["n"], p["n"])}
    raise KeyError(wl)


# --------------------------------------------------------------------------- references
def _mandel_ref(h: int, w: int, max_iter: int) -> np.ndarray:
    x0 = np.broadcast_to(np.arange(w, dtype=np.float64)[None, :] / w * 0.13 - 0.62, (h, w))
    y0 = np.broadcast_to(np.arange(h, dtype=np.float64)[:, None] / h * 0.13 - 0.65, (h, w))
    x = np.zeros((h, w))
    y = np.zeros((h, w))
    count = np.zeros((h, w), np.int32)
    for _ in range(max_iter):
        inside = x * x + y * y <= 4.0
        count += inside
        x, y = np.where(inside, x * x - y * y + x0, x), np.where(inside, 2.0 * x * y + y0, y)
    return count


def sobel_numpy(img: np.ndarray, dtype: Any) -> np.ndarray:
    """The Sobel magnitude of `img` computed in `dtype` with NumPy, nearest-edge borders."""
    p = np.pad(img.astype(dtype), 1, mode="edge")
    h, w = img.shape

    def s(dy: int, dx: int) -> np.ndarray:
        return p[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]

    gx = (s(-1, 1) + 2 * s(0, 1) + s(1, 1)) - (s(-1, -1) + 2 * s(0, -1) + s(1, -1))
    gy = (s(1, -1) + 2 * s(1, 0) + s(1, 1)) - (s(-1, -1) + 2 * s(-1, 0) + s(-1, 1))
    return np.sqrt(gx * gx + gy * gy)


def reference(wl: str, inp: dict[str, np.ndarray], p: dict[str, int]) -> Any:
    """The float64 answer (int32 counts for Mandelbrot, a float for the reduction)."""
    if wl == "colsum":
        return inp["a"].sum(axis=0, dtype=np.float64)
    if wl == "vecadd":
        return inp["a"].astype(np.float64) + inp["b"]
    if wl == "mandel":
        return _mandel_ref(p["h"], p["w"], p["max_iter"])
    if wl == "sobel":
        return sobel_numpy(inp["img"], np.float64)
    if wl == "reduce":
        return float(inp["a"].sum(dtype=np.float64))
    if wl == "matmul":
        return inp["a"].astype(np.float64) @ inp["b"].astype(np.float64)
    raise KeyError(wl)


def rel_err(wl: str, out: Any, ref: Any) -> float:
    """Relative error as the kit measures it: L1 for Mandelbrot counts (float32 and float64
    may differ by one at a few boundary pixels), scalar for the reduction, else
    max|d| / max|ref|."""
    if wl == "reduce":
        return abs(float(out) - ref) / abs(ref)
    out = np.asarray(out)
    if out.shape != ref.shape:
        return math.inf
    d = np.abs(out.astype(np.float64) - ref)
    if not np.all(np.isfinite(d)):
        return math.inf
    if wl == "mandel":
        return float(d.sum() / np.abs(ref).sum())
    return float(d.max() / np.abs(ref).max())


# ---------------------------------------------------------------------------- runners
Made = tuple[Callable[[], None], Callable[[], Any]]


@dataclass
class SimtRun:
    """A simt workload ready to launch: `run()` launches and waits, `result()` fetches."""

    run: Callable[[], None]
    result: Callable[[], Any]
    kernel: Any


def _grid(n: int, per: int) -> int:
    return (n + per - 1) // per


def make_simt(wl: str, inp: dict[str, np.ndarray], p: dict[str, int]) -> SimtRun:
    """Upload the inputs, allocate the outputs, and return the launch (not compiled yet: the
    first `run()` includes compilation)."""
    dev = {k: simt.to_device(v) for k, v in inp.items()}
    sync = simt.synchronize
    # the kernel this module names now, bound here: a caller that swaps the module's kernel
    # for a twin while it makes a run (bench/bounds.py's `boundscheck=False` side) times that
    # twin, not whatever the name holds at each call
    kern = {"colsum": colsum, "vecadd": vecadd, "mandel": mandel, "sobel": sobel,
            "reduce": reduce, "matmul": matmul}[wl]  # fmt: skip
    if wl == "colsum":
        out = simt.empty((p["n"],), np.float32)
        g = _grid(p["n"], 256)

        def run() -> None:
            kern[g, 256](dev["a"], out)
            sync()

        return SimtRun(run, out.numpy, kern)
    if wl == "vecadd":
        out = simt.empty((p["n"],), np.float32)
        g = _grid(p["n"], 256)

        def run() -> None:
            kern[g, 256](dev["a"], dev["b"], out)
            sync()

        return SimtRun(run, out.numpy, kern)
    if wl == "mandel":
        h, w, it = p["h"], p["w"], p["max_iter"]
        out = simt.empty((h, w), np.int32)
        grid = (_grid(w, 16), _grid(h, 16))

        def run() -> None:
            kern[grid, (16, 16)](out, it)
            sync()

        return SimtRun(run, out.numpy, kern)
    if wl == "sobel":
        h, w = p["h"], p["w"]
        out = simt.empty((h, w), np.float32)
        grid = (_grid(w, 16), _grid(h, 16))

        def run() -> None:
            kern[grid, (16, 16)](dev["img"], out)
            sync()

        return SimtRun(run, out.numpy, kern)
    if wl == "reduce":
        blocks = min(REDUCE_MAX_BLOCKS, _grid(p["n"], REDUCE_THREADS))
        partial = simt.empty((blocks,), np.float32)
        box: dict[str, float] = {}

        def run() -> None:
            kern[blocks, REDUCE_THREADS](dev["a"], partial)
            # the host sums the per-block partial sums (part of the timed work)
            box["s"] = float(partial.numpy().sum(dtype=np.float64))

        return SimtRun(run, lambda: box["s"], kern)
    if wl == "matmul":
        n = p["n"]
        out = simt.empty((n, n), np.float32)
        grid = (_grid(n, 16), _grid(n, 16))

        def run() -> None:
            kern[grid, (16, 16)](dev["a"], dev["b"], out)
            sync()

        return SimtRun(run, out.numpy, kern)
    raise KeyError(wl)


def make_numpy(wl: str, inp: dict[str, np.ndarray], p: dict[str, int]) -> Made:
    """The same workload written as vectorised NumPy (W6 is BLAS sgemm: the ceiling)."""
    box: dict[str, Any] = {}
    if wl == "colsum":
        a = inp["a"]
        out = np.empty(p["n"], np.float32)

        def run() -> None:
            a.sum(axis=0, out=out)

        return run, lambda: out
    if wl == "vecadd":
        a, b = inp["a"], inp["b"]
        c = np.empty_like(a)

        def run() -> None:
            np.add(a, b, out=c)

        return run, lambda: c
    if wl == "mandel":
        h, w, max_iter = p["h"], p["w"], p["max_iter"]
        x0 = np.arange(w, dtype=np.float32)[None, :] / np.float32(w) * np.float32(0.13)
        x0 = np.broadcast_to(x0 - np.float32(0.62), (h, w))
        y0 = np.arange(h, dtype=np.float32)[:, None] / np.float32(h) * np.float32(0.13)
        y0 = np.broadcast_to(y0 - np.float32(0.65), (h, w))

        def run() -> None:
            x = np.zeros((h, w), np.float32)
            y = np.zeros((h, w), np.float32)
            count = np.zeros((h, w), np.int32)
            for _ in range(max_iter):
                inside = x * x + y * y <= 4.0
                count += inside
                x, y = (np.where(inside, x * x - y * y + x0, x),
                        np.where(inside, 2.0 * x * y + y0, y))  # fmt: skip
            box["r"] = count

        return run, lambda: box["r"]
    if wl == "sobel":
        img = inp["img"]

        def run() -> None:
            box["r"] = sobel_numpy(img, np.float32)

        return run, lambda: box["r"]
    if wl == "reduce":
        a = inp["a"]

        def run() -> None:
            box["r"] = float(a.sum())

        return run, lambda: box["r"]
    if wl == "matmul":
        a, b = inp["a"], inp["b"]
        c = np.empty_like(a)

        def run() -> None:
            np.matmul(a, b, out=c)

        return run, lambda: c
    raise KeyError(wl)


def launch_of(
    wl: str, p: dict[str, int], inp: dict[str, np.ndarray]
) -> tuple[Any, Any, Any, tuple[Any, ...]]:
    """(kernel, grid, block, args) of the workload's launch, as `make_simt` launches it, with
    host arrays of the right shapes (for the cost model and the advisor; nothing runs)."""
    if wl == "colsum":
        return colsum, _grid(p["n"], 256), 256, (inp["a"], np.empty(p["n"], np.float32))
    if wl == "vecadd":
        n = p["n"]
        return vecadd, _grid(n, 256), 256, (inp["a"], inp["b"], np.empty(n, np.float32))
    if wl == "mandel":
        h, w = p["h"], p["w"]
        return (mandel, (_grid(w, 16), _grid(h, 16)), (16, 16),
                (np.empty((h, w), np.int32), p["max_iter"]))  # fmt: skip
    if wl == "sobel":
        h, w = p["h"], p["w"]
        return (sobel, (_grid(w, 16), _grid(h, 16)), (16, 16),
                (inp["img"], np.empty((h, w), np.float32)))  # fmt: skip
    if wl == "reduce":
        blocks = min(REDUCE_MAX_BLOCKS, _grid(p["n"], REDUCE_THREADS))
        return (reduce, blocks, REDUCE_THREADS,
                (inp["a"], np.empty(blocks, np.float32)))  # fmt: skip
    if wl == "matmul":
        n = p["n"]
        return (matmul, (_grid(n, 16), _grid(n, 16)), (16, 16),
                (inp["a"], inp["b"], np.empty((n, n), np.float32)))  # fmt: skip
    raise KeyError(wl)
