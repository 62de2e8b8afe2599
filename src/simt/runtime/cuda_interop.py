"""Sharing CUDA device memory with other libraries: `__cuda_array_interface__` and DLPack.

Outgoing: a simt device array on `cuda` exposes `__cuda_array_interface__` (version 3) and
`__dlpack__`/`__dlpack_device__`, so CuPy, PyTorch, Numba, JAX take it without a copy.
Incoming: any object with `__cuda_array_interface__` (CuPy arrays, PyTorch CUDA tensors) is
read as pointer, shape, strides and dtype, and passed to kernels without a copy.

The DLPack capsule is built with ctypes (no compiled extension): a `DLManagedTensor` whose
deleter releases the reference that keeps the simt array alive.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ..errors import LaunchError

KDL_CUDA = 2  # DLDeviceType kDLCUDA
_DL_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}  # kDLInt, kDLUInt, kDLFloat, kDLBool


def cai_dict(
    ptr: int, shape: tuple[int, ...], dtype: np.dtype, strides: tuple[int, ...] | None
) -> dict[str, Any]:
    """A version-3 `__cuda_array_interface__`; `strides` in elements, None when C-ordered.
    Work is ordered on the legacy default stream (stream 1), which simt launches on."""
    itemsize = np.dtype(dtype).itemsize
    return {
        "shape": tuple(shape),
        "typestr": np.dtype(dtype).str,
        "data": (int(ptr), False),
        "strides": None if strides is None else tuple(s * itemsize for s in strides),
        "version": 3,
        "stream": 1,
    }


def read_cai(obj: Any) -> tuple[int, tuple[int, ...], np.dtype, tuple[int, ...], int]:
    """(pointer, shape, dtype, element strides, bytes spanned) of an object with
    `__cuda_array_interface__`; LaunchError for what a kernel cannot index."""
    cai = obj.__cuda_array_interface__
    shape = tuple(int(s) for s in cai["shape"])
    dtype = np.dtype(cai["typestr"])
    if cai.get("mask") is not None:
        raise LaunchError("masked CUDA arrays (__cuda_array_interface__ mask) are not supported")
    ptr = int(cai["data"][0]) if cai.get("data") else 0
    itemsize = dtype.itemsize
    raw = cai.get("strides")
    if raw is None:
        strides = []
        acc = 1
        for s in reversed(shape):
            strides.append(acc)
            acc *= max(s, 1)
        el = tuple(reversed(strides))
    else:
        if any(int(s) % itemsize for s in raw):
            raise LaunchError(
                f"a CUDA array with byte strides {tuple(raw)} not a multiple of its item size "
                f"{itemsize} cannot be indexed by a kernel"
            )
        el = tuple(int(s) // itemsize for s in raw)
    span = itemsize
    if all(shape):
        span += sum((n - 1) * abs(s) for n, s in zip(shape, el)) * itemsize
    else:
        span = 0
    return ptr, shape, dtype, el, span


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [
    ("dl_tensor", _DLTensor),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", _Deleter),
]

# Everything a live capsule needs, by the address of its DLManagedTensor.
_alive: dict[int, tuple[Any, ...]] = {}


@_Deleter
def _delete(managed: Any) -> None:
    _alive.pop(ctypes.cast(managed, ctypes.c_void_p).value or 0, None)


_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CapsuleDestructor]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]


@_CapsuleDestructor
def _capsule_gone(capsule: int) -> None:
    # An unconsumed capsule still carries the name "dltensor": free what it holds. A consumer
    # renames it "used_dltensor" and calls the deleter itself.
    if _api.PyCapsule_IsValid(capsule, b"dltensor"):
        addr = _api.PyCapsule_GetPointer(capsule, b"dltensor")
        _alive.pop(addr or 0, None)


def dlpack_capsule(
    owner: Any,
    ptr: int,
    shape: tuple[int, ...],
    dtype: np.dtype,
    strides: tuple[int, ...],
    device_id: int,
) -> Any:
    """A DLPack capsule ("dltensor") over device memory at `ptr`; `owner` stays alive until the
    consumer releases it. `strides` in elements."""
    dtype = np.dtype(dtype)
    if dtype.kind not in _DL_CODES:
        raise TypeError(f"no DLPack type for {dtype}")
    ndim = len(shape)
    c_shape = (ctypes.c_int64 * max(ndim, 1))(*shape)
    c_strides = (ctypes.c_int64 * max(ndim, 1))(*strides)
    m = _DLManagedTensor()
    m.dl_tensor.data = ptr
    m.dl_tensor.device = _DLDevice(KDL_CUDA, device_id)
    m.dl_tensor.ndim = ndim
    m.dl_tensor.dtype = _DLDataType(_DL_CODES[dtype.kind], dtype.itemsize * 8, 1)
    m.dl_tensor.shape = ctypes.cast(c_shape, ctypes.POINTER(ctypes.c_int64))
    m.dl_tensor.strides = ctypes.cast(c_strides, ctypes.POINTER(ctypes.c_int64))
    m.dl_tensor.byte_offset = 0
    m.manager_ctx = None
    m.deleter = _delete
    addr = ctypes.addressof(m)
    _alive[addr] = (m, c_shape, c_strides, owner)
    return _api.PyCapsule_New(addr, b"dltensor", _capsule_gone)
