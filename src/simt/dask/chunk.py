"""An image function run on one chunk of a larger image (no dask here: plain simt).

A chunk arrives with a halo around it (dask's `map_overlap` adds it, filled from the
neighbouring chunks inside the image and by the image's edge mode outside it). The wrapper
kernel generated here differs from the whole-image one (`simt.imagefn`) in three ways, so that
the pixel's value is computed by exactly the same float operations as in a whole-image call:

- `Position` is the pixel's position in the whole image (the chunk's origin is an argument);
- each image is a `ChunkImage`: `im(p)` reads the halo-padded chunk at `p` minus its origin;
  the edge mode was already applied by dask when it filled the halo;
- `im.width` / `im.height` are the whole image's, not the chunk's.

Only the pixels of the chunk itself are computed (not the halo), into an array of the chunk's
size.
"""

from __future__ import annotations

import hashlib
import linecache
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import lang
from ..image import Color, Position
from ..imagefn import IMAGE, POSITION, ImageFunction, _store
from ..runtime import registry


class ChunkImage:
    """An image as seen from one chunk: the halo-padded chunk, where it starts in the whole
    image (`x0`, `y0`, may be negative), and the whole image's size. Inlined by the front end
    like `simt.image.Image`; reads past the padded chunk are clamped to it (the halo is chosen
    so that they never happen)."""

    def __init__(
        self, chunk: Any, edge: Any, nch: Any, x0: Any, y0: Any, w: Any, h: Any
    ) -> None:  # fmt: skip
        self._chunk = chunk
        self.edge = edge
        self.nch = nch
        self.x0 = x0
        self.y0 = y0
        self.w = w
        self.h = h

    @property
    def width(self) -> Any:
        """Columns of the whole image."""
        return self.w

    @property
    def height(self) -> Any:
        """Rows of the whole image."""
        return self.h

    @property
    def channels(self) -> Any:
        """1 for a grey image, C for an H x W x C colour image."""
        if self._chunk.ndim == 2:
            return 1
        return self.nch

    def __call__(self, p: Position) -> Any:
        cw = self._chunk.shape[1]
        ch = self._chunk.shape[0]
        x = min(max(p.x - self.x0, 0), cw - 1)
        y = min(max(p.y - self.y0, 0), ch - 1)
        if self._chunk.ndim == 2:
            return self._chunk[y, x]
        return Color(*[self._chunk[y, x, k] for k in range(self.nch)])


_WRAPPER = """\
def {name}(_simt_out, {params}):
    _simt_x, _simt_y = _simt_grid(2)
    if _simt_y < _simt_out.shape[0] and _simt_x < _simt_out.shape[1]:
        _simt_v = _simt_f({call})
        _simt_store(_simt_out, _simt_x, _simt_y, _simt_v, _simt_note)
"""

_GEOMETRY = ("_simt_px", "_simt_py", "_simt_w", "_simt_h")


class ChunkImageFunction(ImageFunction):
    """`ImageFunction` for chunks: `run(values, origin, size, out_shape)` computes one chunk.

    `halos` gives, per image parameter, the (rows, columns) of halo its chunks arrive with.
    """

    def __init__(
        self, fn: Callable[..., Any], known: dict[str, Any], halos: dict[str, tuple[int, int]],
        fp64: bool = False, debug: bool | None = None,
    ) -> None:  # fmt: skip
        self.halos = halos
        super().__init__(fn, known, fp64=fp64, debug=debug)

    def _statics(self) -> list[str]:
        return [f"_simt_{n}_{what}" for n in self.images for what in ("edge", "nch", "hy", "hx")]

    def _wrapper(self) -> Callable[..., Any]:
        params = [n for n in self.kinds if self.kinds[n] != POSITION]
        call = []
        for n, k in self.kinds.items():
            if k == POSITION:
                call.append("_simt_Position(_simt_x + _simt_px, _simt_y + _simt_py)")
            elif k == IMAGE:
                call.append(
                    f"_simt_ChunkImage({n}, _simt_{n}_edge, _simt_{n}_nch, _simt_px - _simt_{n}_hx,"
                    f" _simt_py - _simt_{n}_hy, _simt_w, _simt_h)"
                )
            else:
                call.append(n)
        text = _WRAPPER.format(
            name=self.__name__,
            params=", ".join(params + self._statics() + list(_GEOMETRY)),
            call=", ".join(call),
        )
        digest = hashlib.sha1(text.encode()).hexdigest()[:10]
        filename = f"<simt chunk kernel {self.__name__} {digest}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        env: dict[str, Any] = {
            "_simt_grid": lang.grid, "_simt_f": self.fn, "_simt_store": _store,
            "_simt_note": self._note, "_simt_ChunkImage": ChunkImage,
            "_simt_Position": Position,
        }  # fmt: skip
        exec(compile(text, filename, "exec"), env)  # noqa: S102 - our own generated source
        return env[self.__name__]  # type: ignore[no-any-return]

    def _values(self, bound: dict[str, Any], out: Any) -> list[Any]:
        vals = [out, *(bound[n] if self.kinds[n] != IMAGE else bound[n].data for n in self.args)]
        for n in self.images:
            hy, hx = self.halos.get(n, (0, 0))
            vals += [bound[n].edge, bound[n].nch, hy, hx]
        geometry = bound.get("_simt_geometry", (0, 0, 1, 1))
        return vals + [np.int32(g) for g in geometry]

    def run(
        self, values: dict[str, Any], origin: tuple[int, int], size: tuple[int, int],
        shape: tuple[int, int],
    ) -> np.ndarray:  # fmt: skip
        """One chunk of the result: `values` by parameter name (chunks with their halo as
        NumPy arrays or `simt.image.Image`s), the chunk's `origin` (row, column) in the whole
        image, the whole image's `size` (rows, columns), the chunk's `shape` (rows, columns)."""
        bound = self._bind((), values)
        bound["_simt_geometry"] = (origin[1], origin[0], size[1], size[0])
        n = self._result_channels(bound, compile=True)
        out = np.empty(shape if n == 0 else (*shape, n), np.float32)
        block = registry.current().image_block
        grid = (-(-shape[1] // block[0]), -(-shape[0] // block[1]))
        self.kernel.config(grid, block)(*self._values(bound, out))
        return out
