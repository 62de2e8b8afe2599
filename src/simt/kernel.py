"""`@simt.kernel`: specialisation on argument types, the compile cache, and launches.

A launch `k[grid, block](*args)` looks at the arguments, builds a key from their types (and
the values of static arguments), and finds or compiles a specialisation: front end, passes,
then the current runtime's compile. Arrays the kernel writes are copied back into the NumPy
arguments they came from; on `cpu` and `sim` NumPy arrays are used in place.
"""

from __future__ import annotations

import inspect
import linecache
import os
import sys
import types
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import filereads, filewrites, lang
from . import types as T
from .array import DeviceArray, complex_parts, host_view
from .errors import (
    BackendUnavailable,
    CompileError,
    KernelError,
    LaunchError,
    NumbaTypingWarning,
    SimtError,
    SimtPerformanceWarning,
    for_user,
    mark_internal,
    user_facing,
)
from .foreign import as_host_array, cuda_interface, cuda_size
from .frontend import arena, raising
from .frontend.specialise import ArgSpec, ComplexArray, ComplexScalar, WeakScalar
from .frontend.values import Known
from .ir import Function, Hidden, Loc, Param, format_function
from .passes.written import written_params
from .runtime import printing, registry
from .runtime.base import Compiled, Dim3, Runtime

Dim = Dim3
# The measuring tools a kernel offers (`cost`, `advise`, `autolaunch`): `simt.benchtool`, a
# layer above this one, registers them when it is imported (`import simt` does), so this module
# never imports it.
TOOLS: dict[str, Callable[..., Any]] = {}
MAX_BLOCK = 1024


def check_launch(grid: Dim3, block: Dim3) -> None:
    """LaunchError for shapes no GPU can run (the limits CUDA has; WebGPU's are lower)."""
    if block.size > MAX_BLOCK:
        raise LaunchError(
            f"a block of {block.x} x {block.y} x {block.z} = {block.size} threads is more "
            f"than the {MAX_BLOCK} a block may have; use more blocks of fewer threads"
        )
    if block.z > 64:
        raise LaunchError(f"block z size {block.z} is over the limit of 64")
    if grid.x >= 2**31 or grid.y > 65535 or grid.z > 65535:
        raise LaunchError(f"grid {tuple(grid)} is over the limits (x < 2**31, y and z <= 65535)")
    if grid.x * block.x >= 2**31:
        # thread indices are int32: `block_idx.x * block_dim.x + thread_idx.x` would wrap
        raise LaunchError(
            f"a launch of {grid.x} x {block.x} threads along x is 2**31 or more; thread "
            "indices are int32 in simt: launch fewer blocks and loop over the rest "
            "(a grid-stride loop: for i in range(simt.grid(1), n, block_dim.x * grid_dim.x))"
        )


_advice: list[bool] = []  # set by `launch_advice`, over SIMT_ADVICE


def launch_advice(on: bool | None = None) -> None:
    """Show (True) or never show (False) the advice simt gives once per kernel when an
    ordinary launch is clearly wasteful (docs/language.md, "Launch advice"); None: back to the
    `SIMT_ADVICE` environment variable ("off" turns it off; on by default)."""
    if on is None:
        _advice.clear()
    else:
        _advice[:] = [bool(on)]


def advice_enabled() -> bool:
    """Whether launch advice is shown (`launch_advice`, else `SIMT_ADVICE`)."""
    if _advice:
        return _advice[-1]
    return os.environ.get("SIMT_ADVICE", "").strip().lower() not in ("0", "off", "no", "false")


def _dims(d: Dim3) -> str:
    """A launch dimension as the user writes it (`256`, `(16, 16)`)."""
    parts = list(d)
    while len(parts) > 1 and parts[-1] == 1:
        parts.pop()
    return str(parts[0]) if len(parts) == 1 else str(tuple(parts))


def _user_level() -> int:
    """The `stacklevel` of the first frame outside simt: a warning points at the user's line."""
    here = os.path.dirname(os.path.abspath(__file__))
    f, level = sys._getframe(1), 1
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(here + os.sep):
        f, level = f.f_back, level + 1  # type: ignore[assignment]
    return level


@dataclass
class Specialisation:
    """One compiled specialisation: its IR, the runtime's artefact, and what to copy back."""

    fn: Function
    compiled: Compiled
    written: set[str]
    # per run-time param, in order: name, position among the kernel's arguments (-1: hidden),
    # the NumPy scalar type that converts a scalar argument (None for arrays), and the kind
    # of a hidden parameter (`Param.hidden`: None for the user's arguments)
    plan: list[tuple[str, int, Any, Hidden | None]] = field(default_factory=list)
    advised: bool = False  # whether its first launch was checked for clear waste (`advice`)
    # a runtime whose memory is the host's: failure buffers (`Hidden.FAILURES`) of earlier
    # launches, zero, for the next (`take_failures`)
    spare: list[np.ndarray] = field(default_factory=list)

    def take_failures(self) -> np.ndarray:
        """A zero failure buffer for one launch on a runtime whose memory is the host's: one
        an earlier launch gave back (`spare`) or a new one, so that a launch pays for it a
        read of its first word, not a fresh 45 KiB; launches on two Python threads at once
        each get their own."""
        try:
            return self.spare.pop()
        except IndexError:
            return np.zeros(self.fn.attrs["failure_words"], np.int32)

    def failures_of(self, words: np.ndarray, grid: Dim3, block: Dim3) -> KernelError | None:
        """The grouped KernelError of the threads that raised in a launch whose failure
        buffer, in host memory, is `words` (None: none raised); `words` zero again."""
        if not words[0]:
            return None
        try:
            return raising.decode(words, self.fn.attrs["raise_sites"], tuple(grid), tuple(block))
        finally:
            words[:] = 0


def _scalar_spec(v: Any, fp64: bool, int64: bool = False) -> T.Scalar | None:
    if isinstance(v, (bool, np.bool_)):
        return T.BOOL
    if isinstance(v, np.generic):
        t = T.scalar_of_dtype(v.dtype)
        return None if t is None else T.compute_type(t)  # np.uint8(3) is an int32 argument
    if isinstance(v, int):
        return T.INT32 if -(2**31) <= v < 2**31 and not int64 else T.INT64
    if isinstance(v, float):
        return T.FLOAT64 if fp64 else T.FLOAT32
    return None


def _complex_part(v: Any, fp64: bool) -> T.Scalar:
    """The type of a complex scalar argument's parts: float32 for complex64, float64 for
    complex128; a Python complex follows the Python float rule (float64 with fp64=True)."""
    if isinstance(v, np.complex64):
        return T.FLOAT32
    if isinstance(v, np.complexfloating):
        return T.FLOAT64
    return T.FLOAT64 if fp64 else T.FLOAT32


def _scalar_arg(p: Param) -> Any:
    """How a launch turns the argument of scalar parameter `p` into its value (a complex
    argument's part for the two parameters of a complex scalar)."""
    np_type = p.value.scalar.np.type
    if not p.part:
        return np_type
    return lambda v: np_type(p.argument(v))


_IMMUTABLE = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type, int,
              float, complex, str, bytes, bool, type(None), frozenset, np.generic, np.dtype)


