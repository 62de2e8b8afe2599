"""Image functions: a per-pixel Python function run on every pixel of whole images.

`simt.compile(f, **known)` returns an `ImageFunction` when `f` has an `Image` and a
`Position` parameter. Calling it with the images (and run-time scalars) returns a new image
of the first image's size. How:

- A small wrapper kernel is generated as Python source (registered with `linecache`, so the
  front end reads it like any other function): one thread per pixel, it builds
  `Image(array, edge, channels)` for each image parameter and `Position(x, y)` from its grid
  index, calls `f` (inlined, with the known values folded in) and stores the result.
- The result's channel count (a number, or a `Color`/tuple of C channels) is only found by
  compiling. The wrapper reports it at compile time to `note_channels` (a call on known
  values, so it runs in CPython while compiling) and stores nothing when the output array it
  was compiled for has the wrong rank; the host then allocates the right output and compiles
  again. The guess (grey in, grey out; C channels in, C out) is nearly always right.
"""

from __future__ import annotations

import hashlib
import inspect
import linecache
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from . import lang
from .array import DeviceArray
from .errors import CompileError, LaunchError, SimtError, user_facing
from .extras import entry
from .foreign import is_dask
from .image import EDGES, Color, Image, Position, channels
from .kernel import Kernel, bind_arguments
from .runtime import registry

F32 = np.dtype(np.float32)
U8 = np.dtype(np.uint8)

# What each parameter of an image function is.
IMAGE, POSITION, FLOAT, KNOWN, OTHER = "image", "position", "float", "known", "other"


def param_kinds(fn: Callable[..., Any], known: dict[str, Any]) -> dict[str, str]:
    """Each parameter's kind, from its annotation or its default (PyGPU's `im=Image`)."""
    try:
        sig = inspect.signature(fn, eval_str=True)
    except Exception:  # noqa: BLE001 - string annotations naming unknown things
        sig = inspect.signature(fn)
    kinds: dict[str, str] = {}
    for name, p in sig.parameters.items():
        marks = (p.annotation, p.default)
        if name in known:
            kinds[name] = KNOWN
        elif any(_marks(m, Image, "Image") for m in marks):
            kinds[name] = IMAGE
        elif any(_marks(m, Position, "Position") for m in marks):
            kinds[name] = POSITION
        elif any(_marks(m, lang.float32, "Float") or _marks(m, float, "float") for m in marks):
            kinds[name] = FLOAT
        else:
            kinds[name] = OTHER
    return kinds


def _marks(mark: Any, cls: Any, name: str) -> bool:
    """Whether an annotation or default is `cls`, or `name` in a string annotation (never
    `==` on other objects: a NumPy default would compare element-wise)."""
    return mark is cls or (isinstance(mark, str) and mark == name)


def is_number(v: Any) -> bool:
    """Whether `v` is a number an image function takes at run time."""
    return isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating))


def _defaults(fn: Callable[..., Any]) -> dict[str, Any]:
    """The parameters' default values, leaving out PyGPU's type markers (`im=Image`)."""
    markers = (Image, Position, lang.float32, float)
    return {
        n: p.default
        for n, p in inspect.signature(fn).parameters.items()
        if p.default is not inspect.Parameter.empty and not any(p.default is m for m in markers)
    }


def _level(v: Any, unit: Any) -> Any:
    """A result value as stored: with `unit` (uint8 output of a normalised image function),
    `v` in [0, 1] becomes the level round(v * 255) clamped to 0..255 (the store truncates)."""
    if unit:
        return min(max(v * 255.0, 0.0), 255.0) + 0.5
    return v


def store(out: Any, x: Any, y: Any, v: Any, note: Callable[[int], None], unit: Any) -> None:
    """The wrapper's last step, the store hook (inlined): write pixel `v` at (`x`, `y`) of
    `out` and report its channel count to `note` (-1: nothing returned, 0: grey)."""
    if isinstance(v, type(None)):  # (`is` needs known values; isinstance takes any)
        note(-1)  # the host says the function returned nothing
    elif isinstance(v, (Color, tuple)):
        cs = channels(v)
        note(len(cs))
        if out.ndim == 3:
            for c, vc in enumerate(cs):
                out[y, x, c] = _level(vc, unit)
    else:
        note(0)
        if out.ndim == 2:
            out[y, x] = _level(v, unit)


