"""The parser of index expressions and their schedules, with errors that point at the text.

    expr     := [op] pattern [op pattern] "~" pattern
                ["|" (directives | splits "|" order ["|" directives])]
    pattern  := letter+ | "."                      (lowercase axis letters; "." a scalar)
    splits   := [axis ":" factor (":" factor)* ("," axis ":" factor ...)*]
    order    := (axis "'"* | "0" | "1" | "!")*
    directives := (name "(" item ("," item)* ")")*   (item: `axis:factor`, `axis` or a pattern)

The directives are the register-tiled GEMM's schedule primitives (`tile`, `vector`, `block`,
`pack`, `unroll`; see `gemm.py` and docs/tensor.md).

An expression with one input is unary: `+ij~i` reduces, `-i~i` negates, `ij~ij` is `+ij~ij`.
Whitespace is allowed between tokens. Every error is a `simt.CompileError` showing the
expression with a caret under the offending character and saying what was expected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import CompileError
from .ops import OPS, SYMBOLS


@dataclass(frozen=True)
class Atom:
    """One item of a schedule's order: a loop part (`k`, `k'`), a compute-at digit, or `!`."""

    kind: str  # "axis", "input" or "bang"
    axis: str = ""
    part: int = 0  # 0 for `k`, 1 for `k'`, ...
    input: int = 0
    pos: int = 0  # offset in the expression text, for errors

    def __str__(self) -> str:
        if self.kind == "axis":
            return self.axis + "'" * self.part
        return str(self.input) if self.kind == "input" else "!"


@dataclass(frozen=True)
class Expr:
    """A parsed index expression: op, input patterns, output pattern, and its schedule."""

    text: str
    op: str  # the op's symbol
    inputs: tuple[str, ...]  # one pattern per input; "" is a scalar
    output: str
    splits: tuple[tuple[str, tuple[int, ...]], ...] = ()
    order: tuple[Atom, ...] = ()
    scheduled: bool = False  # a `| splits | order` part was written
    # `name(items)` schedule primitives after the order (`tile(i:6,j:32) pack(kj)`): each as
    # (name, ((axis or pattern, factor or 0), ...), position in the text)
    directives: tuple[tuple[str, tuple[tuple[str, int], ...], int], ...] = ()
    where: tuple[str, int] | None = field(default=None, compare=False)  # user's file, line

    @property
    def unary(self) -> bool:
        return len(self.inputs) == 1

    @property
    def reduced(self) -> tuple[str, ...]:
        """Axes left of `~` and absent from the output, in order of first appearance."""
        seen: list[str] = []
        for p in self.inputs:
            for a in p:
                if a not in self.output and a not in seen:
                    seen.append(a)
        return tuple(seen)

    @property
    def axes(self) -> tuple[str, ...]:
        """Every axis of the expression's iteration domain: output axes, then reduced ones."""
        return tuple(self.output) + self.reduced

    def split_of(self, axis: str) -> tuple[int, ...]:
        """The split factors written for `axis` (empty when it is not split)."""
        return dict(self.splits).get(axis, ())

    def body(self) -> str:
        """The expression without its schedule, in canonical spelling."""
        pats = [p or "." for p in self.inputs]
        if self.unary:
            return f"{self.op}{pats[0]}~{self.output or '.'}"
        return f"{pats[0]}{self.op}{pats[1]}~{self.output or '.'}"

    def directive(self, name: str) -> tuple[tuple[str, int], ...] | None:
        """The items of directive `name` (`tile`, `block`, ...), None when it is not written."""
        for n, items, _ in self.directives:
            if n == name:
                return items
        return None

    def directives_text(self) -> str:
        """The directives in canonical spelling (`tile(i:6,j:32) pack(kj)`)."""
        return " ".join(
            n + "(" + ",".join(f"{a}:{f}" if f else a for a, f in items) + ")"
            for n, items, _ in self.directives
        )

    def schedule_text(self) -> str:
        """The `splits | order` part in canonical spelling ("" when none), with `| directives`
        after it when there are some."""
        if not self.scheduled:
            return ""
        splits = ",".join(f"{a}:" + ":".join(str(f) for f in fs) for a, fs in self.splits)
        order = "".join(str(a) for a in self.order)
        if self.directives and not splits and not order:
            return self.directives_text()
        text = f"{splits}|{order}"
        if self.directives:
            text += "|" + self.directives_text()
        return text

    def __str__(self) -> str:
        s = self.schedule_text()
        return f"{self.body()} | {s.replace('|', ' | ')}".rstrip() if s else self.body()


