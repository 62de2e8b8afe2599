"""The compatibility corpus's case type and helpers. Nothing here imports simt: the same
corpus files run under real Numba too (its CUDA simulator, in a subprocess that makes
`from simt import cuda` mean `numba.cuda`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

# what a result is compared with: ("exact",), ("close", rtol, atol), ("l1", rtol)
Tol = tuple[Any, ...]
EXACT: Tol = ("exact",)


def close(rtol: float, atol: float = 0.0) -> Tol:
    return ("close", rtol, atol)


def l1(rtol: float) -> Tol:
    return ("l1", rtol)


@dataclass(frozen=True)
class NCase:
    """One launch of a Numba-style kernel.

    `style` names the kind of public material the kernel is written after. `reference(*args)`
    gives {argument position: expected array} (NumPy, from copies of the arguments before the
    launch). `launch(kernel, args)`, when given, runs the case as a Numba program would (device
    arrays, streams, `forall`, ...) and leaves the results in `args`; otherwise
    `kernel[grid, block](*args)` (with `sharedmem` bytes of dynamic shared memory when set).
    `features`: what a backend may refuse ("fp64": float64 arithmetic, "int64", "atomic64":
    atomics on int64 arrays). `agree`: how
    closely simt's result must match Numba's simulator (default: `tol`); `numba` False (with
    `why`) where Numba's simulator cannot run the case."""

    name: str
    style: str
    kernel: Any
    make_args: Callable[[], tuple[Any, ...]]
    grid: Any
    block: Any
    reference: Callable[..., dict[int, np.ndarray]]
    tol: Tol = EXACT
    launch: Callable[[Any, tuple[Any, ...]], None] | None = None
    sharedmem: int = 0
    features: frozenset[str] = field(default_factory=frozenset)
    agree: Tol | None = None
    numba: bool = True
    why: str = ""

    def run(self, args: tuple[Any, ...]) -> None:
        if self.launch is not None:
            self.launch(self.kernel, args)
        elif self.sharedmem:
            self.kernel[self.grid, self.block, 0, self.sharedmem](*args)
        else:
            self.kernel[self.grid, self.block](*args)


def check(tol: Tol, out: np.ndarray, ref: np.ndarray) -> str | None:
    """None when `out` matches `ref` under `tol`, else what differs."""
    out, ref = np.asarray(out), np.asarray(ref)
    if out.shape != ref.shape:
        return f"shape {out.shape} != {ref.shape}"
    if tol[0] == "exact":
        bad = ~((out == ref) | (np.isnan(out.astype(float)) & np.isnan(ref.astype(float))))
    else:
        d = np.abs(out.astype(np.float64) - ref.astype(np.float64))
        if tol[0] == "l1":
            err = float(d.sum()) / max(float(np.abs(ref.astype(np.float64)).sum()), 1e-300)
            return None if err <= tol[1] else f"sum|d|/sum|ref| = {err:.3g} > {tol[1]}"
        bad = ~(d <= tol[2] + tol[1] * np.abs(ref.astype(np.float64)))
        bad &= ~(np.isnan(out.astype(float)) & np.isnan(ref.astype(float)))
    if not bad.any():
        return None
    first = tuple(int(x) for x in np.argwhere(bad)[0])
    return (
        f"{int(bad.sum())} of {out.size} differ ({tol[0]}); first at {first}: got "
        f"{out[first]!r}, expected {ref[first]!r}"
    )


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(20261126 + seed)


def uniform(seed: int, shape: Any, dtype: Any = np.float32, lo: float = -1.0, hi: float = 1.0):
    return rng(seed).uniform(lo, hi, size=shape).astype(dtype)


# ------------------------------------------------------ xoroshiro128+ (NumPy, for references)
_M = (1 << 64) - 1


def xoroshiro_draws(states: np.ndarray, draws: int) -> np.ndarray:
    """The next `draws` uint64 of each generator of the (n, 2) uint64 `states` (the published
    xoroshiro128+ step), as an (n, draws) array; `states` is left unchanged."""
    s0 = states[:, 0].astype(object)
    s1 = states[:, 1].astype(object)
    out = np.zeros((len(states), draws), np.uint64)
    for k in range(draws):
        for i in range(len(states)):
            a, b = int(s0[i]), int(s1[i])
            out[i, k] = (a + b) & _M
            b ^= a
            s0[i] = (((a << 55) | (a >> 9)) & _M) ^ b ^ ((b << 14) & _M)
            s1[i] = ((b << 36) | (b >> 28)) & _M
    return out


def to_unit64(x: np.ndarray) -> np.ndarray:
    return (x >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def numba_states(n: int, seed: int) -> np.ndarray:
    """Numba's initial states for `seed` (simt's host code, itself checked against Numba's
    own in test_cuda_module.py)."""
    from simt.cuda.random import init_states

    return init_states(n, seed)
