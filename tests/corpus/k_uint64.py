"""uint64 as C and NumPy have it: int32 and uint32 widen to it (an int32 sign-extended, then
its bits), arithmetic wraps modulo 2**64, `//` and `%` by zero give 0, shift amounts are taken
modulo 64, comparisons are unsigned, and conversions to int64 keep the bits. A uint64 scalar
argument, and conversions from and to float32 where they are exact (from 2**63 up too)."""

import numpy as np

import simt

from . import Case, blocks, rng


@simt.kernel
def u64_mix(u, a32, s32, f, out, iout, fout, bout, amount):
    i = simt.grid(1)
    if i < len(u):
        x = u[i]
        y = simt.uint64(a32[i])  # uint32 -> uint64: zero-extended
        z = simt.uint64(s32[i])  # int32 -> uint64: sign-extended, then the bits
        out[0, i] = x + y * z
        out[1, i] = x // (y * simt.uint64(i % 3))  # by zero: 0
        out[2, i] = x % (z * simt.uint64(i % 4))
        out[3, i] = (x << amount) ^ (x >> (amount + simt.uint64(i)))  # amounts modulo 64
        out[4, i] = -x + ~y
        out[5, i] = min(x, z) + max(y, x)
        out[6, i] = x ** simt.uint64(i % 5) + s32[i]  # int32 with uint64 gives uint64
        out[7, i] = simt.uint64(f[i])  # truncated
        iout[i] = simt.int64(x)  # the same bits
        fout[i] = simt.float32(x >> 40)  # exact: below 2**24
        bout[i] = x > z and y < x or x == simt.uint64(0)


N = 500


def _make():
    g = rng(71)
    u = g.integers(0, 2**64 - 1, N, dtype=np.uint64, endpoint=True)
    u[:4] = [0, 1, 2**63, 2**64 - 1]
    a32 = g.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    s32 = g.integers(-(2**31), 2**31, N).astype(np.int32)
    f = g.uniform(0, 2.0**40, N).astype(np.float32)
    f[:4] = [2.0**63, 1e19, 1.8e19, 2.0**63 + 2.0**40]  # from 2**63 up: cpu gave 2**63
    return (
        u,
        a32,
        s32,
        f,
        np.zeros((8, N), np.uint64),
        np.zeros(N, np.int64),
        np.zeros(N, np.float32),
        np.zeros(N, bool),
        np.uint64(67),  # a uint64 scalar: shifts by 67 % 64 = 3
    )


def _ref(u, a32, s32, f, out, iout, fout, bout, amount):
    i = np.arange(N, dtype=np.uint64)
    x = u
    y = a32.astype(np.uint64)
    z = s32.astype(np.uint64)  # NumPy's astype: the sign-extended bits, as C
    r = np.empty((8, N), np.uint64)
    c64 = np.uint64(64)
    with np.errstate(all="ignore"):
        d = y * (i % np.uint64(3))
        r[1] = np.where(d == 0, np.uint64(0), x // np.where(d == 0, np.uint64(1), d))
        m = z * (i % np.uint64(4))
        r[2] = np.where(m == 0, np.uint64(0), x % np.where(m == 0, np.uint64(1), m))
        r[0] = x + y * z
        r[3] = (x << (amount % c64)) ^ (x >> ((amount + i) % c64))
        r[4] = (np.uint64(0) - x) + ~y
        r[5] = np.minimum(x, z) + np.maximum(y, x)
        p = np.ones(N, np.uint64)
        for k in range(4):
            p = np.where(i % np.uint64(5) > np.uint64(k), p * x, p)
        r[6] = p + z
        r[7] = f.astype(np.uint64)
    b = ((x > z) & (y < x)) | (x == 0)
    return {4: r, 5: x.view(np.int64), 6: (x >> np.uint64(40)).astype(np.float32), 7: b}


CASES = [
    Case("uint64_widening_and_wrap", u64_mix, _make, blocks(N, 128), 128, _ref,
         features=frozenset({"uint64"})),
]  # fmt: skip