def _globals_seen(pyfunc: Any) -> tuple[int, ...] | None:
    """The identities of the globals and closure values that `pyfunc`'s code reads, and the
    Python functions and classes it reads theirs (helpers, context managers), or None when
    one of them is of a kind whose contents may change unseen (a list, an array, an object
    of the user's): `Kernel.specialise` shares a build between backends only while this is
    the same."""
    seen: list[int] = []
    todo, done = [pyfunc], set()
    while todo:
        f = todo.pop()
        if id(f) in done:
            continue
        done.add(id(f))
        if isinstance(f, type):
            todo += [v for v in vars(f).values() if isinstance(v, types.FunctionType)]
            continue
        code = getattr(f, "__code__", None)
        if code is None:
            continue
        names: set[str] = set()
        codes = [code]
        while codes:
            c = codes.pop()
            names.update(c.co_names)
            codes += [k for k in c.co_consts if isinstance(k, types.CodeType)]
        g = getattr(f, "__globals__", {})
        cells = [c.cell_contents for c in f.__closure__ or () if _has_contents(c)]
        for v in [g[n] for n in sorted(names) if n in g] + cells:
            simt_own = type(v).__module__.split(".")[0] == "simt"
            if isinstance(v, tuple):
                if not all(isinstance(x, _IMMUTABLE) for x in v):
                    return None
            elif not isinstance(v, _IMMUTABLE) and not simt_own:
                return None
            seen.append(id(v))
            if isinstance(v, (types.FunctionType, type)) and not simt_own:
                todo.append(v)
    return tuple(seen)


def _has_contents(cell: Any) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:  # an empty cell (a name assigned later)
        return False
    return True


def _known_key(v: Any) -> Any:
    try:
        hash(v)
        return (type(v).__name__, v)
    except TypeError:
        return (type(v).__name__, id(v))  # unhashable: frozen at first compile, by identity


