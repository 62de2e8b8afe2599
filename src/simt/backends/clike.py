"""The base of the renderers whose output is C-like text (CUDA C++ and WGSL).

What both languages do alike lives here: naming SSA values as identifiers, the operators
spelled the same in both, operator precedence and parenthesisation, indented line collection,
and `CRenderer`: SSA locals, merged results, `if` / `for` / `while` emission, the
{opcode: method} dispatch, the rule of every memory access (its bounds condition and failure
statement), `assert`, the numbering of prints and error sites, constants, extents and the
arrays a kernel allocates, the helpers a kernel uses (and their order) and the renderer's
errors, written once. Each language's renderer is a subclass holding its own tables (types,
literals, operators, atomics, declarations, helpers) and the few methods that say how it
writes an access.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..builtins import MATH, MathFn
from ..errors import CompileError
from ..ir import Block, Function, Op, Value
from ..ir.ops import BIND, HIDE, TERMINATORS
from ..ir.rules import Rules
from ..types import CONST, INT32, INT64, Scalar
from .common import checked, error_sites, print_ops

# Operators spelled the same in C/C++ and WGSL, by IR op name.
BIN_SYMBOLS: dict[str, str] = {
    "add": "+", "sub": "-", "mul": "*", "div": "/",
    "and": "&", "or": "|", "xor": "^", "shl": "<<", "shr": ">>",
}  # fmt: skip
CMP_SYMBOLS: dict[str, str] = {
    "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
}  # fmt: skip

# How a language spells an operator (tinygrad's `code_for_op`): a function of the renderer,
# the op and its operands' texts giving the expression. A language's table maps each `bin`
# (`un`) operator to one; `CRenderer.op_bin` / `op_un` look them up.
BinSpelling = Callable[[Any, Op, str, str], str]
UnSpelling = Callable[[Any, Op, str], str]


def infix(sym: str) -> BinSpelling:
    """`a sym b`, as both languages write it."""
    return lambda r, op, a, b: f"{a} {sym} {b}"


def refuse(why: str) -> BinSpelling:
    """An operator the language cannot spell for these operands: the renderer's error."""

    def spell(r: Any, op: Op, a: str, b: str) -> str:
        raise r.fail(op, why.format(k=op.attrs["op"]))

    return spell


# Binding strength of binary operators (higher binds tighter), the C table. WGSL has the same
# relative order for the operators it has (it forbids mixing some, which parenthesising every
# operand of lower or equal strength satisfies).
PRECEDENCE: dict[str, int] = {
    "*": 13, "/": 13, "%": 13,
    "+": 12, "-": 12,
    "<<": 11, ">>": 11,
    "<": 10, "<=": 10, ">": 10, ">=": 10,
    "==": 9, "!=": 9,
    "&": 8, "^": 7, "|": 6, "&&": 5, "||": 4,
}  # fmt: skip
ATOM = 100  # an identifier, literal, call or parenthesised expression

_NOT_IDENT = re.compile(r"[^0-9A-Za-z_]")


def ident(text: str) -> str:
    """`text` made into a C/WGSL identifier: other characters become `_`, never a leading
    digit, never a leading double underscore (reserved in both languages)."""
    out = _NOT_IDENT.sub("_", text) or "_"
    if out[0].isdigit():
        out = "_" + out
    while out.startswith("__"):
        out = out[1:]
    return out


def value_name(v: Value) -> str:
    """The identifier of an SSA value: the user's variable name when it had one, then its id
    (`i_12`), so names never collide with each other or with keywords of either language."""
    if v.hint:
        name = f"{ident(v.hint)}_{v.id}"
        if not name.startswith("__"):  # `_` as a name would give `__5`: reserved in both
            return name
    return f"v{v.id}"


def paren(expr: str, strength: int, need: int) -> str:
    """`expr` (of binding `strength`) wrapped in parentheses unless it binds tighter than
    `need`; equal strength is wrapped too, so `a - (b - c)` and `(a << b) + c` come out right
    without relying on associativity."""
    return expr if strength > need else f"({expr})"


def binary(op: str, a: str, b: str, a_strength: int = ATOM, b_strength: int = ATOM) -> str:
    """`a op b` with each operand parenthesised as its strength needs. Returns the text; its
    strength is `PRECEDENCE[op]`."""
    p = PRECEDENCE[op]
    # The left operand may share the operator's strength (left associativity) except for
    # comparisons and bitwise operators, which WGSL refuses to chain unparenthesised.
    left = a if a_strength > p or (a_strength == p and op in ("+", "*")) else f"({a})"
    return f"{left} {op} {paren(b, b_strength, p)}"