_WRAPPER = """\
def {name}(_simt_out, {params}):
    _simt_x, _simt_y = _simt_grid(2)
    if _simt_y < _simt_out.shape[0] and _simt_x < _simt_out.shape[1]:
        _simt_v = _simt_f({call})
        _simt_store(_simt_out, _simt_x, _simt_y, _simt_v, _simt_note, _simt_unit)
"""


class ImageFunction:
    """A per-pixel function compiled for whole images: `f(*images_and_scalars) -> image`.

    The Position parameter is not passed; parameters given to `simt.compile` are not passed
    either. Images are NumPy arrays (converted to float32), simt device arrays (float32), or
    `simt.image.Image(array, edge=...)` to choose the edge mode. The result is a float32 (uint8
    when compiled with `normalize=True` and the first image is uint8: docs/language.md)
    array (H x W, or H x W x C for colour results) of the same kind as the first image.
    """

    @user_facing
    def __init__(
        self, fn: Callable[..., Any], known: dict[str, Any], fp64: bool = False,
        debug: bool | None = None, normalize: bool = False,
        boundscheck: bool | None = None,
    ) -> None:  # fmt: skip
        self.fn = fn
        self.normalize = bool(normalize)
        self.__name__ = getattr(fn, "__name__", "image_function")
        self.__doc__ = fn.__doc__
        self.defaults = _defaults(fn)
        # a default that cannot go to the device (a matrix, a list) is a known value
        known = {
            **{n: d for n, d in self.defaults.items() if not is_number(d)},
            **known,
        }
        self.kinds = param_kinds(fn, known)
        positions = [n for n, k in self.kinds.items() if k == POSITION]
        if len(positions) != 1:
            raise CompileError(
                f"{self.__name__}() has {len(positions)} Position parameters; an image "
                "function has exactly one (the pixel it computes)"
            )
        bare = param_kinds(fn, {})
        given = [n for n in known if bare[n] in (IMAGE, POSITION)]
        if given:
            raise CompileError(
                f"simt.compile({self.__name__}, {given[0]}=...): the images of an image "
                "function are passed when it is called, and the Position never is",
                hint=f"leave {given[0]} out of simt.compile and pass it to the compiled function",
            )
        self.images = [n for n, k in self.kinds.items() if k == IMAGE]
        # what the caller passes, in order
        self.args = [n for n, k in self.kinds.items() if k not in (KNOWN, POSITION)]
        self.kernel = Kernel(
            self.wrapper(), fp64=fp64, debug=debug, static=self.static_names(), known=known,
            boundscheck=boundscheck,
        )  # fmt: skip
        self._channels: dict[Any, int] = {}  # input kinds -> channels of the result (0: grey)
        self._noted: int | None = None
        # `_noted` is set by the front end while it translates: dask runs chunks on several
        # threads, so learning the channel count is one thread at a time.
        self._learning = threading.Lock()

    def __repr__(self) -> str:
        return f"<simt image function {self.__name__}({', '.join(self.args)})>"

    # the wrapper kernel (the hooks a variant such as simt.dask's chunk functions overrides) --
    def static_names(self) -> list[str]:
        """The wrapper's compile-time parameters: each image's edge mode, channels and unit
        flag, and the output's unit flag."""
        per_image = ("edge", "nch", "unit")
        return [f"_simt_{n}_{what}" for n in self.images for what in per_image] + ["_simt_unit"]

    def wrapper(self) -> Callable[..., Any]:
        """The wrapper kernel's Python function: one thread a pixel, calling `fn` and the
        `store` hook (see the module doc)."""
        params = [n for n in self.kinds if self.kinds[n] != POSITION]
        call = []
        for n, k in self.kinds.items():
            if k == POSITION:
                call.append("_simt_Position(_simt_x, _simt_y)")
            elif k == IMAGE:
                call.append(f"_simt_Image({n}, _simt_{n}_edge, _simt_{n}_nch, _simt_{n}_unit)")
            else:
                call.append(n)
        return self.generated_kernel(
            params + self.static_names(), call, {"_simt_Image": Image}, "image kernel"
        )

    def generated_kernel(
        self, params: list[str], call: list[str], names: dict[str, Any], label: str
    ) -> Callable[..., Any]:
        """A wrapper function over the pixels of `_simt_out` taking `params`, calling `fn` with
        the expressions `call` (over `names`, `_simt_Position` and the wrapper's own) and
        storing the result with `store`; its source is registered for the front end."""
        text = _WRAPPER.format(name=self.__name__, params=", ".join(params), call=", ".join(call))
        # Named by its text, so that the same function compiles to the same IR (and disk cache
        # entry) in every process.
        digest = hashlib.sha1(text.encode()).hexdigest()[:10]
        filename = f"<simt {label} {self.__name__} {digest}>"
        # The front end reads sources through linecache: register the text like IPython does
        # for notebook cells (no mtime, so linecache.checkcache keeps it).
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        env: dict[str, Any] = {
            "_simt_grid": lang.grid, "_simt_f": self.fn, "_simt_store": store,
            "_simt_note": self.note_channels, "_simt_Position": Position, **names,
        }  # fmt: skip
        exec(compile(text, filename, "exec"), env)  # noqa: S102 - our own generated source
        return env[self.__name__]  # type: ignore[no-any-return]

    def note_channels(self, channels: int) -> None:
        """Called while the wrapper compiles: the channel count of `fn`'s result."""
        self._noted = channels

    # calls ---------------------------------------------------------------------------------
    @user_facing
    def __call__(self, *args: Any, out: Any = None, **kwargs: Any) -> Any:
        """The result image; `out=` writes it into an existing float32 array instead (of
        the result's shape, and of the same kind as the first image), as NumPy ufuncs do."""
        try:
            given = (*args, *kwargs.values())
            if any(is_dask(v.data if isinstance(v, Image) else v) for v in given):
                return entry("dask", "image_call")(self, args, {**kwargs, "out": out})
            return self._run(self.bind(args, kwargs), out)
        except SimtError as e:
            raise e.with_traceback(None) from None

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The call's arguments by parameter name, converted (images as `Image`s holding
        float32 or, normalised, uint8 arrays; Float parameters as float32), defaults filled
        in: what `kernel_values`, `result_channels` and `out_dtype` take."""
        names = self.args
        values = bind_arguments(self.__name__, names, args, kwargs)
        # converted first: an image passed where a compile-time value belongs says so
        bound = {n: self._convert(n, v) for n, v in values.items()}
        for n in names:
            if n not in values and n in self.defaults:
                bound[n] = self._convert(n, self.defaults[n])
        missing = [n for n in names if n not in bound]
        if missing:
            raise LaunchError(
                f"{self.__name__}() takes {', '.join(names)} (the parameters not given to "
                f"simt.compile), got {len(args) + len(kwargs)}: {', '.join(missing)} missing"
            )
        return {n: bound[n] for n in names}

    def _convert(self, name: str, v: Any) -> Any:
        kind = self.kinds[name]
        if kind == IMAGE:
            return _image_arg(self.__name__, name, v, self.normalize)
        if is_number(v):
            return np.float32(v) if kind == FLOAT else v
        if kind == FLOAT:
            raise LaunchError(f"argument {name!r} of {self.__name__}() is a Float, got {v!r:.60}")
        raise CompileError(
            f"parameter {name!r} of {self.__name__}() is given a {type(v).__name__} when the "
            "image function is called, but only images and numbers can be passed then",
            hint=f"give it when compiling: simt.compile({self.__name__}, {name}=...); its "
            "value is then used by CPython while compiling",
        )

    def kernel_values(self, bound: dict[str, Any], out: Any) -> list[Any]:
        """The wrapper kernel's arguments for bound arguments and the output array `out`
        (known ones left out)."""
        vals = [out, *(bound[n] if self.kinds[n] != IMAGE else bound[n].data for n in self.args)]
        for n in self.images:
            vals += [bound[n].edge, bound[n].nch, bound[n].unit]
        return vals + [self.out_dtype(bound) == np.uint8]

    def out_dtype(self, bound: dict[str, Any]) -> np.dtype[Any]:
        """uint8 when normalised and the first image is uint8 (levels back), else float32."""
        return U8 if bound[self.images[0]].unit else F32

    def _run(self, bound: dict[str, Any], out: Any = None) -> Any:
        first = bound[self.images[0]].data
        h, w = first.shape[:2]
        n = self.result_channels(bound, compile=True)
        shape = (h, w) if n == 0 else (h, w, n)
        dtype = self.out_dtype(bound)
        if out is None:
            out = _output(first, shape, dtype)
        else:
            wrong = []
            if isinstance(out, DeviceArray) != isinstance(first, DeviceArray):
                wrong.append(f"a {type(out).__name__}, not a {type(first).__name__}")
            if tuple(getattr(out, "shape", ())) != shape:
                wrong.append(f"shape {getattr(out, 'shape', None)}, not {shape}")
            if getattr(out, "dtype", None) != dtype:
                wrong.append(f"dtype {getattr(out, 'dtype', None)}, not {dtype}")
            if wrong:
                raise LaunchError(
                    f"out= of {self.__name__}() must be a {dtype} {type(first).__name__} of "
                    f"shape {shape} (like the first image); it has {'; '.join(wrong)}"
                )
        block = registry.current().image_block
        grid = (-(-w // block[0]), -(-h // block[1]))
        self.kernel.config(grid, block)(*self.kernel_values(bound, out))
        return out

    def result_channels(self, bound: dict[str, Any], compile: bool = True) -> int:
        """The channel count of `fn`'s result for these arguments (0: a grey image), learnt
        by specialising for the likely output rank (and compiling it, when `compile`: the
        launch that follows then finds it ready)."""
        sig = tuple(argument_kind(bound[n]) for n in self.args)
        n = self._channels.get(sig)
        if n is not None:
            return n
        with self._learning:
            return self._learn_channels(sig, bound, compile)

    def _learn_channels(self, sig: tuple[Any, ...], bound: dict[str, Any], compile: bool) -> int:
        """`result_channels`' miss path, under `_learning`."""
        n = self._channels.get(sig)
        if n is not None:  # another thread learnt it while this one waited
            return n
        self._noted = None
        probe = _probe(bound[self.images[0]].nch or 0, self.out_dtype(bound))
        args = self.kernel_values(bound, probe)
        if compile:
            self.kernel.specialise(self.kernel.bind(*args), registry.current())
        else:
            self.kernel.ir(*args)  # the front end alone
        if self._noted is None or self._noted < 0:
            raise CompileError(
                f"{self.__name__}() returns nothing: an image function returns the value "
                "of its pixel (a number, a simt.image.Color or a tuple of channels)",
                hint=f"end {self.__name__}() with `return ...`",
            )
        self._channels[sig] = self._noted
        return self._noted

    # inspection ------------------------------------------------------------------------------
    def _example(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """Bound arguments, with an 8 x 8 grey image and 0 standing in for those not given."""
        values: dict[str, Any] = dict(zip(self.args, args))
        values.update(kwargs)
        for n in self.args:
            if n not in values and n not in self.defaults:
                values[n] = np.zeros((8, 8), np.float32) if self.kinds[n] == IMAGE else 0.0
        return self.bind((), values)

    def _spec_values(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        bound = self._example(args, kwargs)
        n = self.result_channels(bound, compile=False)
        return self.kernel_values(
            bound, _probe(n, self.out_dtype(bound))
        )  # known parameters are not passed

    @user_facing
    def ir(self, *args: Any, **kwargs: Any) -> str:
        """The optimised IR of the per-pixel kernel (for a grey image unless images are
        given): the known values folded in, loops over known lists unrolled."""
        try:
            return self.kernel.ir(*self._spec_values(args, kwargs))
        except SimtError as e:
            raise e.with_traceback(None) from None

    @user_facing
    def resources(self, *args: Any, arch: str = "sm_90", **kwargs: Any) -> dict[str, int]:
        """What the CUDA build of the per-pixel kernel uses (see `Kernel.resources`); needs
        NVRTC, not a GPU."""
        try:
            return self.kernel.resources(*self._spec_values(args, kwargs), arch=arch)
        except SimtError as e:
            raise e.with_traceback(None) from None

    @user_facing
    def source(self, backend: str, *args: Any, **kwargs: Any) -> str:
        """The per-pixel kernel's source text for `backend` (see `Kernel.source`)."""
        try:
            return self.kernel.source(backend, *self._spec_values(args, kwargs))
        except SimtError as e:
            raise e.with_traceback(None) from None


def _image_arg(fname: str, name: str, v: Any, normalize: bool = False) -> Image:
    """An Image argument as an `Image` whose data is a float32 2-D or 3-D array, or with
    `normalize` a uint8 one left as it is (read as levels / 255 in the kernel)."""
    edge = "clamp"
    if isinstance(v, Image):
        edge, v = v.edge, v.data
        if edge not in EDGES:
            raise LaunchError(
                f"image {name!r} of {fname}() has edge={edge!r}; use one of {', '.join(EDGES)}"
            )
    kind = getattr(getattr(v, "dtype", None), "kind", "f")
    if kind not in "biuf":
        what = "complex" if kind == "c" else f"of dtype {v.dtype}"
        raise LaunchError(
            f"image {name!r} of {fname}() is {what}; images hold real numbers"
            + (
                ": pass abs(z), z.real or z.imag, or np.stack([z.real, z.imag], axis=-1) "
                "for a two-channel image"
                if kind == "c" else " (give a float32 or uint8 array)"
            )
        )
    unit = normalize and getattr(v, "dtype", None) == np.uint8
    if isinstance(v, DeviceArray):
        if v.dtype != np.float32 and not unit:
            raise LaunchError(
                f"image {name!r} of {fname}() is a {v.dtype} device array; images are float32"
            )
    elif isinstance(v, np.ndarray) or hasattr(v, "__array__"):
        v = np.asarray(v)
        if v.dtype != np.float32 and not unit:
            v = v.astype(np.float32)
    else:
        raise LaunchError(
            f"image {name!r} of {fname}() must be a NumPy array, a simt device array or a "
            f"simt.image.Image, got {type(v).__name__}"
        )
    if v.ndim not in (2, 3) or 0 in v.shape:
        raise LaunchError(
            f"image {name!r} of {fname}() has shape {v.shape}; an image is H x W (grey) or "
            "H x W x C (colour)"
        )
    return Image(v, edge, v.shape[2] if v.ndim == 3 else None, unit)


def argument_kind(v: Any) -> Any:
    """What about an argument decides the specialisation (and so the result's channels).
    Not where an image lives: NumPy and device arrays share one specialisation, so a device
    image after a NumPy one would find it compiled and `note_channels` never called."""
    if isinstance(v, Image):
        return ("image", v.data.ndim, v.nch, v.edge, v.unit)
    return type(v)


def _probe(channels: int, dtype: np.dtype[Any] = F32) -> np.ndarray:
    """A stand-in output array of the right rank, to specialise before allocating."""
    return np.empty((1, 1) if channels == 0 else (1, 1, channels), dtype)


def _output(like: Any, shape: tuple[int, ...], dtype: np.dtype[Any] = F32) -> Any:
    """A result array of `shape` and `dtype` where `like` lives (NumPy or the same device)."""
    if isinstance(like, DeviceArray):
        rt = like.runtime
        return DeviceArray(rt, rt.empty(shape, dtype), shape, dtype)
    return np.empty(shape, dtype)
