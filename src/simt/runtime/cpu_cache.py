"""The cpu runtime's disk cache of lowered kernels: for one variant of a kernel (its IR, the
arrays contiguous in their last dimension, the block shape, the blocks run as one), the key of
its object code and what its launches need besides (`Meta`), keyed on the IR (`fingerprint`)
and not on the LLVM text, so that a new process finds a cached kernel without lowering and
rendering it again (4-11 ms of a cached W1 or W6, 2026-11-27; the object code stays under the
LLVM text's key, `CpuRuntime._variant`).

The key holds what decides the LLVM text: the IR as the runtime compiles it (every op, type and
attribute, source locations left out), the kernel's name, the variant, whether loops poll for
Ctrl-C, the host's target (as the object's key) and simt's source files (`lowering_digest`).
Entries are JSON (through `simt.cache`: check-summed, written atomically, never unpickled); the
error sites are stored as site numbers and looked up in the process's own IR
(`passes.sites.site_ops`), so messages name the current source lines. A kernel that prints is
not stored (its print formats are IR attributes, rendered again), nor one with an error site
the lowering made (no op of the IR to name it by).
"""

from __future__ import annotations

import json

from .. import cache
from ..backends.common import describe_failure
from ..backends.llvm_abi import Meta
from ..ir import Function
from ..passes.sites import site_ops
from .fingerprint import source_digest, tree_digest  # noqa: F401 - tree_digest: tests

BACKEND = "cpu-variant"


#: simt's own source files, by path, size and modification time (`fingerprint.source_digest`):
#: a kernel lowered by code that has changed since is lowered again
lowering_digest = source_digest


def key(
    fingerprint: str,
    name: str,
    units: frozenset[str],
    block: tuple[int, int, int],
    wide: int,
    poll: bool,
    target: tuple[str, ...],
) -> str:
    """The key of one variant (`CpuRuntime._variant`) of the kernel whose IR has `fingerprint`."""
    return cache.key(fingerprint, name, repr(sorted(units)), repr(tuple(block)), str(wide),
                     str(poll), *target, lowering_digest())  # fmt: skip


def load(k: str, fn: Function) -> tuple[str, Meta] | None:
    """(The object code's key, the variant's `Meta` with its error sites in `fn`) stored under
    `k`, or None (absent, damaged, or naming a site `fn` does not have)."""
    raw = cache.load(BACKEND, k)
    if raw is None:
        return None
    try:
        d = json.loads(raw)
        ops = site_ops(fn)
        meta = Meta(
            record_slots=int(d["record_slots"]),
            sites={int(n): ops[int(n)] for n in d["sites"]},
            layout=[int(x) for x in d["layout"]],
            jammed=bool(d["jammed"]),
        )
        return str(d["object"]), meta
    except (ValueError, KeyError, TypeError):
        return None


def store(k: str, fn: Function, object_key: str, meta: Meta) -> None:
    """Store the variant lowered from `fn` (its object code under `object_key`), unless it
    prints or has an error site that no op of `fn` names as the lowered code does."""
    if meta.formats or meta.print_types:
        return
    ops = site_ops(fn)
    for n, op in meta.sites.items():
        mine = ops.get(n)
        try:
            same = mine is not None and mine.loc == op.loc and (
                describe_failure(mine) == describe_failure(op))  # fmt: skip
        except (KeyError, IndexError, AttributeError):  # an op no message is made for
            same = False
        if not same:
            return
    d = {"object": object_key, "record_slots": meta.record_slots,
         "sites": sorted(meta.sites), "layout": meta.layout, "jammed": meta.jammed}  # fmt: skip
    cache.store(BACKEND, k, json.dumps(d).encode())
