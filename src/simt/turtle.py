"""Turtle drawings of kernel results, without a display: the standard `turtle` module's API
(`forward`, `left`, `penup`, `goto`, `pencolor`, `dot`, `circle`, ...) drawing into an image
that is saved as PNG or shown inline in Jupyter.

One `Turtle` may stand for many: `Turtle(n)` is n turtles moving together, and every argument
may be a number (the same for all) or an array of n numbers — one per thread, typically what a
kernel computed. Each thread's path is then drawn as the standard module would draw one
turtle's:

    steps = simt.zeros(...)                  # a kernel fills one turn angle per thread and step
    t = simt.turtle.Turtle(len(angles))      # one turtle per thread
    for k in range(steps):
        t.left(angles[:, k]); t.forward(5)
    t.save("paths.png")                      # or leave `t` last in a Jupyter cell

`grid(values)` draws a 2-D array of results as coloured squares, as a turtle stamping one
square per element would. Coordinates are turtle's: the origin in the middle, y upwards,
heading 0 to the east, angles in degrees, `left` counter-clockwise; colours are names, "#rrggbb"
or (r, g, b) in 0..1 (turtle's default colour mode).

Written in the manner of the standard library's `turtle` (same method names and defaults, the
aliases `fd`, `bk`, `lt`, `rt`, `pu`, `pd`, `width`, `seth`, `setpos`), with its own small
rasteriser (round pens stamped along each segment) and PNG writer (zlib), so it needs neither
Tk nor Pillow.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from .errors import LaunchError

COLORS = {
    "black": (0, 0, 0), "white": (255, 255, 255), "red": (255, 0, 0), "green": (0, 128, 0),
    "blue": (0, 0, 255), "yellow": (255, 255, 0), "orange": (255, 165, 0),
    "purple": (160, 32, 240), "cyan": (0, 255, 255), "magenta": (255, 0, 255),
    "gray": (190, 190, 190), "grey": (190, 190, 190), "brown": (165, 42, 42),
    "pink": (255, 192, 203), "navy": (0, 0, 128), "darkgreen": (0, 100, 0),
}  # fmt: skip


def rgb(color: Any) -> tuple[int, int, int]:
    """A colour as 0..255 RGB: a name, "#rrggbb", or (r, g, b) with parts in 0..1."""
    if isinstance(color, str):
        c = color.strip().lower()
        if c in COLORS:
            return COLORS[c]
        if c.startswith("#") and len(c) == 7:
            try:
                return (int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16))
            except ValueError:
                pass
    elif isinstance(color, (tuple, list)) and len(color) == 3:
        parts = [float(x) for x in color]
        if all(0.0 <= x <= 1.0 for x in parts):
            r, g, b = (round(x * 255) for x in parts)
            return (r, g, b)
    names = ", ".join(sorted(COLORS))
    raise LaunchError(
        f"bad colour {color!r}: use a name ({names}), '#rrggbb' or (r, g, b) with each part in 0..1"
    )


def png_bytes(image: np.ndarray) -> bytes:
    """An (h, w, 3) uint8 image as the bytes of a PNG file (8-bit RGB, no filtering)."""
    h, w, _ = image.shape
    raw = np.concatenate([np.zeros((h, 1), np.uint8), image.reshape(h, w * 3)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    head = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head)
        + chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + chunk(b"IEND", b"")
    )  # fmt: skip


class Canvas:
    """An image of `width` x `height` pixels with turtle coordinates (origin in the middle)."""

    def __init__(self, width: int = 400, height: int = 400, bgcolor: Any = "white") -> None:
        if width <= 0 or height <= 0:
            raise LaunchError(f"a canvas needs a positive width and height, got {width}x{height}")
        self.width, self.height = int(width), int(height)
        self.image = np.empty((self.height, self.width, 3), np.uint8)
        self.image[:] = rgb(bgcolor)

    def _stamp(self, xs: np.ndarray, ys: np.ndarray, radius: float, color: np.ndarray) -> None:
        """Round pens of `radius` pixels at turtle points (xs, ys), in `color` ((n, 3) or (3,))."""
        px = xs + self.width / 2
        py = self.height / 2 - ys
        r = max(radius, 0.5)
        k = int(math.ceil(r))
        offsets = [(dx, dy) for dy in range(-k, k + 1) for dx in range(-k, k + 1)
                   if dx * dx + dy * dy <= r * r + 0.25]  # fmt: skip
        cx, cy = np.rint(px).astype(np.int64), np.rint(py).astype(np.int64)
        colors = np.broadcast_to(color, (len(px), 3))
        for dx, dy in offsets:
            x, y = cx + dx, cy + dy
            inside = (x >= 0) & (x < self.width) & (y >= 0) & (y < self.height)
            self.image[y[inside], x[inside]] = colors[inside]

    def segments(
        self, x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray, width: float,
        color: np.ndarray,
    ) -> None:
        """Lines from (x0, y0) to (x1, y1), one per element, drawn with a round pen."""
        length = np.hypot(x1 - x0, y1 - y0)
        steps = int(min(max(np.ceil(length.max(initial=0.0) * 2), 1), 100_000))
        for s in range(steps + 1):
            f = s / steps
            self._stamp(x0 + (x1 - x0) * f, y0 + (y1 - y0) * f, width / 2, color)

    def png(self) -> bytes:
        return png_bytes(self.image)

    def save(self, path: str | Path) -> Path:
        """Write the drawing as a PNG file; returns its path."""
        p = Path(path)
        p.write_bytes(self.png())
        return p

    def _repr_png_(self) -> bytes:  # Jupyter shows the drawing inline
        return self.png()


class Turtle:
    """`n` turtles that move together, with the standard `turtle.Turtle` methods; each
    argument is a number or an array of `n` numbers (one per turtle, e.g. per thread)."""

    def __init__(self, n: int = 1, canvas: Canvas | None = None, *, size: int = 400) -> None:
        if n <= 0:
            raise LaunchError(f"Turtle(n) needs at least one turtle, got n = {n}")
        self.n = int(n)
        self.canvas = canvas if canvas is not None else Canvas(size, size)
        self.x = np.zeros(self.n)
        self.y = np.zeros(self.n)
        self.angle = np.zeros(self.n)  # degrees, 0 = east, counter-clockwise
        self.drawing = True
        self.width_ = 1.0
        self.pen_rgb = np.array(rgb("black"), np.uint8)

    # ---- the arguments: one number, or one per turtle ------------------------------------
    def _each(self, v: Any, what: str) -> np.ndarray:
        a = np.asarray(v.numpy() if hasattr(v, "numpy") else v, dtype=np.float64)
        if a.ndim == 0:
            return np.full(self.n, float(a))
        if a.shape != (self.n,):
            raise LaunchError(
                f"{what} got an array of shape {a.shape} for {self.n} turtles: give one number, "
                f"or one per turtle (shape ({self.n},))"
            )
        return a

    # ---- motion -----------------------------------------------------------------------------
    def forward(self, distance: Any) -> None:
        d = self._each(distance, "forward")
        rad = np.radians(self.angle)
        self._move_to(self.x + d * np.cos(rad), self.y + d * np.sin(rad))

    def backward(self, distance: Any) -> None:
        self.forward(-self._each(distance, "backward"))

    def left(self, angle: Any) -> None:
        self.angle = (self.angle + self._each(angle, "left")) % 360.0

    def right(self, angle: Any) -> None:
        self.left(-self._each(angle, "right"))

    def goto(self, x: Any, y: Any = None) -> None:
        if y is None:  # goto((x, y)) as in turtle; for n turtles x may be an (n, 2) array
            pair = np.asarray(x, dtype=np.float64)
            x, y = (pair[0], pair[1]) if pair.ndim == 1 else (pair[:, 0], pair[:, 1])
        self._move_to(self._each(x, "goto"), self._each(y, "goto"))

    def setheading(self, angle: Any) -> None:
        self.angle = self._each(angle, "setheading") % 360.0

    def home(self) -> None:
        self.goto(0.0, 0.0)
        self.setheading(0.0)

    def circle(self, radius: Any, extent: Any = 360.0, steps: int | None = None) -> None:
        """An arc as turtle draws it: the centre `radius` units to the left (right when
        negative), `extent` degrees, approximated by `steps` straight segments."""
        r = self._each(radius, "circle")
        ext = self._each(extent, "circle")
        if steps is None:
            steps = int(min(max(4, np.abs(r).max() * np.abs(ext).max() / 360 * 2), 360))
        w = ext / steps
        side = 2.0 * r * np.sin(np.radians(w) / 2.0)
        self.left(w / 2.0)
        for _ in range(steps):
            self.forward(side)
            self.left(w)
        self.left(-w / 2.0)

    def _move_to(self, x: np.ndarray, y: np.ndarray) -> None:
        if self.drawing:
            self.canvas.segments(self.x, self.y, x, y, self.width_, self.pen_rgb)
        self.x, self.y = x, y

    # ---- the pen ----------------------------------------------------------------------------
    def penup(self) -> None:
        self.drawing = False

    def pendown(self) -> None:
        self.drawing = True

    def isdown(self) -> bool:
        return self.drawing

    def pensize(self, width: float) -> None:
        if width <= 0:
            raise LaunchError(f"pensize must be positive, got {width}")
        self.width_ = float(width)

    def pencolor(self, color: Any) -> None:
        """One colour for all turtles, or a list/array of one colour per turtle."""
        per_turtle = isinstance(color, (list, np.ndarray)) and all(
            isinstance(c, (str, tuple, list, np.ndarray)) for c in color
        )
        if per_turtle:
            if len(color) != self.n:
                raise LaunchError(
                    f"pencolor got {len(color)} colours for {self.n} turtles: give one colour, "
                    f"or one per turtle"
                )
            self.pen_rgb = np.array([rgb(tuple(c) if not isinstance(c, str) else c)
                                   for c in color], np.uint8)  # fmt: skip
        else:
            self.pen_rgb = np.array(rgb(color), np.uint8)

    def dot(self, size: float | None = None, color: Any = None) -> None:
        d = size if size is not None else max(self.width_ + 4, 2 * self.width_)
        c = self.pen_rgb if color is None else np.array(rgb(color), np.uint8)
        self.canvas._stamp(self.x, self.y, d / 2, c)

    # ---- state, output ------------------------------------------------------------------------
    def position(self) -> np.ndarray:
        """(n, 2) positions (x, y), one row per turtle."""
        return np.stack([self.x, self.y], axis=1)

    def heading(self) -> np.ndarray:
        return self.angle.copy()

    def save(self, path: str | Path) -> Path:
        return self.canvas.save(path)

    def _repr_png_(self) -> bytes:
        return self.canvas.png()

    fd, bk, lt, rt = forward, backward, left, right
    setpos = setposition = goto
    seth = setheading
    pu, up, pd, down = penup, penup, pendown, pendown
    width = pensize
    color = pencolor
    pos = position


def grid(values: Any, cell: int = 12, cmap: tuple[Any, Any] = ("navy", "yellow")) -> Canvas:
    """A 2-D array of results (NumPy or a simt device array) as a grid of squares, coloured
    from `cmap[0]` (the smallest value) to `cmap[1]` (the largest); row 0 at the top."""
    a = np.asarray(values.numpy() if hasattr(values, "numpy") else values, dtype=np.float64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.size == 0:
        raise LaunchError(f"grid() draws a 1-D or 2-D array, got shape {a.shape}")
    lo, hi = np.nanmin(a), np.nanmax(a)
    t = np.zeros_like(a) if hi == lo else (a - lo) / (hi - lo)
    t = np.nan_to_num(t)
    c0, c1 = (np.array(rgb(c), np.float64) for c in cmap)
    colors = (c0 + (c1 - c0) * t[..., None]).round().astype(np.uint8)
    canvas = Canvas(a.shape[1] * cell, a.shape[0] * cell)
    canvas.image[:] = np.repeat(np.repeat(colors, cell, axis=0), cell, axis=1)
    return canvas
