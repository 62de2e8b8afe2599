"""The sim renderer: IR in, the text of a Python/NumPy program that runs every thread at once.

The program is one function, `def <kernel>(_c, *params)`. `_c` is the launch (a
`simt.runtime.sim_lib.Launch`); the helpers it calls (`_ld`, `_st`, `_split`, ...) are that
module's functions, bound by the runtime when it executes the text. Lane t of every vector is the
launch-wide linear thread id. A value the uniformity analysis below proves equal in every thread
is a NumPy scalar and its control flow is plain Python; any other value is an array of length T
(or a scalar, where the launch shape makes it one) and its control flow runs under masks:
each branch of a varying `if` under its lanes, merged with `np.where`; a varying loop until no
lane is left.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import ClassVar

from ..builtins import sim_name
from ..ir import Block, Function, Op, Value, walk, walk_blocks
from ..ir.ops import ATOMICS, MEMORY, PURE, STORES
from ..ir.rules import Rules, bind
from ..ir.semantics import SELECT, UFUNC, expression
from ..types import CONST, GLOBAL, LOCAL, SHARED, ArrayType, Scalar
from .common import error_sites, print_ops

# Ops that read their operands into a fresh result (or into memory, overlap-safe) and never
# pass one through. Not atomics: they write while they read their values, lane by lane.
_CONSUMERS = frozenset({"bin", "cmp", "un", "cast", "math", "store", "print", "assert"})
_PURE = PURE | {"alloc"}  # (an alloc makes a fresh array: nothing to keep in order)


def _kind(t: Scalar) -> str:
    """The operand kind the semantics table's rows are chosen by."""
    return "b" if t.is_bool else "f" if t.is_float else "iu"


def render(fn: Function, trace: bool = False) -> str:
    """The NumPy program that runs `fn` (see the module docstring). With `trace`, the program
    also reports what it does to `_c.t` (a `simt.runtime.sim_trace.Tracer`): the lines run, the
    named values assigned, loads, stores, barriers and loop iterations (`kernel.explain`)."""
    return _Renderer(fn, trace).run()


def trace_sites(fn: Function) -> list[Op]:
    """The ops a traced program names by index (`_c.t.val(k, ...)` means op `k` here): every
    op with a source location, in program order."""
    return [op for op in walk(fn.body) if op.loc is not None]


def display_names(fn: Function) -> dict[int, str]:
    """The user's variable name of each value that has one: its own hint, or that of the
    variable a loop or branch carries it into (`s += x` in a loop yields an unnamed sum into
    the loop's `s`)."""
    names: dict[int, str] = {}
    for p in fn.params:
        names[p.value.id] = p.name
    for op in walk(fn.body):
        for r in op.results:
            if r.hint:
                names[r.id] = r.hint
        for b in op.regions:
            for a in b.args:
                if a.hint:
                    names[a.id] = a.hint
    loops = [op for op in walk(fn.body) if op.opcode in ("for", "while")]
    ifs = [op for op in walk(fn.body) if op.opcode == "if"]
    for op in loops:  # a loop's variable first: `s += j` in a loop is `s`, whatever it feeds
        targets = op.regions[0].args[1:] if op.opcode == "for" else op.regions[0].args
        for t, y in zip(targets, _yields(op.regions[-1])):
            if t.hint:
                names[y.id] = t.hint
    for op in ifs:
        for region in op.regions:
            for r, y in zip(op.results, _yields(region)):
                if r.hint and y.id not in names:
                    names[y.id] = r.hint
    return names


def np_type(t: Scalar) -> str:
    """The NumPy scalar type of `t`, spelled for the program (`np.bool_`: NumPy 1.x has no
    `np.bool`)."""
    return "np.bool_" if t.is_bool else f"np.{t.name}"


def typed_const(value: int | float | bool, t: Scalar) -> str:
    """`value` as a NumPy scalar of type `t`, wrapped into its range for integers."""
    if t.is_bool:
        return "np.True_" if value else "np.False_"
    if t.is_int:
        v = int(value) % (1 << t.bits)
        if t.is_signed and v >= 1 << (t.bits - 1):
            v -= 1 << t.bits
        return f"np.{t.name}({v})"
    f = float(value)
    if math.isfinite(f):
        return f"np.{t.name}({f!r})"
    return f'np.{t.name}("{f}")'


