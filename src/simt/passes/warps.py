"""Warp functions through shared memory and barriers, for backends without warp instructions.

`sim` and CUDA run the IR's `warp` ops as they are. For the others (the CPU's SPMD lowering,
WGSL, whose subgroups are not 32 lanes wide on most adapters) `lower` writes each one with
block-wide scratch arrays, one slot per thread of the block, and barriers (which
`passes.barriers.lift` then places where every thread meets them, so a warp function under
a thread-dependent condition still sees exactly the lanes that run it):

- a shuffle: barrier; `scratch[t] = value`; barrier; read the source lane's slot (the
  thread's own where the source is outside the warp or the block);
- a vote (`ballot`, `all`, `any`, `activemask`): barrier; every thread clears its slot;
  barrier; each thread running the call writes `1 | predicate << 1`; barrier; each reads the
  32 slots of its warp (bit 0: ran it, bit 1: its predicate);
- `syncwarp`: a barrier (every warp of the block waits; a stronger order than CUDA's).

Warps are 32 threads of a block in linear order (`t = x + y * bx + z * bx * by`), as on
NVIDIA hardware. The clearing stores are marked `everyone`: `lift` leaves them outside any
guard (every thread clears its own slot, running the call or not); the barriers are marked
`internal` (debug mode checks only the user's barriers).
"""

from __future__ import annotations

from ..ir import Block, Function, Op, Value, walk_blocks
from ..types import BOOL, INT32, SHARED, UINT32, ArrayType, Scalar

WARP = 32


