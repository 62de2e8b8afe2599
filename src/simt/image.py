"""Images, positions and colours for image kernels (PyGPU's image language).

    from simt.image import Float, Image, Position

    def scalar_mul(c=Float, im=Image, p=Position):
        return c * im(p)

    brighter = simt.compile(scalar_mul)(1.5, photo)   # every pixel in parallel

`simt.compile` turns a function with an `Image` and a `Position` parameter into a callable
over whole images (see `simt.imagefn`). Inside it, everything here is plain Python that the
front end inlines: an `Image` is a struct holding the pixel array and its edge mode, a
`Position` a struct of two ints, a `Color` a struct holding a tuple of channel values whose
length is known at compile time. The same classes work in ordinary Python on NumPy arrays,
which is what makes the semantics easy to check: `Image(a)(Position(3, 4))` is `a[4, 3]`.

Choices (docs/language.md, "Image kernels"):
- `im(p)` reads pixel `(p.x, p.y)` = `data[p.y, p.x]`; outside the image it clamps to the
  nearest edge pixel by default; `Image(a, edge="wrap")` wraps around (periodic), and
  `edge="zero"` reads zeros.
- a grey image is a 2-D array and `im(p)` a number; a colour image is H x W x C and `im(p)` a
  `Color` of C channels, with element-wise `+ - * /` (with colours or numbers), `dot`, `length`.
- `Float` is float32, the scalar type of image parameters (`c: Float` or `c=Float`).
"""

from __future__ import annotations

import math
from typing import Any

from .lang import float32

Float = float32
"""The scalar type of image functions: `def f(c: Float, im: Image, p: Position)`."""

EDGES = ("clamp", "wrap", "zero")


class Position:
    """A pixel position: `p.x` (column) and `p.y` (row); `p + (dx, dy)` and `p + q` move it."""

    def __init__(self, x: Any, y: Any) -> None:
        self.x = x
        self.y = y

    def __add__(self, d: Any) -> Position:
        if isinstance(d, Position):
            return Position(self.x + d.x, self.y + d.y)
        return Position(self.x + d[0], self.y + d[1])

    def __radd__(self, d: Any) -> Position:
        return self.__add__(d)

    def __sub__(self, d: Any) -> Position:
        if isinstance(d, Position):
            return Position(self.x - d.x, self.y - d.y)
        return Position(self.x - d[0], self.y - d[1])

    def __repr__(self) -> str:
        return f"Position({self.x}, {self.y})"


class Color:
    """A colour: a fixed number of channel values with element-wise arithmetic.

    `Color(r, g, b)`; `c[0]`, `len(c)`; `c + d`, `c * 0.5`, `2 * c`, `c / d`, `-c`;
    `dot(c, d)`, `length(c)`. A function may also return a tuple of channels.
    """

    def __init__(self, *v: Any) -> None:
        self.v = v

    def __len__(self) -> int:
        return len(self.v)

    def __getitem__(self, i: int) -> Any:
        return self.v[i]

    def __add__(self, o: Any) -> Color:
        if isinstance(o, Color):
            return Color(*[a + b for a, b in zip(self.v, o.v)])
        return Color(*[a + o for a in self.v])

    def __radd__(self, o: Any) -> Color:
        return Color(*[o + a for a in self.v])

    def __sub__(self, o: Any) -> Color:
        if isinstance(o, Color):
            return Color(*[a - b for a, b in zip(self.v, o.v)])
        return Color(*[a - o for a in self.v])

    def __rsub__(self, o: Any) -> Color:
        return Color(*[o - a for a in self.v])

    def __mul__(self, o: Any) -> Color:
        if isinstance(o, Color):
            return Color(*[a * b for a, b in zip(self.v, o.v)])
        return Color(*[a * o for a in self.v])

    def __rmul__(self, o: Any) -> Color:
        return Color(*[o * a for a in self.v])

    def __truediv__(self, o: Any) -> Color:
        if isinstance(o, Color):
            return Color(*[a / b for a, b in zip(self.v, o.v)])
        return Color(*[a / o for a in self.v])

    def __rtruediv__(self, o: Any) -> Color:
        return Color(*[o / a for a in self.v])

    def __neg__(self) -> Color:
        return Color(*[-a for a in self.v])

    def __repr__(self) -> str:
        return f"Color{self.v}"


def dot(a: Any, b: Any) -> Any:
    """The dot product of two colours (or tuples) of the same length."""
    return sum([x * y for x, y in zip(channels(a), channels(b))])


def length(c: Any) -> Any:
    """The Euclidean length of a colour: `sqrt(dot(c, c))`."""
    return math.sqrt(dot(c, c))


def channels(c: Any) -> Any:
    """The channel values of a colour, a tuple, or a number (one channel)."""
    if isinstance(c, Color):
        return c.v
    if isinstance(c, tuple):
        return c
    return (c,)


class Image:
    """An image to sample with `im(p)`: a 2-D grey array or an H x W x C colour array.

    `edge` says what `im(p)` reads outside the image: "clamp" (the nearest edge pixel, the
    default), "wrap" (periodic) or "zero". On the host, wrap an argument to pick its edge mode:
    `sobel(Image(photo, edge="wrap"))`. `nch` is the channel count of a colour image (known at
    compile time in kernels; simt fills it in).
    """

    def __init__(self, data: Any, edge: str = "clamp", nch: Any = None, unit: Any = False) -> None:
        self.data = data
        self.edge = edge
        self.nch = nch
        self.unit = unit  # read uint8 levels as values in [0, 1] (simt.compile(normalize=True))

    @property
    def width(self) -> Any:
        """Columns."""
        return self.data.shape[1]

    @property
    def height(self) -> Any:
        """Rows."""
        return self.data.shape[0]

    @property
    def channels(self) -> int:
        """1 for a grey image, C for an H x W x C colour image."""
        if self.data.ndim == 2:
            return 1
        if self.nch is not None:
            return self.nch  # type: ignore[no-any-return]
        return self.data.shape[2]  # type: ignore[no-any-return]

    def _at(self, y: Any, x: Any, k: Any = None) -> Any:
        """One stored value (channel `k` of a colour image), as a number in [0, 1] when the
        image is read normalised (uint8 levels / 255, in the kernel)."""
        if k is None:
            v = self.data[y, x]
        else:
            v = self.data[y, x, k]
        if self.unit:
            return v / 255.0
        return v

    def __call__(self, p: Position) -> Any:
        w = self.data.shape[1]
        h = self.data.shape[0]
        if self.edge == "wrap":
            x = p.x % w
            y = p.y % h
        else:
            x = min(max(p.x, 0), w - 1)
            y = min(max(p.y, 0), h - 1)
        if self.data.ndim == 2:
            if self.edge == "zero":
                return self._at(y, x) if 0 <= p.x < w and 0 <= p.y < h else 0.0
            return self._at(y, x)
        if self.edge == "zero":
            inside = 0 <= p.x < w and 0 <= p.y < h
            return Color(*[self._at(y, x, k) if inside else 0.0 for k in range(self.channels)])
        return Color(*[self._at(y, x, k) for k in range(self.channels)])

    def __repr__(self) -> str:
        shape = getattr(self.data, "shape", "?")
        return f"Image(shape={shape}, edge={self.edge!r})"


__all__ = ["EDGES", "Color", "Float", "Image", "Position", "channels", "dot", "length"]
