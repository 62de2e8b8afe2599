"""simt.turtle: the turtle API drawing into a PNG without a display, one turtle per thread."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import simt
from simt.turtle import Canvas, Turtle, grid, rgb


def decode(png: bytes) -> np.ndarray:
    """The (h, w, 3) pixels of an unfiltered 8-bit RGB PNG (what simt.turtle writes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", (0, 0)
    while pos < len(png):
        (n,) = struct.unpack(">I", png[pos : pos + 4])
        kind, data = png[pos + 4 : pos + 8], png[pos + 8 : pos + 8 + n]
        (crc,) = struct.unpack(">I", png[pos + 8 + n : pos + 12 + n])
        assert crc == zlib.crc32(kind + data)
        if kind == b"IHDR":
            size = struct.unpack(">II", data[:8])
            assert data[8:10] == b"\x08\x02"  # 8-bit RGB
        elif kind == b"IDAT":
            idat += data
        pos += 12 + n
    w, h = size
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + 3 * w)
    assert not raw[:, 0].any()  # filter 0 on every row
    return raw[:, 1:].reshape(h, w, 3)


def ink(t: Turtle | Canvas) -> np.ndarray:
    """Where the drawing is not white (row, column)."""
    img = decode(t._repr_png_())
    return np.argwhere((img != 255).any(axis=2))


def test_forward_draws_east_from_the_middle_and_left_turns_upwards(tmp_path: Path) -> None:
    t = Turtle(size=100)
    t.forward(30)
    t.left(90)
    t.forward(20)
    img = decode(t.save(tmp_path / "t.png").read_bytes())
    assert (img[50, 50:80] == 0).all()  # the first leg: row 50 (y = 0), x from 0 to 30
    assert (img[30:50, 80] == 0).all()  # the second: upwards (y grows, rows shrink)
    assert (img[80:, :] == 255).all()  # nothing below
    assert np.allclose(t.position(), [[30, 20]]) and t.heading()[0] == 90


def test_penup_moves_without_drawing_and_colours_apply() -> None:
    t = Turtle(size=60)
    t.penup()
    t.goto(-20, 10)
    assert len(ink(t)) == 0
    t.pendown()
    t.pencolor("red")
    t.fd(10)
    img = decode(t._repr_png_())
    assert tuple(img[20, 15]) == (255, 0, 0)


def test_the_standard_aliases_work() -> None:
    t = Turtle(size=60)
    t.up()
    assert not t.isdown()
    t.setpos(-20, 10)
    t.down()
    t.color("blue")
    t.width(3)
    t.fd(10)
    t.seth(270)
    t.bk(5)
    assert tuple(decode(t._repr_png_())[20, 15]) == (0, 0, 255)
    assert np.allclose(t.pos(), [[-10, 15]])


def test_one_turtle_per_thread_follows_its_own_kernel_results() -> None:
    @simt.kernel
    def turns(out):
        i = simt.grid(1)
        if i < len(out):
            out[i] = 90.0 * i

    angles = simt.zeros(4, np.float32)
    turns[1, 32](angles)
    t = Turtle(4, size=100)
    t.left(angles)  # a device array: one angle per turtle
    t.forward(np.array([10.0, 20.0, 30.0, 40.0]))
    assert np.allclose(t.position(), [[10, 0], [0, 20], [-30, 0], [0, -40]], atol=1e-9)
    pts = {tuple(p) for p in ink(t)}
    assert (50, 60) in pts and (30, 50) in pts and (50, 20) in pts and (90, 50) in pts


def test_circle_comes_back_and_bulges_to_the_left() -> None:
    t = Turtle(size=200)
    t.circle(40)
    assert np.allclose(t.position(), [[0, 0]], atol=1e-6)
    rows = ink(t)[:, 0]
    assert rows.min() == pytest.approx(100 - 80, abs=1) and rows.max() == pytest.approx(100, abs=1)


def test_grid_colours_from_smallest_to_largest() -> None:
    img = decode(grid(np.array([[0.0, 1.0], [2.0, 3.0]]), cell=4).png())
    assert img.shape == (8, 8, 3)
    assert tuple(img[0, 0]) == rgb("navy") and tuple(img[7, 7]) == rgb("yellow")


def test_bad_arguments_say_what_to_give() -> None:
    with pytest.raises(simt.LaunchError, match="bad colour 'nosuch'"):
        rgb("nosuch")
    t = Turtle(3)
    with pytest.raises(simt.LaunchError, match=r"one per turtle \(shape \(3,\)\)"):
        t.forward(np.ones(5))
    with pytest.raises(simt.LaunchError, match="2 colours for 3 turtles"):
        t.pencolor(["red", "blue"])