# the register-tiled GEMM's schedule primitives (`expr | ... | tile(i:6,j:32) pack(kj)`)
DIRECTIVES = ("tile", "vector", "block", "pack", "unroll")


def error(text: str, pos: int, message: str, hint: str | None = None) -> CompileError:
    """A CompileError showing `text` with a caret at `pos`."""
    return CompileError(message, source_line=text, col=pos, hint=hint)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def fail(self, message: str, hint: str | None = None, pos: int | None = None) -> CompileError:
        return error(self.text, self.pos if pos is None else pos, message, hint)

    def op(self) -> str | None:
        self.ws()
        for s in SYMBOLS:
            if self.text.startswith(s, self.pos):
                self.pos += len(s)
                return s
        return None

    def pattern(self, what: str) -> tuple[str, int]:
        self.ws()
        start = self.pos
        if self.peek() == ".":
            self.pos += 1
            if self.pos < len(self.text) and (
                self.text[self.pos].islower() or self.text[self.pos] == "."
            ):
                raise self.fail("a scalar pattern is a single `.`")
            return "", start
        while self.pos < len(self.text) and "a" <= self.text[self.pos] <= "z":
            self.pos += 1
        if self.pos == start:
            c = self.text[self.pos] if self.pos < len(self.text) else ""
            hint = "axes are lowercase letters a-z; `.` is a scalar" if c.isalpha() else None
            raise self.fail(f"expected {what} (lowercase axis letters or `.`)", hint)
        return self.text[start : self.pos], start

    def number(self) -> int:
        self.ws()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos].isdigit():
            self.pos += 1
        if self.pos == start:
            raise self.fail("expected a split factor (a positive integer)")
        value = int(self.text[start : self.pos])
        if value < 1:
            raise self.fail("a split factor must be at least 1", pos=start)
        return value

    def expr(self) -> tuple[Expr, dict[str, int]]:
        if not self.peek():
            raise self.fail("expected an index expression such as `ik*kj~ijk`")
        pos: dict[str, int] = {}
        op_pos = self.pos
        sym = self.op()
        if sym is not None:
            p0, pos["in0"] = self.pattern("an input pattern after the op")
            inputs: tuple[str, ...] = (p0,)
        else:
            p0, pos["in0"] = self.pattern("an input pattern or a unary op")
            if self.peek() == "~":
                sym, inputs = "+", (p0,)
            else:
                self.ws()
                op_pos = self.pos
                sym = self.op()
                if sym is None:
                    raise self.fail(
                        "expected an op (one of " + " ".join(OPS) + ") or `~` after the input"
                    )
                p1, pos["in1"] = self.pattern("a second input pattern after the op")
                inputs = (p0, p1)
        pos["op"] = op_pos
        if self.peek() != "~":
            raise self.fail("expected `~` between the inputs and the output")
        self.pos += 1
        out, pos["out"] = self.pattern("an output pattern after `~`")
        splits: list[tuple[str, tuple[int, ...]]] = []
        order: list[Atom] = []
        directives: list[tuple[str, tuple[tuple[str, int], ...], int]] = []
        scheduled = False
        if self.peek() == "|":
            scheduled = True
            self.pos += 1
            if self._at_directive():
                directives = self.directives()
            else:
                if self.peek() != "|":
                    splits = self.splits()
                if self.peek() != "|":
                    raise self.fail(
                        "expected the second `|` of the schedule (`expr | splits | order`)"
                    )
                self.pos += 1
                order = self.order()
                if self.peek() == "|":
                    self.pos += 1
                    directives = self.directives()
        if self.peek():
            raise self.fail("unexpected text after the expression")
        e = Expr(self.text, sym, inputs, out, tuple(splits), tuple(order), scheduled,
                 directives=tuple(directives))  # fmt: skip
        return e, pos

    def _at_directive(self) -> bool:
        """Whether a directive (`name(`) starts here."""
        self.ws()
        k = self.pos
        while k < len(self.text) and "a" <= self.text[k] <= "z":
            k += 1
        return k > self.pos + 1 and self.text[k : k + 1] == "("

    def directives(self) -> list[tuple[str, tuple[tuple[str, int], ...], int]]:
        out: list[tuple[str, tuple[tuple[str, int], ...], int]] = []
        while self.peek():
            start = self.pos
            if not self._at_directive():
                raise self.fail(
                    "expected a schedule directive such as `tile(i:6,j:32)`",
                    "the directives are " + ", ".join(f"`{d}`" for d in DIRECTIVES),
                )
            k = self.pos
            while self.text[k] != "(":
                k += 1
            name = self.text[self.pos : k]
            if name not in DIRECTIVES:
                raise self.fail(
                    f"unknown schedule directive `{name}`",
                    "the directives are " + ", ".join(f"`{d}`" for d in DIRECTIVES),
                )
            if any(n == name for n, _, _ in out):
                raise self.fail(f"directive `{name}` appears twice")
            self.pos = k + 1
            items: list[tuple[str, int]] = []
            while True:
                self.ws()
                a0 = self.pos
                while self.pos < len(self.text) and "a" <= self.text[self.pos] <= "z":
                    self.pos += 1
                if self.pos == a0:
                    raise self.fail(f"expected an axis (or a pattern) in `{name}(...)`")
                axis = self.text[a0 : self.pos]
                factor = 0
                if self.peek() == ":":
                    self.pos += 1
                    factor = self.number()
                items.append((axis, factor))
                if self.peek() == ",":
                    self.pos += 1
                    continue
                if self.peek() != ")":
                    raise self.fail(f"expected `,` or `)` in `{name}(...)`")
                self.pos += 1
                break
            out.append((name, tuple(items), start))
        return out

    def splits(self) -> list[tuple[str, tuple[int, ...]]]:
        out: list[tuple[str, tuple[int, ...]]] = []
        while True:
            self.ws()
            start = self.pos
            c = self.peek()
            if not ("a" <= c <= "z") or not c:
                raise self.fail("expected an axis to split, as in `i:16`")
            self.pos += 1
            if self.peek() != ":":
                raise self.fail("expected `:` and a factor after the split axis")
            factors = []
            while self.peek() == ":":
                self.pos += 1
                factors.append(self.number())
            if any(a == c for a, _ in out):
                raise self.fail(f"axis {c!r} is split twice", pos=start)
            out.append((c, tuple(factors)))
            if self.peek() == ",":
                self.pos += 1
                continue
            return out

    def order(self) -> list[Atom]:
        atoms: list[Atom] = []
        while True:
            c = self.peek()
            if not c or c == "|":
                return atoms
            start = self.pos
            if "a" <= c <= "z":
                self.pos += 1
                part = 0
                while self.pos < len(self.text) and self.text[self.pos] == "'":
                    part += 1
                    self.pos += 1
                atoms.append(Atom("axis", c, part, pos=start))
            elif c.isdigit():
                self.pos += 1
                atoms.append(Atom("input", input=int(c), pos=start))
            elif c == "!":
                self.pos += 1
                atoms.append(Atom("bang", pos=start))
            else:
                raise self.fail(
                    "expected a loop (`k`, `k'`), a compute-at digit or `!` in the order"
                )


