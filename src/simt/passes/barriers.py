"""Barriers out of thread-dependent control: every thread of a block at every barrier.

Kernels may wait at `syncthreads()` after some threads returned (`if i >= n: return` at the
top of a tiled kernel), inside `if i < a.size:` that every thread takes, or in a loop some
threads leave early (they returned). On NVIDIA hardware exited threads leave the barrier's
count; `sim` runs such kernels as they are (lanes under masks, `exit` ops marking the threads
that returned, a KernelError when threads of a block reach different barriers). WGSL requires
every barrier in uniform control flow, and the CPU's SPMD lowering places barriers between
thread loops, so for those backends (and CUDA, which then never depends on how the hardware
counts exited threads) `lift` rewrites the kernel so that each barrier is reached by all
threads of the block, with the work around it guarded by the condition that led there:

    if c:                       a = if c { A; yield x } else { yield 0 }
        A                       barrier
        barrier         ->      if c { B(a) }
        B

- an `if` on a thread-dependent condition holding a barrier becomes its branches' pieces, each
  under `guard and c` / `guard and not c`, with the barriers between them; values that cross
  a barrier leave their piece as results of its guard `if` (zero for the threads outside);
  the `if`'s own results are `select`s;
- a loop with block-uniform bounds keeps running in every thread, its body lifted under the
  guard;
- any other loop (thread-dependent bounds or condition, or bounds computed under a guard)
  runs while *any* thread of the block is still in it: each iteration every thread says
  through a shared flag whether it goes on (`flag = iteration` by those that do, then a
  barrier and a read every thread agrees on: WGSL's `workgroupUniformLoad`), and the threads
  that have left keep their values.

"Uniform" here is the SPMD lowering's notion (`varying(loads=False)`): a condition read from
memory counts as thread-dependent, which is also what WGSL's uniformity analysis requires.
"""

from __future__ import annotations

from ..errors import CompileError
from ..ir import Block, Function, Op, Value, walk, walk_blocks
from ..ir.ops import PURE, STRUCTURED
from ..types import BOOL, INT32, SHARED, ArrayType, Scalar
from .dce import dce
from .uniformity import varying


def has_barrier(op: Op) -> bool:
    """Whether `op` is a barrier or holds one."""
    return op.opcode == "barrier" or any(o.opcode == "barrier" for r in op.regions for o in walk(r))


def strip_exits(fn: Function) -> Function:
    """`fn` without its `exit` markers (in place, and returned; dead code removed)."""
    found = False
    for blk in walk_blocks(fn.body):
        kept = [op for op in blk.ops if op.opcode != "exit"]
        found |= len(kept) != len(blk.ops)
        blk.ops = kept
    return dce(fn) if found else fn


def lift(fn: Function, slots: int = 1024) -> Function:
    """`fn` with every barrier in block-uniform control (see the module docstring) and no
    `exit` ops; changed in place and returned. In debug mode (`fn.debug`) each barrier the
    user wrote also checks, as `sim` does, that every thread of the block reached it or
    returned (`slots`: the most threads a block has on the target): an `assert` failing in a
    thread that is elsewhere."""
    var = varying(fn, loads=False)
    if not any(_divergent(op, var) for op in walk(fn.body) if has_barrier(op)):
        return strip_exits(fn)
    if not fn.debug:
        fn = strip_exits(fn)
        var = varying(fn, loads=False)
    _hoist_allocs(fn)
    lifter = _Lifter(fn, var)
    if fn.debug:
        lifter.watch_exits(slots)
    body = lifter.block(list(fn.body.ops), None)
    fn.body.ops = [*lifter.top, *body]
    lifter.finish()
    return dce(fn)


def _divergent(op: Op, var: set[int]) -> bool:
    """Whether structured `op`'s own control depends on the thread."""
    if op.opcode == "if":
        return op.operands[0].id in var
    if op.opcode == "for":
        return any(v.id in var for v in op.operands[:3])
    if op.opcode == "while":
        term = op.regions[0].terminator
        return term is None or term.operands[0].id in var
    return False


