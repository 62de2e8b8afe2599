"""How simt's compiled callables reach dask workers, and what runs there.

A `Kernel` or an `ImageFunction` holds compiled code (function pointers, GPU modules) that
cannot be pickled, and need not be: what crosses to a worker is a *recipe* — the user's Python
function and the options it was compiled with — and each worker process builds the simt object
from it once (`built`), compiling on first use; the disk cache (`SIMT_CACHE_DIR`, inherited by
the workers of a `LocalCluster`) spares the backend compile when another process did it before.

The user's function travels:
- by reference (module and qualified name) when its module can be imported by path, as in
  any installed package or a module next to the script: the worker imports it;
- by value otherwise (a script run as `__main__`, a notebook cell, a file loaded by path):
  cloudpickle carries the function and the globals it uses, and the source text of the files
  its code comes from goes along, registered on the worker with `linecache` — simt compiles
  from source, and the worker may not have the file (or a notebook's cell) at all.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import inspect
import linecache
import os
import sys
import threading
import types
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import BackendUnavailable, KernelError, SimtError
from ..runtime import registry


@dataclass
class FunctionRef:
    """A Python function as it crosses to a worker: by reference or by value with sources."""

    module: str | None = None
    qualname: str | None = None
    pickled: bytes | None = None
    sources: dict[str, list[str]] = field(default_factory=dict)
    # qualified name -> file, for each function that goes by value: cloudpickle does not keep
    # a code object's file name, and simt's front end finds the source by it
    files: dict[str, str] = field(default_factory=dict)

    def load(self) -> Callable[..., Any]:
        """The function, in this process."""
        if self.pickled is None:
            assert self.module is not None and self.qualname is not None
            obj: Any = importlib.import_module(self.module)
            for part in self.qualname.split("."):
                obj = getattr(obj, part)
            return obj  # type: ignore[no-any-return]
        for filename, lines in self.sources.items():
            entry: Any = linecache.cache.get(filename)
            if entry is None or len(entry) < 3 or entry[2] != lines:
                # mtime None: linecache.checkcache keeps the entry (as for notebook cells)
                linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)
        import cloudpickle

        fn = cloudpickle.loads(self.pickled)
        for f in _reached(fn):
            name = self.files.get(f.__qualname__)
            if name is not None and f.__code__.co_filename != name:
                f.__code__ = f.__code__.replace(co_filename=name)
        return fn  # type: ignore[no-any-return]


def importable(fn: Any) -> bool:
    """Whether `fn` can be found again by importing its module by name from the path (so a
    worker with the same code installed finds it), as opposed to a `__main__` script, a
    notebook, or a file loaded by path."""
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", "")
    if not module or module == "__main__" or "<locals>" in qualname:
        return False
    mod = sys.modules.get(module)
    if mod is None:
        return False
    obj: Any = mod
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    if obj is not fn and getattr(obj, "pyfunc", None) is not fn:
        return False
    top = module.split(".")[0]
    if top in sys.builtin_module_names:
        return True
    try:
        return importlib.machinery.PathFinder.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def _reached(fn: Any) -> list[Any]:
    """`fn` and the plain functions it calls by global name, recursively, that cannot be
    imported by name (those simt's front end reads the source of, and that go by value)."""
    out: list[Any] = []
    todo = [fn]
    while todo:
        f = todo.pop()
        code = getattr(f, "__code__", None)
        if code is None or any(f is g for g in out):
            continue
        out.append(f)
        names = set(code.co_names) | {
            n for c in code.co_consts if isinstance(c, types.CodeType) for n in c.co_names
        }
        for name in names:
            g = getattr(f, "__globals__", {}).get(name)
            if inspect.isfunction(g) and not importable(g):
                todo.append(g)
    return out


def _sources(fns: list[Any]) -> dict[str, list[str]]:
    """The text of the files these functions come from (what the front end reads)."""
    out: dict[str, list[str]] = {}
    for f in fns:
        name = f.__code__.co_filename
        lines = linecache.getlines(name, getattr(f, "__globals__", None))
        if lines:
            out[name] = list(lines)
    return out


def ref(fn: Callable[..., Any]) -> FunctionRef:
    """How `fn` will travel (decided on the client)."""
    if importable(fn):
        return FunctionRef(module=fn.__module__, qualname=fn.__qualname__)
    import cloudpickle

    name = getattr(fn, "__module__", None) or "__main__"
    mod = sys.modules.get(name) if name != "__main__" else None
    if mod is not None:  # a module the workers cannot import: its functions go by value too
        cloudpickle.register_pickle_by_value(mod)
    try:
        pickled = cloudpickle.dumps(fn)
    finally:
        if mod is not None:
            cloudpickle.unregister_pickle_by_value(mod)
    fns = _reached(fn)
    files = {f.__qualname__: f.__code__.co_filename for f in fns}
    return FunctionRef(pickled=pickled, sources=_sources(fns), files=files)


class Recipe:
    """What a worker builds a simt callable from: a build function and its arguments, under a
    token naming it for the process-wide cache. Pickles as the recipe, never as the callable."""

    def __init__(self, build: Callable[..., Any], *args: Any) -> None:
        self.build = build
        self.args = args
        self.token = uuid.uuid4().hex

    def __getstate__(self) -> dict[str, Any]:
        return {"build": self.build, "args": self.args, "token": self.token}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


_built: dict[str, Any] = {}
_lock = threading.Lock()
_recipes: weakref.WeakKeyDictionary[Any, dict[Any, Recipe]] = weakref.WeakKeyDictionary()


def recipe_for(owner: Any, variant: Any, make: Callable[[], Recipe]) -> Recipe:
    """The recipe of `owner` (a client-side Kernel or ImageFunction) for `variant`, made once:
    every dask array built from the same compiled object then shares one token, so each worker
    builds and compiles it once for all of them."""
    per = _recipes.setdefault(owner, {})
    r = per.get(variant)
    if r is None:
        r = per[variant] = make()
    return r


def built(recipe: Recipe) -> Any:
    """The callable `recipe` makes, built once per process (then its compile cache serves)."""
    obj = _built.get(recipe.token)
    if obj is None:
        with _lock:
            obj = _built.get(recipe.token)
            if obj is None:
                obj = recipe.build(*recipe.args)
                _built[recipe.token] = obj
    return obj


def where() -> str:
    """'worker tcp://…' inside a distributed worker, else 'this process'."""
    try:
        from distributed import get_worker

        return f"dask worker {get_worker().address}"
    except Exception:  # noqa: BLE001 - not on a worker, or no distributed
        return "this process"


def _worker_threads() -> None:
    """Inside a dask worker, simt's cpu backend runs a launch on as many threads as the worker
    runs tasks (its share of the machine), unless `SIMT_NUM_THREADS` says otherwise: the rule
    `distributed` applies to BLAS and OpenMP (it sets OMP_NUM_THREADS=1 in its workers), so
    that workers x threads never oversubscribe the cores."""
    if "SIMT_NUM_THREADS" in os.environ:
        return
    if any(registry.has(n, "host_threads") for n in registry.started()):
        return  # a pool of host threads is already running with its size
    try:
        from distributed import get_worker

        nthreads = int(get_worker().state.nthreads)
    except Exception:  # noqa: BLE001 - not in a distributed worker
        return
    os.environ["SIMT_NUM_THREADS"] = str(max(1, nthreads))


def use_backend(name: str) -> None:
    """Make `name` (the backend the client chose) current here, or say clearly why not."""
    if registry.selected() == name:
        return
    _worker_threads()
    try:
        registry.use(name)
    except BackendUnavailable as e:
        raise BackendUnavailable(
            f"{where()} cannot run simt's {name!r} backend, which the client chose when it "
            f"built the graph: {e}. Install simt's {name} extra (and its driver) on every "
            "worker, or choose a backend the workers have with simt.use(...) before building "
            "the dask array"
        ) from None


def in_chunk(what: str, index: tuple[int, ...], run: Callable[[], Any]) -> Any:
    """`run()`, with a simt error saying which chunk of which array it happened in."""
    try:
        return run()
    except KernelError as e:
        err = e.in_context(f"in chunk {index} of {what}" if index else f"in a task of {what}")
        err.chunk = index  # type: ignore[attr-defined]
        raise err from None
    except SimtError as e:
        e.chunk = index  # type: ignore[attr-defined]
        raise e.with_traceback(None) from None
