"""The webgpu runtime's disk cache: a kernel's WGSL and the layout the runtime binds and fills.

Keyed, as the cpu runtime's object code and CUDA's CUBIN are, on what decides the artefact: the
IR as the runtime compiles it (`fingerprint`: every op, type and attribute, source locations
left out), the kernel's name, the adapter's capabilities the renderer reads, the array
parameters declared writable and the renderer's own source (`renderer_digest`). A new process
finds the WGSL there instead of rendering it again.
Entries are JSON (through `simt.cache`: check-summed, written atomically, never unpickled);
the IR ops an entry names (the error sites) are stored as their positions in the IR's walk
order and looked up in the process's own IR, so error messages name the current source lines.
A kernel that prints is not stored (its print formats are IR attributes, rendered again).
"""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, fields
from typing import Any

from .. import cache
from ..backends.wgsl_layout import Binding, UniformField, WgslKernel
from ..ir import Function, walk
from ..types import SCALARS
from .fingerprint import fingerprint, source_digest
from .webgpu_device import WgslCaps

BACKEND = "webgpu-wgsl"
# the fields of `WgslKernel` an entry holds (or derives: prints are never stored); a kernel
# class with other fields is not cached at all, rather than half restored
KNOWN = {"source", "bindings", "uniform", "uniform_size", "print_formats", "print_types",
         "error_ops", "entry", "error_record"}  # fmt: skip


def usable() -> bool:
    """Whether entries can hold every field of this simt's `WgslKernel`."""
    return {f.name for f in fields(WgslKernel)} == KNOWN


@functools.cache
def renderer_digest() -> str:
    """What decides the renderer's output besides the key's other parts: simt's own source
    files (`fingerprint.source_digest`: the renderer, its C-like base, the legalisation, the
    tables they read), so WGSL rendered by other code is not reused under the same simt
    version (a driver workaround takes effect at once, not after the cache is cleared)."""
    return source_digest()


def key(fn: Function, caps: WgslCaps, writable: frozenset[int]) -> str:
    """The cache key of `fn` rendered for an adapter with `caps`, `writable` arrays, by this
    renderer (`renderer_digest`)."""
    return cache.key(
        fingerprint(fn), fn.name, repr(asdict(caps)), repr(sorted(writable)), renderer_digest()
    )


def load(k: str, fn: Function) -> WgslKernel | None:
    """The kernel stored under `k` with its error sites in `fn`, or None (absent, damaged or
    of another layout: then it is rendered again)."""
    raw = cache.load(BACKEND, k) if usable() else None
    if raw is None:
        return None
    try:
        d = json.loads(raw)
        ops = list(walk(fn.body))
        return WgslKernel(
            source=d["source"],
            bindings=[Binding(*b) for b in d["bindings"]],
            uniform=[UniformField(n, SCALARS[t], o, tuple(s)) for n, t, o, s in d["uniform"]],
            uniform_size=int(d["uniform_size"]),
            error_ops=[ops[i] for i in d["error_ops"]],
            entry=d["entry"],
            error_record=bool(d["error_record"]),
        )
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def store(k: str, fn: Function, kernel: WgslKernel) -> None:
    """Store `kernel` (rendered from `fn`) under `k`, unless it prints."""
    if kernel.print_types or kernel.print_formats or not usable():
        return
    where = {id(op): n for n, op in enumerate(walk(fn.body))}
    if any(id(op) not in where for op in kernel.error_ops):
        return
    d: dict[str, Any] = {
        "source": kernel.source,
        "bindings": [[b.index, b.kind, b.name, b.param, b.read_only] for b in kernel.bindings],
        "uniform": [[u.name, u.type.name, u.offset, list(u.source)] for u in kernel.uniform],
        "uniform_size": kernel.uniform_size,
        "error_ops": [where[id(op)] for op in kernel.error_ops],
        "entry": kernel.entry,
        "error_record": kernel.error_record,
    }
    cache.store(BACKEND, k, json.dumps(d).encode())
