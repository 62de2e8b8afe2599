"""Arrays of every NumPy element type users bring: uint8 images, int8/int16/uint16 wrapping on
store (they compute in int32), float16 (computes in float32), uint64; `simt.uint8(x)` and
friends convert."""

import numpy as np

import simt

from . import Case, rng


@simt.kernel
def brighten_u8(img, out, gain):
    x, y = simt.grid(2)
    h, w = img.shape[0], img.shape[1]
    if y < h and x < w:
        for c in range(3):
            v = img[y, x, c] * gain + 10.0  # uint8 * float32: float32
            out[y, x, c] = min(v, 255.0)  # stored truncated, as astype(np.uint8)


@simt.kernel
def wrap_small(a8, b8, c16, d16, out8, out16):
    i = simt.grid(1)
    if i < len(a8):
        out8[i] = a8[i] * 3 + 7  # wraps on store (int32 arithmetic)
        b8[i] = -b8[i] * 2 + simt.int8(200)  # simt.int8(200) is -56
        c16[i] = c16[i] * c16[i] - 1000
        out16[i] = d16[i] + simt.uint16(i * 5000) + (a8[i] >> 2)


@simt.kernel
def half_ops(h, out, s):
    i = simt.grid(1)
    if i < len(h):
        x = h[i] * 0.5 + s  # float16 * float: computed in float32
        out[i] = x
        h[i] = simt.float16(x * 3.0)


@simt.kernel
def u64_ops(u, out):
    i = simt.grid(1)
    if i < len(u):
        x = u[i]
        out[i] = x * simt.uint64(3) + (x >> 7) + simt.uint64(i) // simt.uint64(3)


H, W, N = 19, 23, 300


def _make_img():
    g = rng(41)
    img = g.integers(0, 256, (H, W, 3)).astype(np.uint8)
    return img, np.zeros_like(img), 1.7


def _ref_img(img, out, gain):
    v = np.minimum(img.astype(np.float32) * np.float32(gain) + np.float32(10), np.float32(255))
    return {1: v.astype(np.uint8)}


def _make_wrap():
    g = rng(42)
    return (
        g.integers(0, 256, N).astype(np.uint8),
        g.integers(-128, 128, N).astype(np.int8),
        g.integers(-32768, 32768, N).astype(np.int16),
        g.integers(0, 65536, N).astype(np.uint16),
        np.zeros(N, np.uint8),
        np.zeros(N, np.uint16),
    )


def _ref_wrap(a8, b8, c16, d16, out8, out16):
    i = np.arange(N, dtype=np.int32)
    a, b, c, d = (x.astype(np.int32) for x in (a8, b8, c16, d16))
    return {
        4: (a * 3 + 7).astype(np.uint8),
        1: (-b * 2 - 56).astype(np.int8),
        2: (c * c - 1000).astype(np.int16),
        5: (d + (i * 5000).astype(np.uint16).astype(np.int32) + (a >> 2)).astype(np.uint16),
    }


def _make_half():
    g = rng(43)
    return g.standard_normal(N).astype(np.float16), np.zeros(N, np.float32), 0.25


def _ref_half(h, out, s):
    x = h.astype(np.float32) * np.float32(0.5) + np.float32(s)
    return {1: x, 0: (x * np.float32(3)).astype(np.float16)}


def _make_u64():
    g = rng(44)
    return g.integers(0, 2**64 - 1, N, dtype=np.uint64, endpoint=True), np.zeros(N, np.uint64)


def _ref_u64(u, out):
    i = np.arange(N, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return {1: u * np.uint64(3) + (u >> np.uint64(7)) + i // np.uint64(3)}


CASES = [
    Case("uint8_image_brighten", brighten_u8, _make_img, (2, 2), (16, 16), _ref_img,
         features=frozenset({"small_int"})),
    Case("small_ints_wrap", wrap_small, _make_wrap, 3, 128, _ref_wrap,
         features=frozenset({"small_int"})),
    Case("float16_computes_in_float32", half_ops, _make_half, 3, 128, _ref_half,
         features=frozenset({"fp16"})),
    Case("uint64_arithmetic", u64_ops, _make_u64, 3, 128, _ref_u64,
         features=frozenset({"uint64"})),
]  # fmt: skip