class _Lowering:
    def __init__(self, fn: Function, slots: int) -> None:
        self.fn = fn
        self.slots = slots
        self.scratch: dict[Scalar, Value] = {}
        self.top: list[Op] = []

    def array(self, t: Scalar, hint: str) -> Value:
        arr = self.scratch.get(t)
        if arr is None:
            op = Op("alloc", [], [Value(ArrayType(t, 1, SHARED, (self.slots,)), hint)])
            self.top.append(op)
            arr = self.scratch[t] = op.result
        return arr

    def lower(self, op: Op) -> list[Op]:
        out: list[Op] = []
        kind = op.attrs["op"]

        def emit(
            opcode: str, operands: list[Value], t: Scalar | None = None, **attrs: object
        ) -> Value:
            o = Op(opcode, operands, [Value(t)] if t is not None else [], dict(attrs), [], op.loc)
            out.append(o)
            return o.result if t is not None else operands[0]

        def const(v: int | bool, t: Scalar = INT32, **attrs: object) -> Value:
            return emit("const", [], t, value=v, **attrs)

        def linear(**attrs: object) -> tuple[Value, Value]:
            """(thread's linear index in the block, threads in the block)."""
            tx = emit("special", [], INT32, reg="thread_idx", axis=0, **attrs)
            ty = emit("special", [], INT32, reg="thread_idx", axis=1, **attrs)
            tz = emit("special", [], INT32, reg="thread_idx", axis=2, **attrs)
            bx = emit("special", [], INT32, reg="block_dim", axis=0, **attrs)
            by = emit("special", [], INT32, reg="block_dim", axis=1, **attrs)
            bz = emit("special", [], INT32, reg="block_dim", axis=2, **attrs)
            bxy = emit("bin", [bx, by], INT32, op="mul", **attrs)
            lin = emit("bin", [tx, emit("bin", [ty, bx], INT32, op="mul", **attrs)], INT32,
                       op="add", **attrs)  # fmt: skip
            lin = emit("bin", [lin, emit("bin", [tz, bxy], INT32, op="mul", **attrs)], INT32,
                       op="add", **attrs)  # fmt: skip
            return lin, emit("bin", [bxy, bz], INT32, op="mul", **attrs)

        if kind == "syncwarp":
            out.append(Op("barrier", [], [], {"internal": True}, [], op.loc))
            return out
        lin, n = linear()
        lane = emit("bin", [lin, const(WARP - 1)], INT32, op="and")
        first = emit("bin", [lin, lane], INT32, op="sub")
        if kind.startswith("shfl"):
            _, value, k = op.operands
            t = value.scalar
            arr = self.array(t, f"warp_{t.name}")
            out.append(Op("barrier", [], [], {"internal": True}, [], op.loc))
            emit("store", [arr, lin, value])
            out.append(Op("barrier", [], [], {"internal": True}, [], op.loc))
            src = {
                "shfl": lambda: emit("bin", [k, const(WARP - 1)], INT32, op="and"),
                "shfl_up": lambda: emit("bin", [lane, k], INT32, op="sub"),
                "shfl_down": lambda: emit("bin", [lane, k], INT32, op="add"),
                "shfl_xor": lambda: emit(
                    "bin", [lane, emit("bin", [k, const(WARP - 1)], INT32, op="and")], INT32,
                    op="xor"),
            }[kind]()  # fmt: skip
            at = emit("bin", [first, src], INT32, op="add")
            ok = emit("bin", [emit("cmp", [src, const(0)], BOOL, op="ge"),
                              emit("cmp", [src, const(WARP)], BOOL, op="lt")], BOOL,
                      op="and")  # fmt: skip
            ok = emit("bin", [ok, emit("cmp", [at, n], BOOL, op="lt")], BOOL, op="and")
            got = emit("load", [arr, emit("select", [ok, at, lin], INT32)], t)
            out.append(Op("cast", [got], [op.result], {}, [], op.loc))  # keeps its uses
            return out
        votes = self.array(INT32, "warp_votes")
        out.append(Op("barrier", [], [], {"internal": True}, [], op.loc))
        mine, _ = linear(everyone=True)
        emit("store", [votes, mine, const(0, everyone=True)], everyone=True)
        out.append(Op("barrier", [], [], {"internal": True}, [], op.loc))
        pred = op.operands[1] if kind in ("ballot", "all", "any") else const(True, BOOL)
        two = emit("select", [pred, const(3), const(1)], INT32)
        emit("store", [votes, lin, two])
        out.append(Op("barrier", [], [], {"internal": True}, [], op.loc))
        # the warp's 32 slots: bit 0 says the lane ran the call, bit 1 its predicate
        zero_u = const(0, UINT32)
        body = Block([Value(INT32, "j"), Value(UINT32, "ran"), Value(UINT32, "said")])
        j, ran, said = body.args
        bo: list[Op] = []

        def b(opcode: str, operands: list[Value], t: Scalar, **attrs: object) -> Value:
            o = Op(opcode, operands, [Value(t)], dict(attrs))
            bo.append(o)
            return o.result

        at = b("bin", [first, j], INT32, op="add")
        inside = b("cmp", [at, n], BOOL, op="lt")
        c0 = b("const", [], INT32, value=0)
        w = b("load", [votes, b("select", [inside, at, lin], INT32)], INT32)
        w = b("select", [inside, w, c0], INT32)
        wu = b("cast", [w], UINT32)
        ju = b("cast", [j], UINT32)
        one = b("const", [], UINT32, value=1)
        ran_bit = b("bin", [b("bin", [wu, one], UINT32, op="and"), ju], UINT32, op="shl")
        said_bit = b("bin", [b("bin", [b("bin", [wu, one], UINT32, op="shr"), one], UINT32,
                                op="and"), ju], UINT32, op="shl")  # fmt: skip
        bo.append(Op("yield", [b("bin", [ran, ran_bit], UINT32, op="or"),
                               b("bin", [said, said_bit], UINT32, op="or")]))  # fmt: skip
        body.ops = bo
        results = [Value(UINT32, "ran"), Value(UINT32, "said")]
        bounds = [const(0), const(WARP), const(1), zero_u, zero_u]
        loop = Op("for", bounds, results, {"sign": 1}, [body], op.loc)
        out.append(loop)
        ran_all, said_all = loop.results
        if kind == "activemask":
            out.append(Op("cast", [ran_all], [op.result], {}, [], op.loc))
            return out
        mask = op.operands[0]
        ran_m = emit("bin", [ran_all, mask], UINT32, op="and")
        said_m = emit("bin", [said_all, ran_m], UINT32, op="and")
        if kind == "ballot":
            out.append(Op("cast", [said_m], [op.result], {}, [], op.loc))
        elif kind == "any":
            out.append(Op("cmp", [said_m, zero_u], [op.result], {"op": "ne"}, [], op.loc))
        else:
            out.append(Op("cmp", [said_m, ran_m], [op.result], {"op": "eq"}, [], op.loc))
        return out


def lower(fn: Function, slots: int = 1024) -> Function:
    """`fn` with its `warp` ops written through shared memory and barriers (in place, and
    returned); `slots` is the most threads a block has on the target."""
    low = _Lowering(fn, slots)
    found = False
    for blk in list(walk_blocks(fn.body)):
        if not any(op.opcode == "warp" for op in blk.ops):
            continue
        found = True
        new: list[Op] = []
        for op in blk.ops:
            new += low.lower(op) if op.opcode == "warp" else [op]
        blk.ops = new
    if found:
        fn.body.ops[:0] = low.top
    return fn