def _item(x: int | float | bool) -> str:
    """A table element as Python text (non-finite floats spelled as `float("inf")`)."""
    if isinstance(x, float) and not math.isfinite(x):
        return f'float("{x}")'
    return repr(x)


# analysis ------------------------------------------------------------------------------------


def varying_values(fn: Function) -> set[int]:
    """Ids of the values that may differ between threads of a launch (the rest are uniform:
    constants, scalar parameters, block_dim/grid_dim, shapes and what is computed from them).
    Loop-carried values are found by iterating to a fixed point."""
    vary: set[int] = set()

    def any_v(vals: list[Value]) -> bool:
        return any(v.id in vary for v in vals)

    def mark(vals: list[Value], on: bool = True) -> bool:
        changed = False
        for v in vals:
            if on and v.id not in vary:
                vary.add(v.id)
                changed = True
        return changed

    def block(b: Block) -> None:
        for op in b.ops:
            one(op)

    def one(op: Op) -> None:
        k = op.opcode
        if k == "special":
            mark(op.results, op.attrs["reg"] in ("thread_idx", "block_idx"))
        elif k in ATOMICS or k == "warp":  # a vote or shuffle differs from warp to warp
            mark(op.results)
        elif k == "load":
            arr = op.operands[0].array
            mark(op.results, arr.space not in (GLOBAL, CONST) or any_v(op.operands[1:]))
        elif k == "if":
            block(op.regions[0])
            block(op.regions[1])
            if op.operands[0].id in vary:
                mark(op.results)
            else:
                for r, a, b in zip(op.results, *(_yields(x) for x in op.regions)):
                    mark([r], a.id in vary or b.id in vary)
        elif k == "for":
            body = op.regions[0]
            bounds_vary = any_v(op.operands[:3])
            mark(body.args[:1], bounds_vary)
            carried = body.args[1:]
            for a, init in zip(carried, op.operands[3:]):
                mark([a], bounds_vary or init.id in vary)
            while True:
                block(body)
                if not any(mark([a], y.id in vary) for a, y in zip(carried, _yields(body))):
                    break
            mark(op.results, False)
            for r, a in zip(op.results, carried):
                mark([r], a.id in vary)
        elif k == "while":
            cond, body = op.regions
            for a, b, init in zip(cond.args, body.args, op.operands):
                mark([a, b], init.id in vary)
            while True:
                block(cond)
                block(body)
                cond_vary = cond.ops[-1].operands[0].id in vary
                changed = False
                for a, b, y in zip(cond.args, body.args, _yields(body)):
                    changed |= mark([a, b], cond_vary or y.id in vary)
                if not changed:
                    break
            for r, a in zip(op.results, cond.args):
                mark([r], a.id in vary)
        elif op.results:
            mark(op.results, any_v(op.operands))

    block(fn.body)
    return vary


def _yields(b: Block) -> list[Value]:
    term = b.terminator
    return list(term.operands) if term is not None else []


def _global_index_axis(op: Op, defs: dict[int, Op]) -> int | None:
    """The axis if `op` computes `block_idx.a * block_dim.a + thread_idx.a` (in any order)."""
    if op.opcode != "bin" or op.attrs["op"] != "add":
        return None

    def reg(v: Value, name: str) -> int | None:
        d = defs.get(v.id)
        if d is not None and d.opcode == "special" and d.attrs["reg"] == name:
            return int(d.attrs["axis"])
        return None

    for x, y in (op.operands, op.operands[::-1]):
        axis = reg(y, "thread_idx")
        mul = defs.get(x.id)
        if axis is None or mul is None or mul.opcode != "bin" or mul.attrs["op"] != "mul":
            continue
        for p, q in (mul.operands, mul.operands[::-1]):
            if reg(p, "block_idx") == axis and reg(q, "block_dim") == axis:
                return axis
    return None


