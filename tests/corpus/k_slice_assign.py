"""Slice assignment of sequences of known length (the per-thread idiom of the REPL idea's
Figure 6, `outbuf[3 * t : 3 * t + 3] = [r, g, b]`): a run-time slice of a flat RGB buffer, a
row of a 2-D array given a tuple, a reversed slice of a row, and a 2-D block of a local array
given nested lists, then copied out."""

import numpy as np

import simt

from . import EXACT, Case, close, rng, uniform


@simt.kernel
def rgb_pixels(level, outbuf):
    t = simt.grid(1)
    if t < len(level):
        v = level[t]
        outbuf[3 * t : 3 * t + 3] = [v, v * 0.5, 1.0 - v]


@simt.kernel
def rows_and_reversed(out):
    t = simt.grid(1)
    if t < out.shape[0]:
        out[t] = (t, 2 * t, 3 * t, -1)
        out[t, ::-1][1:3] = [100 + t, 200]


@simt.kernel
def local_block(out):
    t = simt.grid(1)
    if t < out.shape[0]:
        m = simt.local.array((3, 2), simt.int32)
        m[:, :] = [[t, 1], [2, t], [t + 1, t + 2]]
        m[1:] = [(5, 6), (7, 8)]
        for i in range(3):
            out[t, i] = m[i, 0] * 10 + m[i, 1]


def _make_rgb():
    return uniform(rng(71), (257,)), np.zeros(3 * 257, np.float32)


def _ref_rgb(level, outbuf):
    v = level.astype(np.float64)
    return {1: np.stack([v, v * 0.5, 1.0 - v], axis=1).reshape(-1).astype(np.float32)}


def _make_rows():
    return (np.zeros((37, 4), np.int32),)


def _ref_rows(out):
    t = np.arange(37)
    r = np.stack([t, 2 * t, 3 * t, -np.ones_like(t)], axis=1)
    r[:, 2] = 100 + t  # out[t, ::-1][1:3] is out[t, 2], out[t, 1]
    r[:, 1] = 200
    return {0: r.astype(np.int32)}


def _make_local():
    return (np.zeros((33, 3), np.int32),)


def _ref_local(out):
    t = np.arange(33)
    r = np.stack([t * 10 + 1, np.full_like(t, 56), np.full_like(t, 78)], axis=1)
    return {0: r.astype(np.int32)}


CASES = [
    Case("slice_assign_rgb", rgb_pixels, _make_rgb, 3, 128, _ref_rgb, tol=close(1e-6, 1e-6),
         strided="each thread writes a run of 3 or 4 elements"),
    Case("slice_assign_rows", rows_and_reversed, _make_rows, 2, 32, _ref_rows, tol=EXACT,
         strided="each thread writes a run of 3 or 4 elements"),
    Case("slice_assign_local", local_block, _make_local, 2, 32, _ref_local, tol=EXACT,
         strided="each thread writes a run of 3 or 4 elements"),
]
