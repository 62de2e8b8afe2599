"""`cuda.random`: the xoroshiro128+ generator with Numba's seeding and number stream.

The same seed gives the same numbers as Numba: the published xoroshiro128+ step (Blackman and
Vigna, rotations 55 and 36, shift 14), each state initialised from the seed by SplitMix64 and
state i being state i - 1 advanced by the generator's jump polynomial (2**64 steps), uniform
floats made from the top 53 bits, normals by Box-Muller from two float32 uniforms (as
Numba's `xoroshiro128p_normal_float64` does too).

States live in a device array of shape (n, 2) and dtype uint64 (`s0`, `s1`), made by
`create_xoroshiro128p_states`; the device functions below are ordinary Python functions that
kernels call (inlined, like any function).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import api
from ..array import DeviceArray
from ..errors import user_facing
from ..lang import float32, float64, uint64

_MASK = (1 << 64) - 1
_JUMP = (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922)
TWO_PI_FLOAT32 = np.float32(2 * math.pi)
TWO_PI_FLOAT64 = np.float64(2 * math.pi)


# ------------------------------------------------------------------ device functions (kernels)
def rotl(x: Any, k: Any) -> Any:
    """`x` (uint64) rotated left by `k` bits."""
    x = uint64(x)
    return (x << k) | (x >> (64 - k))


def xoroshiro128p_next(states: Any, index: Any) -> Any:
    """The next uint64 of generator `index`, advancing its state."""
    s0 = states[index, 0]
    s1 = states[index, 1]
    result = s0 + s1
    s1 = s1 ^ s0
    states[index, 0] = rotl(s0, 55) ^ s1 ^ (s1 << 14)
    states[index, 1] = rotl(s1, 36)
    return result


def uint64_to_unit_float64(x: Any) -> Any:
    """A uint64 as a float64 in [0, 1): its top 53 bits times 2**-53."""
    return float64(uint64(x) >> 11) * float64(1.0 / 9007199254740992.0)


def uint64_to_unit_float32(x: Any) -> Any:
    return float32(uint64_to_unit_float64(x))


def xoroshiro128p_uniform_float32(states: Any, index: Any) -> Any:
    """A float32 in [0, 1) from generator `index`."""
    return uint64_to_unit_float32(xoroshiro128p_next(states, index))


def xoroshiro128p_uniform_float64(states: Any, index: Any) -> Any:
    """A float64 in [0, 1) from generator `index`."""
    return uint64_to_unit_float64(xoroshiro128p_next(states, index))


def xoroshiro128p_normal_float32(states: Any, index: Any) -> Any:
    """A float32 from the standard normal distribution (Box-Muller; two steps)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float32(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT32 * u2)


def xoroshiro128p_normal_float64(states: Any, index: Any) -> Any:
    """A float64 from the standard normal distribution (Box-Muller from two float32
    uniforms, as Numba computes it; two steps)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(-float64(2.0) * math.log(u1)) * math.cos(TWO_PI_FLOAT64 * u2)


# --------------------------------------------------------------------------- host: seeding
def _splitmix(seed: int) -> int:
    z = (seed + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _step(s0: int, s1: int) -> tuple[int, int]:
    s1 ^= s0
    r0 = ((s0 << 55) | (s0 >> 9)) & _MASK
    return r0 ^ s1 ^ ((s1 << 14) & _MASK), ((s1 << 36) | (s1 >> 28)) & _MASK


def _jump(s0: int, s1: int) -> tuple[int, int]:
    """The state 2**64 steps on (Python ints; the published jump polynomial)."""
    t0 = t1 = 0
    for word in _JUMP:
        for b in range(64):
            if (word >> b) & 1:
                t0 ^= s0
                t1 ^= s1
            s0, s1 = _step(s0, s1)
    return t0, t1


# The jump is linear over GF(2): a 128 x 128 bit matrix, kept as its 128 columns (the images
# of the unit states). _POWERS[k] is the matrix of 2**k jumps.
_Matrix = list[tuple[int, int]]
_POWERS: list[_Matrix] = []


def _apply(m: _Matrix, s0: int, s1: int) -> tuple[int, int]:
    r0 = r1 = 0
    for b in range(64):
        if (s0 >> b) & 1:
            r0 ^= m[b][0]
            r1 ^= m[b][1]
        if (s1 >> b) & 1:
            r0 ^= m[64 + b][0]
            r1 ^= m[64 + b][1]
    return r0, r1


def _power(k: int) -> _Matrix:
    while len(_POWERS) <= k:
        if not _POWERS:
            cols = [_jump(1 << b, 0) for b in range(64)] + [_jump(0, 1 << b) for b in range(64)]
        else:
            last = _POWERS[-1]
            cols = [_apply(last, c0, c1) for c0, c1 in last]
        _POWERS.append(cols)
    return _POWERS[k]


def _apply_many(m: _Matrix, s0: np.ndarray, s1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The matrix applied to many states at once (NumPy, bit by bit)."""
    r0 = np.zeros_like(s0)
    r1 = np.zeros_like(s1)
    one = np.uint64(1)
    for half, src in ((0, s0), (64, s1)):
        for b in range(64):
            bit = (src >> np.uint64(b)) & one
            if not bit.any():
                continue
            mask = np.uint64(0) - bit  # all ones where the bit is set
            c0, c1 = m[half + b]
            r0 ^= mask & np.uint64(c0)
            r1 ^= mask & np.uint64(c1)
    return r0, r1


def init_states(n: int, seed: int, subsequence_start: int = 0) -> np.ndarray:
    """The (n, 2) uint64 host array of Numba's initial states for `seed`."""
    states = np.empty((n, 2), np.uint64)
    if n < 1:
        return states
    z = _splitmix(int(seed) & _MASK)
    s0, s1 = z, z
    sub = int(subsequence_start) & _MASK
    k = 0
    while sub:
        if sub & 1:
            s0, s1 = _apply(_power(k), s0, s1)
        sub >>= 1
        k += 1
    states[0] = (s0, s1)
    filled, k = 1, 0
    while filled < n:  # states[filled + j] = jump**filled (states[j])
        m = min(filled, n - filled)
        a, b = _apply_many(_power(k), states[:m, 0].copy(), states[:m, 1].copy())
        states[filled : filled + m, 0] = a
        states[filled : filled + m, 1] = b
        filled += m
        k += 1
    return states


@user_facing
def create_xoroshiro128p_states(
    n: int, seed: int, subsequence_start: int = 0, stream: Any = 0
) -> DeviceArray:
    """`n` generator states on the current backend's device, seeded as Numba seeds them:
    generator i's stream starts (subsequence_start + i) * 2**64 steps into the seed's."""
    return api.to_device(init_states(int(n), seed, subsequence_start))


@user_facing
def init_xoroshiro128p_states(
    states: DeviceArray, seed: int, subsequence_start: int = 0, stream: Any = 0
) -> None:
    """Re-seed an existing state array in place."""
    states.copy_to_device(init_states(states.shape[0], seed, subsequence_start))


__all__ = [
    "create_xoroshiro128p_states", "init_xoroshiro128p_states", "xoroshiro128p_next",
    "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64",
    "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
]  # fmt: skip
