"""The opcodes of the IR: one table, read by the verifier, the printer and every renderer.

Invariants the front end guarantees and `verify` checks:
- operands of `bin`, `cmp` and `select` (the last two) have one type: conversions are explicit
  `cast` ops, so a renderer never has to know promotion rules;
- `bin` `div` is true division on floats only; `floordiv` and `mod` follow Python (floor) on
  ints and floats; int arithmetic wraps at its width;
- array indices are integer values (any width); loads and stores never see a negative known
  index (the front end rewrites `a[-1]` to `a[len(a) - 1]`);
- a region's block ends with its terminator: `yield` for `if` branches and loop bodies,
  `condition` for a `while`'s condition region.

| opcode    | operands                  | attrs                        | results                  |
| --------- | ------------------------- | ---------------------------- | ------------------------ |
| const     |                           | value (Python int/float/bool)| 1 scalar                 |
| bin       | a, b                      | op in BIN_OPS                | 1, type of a             |
| cmp       | a, b                      | op in CMP_OPS                | 1 bool                   |
| un        | a                         | op in UN_OPS                 | 1, type of a             |
| cast      | a                         |                              | 1, the target scalar     |
| select    | cond, a, b                |                              | 1, type of a             |
| math      | args                      | fn (a name in builtins.MATH) | 1 (float; bool for is*)  |
| special   |                           | reg in SPECIAL_REGS, axis    | 1 int32                  |
| shape     | array                     | dim                          | 1, the array's index type|
| alloc     |                           |                              | 1 shared/local array     |
| load      | array, *indices           |                              | 1, the array's dtype     |
| store     | array, *indices, value    |                              |                          |
| atomic    | array, *indices, value    | op in ATOMIC_OPS             | 1 (the old value)        |
| cas       | array, *indices, cmp, val |                              | 1 (the old value)        |
| barrier   |                           |                              |                          |
| fence     |                           | scope: block, device, system | (memory order only)      |
| exit      |                           |                              |                          |
| warp      | see WARP_OPS              | op in WARP_OPS               | see WARP_OPS             |
| print     | values                    | parts, see below             |                          |
| assert    | cond                      | msg (str or None)            |                          |
| note      | value, or none            | name; value (when no operand)|                          |
| if        | cond                      | regions: then, else          | merged values            |
| for       | start, stop, step, *init  | sign (+1, -1, 0: unknown);   | final carried values     |
|           |                           | region body(iv, *carried)    |                          |
| while     | *init                     | regions: cond(*carried),     | final carried values     |
|           |                           | body(*carried)               |                          |
| yield     | values                    |                              | (terminator)             |
| condition | cond                      |                              | (terminator)             |

`exit` marks where a thread returns from the kernel itself (the front end's flags make the
rest of the kernel skip it): `sim` counts such threads out of the block's later barriers, as
NVIDIA hardware does; `passes.barriers.lift` removes it for the other backends.

`warp` is a warp function (Numba's names; warps are 32 threads of a block in linear order):
`shfl`, `shfl_up`, `shfl_down`, `shfl_xor` take (mask: uint32, value, lane or delta: int32)
and give a value of the value's type; `ballot` (mask, predicate: bool) a uint32; `all`, `any`
(mask, predicate) a bool; `activemask` () a uint32; `syncwarp` (mask) nothing. `sim` and CUDA
run them as such; `passes.warps.lower` writes them with shared memory and barriers for the
others.

`note` is made only for `kernel.explain` (the front end's `explain` option; sim renders it):
`name = value` of an assignment that makes no op of its own (a constant, another variable).

`print` attrs: `parts`, a tuple whose items are `str` (literal text) or `Field(arg, spec)`
(operand number `arg` formatted with Python's `format(value, spec)`; spec "" prints as
`print` would). Separators and the line end are already part of the literal text.
"""

from __future__ import annotations

from dataclasses import dataclass

