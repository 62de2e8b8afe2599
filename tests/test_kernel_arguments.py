"""Arguments a kernel cannot take as they are are converted or refused by name (issue #15,
items 4, 5 and 11): byte order, read-only arrays, arrays by protocol, memoryviews."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt
from simt.runtime import registry

BACKENDS = ("sim", "cpu", "webgpu")


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    ok, why = registry.probe(request.param)
    if not ok:
        pytest.skip(f"{request.param} not present: {why}")
    monkeypatch.setattr(registry, "_current", registry._current)
    simt.use(request.param)
    return str(request.param)


@simt.kernel
def inc(a, out):
    i = simt.grid(1)
    out[i] = a[i] + 1


class ByInterface:
    """An array by `__array_interface__` only (as many C extensions export them)."""

    def __init__(self, arr: np.ndarray) -> None:
        self.arr = arr
        self.__array_interface__ = arr.__array_interface__


class ByDLPack:
    """An array by DLPack only, on the CPU (as a CPU PyTorch tensor)."""

    def __init__(self, arr: np.ndarray) -> None:
        self.arr = arr

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.arr.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.arr.__dlpack_device__()


def test_big_endian_arrays_are_refused_by_name(backend: str) -> None:
    with pytest.raises(simt.LaunchError, match=r"'a'.*big-endian.*newbyteorder"):
        inc[1, 4](np.arange(4, dtype=">f4"), np.zeros(4, np.float32))


def test_read_only_arrays_are_not_written(backend: str) -> None:
    out = np.zeros(4, np.float32)
    out.flags.writeable = False
    with pytest.raises(simt.LaunchError, match=r"'out'.*read-only"):
        inc[1, 4](np.arange(4, dtype=np.float32), out)
    assert not out.any()
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False  # only read: fine
    res = np.zeros(4, np.float32)
    inc[1, 4](a, res)
    simt.synchronize()
    assert res.tolist() == [1, 2, 3, 4]


@pytest.mark.parametrize("wrap", [ByInterface, ByDLPack, memoryview], ids=lambda w: w.__name__)
def test_arrays_by_protocol_are_arrays_never_constants(backend: str, wrap: Any) -> None:
    for start in (0.0, 10.0):  # a constant would be baked in: the second call would repeat
        src = np.arange(4, dtype=np.float32) + np.float32(start)
        out = np.zeros(4, np.float32)
        inc[1, 4](wrap(src), wrap(out))
        simt.synchronize()
        assert out.tolist() == (src + 1).tolist()


@simt.kernel
def _fill_from(a, s):
    a[simt.grid(1)] = s


@simt.kernel
def _fill_from_first(a, s):
    a[simt.grid(1)] = s[0]


def test_a_zero_d_array_gets_advice_that_works() -> None:
    """Issue 26: "pass a scalar or a 1-element array", and the 1-element array was then
    refused where the kernel uses the value as a number."""
    simt.use("sim")
    a, s = np.zeros(4, np.float32), np.array(2.5, np.float32)
    for k, fix in ((_fill_from, s.item()), (_fill_from_first, s.reshape(1))):
        with pytest.raises(simt.LaunchError, match=r"pass s.item\(\) if the kernel uses s as "
                           r"a number, or s.reshape\(1\) if it reads s\[0\]"):
            k[1, 4](a, s)
        a[:] = 0
        k[1, 4](a, fix)  # the advice, followed, works
        assert a.tolist() == [2.5] * 4
