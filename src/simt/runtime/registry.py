"""The runtimes simt knows, found lazily: importing simt imports no backend's packages."""

from __future__ import annotations

import importlib
import os

from ..errors import BackendUnavailable
from .base import Runtime

# name -> "module:Class"; order is the default preference (best first) after `sim`'s exclusion.
RUNTIMES: dict[str, str] = {
    "cuda": "simt.runtime.cuda:CudaRuntime",
    "webgpu": "simt.runtime.webgpu:WebGPURuntime",
    "cpu": "simt.runtime.cpu:CpuRuntime",
    "sim": "simt.runtime.sim:SimRuntime",
}

_instances: dict[str, Runtime] = {}
_current: str | None = None


def runtime_class(name: str) -> type[Runtime]:
    """The runtime class for `name`; BackendUnavailable if its module cannot even be imported."""
    if name not in RUNTIMES:
        raise BackendUnavailable(f"unknown backend {name!r}: choose one of {', '.join(RUNTIMES)}")
    module, cls = RUNTIMES[name].split(":")
    try:
        mod = importlib.import_module(module)
    except ImportError as e:  # the module itself is missing: a packaging bug, said plainly
        raise BackendUnavailable(f"backend {name!r} is not available: {e}") from None
    return getattr(mod, cls)  # type: ignore[no-any-return]


def has(name: str, capability: str) -> bool:
    """Whether backend `name` declares `capability` (a capability of `Runtime`, e.g.
    "host_memory"); False for a name that is no backend or whose module cannot load."""
    if not hasattr(Runtime, capability):
        raise AttributeError(f"runtimes declare no capability {capability!r}")
    try:
        return bool(getattr(runtime_class(name), capability))
    except BackendUnavailable:
        return False


def reference() -> str:
    """The name of the runtime that is the executable definition of the semantics (it declares
    `reference`: sim; always present): what differential tests compare with, and where host
    stand-ins of a launch's inputs are made."""
    names = [name for name in RUNTIMES if has(name, "reference")]
    assert len(names) == 1, f"one runtime declares `reference`, not {names}"
    return names[0]


def probe(name: str) -> tuple[bool, str]:
    """(available, why) for backend `name`; never raises."""
    try:
        return runtime_class(name).probe()
    except BackendUnavailable as e:  # its message says why already
        return False, str(e)
    except Exception as e:  # noqa: BLE001 - a probe must never break `simt info`
        return False, f"{type(e).__name__}: {e}"


def get(name: str) -> Runtime:
    """The runtime instance for `name`, created on first use."""
    rt = _instances.get(name)
    if rt is None:
        runtime_class(name)  # an unknown name: said as it is, not as "not available"
        ok, why = probe(name)
        if not ok:
            raise BackendUnavailable(f"backend {name!r} is not available here: {why}")
        rt = runtime_class(name)()
        _instances[name] = rt
    return rt


def started() -> list[str]:
    """The names of the runtimes made (started) in this process so far."""
    return list(_instances)


def default_name() -> str:
    """`SIMT_BACKEND` if set, else the best backend present: cuda, then webgpu on a real GPU
    (not a software adapter), then cpu, then sim."""
    env = os.environ.get("SIMT_BACKEND")
    if env:
        if env not in RUNTIMES:
            raise BackendUnavailable(
                f"SIMT_BACKEND={env!r} names no backend: set it to one of "
                f"{', '.join(RUNTIMES)}, or unset it to use the best one present"
            )
        return env
    for name in ("cuda", "webgpu", "cpu"):
        ok, why = probe(name)
        if ok and not (name == "webgpu" and "CPU adapter" in why):
            return name
    return "sim"


def use(name: str) -> None:
    """Make `name` the backend later launches run on."""
    global _current
    get(name)  # fail now, with the reason, rather than at the first launch
    _current = name


def selected() -> str | None:
    """The backend `use` chose, None while the default has not been picked yet."""
    return _current


def restore(name: str | None) -> None:
    """Go back to a choice `selected` returned (None: the default, picked at the next use)."""
    global _current
    _current = name


_last: tuple[str | None, Runtime | None] = (None, None)  # `current()`'s last answer


def current() -> Runtime:
    """The runtime launches go to now (asked at every launch: the last answer is kept for as
    long as the choice is the same)."""
    global _current, _last
    name = _current
    last = _last
    if name is not None and name is last[0]:
        return last[1]  # type: ignore[return-value]
    if name is None:
        name = _current = default_name()
    rt = get(name)
    _last = (name, rt)
    return rt
