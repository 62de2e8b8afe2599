"""The `sim` runtime: runs the NumPy program `simt.backends.sim` renders, all threads at once.

Render once, exec once (cached in memory by the program's text), call many times: no
interpreter walks the IR at launch. Device memory is host memory. Bounds checks are always on,
and so is the watch for data races in shared memory (`sim_lib.Shadow`);
prints are collected per thread and written after the launch, in the same order as every other
backend's.
"""

from __future__ import annotations

import itertools
import linecache
import weakref
from typing import Any

import numpy as np

from ..array import DeviceArray
from ..backends import sim as renderer
from ..backends.common import error_sites, print_ops
from ..builtins import SIM_NAMES
from ..errors import LaunchError
from ..ir import Function, semantics
from ..types import ArrayType
from . import sim_lib, sim_trace
from .base import Compiled, DeviceFacts, Dim3, Nominal, Runtime
from .printing import Stream, emit

# The names rendered programs call, bound in the namespace each program is executed in.
_HELPERS: dict[str, Any] = {
    "np": np,
    "_ld": sim_lib.load,
    "_ld_view": sim_lib.load_view,
    "_st": sim_lib.store,
    "_st_op": sim_lib.store_op,
    "_atomic": sim_lib.atomic,
    "_split": sim_lib.split,
    "_narrow": sim_lib.narrow,
    "_keep": sim_lib.keep,
    "_in_range": sim_lib.in_range,
    "_urange": sim_lib.urange,
    **semantics.HELPERS,
    **SIM_NAMES,
}
_MAX_GEOMETRIES = 8  # launch shapes whose per-lane registers are kept


class SimRuntime(Runtime):
    """The NumPy simulator: the executable definition of the language's semantics."""

    name = "sim"
    max_threads = 2**26
    max_threads_why = (  # fmt: skip
        "sim runs every thread of a launch at once in NumPy, with arrays of one value per "
        "thread; use the cpu backend for bigger launches"
    )
    host_memory = True
    lockstep = True
    checks_views = True
    reference = True
    unit_word = "cores"
    source_comment = "#"
    warp_native = True
    nominal = Nominal(copy_bandwidth=3e9, peak_flops=1e9, launch_overhead=300e-6,
                      far_rate=50e6, size_scale=16, fma_iters=8)  # fmt: skip

    def __init__(self) -> None:
        # by their text, held by the compiled kernels alone (`Compiled.handle`): a program
        # and its lines in linecache go when the last kernel that runs it does
        self._programs: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()
        self._numbers = itertools.count()  # names the programs' pseudo-files
        self._geometries: dict[tuple[Dim3, Dim3], sim_lib.Geometry] = {}

    @classmethod
    def probe(cls) -> tuple[bool, str]:
        """Always available: it needs nothing but NumPy."""
        return True, f"NumPy {np.__version__} simulator (always available)"

    @classmethod
    def source(cls, fn: Function) -> str:
        """The NumPy program for `fn`."""
        return renderer.render(fn)

    def device_facts(self) -> DeviceFacts:
        return DeviceFacts("numpy", 32, 1, 1024)

    def compile(self, fn: Function, trace: bool = False) -> Compiled:
        """Render `fn` and execute the text once; programs are cached by their text. `trace`:
        the program reports each thread's path to a `sim_trace.Tracer` (`launch(tracer=)`)."""
        source = renderer.render(fn, trace=trace)
        handle = self._programs.get(source)
        if handle is None:
            filename = f"<simt-sim {fn.name} #{next(self._numbers)}>"
            # Registered so that tracebacks and debuggers can show the rendered lines.
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
            namespace = dict(_HELPERS)
            exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own text
            handle = next(v for k, v in namespace.items() if k not in _HELPERS and callable(v))
            weakref.finalize(handle, linecache.cache.pop, filename, None)
            self._programs[source] = handle
        meta = {
            "sites": error_sites(fn, bounds=True, proven_too=True),
            "formats": [op.attrs["parts"] for op in print_ops(fn)],
        }
        return Compiled(fn, source, handle, meta)

    def _geometry(self, grid: Dim3, block: Dim3) -> sim_lib.Geometry:
        key = (grid, block)
        geo = self._geometries.get(key)
        if geo is None:
            if len(self._geometries) >= _MAX_GEOMETRIES:
                self._geometries.pop(next(iter(self._geometries)))
            geo = sim_lib.Geometry(grid, block)
            self._geometries[key] = geo
        return geo

    def launch(
        self,
        kernel: Compiled,
        grid: Dim3,
        block: Dim3,
        args: list[Any],
        tracer: sim_trace.Tracer | None = None,
    ) -> None:
        """Run every thread of `grid` x `block` at once; prints are written when it returns,
        also when a KernelError stops it. A kernel compiled in debug mode also watches its
        global arrays for two blocks writing one element (`sim_lib.Launch.watch_global`);
        `tracer` receives a traced program's reports."""
        for what, d in (("grid", grid), ("block", block)):
            if any(int(e) < 1 for e in d):
                raise LaunchError(f"{what} dimensions must be positive, got {tuple(d)}")
        params = kernel.fn.params
        if len(args) != len(params):
            raise LaunchError(
                f"kernel {kernel.fn.name} takes {len(params)} arguments, got {len(args)}"
            )
        values = [_argument(p.name, p.value.type, a) for p, a in zip(params, args)]
        run = sim_lib.Launch(self._geometry(grid, block), kernel.meta["sites"])
        run.t = tracer
        if kernel.meta["formats"] and Stream.wanted():
            run.stream = Stream(kernel.meta["formats"])
        if kernel.fn.debug:
            for p, v in zip(params, values):
                if isinstance(v, np.ndarray):
                    run.watch_global(v, p.name)
        try:
            with np.errstate(all="ignore"):
                kernel.handle(run, *values)
            run.raise_first()
        finally:
            emit(run.records, kernel.meta["formats"])

    # memory: the device is the host ---------------------------------------------------------
    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """A host array standing for device memory."""
        return np.empty(shape, dtype)

    def upload(self, host: np.ndarray) -> np.ndarray:
        """A copy of `host`."""
        return np.array(host, copy=True)

    def download(self, buf: Any, out: np.ndarray) -> None:
        """Copy `buf` into `out`."""
        np.copyto(out, buf)

    def info(self) -> dict[str, str]:
        """What `python -m simt info` shows."""
        return {"numpy": np.__version__}


def _argument(name: str, t: Any, a: Any) -> Any:
    """The value a rendered program receives for parameter `name` of type `t`."""
    if isinstance(t, ArrayType):
        if isinstance(a, DeviceArray):
            a = a.buf
        if not isinstance(a, np.ndarray):
            raise LaunchError(f"argument {name!r} must be an array, got {type(a).__name__}")
        if a.ndim != t.ndim or a.dtype != t.dtype.np:
            raise LaunchError(
                f"argument {name!r} must be a {t.ndim}-d {t.dtype} array, got {a.ndim}-d {a.dtype}"
            )
        return a
    try:
        return t.np.type(a)
    except (TypeError, ValueError, OverflowError) as e:
        raise LaunchError(f"argument {name!r} must be a {t} scalar: {e}") from None