def _hoist_allocs(fn: Function) -> None:
    """Shared and local arrays are made once, at the top (guards would hide them)."""
    allocs: list[Op] = []
    for blk in walk_blocks(fn.body):
        if blk is fn.body:
            continue
        allocs += [op for op in blk.ops if op.opcode == "alloc"]
        blk.ops = [op for op in blk.ops if op.opcode != "alloc"]
    fn.body.ops[:0] = allocs


class _Lifter:
    def __init__(self, fn: Function, var: set[int]) -> None:
        self.fn = fn
        self.var = var
        self.top: list[Op] = []  # ops for the top of the kernel (the loops' flags)
        self.map: dict[int, Value] = {}  # value id -> the value that replaces it
        self.inside: dict[int, set[int]] = {}  # ... except in these ops (ids of Op objects)
        self.users: dict[int, list[Op]] = {}
        for op in walk(fn.body):
            for v in op.operands:
                self.users.setdefault(v.id, []).append(op)
        self.defs = {r.id: op for op in walk(fn.body) for r in op.results}
        self.gone: tuple[Value, Value] | None = None  # debug: (returned flags, thread index)

    def watch_exits(self, slots: int) -> None:
        """Debug mode: a shared flag per thread, set where it returns from the kernel."""
        flags = Op("alloc", [], [Value(ArrayType(INT32, 1, SHARED, (slots,)), "returned")])
        ops: list[Op] = [flags]

        def emit(opcode: str, operands: list[Value], t: Scalar, **attrs: object) -> Value:
            o = Op(opcode, operands, [Value(t)], dict(attrs))
            ops.append(o)
            return o.result

        tid = [emit("special", [], INT32, reg="thread_idx", axis=a) for a in range(3)]
        dim = [emit("special", [], INT32, reg="block_dim", axis=a) for a in range(2)]
        lin = emit("bin", [tid[0], emit("bin", [tid[1], dim[0]], INT32, op="mul")], INT32,
                   op="add")  # fmt: skip
        plane = emit("bin", [dim[0], dim[1]], INT32, op="mul")
        lin = emit("bin", [lin, emit("bin", [tid[2], plane], INT32, op="mul")], INT32, op="add")
        ops.append(Op("store", [flags.result, lin, emit("const", [], INT32, value=0)]))
        self.top += ops
        self.gone = (flags.result, lin)
        for blk in walk_blocks(self.fn.body):  # each `exit` sets the thread's flag
            new: list[Op] = []
            for op in blk.ops:
                if op.opcode == "exit":
                    one = _const(1, INT32)
                    new += [one, Op("store", [flags.result, lin, one.result], [], {}, [], op.loc)]
                else:
                    new.append(op)
            blk.ops = new

    def _check(self, op: Op, guard: Value, out: list[Op]) -> None:
        """Debug mode, before user barrier `op` reached under `guard`: a thread outside the
        guard must have returned."""
        assert self.gone is not None
        flags, lin = self.gone
        x = Op("load", [flags, lin], [Value(INT32)])
        one = _const(1, INT32)
        left = Op("cmp", [x.result, one.result], [Value(BOOL)], {"op": "eq"})
        ok = Op("bin", [guard, left.result], [Value(BOOL)], {"op": "or"})
        line = op.loc.line if op.loc else 0
        msg = (f"threads of one block reach different barriers: this thread is not at the "
               f"syncthreads() of line {line}, which other threads of its block reached, "
               "and has not returned from the kernel (on a GPU the block hangs or its "
               "results are undefined); every thread of a block must reach the same "
               "syncthreads() or return")  # fmt: skip
        # (`view_check`: the message is said as it is, as a view's bounds check's is)
        check = Op("assert", [ok.result], [], {"msg": msg, "view_check": True}, [], op.loc)
        out += [x, one, left, ok, check]

    # ---- the walk ----------------------------------------------------------------------
    def block(self, ops: list[Op], guard: Value | None) -> list[Op]:
        """`ops` (a region's body without its terminator) with its barriers at the top
        level, the rest under `guard` (None: every thread runs them)."""
        out: list[Op] = []
        seg: list[Op] = []
        for op in ops:
            if op.opcode == "barrier" or op.attrs.get("everyone"):
                # (an `everyone` op runs in every thread, whatever led here: passes.warps)
                out += self.guarded(seg, guard)
                seg = []
                if (op.opcode == "barrier" and guard is not None and self.gone is not None
                        and op.loc is not None and not op.attrs.get("internal")):  # fmt: skip
                    self._check(op, guard, out)
                out.append(op)

            elif op.opcode in STRUCTURED and has_barrier(op):
                out += self.guarded(seg, guard)
                seg = []
                out += getattr(self, "lift_" + op.opcode)(op, guard)
            else:
                seg.append(op)
        out += self.guarded(seg, guard)
        return out

    def guarded(self, seg: list[Op], guard: Value | None) -> list[Op]:
        """`seg` under `if guard`; the values later ops use leave as its results."""
        if guard is None or not seg:
            return list(seg)
        inside = {id(o) for op in seg for o in (op, *(x for r in op.regions for x in walk(r)))}
        outs = [r for op in seg for r in op.results
                if any(id(u) not in inside for u in self.users.get(r.id, []))]  # fmt: skip
        zeros: list[Op] = []
        for r in outs:
            if not isinstance(r.type, Scalar):
                loc = self.defs[r.id].loc
                raise CompileError(
                    "an array made here is used after a syncthreads() that only some threads "
                    "reach on this path",
                    filename=loc.filename if loc else None,
                    line=loc.line if loc else None,
                    col=loc.col if loc else None,
                    source_line=loc.source_line if loc else None,
                    hint="make the array (or the view) before the if/loop",
                )
            zeros.append(_const(False if r.type == BOOL else 0, r.type))
        done = Op("yield", list(outs))
        inside.add(id(done))
        then = Block([], [*seg, done])
        other = Block([], [*zeros, Op("yield", [z.result for z in zeros])])
        new = Op("if", [guard], [Value(r.type, r.hint) for r in outs], {}, [then, other],
                 seg[0].loc)  # fmt: skip
        for r, n in zip(outs, new.results):
            self.map[r.id] = n
            self.inside[r.id] = inside  # (uses in the piece itself keep `r`)
        return [new]

    def _and(self, out: list[Op], guard: Value | None, c: Value, positive: bool) -> Value:
        if not positive:
            neg = Op("un", [c], [Value(BOOL)], {"op": "not"})
            out.append(neg)
            c = neg.result
        if guard is None:
            return c
        both = Op("bin", [guard, c], [Value(BOOL)], {"op": "and"})
        out.append(both)
        return both.result

    # ---- structured ops holding barriers -------------------------------------------------
    def lift_if(self, op: Op, guard: Value | None) -> list[Op]:
        c = op.operands[0]
        if guard is None and c.id not in self.var:
            for r in op.regions:
                r.ops = [*self.block(r.ops[:-1], None), r.ops[-1]]
            return [op]
        out: list[Op] = []
        then, other = op.regions
        gt = self._and(out, guard, c, True)
        out += self.block(then.ops[:-1], gt)
        ge = self._and(out, guard, c, False)
        out += self.block(other.ops[:-1], ge)
        for res, a, b in zip(op.results, then.ops[-1].operands, other.ops[-1].operands):
            sel = Op("select", [c, a, b], [Value(res.type, res.hint)], {}, [], op.loc)
            out.append(sel)
            self.map[res.id] = sel.result
        return out

    def lift_for(self, op: Op, guard: Value | None) -> list[Op]:
        bounds = op.operands[:3]
        if all(v.id not in self.var for v in bounds):
            out: list[Op] = []
            if guard is None:
                new_bounds: list[Value] | None = list(bounds)
            else:
                new_bounds = [self._remat(v, out) for v in bounds]  # type: ignore[misc]
                if any(b is None for b in new_bounds):
                    new_bounds = None
            if new_bounds is not None:
                op.operands[:3] = new_bounds
                (body,) = op.regions
                body.ops = [*self.block(body.ops[:-1], guard), body.ops[-1]]
                return [*out, op]
        loop = _as_while(op)
        self._index(loop)
        return self.lift_while(loop, guard)

    def _index(self, op: Op) -> None:
        """Note the uses and definitions of the ops in `op` (made or changed here)."""
        for o in (op, *(x for r in op.regions for x in walk(r))):
            for v in o.operands:
                users = self.users.setdefault(v.id, [])
                if all(u is not o for u in users):
                    users.append(o)
            for r in o.results:
                self.defs[r.id] = o

    def _remat(self, v: Value, out: list[Op]) -> Value | None:
        """`v` recomputed here from block-level values (None when it cannot be)."""
        if v.id in self.map:
            return None  # made under a guard, or carried by a rewritten loop
        d = self.defs.get(v.id)
        if d is None:
            return v  # a parameter or a block argument of an enclosing uniform loop
        if d.opcode not in PURE or (d.opcode == "special" and d.attrs["reg"] == "thread_idx"):
            return None
        args = [self._remat(a, out) for a in d.operands]
        if any(a is None for a in args):
            return None
        new = Op(d.opcode, args, [Value(v.type, v.hint)], dict(d.attrs), [], d.loc)  # type: ignore[arg-type]
        out.append(new)
        return new.result

    def lift_while(self, op: Op, guard: Value | None) -> list[Op]:
        cond, body = op.regions
        term = cond.ops[-1]
        if guard is None and term.operands[0].id not in self.var:
            body.ops = [*self.block(body.ops[:-1], None), body.ops[-1]]
            return [op]
        out: list[Op] = []
        flag = Op("alloc", [], [Value(ArrayType(INT32, 1, SHARED, (1,)), "going")])
        self.top.append(flag)
        zero, true_ = _const(0, INT32), _const(True, BOOL)
        out += [zero, true_]
        # the flag starts at 0 (thread 0 writes it between two barriers)
        out.append(Op("barrier"))
        first = None
        for axis in range(3):
            t = Op("special", [], [Value(INT32)], {"reg": "thread_idx", "axis": axis})
            eq = Op("cmp", [t.result, zero.result], [Value(BOOL)], {"op": "eq"})
            out += [t, eq]
            if first is None:
                first = eq.result
            else:
                both = Op("bin", [first, eq.result], [Value(BOOL)], {"op": "and"})
                out.append(both)
                first = both.result
        assert first is not None
        out.append(_when(first, [Op("store", [flag.result, zero.result, zero.result])]))
        out.append(Op("barrier"))
        # carried: the loop's values, whether this thread is still in the loop, the iteration
        # count, whether any thread is
        types = [a.type for a in body.args]
        c_args = [Value(t, a.hint) for t, a in zip(types, body.args)]
        b_args = [Value(t, a.hint) for t, a in zip(types, body.args)]
        c_act, c_it, c_go = Value(BOOL, "in_loop"), Value(INT32, "it"), Value(BOOL, "going")
        b_act, b_it, b_go = Value(BOOL, "in_loop"), Value(INT32, "it"), Value(BOOL, "going")
        for old_c, old_b, arg in zip(cond.args, body.args, b_args):
            self.map[old_c.id] = arg
            self.map[old_b.id] = arg
        ops: list[Op] = []
        # still in the loop: was, and its condition holds
        test = Value(BOOL)
        f = _const(False, BOOL)
        still = Op("if", [b_act], [test], {}, [
            Block([], [*cond.ops[:-1], Op("yield", [term.operands[0]])]),
            Block([], [f, Op("yield", [f.result])]),
        ], op.loc)  # fmt: skip
        one = _const(1, INT32)
        nxt = Op("bin", [b_it, one.result], [Value(INT32, "it")], {"op": "add"})
        ops += [still, one, nxt]
        ops.append(_when(test, [Op("store", [flag.result, zero.result, nxt.result])]))
        ops.append(Op("barrier"))
        seen = Op("load", [flag.result, zero.result], [Value(INT32)], {"uniform": True})
        go = Op("cmp", [seen.result, nxt.result], [Value(BOOL, "going")], {"op": "eq"})
        ops += [seen, go]
        # the body, when any thread goes on; those that left keep their values
        inner = self.block(body.ops[:-1], test)
        keep = []
        for y, a in zip(body.ops[-1].operands, b_args):
            sel = Op("select", [test, y, a], [Value(a.type, a.hint)])
            keep.append(sel)
        run = Block([], [*inner, *keep, Op("yield", [s.result for s in keep])])
        skip = Block([], [Op("yield", list(b_args))])
        step = Op("if", [go.result], [Value(t) for t in types], {}, [run, skip], op.loc)
        ops.append(step)
        ops.append(Op("yield", [*step.results, test, nxt.result, go.result]))
        init_act = guard if guard is not None else true_.result
        new = Op(
            "while",
            [*op.operands, init_act, zero.result, true_.result],
            [*(Value(r.type, r.hint) for r in op.results), Value(BOOL), Value(INT32),
             Value(BOOL)],
            {},
            [Block([*c_args, c_act, c_it, c_go], [Op("condition", [c_go])]),
             Block([*b_args, b_act, b_it, b_go], ops)],
            op.loc,
        )  # fmt: skip
        for r, n in zip(op.results, new.results):
            self.map[r.id] = n
        out.append(new)
        return out

    # ---- the end -------------------------------------------------------------------------
    def finish(self) -> None:
        """Point every use at the values that replaced the ones it used."""

        def resolve(v: Value, user: int) -> Value:
            while v.id in self.map and user not in self.inside.get(v.id, ()):
                v = self.map[v.id]
            return v

        for op in walk(self.fn.body):
            op.operands = [resolve(v, id(op)) for v in op.operands]


