"""Numbering the ops that can fail (`assert`, load, store, atomic, cas) in the IR itself.

A failure inside a kernel is reported after the launch as a number: its error site. The CPU
lowering copies bodies (the SPMD pass's jammed loops, lane ranges, coarsened blocks, the LLVM
renderer's clamp-free copy of a thread loop), so a renderer that numbered sites as it met them
would give one user access several numbers, in an order that depends on the copies. Numbered
here first, in program order, every copy of an op keeps its number (passes copy `attrs`): the
site that fails first for a thread is the same whatever was copied, and the op a number
names carries the user's line and array for the message.
"""

from __future__ import annotations

from ..ir import Function, Op, walk
from ..ir.ops import MEMORY

SITE = "site"  # the attribute: a number from 1 up, unique within a function before copying


def number_sites(fn: Function) -> Function:
    """Give every assert and memory op of `fn` without a site number the next one, in program
    order (in place; ops numbered already keep theirs). Returns `fn`."""
    ops = [op for op in walk(fn.body) if op.opcode == "assert" or op.opcode in MEMORY]
    n = max((int(op.attrs[SITE]) for op in ops if SITE in op.attrs), default=0)
    for op in ops:
        if SITE not in op.attrs:
            n += 1
            op.attrs[SITE] = n
    return fn


def site_ops(fn: Function) -> dict[int, Op]:
    """The op of `fn` each site number names, as `number_sites` numbers them (the first op a
    number is on, where `fn` has numbers already), `fn` left as it is: what a cached kernel's
    error sites are looked up in (`runtime.cpu_cache`)."""
    ops = [op for op in walk(fn.body) if op.opcode == "assert" or op.opcode in MEMORY]
    n = max((int(op.attrs[SITE]) for op in ops if SITE in op.attrs), default=0)
    out: dict[int, Op] = {}
    for op in ops:
        if SITE in op.attrs:
            out.setdefault(int(op.attrs[SITE]), op)
        else:
            n += 1
            out[n] = op
    return out


__all__ = ["SITE", "number_sites", "site_ops"]
