"""Integer constants beyond int32 keep Python's value (issue 23): a known integer that int32
cannot hold makes its operation int64, as the same value passed as an argument does; stored
into an int32 array, the store's wrapping applies. A uint32 operand keeps its type for the
constants uint32 holds (`u * 2654435761` is hashing in uint32, as in C)."""

import numpy as np

import simt

from . import Case, blocks, rng

BIG = 2**40
ROWS = 8


@simt.kernel
def big_constants(a, out, small, uout):
    i = simt.grid(1)
    if i < len(a):
        x = a[i]
        out[0, i] = x + 2**40
        out[1, i] = x * 3000000000  # int64, no int32 wrap-around
        out[2, i] = x + 4294967296
        out[3, i] = (x - 5) * -3000000000
        out[4, i] = x + BIG // 3  # a global, known at compile time
        out[5, i] = max(x, 5000000000) - min(x, -5000000000)
        out[6, i] = (x + 2**33) // 2**32 + (x * 2**31) % 10**10
        # NVIDIA's Vulkan driver multiplied by 2**31 as by -2**31 (H100, 2026-11-26)
        out[7, i] = x * 2**31 - (x % 1000) * 2**36 + (x + 2147483648) - (x - 4294967295)
        small[i] = x + 2**40 + 7  # computed in int64, wrapped by the int32 store
        u = simt.uint32(x)
        uout[i] = u * 2654435761 + 4294967295  # uint32 holds both: uint32 arithmetic


N = 1500


def _make():
    g = rng(23)
    a = g.integers(-(2**31), 2**31 - 1, N, dtype=np.int64).astype(np.int32)
    a[: N // 2] = g.integers(-300, 300, N // 2, dtype=np.int32)
    return a, np.full((ROWS, N), 99, np.int64), np.full(N, 99, np.int32), np.zeros(N, np.uint32)


def _ref(a, out, small, uout):
    x = a.astype(object)  # Python's integers: the values the kernel must keep
    rows = [
        x + 2**40,
        x * 3000000000,
        x + 4294967296,
        (x - 5) * -3000000000,
        x + BIG // 3,
        np.maximum(x, 5000000000) - np.minimum(x, -5000000000),
        (x + 2**33) // 2**32 + (x * 2**31) % 10**10,
        x * 2**31 - (x % 1000) * 2**36 + (x + 2147483648) - (x - 4294967295),
    ]
    ref = np.array([[int(v) for v in r] for r in rows], np.int64)
    wrapped = np.array([(int(v) + 2**40 + 7) & 0xFFFFFFFF for v in x], np.int64)
    small_ref = wrapped.astype(np.uint32).view(np.int32)
    with np.errstate(over="ignore"):
        u = a.view(np.uint32)
        uref = u * np.uint32(2654435761) + np.uint32(4294967295)
    return {1: ref, 2: small_ref, 3: uref}


CASES = [
    Case("big_constants", big_constants, _make, blocks(N, 256), 256, _ref,
         features=frozenset({"int64"})),
]  # fmt: skip
