"""Arrays simt did not make, recognised in one place: dask arrays (the `simt[dask]` extra's
input) and arrays by protocol (`__array_interface__`, a buffer, a CPU DLPack tensor, and
`__cuda_array_interface__` for device arrays such as CuPy's or PyTorch's). Imports no dask,
NumPy aside nothing but `simt.errors`: the kernel, image functions and index expressions ask
here instead of each spelling the test out."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .errors import LaunchError


def is_dask(v: Any) -> bool:
    """Whether `v` is a dask collection (a dask array); imports nothing."""
    return type(v).__module__.split(".")[0] == "dask" and hasattr(v, "__dask_graph__")


def cuda_interface(v: Any) -> dict[str, Any] | None:
    """The `__cuda_array_interface__` of a device array simt did not make (CuPy, PyTorch),
    else None (NumPy arrays never have one)."""
    if isinstance(v, np.ndarray):
        return None
    return getattr(v, "__cuda_array_interface__", None)


def cuda_size(cai: dict[str, Any]) -> int:
    """The element count of an array described by `__cuda_array_interface__` `cai`."""
    return math.prod(cai["shape"])


def as_host_array(v: Any, name: str, kernel: str) -> np.ndarray | None:
    """`v` as a NumPy array sharing its memory when it is a host array by protocol
    (`__array_interface__`, a buffer, a CPU `__dlpack__`), else None; LaunchError naming
    argument `name` of `kernel` when NumPy cannot read it."""
    if hasattr(v, "__cuda_array_interface__") or isinstance(v, (np.generic, bool, str)):
        return None
    try:
        if hasattr(v, "__array_interface__") or isinstance(v, memoryview):
            return np.asarray(v)
        if hasattr(v, "__dlpack__") and hasattr(v, "__dlpack_device__"):
            if v.__dlpack_device__()[0] != 1:  # kDLCPU; a device tensor is not host memory
                return None
            return np.from_dlpack(v)
    except (TypeError, ValueError, BufferError, RuntimeError) as e:
        raise LaunchError(
            f"argument {name!r} of {kernel}() is an array by protocol that NumPy cannot read "
            f"({type(v).__name__}: {e}); pass a NumPy array (np.asarray(x)) or a simt device "
            "array"
        ) from None
    return None
