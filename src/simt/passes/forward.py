"""Store-to-load forwarding in the per-thread arena (`frontend.arena`): a load of an arena word
that the thread itself stored earlier reads the stored value, and a load of a word of the
thread's own region that nothing stored to since the launch zeroed it reads 0.

The front end's growable values (lists, strings, dicts, sets) keep their headers and bump
pointers in the arena and read them back after each step; with the values known, folding takes
the arithmetic, the branches and the loops that depend on them (a set's first `add` probes an
empty table: no loop), so the IR of such a kernel shrinks before any backend compiles it.

The arena is the thread's own (no other thread writes its region, no barrier orders it), so
only the thread's own stores can change what a load reads there: unlike global and shared
memory (`cse.py` merges loads only while no store of any array lies between). Two indices are
told apart by their linear forms (sums of values times coefficients plus a constant, through
`add`, `sub` and constants): the same form is the same word, forms that differ only in the
constant are different words, anything else may be the same word. The bump pointers' words
(`arena="count"`, at constant offsets) are reached by no other access: a store of a list's
item never makes the thread forget them. A store in an `if` or a loop
forgets what it may overwrite after that op; a loop's body starts without what a store in the
loop may overwrite (the body runs again after it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..ir import Block, Function, Op, Value, walk
from ..ir.nodes import Hidden, heap_words
from ..ir.ops import STORES
from .rewrite import Subst

# a linear form: ((value id, coefficient), ...) sorted by id, and the constant
Form = tuple[tuple[tuple[int, int], ...], int]
_DEPTH = 12  # add/sub levels followed into an index before it is taken as one term


def forward(fn: Function) -> Function:
    """Forward the arena's stores to its loads in `fn`, in place; returns `fn`."""
    arrays = {p.value.id: p for p in fn.params if p.hidden is Hidden.ARENA}
    if not arrays:
        return fn
    heap = fn.attrs.get("heap")
    words = {
        i: heap_words(p.value.array.dtype, heap) if isinstance(heap, int) else 0
        for i, p in arrays.items()
    }  # fmt: skip
    spaces: dict[Space, set[int] | None] = {(i, c): set() for i in arrays for c in (False, True)}
    _Pass(fn, arrays.keys(), words).block(fn.body, _State(spaces))
    return fn


# where an access goes: (the array's value id, whether it is a bump pointer's word)
Space = tuple[int, bool]


def _space(op: Op) -> Space:
    return op.operands[0].id, op.attrs.get("arena") == "count"


class _State:
    """What the thread knows of its arena at a point: the value at each word it stored (by
    space and index form), and per space the constant offsets from its region's start
    stored since the launch (None: a store whose word is not known may have hit any)."""

    def __init__(self, untouched: dict[Space, set[int] | None]) -> None:
        self.known: dict[tuple[Space, Form], Value] = {}
        self.stored = untouched

    def copy(self) -> _State:
        s = _State({a: None if c is None else set(c) for a, c in self.stored.items()})
        s.known = dict(self.known)
        return s


