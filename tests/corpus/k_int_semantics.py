"""Integer semantics: floor `//` and `%` of negatives, `// 0` and `% 0` give 0, int32
wrap-around, shifts by amounts taken modulo the width, `**` on ints, uint32 arithmetic."""

import numpy as np

import simt

from . import Case, blocks, rng

ROWS = 12


@simt.kernel
def int_ops(a, b, s, e, out, uout):
    i = simt.grid(1)
    if i < len(a):
        x = a[i]
        y = b[i]
        out[0, i] = x // y  # floor division, 0 where y == 0
        out[1, i] = x % y  # remainder with the sign of y, 0 where y == 0
        out[2, i] = x * 65599 + 12345  # wraps like CUDA's int32
        out[3, i] = x << s[i]  # shift amount modulo 32
        out[4, i] = x >> s[i]  # arithmetic shift
        out[5, i] = (x & 0xFF) | (y ^ -4)
        out[6, i] = x ** e[i]  # repeated squaring, wraps
        out[7, i] = x**3 - y**2  # known exponents: multiplications
        out[8, i] = -x // 7 + (-x) % 7
        out[9, i] = abs(x) + min(x, y) - max(x, y)
        out[10, i] = ~x
        out[11, i] = (x + 2147483000) + (y + 2147483000)  # overflows twice
        u = simt.uint32(x)
        uout[0, i] = u >> s[i]  # logical shift
        uout[1, i] = u * simt.uint32(2654435761)
        uout[2, i] = u // simt.uint32(y * y + 1)
        uout[3, i] = u % simt.uint32(7)


N = 2000


def _make():
    g = rng(11)
    a = g.integers(-(2**31), 2**31 - 1, N, dtype=np.int64).astype(np.int32)
    a[: N // 2] = g.integers(-200, 200, N // 2, dtype=np.int32)  # small values: readable failures
    a[a == 0] = 3
    b = g.integers(-13, 14, N, dtype=np.int32)  # includes zeros on purpose: `// 0` is 0
    s = g.integers(0, 64, N, dtype=np.int32)
    e = g.integers(0, 8, N, dtype=np.int32)
    return (a, b, s, e, np.full((ROWS, N), 99, np.int32), np.full((4, N), 99, np.uint32))


def _floordiv(x, y):
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        q = np.floor_divide(x, np.where(y == 0, 1, y))
        r = np.mod(x, np.where(y == 0, 1, y))
    return np.where(y == 0, 0, q).astype(x.dtype), np.where(y == 0, 0, r).astype(x.dtype)


def _ref(a, b, s, e, out, uout):
    with np.errstate(over="ignore"):
        q, r = _floordiv(a, b)
        sh = (s & 31).astype(np.int32)
        ref = np.empty((ROWS, N), np.int32)
        ref[0], ref[1] = q, r
        ref[2] = a * np.int32(65599) + np.int32(12345)
        ref[3] = np.left_shift(a, sh)
        ref[4] = np.right_shift(a, sh)
        ref[5] = (a & 0xFF) | (b ^ np.int32(-4))
        ref[6] = np.power(a, e)
        ref[7] = a * a * a - b * b
        q7, r7 = _floordiv(-a, np.full(N, 7, np.int32))
        ref[8] = q7 + r7
        ref[9] = np.abs(a) + np.minimum(a, b) - np.maximum(a, b)
        ref[10] = ~a
        ref[11] = (a + np.int32(2147483000)) + (b + np.int32(2147483000))
        u = a.view(np.uint32)
        uref = np.empty((4, N), np.uint32)
        uref[0] = np.right_shift(u, sh.astype(np.uint32))
        uref[1] = u * np.uint32(2654435761)
        uref[2] = u // (b * b + 1).astype(np.uint32)
        uref[3] = u % np.uint32(7)
    return {4: ref, 5: uref}


CASES = [Case("int_semantics", int_ops, _make, blocks(N, 256), 256, _ref)]
