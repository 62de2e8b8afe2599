"""Conversions between the small element types and the 64-bit ones: int64 and uint64 stored
into int8/int16/uint8/uint16 arrays keep the low bits, `simt.int8(x)` and friends wrap and
give an int32 back, small values widen to uint64 sign-extended, float64 stored into float16
rounds through float32 (the compute type) and int64 through float32 too."""

import numpy as np

import simt

from . import Case, blocks, rng


@simt.kernel
def small_conversions(a64, u64, u32, f32, f64, b, o8, o16, ou8, ou16, oh, oi):
    i = simt.grid(1)
    if i < len(a64):
        o8[0, i] = a64[i]
        o8[1, i] = u64[i]
        o8[2, i] = b[i]
        o16[0, i] = u32[i]
        o16[1, i] = a64[i] >> 3
        ou8[0, i] = u64[i] >> simt.uint64(5)
        ou8[1, i] = simt.uint8(u32[i]) + simt.int8(a64[i])
        ou16[0, i] = u64[i] * simt.uint64(3)
        ou16[1, i] = simt.int16(f32[i]) * 7
        oh[0, i] = f64[i]
        oh[1, i] = simt.float16(a64[i] >> 50) + simt.float16(u64[i] >> simt.uint64(50))
        oi[0, i] = simt.uint64(simt.int8(a64[i])) + simt.uint64(simt.int8(u32[i]))
        oi[1, i] = simt.int64(simt.uint16(a64[i])) - simt.int64(simt.int16(u64[i]))


N = 301


def _make():
    g = rng(81)
    return (
        g.integers(-(2**63), 2**63 - 1, N, dtype=np.int64),
        g.integers(0, 2**64 - 1, N, dtype=np.uint64, endpoint=True),
        g.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32),
        g.uniform(-3e4, 3e4, N).astype(np.float32),
        g.standard_normal(N) * 1e4,
        g.integers(0, 2, N).astype(bool),
        np.zeros((3, N), np.int8),
        np.zeros((2, N), np.int16),
        np.zeros((2, N), np.uint8),
        np.zeros((2, N), np.uint16),
        np.zeros((2, N), np.float16),
        np.zeros((2, N), np.uint64),
    )


def _ref(a64, u64, u32, f32, f64, b, o8, o16, ou8, ou16, oh, oi):
    i32 = np.int32
    with np.errstate(all="ignore"):
        r8 = np.stack([a64.astype(np.int8), u64.astype(np.int8), b.astype(np.int8)])
        r16 = np.stack([u32.astype(np.int16), (a64 >> 3).astype(np.int16)])
        s = u32.astype(np.uint8).astype(i32) + a64.astype(np.int8).astype(i32)
        ru8 = np.stack([(u64 >> np.uint64(5)).astype(np.uint8), s.astype(np.uint8)])
        t = f32.astype(i32).astype(np.int16).astype(i32) * 7
        ru16 = np.stack([(u64 * np.uint64(3)).astype(np.uint16), t.astype(np.uint16)])
        h1 = (a64 >> 50).astype(np.float32).astype(np.float16).astype(np.float32)
        h2 = (u64 >> np.uint64(50)).astype(np.float32).astype(np.float16).astype(np.float32)
        rh = np.stack([f64.astype(np.float32).astype(np.float16), (h1 + h2).astype(np.float16)])
        w0 = a64.astype(np.int8).astype(np.uint64) + u32.astype(np.int8).astype(np.uint64)
        w1 = a64.astype(np.uint16).astype(np.int64) - u64.astype(np.int16).astype(np.int64)
    return {6: r8, 7: r16, 8: ru8, 9: ru16, 10: rh, 11: np.stack([w0, w1.view(np.uint64)])}


CASES = [
    Case("small_types_from_and_to_64_bit", small_conversions, _make, blocks(N, 128), 128, _ref,
         features=frozenset({"small_int", "fp16", "uint64", "int64"})),
]  # fmt: skip