def helper_calls(helpers: Mapping[str, str], name: str) -> list[str]:
    """The helpers helper `name` of table `helpers` (name -> text) calls: the table's other
    names its text calls, in the order of their first call (read from the text, so a table
    cannot disagree with its texts)."""
    called = re.findall(r"\b(simt_\w+)\(", helpers[name])
    return [c for c in dict.fromkeys(called) if c != name and c in helpers]


def helper_order(helpers: Mapping[str, str], used: Iterable[str]) -> list[str]:
    """The `used` helpers of table `helpers` and those they call, in dependency order: each
    after the helpers it calls (C declares a function before its first call; WGSL takes any
    order), else by name."""
    order: list[str] = []
    seen: set[str] = set()

    def add(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        for called in helper_calls(helpers, name):
            add(called)
        order.append(name)

    for name in sorted(used):
        add(name)
    return order


class Lines:
    """Collects indented lines of output."""

    def __init__(self, indent: str = "    ") -> None:
        self.lines: list[str] = []
        self.depth = 0
        self.indent = indent

    def add(self, line: str) -> None:
        """Append `line` at the current depth."""
        self.lines.append(self.indent * self.depth + line if line else "")

    def open(self, line: str) -> None:
        """Append `line` (ending in `{`) and indent what follows."""
        self.add(line)
        self.depth += 1

    def close(self, line: str = "}") -> None:
        """Dedent and append the closing `line`."""
        self.depth -= 1
        self.add(line)

    def text(self) -> str:
        """Everything collected, newline-terminated."""
        return "\n".join(self.lines) + "\n"


@dataclass(frozen=True)
class Access:
    """A memory access as the base splits it (`CRenderer.access_of`): its array, index and the
    texts of its other operands (a store's value; an atomic's operand; a cas's compared and new
    values), its bounds condition and its failure statement (both None: unchecked)."""

    arr: Value
    index: list[Value]
    rest: list[str]
    ok: str | None
    fail: str | None


class CRenderer(Rules[Callable[[Op], None]]):
    """What a renderer to a C-like language does the same way whatever the language.

    SSA values become immutable locals (`define`); the values an `if` merges or a loop
    carries become mutable locals declared before it; a loop body starts by binding its
    region arguments as immutable copies of those locals (so it reads this iteration's values
    while it assigns the next ones, and no parallel assignment is ever needed); `if`, counted
    `for` and `while` are emitted here, once. Ops are dispatched through `RULES`, a table
    {opcode: method name} that each subclass completes with its own methods (`ir.rules.Rules`,
    the idiom every renderer uses).

    A subclass gives the language: `type_name`, `literal`, the declaration forms `let` and
    `var`, the loop forms (`LOOP`, `open_counted`, `close_counted`), how it addresses, checks
    and reports an access (below), how it writes a print record, its declarations of the
    arrays a kernel allocates (`ALLOC`, `TABLE`), where an array's extents are
    (`shape_param`, `PARAM_EXTENT`, `SHAPE_LET`), its helpers (`HELPERS`) and its op methods.

    Memory accesses: each opcode has its rule here (`op_load`, `op_store`, `op_atomic`,
    `op_cas`), which a language keeps (C: an element is an lvalue `array[offset]`, an atomic
    an expression of its address, `atomic_call` / `cas_call`) or replaces (WGSL's storage
    emulation). Whatever writes the access, its operands are split into the array, its index
    and the rest, and its bounds condition (`in_bounds`, from the language's `extents` and
    `index_below`) and failure statement (`fail_at`, from its `FAIL`/`FAIL_AT` templates and
    record words) are made once (`access_of`); its element's offset is one routine
    (`offset`: the strides from the shape or the language's parameters). Every access of a
    kernel compiled with `boundscheck` (or `debug`) is checked unless analysis proved it in
    bounds (`op.attrs["inbounds"]`). A failing access runs the failure statement (which
    records the thread, the site and the index for the KernelError raised after the launch)
    instead of the access: a failing store or atomic writes nothing, a failing load reads
    nothing and gives 0.

    A print (`op_print`) reserves a record in the print buffer (the language's
    `print_reserve`), writes it where there was room (`print_puts`) and counts the thread's
    prints (`PRINT_NEXT`), in a block of its own.
    """

    RULES: ClassVar[dict[str, str]] = {
        "if": "if_", "for": "for_", "while": "while_", "bin": "op_bin", "un": "op_un",
        "cmp": "op_cmp", "select": "op_select", "math": "op_math",
        "load": "op_load", "store": "op_store", "atomic": "op_atomic", "cas": "op_cas",
        "print": "op_print", "assert": "assert_", "barrier": "op_barrier", "fence": "op_fence",
        "special": "op_special", "const": "op_const", "shape": "op_shape", "alloc": "op_alloc",
    }  # fmt: skip
    BIN: ClassVar[dict[str, BinSpelling]] = {}  # the language's operators (`BinSpelling`)
    UN: ClassVar[dict[str, UnSpelling]] = {}
    # the `select` op (`ir.semantics.SELECT`: `{a}` where the bool `{c}` holds, else `{b}`)
    SELECT = "{c} ? {a} : {b}"
    # a bool operand `{}` of an ordering comparison (`<`, ...), made comparable
    ORDERED_BOOL = "{}"
    # `{a} != {b}` of floats: true where either is NaN (`ir.semantics.CMP`, Python's `!=`)
    FLOAT_NE = "{a} != {b}"
    # the field of a math row (`builtins.MathFn`) that holds the language's spelling
    MATH_SPELLING = ""
    LOOP = "while (true) {"  # an unconditional loop's first line
    # a failed `assert` (its condition `{c}`) reports error site `{site}`; sites are numbered
    # from FIRST_SITE
    ASSERT = "if (!{c}) {{ simt_fail({site}u); }}"
    FIRST_SITE = 0
    # a failing access: its site `{site}` alone (`FAIL`), or with the record of its index and
    # extents (`FAIL_AT`: `{n}` dimensions, `{words}`: the index's words then the extents',
    # each padded to RECORD_DIMS dimensions with RECORD_PAD; `fail_at`)
    FAIL = "simt_fail({site}u);"
    FAIL_AT = ""
    RECORD_DIMS = 4
    RECORD_PAD = "0"
    STRIDE = "{}"  # a stride known when rendering (an array addressed by its shape)
    PRINT_NEXT = "simt_seq += 1u;"  # a thread's print counted
    BARRIER: ClassVar[tuple[str, ...]] = ()  # a block's barrier: its statements
    FENCE: ClassVar[Mapping[str, str]] = {}  # a memory fence's statement, by its scope
    # the language's helper functions: name -> text; the helpers one calls are those of this
    # table its text calls (`helper_calls`), emitted before it (`helper_order`)
    HELPERS: ClassVar[Mapping[str, str]] = {}
    # whether the language honours the marks `passes.legalise` puts on constants for its
    # target (`HIDE`, `BIND`); IR legalised for another target renders as if unmarked
    CONST_MARKS = False
    # how the value of a `shape` op is held: bound to an immutable local (`define`), or its
    # text (a literal, a kernel parameter) read where it is used
    SHAPE_LET = False
    # a kernel parameter's extent `{}` as an index of type `{t}` is compared with (`extents`)
    PARAM_EXTENT = "{}"
    # an array the kernel allocates, by its memory space: the declaration of `{name}`, `{n}`
    # elements of type `{t}`, and whether it stands at module scope (else in the kernel's body)
    ALLOC: ClassVar[Mapping[str, tuple[str, bool]]] = {}
    # a constant table (a const array's `alloc`) at module scope: `{name}`, `{t}`, `{n}`, its
    # items `{items}` (`table_item`, comma-separated) and `{space}` (`table_space`)
    TABLE = ""
    FAIL_PREFIX = ""  # what the renderer's errors (`fail`) start with

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.out = Lines()
        self.names: dict[int, str] = {}
        self.prints = print_ops(fn)  # the print ops, in the order of their records' ids
        self.print_index = {id(op): i for i, op in enumerate(self.prints)}
        self.sites = error_sites(fn, bounds=fn.checks_bounds)  # the ops that can fail
        self.site_index = {id(op): i + self.FIRST_SITE for i, op in enumerate(self.sites)}
        self.helpers: list[str] = []  # the helper functions used, in order of first use
        self.module: list[str] = []  # declarations at module scope (tables, shared arrays)
        self.literals: dict[int, int | float | bool] = {}  # literal constants: id -> value
        self.record_index = False  # some failing access records its index (`fail_at`)
        super().__init__()

    # ---------------------------------------------------------------- the language
    def type_name(self, t: Scalar) -> str:
        """The language's name of scalar type `t`."""
        raise NotImplementedError

    def literal(self, value: int | float | bool, t: Scalar) -> str:
        """A literal (or constant expression) of type `t`."""
        raise NotImplementedError

    def let(self, name: str, t: Scalar, expr: str) -> str:
        """The declaration of immutable local `name` = `expr`."""
        raise NotImplementedError

    def var(self, name: str, t: Scalar, init: str | None) -> str:
        """The declaration of mutable local `name`, initialised to `init` when given."""
        raise NotImplementedError

    def open_counted(self, counter: str, t: Scalar, start: str, cond: str, step: str) -> None:
        """Open a loop over `counter` from `start` while `cond`, stepping by `step`."""
        raise NotImplementedError

    def close_counted(self, counter: str, step: str) -> None:
        """Close the loop `open_counted` opened."""
        raise NotImplementedError

    def fail(self, op: Op | None, why: str) -> CompileError:
        """The error to raise for `op`: a `CompileError` at the user's line (the kernel's file
        where the op has none), its message `why` after the language's `FAIL_PREFIX`."""
        message = self.FAIL_PREFIX + why
        loc = op.loc if op is not None else None
        if loc is None:
            return CompileError(message, self.fn.filename)
        return CompileError(message, loc.filename, loc.line, loc.col, loc.source_line)

    def index_below(self, index: Value, extent: str) -> str:
        """The test `0 <= index < extent` of one dimension of an access (`extent` is the text
        of the array's extent there)."""
        raise NotImplementedError

    def shape_param(self, arr: Value, d: int) -> str | None:
        """The text of the kernel parameter that holds array `arr`'s extent `d`, or None where
        its shape is known when rendering (an array the kernel allocates)."""
        raise NotImplementedError

    def extents(self, arr: Value, index: list[Value]) -> list[str]:
        """The texts of array `arr`'s extents, one per dimension of `index`, as `index_below`
        compares them with the index: a known one as `extent_literal` writes it, a kernel
        parameter's as the language's `PARAM_EXTENT` of the index's type."""
        out = []
        for d, i in enumerate(index):
            param = self.shape_param(arr, d)
            if param is None:
                assert arr.array.shape is not None
                out.append(self.extent_literal(arr.array.shape[d], i.scalar))
            else:
                out.append(self.PARAM_EXTENT.format(param, t=self.type_name(i.scalar)))
        return out

    def extent_literal(self, n: int, t: Scalar) -> str:
        """Known extent `n` as an index of type `t` is compared with (by default a literal of
        that type)."""
        return self.literal(n, t)

    # ---------------------------------------------------------------- addressing
    def param_strides(self, arr: Value, n: int) -> list[str | None] | None:
        """The texts of the strides (in elements) of the first `n` dimensions of `arr` when
        the kernel's parameters give them (None in a place: a unit stride, no product), or
        None when `arr` is addressed by its shape (C order, known when rendering)."""
        raise NotImplementedError

    def offset_type(self, arr: Value, index: list[Value], by_shape: bool) -> Scalar:
        """The integer type the offset of `arr[index]` is computed in: by default C's rule,
        64 bits for an array addressed by parameters, else 64 bits only where an index or
        the array's size needs them."""
        if not by_shape:
            return INT64
        assert arr.array.shape is not None
        size = int(np.prod(arr.array.shape))
        wide = any(v.scalar.bits > 32 for v in index) or size >= 2**31
        return INT64 if wide else INT32

    def index_as(self, index: Value, t: Scalar) -> str:
        """`index` as an operand of the offset's arithmetic, of type `t`."""
        raise NotImplementedError

    def offset(self, arr: Value, index: list[Value]) -> str:
        """The linear element offset of `arr[index]`: each index times its stride, summed
        (a language gives the strides the parameters hold, `param_strides`, the offset's type,
        `offset_type`, and how an index takes it, `index_as`; `STRIDE` spells a known one)."""
        strides = self.param_strides(arr, len(index))
        by_shape = strides is None
        if strides is None:
            shape = arr.array.shape
            assert shape is not None
            strides = [
                None if s == 1 else self.STRIDE.format(s)
                for s in (int(np.prod(shape[d + 1 :], dtype=np.int64)) for d in range(len(index)))
            ]
        t = self.offset_type(arr, index, by_shape)
        terms = [
            self.index_as(v, t) + ("" if s is None else f" * {s}") for v, s in zip(index, strides)
        ]
        return " + ".join(terms) if terms else self.literal(0, INT32)

    def array_ref(self, arr: Value) -> str:
        """The text naming array `arr`'s elements (what `[offset]` follows)."""
        return self.name(arr)

    def element(self, arr: Value, index: list[Value]) -> str:
        """The lvalue of element `arr[index]`."""
        return f"{self.array_ref(arr)}[{self.offset(arr, index)}]"

    # ---------------------------------------------------------------- failures
    def fail_at(self, op: Op, arr: Value, index: list[Value], extents: list[str]) -> str:
        """The statement that reports access `op` of `arr` at `index` failing: the language's
        `FAIL_AT` with its site and a record of the index and the extents (`index_words`,
        `extent_word`; each padded to `RECORD_DIMS` dimensions with `RECORD_PAD`, read by the
        host for the KernelError's message), or its `FAIL` (the site alone) for an access of
        more dimensions than the record holds."""
        site = self.site_index[id(op)]
        if not self.records(index):
            return self.FAIL.format(site=site)
        self.record_index = True
        pad = self.RECORD_DIMS - len(index)
        words = [w for v in index for w in self.index_words(v)]
        words += [self.RECORD_PAD] * (pad * (len(words) // len(index)))
        words += [self.extent_word(arr, d, e) for d, e in enumerate(extents)]
        words += [self.RECORD_PAD] * pad
        return self.FAIL_AT.format(site=site, n=len(index), words=", ".join(words))

    def records(self, index: list[Value]) -> bool:
        """Whether a failing access at `index` records it (`fail_at`): up to `RECORD_DIMS`
        dimensions, and at least one."""
        return 0 < len(index) <= self.RECORD_DIMS

    def index_words(self, index: Value) -> list[str]:
        """The words of the failure record that hold `index` (`fail_at`)."""
        raise NotImplementedError

    def extent_word(self, arr: Value, d: int, extent: str) -> str:
        """The word of the failure record that holds `arr`'s extent `d` (`extent`: its text as
        `extents` gave it)."""
        raise NotImplementedError

    # ---------------------------------------------------------------- memory accesses
    def access_of(self, op: Op) -> Access:
        """Load, store, atomic or cas `op` split into its array, index and other operands, with
        its bounds condition and failure statement (made here, once)."""
        arr = op.operands[0]
        nd = arr.array.ndim
        index = op.operands[1 : 1 + nd]
        rest = self.operands(op, op.operands[1 + nd :])
        extents = self.extents(arr, index)
        ok = self.in_bounds(op, index, extents)
        fail = None if ok is None else self.fail_at(op, arr, index, extents)
        return Access(arr, index, rest, ok, fail)

    def op_load(self, op: Op) -> None:
        """A load: the element read where the access is in bounds (0 where it is not)."""
        a = self.access_of(op)
        self.checked_value(op.result, a.ok, self.element(a.arr, a.index), a.fail)

    def op_store(self, op: Op) -> None:
        """A store: the element assigned where the access is in bounds."""
        a = self.access_of(op)
        self.guarded(a.ok, [f"{self.element(a.arr, a.index)} = {a.rest[0]};"], a.fail)

    def op_atomic(self, op: Op) -> None:
        """An atomic read-modify-write, the language's expression (`atomic_call`) of the
        element's address and the operand, giving the old value."""
        a = self.access_of(op)
        expr = self.atomic_call(op, f"&{self.element(a.arr, a.index)}", a.rest)
        self.checked_value(op.result, a.ok, expr, a.fail)

    def op_cas(self, op: Op) -> None:
        """A compare-and-swap, the language's expression (`cas_call`), giving the old value."""
        a = self.access_of(op)
        expr = self.cas_call(op, f"&{self.element(a.arr, a.index)}", a.rest)
        self.checked_value(op.result, a.ok, expr, a.fail)

    def atomic_call(self, op: Op, ptr: str, rest: list[str]) -> str:
        """The expression of atomic `op` on the element at `ptr` with operand `rest[0]`."""
        raise NotImplementedError

    def cas_call(self, op: Op, ptr: str, rest: list[str]) -> str:
        """The expression of compare-and-swap `op` at `ptr` (`rest`: compared, new value)."""
        raise NotImplementedError

    def in_bounds(self, op: Op, index: list[Value], extents: list[str]) -> str | None:
        """The in-bounds condition of access `op` at `index` of an array with these extents,
        or None when the access is not checked (proven in bounds, or `boundscheck=False`)."""
        if not checked(op, self.fn.checks_bounds):
            return None
        conds = [self.index_below(v, e) for v, e in zip(index, extents)]
        if len(conds) > 1:
            conds = [f"({c})" for c in conds]
        return " && ".join(conds) if conds else "true"

    def guarded(self, ok: str | None, lines: list[str], fail: str | None = None) -> None:
        """`lines` run only where `ok` holds (always when `ok` is None); else `fail`."""
        if ok is None:
            for line in lines:
                self.out.add(line)
            return
        self.out.open(f"if ({ok}) {{")
        for line in lines:
            self.out.add(line)
        if fail is not None:
            self.out.close("} else {")
            self.out.depth += 1
            self.out.add(fail)
        self.out.close()

    def checked_value(self, result: Value, ok: str | None, expr: str,
                      fail: str | None = None) -> None:  # fmt: skip
        """Bind `result` to `expr` (a load or an atomic), evaluated only where `ok` holds; 0
        where it does not (and `fail` runs)."""
        if ok is None:
            self.define(result, expr)
            return
        name = value_name(result)
        self.names[result.id] = name
        self.out.add(self.var(name, result.scalar, self.literal(0, result.scalar)))
        self.guarded(ok, [f"{name} = {expr};"], fail)

    # ---------------------------------------------------------------- helpers, failures
    def use_helper(self, name: str) -> str:
        """Helper function `name` (of `HELPERS`) is used (and so are the helpers it calls:
        `helper_texts`); returns its name."""
        if name not in self.helpers:
            self.helpers.append(name)
        return name

    def helper_texts(self) -> list[str]:
        """The texts of the helpers the kernel uses and of those they call, in dependency
        order (`helper_order`)."""
        return [self.HELPERS[name] for name in helper_order(self.HELPERS, self.helpers)]

    def use_helpers_in(self, text: str) -> None:
        """Every helper named in `text` (a math row's template) is used."""
        for name in re.findall(r"\bsimt_\w+", text):
            if name in self.HELPERS:
                self.use_helper(name)

    def op_print(self, op: Op) -> None:
        """`print`: one record `[thread, sequence, print id, values...]` for the host to format
        (`runtime.printing`), in the language's buffer."""
        pid = self.print_index[id(op)]
        types = [v.scalar for v in op.operands]
        vals = self.operands(op, op.operands)
        reserve, room = self.print_reserve(pid, types)
        puts = self.print_puts(pid, types, vals)
        self.out.open("{")
        self.out.add(reserve)
        if puts:
            self.out.open(f"if ({room}) {{")
            for line in puts:
                self.out.add(line)
            self.out.close()
        self.out.add(self.PRINT_NEXT)
        self.out.close()

    def print_reserve(self, pid: int, types: list[Scalar]) -> tuple[str, str]:
        """The statement reserving print `pid`'s record (of values of `types`) and the
        condition that it did (the buffer had room)."""
        raise NotImplementedError

    def print_puts(self, pid: int, types: list[Scalar], vals: list[str]) -> list[str]:
        """The statements writing print `pid`'s record where it was reserved (none: nothing
        to write there)."""
        raise NotImplementedError

    def op_barrier(self, op: Op) -> None:
        """`syncthreads()`: the language's `BARRIER`."""
        for line in self.BARRIER:
            self.out.add(line)

    def op_fence(self, op: Op) -> None:
        """A memory fence: the language's `FENCE` of its scope."""
        self.out.add(self.FENCE[op.attrs["scope"]])

    def op_special(self, op: Op) -> None:
        """A thread index (`thread_idx`, `block_idx`, `block_dim`, `grid_dim`) on an axis, as
        the language reads it (`special`)."""
        self.define(op.result, self.special(op.attrs["reg"], op.attrs["axis"]))

    def special(self, reg: str, axis: int) -> str:
        """The expression of thread index `reg` on `axis` (0, 1, 2), an int32."""
        raise NotImplementedError

    def assert_(self, op: Op) -> None:
        """`assert`: where its condition fails, the language's `ASSERT` reports its site."""
        (c,) = self.operands(op, op.operands)
        self.out.add(self.ASSERT.format(c=c, site=self.site_index[id(op)]))

    # ---------------------------------------------------------------- operators
    def op_bin(self, op: Op) -> None:
        """A binary operator, spelled by the language's `BIN` table."""
        spell = self.BIN.get(op.attrs["op"])
        if spell is None:  # pragma: no cover - the verifier rejects unknown operators
            raise self.fail(op, f"unknown operator {op.attrs['op']}")
        a, b = self.operands(op, op.operands)
        self.define(op.result, spell(self, op, a, b))

    def op_un(self, op: Op) -> None:
        """A unary operator, spelled by the language's `UN` table."""
        spell = self.UN.get(op.attrs["op"])
        if spell is None:  # pragma: no cover
            raise self.fail(op, f"unknown unary operator {op.attrs['op']}")
        (a,) = self.operands(op, op.operands)
        self.define(op.result, spell(self, op, a))

    def op_cmp(self, op: Op) -> None:
        """A comparison, spelled alike in both languages (`CMP_SYMBOLS`); bool operands of an
        ordering comparison as the language's `ORDERED_BOOL` makes them."""
        a, b = self.operands(op, op.operands)
        sym = CMP_SYMBOLS[op.attrs["op"]]
        if op.operands[0].scalar.is_bool and sym not in ("==", "!="):
            a, b = self.ORDERED_BOOL.format(a), self.ORDERED_BOOL.format(b)
        if sym == "!=" and op.operands[0].scalar.is_float:
            self.define(op.result, self.FLOAT_NE.format(a=a, b=b))
            return
        self.define(op.result, f"{a} {sym} {b}")

    def op_math(self, op: Op) -> None:
        """A math function: its row's spelling in this language (`math_call`)."""
        name = op.attrs["fn"]
        row = MATH.get(name)
        if row is None:  # pragma: no cover - the front end knows only the rows
            raise self.fail(op, f"unknown math function {name}")
        t = op.operands[0].scalar if op.operands else op.result.scalar
        self.define(op.result, self.math_call(op, row, t, self.operands(op, op.operands)))

    def math_call(self, op: Op, row: MathFn, t: Scalar, args: list[str]) -> str:
        """The expression of math row `row` on `args` (their type `t`): the language's
        template of the row (`math_template`) filled in (`math_fill`), its helpers used."""
        template = self.math_template(row, t)
        if template is None:  # refused before rendering (`passes.legalise`)
            raise self.fail(op, f"internal: no spelling of math.{row.name}")
        text = template.format(*args, **self.math_fill(t))
        self.use_helpers_in(text)
        return text

    def math_template(self, row: MathFn, t: Scalar) -> str | None:
        """The language's template of `row` for operands of type `t` (None: it has none):
        by default the row's `MATH_SPELLING` field."""
        return getattr(row, self.MATH_SPELLING)  # type: ignore[no-any-return]

    def math_fill(self, t: Scalar) -> dict[str, str]:
        """The language's fields of a math template for operands of type `t`."""
        return {}

    def op_select(self, op: Op) -> None:
        """`select`, spelled by the language's `SELECT`."""
        c, a, b = self.operands(op, op.operands)
        self.define(op.result, self.SELECT.format(c=c, a=a, b=b))

    # ---------------------------------------------------------------- values the IR names
    def op_const(self, op: Op) -> None:
        """A constant: its literal, read where it is used; where the language honours the
        marks (`CONST_MARKS`), bound to a local where the IR asks (`BIND`: a literal the
        target's compiler must not evaluate) and kept from the compiler where it asks (`HIDE`:
        the language's `hide`). `literals` keeps the value of every literal not hidden."""
        v, value = op.result, op.attrs["value"]
        text = self.literal(value, v.scalar)
        if self.CONST_MARKS and op.attrs.get(HIDE):
            text = self.hide(text, v.scalar)
        else:
            self.literals[v.id] = value
        if self.CONST_MARKS and op.attrs.get(BIND):
            self.define(v, text)
        else:
            self.names[v.id] = text

    def hide(self, text: str, t: Scalar) -> str:
        """Literal `text` of type `t` written so that the target's compiler cannot know its
        value (`passes.legalise` marks those a driver's folding gets wrong)."""
        raise self.fail(None, "internal: a hidden constant")

    def op_shape(self, op: Op) -> None:
        """An array's extent (`len(a)`, `a.shape[d]`): a literal where the shape is known
        when rendering, else the kernel parameter holding it (`shape_param`); bound to a local
        where the language's `SHAPE_LET` says so."""
        arr, d = op.operands[0], op.attrs["dim"]
        text = self.shape_param(arr, d)
        if text is None:
            assert arr.array.shape is not None
            text = self.literal(arr.array.shape[d], op.result.scalar)
        if self.SHAPE_LET:
            self.define(op.result, text)
        else:
            self.names[op.result.id] = text

    def op_alloc(self, op: Op) -> None:
        """An array the kernel allocates (at least one element): a constant table (the
        language's `TABLE`, at module scope), or a shared or per-thread array (its space's
        `ALLOC` declaration, in the kernel's body or at module scope)."""
        v = op.result
        a = v.array
        assert a.shape is not None
        n = max(int(np.prod(a.shape, dtype=np.int64)), 1)
        name = value_name(v)
        self.names[v.id] = name
        t = self.elem(v)
        if a.space == CONST:
            items = ", ".join(self.table_item(x, a.dtype) for x in op.attrs["data"])
            space = self.table_space(n * np.dtype(a.dtype.np).itemsize)
            self.module.append(self.TABLE.format(name=name, t=t, n=n, items=items, space=space))
            return
        if a.space not in self.ALLOC:
            raise self.fail(op, f"cannot allocate an array in {a.space} memory")
        decl, at_module = self.ALLOC[a.space]
        text = decl.format(name=name, t=t, n=n)
        if at_module:
            self.module.append(text)
        else:
            self.out.add(text)

    def elem(self, v: Value) -> str:
        """The element type array `v` is declared with (by default its dtype's name)."""
        return self.type_name(v.array.dtype)

    def table_item(self, x: int | float | bool, t: Scalar) -> str:
        """Item `x` of a constant table of dtype `t` (by default its literal)."""
        return self.literal(x, t)

    def table_space(self, nbytes: int) -> str:
        """The `{space}` of a constant table of `nbytes` bytes (in the order they come)."""
        return ""

    # ---------------------------------------------------------------- values
    def name(self, v: Value) -> str:
        """The text that reads `v` (its local, or a literal)."""
        return self.names[v.id]

    def operands(self, op: Op, values: list[Value]) -> list[str]:
        """The texts of `values` as operands of `op` (a language may bind literals first)."""
        return [self.name(v) for v in values]

    def define(self, v: Value, expr: str) -> None:
        """Bind SSA value `v` to an immutable local holding `expr`."""
        name = value_name(v)
        self.names[v.id] = name
        self.out.add(self.let(name, v.scalar, expr))

    # ---------------------------------------------------------------- statements
    def block(self, block: Block) -> list[Value]:
        """Render `block`'s ops; returns the operands of its terminator."""
        for op in block.ops:
            if op.opcode in TERMINATORS:
                return list(op.operands)
            rule = self.rule(op)
            if rule is None:
                raise self.fail(op, f"internal: the renderer has no rule for {op.opcode!r}")
            rule(op)
        return []

    def declare_results(self, results: list[Value], inits: list[str] | None = None) -> list[str]:
        """Mutable locals for the values an `if` merges or a loop carries."""
        names = []
        for k, r in enumerate(results):
            name = value_name(r)
            self.out.add(self.var(name, r.scalar, None if inits is None else inits[k]))
            self.names[r.id] = name
            names.append(name)
        return names

    def assign(self, targets: list[str], values: list[Value]) -> None:
        """`targets = values`, one by one (no value read is a target: see the class doc)."""
        for t, v in zip(targets, values):
            src = self.name(v)
            if src != t:
                self.out.add(f"{t} = {src};")

    def bind_args(self, args: list[Value], sources: list[str]) -> None:
        """A loop region's arguments as immutable copies of the loop's locals."""
        for a, src in zip(args, sources):
            self.define(a, src)

    def if_(self, op: Op) -> None:
        """`if` with its merged results assigned at the end of each branch."""
        (c,) = self.operands(op, op.operands)
        targets = self.declare_results(op.results)
        then, other = op.regions
        self.out.open(f"if ({c}) {{")
        self.assign(targets, self.block(then))
        if len(other.ops) > 1 or targets:
            self.out.close("} else {")
            self.out.depth += 1
            self.assign(targets, self.block(other))
        self.out.close()

    def for_(self, op: Op) -> None:
        """A counted loop; `sign` (+1, -1, 0 unknown) is the step's sign. A zero step runs
        no iteration (Python refuses `range(a, b, 0)`; a kernel cannot raise)."""
        start, stop, step, *init = op.operands
        (body,) = op.regions
        t = start.scalar
        iv = body.args[0]
        counter = f"{value_name(iv)}_next"
        targets = self.declare_results(op.results, [self.name(v) for v in init])
        s, e, z = self.name(step), self.name(stop), self.literal(0, t)
        sign = op.attrs.get("sign", 0)
        if sign > 0:
            cond = f"{counter} < {e}"
        elif sign < 0:
            cond = f"{counter} > {e}"
        else:
            cond = f"({s} > {z} && {counter} < {e}) || ({s} < {z} && {counter} > {e})"
        self.open_counted(counter, t, self.name(start), cond, s)
        self.bind_args(body.args, [counter, *targets])
        self.assign(targets, self.block(body))
        self.close_counted(counter, s)

    def while_(self, op: Op) -> None:
        """`while` as an unconditional loop that breaks when the condition region says so."""
        cond, body = op.regions
        targets = self.declare_results(op.results, [self.name(v) for v in op.operands])
        self.open_loop(op)
        self.bind_args(cond.args, targets)
        (c,) = self.block(cond)
        self.out.add(f"if (!{self.name(c)}) {{ {self.loop_break()} }}")
        for a, src in zip(body.args, cond.args):
            self.names[a.id] = self.name(src)
        self.assign(targets, self.block(body))
        self.close_loop()

    def open_loop(self, op: Op) -> None:
        """Open the unconditional loop of `op` (a `for` or `while`)."""
        self.out.open(self.LOOP)

    def loop_break(self) -> str:
        """The statement that leaves the innermost loop when its condition fails."""
        return "break;"

    def close_loop(self) -> None:
        """Close the loop `open_loop` opened."""
        self.out.close()