def parse(text: str, where: tuple[str, int] | None = None) -> Expr:
    """Parse and check one index expression (with its schedule)."""
    if not isinstance(text, str):
        raise CompileError(f"an index expression is a string such as 'ik*kj~ijk', got {text!r:.60}")
    e, pos = _Parser(text).expr()
    e = Expr(e.text, e.op, e.inputs, e.output, e.splits, e.order, e.scheduled,
             directives=e.directives, where=where)  # fmt: skip
    check(e, pos)
    return e


def check(e: Expr, pos: dict[str, int]) -> None:
    """The rules a well-formed expression and schedule obey, as CompileErrors at the text."""
    t = e.text
    info = OPS[e.op]
    for k, a in enumerate(e.output):
        if a in e.output[:k]:
            raise error(t, pos["out"] + k, f"output axis {a!r} appears twice",
                        "each output axis names one dimension of the result")  # fmt: skip
        if not any(a in p for p in e.inputs):
            raise error(t, pos["out"] + k, f"output axis {a!r} is in no input",
                        "the output's shape comes from the inputs: every output axis must "
                        "appear left of `~`")  # fmt: skip
    if e.op == "!!" and not e.unary:
        raise error(t, pos["op"], "`!!` (not) is unary only", "write `!!i~i`")
    if e.reduced:
        first = min(t.find(a, pos["in0"]) for a in e.reduced if t.find(a, pos["in0"]) >= 0)
        names = ", ".join(repr(a) for a in e.reduced)
        if not e.unary:
            raise error(t, first, f"a binary expression cannot reduce ({names} left of `~` but "
                        "not in the output)", "compute the product and reduce it in two "
                        "expressions chained: i('ik*kj~ijk') >> i('+ijk~ij')")  # fmt: skip
        if not info.reducible:
            raise error(t, pos["op"], f"`{e.op}` ({info.name}) cannot reduce over {names}",
                        "the reducible ops are + * > < && || ^^")  # fmt: skip
    if not e.scheduled:
        return
    axes = e.axes
    split = dict(e.splits)
    for a, _ in e.splits:
        if a not in axes:
            k = t.find(a + ":", t.find("|"))
            raise error(t, k, f"split of axis {a!r}, which the expression does not have",
                        f"its axes are {', '.join(axes) or 'none'}")  # fmt: skip
    seen: dict[tuple[str, int], Atom] = {}
    inputs_seen: set[int] = set()
    bang: Atom | None = None
    for atom in e.order:
        if atom.kind == "axis":
            if atom.axis not in axes:
                raise error(t, atom.pos, f"the order names axis {atom.axis!r}, which the "
                            "expression does not have")  # fmt: skip
            if atom.part > len(split.get(atom.axis, ())):
                n = len(split.get(atom.axis, ()))
                raise error(t, atom.pos, f"`{atom}` needs axis {atom.axis!r} split "
                            f"{atom.part} time(s), but it is split {n} time(s)")  # fmt: skip
            if (atom.axis, atom.part) in seen:
                raise error(t, atom.pos, f"loop `{atom}` appears twice in the order")
            seen[(atom.axis, atom.part)] = atom
        elif atom.kind == "input":
            if atom.input >= len(e.inputs):
                raise error(t, atom.pos, f"compute-at directive {atom.input} names input "
                            f"{atom.input}, but the expression has {len(e.inputs)} input(s)",
                            "0 is the first input, 1 the second")  # fmt: skip
            if atom.input in inputs_seen:
                raise error(t, atom.pos, f"compute-at directive {atom.input} appears twice")
            inputs_seen.add(atom.input)
        else:
            if bang is not None:
                raise error(t, atom.pos, "`!` (where the output is initialised) appears twice")
            if not e.reduced:
                raise error(t, atom.pos, "`!` marks where a reduction's output is initialised, "
                            "but this expression reduces nothing")  # fmt: skip
            bang = atom
    if any(a.kind == "axis" for a in e.order):
        for a in axes:
            for part in range(len(split.get(a, ())) + 1):
                if (a, part) not in seen:
                    name = a + "'" * part
                    raise error(t, len(t.rstrip()), f"the order does not place loop `{name}`",
                                "an order lists every loop part once")  # fmt: skip
    if bang is not None:
        for atom in e.order:
            before = e.order.index(atom) < e.order.index(bang)
            if atom.kind == "axis" and atom.axis in e.reduced and before:
                raise error(t, bang.pos, f"`!` comes after reduction loop `{atom}`: the output "
                            "would be reset inside its own reduction",
                            "place `!` after the output's loops and before the reduced "
                            "ones")  # fmt: skip
            if atom.kind == "axis" and atom.axis in e.output and not before:
                raise error(t, bang.pos, f"`!` comes before output loop `{atom}`: the output "
                            "must be initialised inside every loop over its own axes",
                            "place `!` after the output's loops and before the reduced "
                            "ones")  # fmt: skip
