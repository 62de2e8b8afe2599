"""The autotuner: `simt.autotune(kernel, *args, blocks=[...])` and `kernel.autolaunch(n)`.

Each candidate block shape (and each combination of tile values, for parameters passed in
`params`) is launched over the same threads, timed device-correctly (`timing.sample`), and the
fastest is kept. The choice is cached per device, kernel and argument shapes, in memory and in
`simt.cache.cache_dir()/autotune.json`, so a later process does not tune again. Tuning runs the
kernel on the arguments given: outputs are overwritten, as by any launch.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import LaunchError

DEFAULT_1D = (32, 64, 128, 256, 512, 1024)
DEFAULT_2D = ((8, 8), (16, 8), (16, 16), (32, 8), (32, 16), (32, 32))


@dataclass
class Tuned:
    """The autotuner's choice: block, the tile values, and every candidate's median time."""

    block: tuple[int, ...]
    params: dict[str, Any]
    n: tuple[int, ...]
    times: dict[str, float] = field(default_factory=dict)  # candidate label -> seconds
    cached: bool = False

    def grid(self, n: Sequence[int] | None = None) -> tuple[int, ...]:
        """The grid covering `n` threads (default: the tuned extent) with the chosen block."""
        ext = tuple(n) if n is not None else self.n
        return tuple((e + b - 1) // b for e, b in zip(ext, self.block))


def _extent(n: Any) -> tuple[int, ...]:
    if isinstance(n, (int, np.integer)):
        return (int(n),)
    if (
        isinstance(n, tuple)
        and 1 <= len(n) <= 3
        and all(isinstance(v, (int, np.integer)) for v in n)
    ):
        return tuple(int(v) for v in n)
    raise LaunchError(f"the thread extent must be an int or a tuple of 1 to 3 ints, got {n!r}")


def _default_extent(args: Sequence[Any]) -> tuple[int, ...]:
    """One thread per element of the largest array argument (2-D: x along its columns)."""
    arrays = [a for a in args if hasattr(a, "shape") and len(getattr(a, "shape", ())) > 0]
    if not arrays:
        raise LaunchError("autotune needs n= (the threads to launch) when no argument is an array")
    big = max(arrays, key=lambda a: int(np.prod(a.shape)))
    shape = tuple(int(s) for s in big.shape)
    if len(shape) == 1:
        return shape
    return (shape[-1], int(np.prod(shape[:-1])))


def _shape_key(args: Sequence[Any], kwargs: dict[str, Any]) -> str:
    parts = []
    for a in list(args) + [kwargs[k] for k in sorted(kwargs)]:
        if hasattr(a, "shape") and hasattr(a, "dtype"):
            parts.append(f"{np.dtype(a.dtype).str}{tuple(a.shape)}")
        elif isinstance(a, (int, float, bool, np.generic)):
            parts.append(type(a).__name__)
        else:
            parts.append(type(a).__name__)
    return ",".join(parts)


def _kernel_id(kernel: Any) -> str:
    f = kernel.pyfunc
    code = getattr(f, "__code__", None)
    where = f"{code.co_filename}:{code.co_firstlineno}" if code is not None else ""
    return f"{getattr(f, '__module__', '')}.{getattr(f, '__qualname__', kernel.__name__)}@{where}"


_memory: dict[str, Tuned] = {}


def _store_path() -> Any:
    from .. import cache

    return cache.cache_dir() / "autotune.json"


def _disk_load(key: str) -> Tuned | None:
    try:
        data = json.loads(_store_path().read_text()).get(key)
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(data, dict):
        return None
    try:
        return Tuned(
            tuple(data["block"]),
            dict(data["params"]),
            tuple(data["n"]),
            dict(data.get("times", {})),
            cached=True,
        )
    except (KeyError, TypeError):
        return None


def _disk_store(key: str, t: Tuned) -> None:
    from .. import cache

    if not cache.enabled():
        return
    path = _store_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            data = json.loads(path.read_text())
            if not isinstance(data, dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        data[key] = {"block": list(t.block), "params": t.params, "n": list(t.n), "times": t.times}
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=1))
        os.replace(tmp, path)
    except (OSError, TypeError):
        pass  # a read-only disk only costs tuning again


def _key(kernel: Any, args: Sequence[Any], kwargs: dict[str, Any], n: tuple[int, ...]) -> str:
    from ..runtime import registry
    from .profile import describe_device

    rt = registry.current()
    device = describe_device(rt.name)[0]
    return f"{rt.name}|{device}|{_kernel_id(kernel)}|{_shape_key(args, kwargs)}|n={n}"


def autotune(
    kernel: Any,
    *args: Any,
    blocks: Sequence[Any] | None = None,
    n: Any = None,
    params: dict[str, Sequence[Any]] | None = None,
    repeat: int = 5,
    max_time: float = 1.0,
    retune: bool = False,
    **kwargs: Any,
) -> Tuned:
    """Time `kernel` over `n` threads (default: one per element of the largest array) with each
    block shape in `blocks` (default: 32..1024 in 1-D, 8x8..32x32 in 2-D) and each combination
    of the values in `params` (keyword arguments of the kernel, e.g. tile sizes), and return the
    fastest as a `Tuned`. Cached per device, kernel and argument shapes."""
    from ..runtime import registry
    from .profile import load_profile
    from .timing import sample

    ext = _extent(n) if n is not None else _default_extent(args)
    key = _key(kernel, args, kwargs, ext)
    if params:
        key += "|params=" + json.dumps({k: list(v) for k, v in sorted(params.items())}, default=str)
    if blocks is not None:
        key += "|blocks=" + repr([tuple(b) if isinstance(b, (tuple, list)) else b for b in blocks])
    if not retune:
        hit = _memory.get(key) or _disk_load(key)
        if hit is not None:
            hit.cached = True
            _memory[key] = hit
            return hit
    rt = registry.current()
    limit = load_profile(rt.name).max_block
    cands: list[Any] = (
        list(blocks) if blocks is not None else list(DEFAULT_1D if len(ext) == 1 else DEFAULT_2D)
    )
    shapes = []
    for b in cands:
        if isinstance(b, (int, np.integer)):
            bt: tuple[int, ...] = (int(b),)
        else:
            bt = tuple(int(v) for v in b)
        if len(bt) < len(ext):
            bt = bt + (1,) * (len(ext) - len(bt))
        if int(np.prod(bt)) <= limit:
            shapes.append(bt)
    if not shapes:
        raise LaunchError(f"autotune: no candidate block fits this device's {limit} threads")
    names = sorted(params or {})
    combos = (
        [dict(zip(names, vals)) for vals in itertools.product(*[params[k] for k in names])]
        if params
        else [{}]
    )
    best: Tuned | None = None
    best_t = float("inf")
    times: dict[str, float] = {}
    for combo in combos:
        for bt in shapes:
            grid = tuple((e + b - 1) // b for e, b in zip(ext, bt))
            launcher = kernel[grid, bt]
            kw = {**kwargs, **combo}

            def run(launcher: Any = launcher, kw: dict[str, Any] = kw) -> None:
                launcher(*args, **kw)

            ts = sample(run, rt.synchronize, 1, repeat, 0.0, max_time=max_time)
            t = float(np.median(ts))
            label = "x".join(map(str, bt)) + (
                "" if not combo else " " + ",".join(f"{k}={v}" for k, v in combo.items())
            )
            times[label] = t
            if t < best_t:
                best_t = t
                best = Tuned(bt, dict(combo), ext)
    assert best is not None
    best.times = times
    _memory[key] = best
    _disk_store(key, best)
    return best


def autolaunch(kernel: Any, n: Any) -> Callable[..., None]:
    """`kernel.autolaunch(n)(*args)`: launch over `n` threads with the tuned block shape
    (tuning with the default candidates the first time these argument shapes are seen)."""
    ext = _extent(n)

    def launch(*args: Any, **kwargs: Any) -> None:
        t = autotune(kernel, *args, n=ext, **kwargs)
        kernel[t.grid(ext), t.block](*args, **{**kwargs, **t.params})

    return launch
