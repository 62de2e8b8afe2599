"""Timing and schedule search for components.

`tune(*inputs, budget=...)` searches schedules in expression space: for every kernel that runs
a thread per output element, block shapes (splits of the output's last two axes) and the tiling
of the first reduced axis. Each candidate is compiled to IR and ranked by simt's cost model
(`kernel.cost`), one kernel at a time; the default and the best few are then measured in
turns, and the candidate that beats the default by the most replaces it only when clearly
faster (`MARGIN`, wall time and, on the CPU, CPU time, round by round) there and again in
rounds of the two alone (`CONFIRM_ROUNDS`): otherwise simt's default stays. A
contraction (a matmul in any layout) is searched among register-tiled GEMM schedules instead,
from known-good micro-kernel shapes ranked by an analytic model (`gemm.estimate`). Written
schedules (a peer's) are hints: the component without them is measured too. The
choice is cached per component, input shapes and dtypes, backend and device, in memory and in
`simt.cache.cache_dir()/tensor-tune.json`; the tuned component prints its schedules in the
expression syntax, ready to paste back.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..benchtool.timing import BenchResult
from ..errors import SimtError
from .graph import Graph, Node
from .parse import Expr, parse


class TensorBench(BenchResult):
    """A `BenchResult` printed the way the peer prints its benchmarks."""

    def __str__(self) -> str:
        mean, std = self.mean, self.std
        for unit, scale in (("s", 1.0), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)):
            if mean * scale >= 1 or unit == "ns":
                break
        runs = len(self.samples)
        return (
            f"{mean * scale:.3g}±{std * scale:.2g} {unit}, warmups = {self.warmup}, runs = {runs}"
        )

    __repr__ = __str__


def bench(comp: Any, inputs: tuple[Any, ...], warmups: int, runs: int) -> TensorBench:
    """Time `comp.exec(*inputs)` (each sample waits for the device)."""
    from ..benchtool.timing import sample
    from ..runtime import registry

    rt = registry.current()
    samples = sample(lambda: comp.exec(*inputs), rt.synchronize, warmups, runs, 0.0)
    return TensorBench(repr(comp), rt.name, samples, warmups)


# ------------------------------------------------------------------------------ schedule search
# Block shapes the search tries for a thread kernel, as (split of the y axis, split of the x
# axis): every one has 256 threads, WebGPU's limit; and reduction tilings (a split factor of
# the first reduced axis; 0: none).
BLOCKS_2D = ((16, 16), (8, 32), (4, 64), (2, 128), (1, 256), (32, 8))
BLOCKS_1D = (64, 128, 256)
TILES = (0, 4, 8, 16)
MEASURED = 3  # candidates measured besides the default
ROUNDS_MIN = 5  # rounds of calls of the measured candidates (each a call per round)
ROUNDS_MAX = 15  # more while the budget lasts
# a candidate replaces the default only when its calls took at most 1 - MARGIN of the default's
# wall time (the median of the two's ratio, round by round) and at most 1 + MARGIN of its CPU
# time, in the search's rounds and again in CONFIRM_ROUNDS fresh rounds of the two alone
MARGIN = 0.03
CONFIRM_ROUNDS = 7
GEMM_MEASURED = 2  # register-tiled GEMM schedules measured per contraction (each compiles ~2 s)
GEMM_MIN_WORK = 1 << 20  # multiply-adds below which a contraction keeps the thread kernels


@dataclass
class Tuning:
    """What `tune` chose: the schedule of each kernel's expression, and what it measured."""

    schedules: dict[int, str]  # node -> its expression with the winning schedule
    times: dict[str, float] = field(default_factory=dict)  # label -> seconds (median)
    predicted: dict[str, float] = field(default_factory=dict)  # label -> cost model seconds
    cached: bool = False
    # label -> (wall, CPU) time against the default's, the median of the rounds' ratios
    ratios: dict[str, tuple[float, float]] = field(default_factory=dict)
    # the chosen candidate's ratios in the rounds that confirmed it (None: the default stayed
    # without a confirmation)
    confirmed: tuple[float, float] | None = None


_memory: dict[str, Tuning] = {}


def _options(e: Expr) -> list[str]:
    """Schedules (splits only, `| splits |`) worth trying for a thread kernel writing e."""
    out = list(e.output)
    blocks: list[tuple[tuple[str, int], ...]] = []
    if len(out) == 1:
        blocks = [((out[0], b),) for b in BLOCKS_1D]
    elif len(out) in (2, 3):
        y, x = out[-2], out[-1]
        blocks = [((y, by), (x, bx)) for by, bx in BLOCKS_2D]
    tiles: list[tuple[tuple[str, int], ...]] = [()]
    if e.reduced:
        tiles = [((e.reduced[0], t),) if t else () for t in TILES]
    found = []
    for blk in blocks or [()]:
        for tile in tiles:
            parts = [f"{a}:{f}" for a, f in (*blk, *tile) if f > 1]
            found.append(",".join(parts))
    return found


