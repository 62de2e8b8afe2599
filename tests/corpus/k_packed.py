"""8/16-bit and float16 arrays where a GPU packs several elements into one word (WebGPU): each
thread stores one element while other threads, of its block and of other blocks, store the
neighbours in the same word; elements nobody stores keep their value; lengths that are not a
multiple of 4; sign extension on load, wrap-around on store; 2-D and 3-D shapes; shared and
local arrays of these types; float16 rounding at every edge (ties to even, subnormals,
overflow to inf, NaN), bit for bit as NumPy converts."""

import numpy as np

import simt
from simt import thread_idx

from . import Case, blocks, rng

N = 1003  # not a multiple of 4 (nor of 2): the last word is part padding


@simt.kernel
def packed_scatter(src, f, u8, i8, u16, i16, h):
    i = simt.grid(1)
    if i < len(src):
        j = (i * 389) % len(src)  # neighbours of j are stored by threads far from i
        v = src[i]
        u8[j] = v * 7 + i  # wraps to 8 bits
        i8[j] = v * 5 - 300  # wraps, and reads back sign-extended
        u16[j] = v * 1000 + i
        i16[j] = v * -3000
        h[j] = f[i] * 1.5  # float32 arithmetic, rounded to float16 on store


def _make_scatter():
    g = rng(61)
    return (
        g.integers(-1000, 1000, N).astype(np.int32),
        g.standard_normal(N).astype(np.float32) * 1000,
        np.zeros(N, np.uint8),
        np.zeros(N, np.int8),
        np.zeros(N, np.uint16),
        np.zeros(N, np.int16),
        np.zeros(N, np.float16),
    )


def _ref_scatter(src, f, u8, i8, u16, i16, h):
    i = np.arange(N, dtype=np.int32)
    j = (i * 389) % N
    out = {}
    for pos, dt, val in (
        (2, np.uint8, src * 7 + i),
        (3, np.int8, src * 5 - 300),
        (4, np.uint16, src * 1000 + i),
        (5, np.int16, src * -3000),
        (6, np.float16, f * np.float32(1.5)),
    ):
        r = np.zeros(N, dt)
        r[j] = val.astype(dt)
        out[pos] = r
    return out


@simt.kernel
def packed_partial(a8, b8, a16, b16, ah, bh):
    i = simt.grid(1)
    n = len(a8)
    if i < n and i % 3 != 1:  # every third element keeps the value it came in with
        k = min(i + 1, n - 1)
        b8[i] = a8[i] + a8[k]  # int8 sign-extended, the sum wraps
        b16[i] = a16[i] - a16[k]  # uint16: below zero wraps to the top
        bh[i] = ah[i] + ah[k]


def _make_partial():
    g = rng(62)
    return (
        g.integers(-128, 128, N).astype(np.int8),
        g.integers(-128, 128, N).astype(np.int8),
        g.integers(0, 65536, N).astype(np.uint16),
        g.integers(0, 65536, N).astype(np.uint16),
        (g.standard_normal(N) * 300).astype(np.float16),
        (g.standard_normal(N) * 300).astype(np.float16),
    )


def _ref_partial(a8, b8, a16, b16, ah, bh):
    i = np.arange(N)
    k = np.minimum(i + 1, N - 1)
    keep = i % 3 == 1
    r8 = (a8.astype(np.int32) + a8[k].astype(np.int32)).astype(np.int8)
    r16 = (a16.astype(np.int32) - a16[k].astype(np.int32)).astype(np.uint16)
    rh = (ah.astype(np.float32) + ah[k].astype(np.float32)).astype(np.float16)
    return {
        1: np.where(keep, b8, r8),
        3: np.where(keep, b16, r16),
        5: np.where(keep, bh, rh),
    }


H, W, C = 13, 17, 3
T = 8  # tile side


@simt.kernel
def packed_transpose(img, out, depth):
    # out[x, y, c] = 255 - img[y, x, c] through a shared uint8 tile, and a local int16 row
    tile = simt.shared.array((T, T, C), np.uint8)
    x, y = simt.grid(2)
    tx, ty = thread_idx.x, thread_idx.y
    if y < img.shape[0] and x < img.shape[1]:
        for c in range(C):
            tile[ty, tx, c] = 255 - img[y, x, c]
    simt.syncthreads()
    if y < img.shape[0] and x < img.shape[1]:
        acc = simt.local.array(C, np.int16)
        for c in range(C):
            out[x, y, c] = tile[ty, tx, c]
            acc[c] = img[y, x, c] * 200  # wraps to int16 in the local array
        depth[x, y] = acc[0] + acc[1] - acc[2]


def _make_transpose():
    g = rng(63)
    img = g.integers(0, 256, (H, W, C)).astype(np.uint8)
    return img, np.zeros((W, H, C), np.uint8), np.zeros((W, H), np.int16)


def _ref_transpose(img, out, depth):
    acc = (img.astype(np.int32) * 200).astype(np.int16).astype(np.int32)
    d = acc[..., 0] + acc[..., 1] - acc[..., 2]
    return {1: (255 - img).transpose(1, 0, 2), 2: d.T.astype(np.int16)}


