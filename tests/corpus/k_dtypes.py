"""Arrays of every dtype the language has: int64 (64-bit wrap-around, `simt.int64`), uint32,
bool (in and out), and a store that converts between them as NumPy assignment does."""

import numpy as np

import simt

from . import Case, blocks, rng


@simt.kernel
def dtypes(a64, u, flags, out64, outu, outb, outi):
    i = simt.grid(1)
    if i < len(a64):
        x = a64[i]
        out64[0, i] = x * 6364136223846793005 + 1442695040888963407  # wraps in 64 bits
        out64[1, i] = x // -7 + x % 1000003
        out64[2, i] = simt.int64(u[i]) << 20
        outu[i] = u[i] * simt.uint32(3) + simt.uint32(flags[i])
        outb[i] = flags[i] and x > 0 or not flags[i] and u[i] % simt.uint32(2) == simt.uint32(0)
        outi[i] = x  # int64 -> int32: keeps the low 32 bits, as NumPy's astype


N = 700


def _make():
    g = rng(26)
    a64 = g.integers(-(2**62), 2**62, N, dtype=np.int64)
    a64[a64 == 0] = 5
    u = g.integers(1, 2**32, N, dtype=np.uint64).astype(np.uint32)
    flags = g.integers(0, 2, N).astype(bool)
    return (a64, u, flags, np.zeros((3, N), np.int64), np.zeros(N, np.uint32),
            np.zeros(N, bool), np.zeros(N, np.int32))  # fmt: skip


def _ref(a64, u, flags, out64, outu, outb, outi):
    with np.errstate(over="ignore"):
        r = np.empty((3, N), np.int64)
        r[0] = a64 * np.int64(6364136223846793005) + np.int64(1442695040888963407)
        r[1] = a64 // -7 + a64 % 1000003
        r[2] = u.astype(np.int64) << 20
        ru = u * np.uint32(3) + flags.astype(np.uint32)
    rb = (flags & (a64 > 0)) | (~flags & (u % 2 == 0))
    return {3: r, 4: ru, 5: rb, 6: a64.astype(np.int32)}


CASES = [
    Case(
        "dtypes_int64_uint32_bool",
        dtypes,
        _make,
        blocks(N, 128),
        128,
        _ref,
        features=frozenset({"int64"}),
    )  # fmt: skip
]