def with_schedules(g: Graph, schedules: dict[int, str]) -> Graph:
    """Graph `g` with the expressions numbered in `schedules` given those schedules."""
    nodes = tuple(
        Node(parse(schedules[n], n_.expr.where), n_.args) if n in schedules else n_
        for n, n_ in enumerate(g.nodes)
    )
    return Graph(g.n_inputs, nodes, g.outputs)


def _predict(g: Graph, inputs: Sequence[Any]) -> float:
    """The cost model's time for running graph g on these inputs (all kernels)."""
    from ..runtime import registry
    from .run import S, compile_for, host_stand_ins, launch_shape, prepare_inputs

    rt = registry.current()
    # host arrays (device arrays' stand-ins): the model reads shapes
    inp = prepare_inputs(host_stand_ins(inputs), _reference())
    prog, extents = compile_for(g, inp, rt.name)
    buffers: dict[Any, Any] = {("in", k): a for k, a in enumerate(inp.arrays)}
    total = 0.0
    for step in prog.steps:
        n = step.kp.root
        shape = S.output_shape(g, extents, n) or (1,)
        buffers[("node", n)] = np.empty(shape, prog.types[n].np)
        config = launch_shape(step, g, extents[n])
        if config is None:
            continue
        if step.kp.tiling is not None:
            continue  # a register-tiled GEMM: ranked by its own model (`gemm.estimate`)
        args = [buffers[("node", n)], *(buffers[r] for r in step.kp.reads)]
        if step.finish is not None:  # a split reduction: its first kernel writes partials
            args[0] = np.empty((int(np.prod(shape)), step.kp.chunks), prog.types[n].np)
        total += step.kernel.cost(config[0], config[1], *args).time
    return total


def _key(comp: Any, inputs: Sequence[Any]) -> str:
    from ..benchtool.profile import describe_device
    from ..runtime import registry

    rt = registry.current()
    parts = [comp.graph.key(), rt.name, describe_device(rt.name)[0]]
    for v in inputs:
        a = np.asarray(v) if not hasattr(v, "shape") else v
        parts.append(f"{np.dtype(a.dtype).str}{tuple(a.shape)}")
    return "\n".join(parts)


def _disk() -> Path:
    from ..cache import cache_dir

    return cache_dir() / "tensor-tune.json"


def _load(key: str) -> Tuning | None:
    try:
        data = json.loads(_disk().read_text())
        entry = data[key]
        return Tuning({int(k): v for k, v in entry["schedules"].items()}, entry.get("times", {}),
                      cached=True)  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _store(key: str, t: Tuning) -> None:
    from .. import cache

    if not cache.enabled():
        return
    path = _disk()
    try:
        data = json.loads(path.read_text()) if path.exists() else {}
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data[key] = {"schedules": {str(k): v for k, v in t.schedules.items()}, "times": t.times}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only disk only costs tuning again


def tune(comp: Any, values: list[Any], budget: float, verbose: bool) -> Tuning:
    """The schedules `component.tune(*inputs)` chooses for these input values (remembered in
    memory and on disk): see the module doc and docs/tensor.md. `Component.tune` builds the
    tuned component from it (`with_schedules`)."""
    key = _key(comp, values)
    found = _memory.get(key) or _load(key)
    if found is None:
        found = _search(comp, values, budget, verbose)
        _store(key, found)
    _memory[key] = found
    return found


