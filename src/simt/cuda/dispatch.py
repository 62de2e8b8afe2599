"""`cuda.jit`: Numba's decorator over `simt.Kernel`, with Numba's launch forms
(`k[grid, block, stream, sharedmem]`, `k.configure(...)`, `k.forall(n)`) and signatures."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ..errors import CompileError, KernelError, LaunchError, SimtError, reword, user_facing
from ..kernel import Kernel
from ..lang import ScalarCast
from ..types import ArraySpec, Scalar, Signature, void

# Numba's type names in signature strings, as NumPy dtypes
_TYPES = {
    "boolean": np.bool_, "b1": np.bool_, "bool_": np.bool_,
    "int8": np.int8, "i1": np.int8, "int16": np.int16, "i2": np.int16,
    "int32": np.int32, "i4": np.int32, "int64": np.int64, "i8": np.int64,
    "intp": np.intp, "intc": np.intc,
    "uint8": np.uint8, "u1": np.uint8, "uint16": np.uint16, "u2": np.uint16,
    "uint32": np.uint32, "u4": np.uint32, "uint64": np.uint64, "u8": np.uint64,
    "float16": np.float16, "f2": np.float16, "float32": np.float32, "f4": np.float32,
    "float64": np.float64, "f8": np.float64, "double": np.float64, "float_": np.float32,
    "complex64": np.complex64, "c8": np.complex64, "complex128": np.complex128,
    "c16": np.complex128,
}  # fmt: skip

# options of numba.cuda.jit that do not change what simt computes, and why
NO_OP_OPTIONS = {
    "inline": "simt inlines every device function",
    "fastmath": "simt keeps IEEE results on every backend",
    "cache": "simt always caches compiled kernels on disk (SIMT_CACHE_DIR)",
    "lineinfo": "simt's errors always name the source line",
    "opt": "simt always optimises",
    "max_registers": "register use is the CUDA compiler's choice",
    "extensions": "not used by simt",
    "forceinline": "simt inlines every device function",
}


# simt's names in its messages, as a Numba program spells them: the errors of a cuda.jit
# kernel say `cuda.syncthreads()`, `cuda.shared.array`, `np.float32(x)` (what its author
# writes) where a simt.kernel's say `simt.syncthreads()`, `simt.shared.array`, ...
_NUMBA_WORDS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\bsimt\.(shared|local|const|atomic)\b"), r"cuda.\1"),
    (re.compile(r"\bsimt\.(syncthreads\w*|threadfence\w*|gridsize|grid)\b"), r"cuda.\1"),
    (re.compile(r"\bsimt\.((?:u?int|float)\d+)\b"), r"np.\1"),
    # a NumPy function of a whole array (np.sum(a)) in a kernel: a cuda.jit kernel has no
    # compile-time arrays (simt.compile is for simt.kernel), so only the run-time advice
    (re.compile(r"`(\w+)` is an array passed at the launch\b.*", re.DOTALL),
     r"`\1` is an array passed at the launch, which a kernel reads element by element (a "
     r"loop over `\1[k]`, or one element per thread), in Numba too: compute the whole-array "
     r"function on the host before the launch, or in a kernel of its own (a reduction), and "
     r"pass its result"),
]  # fmt: skip
# the shape of a shared or local array: a cuda.jit kernel has no static arguments
_STATIC_HINT = "use a constant, a global or a static argument"
_NUMBA_SHAPE_HINT = (
    "use a constant or a module-level global, as in Numba (a shared array sized at the launch "
    "is cuda.shared.array(0, dtype), its size in bytes the launch's fourth value: "
    "kernel[blocks, threads, 0, nbytes](...))"
)


# an index computed at run time that is negative: Numba wraps it (Python's rule), simt does
# not (docs/semantics.md, "Arrays and memory"), so a ported kernel learns how to write it
# (the single-failure report says "(index -1, length 8)", the grouped IndexError "index -1 is
# out of bounds of `a`")
_NEGATIVE_INDEX = re.compile(r"\bindex -\d")
_NEGATIVE_INDEX_HINT = (
    "Numba wraps a negative index computed at run time as Python does (a[i - 1] at i = 0 "
    "reads the last element); simt's kernels do not: for a periodic neighbour write "
    "a[(i - 1) % n], else guard the index (a known a[-1] counts from the end in both)"
)


def numba_spelling(text: str) -> str:
    """`text`, a message of simt's, with simt's names spelled as in a Numba program."""
    for pattern, repl in _NUMBA_WORDS:
        text = pattern.sub(repl, text)
    return text


F = TypeVar("F", bound=Callable[..., Any])


def _numba_words(fn: F) -> F:
    """Errors leaving `fn` (a cuda.jit kernel's compile or launch) say what a Numba program
    writes (`numba_spelling`)."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SimtError as e:
            if isinstance(e, CompileError) and e.hint == _STATIC_HINT:
                e.hint = (
                    _NUMBA_SHAPE_HINT
                    if "shared" in e.message
                    else "use a constant or a module-level global, as in Numba"
                )
            reword(e, numba_spelling)
            if isinstance(e, KernelError) and _NEGATIVE_INDEX.search(str(e)):
                e.args = (f"{e}\n  {_NEGATIVE_INDEX_HINT}", *e.args[1:])
            raise

    return run  # type: ignore[return-value]


def parse_signature(sig: str) -> tuple[str, list[tuple[np.dtype, int]]]:
    """A Numba signature string, "void(float32[:], int32)", as its return type's name and,
    per parameter, its dtype and number of dimensions (0 for a scalar)."""
    m = re.fullmatch(r"\s*(\w+)\s*\((.*)\)\s*", sig)
    if m is None:
        raise CompileError(
            f"cannot read the signature {sig!r}",
            hint='write it as Numba does: "void(float32[:], float32[:, :], int32)"',
        )
    params: list[tuple[np.dtype, int]] = []
    body = m.group(2).strip()
    parts = re.findall(r"\w+\s*(?:\[[^\]]*\])?", body) if body else []
    for p in parts:
        pm = re.fullmatch(r"(\w+)\s*(?:\[([^\]]*)\])?", p.strip())
        assert pm is not None
        name, dims = pm.group(1), pm.group(2)
        if name not in _TYPES:
            raise CompileError(
                f"signature {sig!r}: unknown type {name!r}",
                hint=f"use one of {', '.join(sorted(_TYPES))}",
            )
        ndim = 0 if dims is None else dims.count(",") + 1
        params.append((np.dtype(_TYPES[name]), ndim))
    return m.group(1), params


class CUDAKernel:
    """A kernel made by `cuda.jit`: launch it as Numba does, `k[grid, block](args)`,
    `k[grid, block, stream, sharedmem](args)`, `k.configure(grid, block)(args)` or
    `k.forall(n)(args)`. Each size of dynamic shared memory compiles its own specialisation."""

    def __init__(
        self,
        pyfunc: Callable[..., Any],
        signatures: list[str],
        debug: bool | None,
        options: dict[str, Any],
        boundscheck: bool | None = None,
    ) -> None:
        self.py_func = pyfunc
        self.pyfunc = pyfunc  # called from another kernel: inlined, as a device function
        self.__name__ = getattr(pyfunc, "__name__", "kernel")
        self.__doc__ = pyfunc.__doc__
        self.__wrapped__ = pyfunc
        self.debug = debug
        self.boundscheck = boundscheck
        self.options = options
        self._kernels: dict[int, Kernel] = {}
        self.signatures = [parse_signature(s) for s in signatures]
        nparams = len(inspect.signature(pyfunc).parameters)
        for text, (ret, params) in zip(signatures, self.signatures):
            if ret != "void":
                raise CompileError(
                    f"the signature {text!r} of kernel {self.__name__}() returns {ret}; "
                    "kernels return nothing",
                    hint="write void(...), or add device=True for a device function",
                )
            if len(params) != nparams:
                raise CompileError(
                    f"the signature {text!r} has {len(params)} parameter(s), "
                    f"{self.__name__}() has {nparams}"
                )
        self.kernel(0)  # checks the function now, as Numba's decorator does

    def __repr__(self) -> str:
        return f"<simt.cuda kernel {self.__name__}>"

    def kernel(self, sharedmem: int = 0) -> Kernel:
        """The simt kernel that runs launches with `sharedmem` bytes of dynamic shared memory."""
        k = self._kernels.get(sharedmem)
        if k is None:
            k = Kernel(
                self.py_func, fp64=True, debug=self.debug, numba=True,
                boundscheck=self.boundscheck,
                dynamic_shared=sharedmem or None,
            )  # fmt: skip
            self._kernels[sharedmem] = k
        return k

    # launch forms ------------------------------------------------------------------------
    @user_facing
    def __getitem__(self, config: Any) -> Launch:
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise LaunchError(
                f"launch {self.__name__} as {self.__name__}[griddim, blockdim] (or with a "
                f"stream and a dynamic shared memory size after them), got [{config!r}]"
            )
        return self.configure(*config)

    @user_facing
    def configure(self, griddim: Any, blockdim: Any, stream: Any = 0, sharedmem: int = 0) -> Launch:
        """A launcher for `griddim` blocks of `blockdim` threads (Numba's `configure`)."""
        if not isinstance(sharedmem, (int, np.integer)) or sharedmem < 0:
            raise LaunchError(
                f"the dynamic shared memory size of a launch of {self.__name__} is a number "
                f"of bytes, got {sharedmem!r}"
            )
        return Launch(self, griddim, blockdim, stream, int(sharedmem))

    @user_facing
    def forall(self, ntasks: int, tpb: int = 0, stream: Any = 0, sharedmem: int = 0) -> Launch:
        """A launcher covering `ntasks` threads in one dimension (blocks of `tpb` threads, 256
        when 0): Numba's `kernel.forall(n)(args)`."""
        if not isinstance(ntasks, (int, np.integer)) or ntasks < 0:
            raise LaunchError(f"forall needs a number of tasks, got {ntasks!r}")
        threads = int(tpb) or 256
        blocks = max(1, -(-int(ntasks) // threads))
        return self.configure(blocks, threads, stream, sharedmem)

    @user_facing
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise LaunchError(
            f"{self.__name__} is a kernel: launch it with {self.__name__}[blocks, threads]"
            "(...), or make it a device function with @cuda.jit(device=True)"
        )

    def convert(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """With signatures: scalars as the signature's type, arrays checked against it."""
        if not self.signatures:
            return args
        problems = []
        for _, params in self.signatures:
            out, why = _match(self.__name__, params, args)
            if why is None:
                return out
            problems.append(why)
        raise LaunchError(
            f"no signature of {self.__name__}() matches the arguments: " + "; ".join(problems)
        )

    # Numba's inspection names
    @user_facing
    @_numba_words
    def inspect_types(self, *args: Any, **kwargs: Any) -> None:
        print(self.kernel(0).ir(*args, **kwargs))

    @user_facing
    @_numba_words
    def source(self, backend: str, *args: Any, **kwargs: Any) -> str:
        """The text `backend` compiles for these arguments (as `simt.Kernel.source`)."""
        return self.kernel(0).source(backend, *args, **kwargs)

    @user_facing
    @_numba_words
    def ir(self, *args: Any, **kwargs: Any) -> str:
        """simt's optimised IR for these arguments (as `simt.Kernel.ir`)."""
        return self.kernel(0).ir(*args, **kwargs)

    @user_facing
    @_numba_words
    def explain(self, grid: Any, block: Any, *args: Any, sharedmem: int = 0, **kwargs: Any) -> None:
        """Run the launch on `sim` and print one thread's path (as `simt.Kernel.explain`:
        `thread=(block, thread)`)."""
        self.kernel(sharedmem).explain(grid, block, *self.convert(args), **kwargs)


def _match(
    name: str, params: list[tuple[np.dtype, int]], args: tuple[Any, ...]
) -> tuple[tuple[Any, ...], str | None]:
    if len(args) != len(params):
        return args, f"{len(params)} arguments expected, {len(args)} given"
    out = []
    for k, ((dt, ndim), a) in enumerate(zip(params, args)):
        if ndim == 0:
            if len(getattr(a, "shape", ())) > 0:
                return args, f"argument {k} is an array where the signature has a {dt} scalar"
            out.append(dt.type(a))
            continue
        adt = getattr(a, "dtype", None)
        shape = getattr(a, "shape", None)
        if adt is None or shape is None:
            return args, f"argument {k} is a {type(a).__name__} where the signature has an array"
        if np.dtype(adt) != dt or len(shape) != ndim:
            return args, (
                f"argument {k} is a {len(shape)}-d {np.dtype(adt)} array where the signature "
                f"has {dt}[{', '.join([':'] * ndim)}]"
            )
        out.append(a)
    return tuple(out), None


class Launch:
    """A `CUDAKernel` with its launch shape: call it with the kernel's arguments."""

    def __init__(
        self, kernel: CUDAKernel, griddim: Any, blockdim: Any, stream: Any, sharedmem: int
    ) -> None:
        self.cuda_kernel = kernel
        self.stream = stream
        self.sharedmem = sharedmem
        self.launcher = kernel.kernel(sharedmem).config(griddim, blockdim)

    @user_facing
    @_numba_words
    def __call__(self, *args: Any) -> None:
        self.launcher(*self.cuda_kernel.convert(args))

    def __repr__(self) -> str:
        return repr(self.launcher)


@user_facing
def jit(
    func_or_sig: Any = None,
    device: bool = False,
    inline: Any = False,
    link: Any = (),
    debug: bool | None = None,
    opt: bool = True,
    lineinfo: bool = False,
    cache: bool = False,
    fastmath: bool = False,
    boundscheck: bool | None = None,
    **options: Any,
) -> Any:
    """Numba's `cuda.jit`: `@cuda.jit`, `@cuda.jit("void(float32[:])")`,
    `@cuda.jit(device=True)`. A kernel follows Numba's typing; a device function is a plain
    Python function, inlined into each kernel that calls it (and callable on the host).
    `debug` is simt's debug mode; bounds checks are on unless `boundscheck=False`; `inline`,
    `fastmath`, `cache`, `lineinfo`, `opt`, `max_registers` are accepted and change nothing
    (`NO_OP_OPTIONS` says why)."""
    if link:
        raise CompileError(
            "cuda.jit(link=...) links CUDA C or PTX files, which simt cannot run on other "
            "backends; write the linked functions in Python as device functions"
        )
    unknown = [k for k in options if k not in NO_OP_OPTIONS]
    if unknown:
        raise CompileError(f"cuda.jit has no option {unknown[0]!r} in simt")
    dbg = True if debug else None

    def decorate(fn: Callable[..., Any], sigs: list[str]) -> Any:
        if device:
            for s in sigs:
                parse_signature(s)  # read, so that a typo is an error; types follow the call
            return fn
        return _numba_words(CUDAKernel)(fn, sigs, dbg, dict(options), boundscheck)

    if func_or_sig is None:
        return lambda fn: decorate(fn, [])
    sigs = _signature_texts(func_or_sig)
    if sigs is not None:
        return lambda fn: decorate(fn, sigs)
    if callable(func_or_sig):
        return decorate(func_or_sig, [])
    raise CompileError(
        f"cuda.jit takes a function or a signature string, got {func_or_sig!r:.60}",
        hint='write @cuda.jit, @cuda.jit("void(float32[:])") or @cuda.jit(void(float32[:]))',
    )


def _signature_texts(sig: Any) -> list[str] | None:
    """The signature strings `cuda.jit`'s first argument names, or None when it names none:
    a string, a signature of type objects (`void(float32[:], int32)`, whose str() is the
    string), a tuple of parameter types (`(float32[:], int32)`, a kernel's: void), or a list
    of signatures."""
    if isinstance(sig, (str, Signature)):
        return [str(sig)]
    if isinstance(sig, tuple) and sig and all(_is_param_type(t) for t in sig):
        return [str(void(*sig))]
    if isinstance(sig, (list, tuple)) and sig and all(isinstance(s, (str, Signature)) for s in sig):
        return [str(s) for s in sig]
    return None


def _is_param_type(t: Any) -> bool:
    return isinstance(t, (ArraySpec, Scalar, ScalarCast))