class _Pass:
    def __init__(self, fn: Function, arrays: Iterable[int], words: dict[int, int]) -> None:
        self.arrays = set(arrays)
        self.words = words
        self.defs: dict[int, Op] = {r.id: op for op in walk(fn.body) for r in op.results}
        self.bases: dict[int, int] = dict(fn.attrs.get("arena_bases", ()))
        self.forms: dict[int, Form] = {}
        self.subst = Subst()

    # -- index forms ------------------------------------------------------------------------
    def form(self, v: Value, depth: int = 0) -> Form:
        f = self.forms.get(v.id)
        if f is None:
            f = self.forms[v.id] = self._form(v, depth)
        return f

    def _form(self, v: Value, depth: int) -> Form:
        op = self.defs.get(v.id)
        t = v.type
        bits = getattr(t, "bits", 0)
        if op is not None and getattr(t, "is_int", False) and bits:
            mask = (1 << bits) - 1
            if op.opcode == "const" and type(op.attrs.get("value")) is int:
                return (), op.attrs["value"] & mask
            if (
                op.opcode == "bin" and op.attrs.get("op") in ("add", "sub") and depth < _DEPTH
                and all(o.type == t for o in op.operands)
            ):  # fmt: skip
                (ta, ca), (tb, cb) = (self.form(o, depth + 1) for o in op.operands)
                sign = 1 if op.attrs["op"] == "add" else -1
                terms = dict(ta)
                for i, c in tb:
                    terms[i] = (terms.get(i, 0) + sign * c) & mask
                return (
                    tuple(sorted((i, c) for i, c in terms.items() if c)),
                    (ca + sign * cb) & mask,
                )
        return ((v.id, 1),), 0

    @staticmethod
    def may_alias(f: Form, g: Form) -> bool:
        return f[0] != g[0] or f[1] == g[1]

    def offset(self, array: int, f: Form) -> int | None:
        """The word `f` names in the thread's own region of `array`, from its start (the
        front end's `base + offset`, `frontend.arena`; the bases by value id in the
        function's `arena_bases`), or None."""
        terms, c = f
        if len(terms) != 1 or terms[0] != (self.bases.get(array), 1):
            return None
        return c if 0 <= c < self.words[array] else None

    # -- the walk ---------------------------------------------------------------------------
    def block(self, block: Block, st: _State) -> None:
        kept: list[Op] = []
        for op in block.ops:
            self.subst.apply(op)
            k = op.opcode
            if k == "load" and op.operands[0].id in self.arrays and len(op.operands) == 2:
                if self.load(op, st):
                    continue
            elif k in STORES and op.operands[0].id in self.arrays:
                self.store(op, st)
            elif op.regions:
                self.structured(op, st)
            kept.append(op)
        block.ops = kept

    def load(self, op: Op, st: _State) -> bool:
        """Forward to load `op`: True when it went (its result reads the stored value), or
        when it became the constant 0."""
        a = _space(op)
        f = self.form(op.operands[1])
        v = st.known.get((a, f))
        # (an 8-bit array stores a value cut to its width: only a load of the array's own
        # element type reads back what was stored)
        if v is not None and v.type == op.result.type == op.operands[0].array.dtype:
            self.subst.set(op.result, v)
            return True
        stored = st.stored[a]
        c = None if stored is None else self.offset(a[0], f)
        if c is not None and c not in stored:  # type: ignore[operator]
            t = op.result.type
            zero = False if t.is_bool else 0.0 if t.is_float else 0  # type: ignore[union-attr]
            op.opcode, op.operands, op.attrs = "const", [], {"value": zero}
            self.defs[op.result.id] = op
            self.forms.pop(op.result.id, None)
        st.known[(a, f)] = op.result  # (a later load of the same word reads this one)
        return False

    def store(self, op: Op, st: _State) -> None:
        a = _space(op)
        if len(op.operands) != 3 and op.opcode == "store":
            self.forget(st, a, None)
            return
        f = self.form(op.operands[1])
        self.forget(st, a, f)
        if op.opcode == "store":
            st.known[(a, f)] = op.operands[2]

    def forget(self, st: _State, a: Space, f: Form | None) -> None:
        """Forget what a store to word `f` of space `a` (None: any word) may overwrite: in its
        own space; a bump pointer's store in the other space too (a word read outside `top`
        and `alloc`), and so an item's store at a constant offset (never one at an offset
        known only at run time: no item lies in the bump pointers' words)."""
        array, count = a
        c = None if f is None else self.offset(array, f)
        reach = {a, (array, not count)} if count or c is not None else {a}
        st.known = {
            key: v for key, v in st.known.items()
            if key[0] not in reach or (f is not None and not self.may_alias(key[1], f))
        }  # fmt: skip
        for space in reach:
            stored = st.stored[space]
            if stored is None:
                continue
            if c is None:
                st.stored[space] = None
            else:
                stored.add(c)

    def stores_in(self, op: Op) -> Iterator[tuple[Space, Form | None]]:
        for r in op.regions:
            for o in walk(r):
                if o.opcode in STORES and o.operands[0].id in self.arrays:
                    ok = len(o.operands) == 3 or o.opcode != "store"
                    yield _space(o), self.form(o.operands[1]) if ok else None

    def structured(self, op: Op, st: _State) -> None:
        writes = list(self.stores_in(op))
        if op.opcode in ("for", "while"):
            for a, f in writes:  # the body runs again after its own stores
                self.forget(st, a, f)
        for r in op.regions:
            self.block(r, st.copy())
        for a, f in writes:
            self.forget(st, a, f)