def _search(comp: Any, values: list[Any], budget: float, verbose: bool) -> Tuning:
    from ..runtime import registry
    from .run import compile_for, effective_graph, host_stand_ins, launches, prepare_inputs
    from .run import run as run_launches

    start = time.perf_counter()
    rt = registry.current()
    g = comp.graph
    stand_ins = prepare_inputs(host_stand_ins(values), _reference())
    prog, _ = compile_for(g, stand_ins, rt.name)
    # coordinate search: each thread kernel's options ranked by the cost model, others fixed
    chosen: dict[int, str] = {}
    predicted: dict[str, float] = {}
    ranked: list[tuple[float, dict[int, str]]] = []
    alternatives: list[tuple[int, str]] = []  # GEMM schedules after each kernel's first
    base = _predict(g, values)
    predicted["default"] = base
    for step in prog.steps:
        gemm_opts = _gemm_options(g, step, values, rt)
        if gemm_opts:  # a contraction: register-tiled GEMM schedules, ranked by their model
            n = step.kp.root
            chosen[n] = gemm_opts[0][1]
            for t, gs in gemm_opts[:GEMM_MEASURED]:
                predicted[gs] = t  # model cycles, not seconds: compared among themselves
            alternatives.extend((n, gs) for _, gs in gemm_opts[1:GEMM_MEASURED])
            continue
        if step.layout is None:
            continue  # row kernels: their shape is the data's
        n = step.kp.root
        e = g.nodes[n].expr
        best = None
        for opt in _options(e):
            sched = {**chosen, n: f"{e.body()} | {opt} |"}
            try:
                t = _predict(with_schedules(g, sched), values)
            except SimtError:
                continue  # a block this backend cannot run
            ranked.append((t, sched))
            predicted[_label(g, sched)] = t
            if best is None or t < best[0]:
                best = (t, sched[n])
            if time.perf_counter() - start > budget * 0.4:
                break
        if best is not None:
            chosen[n] = best[1]
    ranked.sort(key=lambda r: r[0])
    trials: list[dict[int, str]] = [{}]
    # written schedules (a peer's, say) are hints: simt's defaults are measured against them
    written = {n: node.expr.body() for n, node in enumerate(g.nodes) if node.expr.scheduled}
    if written:
        trials.append(written)
    if alternatives:  # GEMMs: every kernel's first choice, then the runners-up one at a time
        trials.append(dict(chosen))
        trials.extend({**chosen, n: sched} for n, sched in alternatives)
    for _, sched in ranked:
        if sched not in trials:
            trials.append(sched)
        if len(trials) > MEASURED + len([written] if written else []):
            break
    first_choice = next((t for t in trials if t and t is not (written or None)), None)
    times: dict[str, float] = {}
    last = 0.0  # what compiling the previous candidate took: the next one will take about as long
    ran: dict[str, str] = {}  # the graph a trial runs (default GEMMs included) -> its label
    runs: list[tuple[str, dict[int, str], Callable[[], None]]] = []
    for sched in trials:
        began = time.perf_counter()
        # over budget: stop, but the model's first choice is always measured
        if began - start + last > budget and sched and sched is not first_choice:
            break
        gv = with_schedules(g, sched)
        runs_key = effective_graph(gv, stand_ins, rt.name).key()
        if runs_key in ran:  # the default already runs this schedule: measured once
            if verbose:
                print(f"  {_label(g, sched)}: as {ran[runs_key]}")
            continue
        ran[runs_key] = _label(g, sched)

        # timed as `exec` runs a repeated call: the launches planned once (planning them on
        # every call, as `execute` does, cost a default GEMM's graph a parse each time and
        # made FlashAttention's schedules with written directives look 20% faster than they
        # ran), the inputs where the runtime wants them
        inp = prepare_inputs(values, rt)
        lp = launches(gv, inp, rt)

        def timed(lp: Any = lp, arrays: Any = inp.arrays) -> None:
            run_launches(lp, arrays)

        timed()  # compile outside the timing
        runs.append((_label(g, sched), sched, timed))
        last = time.perf_counter() - began
    # the candidates take turns, a call each per round in an order shuffled every round, so
    # that a phase of the machine (another process, the pool's threads waking, the cache of
    # what ran before) weighs on all alike: measured one after another, a candidate 1.4x
    # slower than the default was once chosen. A round of untimed calls first: each
    # candidate's compiling call ran long before the others' last one.
    order = random.Random(0)
    for _, _, run in order.sample(runs, len(runs)):
        run()
        rt.synchronize()
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in runs}
    rounds = 0
    while rounds < ROUNDS_MIN or (rounds < ROUNDS_MAX and time.perf_counter() - start < budget):
        for label, _, run in order.sample(runs, len(runs)):
            samples[label].append(_measure(run, rt.synchronize))
        rounds += 1
    for label, _, _ in runs:
        times[label] = _median([w for w, _ in samples[label]])
    default = runs[0][0]  # (`trials[0]`, `{}`)
    ratios = {label: _ratios(samples[label], samples[default]) for label, _, _ in runs[1:]}
    if verbose:
        for label, sched, _ in runs:
            model = [predicted[s_] for s_ in sched.values() if s_ in predicted]
            guess = (f"model {sum(model) / 1e6:.1f} M cycles" if model
                     else f"predicted {predicted.get(label, base) * 1e3:.3f} ms")  # fmt: skip
            vs = ratios.get(label)
            against = f", {vs[0]:.3f}x the default (CPU {vs[1]:.3f}x)" if vs else ""
            print(f"  {label}: {times[label] * 1e3:.3f} ms, median of {rounds}{against} ({guess})")
    # the candidate clearly faster than the default by the most (a tie keeps simt's own)
    host = rt.host_threads  # the kernels run on this process's threads: its CPU time counts
    won = [r for r in runs[1:] if _wins(ratios[r[0]], host)]
    best_s: dict[int, str] = {}
    confirmed = None
    if won:
        winner = min(won, key=lambda r: ratios[r[0]][0])
        # the fastest of several noisy medians is flattered by its noise: the winner and the
        # default are timed again, alone, and the winner stays only if it still wins
        pair = [runs[0], winner]
        again: dict[str, list[tuple[float, float]]] = {default: [], winner[0]: []}
        for _ in range(CONFIRM_ROUNDS):
            for label, _, run in order.sample(pair, 2):
                again[label].append(_measure(run, rt.synchronize))
        confirmed = _ratios(again[winner[0]], again[default])
        if _wins(confirmed, host):
            best_s = winner[1]
        if verbose:
            print(
                f"  {winner[0]}: again {confirmed[0]:.3f}x the default (CPU "
                f"{confirmed[1]:.3f}x) in {CONFIRM_ROUNDS} rounds of the two: "
                + ("chosen" if best_s else "the default stays")
            )
    return Tuning(best_s, times, predicted, ratios=ratios, confirmed=confirmed)


