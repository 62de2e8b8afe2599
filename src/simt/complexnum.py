"""Complex numbers in kernels: a plain Python class the front end inlines (as `simt.image`'s).

`complex(a, b)`, an element of a complex64/complex128 array, or a complex constant becomes a
`Complex` of two floats (float32 for complex64, float64 for complex128); its operators and
methods are inlined into float arithmetic, so no backend needs a complex type and
`z = z * z + c` costs what the real-valued form costs. The same class runs in CPython:
`Complex(1.0, 2.0) * 3.0 == Complex(3.0, 6.0)`.
"""

from __future__ import annotations

import math
from typing import Any


def _parts(x: Any) -> tuple[Any, Any]:
    """(real, imaginary) of a Complex, a Python complex or a real number (imaginary 0)."""
    if isinstance(x, Complex):
        return x.re, x.im
    if isinstance(x, complex):
        return x.real, x.imag
    return x, 0.0


def _is_real(x: Any) -> bool:
    return not isinstance(x, (Complex, complex))


class Complex:
    """A complex number of two floats, `re` and `im`."""

    def __init__(self, re: Any, im: Any) -> None:
        self.re = re
        self.im = im

    @property
    def real(self) -> Any:
        """The real part."""
        return self.re

    @property
    def imag(self) -> Any:
        """The imaginary part."""
        return self.im

    def conjugate(self) -> Complex:
        """The complex conjugate."""
        return Complex(self.re, -self.im)

    def __add__(self, other: Any) -> Complex:
        if _is_real(other):
            return Complex(self.re + other, self.im)
        ore, oim = _parts(other)
        return Complex(self.re + ore, self.im + oim)

    def __radd__(self, other: Any) -> Complex:
        return self.__add__(other)

    def __sub__(self, other: Any) -> Complex:
        if _is_real(other):
            return Complex(self.re - other, self.im)
        ore, oim = _parts(other)
        return Complex(self.re - ore, self.im - oim)

    def __rsub__(self, other: Any) -> Complex:
        if _is_real(other):
            return Complex(other - self.re, -self.im)
        ore, oim = _parts(other)
        return Complex(ore - self.re, oim - self.im)

    def __mul__(self, other: Any) -> Complex:
        if _is_real(other):
            return Complex(self.re * other, self.im * other)
        ore, oim = _parts(other)
        return Complex(self.re * ore - self.im * oim, self.re * oim + self.im * ore)

    def __rmul__(self, other: Any) -> Complex:
        return self.__mul__(other)

    def __truediv__(self, other: Any) -> Complex:
        if _is_real(other):
            return Complex(self.re / other, self.im / other)
        ore, oim = _parts(other)
        d = ore * ore + oim * oim
        return Complex((self.re * ore + self.im * oim) / d, (self.im * ore - self.re * oim) / d)

    def __rtruediv__(self, other: Any) -> Complex:
        ore, oim = _parts(other)
        d = self.re * self.re + self.im * self.im
        return Complex((ore * self.re + oim * self.im) / d, (oim * self.re - ore * self.im) / d)

    def __neg__(self) -> Complex:
        return Complex(-self.re, -self.im)

    def __pos__(self) -> Complex:
        return self

    def __abs__(self) -> Any:
        # sqrt, not hypot: a vector instruction on every backend (hypot's scaling is a libm
        # call per lane on cpu); it overflows only past |z| ~ 1e19 in float32
        return math.sqrt(self.re * self.re + self.im * self.im)

    def __eq__(self, other: Any) -> Any:  # type: ignore[override]
        ore, oim = _parts(other)
        return (self.re == ore) and (self.im == oim)

    def __ne__(self, other: Any) -> Any:  # type: ignore[override]
        ore, oim = _parts(other)
        return (self.re != ore) or (self.im != oim)

    def __pow__(self, n: Any) -> Complex:
        """`z ** n` for an integer `n` known at compile time (repeated squaring)."""
        if not isinstance(n, int):
            raise TypeError("z ** n in a kernel needs an integer n known at compile time")
        if n == 0:
            return Complex(self.re * 0.0 + 1.0, self.im * 0.0)
        if n < 0:
            return 1.0 / _power(self, -n)
        return _power(self, n)

    def __repr__(self) -> str:
        return f"({self.re}{'+' if self.im >= 0 else '-'}{abs(self.im)}j)"


def _power(z: Complex, n: int) -> Complex:
    """`z ** n` for a known n >= 1, by repeated squaring (unrolled while compiling)."""
    bits = [(n >> b) & 1 for b in range(n.bit_length())]
    result = z
    have = False  # known while compiling: the loop is unrolled
    base = z
    for k, bit in enumerate(bits):
        if bit:
            result = result * base if have else base
            have = True
        if k < len(bits) - 1:
            base = base * base
    return result


def exp(z: Any) -> Complex:
    """cmath.exp."""
    re, im = _parts(z)
    m = math.exp(re)
    return Complex(m * math.cos(im), m * math.sin(im))


def log(z: Any) -> Complex:
    """cmath.log (the principal value)."""
    re, im = _parts(z)
    return Complex(math.log(math.hypot(re, im)), math.atan2(im, re))


def sqrt(z: Any) -> Complex:
    """cmath.sqrt (the principal root: real part >= 0, imaginary part with the sign of im)."""
    re, im = _parts(z)
    r = math.hypot(re, im)
    # the larger root part from a sum (never a difference of near-equal numbers), the other
    # as im / (2 * it): sqrt((r - re) / 2) for re >> |im| cancels, and lost every digit
    # (1007.9 on one backend, 1024.0 on another; fuzzer seed 22621)
    big = math.sqrt((r + abs(re)) * 0.5)
    small = abs(im) / (2.0 * big) if big > 0.0 else 0.0
    if re >= 0.0:
        return Complex(big, math.copysign(small, im))
    return Complex(small, math.copysign(big, im))


def phase(z: Any) -> Any:
    """cmath.phase."""
    re, im = _parts(z)
    return math.atan2(im, re)


__all__ = ["Complex", "exp", "log", "phase", "sqrt"]