def _has_effect(op: Op) -> bool:
    return op.opcode in STORES or any(_has_effect(o) for r in op.regions for o in r.ops)


def _view_safe_loads(fn: Function) -> set[int]:
    """Loads whose result may be a view of the array rather than a copy: every use is in the
    same block, consumes it into a fresh value, and comes before any write to memory."""
    users: dict[int, list[Op]] = {}
    for op in walk(fn.body):
        for v in op.operands:
            users.setdefault(v.id, []).append(op)
    safe: set[int] = set()
    for b in walk_blocks(fn.body):
        pos = {id(op): k for k, op in enumerate(b.ops)}
        for k, op in enumerate(b.ops):
            if op.opcode != "load":
                continue
            us = users.get(op.result.id, [])
            if not us or any(id(u) not in pos or u.opcode not in _CONSUMERS for u in us):
                continue
            last = max(pos[id(u)] for u in us)
            if not any(_has_effect(o) for o in b.ops[k + 1 : last]):
                safe.add(id(op))
    return safe


# rendering -----------------------------------------------------------------------------------


Statement = Callable[[Op, int, str], None]  # a rule: (op, indentation depth, mask name)
Trace = Callable[[Op, int, int, str], None]  # a trace rule: (op, its trace number, depth, mask)
Expression = Callable[["_Renderer", Op, list[str], str], str]


def _value(rule: Expression) -> Callable[[_Renderer, Op, int, str], None]:
    """An expression rule (op, operand names, mask) -> text, as a statement: the op's results
    assigned the expression (the expression alone when nothing reads them)."""

    def statement(self: _Renderer, op: Op, depth: int, mask: str) -> None:
        expr = rule(self, op, [self.name(v) for v in op.operands], mask)
        if op.results and (self.trace or any(self.uses.get(r.id, 0) for r in op.results)):
            self.emit(depth, f"{self.names_of(op.results)} = {expr}")
        else:
            self.emit(depth, expr)

    statement.__doc__ = rule.__doc__
    return statement