@simt.kernel
def packed_views(img, out, h, hout, lo):
    # views of packed arrays: a row, an interior, a run-time strided slice, reversed
    x, y = simt.grid(2)
    inner = out[1:-1, 1:-1]
    if y < inner.shape[0] and x < inner.shape[1]:
        row = img[y + 1]
        inner[y, x] = row[x] // 2 + row[x + 2] // 2  # neighbours in a word: other threads
    if y == 0:
        every3 = hout[lo::3]
        back = h[::-1]
        if x < len(every3):
            every3[x] = back[x] * 2.0


def _make_views():
    g = rng(64)
    h = (g.standard_normal(50) * 100).astype(np.float16)
    return g.integers(0, 256, (H, W)).astype(np.uint8), np.zeros((H, W), np.uint8), h, -h, 1


def _ref_views(img, out, h, hout, lo):
    out = out.copy()
    a = img.astype(np.int32)
    out[1:-1, 1:-1] = (a[1:-1, :-2] // 2 + a[1:-1, 2:] // 2).astype(np.uint8)
    rh = hout.copy()
    every3 = rh[lo::3]
    every3[:] = (h[::-1][: len(every3)].astype(np.float32) * 2).astype(np.float16)
    return {1: out, 3: rh}


@simt.kernel
def half_edges(x, h, patterns, widened):
    i = simt.grid(1)
    if i < len(x):
        h[i] = x[i]  # float32 -> float16: nearest, ties to even, inf past 65520
    if i < len(patterns):
        widened[i] = patterns[i]  # every float16 bit pattern, widened exactly


SPECIALS = np.array(
    [65504, 65519.996, 65520, 65536, 1e6, 3e38, np.inf, np.nan, 2.0**-24, 2.0**-25,
     2.0**-25 * 1.0000001, 2.0**-26, 3 * 2.0**-25, 1e-30, 1e-45, 0.0, 1 + 2.0**-11,
     1 + 3 * 2.0**-11, 2.0**-14, 2.0**-14 * (1 - 2.0**-11)],
    np.float32,
)  # fmt: skip


def _half_inputs() -> np.ndarray:
    """float32 values at every float16 rounding edge: each midpoint between neighbouring
    positive float16 values (ties), one float32 step either side, and the specials."""
    hs = np.arange(0x7C00, dtype=np.uint16).view(np.float16).astype(np.float32)  # 0 .. 65504
    lo, hi = hs[:-1].astype(np.float64), hs[1:].astype(np.float64)
    mid = ((lo + hi) / 2).astype(np.float32)  # exact in float32
    edges = np.concatenate(
        [
            mid,
            np.nextafter(mid, np.float32(0)),
            np.nextafter(mid, np.float32(np.inf)),
            hs,
            SPECIALS,
        ]
    )
    return np.concatenate([edges, -edges])


HALF_X = _half_inputs()


def _make_half_edges():
    patterns = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    return (
        HALF_X.copy(),
        np.zeros(len(HALF_X), np.float16),
        patterns.copy(),
        np.zeros(65536, np.float32),
    )


def _same_bits(got: np.ndarray, want: np.ndarray, what: str) -> str | None:
    """None when equal bit for bit, NaN anywhere counting as equal to any NaN (which NaN an
    operation gives is unspecified: docs/semantics.md)."""
    bits = {2: np.uint16, 4: np.uint32}[got.dtype.itemsize]
    nan = np.isnan(want)
    bad = (got.view(bits) != want.view(bits)) & ~nan
    bad |= nan != np.isnan(got)
    if not bad.any():
        return None
    k = int(np.argmax(bad))
    return f"{what}: {int(bad.sum())} differ; first at {k}: got {got[k]!r}, expected {want[k]!r}"


def _verify_half(before, after) -> str | None:  # type: ignore[no-untyped-def]
    x, _, patterns, _ = before
    _, h, p_after, widened = after
    with np.errstate(over="ignore"):
        want_h = x.astype(np.float16)
    for why in (
        _same_bits(h, want_h, "float32 -> float16"),
        _same_bits(widened, patterns.astype(np.float32), "float16 -> float32"),
        None if np.array_equal(p_after.view(np.uint16), patterns.view(np.uint16)) else
        "the float16 input came back changed",
    ):  # fmt: skip
        if why:
            return why
    return None


CASES = [
    Case("packed_scatter_neighbours", packed_scatter, _make_scatter, blocks(N, 30), 30,
         _ref_scatter, features=frozenset({"small_int", "fp16"})),
    Case("packed_partial_stores", packed_partial, _make_partial, blocks(N, 64), 64,
         _ref_partial, features=frozenset({"small_int", "fp16"})),
    Case("packed_transpose_3d_shared", packed_transpose, _make_transpose,
         (blocks(W, T), blocks(H, T)), (T, T), _ref_transpose,
         features=frozenset({"small_int"})),
    Case("packed_views", packed_views, _make_views, (blocks(W, 8), blocks(H, 8)), (8, 8),
         _ref_views, features=frozenset({"small_int", "fp16"})),
    Case("float16_rounding_edges", half_edges, _make_half_edges, blocks(len(HALF_X), 256), 256,
         verify=_verify_half, features=frozenset({"fp16"})),
]  # fmt: skip