BIN_OPS = (
    "add", "sub", "mul", "div", "floordiv", "mod", "pow",
    "min", "max", "and", "or", "xor", "shl", "shr",
)  # fmt: skip
CMP_OPS = ("eq", "ne", "lt", "le", "gt", "ge")
UN_OPS = ("neg", "not", "invert", "abs")
ATOMIC_OPS = ("add", "sub", "min", "max", "exch", "and", "or", "xor")
# warp functions: op -> (operand count, what the result is: "value" (the 2nd operand's type),
# "mask" (uint32), "bool", or None)
WARP_OPS = {
    "shfl": (3, "value"), "shfl_up": (3, "value"), "shfl_down": (3, "value"),
    "shfl_xor": (3, "value"), "ballot": (2, "mask"), "all": (2, "bool"), "any": (2, "bool"),
    "activemask": (0, "mask"), "syncwarp": (1, None),
}  # fmt: skip
SPECIAL_REGS = ("thread_idx", "block_idx", "block_dim", "grid_dim")

# Op groups: what passes, renderers and analyses ask of an opcode, said once (tinygrad's
# `GroupOp`). Ops with an effect beyond their results: never removed, never reordered across
# each other.
EFFECTS = frozenset(
    {"store", "atomic", "cas", "barrier", "exit", "fence", "warp", "print", "assert", "note"}
)
# Ops whose result depends only on their operands and attributes: no memory, no effect.
PURE = frozenset({"const", "bin", "cmp", "un", "cast", "select", "math", "special", "shape"})
# Ops that address an array element: operands (array, *indices, ...).
MEMORY = frozenset({"load", "store", "atomic", "cas"})
# Ops that write an array element.
STORES = frozenset({"store", "atomic", "cas"})
# Read-modify-write ops: they return the old value of the element they write.
ATOMICS = frozenset({"atomic", "cas"})
# Ops after which a value loaded from memory may be stale (a barrier publishes other threads'
# writes).
WRITES = frozenset({"store", "atomic", "cas", "barrier"})
# `bin` and `cmp` operators whose operands may be swapped (`a + b` is `b + a`); float min and
# max are not among them, as which zero or NaN they return may depend on the order.
COMMUTATIVE = frozenset({"add", "mul", "and", "or", "xor", "eq", "ne"})
# Ops that own regions.
STRUCTURED = frozenset({"if", "for", "while"})
TERMINATORS = frozenset({"yield", "condition"})

# Attributes the legalisation (`passes.legalise`) leaves for a renderer to spell, where a
# device's compiler would otherwise compute something else than the IR says: on a `const`,
# HIDE: its value reaches the device's compiler as a value it cannot fold; BIND: its value
# reaches it bound to a local (a run-time value that costs nothing), not as a literal it
# evaluates or converts at compile time; on a float `bin`, EXACT: its result is rounded as
# written, never fused with the arithmetic that reads it.
HIDE = "hide"
BIND = "bind"
EXACT = "exact"


@dataclass(frozen=True)
class Field:
    """A formatted operand in a `print` op's parts: operand `arg`, Python format `spec`
    (`!s:>6`, from `{v!s:>6}`, formats the value's printed text: `spec_conversion`)."""

    arg: int
    spec: str = ""


# a print field's spec: one character of a string's repr inside the quotes the device chose
# (`frontend/strings.print_repr`), escaped by the host as repr escapes it; a negative value
# is the quote character itself, escaped with a backslash. (Not a spec Python accepts: a
# '!' fill is followed by an align.)
QUOTED = "!q"


def spec_conversion(spec: str) -> tuple[str, str]:
    """(conversion, spec) of a field's spec: `!s:>6` (`{v!s:>6}`) is ("s", ">6"); a spec
    Python accepts never starts so ('!' is a fill only before an align), so ("", spec). The
    front end writes such specs (`frontend/str_format.py`), the host's print formats them
    (`runtime/printing.py`)."""
    if spec[:1] == "!" and spec[2:3] == ":" and spec[1:2] in ("s", "r", "a"):
        return spec[1], spec[3:]
    return "", spec
