"""The interface of a CUDA kernel: its parameters in order (`KernelParam`), the print and
error buffers' layout, and what the renderer hands the runtime (`CudaKernel`).

A global array is a pointer plus its shape and its strides in elements, all kernel
parameters; then the print buffer and its capacity (when the kernel prints) and the error
buffer (when it has error sites). The error buffer: word 0 the smallest `thread << 20 | site`
that failed (all ones: none), then the record of the failing access with that key: a lock,
the key, the number of dimensions, RECORD_DIMS index values and RECORD_DIMS extents (all
64-bit words); last (word ERR_FLAG) the device address of the runtime's failure flag, a 32-bit
word in mapped pinned host memory that every failing thread sets to 1, so that the host learns
whether anything failed by reading its own memory after a synchronisation it does anyway
(no copy back per launch); 0 when there is none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir import Function, Op
from ..types import ArrayType, Scalar
from . import clike
from .cuda_types import CTYPE

PRINT_BUF = "simt_pbuf"
PRINT_CAP = "simt_pcap"
ERR_BUF = "simt_err"
ERR_RECORD = 1
RECORD_DIMS = 4
ERR_FLAG = ERR_RECORD + 3 + 2 * RECORD_DIMS
ERR_WORDS = ERR_FLAG + 1


@dataclass(frozen=True)
class KernelParam:
    """One parameter of the generated kernel, in order.

    `kind` is "ptr" (an array's data), "shape" or "stride" (dimension `dim` of the array),
    "scalar", "print" (the print buffer), "print_cap" (its capacity in words) or "error" (the
    error word). `param` is the index into `fn.params` for the first four kinds.
    """

    kind: str
    name: str
    ctype: str
    param: int = -1
    dim: int = -1


@dataclass(frozen=True)
class PrintFormat:
    """One print op: its parts (for `printing.format_print`) and the types of its values."""

    parts: tuple[object, ...]
    types: tuple[Scalar, ...]


@dataclass
class CudaKernel:
    """What the renderer produces: the source text and what the runtime needs to launch it."""

    name: str
    source: str
    params: list[KernelParam]
    prints: list[PrintFormat]
    record_words: int  # words per print record (0 when the kernel has no print)
    sites: list[Op]  # error sites; site id = index + 1
    fast_math: bool = False
    meta: dict[str, object] = field(default_factory=dict)



def kernel_name(fn: Function) -> str:
    """The entry point's symbol: the Python name, made a safe C identifier."""
    return "simt_" + clike.ident(fn.name).lstrip("_")



@dataclass
class Signature:
    """The kernel's parameters: each in order, their declarations, and per array parameter
    (by value id) its pointer's name and the names of its shapes and strides."""

    params: list[KernelParam] = field(default_factory=list)
    decls: list[str] = field(default_factory=list)
    arrays: dict[int, tuple[str, list[str], list[str]]] = field(default_factory=dict)

    def add(self, p: KernelParam) -> None:
        self.params.append(p)
        self.decls.append(f"{p.ctype} {p.name}")


def signature(fn: Function, prints: bool, errors: bool) -> Signature:
    """The parameters of `fn`'s kernel, with the print buffer when it `prints` and the error
    buffer when it has `errors` sites."""
    sig = Signature()
    for i, param in enumerate(fn.params):
        v = param.value
        name = clike.value_name(v)
        if isinstance(v.type, ArrayType):
            t = v.type
            idx = CTYPE[t.index]
            sig.add(KernelParam("ptr", name, f"{CTYPE[t.dtype]}*", i))
            shapes = [f"{name}_shape{d}" for d in range(t.ndim)]
            strides = [f"{name}_stride{d}" for d in range(t.ndim)]
            for d, s in enumerate(shapes):
                sig.add(KernelParam("shape", s, idx, i, d))
            for d, s in enumerate(strides):
                sig.add(KernelParam("stride", s, "long long", i, d))
            sig.arrays[v.id] = (name, shapes, strides)
        else:
            sig.add(KernelParam("scalar", name, CTYPE[v.scalar], i))
    if prints:
        sig.add(KernelParam("print", PRINT_BUF, "unsigned int*"))
        sig.add(KernelParam("print_cap", PRINT_CAP, "unsigned int"))
    if errors:
        sig.add(KernelParam("error", ERR_BUF, "unsigned long long*"))
    return sig