def _measure(run: Callable[[], None], sync: Callable[[], None]) -> tuple[float, float]:
    """(wall, CPU seconds of this process) of one call of `run` and `sync` (tests fake it)."""
    w0, c0 = time.perf_counter(), time.process_time()
    run()
    sync()
    return time.perf_counter() - w0, time.process_time() - c0


def _median(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2]


def _ratios(mine: list[tuple[float, float]], default: list[tuple[float, float]]
            ) -> tuple[float, float]:  # fmt: skip
    """A candidate's (wall, CPU) times against the default's: the medians of their ratios
    round by round (each round's calls ran in the same phase of the machine)."""

    def ratio(k: int) -> float:
        return _median([m[k] / max(d[k], 1e-9) for m, d in zip(mine, default)])

    return ratio(0), ratio(1)


def _wins(r: tuple[float, float], host: bool) -> bool:
    """Whether ratios `r` (`_ratios`) make a candidate clearly faster than the default: wall
    time at least MARGIN less, and, where the kernels run on this process's threads (`host`:
    the CPU), no more than MARGIN more CPU time. CPU time tells what a call costs when the
    process has the cores; a schedule that needs much more of it beat the default's wall
    time in a phase of the machine (a schedule 1.3-1.4x slower at idle, 42 against 27.5 ms of
    CPU a call, was chosen twice)."""
    return r[0] < 1 - MARGIN and (not host or r[1] < 1 + MARGIN)


def _gemm_options(g: Graph, step: Any, values: list[Any], rt: Any) -> list[tuple[float, str]]:
    """For a contraction kernel (a matmul in any layout, `gemm.contraction`): register-tiled
    schedules from known-good GEMM shapes, best first by the analytic model (`gemm.estimate`,
    in cycles: comparable only among themselves, so they are measured against the default)."""
    from . import gemm, shapes
    from .run import host_stand_ins, prepare_inputs

    n = step.kp.root
    found = gemm.contraction(g, n, step.kp.reads)
    if found is None or g.nodes[n].expr.directives:  # (a default GEMM is searched: not written)
        return []
    e = g.nodes[n].expr
    extents = shapes.infer(g, prepare_inputs(host_stand_ins(values), _reference()).shapes)
    if math.prod(extents[n].values()) < GEMM_MIN_WORK:
        return []  # too small for a micro-kernel's compile and packing passes to pay
    facts = rt.device_facts()
    spmd = bool(getattr(rt, "spmd", False))
    lanes = facts.group_width if spmd else 1
    opts = []
    # the vector axis is the output's last (contiguous) one: the tile's rows are stored whole
    v, u = e.output[-1], e.output[0]
    r = found[0]
    pa = next(o.pattern for o in found[1:] if u in o.pattern)
    pb = next(o.pattern for o in found[1:] if v in o.pattern)
    for d in gemm.candidates(u, v, r, spmd, pa, pb):
        sched = f"{e.body()} | {d}"
        try:
            t = gemm.tiling(with_schedules(g, {n: sched}), n, step.kp.reads)
        except SimtError:
            continue
        assert t is not None
        opts.append((gemm.estimate(t, extents[n], lanes, facts.units, spmd), sched))
    opts.sort(key=lambda o: o[0])
    return opts


def _reference() -> Any:
    """The reference runtime (host memory, always present), whose arrays the host stand-ins
    of a tuning's inputs are."""
    from ..runtime import registry

    return registry.get(registry.reference())


def _label(g: Graph, sched: dict[int, str]) -> str:
    if not sched:
        return "default"
    if all(sched[n] == g.nodes[n].expr.body() for n in sched):
        return "no schedules"
    return "; ".join(sched[n] for n in sorted(sched))
