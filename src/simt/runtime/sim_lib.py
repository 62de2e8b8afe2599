"""The library that the sim backend's rendered programs call: lanes, masks, checked memory.

A rendered program (see `simt.backends.sim`) runs every thread of a launch at once. Its values
are NumPy arrays of length T (lane t is the launch-wide linear thread id) or NumPy scalars (the
same in every thread). A mask says which lanes are active: None (all of them), a bool array of
length T with at least one lane on and one off, or False (none: the code under it is skipped).
Inactive lanes may hold any value, out-of-range indices included: every memory access here
touches active lanes only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..backends.common import describe_failure
from ..errors import KernelError
from ..ir import Op, semantics
from ..ir.ops import ATOMIC_OPS
from .base import Dim3, PrintRecord, unflatten
from .printing import Stream

Mask = Any  # None | np.ndarray | bool (False); kept loose: rendered code is not type-checked
Index = tuple[Any, ...]


class Geometry:
    """The per-lane special registers of one launch shape, computed once and cached.

    An axis of extent 1 gives a NumPy scalar 0 rather than an array of zeros, and an index that
    equals the lane number (a 1-D launch's global x index) is `lane` itself, so that memory
    accesses can spot contiguous lanes with an identity test.
    """

    def __init__(self, grid: Dim3, block: Dim3) -> None:
        self.grid = grid
        self.block = block
        self.per_block = block.size
        self.n_blocks = grid.size
        self.T = self.per_block * self.n_blocks
        self.lane = np.arange(self.T, dtype=np.int32)
        self.block_dim = tuple(np.int32(d) for d in block)
        self.grid_dim = tuple(np.int32(d) for d in grid)
        self._cache: dict[tuple[str, int], Any] = {}

    def _digit(self, key: tuple[str, int], linear: Any, dims: Dim3, axis: int) -> Any:
        """Digit `axis` of `linear` written in the mixed radix `dims` (x fastest)."""
        if key not in self._cache:
            ext = tuple(dims)
            if ext[axis] == 1:
                val: Any = np.int32(0)
            else:
                below = int(np.prod(ext[:axis], dtype=np.int64))
                val = linear if below == 1 else linear // np.int32(below)
                if axis < 2 and any(e != 1 for e in ext[axis + 1 :]):
                    val = val % np.int32(ext[axis])
                if isinstance(val, np.ndarray):
                    val = val.astype(np.int32, copy=False)
            self._cache[key] = val
        return self._cache[key]

    @property
    def thread_linear(self) -> Any:
        """Each lane's thread linear id within its block."""
        if ("tl", 0) not in self._cache:
            if self.n_blocks == 1:
                v: Any = self.lane
            else:
                v = np.tile(np.arange(self.per_block, dtype=np.int32), self.n_blocks)
            self._cache[("tl", 0)] = v
        return self._cache[("tl", 0)]

    @property
    def block_linear(self) -> Any:
        """Each lane's block linear id (a scalar 0 for a one-block launch)."""
        if ("bl", 0) not in self._cache:
            if self.n_blocks == 1:
                v: Any = np.int32(0)
            elif self.per_block == 1:
                v = self.lane
            else:
                v = np.repeat(np.arange(self.n_blocks, dtype=np.int32), self.per_block)
            self._cache[("bl", 0)] = v
        return self._cache[("bl", 0)]

    def thread_idx(self, axis: int) -> Any:
        """`thread_idx` along `axis` for every lane."""
        return self._digit(("tid", axis), self.thread_linear, self.block, axis)

    def block_idx(self, axis: int) -> Any:
        """`block_idx` along `axis` for every lane."""
        return self._digit(("bid", axis), self.block_linear, self.grid, axis)

    def global_idx(self, axis: int) -> Any:
        """`block_idx * block_dim + thread_idx` along `axis` (`lane` itself when equal)."""
        key = ("gid", axis)
        if key not in self._cache:
            others = [d for k, d in enumerate(self.block) if k != axis]
            others += [d for k, d in enumerate(self.grid) if k != axis]
            if axis == 0 and all(d == 1 for d in others):
                val: Any = self.lane
            else:
                with np.errstate(all="ignore"):
                    val = self.block_idx(axis) * self.block_dim[axis] + self.thread_idx(axis)
            self._cache[key] = val
        return self._cache[key]


class Launch:
    """What a rendered program sees of one launch: its geometry, error sites and prints."""

    def __init__(self, geo: Geometry, sites: Sequence[Op]) -> None:
        self.geo = geo
        self.T = geo.T
        self.lane = geo.lane
        self.block_dim = geo.block_dim
        self.grid_dim = geo.grid_dim
        self.n_blocks = geo.n_blocks
        self.sites = sites
        self.records: list[PrintRecord] = []
        self.stream: Stream | None = None  # set by the runtime when prints may stream
        self._seq: np.ndarray | None = None
        self.thread_idx = geo.thread_idx
        self.block_idx = geo.block_idx
        self.global_idx = geo.global_idx
        self.shadows: dict[int, Shadow] = {}  # id of a shared array -> its accesses
        # debug mode: id of a global array -> (its name, the lane that last wrote each element)
        self.writers: dict[int, tuple[str, np.ndarray]] = {}
        self.t: Any = None  # a sim_trace.Tracer when the program is traced (kernel.explain)
        self.exited: np.ndarray | None = None  # lanes that returned from the kernel
        # the failures of the backends' own checks (`fail`): the lanes that failed so far, and
        # the KernelError of the smallest (lane, site) failure, raised when the launch ends
        self.failed: np.ndarray | None = None
        self.first: tuple[int, int, KernelError] | None = None

    def watch_global(self, a: np.ndarray, name: str) -> None:
        """Watch global array `a` (parameter `name`) for elements written by two blocks in this
        launch: a race on a GPU, where blocks run in no fixed order (`_watch_global`)."""
        self.writers[id(a)] = (name, np.full(a.shape, _NONE, np.int64))

    @property
    def block_linear(self) -> Any:
        """Each lane's block linear id: the first index of a shared array."""
        return self.geo.block_linear

    def shared(self, shape: tuple[int, ...], dtype: type) -> np.ndarray:
        """A shared array: one per block, indexed with the lane's block linear id first. Its
        accesses are watched for data races (`Shadow`)."""
        a: np.ndarray = np.zeros((self.n_blocks, *shape), dtype)
        self.shadows[id(a)] = Shadow(a.shape)
        return a

    def exit(self, m: Mask) -> None:
        """The active lanes return from the kernel: they no longer count at barriers."""
        if self.exited is None:
            self.exited = np.zeros(self.T, bool)
        if m is None:
            self.exited[:] = True
        elif m is not False:
            self.exited |= np.broadcast_to(m, (self.T,))

    def barrier(self, m: Mask, where: tuple[str, int, str] | None = None) -> None:
        """`syncthreads()` in the blocks of the active lanes: their threads' shared-memory
        accesses before it no longer race with those after it. With `where` (the barrier's
        file, line and source), a thread of such a block that is neither here nor returned
        from the kernel is a KernelError: the block's threads reach different barriers."""
        if where is not None and isinstance(m, np.ndarray):
            self._same_barrier(m, where)
        if not self.shadows:
            return
        bl = self.geo.block_linear
        blocks = (
            np.unique(bl[m]) if isinstance(m, np.ndarray) and isinstance(bl, np.ndarray) else None
        )
        for sh in self.shadows.values():
            sh.reset(blocks)

    def warp(self, op: str, m: Mask, where: tuple[str, int, str] | None, *args: Any) -> Any:
        """Warp function `op` (IR `warp`; Numba's meaning, warps of 32 threads of a block in
        linear order) in the active lanes `m`; the values of other lanes are undefined.
        `where`: the call's file, line and source; `args[0]` its mask, except for activemask.
        A mask that names a lane which neither makes the call nor has returned, or that leaves
        out a calling lane, is a KernelError (`_check_mask`): undefined in CUDA, an illegal
        instruction on an H100."""
        T = self.T
        tl = np.broadcast_to(self.geo.thread_linear, (T,)).astype(np.int64)
        lane_in = tl & 31
        first = self.lane.astype(np.int64) - lane_in  # each lane's warp's lane 0
        if op != "activemask":
            self._check_mask(op, m, where, args[0], tl, lane_in, first)
        if op == "syncwarp":
            self.barrier(m)  # its shared-memory writes are seen by the warp after it
            return None
        if op.startswith("shfl"):
            value = np.broadcast_to(np.asarray(args[1]), (T,))
            k = np.broadcast_to(np.asarray(args[2]), (T,)).astype(np.int64)
            src = {"shfl": k & 31, "shfl_up": lane_in - k, "shfl_down": lane_in + k,
                   "shfl_xor": lane_in ^ (k & 31)}[op]  # fmt: skip
            ok = (src >= 0) & (src < 32) & (tl - lane_in + src < self.geo.per_block)
            source = np.where(ok, first + src, self.lane)
            return value[source].copy()
        active = np.ones(T, bool) if m is None else np.broadcast_to(np.asarray(m, bool), (T,))
        if self.exited is not None:
            active = active & ~self.exited
        mask = np.broadcast_to(np.asarray(args[0], np.uint64), (T,)) if args else None
        bit = np.left_shift(np.uint64(1), lane_in.astype(np.uint64))
        taking = active if mask is None else active & ((mask & bit) != 0)
        pred = (
            taking
            if op == "activemask"
            else taking & np.broadcast_to(np.asarray(args[1], bool), (T,))
        )
        votes = np.zeros(T, np.uint64)
        np.add.at(votes, first[pred], bit[pred])
        ballot = votes[first].astype(np.uint32)
        if op in ("ballot", "activemask"):
            return ballot
        counts = np.zeros(T, np.int64)
        np.add.at(counts, first[taking], 1)
        if op == "any":
            return ballot != 0
        trues = np.zeros(T, np.int64)
        np.add.at(trues, first[pred], 1)
        return trues[first] == counts[first]

    def _check_mask(self, op: str, m: Mask, where: tuple[str, int, str] | None, mask: Any,
                    tl: np.ndarray, lane_in: np.ndarray, first: np.ndarray) -> None:  # fmt: skip
        """CUDA's rule for a `*_sync` warp function: each calling thread has its own bit in
        `mask`, and every thread the mask names that exists and has not returned makes the
        same call. A lane past the block's last thread counts as returned."""
        T = self.T
        calling = np.ones(T, bool) if m is None else np.broadcast_to(np.asarray(m, bool), (T,))
        if m is None and self.exited is not None:
            calling = ~self.exited
        if not calling.any():
            return
        bit = np.left_shift(np.uint64(1), lane_in.astype(np.uint64))
        named = np.broadcast_to(np.asarray(mask).astype(np.uint64), (T,))
        callers = np.zeros(T, np.uint64)  # per warp (at its lane 0): the lanes calling
        np.bitwise_or.at(callers, first[calling], bit[calling])
        gone = np.zeros(T, np.uint64)  # per warp: the lanes that returned
        if self.exited is not None:
            np.bitwise_or.at(gone, first[self.exited], bit[self.exited])
        size = np.minimum(32, self.geo.per_block - (tl - lane_in))  # lanes in the warp
        exist = np.left_shift(np.uint64(1), size.astype(np.uint64)) - np.uint64(1)
        missing = named & exist & ~callers[first] & ~gone[first]
        own = (named & bit) == 0
        bad = calling & ((missing != 0) | own)
        name = "syncwarp" if op == "syncwarp" else f"{op}_sync"
        if not bad.any():
            self._same_mask(name, calling, named, first, size, where)
            return
        lane = int(np.argmax(bad))
        mk = int(named[lane])
        if own[lane]:
            what = (f"this thread calls {name} with mask {mk:#010x}, which does not name its "
                    f"own lane {int(lane_in[lane])}")  # fmt: skip
        else:
            lanes = [k for k in range(32) if int(missing[lane]) >> k & 1]
            shown = ", ".join(map(str, lanes[:8])) + (", ..." if len(lanes) > 8 else "")
            many = len(lanes) > 1
            what = (f"{name} with mask {mk:#010x} names lane{'s' if many else ''} {shown} of "
                    f"this thread's warp, which {'do' if many else 'does'} not make this call "
                    f"and {'have' if many else 'has'} not returned")  # fmt: skip
        raise self._mask_error(what, lane, where)

    def _same_mask(self, name: str, calling: np.ndarray, named: np.ndarray, first: np.ndarray,
                   size: np.ndarray, where: tuple[str, int, str] | None) -> None:  # fmt: skip
        """CUDA's other half of the rule: the lanes a mask names pass that same mask."""
        if (named[calling] == named[calling][0]).all():
            return  # one mask for every caller (the common case)
        last = self.T - 1
        for k in range(32):
            src = np.minimum(first + k, last)
            hit = (calling & (k < size) & calling[src] & (named[src] != named)
                   & ((named >> np.uint64(k)) & np.uint64(1) != 0))  # fmt: skip
            if hit.any():
                lane = int(np.argmax(hit))
                raise self._mask_error(
                    f"{name} with mask {int(named[lane]):#010x} names lane {k} of this "
                    f"thread's warp, which makes the call with mask {int(named[src[lane]]):#010x}"
                    " (the lanes of a mask must all pass that same mask)", lane, where)  # fmt: skip

    def _mask_error(self, what: str, lane: int, where: tuple[str, int, str] | None) -> KernelError:
        block, thread = unflatten(lane, self.geo.grid, self.geo.block)
        filename, line, source_line = where if where is not None else (None, None, None)
        return KernelError(
            f"{what}: undefined in CUDA (an illegal instruction on an H100, which ends the "
            "process's use of the GPU). Every lane a mask names must make the same call or "
            "have returned, and each caller must be in the mask: compute the mask before the "
            "branch with simt.ballot_sync(0xFFFFFFFF, condition), or use simt.activemask()",
            block=block,  # type: ignore[arg-type]
            thread=thread,  # type: ignore[arg-type]
            filename=filename,
            line=line,
            source_line=source_line,
        )

    def _same_barrier(self, m: np.ndarray, where: tuple[str, int, str]) -> None:
        active = np.broadcast_to(m, (self.T,))
        if active.all() or not active.any():
            return
        waiting = ~active if self.exited is None else ~(active | self.exited)
        if not waiting.any():
            return
        bl = np.broadcast_to(self.geo.block_linear, (self.T,))
        missing = waiting & np.isin(bl, np.unique(bl[active]))
        if not missing.any():
            return
        lane = int(np.argmax(missing))
        block, thread = unflatten(lane, self.geo.grid, self.geo.block)
        filename, line, source_line = where
        raise KernelError(
            f"threads of one block reach different barriers: this thread is not at the "
            f"syncthreads() of line {line}, which other threads of its block reached, and has "
            "not returned from the kernel (on a GPU the block hangs or its results are "
            "undefined); every thread of a block must reach the same syncthreads() or return",
            block=block,  # type: ignore[arg-type]
            thread=thread,  # type: ignore[arg-type]
            filename=filename,
            line=line,
            source_line=source_line,
        )

    def race(self, site: int, a: np.ndarray, flat: int, lane: int, other: int,
             what: str) -> KernelError:  # fmt: skip
        """The KernelError of a data race at error site `site`: `lane` accesses element `flat`
        of shared array `a` (`what` says how, and what `other` did to it)."""
        op = self.sites[site - 1]
        name = op.operands[0].hint or "a shared array"
        index = np.unravel_index(flat, a.shape)[1:]  # the block's copy: leave out its index
        where = f"{name}[{', '.join(str(int(i)) for i in index)}]"
        other_thread = unflatten(other, self.geo.grid, self.geo.block)[1]
        return self._error_at(
            op,
            lane,
            f"data race on shared {where}: this thread {what.format(other=other_thread)}, "
            "with no syncthreads() between; put simt.syncthreads() between the two accesses "
            "(or use an atomic)",
        )

    def global_race(self, site: int, name: str, a: np.ndarray, flat: int, lane: int,
                    other: int) -> KernelError:  # fmt: skip
        """The KernelError of two blocks writing element `flat` of global array `name`."""
        op = self.sites[site - 1]
        index = ", ".join(str(int(i)) for i in np.unravel_index(flat, a.shape))
        ob, ot = unflatten(other, self.geo.grid, self.geo.block)
        return self._error_at(
            op,
            lane,
            f"two blocks write {name}[{index}] in one launch, with different values: this "
            f"thread and thread {ot} of block {ob}; on a GPU blocks run in no fixed "
            "order, so which value stays is unpredictable (have one block write each element, "
            "or use simt.atomic)",
        )

    def _error_at(self, op: Any, lane: int, message: str) -> KernelError:
        """A KernelError for thread `lane` at the user's line of IR op `op`."""
        block, thread = unflatten(lane, self.geo.grid, self.geo.block)
        loc = op.loc
        return KernelError(
            message,
            block=block,  # type: ignore[arg-type]
            thread=thread,  # type: ignore[arg-type]
            filename=loc.filename if loc else None,
            line=loc.line if loc else None,
            source_line=loc.source_line if loc else None,
        )

    def table(self, data: tuple[Any, ...], shape: tuple[int, ...], dtype: type) -> np.ndarray:
        """A constant table: the elements of a known array, read-only."""
        a: np.ndarray = np.array(data, dtype).reshape(shape)
        a.flags.writeable = False
        return a

    def local(self, shape: tuple[int, ...], dtype: type) -> np.ndarray:
        """A local array: one per thread, indexed with the lane first."""
        return np.zeros((self.T, *shape), dtype)

    def error(self, site: int, lane: int, at: Any = None) -> KernelError:
        """The KernelError of error site `site` (1-based, as `error_sites`) in lane `lane`;
        `at` = (shape, index) of a failing access, the index's parts scalars or per lane."""
        op = self.sites[site - 1]
        block, thread = unflatten(lane, self.geo.grid, self.geo.block)
        loc = op.loc
        index = shape = None
        if at is not None:
            shape = [int(n) for n in at[0]]
            index = [int(i[lane]) if isinstance(i, np.ndarray) else int(i) for i in at[1]]
            ndim = op.operands[0].array.ndim
            if len(shape) == ndim + 1:  # a local array: one per lane, the lane first
                shape, index = shape[1:], index[1:]
        return KernelError(
            describe_failure(op, index, shape),
            block=block,  # type: ignore[arg-type]
            thread=thread,  # type: ignore[arg-type]
            filename=loc.filename if loc else None,
            line=loc.line if loc else None,
            source_line=loc.source_line if loc else None,
        )

    def fail(self, site: int, bad: Any, m: Mask, at: Any = None) -> Mask:
        """The active lanes in `bad` (True: every lane) fail at `site` (`at`: the access's
        (shape, index), as `error` takes it): as on every backend, each goes on (a failing
        load reads 0, a failing store or atomic writes nothing) and the launch ends with the
        KernelError of the smallest failing thread, of its failures the one at the smallest
        site (`raise_first`; docs/semantics.md). Returns the lanes still to do the access:
        `m` without those of `bad`."""
        bad = np.broadcast_to(np.ones(self.T, bool) if bad is True else bad, (self.T,))
        if m is not None:
            bad = bad & np.broadcast_to(m, (self.T,))
        if not bad.any():
            return m
        if self.failed is None:
            self.failed = np.zeros(self.T, bool)
        lane = int(np.argmax(bad))
        if self.first is None or (lane, site) < self.first[:2]:
            self.first = (lane, site, self.error(site, lane, at))
        self.failed |= bad
        return ~bad if m is None else np.broadcast_to(m, (self.T,)) & ~bad

    def raise_first(self) -> None:
        """Raise the KernelError of the launch's first failure (`fail`), if any."""
        if self.first is not None:
            raise self.first[2]

    def print(self, print_id: int, m: Mask, values: tuple[Any, ...]) -> None:
        """Record print `print_id` with `values` for every active lane."""
        lanes = range(self.T) if m is None else np.flatnonzero(m).tolist()
        if self._seq is None:
            self._seq = np.zeros(self.T, np.int64)
        seq = self._seq
        arrays = [isinstance(v, np.ndarray) for v in values]
        rec = self.records.append
        for t in lanes:
            vals = tuple(v[t] if a else v for v, a in zip(values, arrays))
            rec(PrintRecord(t, int(seq[t]), print_id, vals))
        if m is None:
            seq += 1
        else:
            seq[m] += 1
        if self.stream is not None and self.stream.due():  # a long launch: written as it goes
            self.stream.write(self.records)
            self.records = []

    def check_assert(self, cond: Any, m: Mask, site: int) -> None:
        """Raise the assertion's error if `cond` is false in an active lane."""
        if isinstance(cond, np.ndarray):
            if m is None:
                if not cond.all():
                    self.fail(site, ~cond, None)
            else:
                self.fail(site, m & ~cond, None)
        elif not cond:
            self.fail(site, True, m)


# data races in shared memory -----------------------------------------------------------------

_NONE = -1


class Shadow:
    """Who read and who wrote each element of a shared array since its block's last barrier:
    one thread (launch-wide lane) of each, and whether there were several. As CUDA's
    compute-sanitizer racecheck, races are watched in shared memory only (where a missing
    `syncthreads()` shows), atomics are not watched, and threads writing the same value do
    not race."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.reader, self.writer = np.full(shape, _NONE, np.int32), np.full(shape, _NONE, np.int32)
        self.readers, self.writers = np.zeros(shape, bool), np.zeros(shape, bool)  # several

    def reset(self, blocks: np.ndarray | None) -> None:
        """Forget the accesses of `blocks` (all blocks: None)."""
        rows = slice(None) if blocks is None else blocks
        self.reader[rows] = self.writer[rows] = _NONE
        self.readers[rows] = self.writers[rows] = False


def _watch_global(c: Launch, a: np.ndarray, idx: Index, m: Mask, site: int, v: Any) -> None:
    """Raise a KernelError if a store of `v` by the active lanes writes an element of a watched
    global array that a thread of another block wrote in this launch, with a different value
    (as in shared memory, threads writing the same value do not race), then record it."""
    name, writer = c.writers[id(a)]
    lanes = c.lane.astype(np.int64) if m is None else np.flatnonzero(m)
    n = len(lanes)
    if not n:
        return
    flat: Any = np.int64(0)
    for i, stride in zip(idx, np.cumprod((1,) + a.shape[:0:-1])[::-1].tolist()):
        part = (i if m is None else i[lanes]) if isinstance(i, np.ndarray) else i
        flat = flat + np.asarray(part, np.int64) * stride
    flat = np.broadcast_to(flat, (n,))
    vals = (v if m is None else v[lanes]) if isinstance(v, np.ndarray) else np.full(n, v)
    per_block = c.geo.per_block
    w = writer.reshape(-1)
    prev = w[flat]
    bad = (prev != _NONE) & (prev // per_block != lanes // per_block)
    bad &= a.reshape(-1)[flat] != vals.astype(a.dtype)
    other = prev
    if not bad.any():  # lanes of this one store, of different blocks, on one element
        order = np.argsort(flat, kind="stable")
        fs, ls, vs = flat[order], lanes[order], vals[order]
        pair = (fs[1:] == fs[:-1]) & (ls[1:] // per_block != ls[:-1] // per_block)
        pair &= vs[1:] != vs[:-1]
        if pair.any():
            k = int(np.argmax(pair))
            bad = np.zeros(n, bool)
            bad[order[k + 1]] = True
            other = np.zeros(n, np.int64)
            other[order[k + 1]] = ls[k]
    if bad.any():
        k = int(np.argmax(bad))
        raise c.global_race(site, name, a, int(flat[k]), int(lanes[k]), int(other[k]))
    w[flat] = lanes


def _others(one: np.ndarray, several: np.ndarray, flat: np.ndarray, lanes: np.ndarray) -> Any:
    """Whether a thread other than each lane's own touched its element (which one: `one`)."""
    who = one[flat]
    return several[flat] | ((who != _NONE) & (who != lanes))


def _record(one: np.ndarray, several: np.ndarray, flat: np.ndarray, lanes: np.ndarray) -> None:
    """Note that `lanes` touched `flat`: several threads where another one had, or where
    lanes of this access share an element (of two lanes on one element, one id is stored)."""
    who = one[flat]
    several[flat[(who != _NONE) & (who != lanes)]] = True
    one[flat] = lanes
    several[flat[one[flat] != lanes]] = True


def _watch(c: Launch, a: np.ndarray, idx: Index, m: Mask, site: int, v: Any = None) -> None:
    """Check a read (`v` None) or a write of `v` by the active lanes of shared array `a` for
    races with other threads' accesses since the last barrier, then record it. `idx` has been
    bounds-checked."""
    sh = c.shadows.get(id(a))
    if sh is None:
        return
    lanes = c.lane if m is None else np.flatnonzero(m).astype(np.int32)
    n = len(lanes)
    if not n:
        return
    flat: Any = np.int64(0)
    for i, stride in zip(idx, np.cumprod((1,) + a.shape[:0:-1])[::-1].tolist()):
        part = (i if m is None else i[lanes]) if isinstance(i, np.ndarray) else i
        flat = flat + np.asarray(part, np.int64) * stride
    flat = np.broadcast_to(flat, (n,))
    reader, readers = sh.reader.reshape(-1), sh.readers.reshape(-1)
    writer, writers = sh.writer.reshape(-1), sh.writers.reshape(-1)

    def fail(bad: Any, one: np.ndarray, what: str) -> None:
        k = int(np.argmax(bad))
        other = int(one[flat[k]])
        if other in (_NONE, int(lanes[k])):  # several: name another lane on that element
            same = np.flatnonzero((flat == flat[k]) & (lanes != lanes[k]))
            other = int(lanes[same[0]]) if len(same) else other
        raise c.race(site, a, int(flat[k]), int(lanes[k]), other, what)

    if v is None:
        bad = _others(writer, writers, flat, lanes)
        if bad.any():
            fail(bad, writer, "reads it after thread {other} wrote it")
        _record(reader, readers, flat, lanes)
        return
    vals = (v if m is None else v[lanes]) if isinstance(v, np.ndarray) else np.full(n, v)
    bad = _others(reader, readers, flat, lanes)
    if bad.any():
        fail(bad, reader, "writes it after thread {other} read it")
    bad = _others(writer, writers, flat, lanes) & (a.reshape(-1)[flat] != vals)
    if bad.any():
        fail(bad, writer, "writes a value other than the one thread {other} wrote to it")
    _record(writer, writers, flat, lanes)
    lost = writer[flat] != lanes  # lanes of this store on one element: one id was kept
    if lost.any():
        kept = writer[flat[lost]]
        clash = vals[lost] != vals[kept if m is None else np.searchsorted(lanes, kept)]
        if clash.any():
            k = int(np.flatnonzero(lost)[np.argmax(clash)])
            raise c.race(site, a, int(flat[k]), int(lanes[k]), int(writer[flat[k]]),
                         "writes a value other than the one thread {other} writes to it at "
                         "the same time")  # fmt: skip


# masks ---------------------------------------------------------------------------------------


def split(m: Mask, c: Any) -> tuple[Mask, Mask]:
    """(then, else): the lanes of `m` where `c` is true, and those where it is false."""
    if not isinstance(c, np.ndarray):
        return (m, False) if c else (False, m)
    if m is None:
        if c.all():
            return None, False
        if not c.any():
            return False, None
        return c, ~c
    t = m & c
    e = m ^ t
    return (t if t.any() else False), (e if e.any() else False)


def narrow(m: Mask, c: Any) -> Mask:
    """The lanes of `m` where `c` holds: a loop's lanes that go round again."""
    if not isinstance(c, np.ndarray):
        return m if c else False
    if m is None:
        if c.all():
            return None
        return c if c.any() else False
    t = m & c
    return t if t.any() else False


def keep(m: Mask, new: Any, old: Any) -> Any:
    """`new` in the lanes of `m`, `old` in the others: a masked loop's carried values."""
    if m is None:
        return new
    return np.where(m, new, old)


def in_range(i: Any, stop: Any, step: Any) -> Any:
    """Whether a `range` loop with a step of unknown sign goes round again."""
    return ((step > 0) & (i < stop)) | ((step < 0) & (i > stop))


def urange(start: Any, stop: Any, step: Any) -> Any:
    """The induction values of a `range` loop with uniform bounds, typed like them (a zero step
    runs no iteration, as the general `in_range` test does)."""
    t = type(start)
    if step == 0:
        return ()
    return map(t, range(int(start), int(stop), int(step)))


# memory --------------------------------------------------------------------------------------


def _safe(idx: Index, m: Mask) -> Index:
    """`idx` with the inactive lanes' indices set to 0 (in range for any non-empty array)."""
    if m is None:
        return idx
    return tuple(i * m if isinstance(i, np.ndarray) else i for i in idx)


def _check(
    c: Launch, shape: tuple[int, ...], idx: Index, m: Mask, site: int, at: Any = None
) -> Mask:
    """The active lanes whose index is out of bounds fail (`Launch.fail`); returns the lanes
    left to do the access (`m` itself when none failed). `idx` has been through `_safe`
    (inactive lanes index 0), so only an empty dimension flags inactive lanes, and `fail`
    masks those off again."""
    bad: Any = None
    for i, n in zip(idx, shape):
        if isinstance(i, np.ndarray):
            if i.size and (int(i.min()) < 0 or int(i.max()) >= n):
                out = (i < 0) | (i >= n)
                if bad is not True:  # True (a bad uniform index) already fails every lane
                    bad = out if bad is None else bad | out
        elif int(i) < 0 or int(i) >= n:
            bad = True
    if bad is not None:
        return c.fail(site, bad, m, at or (shape, idx))
    return m


def _none(m: Mask) -> bool:
    """Whether mask `m` leaves no lane (every active lane failed its access)."""
    return isinstance(m, np.ndarray) and not m.any()


def _lane_run(
    c: Launch, a: np.ndarray, idx: Index, m: Mask, site: int
) -> tuple[int | None, Mask]:
    """For an index (lane, *uniform), the number of lanes L = min(T, len(a)) whose elements
    `a[:L, *uniform]` exist, after checking that no active lane reads past them; None for any
    other index. Lane k of such an access touches element k: slices instead of gathers. With
    it, the lanes left to do the access (`_check`)."""
    if not idx or idx[0] is not c.lane or any(isinstance(i, np.ndarray) for i in idx[1:]):
        return None, m
    # a bad uniform index fails every active lane
    m = _check(c, a.shape[1:], idx[1:], m, site, (a.shape, idx))
    n = a.shape[0]
    if c.T > n and (m is None or m[n:].any()):
        m = c.fail(site, c.lane >= n, m, (a.shape, idx))
    return min(c.T, n), m


def load(c: Launch, a: np.ndarray, idx: Index, m: Mask, site: int) -> Any:
    """`a[idx]` in every active lane (the others get an arbitrary value)."""
    v = load_view(c, a, idx, m, site)
    return v.copy() if isinstance(v, np.ndarray) and np.may_share_memory(v, a) else v


def load_view(c: Launch, a: np.ndarray, idx: Index, m: Mask, site: int) -> Any:
    """`load`, but lanes reading a contiguous run get a view of `a`: for a result that is
    consumed before anything writes to memory (the renderer checks that)."""
    run, m = _lane_run(c, a, idx, m, site)
    if run is not None:
        if _none(m):  # a bad uniform index: every lane failed, reading 0
            return np.zeros(c.T, a.dtype)
        if c.shadows:
            _watch(c, a, idx, m, site)
        part = a[(slice(0, run),) + idx[1:]]
        if run == c.T:
            return part
        out = np.zeros(c.T, a.dtype)  # the lanes past the end are inactive (or failed)
        out[:run] = part
        return out
    idx = _safe(idx, m)
    ok = _check(c, a.shape, idx, m, site)
    if ok is not m:  # some lanes failed: they read 0
        if _none(ok):
            vector = any(isinstance(i, np.ndarray) for i in idx)
            return np.zeros(c.T, a.dtype) if vector else a.dtype.type(0)
        idx = _safe(idx, ok)
        if c.shadows:
            _watch(c, a, idx, ok, site)
        return np.where(ok, a[idx], a.dtype.type(0))
    if c.shadows:
        _watch(c, a, idx, m, site)
    return a[idx]


def _last_active(v: np.ndarray, m: Mask) -> Any:
    """The value of the highest active lane: what the last of several writers leaves."""
    if m is None:
        return v[-1]
    return v[len(m) - 1 - int(np.argmax(m[::-1]))]


def store(c: Launch, a: np.ndarray, idx: Index, v: Any, m: Mask, site: int) -> None:
    """`a[idx] = v` in every active lane; with several lanes on one element the highest wins
    (on a shared array, a race unless they write the same value: `_watch`)."""
    run, m = _lane_run(c, a, idx, m, site)
    _store(c, a, idx, v, m, site, run)


def store_op(
    c: Launch, a: np.ndarray, idx: Index, ufunc: np.ufunc, x: Any, y: Any, m: Mask, site: int
) -> None:
    """`store` of `ufunc(x, y)`: computed straight into `a` when every lane writes its own
    element of a contiguous run (no temporary array), else as `store`."""
    run, m = _lane_run(c, a, idx, m, site)
    if run == c.T and m is None and id(a) not in c.shadows and id(a) not in c.writers:
        ufunc(x, y, out=a[(slice(0, run),) + idx[1:]])
        return
    _store(c, a, idx, ufunc(x, y), m, site, run)


def _store(
    c: Launch, a: np.ndarray, idx: Index, v: Any, m: Mask, site: int, run: int | None
) -> None:
    if _none(m):  # every lane failed: nothing is written
        return
    if run is not None:
        if c.shadows:
            _watch(c, a, idx, m, site, v)
        if id(a) in c.writers:
            _watch_global(c, a, idx, m, site, v)
        dst = a[(slice(0, run),) + idx[1:]]
        src = v[:run] if isinstance(v, np.ndarray) else v
        if m is None:
            dst[...] = src
        else:
            np.copyto(dst, src, where=m[:run])
        return
    m = _check(c, a.shape, _safe(idx, m), m, site)
    if _none(m):
        return
    if c.shadows:
        _watch(c, a, _safe(idx, m), m, site, v)
    if id(a) in c.writers:
        _watch_global(c, a, _safe(idx, m), m, site, v)
    vector_idx = any(isinstance(i, np.ndarray) for i in idx)
    if not vector_idx:
        a[idx] = _last_active(v, m) if isinstance(v, np.ndarray) else v
    elif m is None:
        a[idx] = v
    else:
        a[tuple(i[m] if isinstance(i, np.ndarray) else i for i in idx)] = (
            v[m] if isinstance(v, np.ndarray) else v
        )


# atomics -------------------------------------------------------------------------------------

# the atomics that are a `bin` operator's row (all but exch): that row's ufunc (ir/semantics.py)
_UFUNCS = {
    k: getattr(np, semantics.UFUNC[k].removeprefix("np."))
    for k in ATOMIC_OPS
    if k in semantics.UFUNC
}
# Address groups at least this long are scanned with one `accumulate` each; shorter ones are
# applied in rounds (the r-th lane of every group in round r).
_LONG_GROUP = 64


def atomic(
    c: Launch,
    op: str,
    a: np.ndarray,
    idx: Index,
    v: Any,
    m: Mask,
    site: int,
    used: bool,
    cmp: Any = None,
) -> Any:
    """Apply atomic `op` (or "cas" with `cmp`) in every active lane, one lane after another in
    linear order, and return each lane's old value (None when `used` is false; 0 in a lane
    that failed its access)."""
    m = _check(c, a.shape, _safe(idx, m), m, site)
    lanes = None if m is None else np.flatnonzero(m)
    n = c.T if lanes is None else len(lanes)

    def active(x: Any) -> np.ndarray:
        if isinstance(x, np.ndarray):
            return x if lanes is None else x[lanes]
        return np.full(n, x)

    cidx = tuple(active(i) for i in idx)
    cv = active(v).astype(a.dtype, copy=False)
    if not used and op in _UFUNCS:
        _UFUNCS[op].at(a, cidx, cv)
        return None
    ccmp = active(cmp).astype(a.dtype, copy=False) if op == "cas" else None
    old = _sequential(op, a, cidx, cv, ccmp)
    if not used:
        return None
    if lanes is None:
        return old
    out = np.zeros(c.T, a.dtype)
    out[lanes] = old
    return out


def _combine(op: str, old: np.ndarray, v: np.ndarray, cmp: np.ndarray | None) -> np.ndarray:
    if op == "exch":
        return v
    if op == "cas":
        return np.where(old == cmp, v, old)
    return _UFUNCS[op](old, v)  # type: ignore[no-any-return]


def _sequential(
    op: str, a: np.ndarray, idx: Index, v: np.ndarray, cmp: np.ndarray | None
) -> np.ndarray:
    """The old values of `n` atomic updates applied one after another, in order."""
    n = len(v)
    old = np.empty(n, a.dtype)
    if n == 0:
        return old
    flat = np.asarray(
        idx[0].astype(np.int64) if a.ndim == 1 else np.ravel_multi_index(idx, a.shape)
    )
    order = np.argsort(flat, kind="stable")  # by address; lanes of one address keep their order
    fs = flat[order]
    first = np.empty(n, bool)
    first[0] = True
    np.not_equal(fs[1:], fs[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    lengths = np.diff(np.append(starts, n))
    sidx = tuple(i[order] for i in idx)
    vs = v[order]
    cs = None if cmp is None else cmp[order]
    if op in ("add", "sub") and a.dtype.kind in "iu":
        # Integer sums wrap identically in any order: prefix sums within each address group.
        base = a[sidx]
        csum = np.cumsum(vs, dtype=a.dtype)
        before = csum - vs
        group = np.cumsum(first) - 1
        excl = before - before[starts][group]
        totals = csum[starts + lengths - 1] - before[starts]
        heads = tuple(i[starts] for i in sidx)
        if op == "add":
            old[order] = base + excl
            a[heads] = base[starts] + totals
        else:
            old[order] = base - excl
            a[heads] = base[starts] - totals
        return old
    long_groups = (lengths >= _LONG_GROUP) & (op != "cas")
    for s, ln in zip(starts[long_groups].tolist(), lengths[long_groups].tolist()):
        pos = order[s : s + ln]
        head = tuple(i[s] for i in sidx)
        seq = np.concatenate((np.asarray([a[head]], a.dtype), vs[s : s + ln]))
        if op == "exch":
            acc = seq
        else:
            acc = _UFUNCS[op].accumulate(seq)
        old[pos] = acc[:-1]
        a[head] = acc[-1]
    # The rest in rounds: round r applies the r-th lane of every remaining address group.
    pos_all = np.arange(n)
    rank = pos_all - np.maximum.accumulate(np.where(first, pos_all, 0))
    short = ~np.repeat(long_groups, lengths)
    if not short.any():
        return old
    keep_pos = np.flatnonzero(short)
    by_rank = keep_pos[np.argsort(rank[keep_pos], kind="stable")]
    counts = np.bincount(rank[keep_pos])
    k = 0
    for cnt in counts.tolist():
        sel = by_rank[k : k + cnt]
        k += cnt
        ii = tuple(i[sel] for i in sidx)
        o = a[ii]
        a[ii] = _combine(op, o, vs[sel], None if cs is None else cs[sel])
        old[order[sel]] = o
    return old


__all__ = [
    "Geometry", "Launch", "Shadow", "atomic", "in_range", "keep", "load",
    "load_view", "narrow", "split", "store", "store_op", "urange",
]  # fmt: skip
