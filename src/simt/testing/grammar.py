"""The fuzz generator's grammar table and the contract its feature modules write against.

`Generator` (generator.py) writes the core of a kernel: int32, uint32, float32/64 and bool
expressions and the statements over them. Each optional feature is a module of its own
(`gen_dtypes`, `gen_complex`, `gen_views`, `gen_lang`, `gen_exc`) that fills the tables here
when imported:

- `EXPRESSIONS[ty]`: how an expression of type `ty` ("u64", "c64", "c128") is written;
- `SECTIONS[feature]`: the statements the feature adds after the kernel's main body, run in
  `FEATURES`' order, each drawing from a random stream of its own (`Generator.rx`), so a
  kernel without the feature is the text the generator wrote before the feature existed.

A feature module sees the generator only through `Grammar` (a Protocol `Generator` satisfies)
and never imports generator.py, so the imports run one way: generator -> features -> grammar.
The feature arrays (extra kernel parameters) and their per-thread output slots are here too.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass
class Var:
    """A variable of the kernel being written: its type and, for floats, its magnitude bound."""

    name: str
    ty: str  # "i32", "u32", "f32", "f64", "bool"; "u64", "c64", "c128" (the feature modules)
    bound: float = 0.0


class Grammar(Protocol):
    """What a feature module may use of the generator writing the kernel."""

    r: random.Random
    depth: int
    block_size: int
    inputs: int
    cap: float
    names: int
    fp64: bool
    in_helper: bool
    complex_on: bool
    u64_on: bool
    exceptions_on: bool  # try statements may be written (the mutator's kernels have none)
    atomic_op: str
    extras: set[str]
    features: set[str]
    helpers: list[str]
    slots: dict[str, int]

    def emit(self, text: str) -> None: ...
    def fresh(self, prefix: str = "v") -> str: ...
    def declare(self, name: str, ty: str, bound: float = 0.0) -> Var: ...
    def vars(self, ty: str) -> list[Var]: ...
    def statement(self) -> None: ...
    def i32(self, d: int) -> str: ...
    def u32(self, d: int) -> str: ...
    def u64(self, d: int) -> str: ...
    def boolean(self, d: int) -> str: ...
    def flt(self, ty: str, d: int) -> tuple[str, float]: ...
    def expr(self, ty: str, d: int = 2) -> tuple[str, float]: ...
    def capped(self, text: str, bound: float) -> str: ...


# type -> its expression writer: (generator, type, depth) -> (text, magnitude bound)
EXPRESSIONS: dict[str, Callable[[Grammar, str, int], tuple[str, float]]] = {}
# the optional features in the order their sections run, and each one's section
# (dicts, then files, last: each came after the others, whose sections' draws it leaves as
# they were)
FEATURES = ("dtypes", "complexes", "views", "lang", "lists", "exceptions", "dicts", "files",
            "specials")
SECTIONS: dict[str, Callable[[Grammar], None]] = {}

@contextmanager
def aside(g: Grammar, what: str) -> Iterator[None]:
    """Draw from a stream of its own while inside (seeded by the main stream's state, which
    it leaves as it was, and `what`): a draw added to a section keeps every other draw of a
    seed, and the tests pinning seeds to what they draw, as they were."""
    saved = g.r
    g.r = random.Random(zlib.crc32(f"{what}:{saved.getstate()!r}".encode()))
    try:
        yield
    finally:
        g.r = saved


# extra kernel parameters: name -> NumPy dtype (1-D: INPUTS inputs, then per-thread slots)
SMALL = {"b8": np.int8, "ub8": np.uint8, "h16": np.int16, "uh16": np.uint16, "hf": np.float16}
EXTRA_DTYPES = {**SMALL, "q64": np.uint64, "cz": np.complex64, "cw": np.complex128}
U64_LITS = (0, 1, 3, 255, 2**32, 2**32 + 7, 2**63, 2**64 - 1, 12345678901234567)
F16_CAP = 60000.0  # a float16 store rounds; below 65504 it never becomes inf
M2 = 8  # the 2-D input `m2` is M2 x M2
# the `specials` feature's input values (gen_special.py draws expressions over them), here
# so that the extra argument "sv" is made without importing the feature
SPECIAL_VALUES = (0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1.5, -2.5, 3.0e38,
                  -3.0e38, 7.0, -100.0)  # fmt: skip


def make_extra(name: str, seed: int, inputs: int, threads: int, slots: int) -> np.ndarray:
    """The argument for extra parameter `name`: inputs, then zeroed per-thread outputs."""
    g = np.random.default_rng([seed, 1 + sorted([*EXTRA_DTYPES, "m2", "vo"]).index(name)]
                              if name != "sv" else [seed, 0x5F])  # fmt: skip
    if name == "m2":
        return (g.integers(-800, 800, (M2, M2)) / 8.0).astype(np.float32)
    if name == "vo":
        return np.zeros((threads, slots), np.int32)
    if name == "sv":  # the `specials` feature's values (gen_special.py), then its slots
        out = np.zeros(inputs + threads * slots, np.float32)
        out[:inputs] = g.choice(np.array(SPECIAL_VALUES, np.float32), inputs)
        return out
    dt = np.dtype(EXTRA_DTYPES[name])
    n = inputs + threads * slots
    out = np.zeros(n, dt)
    if dt.kind in "iu" and dt.itemsize < 8:
        info = np.iinfo(dt)  # type: ignore[type-var]
        out[:inputs] = g.integers(info.min, int(info.max) + 1, inputs)
    elif dt.kind == "u":
        out[:inputs] = g.choice(np.array(U64_LITS, np.uint64), inputs)
        out[: inputs // 2] = g.integers(0, 2**63, inputs // 2, dtype=np.uint64) * np.uint64(2)
    elif dt.kind == "f":
        out[:inputs] = g.integers(-800, 800, inputs) / 8.0
    else:
        re, im = g.integers(-800, 800, (2, inputs)) / 8.0
        out[:inputs] = re + 1j * im
        if dt == np.complex128:
            out[:inputs] /= 3.0
    return out


@contextmanager
def guarded(g: Grammar, exc: str, handler: list[str]) -> Iterator[None]:
    """`try:` the statements written inside the `with`, then `except exc:` the lines of
    `handler` (`with guarded(g, "MemoryError", [f"{acc} = -1"]): ...`)."""
    g.emit("try:")
    g.depth += 1
    try:
        yield
    finally:
        g.depth -= 1
    g.emit(f"except {exc}:")
    for line in handler:
        g.emit(f"    {line}")


def out_slot(g: Grammar, name: str) -> str:
    """The index of the thread's next output slot of extra array `name`."""
    k = g.slots.setdefault(name, 0)
    g.slots[name] = k + 1
    return f"{g.inputs} + i * NSLOT_{name} + {k}"

