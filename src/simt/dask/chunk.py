"""An image function run on part of a larger image (no dask here: plain simt).

The wrapper kernel generated here differs from the whole-image one (`simt.imagefn`) so that
each pixel is computed by exactly the same float operations as in a whole-image call:

- `Position` is the pixel's position in the whole image (the rectangle's origin is an
  argument);
- each image is a `ChunkImage`: an array holding some part of the whole image (a chunk, or a
  chunk with its halo), with the whole-image position of its first element; `im(p)` reads it at
  `p` minus that position. Past the image's border the halo already holds what the edge mode
  reads there (`simt.dask.images` made it so);
- `im.width` / `im.height` are the whole image's, not the part's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..image import Color, Position
from ..imagefn import IMAGE, POSITION, ImageFunction
from ..runtime import registry


class ChunkImage:
    """An image as seen from one chunk: the halo-padded chunk, where it starts in the whole
    image (`x0`, `y0`, may be negative), and the whole image's size. Inlined by the front end
    like `simt.image.Image`; reads past the padded chunk are clamped to it (the halo is chosen
    so that they never happen). `unit`: uint8 levels read as level / 255 (normalize=True),
    the same operation as `simt.image.Image`'s, so chunks and whole images agree bit for bit."""

    def __init__(
        self, chunk: Any, edge: Any, nch: Any, x0: Any, y0: Any, w: Any, h: Any,
        unit: Any = False,
    ) -> None:  # fmt: skip
        self._chunk = chunk
        self.unit = unit
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
            return self._level(self._chunk[y, x])
        return Color(*[self._level(self._chunk[y, x, k]) for k in range(self.nch)])

    def _level(self, v: Any) -> Any:
        if self.unit:
            return v / 255.0
        return v


_GEOMETRY = ("_simt_px", "_simt_py", "_simt_w", "_simt_h")


class ChunkImageFunction(ImageFunction):
    """`ImageFunction` for chunks: `run(values, origin, size, shape, starts)` computes one
    rectangle of the result from arrays that cover what it reads."""

    def wrapper(self) -> Callable[..., Any]:
        params = [n for n in self.kinds if self.kinds[n] != POSITION]
        starts = [f"_simt_{n}_{c}" for n in self.images for c in ("x0", "y0")]
        call = []
        for n, k in self.kinds.items():
            if k == POSITION:
                call.append("_simt_Position(_simt_x + _simt_px, _simt_y + _simt_py)")
            elif k == IMAGE:
                call.append(
                    f"_simt_ChunkImage({n}, _simt_{n}_edge, _simt_{n}_nch, _simt_{n}_x0, "
                    f"_simt_{n}_y0, _simt_w, _simt_h, _simt_{n}_unit)"
                )
            else:
                call.append(n)
        return self.generated_kernel(
            params + self.static_names() + starts + list(_GEOMETRY),
            call,
            {"_simt_ChunkImage": ChunkImage},
            "chunk kernel",
        )

    def kernel_values(self, bound: dict[str, Any], out: Any) -> list[Any]:
        vals = super().kernel_values(bound, out)  # the images' data, then their edge and nch
        starts = bound.get("_simt_starts", {})
        for n in self.images:
            y0, x0 = starts.get(n, (0, 0))
            vals += [np.int32(x0), np.int32(y0)]
        geometry = bound.get("_simt_geometry", (0, 0, 1, 1))
        return vals + [np.int32(g) for g in geometry]

    def channels(self, values: dict[str, Any]) -> int:
        """The result's channel count for these arguments (0: grey)."""
        return self.result_channels(self.bind((), values))

    def run(
        self, values: dict[str, Any], origin: tuple[int, int], size: tuple[int, int],
        shape: tuple[int, int], starts: dict[str, tuple[int, int]], out: Any = None,
    ) -> np.ndarray:  # fmt: skip
        """The rectangle of the result at `origin` (row, column in the whole image) of `shape`
        (rows, columns): `values` by parameter name (images as NumPy arrays or
        `simt.image.Image`s holding a part of the whole image), `starts[name]` the whole-image
        position (row, column) of each image array's first element, `size` the whole image's
        (rows, columns). `out=`: a float32 array (or view) of the rectangle to write into."""
        bound = self.bind((), values)
        bound["_simt_geometry"] = (origin[1], origin[0], size[1], size[0])
        bound["_simt_starts"] = starts
        n = self.result_channels(bound)
        if out is None:
            out = np.empty(shape if n == 0 else (*shape, n), self.out_dtype(bound))
        block = registry.current().image_block
        grid = (-(-shape[1] // block[0]), -(-shape[0] // block[1]))
        self.kernel.config(grid, block)(*self.kernel_values(bound, out))
        return out  # type: ignore[no-any-return]