class _Renderer(Rules[Statement]):
    """The NumPy program of a kernel; ops dispatch through `RULES` (`ir.rules.Rules`)."""

    RULES: ClassVar[dict[str, str]] = {
        "if": "op_if", "for": "op_for", "while": "op_while", "const": "op_const",
        "note": "op_note", "barrier": "op_barrier", "exit": "op_exit", "fence": "op_fence",
        "bin": "bin", "cmp": "cmp", "un": "un", "cast": "cast", "select": "select",
        "math": "math", "special": "special", "shape": "shape", "alloc": "alloc",
        "load": "load", "store": "store", "atomic": "atomic", "cas": "cas",
        "print": "print_", "assert": "assert_", "warp": "warp",
    }  # fmt: skip
    # what a traced program reports after an op (`trace_op`), by opcode; any other op with a
    # source location reports its named results (`trace_values`)
    TRACES: ClassVar[dict[str, str]] = {
        **dict.fromkeys(("if", "for", "while", "const"), "trace_nothing"),
        "barrier": "trace_barrier", "note": "trace_note",
        **dict.fromkeys(MEMORY, "trace_memory"),
    }  # fmt: skip

    def __init__(self, fn: Function, trace: bool = False) -> None:
        super().__init__()
        self.fn = fn
        self.trace = trace
        self.trace_ids = {id(op): k for k, op in enumerate(trace_sites(fn))} if trace else {}
        self.display = display_names(fn) if trace else {}
        self.n_loops = 0
        self.lines: list[str] = []
        self.names: dict[int, str] = {}
        self.vary = varying_values(fn)
        # sim checks every access, also those proven in bounds: it is the reference
        sites = error_sites(fn, bounds=True, proven_too=True)
        self.sites = {id(op): k + 1 for k, op in enumerate(sites)}
        self.prints = {id(op): k for k, op in enumerate(print_ops(fn))}
        self.n_masks = 0
        self.last_line: int | None = None
        defs = {r.id: op for op in walk(fn.body) for r in op.results}
        self.global_idx: dict[int, int] = {}
        for op in walk(fn.body):
            axis = _global_index_axis(op, defs)
            if axis is not None:
                self.global_idx[id(op)] = axis
        self.dead: set[int] = set()
        self.uses = self._live_uses()
        self.views = _view_safe_loads(fn)
        self.fused = {} if trace else self._fusable_stores()  # traced stores show their value
        self.traces: dict[str, Trace] = bind(self, self.TRACES)

    def _live_uses(self) -> dict[int, int]:
        """Use counts of values after dropping pure ops whose results nobody reads."""
        uses: dict[int, int] = {}
        ops = list(walk(self.fn.body))

        def reads(op: Op) -> list[Value]:
            return [] if id(op) in self.global_idx else op.operands

        for op in ops:
            for v in reads(op):
                uses[v.id] = uses.get(v.id, 0) + 1
        changed = True
        while changed:
            changed = False
            for op in ops:
                if id(op) in self.dead or op.opcode not in _PURE:
                    continue
                if all(uses.get(r.id, 0) == 0 for r in op.results):
                    self.dead.add(id(op))
                    changed = True
                    for v in reads(op):
                        uses[v.id] -= 1
        return uses

    def _fusable_stores(self) -> dict[int, Op]:
        """Stores (by id) whose value is a ufunc `bin` op rendered right before them and read
        by nothing else: the store computes it into the array (`_st_op`)."""
        fused: dict[int, Op] = {}
        for b in walk_blocks(self.fn.body):
            prev: Op | None = None
            for op in b.ops:
                if op.opcode == "const" or id(op) in self.dead:
                    continue
                if (
                    op.opcode == "store"
                    and prev is not None
                    and prev.opcode == "bin"
                    and prev.attrs["op"] in UFUNC
                    and id(prev) not in self.global_idx
                    and prev.result is op.operands[-1]
                    and self.uses.get(prev.result.id) == 1
                ):
                    fused[id(op)] = prev
                prev = op
        return fused

    # names -----------------------------------------------------------------------------------
    def name(self, v: Value) -> str:
        n = self.names.get(v.id)
        if n is None:
            # Numbered per kernel, not by global value id: the same IR renders the same text,
            # which is what the runtime's program cache is keyed by.
            hint = re.sub(r"\W", "_", v.hint) if v.hint else ""
            k = len(self.names) + 1
            n = f"{hint}_{k}" if hint else f"v{k}"
            self.names[v.id] = n
        return n

    def names_of(self, vals: list[Value]) -> str:
        return ", ".join(self.name(v) for v in vals)

    def new_mask(self, what: str) -> str:
        self.n_masks += 1
        return f"m_{what}{self.n_masks}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def assign(self, depth: int, dst: list[Value], src: list[Value]) -> None:
        pairs = [(d, s) for d, s in zip(dst, src) if d.id != s.id]
        if pairs:
            self.emit(
                depth,
                f"{self.names_of([d for d, _ in pairs])} = {self.names_of([s for _, s in pairs])}",
            )

    # program ---------------------------------------------------------------------------------
    def run(self) -> str:
        fn = self.fn
        params = ", ".join(["_c", *(self.name(p.value) for p in fn.params)])
        self.emit(0, f"def {_identifier(fn.name)}({params}):")
        self.emit(1, f'"""simt kernel {fn.name}, vectorised over the T threads of a launch."""')
        self.emit(1, "mask = None  # the active lanes: None = all")
        self.block(fn.body, 1, "mask")
        head = [
            f"# simt sim backend: kernel {fn.name!r} from {fn.filename}",
            "# Lane t of every vector is launch-wide linear thread t; uniform values are NumPy",
            "# scalars. Helpers: simt.runtime.sim_lib. Errors name (block, thread) and the line.",
            "import numpy as np",
            "",
            "",
        ]
        return "\n".join(head + self.lines) + "\n"

    def block(self, b: Block, depth: int, mask: str, more: bool = False) -> None:
        """Render `b`'s ops; `more`: the caller appends statements of its own after them."""
        start = len(self.lines)
        for op in b.ops:
            if op.opcode in ("yield", "condition") or id(op) in self.dead:
                continue
            if op.opcode == "bin" and any(f is op for f in self.fused.values()):
                continue  # computed by the store that follows
            if not (self.trace and op.opcode == "const"):  # a traced line is one that runs
                self.source_comment(op, depth, mask)
            self.op(op, depth, mask)
            if self.trace:
                self.trace_op(op, depth, mask)
        if len(self.lines) == start and not more:
            self.emit(depth, "pass")

    def source_comment(self, op: Op, depth: int, mask: str) -> None:
        loc = op.loc
        # A structured op's own location is where its values merge (often its last line):
        # the ops of its condition and body carry the lines worth showing.
        if loc is None or loc.line == self.last_line or op.opcode in ("if", "for", "while"):
            return
        self.last_line = loc.line
        text = loc.source_line.strip()
        self.emit(depth, f"# line {loc.line}: {text}" if text else f"# line {loc.line}")
        if self.trace:
            self.emit(depth, f"_c.t.line({self.trace_ids[id(op)]}, {mask})")

    def trace_op(self, op: Op, depth: int, mask: str) -> None:
        """The report of what `op` just did, for a traced program (see `render`): its
        opcode's rule in `TRACES`, given the op's number among the traced sites."""
        k = self.trace_ids.get(id(op))
        if k is not None:
            self.traces.get(op.opcode, self.trace_values)(op, k, depth, mask)

    def trace_nothing(self, op: Op, k: int, depth: int, mask: str) -> None:
        pass  # control flow reports its iterations itself; a constant is no assignment

    def trace_barrier(self, op: Op, k: int, depth: int, mask: str) -> None:
        self.emit(depth, f"_c.t.barrier({k}, {mask})")

    def trace_note(self, op: Op, k: int, depth: int, mask: str) -> None:
        """`name = constant` or `name = other_name`."""
        name = op.attrs["name"]
        if op.operands and isinstance(op.operands[0].type, ArrayType):
            other = self.display.get(op.operands[0].id, "an array")
            self.emit(depth, f"_c.t.alias({k}, {name!r}, {other!r}, {mask})")
            return
        v = self.name(op.operands[0]) if op.operands else repr(op.attrs["value"])
        self.emit(depth, f"_c.t.val({k}, {name!r}, {v}, {mask})")

    def trace_memory(self, op: Op, k: int, depth: int, mask: str) -> None:
        """An access with its index and value: the value stored, or the one read (an atomic's
        old value)."""
        t = op.operands[0].array
        arr = self.display.get(op.operands[0].id, "array")
        idx = _tuple([self.name(v) for v in op.operands[1 : 1 + t.ndim]])
        val = self.name(op.result) if op.results else self.name(op.operands[-1])
        self.emit(depth, f"_c.t.memory({k}, {op.opcode!r}, {arr!r}, {idx}, {val}, {mask})")

    def trace_values(self, op: Op, k: int, depth: int, mask: str) -> None:
        for r in op.results:
            name = self.display.get(r.id)
            if name and isinstance(r.type, Scalar) and r.id in self.names:
                self.emit(depth, f"_c.t.val({k}, {name!r}, {self.name(r)}, {mask})")

    def op(self, op: Op, depth: int, mask: str) -> None:
        rule = self.rule(op)
        if rule is None:
            raise AssertionError(f"sim backend: no rendering for opcode {op.opcode!r}")
        rule(op, depth, mask)

    def op_const(self, op: Op, depth: int, mask: str) -> None:
        self.names[op.result.id] = typed_const(op.attrs["value"], op.result.scalar)

    def op_note(self, op: Op, depth: int, mask: str) -> None:
        pass  # only a traced program reports it (trace_op)

    def op_barrier(self, op: Op, depth: int, mask: str) -> None:
        # the lanes run in lockstep, so program order is the barrier; this only tells the
        # race watch that shared-memory accesses before it are ordered before those after
        loc = op.loc
        where = (loc.filename, loc.line, loc.source_line) if loc is not None else None
        self.emit(depth, f"_c.barrier({mask}, {where!r})")

    def op_exit(self, op: Op, depth: int, mask: str) -> None:
        self.emit(depth, f"_c.exit({mask})")

    def op_fence(self, op: Op, depth: int, mask: str) -> None:
        pass  # one process, stores made in program order: nothing to order

    # expressions: (op, its operands' names, mask) -> the Python expression computing it (its
    # effect, for ops without results), made statements by `_value`
    @_value
    def cmp(self, op: Op, a: list[str], mask: str) -> str:
        t = op.operands[0].scalar
        return expression("cmp", op.attrs["op"], _kind(t), a[0], a[1])

    @_value
    def cast(self, op: Op, a: list[str], mask: str) -> str:
        return f"_cast({a[0]}, {np_type(op.result.scalar)})"

    @_value
    def select(self, op: Op, a: list[str], mask: str) -> str:
        return SELECT.format(c=a[0], a=a[1], b=a[2])

    @_value
    def math(self, op: Op, a: list[str], mask: str) -> str:
        return f"{sim_name(op.attrs['fn'])}({', '.join(a)})"

    @_value
    def warp(self, op: Op, a: list[str], mask: str) -> str:
        loc = op.loc  # the user's line, for a mask that names a lane not making the call
        where = (loc.filename, loc.line, loc.source_line) if loc is not None else None
        return f"_c.warp({op.attrs['op']!r}, {mask}, {where!r}{''.join(', ' + x for x in a)})"

    @_value
    def special(self, op: Op, a: list[str], mask: str) -> str:
        reg, axis = op.attrs["reg"], op.attrs["axis"]
        if reg in ("block_dim", "grid_dim"):
            return f"_c.{reg}[{axis}]"
        return f"_c.{reg}({axis})"

    @_value
    def shape(self, op: Op, a: list[str], mask: str) -> str:
        t = op.operands[0].array
        if t.space != GLOBAL:
            assert t.shape is not None
            return typed_const(t.shape[op.attrs["dim"]], t.index)
        return f"np.{t.index.name}({a[0]}.shape[{op.attrs['dim']}])"

    @_value
    def alloc(self, op: Op, a: list[str], mask: str) -> str:
        t = op.result.array
        assert t.shape is not None
        if t.space == CONST:  # a table: its elements, read-only
            items = ", ".join(_item(x) for x in op.attrs["data"])
            return f"_c.table(({items},), {t.shape!r}, {np_type(t.dtype)})"
        where = "shared" if t.space == SHARED else "local"
        return f"_c.{where}({t.shape!r}, {np_type(t.dtype)})"

    @_value
    def print_(self, op: Op, a: list[str], mask: str) -> str:
        return f"_c.print({self.prints[id(op)]}, {mask}, {_tuple(a)})"

    @_value
    def assert_(self, op: Op, a: list[str], mask: str) -> str:
        return f"_c.check_assert({a[0]}, {mask}, {self.sites[id(op)]})"

    @_value
    def bin(self, op: Op, a: list[str], mask: str) -> str:
        if id(op) in self.global_idx:
            return f"_c.global_idx({self.global_idx[id(op)]})"
        name, t = op.attrs["op"], op.result.scalar
        width = typed_const(t.bits - 1, t) if t.is_int else ""
        return expression("bin", name, _kind(t), a[0], a[1], w=width)

    @_value
    def un(self, op: Op, args: list[str], mask: str) -> str:
        t = op.result.scalar
        return expression("un", op.attrs["op"], _kind(t), args[0], t=np_type(t))

    # memory: every access checked (`_c`'s helpers), the array's index as a tuple with the
    # block (shared arrays) or the lane (per-thread arrays) first
    def place(self, op: Op, a: list[str]) -> tuple[str, list[str], int]:
        """Access `op`'s index tuple (as text), its other operands and its error site."""
        t: ArrayType = op.operands[0].array
        idx = a[1 : 1 + t.ndim]
        if t.space == SHARED:
            idx = ["_c.block_linear", *idx]
        elif t.space == LOCAL:
            idx = ["_c.lane", *idx]
        return _tuple(idx), a[1 + t.ndim :], self.sites[id(op)]

    @_value
    def load(self, op: Op, a: list[str], mask: str) -> str:
        index, _, site = self.place(op, a)
        helper = "_ld_view" if id(op) in self.views else "_ld"
        return f"{helper}(_c, {a[0]}, {index}, {mask}, {site})"

    @_value
    def store(self, op: Op, a: list[str], mask: str) -> str:
        """A store; one of a ufunc's result computes it into the array (`_st_op`)."""
        index, rest, site = self.place(op, a)
        fused = self.fused.get(id(op))
        if fused is not None:
            x, y = (self.name(v) for v in fused.operands)
            ufunc = UFUNC[fused.attrs["op"]]
            return f"_st_op(_c, {a[0]}, {index}, {ufunc}, {x}, {y}, {mask}, {site})"
        return f"_st(_c, {a[0]}, {index}, {rest[0]}, {mask}, {site})"

    def old_used(self, op: Op) -> bool:
        """Whether an atomic's old value is read (traced, it is shown even when not)."""
        return self.trace or self.uses.get(op.result.id, 0) > 0

    @_value
    def atomic(self, op: Op, a: list[str], mask: str) -> str:
        index, rest, site = self.place(op, a)
        return (
            f"_atomic(_c, {op.attrs['op']!r}, {a[0]}, {index}, {rest[0]}, {mask}, "
            f"{site}, {self.old_used(op)})"
        )

    @_value
    def cas(self, op: Op, a: list[str], mask: str) -> str:
        index, rest, site = self.place(op, a)
        return (
            f"_atomic(_c, 'cas', {a[0]}, {index}, {rest[1]}, {mask}, {site}, "
            f"{self.old_used(op)}, {rest[0]})"
        )

    # control flow ----------------------------------------------------------------------------
    def op_if(self, op: Op, depth: int, mask: str) -> None:
        cond = self.name(op.operands[0])
        then, other = op.regions
        if op.operands[0].id not in self.vary:
            self.emit(depth, f"if {cond}:")
            self.branch(then, op.results, depth + 1, mask)
            if other.ops[:-1] or op.results:
                self.emit(depth, "else:")
                self.branch(other, op.results, depth + 1, mask)
            return
        mt, me = self.new_mask("then"), self.new_mask("else")
        self.emit(depth, f"{mt}, {me} = _split({mask}, {cond})  # lanes taking each branch")
        self.emit(depth, f"if {mt} is not False:")
        self.branch(then, op.results, depth + 1, mt)
        if other.ops[:-1] or op.results:
            self.emit(depth, f"if {me} is not False:")
            self.block(other, depth + 1, me, more=bool(op.results))
            for r, y in zip(op.results, _yields(other)):
                rn, yn = self.name(r), self.name(y)
                pick = SELECT.format(c=cond, a=rn, b=yn)  # the merge is a select
                self.emit(depth + 1, f"{rn} = {yn} if {mt} is False else {pick}")

    def branch(self, b: Block, results: list[Value], depth: int, mask: str) -> None:
        self.block(b, depth, mask, more=any(r.id != y.id for r, y in zip(results, _yields(b))))
        if results:
            self.assign(depth, results, _yields(b))

    def op_for(self, op: Op, depth: int, mask: str) -> None:
        start, stop, step = (self.name(v) for v in op.operands[:3])
        body = op.regions[0]
        iv, carried = body.args[0], body.args[1:]
        self.assign(depth, carried, op.operands[3:])
        sign = op.attrs.get("sign", 0)
        loop = self.trace_begin(op, depth, mask)
        if not any(v.id in self.vary for v in op.operands[:3]):
            self.emit(depth, f"for {self.name(iv)} in _urange({start}, {stop}, {step}):")
            self.trace_iter(loop, depth + 1, mask, iv)
            self.block(body, depth + 1, mask)
            self.assign(depth + 1, carried, _yields(body))
        else:
            m = self.new_mask("loop")
            ivn = self.name(iv)
            test = {1: f"{ivn} < {stop}", -1: f"{ivn} > {stop}"}.get(
                sign, f"_in_range({ivn}, {stop}, {step})"
            )
            self.emit(depth, f"{ivn} = {start}")
            self.emit(depth, f"{m} = {mask}  # lanes still looping")
            self.emit(depth, "while True:")
            self.emit(depth + 1, f"{m} = _narrow({m}, {test})")
            self.emit(depth + 1, f"if {m} is False:")
            self.emit(depth + 2, "break")
            self.trace_iter(loop, depth + 1, m, iv)
            self.block(body, depth + 1, m)
            self.keep(depth + 1, m, carried, _yields(body))
            self.emit(depth + 1, f"{ivn} = {ivn} + {step}")
        self.trace_end(loop, depth, mask)
        self.assign(depth, op.results, carried)

    # loop reports of a traced program: begin, one per iteration, end
    def trace_begin(self, op: Op, depth: int, mask: str) -> int | None:
        if not self.trace:
            return None
        self.n_loops += 1
        self.emit(depth, f"_c.t.begin({self.n_loops}, {self.trace_ids.get(id(op), -1)}, {mask})")
        return self.n_loops

    def trace_iter(self, loop: int | None, depth: int, mask: str, iv: Value | None) -> None:
        if loop is not None:
            var = (iv.hint, self.name(iv)) if iv is not None and iv.hint else ("", "None")
            self.emit(depth, f"_c.t.iter({loop}, {mask}, {var[0]!r}, {var[1]})")

    def trace_end(self, loop: int | None, depth: int, mask: str) -> None:
        if loop is not None:
            self.emit(depth, f"_c.t.end({loop}, {mask})")

    def keep(self, depth: int, m: str, carried: list[Value], new: list[Value]) -> None:
        pairs = [(c, y) for c, y in zip(carried, new) if c.id != y.id]
        if pairs:  # one tuple assignment: a new value may be another carried value's old one
            lhs = self.names_of([c for c, _ in pairs])
            rhs = ", ".join(f"_keep({m}, {self.name(y)}, {self.name(c)})" for c, y in pairs)
            self.emit(depth, f"{lhs} = {rhs}")

    def op_while(self, op: Op, depth: int, mask: str) -> None:
        cond, body = op.regions
        self.assign(depth, cond.args, op.operands)
        test = cond.ops[-1].operands[0]
        uniform = test.id not in self.vary
        m = mask if uniform else self.new_mask("loop")
        loop = self.trace_begin(op, depth, mask)
        if not uniform:
            self.emit(depth, f"{m} = {mask}  # lanes still looping")
        self.emit(depth, "while True:")
        self.block(cond, depth + 1, m)
        if uniform:
            self.emit(depth + 1, f"if not {self.name(test)}:")
        else:
            self.emit(depth + 1, f"{m} = _narrow({m}, {self.name(test)})")
            self.emit(depth + 1, f"if {m} is False:")
        self.emit(depth + 2, "break")
        # a `for` over a range made a `while` (it carries a break, a return or an exception)
        # shows its variable at each iteration as a `for` op does
        self.trace_iter(loop, depth + 1, m, cond.args[0] if op.attrs.get("range_loop") else None)
        self.assign(depth + 1, body.args, cond.args)
        self.block(body, depth + 1, m)
        if uniform:
            self.assign(depth + 1, cond.args, _yields(body))
        else:
            self.keep(depth + 1, m, cond.args, _yields(body))
        self.trace_end(loop, depth, mask)
        self.assign(depth, op.results, cond.args)


def _tuple(items: list[str]) -> str:
    """A Python tuple display of `items`."""
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _identifier(name: str) -> str:
    n = re.sub(r"\W", "_", name) or "kernel"
    return n if not n[0].isdigit() else "_" + n


__all__ = [
    "display_names", "np_type", "render", "trace_sites", "typed_const", "varying_values",
]  # fmt: skip