def _const(value: bool | int, t: Scalar) -> Op:
    return Op("const", [], [Value(t)], {"value": value})


def _when(cond: Value, ops: list[Op]) -> Op:
    return Op("if", [cond], [], {}, [Block([], [*ops, Op("yield")]), Block([], [Op("yield")])])


def _as_while(op: Op) -> Op:
    """`for iv in range(start, stop, step)` as the `while` it means (the step's sign from the
    loop's `sign` attribute, or tested at run time)."""
    start, stop, step, *inits = op.operands
    (body,) = op.regions
    iv = body.args[0]
    args = [Value(a.type, a.hint) for a in body.args]
    sign = op.attrs.get("sign", 0)
    cond_ops: list[Op] = []
    test = Value(BOOL)
    if sign:
        cond_ops.append(Op("cmp", [args[0], stop], [test], {"op": "lt" if sign > 0 else "gt"}))
    else:
        z = _const(0, iv.scalar)
        up, lt, gt = Value(BOOL), Value(BOOL), Value(BOOL)
        cond_ops += [
            z,
            Op("cmp", [step, z.result], [up], {"op": "gt"}),
            Op("cmp", [args[0], stop], [lt], {"op": "lt"}),
            Op("cmp", [args[0], stop], [gt], {"op": "gt"}),
            Op("select", [up, lt, gt], [test]),
        ]
    cond = Block(args, [*cond_ops, Op("condition", [test])])
    nxt = Value(iv.type, iv.hint)
    body.ops.insert(len(body.ops) - 1, Op("bin", [iv, step], [nxt], {"op": "add"}, [], op.loc))
    body.ops[-1].operands = [nxt, *body.ops[-1].operands]
    results = [Value(iv.type, iv.hint), *op.results]
    return Op("while", [start, *inits], results, {}, [cond, body], op.loc)
