"""Complex numbers: complex64/complex128 arrays, complex(a, b), .real, .imag, abs, conjugate,
+ - * /, ** with an integer, cmath.exp/log/sqrt/phase, a complex constant, and `z = z * z + c`
(Mandelbrot as Python users write it) carried through a run-time loop."""

import cmath

import numpy as np

import simt

from . import Case, close, rng


@simt.kernel
def complex_ops(a, b, out, r):
    i = simt.grid(1)
    if i < len(a):
        z = a[i]
        w = b[i]
        out[i, 0] = z + w * 2.0
        out[i, 1] = z * w - 1.5
        out[i, 2] = z / w + 1.0 / w
        out[i, 3] = z.conjugate() * 1j + z**3 - w**-2
        out[i, 4] = cmath.exp(z) + cmath.log(w) + cmath.sqrt(z)
        out[i, 5] = complex(cmath.phase(z), abs(w)) - complex(z.real, z.imag * 2.0)
        out[i, 6] += (0.5 - 2j) * z
        r[i] = abs(z) + z.imag - w.real


@simt.kernel
def mandelbrot_complex(out, x0, y0, dx, dy, iters):
    px, py = simt.grid(2)
    h, w = out.shape
    if py < h and px < w:
        c = complex(x0 + px * dx, y0 + py * dy)
        z = 0j
        n = 0
        while n < iters and abs(z) < 2.0:
            z = z * z + c
            n += 1
        out[py, px] = n


@simt.kernel
def complex_axpy(a, out, c, k):
    i = simt.grid(1)
    if i < len(a):
        out[i] = a[i] * c + k * c.conjugate()  # c: a complex scalar argument, run-time


N = 200
H, W = 40, 56


def _make_ops(dtype):  # type: ignore[no-untyped-def]
    def make():  # type: ignore[no-untyped-def]
        g = rng(51)
        a = (g.standard_normal(N) + 1j * g.standard_normal(N)).astype(dtype)
        b = (g.uniform(0.5, 2, N) * np.exp(1j * g.uniform(-3, 3, N))).astype(dtype)
        out = (g.standard_normal((N, 7)) + 0j).astype(dtype)
        rt = np.float32 if dtype == np.complex64 else np.float64
        return a, b, out, np.zeros(N, rt)

    return make


def _ref_ops(a, b, out, r):  # type: ignore[no-untyped-def]
    a, b = a.astype(np.complex128), b.astype(np.complex128)
    ref = np.stack([
        a + b * 2, a * b - 1.5, a / b + 1 / b, np.conj(a) * 1j + a**3 - b**-2.0,
        np.exp(a) + np.log(b) + np.sqrt(a),
        np.angle(a) + 1j * np.abs(b) - (a.real + 2j * a.imag),
        out[:, 6].astype(np.complex128) + (0.5 - 2j) * a,
    ], 1)  # fmt: skip
    return {2: ref.astype(out.dtype), 3: (np.abs(a) + a.imag - b.real).astype(r.dtype)}


def _make_mandel():  # type: ignore[no-untyped-def]
    return np.zeros((H, W), np.int32), -2.2, -1.2, 3.2 / W, 2.4 / H, 60


def _ref_mandel(out, x0, y0, dx, dy, iters):  # type: ignore[no-untyped-def]
    px = np.arange(W, dtype=np.float32)
    py = np.arange(H, dtype=np.float32)
    cr = (np.float32(x0) + px * np.float32(dx))[None, :] * np.ones((H, 1), np.float32)
    ci = (np.float32(y0) + py * np.float32(dy))[:, None] * np.ones((1, W), np.float32)
    zr = np.zeros((H, W), np.float32)
    zi = np.zeros((H, W), np.float32)
    n = np.zeros((H, W), np.int32)
    act = np.ones((H, W), bool)
    for _ in range(iters):
        act &= np.hypot(zr, zi) < 2
        zr, zi = (np.where(act, zr * zr - zi * zi + cr, zr),
                  np.where(act, zr * zi + zi * zr + ci, zi))  # fmt: skip
        n += act
    return {0: n}


def _near_mandel(before, after):  # type: ignore[no-untyped-def]
    ref = _ref_mandel(*before)[0]
    bad = int((after[0] != ref).sum())  # float32 rounding differs at a few boundary pixels
    return None if bad <= 3 else f"{bad} pixels differ from the float32 reference"


def _make_axpy():  # type: ignore[no-untyped-def]
    g = rng(52)
    a = (g.standard_normal(N) + 1j * g.standard_normal(N)).astype(np.complex64)
    return a, np.zeros(N, np.complex64), np.complex64(0.75 - 1.25j), 2.0


def _ref_axpy(a, out, c, k):  # type: ignore[no-untyped-def]
    c = complex(c)
    return {1: (a.astype(np.complex128) * c + k * c.conjugate()).astype(np.complex64)}


CASES = [
    Case("complex64_ops", complex_ops, _make_ops(np.complex64), 1, 256, _ref_ops,
         tol=close(2e-5, 2e-5), strided="a complex element is two interleaved floats"),
    Case("complex128_ops", complex_ops, _make_ops(np.complex128), 1, 256, _ref_ops,
         tol=close(1e-12, 1e-12), features=frozenset({"fp64"})),
    Case("complex_scalar_arg", complex_axpy, _make_axpy, 1, 256, _ref_axpy,
         tol=close(2e-6, 2e-6)),
    Case("mandelbrot_complex", mandelbrot_complex, _make_mandel, (4, 3), (16, 16),
         verify=_near_mandel),
]  # fmt: skip