def bind_arguments(
    fname: str, names: list[str], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """Positional and keyword arguments of a call of `fname` by parameter name (some may be
    missing); LaunchError for too many, unknown or repeated ones."""
    unknown = [k for k in kwargs if k not in names]
    if unknown:
        raise LaunchError(
            f"{fname}() has no parameter named {unknown[0]!r}; its parameters are "
            f"({', '.join(names)})"
        )
    if len(args) > len(names):
        raise LaunchError(
            f"{fname}() takes {len(names)} argument(s) ({', '.join(names)}), "
            f"got {len(args) + len(kwargs)}"
        )
    values = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in values:
            raise LaunchError(f"{fname}(): argument {k!r} given twice")
        values[k] = v
    return values


def _wrap_internal(e: Exception, name: str) -> SimtError:
    """An unexpected exception inside simt, as a CompileError that says it is simt's fault."""
    return mark_internal(CompileError(
        f"internal error in simt while compiling {name}(): {type(e).__name__}: {e} "
        "(this is a bug in simt; set SIMT_INTERNAL_ERRORS=1 to see the full traceback)"
    ))


def check_not_lambda(fn: Any, what: str) -> None:
    """A CompileError at the lambda's own line when `fn` (the kernel, or the function given to
    `simt.compile`) is a lambda: simt compiles a function from its `def` source."""
    code = getattr(fn, "__code__", None)
    if code is None or getattr(fn, "__name__", "") != "<lambda>":
        return
    line = code.co_firstlineno
    raise CompileError(
        f"{what} is a lambda: simt compiles functions written with `def` (it reads their "
        "source, and a lambda's cannot be told apart from the line around it)",
        code.co_filename,
        line,
        None,
        linecache.getline(code.co_filename, line) or None,
        hint="write it as `def name(params): return ...` and pass that function instead",
    )


class Kernel:
    """A Python function compiled for GPU threads; launch it as `kernel[grid, block](args)`."""

    @user_facing
    def __init__(
        self,
        pyfunc: Callable[..., Any],
        fp64: bool = False,
        debug: bool | None = None,
        static: Sequence[str] = (),
        known: dict[str, Any] | None = None,
        strict: bool = False,
        numba: bool = False,
        dynamic_shared: int | None = None,
        boundscheck: bool | None = None,
        heap: int | None = None,
        division: str = "numpy",
    ) -> None:
        self.pyfunc = pyfunc
        self.advice_shown = False  # launch advice is shown once per kernel (`launch_advice`)
        # bytes of per-thread arena per element type for the kernel's lists (frontend.arena)
        if heap is not None and (
            not isinstance(heap, int) or isinstance(heap, bool) or heap < arena.MIN_HEAP
        ):
            raise CompileError(
                f"heap={heap!r}: the per-thread heap is a number of bytes, at least "
                f"{arena.MIN_HEAP} (the default is {arena.DEFAULT_HEAP})"
            )
        self.heap = heap if heap is not None else arena.DEFAULT_HEAP
        # "numpy": integer `//` and `%` by zero give 0; "python": `/`, `//`, `%` by zero
        # raise ZeroDivisionError in the thread (docs/semantics.md)
        if division not in ("numpy", "python"):
            raise CompileError(
                f'division={division!r}: give division="numpy" (the default: an integer // or % '
                'by zero gives 0) or division="python" (ZeroDivisionError)'
            )
        self.division = division
        # Numba's typing (simt.cuda.jit): floats made from integers and float literals alone
        # are float64 (fp64), and a Python float argument is float64 unless all the kernel's
        # float data is float32; `dynamic_shared`: bytes of `shared.array(0, dtype)`
        self.numba = numba
        self.dynamic_shared = dynamic_shared
        self.__name__ = getattr(pyfunc, "__name__", "kernel")
        self.__doc__ = pyfunc.__doc__
        self.__wrapped__ = pyfunc
        self.fp64 = fp64
        self.debug = debug if debug is not None else os.environ.get("SIMT_DEBUG") == "1"
        # False: accesses compiled without bounds checks (unsafe; `debug` checks them anyway);
        # by default True, unless the environment says SIMT_BOUNDSCHECK=0 (for measuring)
        self.boundscheck = (
            bool(boundscheck)
            if boundscheck is not None
            else os.environ.get("SIMT_BOUNDSCHECK", "1") != "0"
        )
        self.static = frozenset(static)
        self.known = dict(known or {})
        # made by simt.compile: an argument that is neither array nor number must be given
        # there (strict), instead of becoming a compile-time constant at the launch
        self.strict = strict
        if not inspect.isfunction(pyfunc):
            raise CompileError(
                f"{pyfunc!r:.60} is not a Python function, so simt cannot compile it",
                hint="write the kernel as a def function and decorate it with @simt.kernel",
            )
        check_not_lambda(pyfunc, "the kernel")
        self.signature = inspect.signature(pyfunc)
        self._names = list(self.signature.parameters)
        for s in self.static | set(self.known):
            if s not in self.signature.parameters:
                raise CompileError(f"{self.__name__}() has no parameter named {s!r}")
        self._directions = {
            n: p.annotation
            for n, p in self.signature.parameters.items()
            if p.annotation in (lang.In, lang.Out)
        }
        self._cache: dict[Any, Specialisation] = {}
        self._ir_cache: dict[Any, Function] = {}  # specialised_ir's, by the launch key
        # the built IR of each specialisation (under None) and what `pipeline.for_runtime`
        # prepared of it, by its launch key less the backend and by Numba's int typing:
        # shared by the backends a kernel is launched on (`specialise`)
        self._built: dict[Any, dict[Any, Any]] = {}
        self.fn: Function | None = None  # the IR of a kernel made by `from_ir`
        self._launchers: dict[Any, Launcher] = {}
        self._int32_noted: set[str] = set()  # runtimes told that ints stay int32 (numba_ints)

    def __repr__(self) -> str:
        return f"<simt.kernel {self.__name__}>"

    # launch forms ---------------------------------------------------------------------------
    def __getitem__(self, config: Any) -> Launcher:
        try:
            return self._launchers[config]  # launches in a loop reuse their launcher
        except (KeyError, TypeError):  # new, or unhashable (a list): checked below
            pass
        try:
            return self._new_launcher(config)
        except SimtError as e:
            for_user(e)
            if sys.version_info < (3, 11):  # a bare raise reuses the caught traceback there
                raise e.with_traceback(e.__traceback__) from None
            raise  # a bare raise adds no frame of its own

    def _new_launcher(self, config: Any) -> Launcher:
        if not isinstance(config, tuple) or len(config) != 2:
            raise LaunchError(
                f"launch {self.__name__} as {self.__name__}[blocks, threads](...), got [{config!r}]"
            )
        return self.config(*config)

    @user_facing
    def config(self, grid: Any, block: Any) -> Launcher:
        """A launcher for `grid` blocks of `block` threads: `k.config(4096, 256)(a, b, c)`."""
        try:
            return self._launchers[(grid, block)]
        except (KeyError, TypeError):  # new, or unhashable (a list): checked below
            pass
        launcher = Launcher(self, Dim3.of(grid, "grid"), Dim3.of(block, "block"))
        try:
            if len(self._launchers) < 256:  # launches in a loop reuse their launcher
                self._launchers[(grid, block)] = launcher
        except TypeError:
            pass
        return launcher

    @user_facing
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise LaunchError(
            f"{self.__name__} is a kernel: launch it with {self.__name__}[blocks, threads]"
            "(...) or simt.launch(kernel, blocks, threads, ...)"
        )

    # specialisation -------------------------------------------------------------------------
    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        return self._host_arrays(self._bind_names(args, kwargs))

    def _host_arrays(self, values: list[Any]) -> list[Any]:
        """Arrays by protocol (`__array_interface__`, a CPU `__dlpack__` such as a PyTorch
        tensor, a buffer such as a memoryview) as the NumPy arrays they share memory with,
        never compile-time constants; big-endian arrays refused by name."""
        out = values
        for k, v in enumerate(values):
            if type(v) is np.ndarray or isinstance(v, (int, float, DeviceArray)):
                if type(v) is np.ndarray and not v.dtype.isnative:
                    raise LaunchError(
                        f"argument {self._names[k]!r} of {self.__name__}() is a "
                        f"{'big' if v.dtype.byteorder == '>' else 'little'}-endian array "
                        f"({v.dtype.str}): kernels read the machine's byte order; convert it: "
                        f"{self._names[k]}.astype({self._names[k]}.dtype.newbyteorder('='))"
                    )
                continue
            name = self._names[k] if k < len(self._names) else str(k)
            if name in self.static or name in self.known:
                continue
            arr = as_host_array(v, name, self.__name__)
            if arr is not None:
                if out is values:
                    out = list(values)
                out[k] = arr
                if not arr.dtype.isnative:
                    return self._host_arrays(out)  # refused above, by name
        return out

    def _bind_names(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        if not kwargs and not self.known and len(args) == len(self._names):
            return list(args)  # the common case, kept fast
        names = [n for n in self._names if n not in self.known]
        values = bind_arguments(self.__name__, names, args, kwargs)
        out = []
        for n in self._names:
            if n in self.known:
                out.append(self.known[n])
                continue
            if n not in values:
                p = self.signature.parameters[n]
                if p.default is inspect.Parameter.empty:
                    raise LaunchError(
                        f"{self.__name__}() takes {len(names)} argument(s) ({', '.join(names)}),"
                        f" got {len(args) + len(kwargs)}: {n!r} is missing"
                    )
                out.append(p.default)
                continue
            out.append(values[n])
        return out

    def _specs(
        self, values: list[Any], rt_name: str = "", int64: bool | None = None
    ) -> tuple[dict[str, ArgSpec], tuple[Any, ...]]:
        """The front end's specs for these argument values, and their cache key. `int64`:
        Python int arguments are int64 (Numba's typing; by default when the kernel has it)."""
        int64 = self.numba if int64 is None else int64
        specs: dict[str, ArgSpec] = {}
        large = any(
            getattr(v, "size", 0) >= 2**31
            for v in values
            if isinstance(v, (np.ndarray, DeviceArray))
        ) or any(  # CuPy arrays, PyTorch tensors: their size from __cuda_array_interface__
            cuda_size(cai) >= 2**31
            for v in values
            if not isinstance(v, DeviceArray) and (cai := cuda_interface(v)) is not None
        )
        index = T.INT64 if large else T.INT32
        f64_floats = self._python_floats_f64(values)
        for n, v in zip(self._names, values):
            if n in self.static or n in self.known:
                specs[n] = Known(v)
                continue
            cai = None if isinstance(v, DeviceArray) else cuda_interface(v)
            if isinstance(v, (np.ndarray, DeviceArray)) or cai is not None:
                # a foreign GPU array (a PyTorch tensor) may not have a NumPy dtype
                dtype = np.dtype(cai["typestr"] if cai is not None else v.dtype)
                if dtype.kind == "c" and isinstance(v, (np.ndarray, DeviceArray)) and len(v.shape):
                    part = T.FLOAT32 if dtype.itemsize == 8 else T.FLOAT64
                    specs[n] = ComplexArray(T.ArrayType(part, v.ndim + 1, index=index))
                    continue
                t = T.scalar_of_dtype(dtype)
                if t is None:
                    raise LaunchError(
                        f"argument {n!r} of {self.__name__}() has dtype {dtype}, which kernels "
                        "do not support; convert it to one of bool, int8/16/32/64, "
                        "uint8/16/32/64, float16/32/64 or complex64/128 (e.g. "
                        "a.astype(np.float32))"
                    )
                ndim = len(v.shape)
                if ndim == 0:
                    raise LaunchError(
                        f"argument {n!r} of {self.__name__}() is a 0-d array, which is neither "
                        f"a number nor an array a kernel can index: pass {n}.item() if the "
                        f"kernel uses {n} as a number, or {n}.reshape(1) if it reads {n}[0]"
                    )
                spec: ArgSpec = T.ArrayType(t, ndim, index=index)
                specs[n] = spec
                continue
            if type(v) is float:
                # weak (NEP 50): float64 where the kernel's floats are, next to float32 data
                # it takes float32 (docs/semantics.md)
                specs[n] = WeakScalar(T.FLOAT64 if f64_floats else T.FLOAT32)
                continue
            st = _scalar_spec(v, self.fp64, int64)
            if st is not None:
                specs[n] = st
                continue
            if isinstance(v, (complex, np.complexfloating)):
                specs[n] = ComplexScalar(_complex_part(v, self.fp64))  # two run-time floats
                continue
            if isinstance(v, (np.generic, str, bytes)) or v is None:
                raise LaunchError(
                    f"argument {n!r} of {self.__name__}() is a {type(v).__name__} "
                    f"({v!r:.40}), which a kernel cannot take; pass a number or an array"
                )
            if self.strict:
                raise CompileError(
                    f"parameter {n!r} of {self.__name__}() is given a {type(v).__name__} at "
                    "the launch, but only arrays and numbers can be passed to the device",
                    hint=f"give it when compiling: simt.compile({self.__name__}, {n}=...)",
                )
            # Any other object is a compile-time constant (docs/language.md).
            specs[n] = Known(v)
        return specs, self._key(values, rt_name)

    def _python_floats_f64(self, values: list[Any]) -> bool:
        """Whether a Python float argument is float64: under `fp64=True` (simt's rules), when
        the kernel takes float64 data (a float64 or complex128 array, a NumPy float64), and
        under Numba's typing unless every float it takes is float32 (Numba's float arguments
        are float64; float32 kernels keep float32 so that they run where float64 is not)."""
        if self.fp64 and not self.numba:
            return True
        f32 = f64 = False
        for n, v in zip(self._names, values):
            if n in self.static or n in self.known:
                continue
            dt = getattr(v, "dtype", None)
            if dt is None or not isinstance(dt, np.dtype) or dt.kind not in "fc":
                continue
            wide = dt.itemsize == 8 if dt.kind == "f" else dt.itemsize == 16
            f64 = f64 or wide
            f32 = f32 or not wide
        return f64 or (self.numba and not f32)

    def _key(self, values: list[Any], rt_name: str) -> tuple[Any, ...]:
        """The cache key of a launch: cheap, since every launch computes it. It tells apart
        everything `_specs` would type differently."""
        key: list[Any] = [rt_name]
        fixed = self.static or self.known
        for n, v in zip(self._names, values):
            if fixed and (n in self.static or n in self.known):
                key.append(_known_key(v))
            elif type(v) is np.ndarray or isinstance(v, DeviceArray):
                key.append((v.dtype, v.ndim, v.size >= 2**31))
            elif (cai := cuda_interface(v)) is not None:  # CuPy, PyTorch: by type, not identity
                key.append((cai["typestr"], len(cai["shape"]), cuda_size(cai) >= 2**31))
            elif type(v) is int:
                key.append(-(2**31) <= v < 2**31)
            elif type(v) is float:
                key.append(float)
            elif isinstance(v, (complex, np.complexfloating)):
                key.append(("complex", _complex_part(v, self.fp64)))
            else:
                key.append(
                    (
                        type(v),
                        getattr(v, "dtype", None),
                        _known_key(v) if not isinstance(v, (np.generic, bool)) else None,
                    )
                )
        return tuple(key)

    def specialise(self, values: list[Any], rt: Runtime) -> Specialisation:
        """The specialisation for these argument values on `rt`, compiled if new."""
        key = self._key(values, rt.name)
        spec = self._cache.get(key)
        if spec is None:
            int64 = self.numba_ints(rt)
            # a second backend (the fuzzer's and the corpus's four) translates nothing again
            # and proves nothing again: the runtime's passes lower copies (`for_runtime`)
            # (only while the globals its code reads are the same objects: the front end takes
            # their values at compile time, and each backend compiled afresh before)
            seen = _globals_seen(self.pyfunc) if self.fn is None else None
            shared = self._built.get((key[1:], int64))
            if shared is None or seen is None or shared.get("globals") != seen:
                specs, _ = self._specs(values, int64=int64)
                shared = {None: self.build_ir(specs, int64=int64), "globals": seen}
                if seen is not None:
                    self._built[(key[1:], int64)] = shared
            from .pipeline import for_runtime

            try:
                # view checks and barriers as the runtime needs them
                fn = for_runtime(shared[None], rt, shared if seen is not None else None)
                compiled = rt.compile(fn)
            except SimtError:
                raise
            except Exception as e:  # noqa: BLE001 - a renderer/runtime bug, said as such
                if os.environ.get("SIMT_INTERNAL_ERRORS") == "1":
                    raise
                raise _wrap_internal(e, self.__name__) from None
            plan = [
                (p.name, p.index,
                 None if isinstance(p.value.type, T.ArrayType) else _scalar_arg(p), p.hidden)
                for p in fn.params
            ]  # fmt: skip
            spec = Specialisation(fn, compiled, written_params(fn), plan)
            self._cache[key] = spec
        return spec

    def specialisations(self, backend: str | None = None) -> list[Specialisation]:
        """The specialisations compiled so far (for `backend` only, when given), oldest first:
        each holds the IR that backend compiled (`.fn`; `.fn.attrs["bounds"]` says which
        accesses were proven in bounds) and the compiled artefact."""
        return [s for k, s in self._cache.items() if backend is None or k[0] == backend]

    @classmethod
    def from_ir(cls, fn: Function, doc: str = "") -> Kernel:
        """A kernel whose IR another part already built (`simt.tensor` lowers index
        expressions to IR): launched, costed and shown like any kernel; its parameters are
        `fn`'s. `kernel.fn` is that IR."""
        def stub(*args: Any) -> None:
            pass

        stub.__name__ = fn.name
        stub.__doc__ = doc
        stub.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in fn.params]
        )
        k = cls(stub)
        k.fn = fn
        return k

    def numba_ints(self, rt: Runtime) -> bool:
        """Whether this kernel's Python ints are int64 on `rt`: under Numba's typing
        (`simt.cuda.jit`) where the device has 64-bit integers. A WebGPU adapter without
        shader-int64 keeps simt's int32 rule instead, said once per kernel by a warning."""
        if not self.numba:
            return False
        if rt.has_int64():
            return True
        if rt.name not in self._int32_noted:
            self._int32_noted.add(rt.name)
            warnings.warn(
                f"{self.__name__}: {rt.name}'s device has no 64-bit integers, so this "
                "cuda.jit kernel computes Python ints in int32 (simt.kernel's rule) where "
                "Numba uses int64: integer arithmetic past 2**31 wraps here (docs/numba.md)",
                NumbaTypingWarning,
                stacklevel=2,
            )
        return False

    def build_ir(
        self,
        specs: dict[str, ArgSpec],
        optimise: bool = True,
        explain: bool = False,
        int64: bool | None = None,
        raising: bool = True,
    ) -> Function:
        """The IR of this kernel for the front end's argument specs (`optimise=False,
        explain=True`: every branch as written, for `explain`; `raising` False: without the
        front end's IndexError checks of the accesses no proof covers, `pipeline.build`). The
        hook a kernel made from
        IR by another part overrides (`simt.tensor`'s kernels return the IR they lowered);
        see also `Kernel.from_ir`."""
        from .pipeline import build

        if self.fn is not None:
            return self.fn  # made from IR (`from_ir`): nothing to translate
        try:
            return build(
                self.pyfunc, specs, self.fp64, self.debug, optimise, explain, self.dynamic_shared,
                self.boundscheck, self.heap, self.division,
                self.numba if int64 is None else int64, raising,
            )
        except SimtError:
            raise
        except RecursionError:
            raise CompileError(f"{self.__name__}() is too deeply nested to compile") from None
        except Exception as e:  # noqa: BLE001
            if os.environ.get("SIMT_INTERNAL_ERRORS") == "1":
                raise
            raise _wrap_internal(e, self.__name__) from None

    # the public protocol for other parts (the cost model, dask, the tools) ----------------
    @property
    def parameters(self) -> list[str]:
        """The kernel's parameter names, in order (those given to `simt.compile` included)."""
        return list(self._names)

    def bind(self, *args: Any, **kwargs: Any) -> list[Any]:
        """The argument values of a call, in parameter order, as a launch binds them (those
        given to `simt.compile` and defaults filled in, arrays by protocol as NumPy arrays):
        what `specialise` takes."""
        return self._bind(args, kwargs)

    def arg_specs(self, *args: Any, backend: str = "", **kwargs: Any) -> dict[str, ArgSpec]:
        """The front end's argument specs of a call (each argument's type, or its value where
        it is a compile-time constant), as a launch on `backend` makes them: what
        `build_ir` (and `pipeline.build`) take."""
        return self._specs(self._bind(args, kwargs), backend)[0]

    def specialised_ir(self, *args: Any, **kwargs: Any) -> tuple[Function, dict[str, Any]]:
        """The optimised IR of the specialisation for these arguments (as a launch would
        bind them), and the argument values by parameter name: what the kernel's own code
        does, for the tools that read it (the cost model, the advisor, dask's halo analysis),
        so without the front end's IndexError checks of accesses no proof covers (a launch
        compiles those, `pipeline.build`). The IR is kept per specialisation: asking again
        for arguments of the same types builds nothing."""
        values = self._bind(args, kwargs)
        key = self._key(values, "")
        fn = self._ir_cache.get(key)
        if fn is None:
            specs, _ = self._specs(values)
            fn = self.build_ir(specs, raising=False)
            self._ir_cache[key] = fn
        return fn, dict(zip(self._names, values))

    # inspection ----------------------------------------------------------------------------
    @user_facing
    def ir(self, *args: Any, **kwargs: Any) -> str:
        """The optimised IR of the specialisation for these arguments, as text."""
        try:
            specs, _ = self._specs(self._bind(args, kwargs))
            return format_function(self.build_ir(specs))
        except SimtError as e:
            raise e.with_traceback(None) from None

    @user_facing
    def source(self, backend: str, *args: Any, **kwargs: Any) -> str:
        """The source text `backend` compiles for these arguments (CUDA C++, WGSL, LLVM IR,
        or the sim backend's NumPy program). Needs no device."""
        from .pipeline import render

        try:
            specs, _ = self._specs(self._bind(args, kwargs))
            return render(backend, self.build_ir(specs))
        except SimtError as e:
            raise e.with_traceback(None) from None

    @user_facing
    def resources(self, *args: Any, arch: str = "sm_90", **kwargs: Any) -> dict[str, int]:
        """What the CUDA build of this specialisation uses per thread and block on `arch`
        (registers, spill stores and loads, stack frame, shared memory bytes), from NVRTC's
        ptxas report. Needs NVRTC (`pip install 'simt[cuda]'`), not a GPU."""
        try:
            try:
                from .runtime.cuda import resources
            except ImportError as e:
                raise BackendUnavailable(f"kernel.resources needs the CUDA extra: {e}") from None
            from .pipeline import for_runtime

            specs, _ = self._specs(self._bind(args, kwargs))
            return resources(for_runtime(self.build_ir(specs), "cuda"), arch)  # as launched
        except SimtError as e:
            raise e.with_traceback(None) from None

    @user_facing
    def explain(
        self,
        grid: Any,
        block: Any,
        *args: Any,
        thread: Any = None,
        threads: Any = None,
        file: Any = None,
        **kwargs: Any,
    ) -> None:
        """Run this launch on `sim` and print one thread's path: the lines it ran in order, the
        values it assigned, its loads and stores with their indices, where it waited at a
        barrier; loops show their first iterations, a count of the folded ones, and the last.
        `thread=(block, thread)` (each an int or a tuple of 1-3 ints) picks the thread;
        `threads=((b0, t0), (b1, t1))` prints two side by side and marks where they diverge.
        The launch runs on copies of the array arguments: your arrays are left unchanged.
        A KernelError in the launch is printed after the path, not raised."""
        try:
            g, b = Dim3.of(grid, "grid"), Dim3.of(block, "block")
            check_launch(g, b)
            picks = _explain_threads(thread, threads)
            lanes = [_lane_of(p, g, b) for p in picks]
            text = self.explain_text(g, b, lanes, args, kwargs)
        except SimtError as e:
            raise e.with_traceback(None) from None
        print(text, file=file if file is not None else sys.stdout)

    def explain_text(
        self,
        g: Dim3,
        b: Dim3,
        lanes: list[int],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        line_map: Callable[[Loc], Loc | None] | None = None,
        title: str | None = None,
    ) -> str:
        """The text `explain` prints; `line_map` renumbers (or hides: None) source lines and
        `title` replaces the first line (the REPL's `%explain`)."""
        from .backends.sim import trace_sites
        from .explain import format_one, format_two
        from .runtime.base import unflatten
        from .runtime.sim_trace import Tracer

        rt = registry.get("sim")
        values = [
            v.numpy() if isinstance(v, DeviceArray) else np.array(v) if type(v) is np.ndarray
            else v
            for v in self._bind(args, kwargs)
        ]  # fmt: skip
        specs, _ = self._specs(values)
        # every branch as written, none if-converted away; constants and aliases noted
        fn = self.build_ir(specs, optimise=False, explain=True)
        compiled = rt.compile(fn, trace=True)  # type: ignore[call-arg]
        staged, _ = self._stage(fn)
        dev = [
            _with_files(fn.hidden_zeros(p, g.size * b.size), p, staged)  # the failure buffer,
            if p.hidden  # an arena
            else parts_view(values[p.index])
            if isinstance(p.value.type, T.ArrayType)
            else _scalar_arg(p)(values[p.index])
            for p in fn.params
        ]  # fmt: skip
        tracer = Tracer(lanes)
        stopped = ""
        try:
            rt.launch(compiled, g, b, dev, tracer=tracer)  # type: ignore[call-arg]
        except KernelError as e:
            stopped = f"\nthe launch stopped: {e}"
        for p, words in zip(fn.params, dev):
            if p.hidden is Hidden.FAILURES:  # the threads that raised, the others finished
                err = raising.decode(words, fn.attrs["raise_sites"], tuple(g), tuple(b))
                stopped += f"\nthe launch raised: {err}" if err is not None else ""
        locs = [op.loc for op in trace_sites(fn)]
        if line_map is not None:
            locs = [None if loc is None else line_map(loc) for loc in locs]

        gd = 3 if g.z > 1 else 2 if g.y > 1 else 1
        bd = 3 if b.z > 1 else 2 if b.y > 1 else 1

        def label(lane: int) -> str:
            bi, ti = unflatten(lane, g, b)
            return f"block {_short(bi, gd)}, thread {_short(ti, bd)}"

        head = f"{self.__name__}[{_short(tuple(g), gd)}, {_short(tuple(b), bd)}] on sim"
        if len(lanes) == 1:
            text = format_one(title or f"{head}: {label(lanes[0])}", tracer.events[lanes[0]], locs)
        else:
            text = format_two(
                f"{head}: two threads side by side",
                (label(lanes[0]), label(lanes[1])),
                (tracer.events[lanes[0]], tracer.events[lanes[1]]),
                locs,
            )
        return text + stopped

    # measure, predict, advise (simt.benchtool, registered in `TOOLS`) -----------------------
    @user_facing
    def cost(self, grid: Any, block: Any, *args: Any, **kwargs: Any) -> Any:
        """The cost model's prediction for this launch on the current backend (bytes, flops,
        time, bound): a `simt.benchtool.cost.Cost`. Runs nothing."""
        return TOOLS["cost"](self, grid, block, args, kwargs)

    @user_facing
    def advise(self, grid: Any, block: Any, *args: Any, **kwargs: Any) -> Any:
        """The launch advisor's findings for this launch (a list of `Advice`); warns with
        `simt.SimtPerformanceWarning` once per launch shape."""
        return TOOLS["advise"](self, grid, block, args, kwargs)

    @user_facing
    def autolaunch(self, n: Any) -> Any:
        """A launcher covering `n` threads (an int or a tuple) with the block shape
        `simt.autotune` chose for these arguments (tuning on first use)."""
        return TOOLS["autolaunch"](self, n)

    @user_facing
    def launch(
        self, grid: Dim3, block: Dim3, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        """Run on the current backend; see `Launcher`."""
        try:
            self._launch(grid, block, args, kwargs)
        except SimtError as e:
            raise e.with_traceback(None) from None

    def _launch(
        self, grid: Dim3, block: Dim3, args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        rt = registry.current()
        rt.check_limits(grid, block)
        values = self._bind(args, kwargs)
        spec = self.specialise(values, rt)
        if not spec.advised:  # once per specialisation: never on a launch's hot path
            spec.advised = True
            if not self.advice_shown and advice_enabled():
                self._advise_once(grid, block, rt)
        for name, position, scalar, hidden in spec.plan:
            if hidden:
                continue  # a hidden parameter: the arena, the failure buffer
            v = values[position]
            if scalar is None and name in spec.written and isinstance(v, np.ndarray):
                if not v.flags.writeable:
                    raise LaunchError(
                        f"argument {name!r} of {self.__name__}() is a read-only array, and "
                        f"the kernel writes to it: pass a writable copy ({name}.copy())"
                    )
        host = rt.host_memory
        staged, read_paths = self._stage(spec.fn)
        dev_args: list[Any] = []
        copy_back: list[tuple[np.ndarray, DeviceArray]] = []
        failures: tuple[np.ndarray, DeviceArray] | None = None
        host_words: np.ndarray | None = None  # the failure buffer, in host memory
        for name, position, scalar, hidden in spec.plan:
            if hidden is Hidden.FAILURES:  # the threads' uncaught exceptions
                if host:
                    host_words = spec.take_failures()
                    dev_args.append(host_view(rt, host_words))
                    continue
                if rt.keeps_failures(spec.compiled):  # its own, read at a sync
                    dev_args.append(None)
                    continue
                words = np.zeros(spec.fn.attrs["failure_words"], np.int32)
                dev = DeviceArray(rt, rt.upload(words), words.shape, words.dtype)
                failures = (words, dev)
                dev_args.append(dev)
                continue
            if hidden is Hidden.ARENA:
                dev_args.append(self._heap_arg(rt, host, spec.fn, name, grid, block, staged))
                continue
            v = values[position]
            if scalar is None:
                dev_args.append(self._array_arg(rt, host, name, v, spec, copy_back))
            else:
                try:
                    dev_args.append(scalar(v))
                except OverflowError:
                    t = np.dtype(scalar).name
                    raise LaunchError(
                        f"argument {name!r} of {self.__name__}() is {v}, which does not fit "
                        f"its type {t} (a Python int is an int32 or int64 in a kernel); pass "
                        "a smaller number, np.uint64(...) up to 2**64 - 1, or a float"
                    ) from None
        try:
            if spec.fn.attrs.get("file_records"):
                self._launch_writing_files(rt, spec, grid, block, dev_args, read_paths)
            else:
                rt.launch(spec.compiled, grid, block, dev_args)
        except (SimtError, KeyboardInterrupt):
            if host_words is not None:  # the launch stopped: what it recorded goes
                host_words[:] = 0
                spec.spare.append(host_words)
            raise
        except Exception as e:  # noqa: BLE001 - a runtime bug must still not look like the user's
            if os.environ.get("SIMT_INTERNAL_ERRORS") == "1":
                raise
            raise mark_internal(KernelError(
                f"internal error in simt while running {self.__name__}(): "
                f"{type(e).__name__}: {e} (this is a bug in simt; set SIMT_INTERNAL_ERRORS=1 "
                "to see the full traceback)"
            )) from None
        settled: KernelError | None = None
        if copy_back and rt.keeps_failures(spec.compiled):
            # the threads that raised are reported at a synchronisation (the copy back's):
            # take the report first, so that the finished threads' results land in every
            # one of the user's arrays before the grouped KernelError is raised
            try:
                rt.synchronize()
            except KernelError as e:
                settled = e
        for host_arr, dev in copy_back:
            try:
                if host_arr.flags.c_contiguous:
                    rt.download(dev.buf, host_arr)
                else:
                    tmp = np.empty(host_arr.shape, host_arr.dtype)
                    rt.download(dev.buf, tmp)
                    host_arr[...] = tmp
            except KernelError:
                if settled is None:
                    raise
                raise settled from None  # (the device stopped working: its first report)
        if settled is not None:
            raise settled
        if host_words is not None:  # the threads that finished wrote their results above
            err = spec.failures_of(host_words, grid, block)
            spec.spare.append(host_words)
            if err is not None:
                raise err
        if failures is not None:  # (a device's buffer: its first word, the count of threads
            words, dev = failures  # that raised, is read; the rest only when one did)
            rt.download(dev.buf, words[:1])
            if not words[0]:
                return
            rt.download(dev.buf, words)
            err = raising.decode(words, spec.fn.attrs["raise_sites"], tuple(grid),
                                 tuple(block))  # fmt: skip
            if err is not None:
                raise err

    def _launch_writing_files(
        self, rt: Runtime, spec: Specialisation, grid: Dim3, block: Dim3, dev_args: list[Any],
        read_paths: list[str] | None = None,
    ) -> None:
        """A launch whose threads write files (`open(path, "w")` in the kernel): what they
        print is captured, their file records are landed in real files once the launch ends
        (nothing is written when two threads clash: a KernelError names them), the rest is
        printed as usual (`simt.filewrites`, shared with the REPL)."""
        landed = False
        with printing.capture() as texts:
            try:
                rt.launch(spec.compiled, grid, block, dev_args)
                landed = True
            finally:
                shown, records = filewrites.split_records(texts)
                texts.clear()
        printing.write_texts(shown)
        if not landed:
            return
        try:
            written, _ = filewrites.land_open(records)
        except filewrites.WriteError as e:
            raise KernelError(f"{self.__name__}(): the files its threads wrote: {e}") from None
        both = filereads.read_and_written(read_paths or [], written)
        if both:
            raise KernelError(
                f"{self.__name__}(): its threads wrote {both[0]!r}, a file the launch also "
                "read (staged before it, at open for reading): one launch either reads a "
                "file or writes it, and nothing was written; write to another path, or read "
                "it in the next launch"
            )
        filewrites.write_files(written)

    def _advise_once(self, grid: Dim3, block: Dim3, rt: Runtime) -> None:
        """Warn (`SimtPerformanceWarning`) when this launch is clearly wasteful: the quick
        checks of `simt.benchtool` (`TOOLS["launch_advice"]`), shown once per kernel."""
        tool = TOOLS.get("launch_advice")
        if tool is None:
            return
        found = tool(self, grid, block, rt)
        if not found:
            return
        self.advice_shown = True
        warnings.warn(
            f"{self.__name__}[{_dims(grid)}, {_dims(block)}]: {found[0]} (launch advice, shown "
            "once per kernel; SIMT_ADVICE=off or simt.launch_advice(False) turns it off)",
            SimtPerformanceWarning,
            stacklevel=_user_level(),
        )

    def _stage(self, fn: Function) -> tuple[np.ndarray | None, list[str]]:
        """The block of the files the kernel reads (`simt.filereads`), staged now, and their
        paths; (None, []) for a kernel that reads none."""
        patterns = fn.attrs.get("file_reads")
        if not patterns:
            return None, []
        try:
            return filereads.staged(patterns)
        except filereads.StageError as e:
            raise LaunchError(f"{self.__name__}(): the files it reads: {e}") from None

    def _heap_arg(
        self, rt: Runtime, host: bool, fn: Function, name: str, grid: Dim3, block: Dim3,
        staged: np.ndarray | None = None,
    ) -> DeviceArray:
        """A hidden arena parameter's array for this launch: each thread's region, zeroed;
        after the int32 regions, the staged files' block (`staged`) where the kernel reads
        files."""
        (p,) = [p for p in fn.params if p.name == name]
        t = p.value.array.dtype
        threads = grid.size * block.size
        n = fn.arena_length(p, threads)
        if staged is not None and t == T.INT32:
            limit = None if host else rt.max_array_bytes()
            if limit is not None and 4 * (n + len(staged)) > limit:
                raise LaunchError(
                    f"{self.__name__}() reads the files matching "
                    f"{filereads.describe(fn.attrs.get('file_reads', ()))}: staged, they take "
                    f"{4 * len(staged)} bytes, in one array with the threads' heap "
                    f"({4 * n} bytes), and {rt.name} binds at most {limit} bytes "
                    f"({limit >> 20} MiB) per array on this device: read fewer or smaller "
                    "files per launch, launch fewer threads, or use another backend (cpu, cuda)"
                )
            if n + len(staged) >= 2**31:
                raise LaunchError(
                    f"{self.__name__}() reads files of {len(staged)} characters in all and "
                    f"keeps a heap of {self.heap} bytes per thread, more than 2**31 - 1 int32 "
                    "words together; launch fewer threads or read fewer files per launch"
                )
            words = np.zeros(n + len(staged), np.int32)
            words[n:] = staged
            return host_view(rt, words) if host else DeviceArray(
                rt, rt.upload(words), words.shape, words.dtype)  # fmt: skip
        if n >= 2**31:
            raise LaunchError(
                f"{self.__name__}() keeps lists in a per-thread heap of {self.heap} bytes per "
                f"item type, and {threads} threads need {n} {t.name} items of it, more than "
                "2**31 - 1; launch fewer threads (a grid-stride loop) or give a smaller "
                "@simt.kernel(heap=N)"
            )
        zeros = np.zeros(n, t.np)
        if host:
            return host_view(rt, zeros)
        return DeviceArray(rt, rt.upload(zeros), zeros.shape, zeros.dtype)

    def fast_launch(
        self, grid: Dim3, block: Dim3, args: tuple[Any, ...], known: dict[Any, Any],
        exact: bool = False,
    ) -> Any:  # fmt: skip
        """The runtime's fast path (`Runtime.fast_launch`) for launches on (`grid`, `block`)
        with arguments of the types of `args`, after a launch with them succeeded; None where
        there is none. `known`: the fast paths made so far for this launch shape, by key and
        the positions of device arrays (a launcher's own: types that alternate reuse theirs;
        `simt.to_device` arrays and NumPy arrays each have theirs). `exact`: one that also requires
        the arrays' shapes of `args` (`known` then holds only such ones)."""
        if self.static or self.known or len(args) != len(self._names):
            return None
        rt = registry.current()
        values = self._host_arrays(list(args))
        if any(v is not a for v, a in zip(values, args)):
            return None  # arrays by protocol: converted at each launch
        key = self._key(values, rt.name)
        # device arrays where the runtime's memory is the host's: the launch reads their host
        # buffers (each launch's `unwrapped` arguments); another backend's take the ordinary
        # path, which refuses them by name (a GPU runtime's fast path takes its own as they are)
        unwrap: tuple[int, ...] = ()
        if rt.host_memory:
            unwrap = tuple(k for k, v in enumerate(values) if type(v) is DeviceArray)
            if any(values[k].runtime is not rt for k in unwrap):
                return None
        if (key, unwrap) in known:
            return known[key, unwrap]
        if unwrap:
            values = [v.buf if type(v) is DeviceArray else v for v in values]
        spec = self._cache.get(key)
        fast = None
        if spec is not None:
            if rt.keeps_failures(spec.compiled) or not any(
                p.hidden is Hidden.FAILURES for p in spec.fn.params
            ):
                fast = rt.fast_launch(spec.compiled, grid, block, values, spec.written,
                                      exact=exact)  # fmt: skip
            elif rt.host_memory:  # a failure buffer of its own, read after each launch
                words = spec.take_failures()
                fast = rt.fast_launch(spec.compiled, grid, block, values, spec.written, words,
                                      exact=exact)  # fmt: skip
                if fast is None:
                    spec.spare.append(words)
                else:
                    fast.words = words

                    def check(words: np.ndarray, spec: Specialisation = spec) -> None:
                        err = spec.failures_of(words, grid, block)
                        if err is not None:
                            raise err

                    fast.check = check
        if fast is not None:
            fast.unwrap = unwrap
        if len(known) < 16:
            known[key, unwrap] = fast
        return fast

    def _array_arg(
        self,
        rt: Runtime,
        host: bool,
        name: str,
        v: Any,
        spec: Specialisation,
        copy_back: list[tuple[np.ndarray, DeviceArray]],
    ) -> DeviceArray:
        if isinstance(v, DeviceArray):
            if v.runtime is not rt:
                raise LaunchError(
                    f"argument {name!r} of {self.__name__}() lives on backend "
                    f"{v.runtime.name!r} but this launch runs on {rt.name!r}; copy it with "
                    ".numpy() or make it on this backend"
                )
            return complex_parts(v) if v.dtype.kind == "c" else v
        if isinstance(v, np.ndarray):
            v = parts_view(v)
            if host:
                return host_view(rt, v)
            direction = self._directions.get(name)
            if direction is lang.Out:
                dev = DeviceArray(rt, rt.empty(v.shape, v.dtype), v.shape, v.dtype)
            else:
                dev = DeviceArray(rt, rt.upload(np.ascontiguousarray(v)), v.shape, v.dtype)
            if name in spec.written and direction is not lang.In:
                copy_back.append((v, dev))
            return dev
        wrap = getattr(rt, "wrap_foreign", None)
        if wrap is not None:
            w = wrap(v)
            if w is not None:
                return w  # type: ignore[no-any-return]
        raise LaunchError(
            f"argument {name!r} of {self.__name__}() ({type(v).__name__}) cannot be used on "
            f"backend {rt.name!r}; pass a NumPy array or a simt device array"
        )


def parts_view(a: Any) -> Any:
    """A complex array as the float array of its parts (one more axis of 2, last; no copy);
    anything else as it is."""
    if not isinstance(a, np.ndarray) or a.dtype.kind != "c":
        return a
    part = np.float32 if a.dtype.itemsize == 8 else np.float64
    return a[..., None].view(part)


def _with_files(zeros: np.ndarray, p: Param, staged: np.ndarray | None) -> np.ndarray:
    """A hidden array with the staged files' block after it when it is the int32 arena."""
    if staged is None or p.hidden is not Hidden.ARENA or zeros.dtype != np.int32:
        return zeros
    return np.concatenate([zeros, staged])


def _short(t: tuple[int, ...], ndim: int) -> str:
    """A launch index or shape with its first `ndim` axes, as users write it: `3`, `(3, 1)`."""
    parts = tuple(t)[:ndim]
    return str(parts[0]) if ndim == 1 else str(parts)


def _explain_threads(thread: Any, threads: Any) -> list[Any]:
    """The (block, thread) pairs `explain` was asked for."""
    if (thread is None) == (threads is None):
        raise LaunchError("explain needs thread=(block, thread) or threads=(pair, pair)")
    if thread is not None:
        return [thread]
    if not isinstance(threads, (tuple, list)) or len(threads) != 2:
        raise LaunchError(f"threads= takes two (block, thread) pairs, got {threads!r}")
    return list(threads)


def _lane_of(pick: Any, grid: Dim3, block: Dim3) -> int:
    """The launch-wide linear id of thread `pick` = (block index, thread index)."""
    if not isinstance(pick, (tuple, list)) or len(pick) != 2:
        raise LaunchError(f"a thread is picked as (block, thread), e.g. (0, 5); got {pick!r}")

    def linear(v: Any, dims: Dim3, what: str) -> int:
        parts = (v,) if isinstance(v, (int, np.integer)) else tuple(v)
        if not 1 <= len(parts) <= 3 or not all(isinstance(p, (int, np.integer)) for p in parts):
            raise LaunchError(f"the {what} index {v!r} must be an int or a tuple of 1-3 ints")
        parts = tuple(int(p) for p in parts) + (0,) * (3 - len(parts))
        ext = tuple(dims)
        if any(not 0 <= p < e for p, e in zip(parts, ext)):
            raise LaunchError(f"the {what} index {v!r} is outside the launch's {what} {ext}")
        return parts[0] + ext[0] * (parts[1] + ext[1] * parts[2])

    return linear(pick[0], grid, "block") * block.size + linear(pick[1], block, "thread")


class Launcher:
    """A kernel with its launch shape: call it with the kernel's arguments.

    A launcher keeps the runtime's fast path (`Runtime.fast_launch`) for the argument types of
    its last launch: the next launch with arguments of those types skips binding, the
    specialisation key and the checks those types already passed, and goes to the runtime at
    once. Anything else (other types, keyword arguments, another backend) launches the
    ordinary way, whose checks and errors are unchanged."""

    def __init__(self, kernel: Kernel, grid: Dim3, block: Dim3) -> None:
        check_launch(grid, block)
        self.kernel = kernel
        self.grid = grid
        self.block = block
        self._fast: Any = None  # the runtime's fast path for the last launch's argument types
        self._fasts: dict[Any, Any] = {}  # and for earlier ones, by their specialisation key

    @property
    def fast(self) -> Any:
        """The runtime's fast path for the last launch's argument types, or None: a caller
        that calls its `fn(args)` itself (`tensor.run`) hands any status but RAN to
        `after_fast`."""
        return self._fast

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        try:
            fast = self._fast
            if fast is not None and not kwargs and fast.runtime is registry.current():
                run = fast.unwrapped(args) if fast.unwrap else args
                if run is not None:
                    status = fast.fn(run) if fast.words is None else fast.run_raising(run)
                    if not status:  # RAN
                        return
                    from .runtime.cpu_fast import FAILED  # (see `after_fast`)

                    if status == FAILED:
                        return fast.failure()  # type: ignore[no-any-return]
            self.kernel.launch(self.grid, self.block, args, kwargs)
            if not kwargs:
                self._fast = self.kernel.fast_launch(self.grid, self.block, args, self._fasts)
        except SimtError as e:
            for_user(e)
            if sys.version_info < (3, 11):  # a bare raise reuses the caught traceback there
                raise e.with_traceback(e.__traceback__) from None
            raise  # a bare raise adds no frame of its own

    def after_fast(self, status: int, fast: Any, args: tuple[Any, ...]) -> None:
        """The rest of a launch whose fast path `fast` (`self.fast`, called by the caller)
        returned `status` other than RAN: its failure raised, or the ordinary launch."""
        from .runtime.cpu_fast import FAILED  # (loaded by the runtime that made `fast`; not
        # by `import simt`: ~2 ms)

        try:
            if status == FAILED:
                return fast.failure()  # type: ignore[no-any-return]
            self.kernel.launch(self.grid, self.block, args, {})
            self._fast = self.kernel.fast_launch(self.grid, self.block, args, self._fasts)
        except SimtError as e:
            for_user(e)
            if sys.version_info < (3, 11):
                raise e.with_traceback(e.__traceback__) from None
            raise

    def __repr__(self) -> str:
        return f"<{self.kernel.__name__}[{tuple(self.grid)}, {tuple(self.block)}]>"


@user_facing
def kernel(
    fn: Callable[..., Any] | None = None,
    *,
    fp64: bool = False,
    debug: bool | None = None,
    static: Sequence[str] = (),
    boundscheck: bool | None = None,
    heap: int | None = None,
    division: str = "numpy",
) -> Any:
    """Decorator: `@simt.kernel` or `@simt.kernel(fp64=True, debug=True, static=("n",))`.

    `fp64`: floats made from integers are float64 (default float32). `debug`: the simulator's
    extra checks (races, uninitialised reads) where a backend has them (default:
    `SIMT_DEBUG=1`). `static`: parameters whose values are compile-time constants (each new
    value compiles a new specialisation). `boundscheck=False` (Numba's spelling) compiles array
    accesses without bounds checks: unsafe, an index outside an array is then undefined
    behaviour; by default (and with `SIMT_BOUNDSCHECK` unset or not `0`) every access not
    proven in bounds is checked and a bad index is a `KernelError`. `heap`: bytes of
    per-thread memory for each item type of the kernel's lists (default 1024;
    docs/language.md, "Lists"); running out is a `MemoryError`. `division="python"`:
    `/`, `//` and `%` by zero raise ZeroDivisionError in the thread (by default, "numpy", an
    integer `//` or `%` by zero gives 0 and a float division gives inf or nan).
    """
    opts: dict[str, Any] = dict(
        fp64=fp64, debug=debug, static=static, boundscheck=boundscheck, heap=heap,
        division=division,
    )
    if fn is None:
        return lambda f: Kernel(f, **opts)
    return Kernel(fn, **opts)


@user_facing
def launch(k: Kernel, grid: Any, block: Any, *args: Any, **kwargs: Any) -> None:
    """Function form of a launch: `simt.launch(kernel, blocks, threads, *args)`."""
    if not isinstance(k, Kernel):
        raise LaunchError(f"simt.launch needs a @simt.kernel function, got {k!r}")
    k.config(grid, block)(*args, **kwargs)
