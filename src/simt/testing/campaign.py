"""`python -m simt fuzz`: a fuzzing campaign of generated kernels and front-end mutants.

    python -m simt fuzz --seed 0 --count 500 --mutants 100
    python -m simt fuzz --seed 1234 --count 1 --shrink --save tests/corpus/fuzz
    python -m simt fuzz --seed 0 --count 500 --oob      # out-of-bounds kernels, isolated

Kernels `seed .. seed+count-1` run on `sim` and every other backend present (or those named
with --backends) and are compiled for CUDA by NVRTC when it is installed; mutants `seed ..`
must each get a located CompileError. Every finding is printed with its seed; --shrink
reduces each failing kernel and --save writes the reduced kernel to a regression folder
(`tests/corpus/fuzz/`, run by the test suite). The exit status is 1 when anything failed.

--oob gives every kernel one out-of-bounds access (the generator's `oob` option): each
backend must then raise a KernelError naming that array. --isolate (implied by --oob) checks
each kernel in a worker process (`isolated.py`), so a backend that crashes or hangs the
process is a `crash` or `hang` finding of that kernel and the campaign goes on.
"""

from __future__ import annotations

import argparse
import ast
import faulthandler
import re
import sys
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..runtime import registry
from .differential import INTERNAL_WORDS, Finding, check
from .generator import Program, from_source, generate
from .isolated import Child
from .mutator import mutate, verdict
from .shrink import shrink

# the generator's optional features (grammar.FEATURES; bigconst: constants int32 cannot
# hold), and its Numba spelling (never drawn)
FEATURES = "dtypes,complexes,views,lang,lists,dicts,files,numba,bigconst,exceptions,specials"
# one kernel on every backend and NVRTC. A kernel heavy in strings needs ~100 s of one idle
# core (seed 206: 94 s; its webgpu compile alone 75 s, most of it Mesa's lavapipe building
# the pipeline; cpu's LLVM 22 s), more under load: 120 s was met by load alone
HANG_SECONDS = 300


@dataclass
class Summary:
    """What a campaign ran and found."""

    kernels: int = 0
    mutants: int = 0
    findings: list[Finding] = field(default_factory=list)
    refused: list[Finding] = field(default_factory=list)  # expected refusals, not compared
    mutant_failures: list[str] = field(default_factory=list)
    features: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        kinds = Counter(f"{f.backend}/{f.kind}" for f in self.findings)
        feats = ", ".join(f"{k} {v}" for k, v in sorted(self.features.items()))
        return [
            f"kernels: {self.kernels} ({feats})",
            f"kernel findings: {len(self.findings)} {dict(kinds) if kinds else ''}".rstrip(),
            f"not compared (refused by name, a documented missing feature): "
            f"{len(self.refused)} {dict(Counter(f.backend for f in self.refused)) or ''}".rstrip(),
            f"mutants: {self.mutants}, wrong verdicts: {len(self.mutant_failures)}",
            f"time: {self.seconds:.0f} s",
        ]


def backends_present(names: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """The backends to compare with `sim`: those named, else every one present but the
    reference. A backend whose compiler runs without its device (cuda) is present only where
    its device is; elsewhere NVRTC still compiles every kernel (`nvrtc_present`)."""
    wanted = names or tuple(n for n in registry.RUNTIMES if not registry.has(n, "reference"))
    out = []
    for n in wanted:
        ok, _ = registry.probe(n)
        if ok:
            out.append(n)
    return tuple(out)


def nvrtc_present() -> bool:
    """Whether NVRTC can compile CUDA C++ here."""
    from ..runtime import nvrtc

    return nvrtc.version() is not None


def signature(f: Finding) -> tuple[str, str, str]:
    """What makes two findings the same failure: backend, kind, and the message without its
    location and numbers (for a mismatch: the output array)."""
    first = f.detail.splitlines()[0] if f.detail else ""
    if f.kind == "mismatch":
        return f.backend, f.kind, first.split("[")[0].split(" ")[0]
    first = re.sub(r"\S+\.py:\d+(:\d+)?: ", "", first)
    return f.backend, f.kind, re.sub(r"-?\d+", "N", first)


def same_failure(f: Finding, backends: tuple[str, ...], nvrtc: bool) -> Callable[[Program], bool]:
    """A predicate for the shrinker: does a variant still fail as `f` did?"""
    want = signature(f)

    def still(p: Program) -> bool:
        try:
            found = check(p, backends, nvrtc and registry.has(f.backend, "compiles_without_device"))
        except Exception:  # noqa: BLE001 - a variant that breaks the harness is not kept
            return False
        return any(signature(g) == want for g in found)

    return still


def without_unused_extras(program: Program) -> Program:
    """`program` without the optional features' arrays its kernel no longer reads (a shrunk
    kernel keeps every parameter; an unused int8 array would make webgpu refuse it)."""
    tree = ast.parse(program.source)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "kernel")
    used = {n.id for stmt in fn.body for n in ast.walk(stmt) if isinstance(n, ast.Name)}
    unused = {x for x in program.extras if x not in used}
    if not unused:
        return program
    fn.args.args = [a for a in fn.args.args if a.arg not in unused]
    for node in tree.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "LAUNCH":
            launch = ast.literal_eval(node.value)
            launch["extras"] = [x for x in launch.get("extras", []) if x not in unused]
            node.value = ast.parse(repr(launch), mode="eval").body
    return from_source(ast.unparse(tree) + "\n")


def command_flags(options: dict[str, Any] | None) -> str:
    """The `simt fuzz` flags that generate with `options` (` --oob --size 5`), so that a saved
    kernel's header names the command that finds it again."""
    o = options or {}
    flags = [f"--with {f}" for f, on in o.items() if on is True and f in FEATURES.split(",")]
    flags += [f"--without {f}" for f, on in o.items() if on is False]
    flags += ["--oob"] * bool(o.get("oob")) + [f"--size {o['size']}"] * ("size" in o)
    return "".join(" " + f for f in flags)


def save(program: Program, finding: Finding, folder: Path, flags: str = "") -> Path:
    """Write a (shrunk) failing kernel to the regression folder as `fuzz_<seed>.py`; `flags`:
    the generator's options as `command_flags` gives them."""
    program = without_unused_extras(program)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"fuzz_{program.seed}.py"
    head = (
        f"# found by `python -m simt fuzz --seed {program.seed} --count 1{flags}`: "
        f"{finding.kind} on {finding.backend}, then shrunk\n"
    )
    path.write_text(head + program.source)
    return path


def run(
    seed: int,
    count: int,
    mutants: int = 0,
    backends: tuple[str, ...] | None = None,
    nvrtc: bool | None = None,
    do_shrink: bool = False,
    save_to: Path | None = None,
    out: object = None,
    options: dict[str, Any] | None = None,
    isolate: bool = False,
    hang_seconds: float = HANG_SECONDS,
    workers: int = 1,
) -> Summary:
    """Run kernels `seed .. seed+count-1` and mutants `seed .. seed+mutants-1`; `options`
    force the generator's optional features on or off (`{"views": True}`; Generator);
    `isolate` checks each kernel in a worker process (`isolated.Child`), `workers` of them
    at once (more than 1 implies `isolate`; the findings are reported in seed order)."""
    stream = out if out is not None else sys.stdout
    backs = backends_present(backends)
    use_nvrtc = nvrtc_present() if nvrtc is None else nvrtc
    isolate = isolate or workers > 1
    s = Summary()
    start = time.perf_counter()
    print(
        f"simt fuzz: seeds {seed}..{seed + count - 1} on sim + {', '.join(backs) or 'nothing'}"
        f"{' + NVRTC' if use_nvrtc else ''}; mutants {seed}..{seed + mutants - 1}"
        f"{'; options ' + repr(options) if options else ''}"
        f"{'; each kernel in a worker process' if isolate else ''}"
        f"{f' ({workers} at once)' if workers > 1 else ''}",
        file=stream,  # type: ignore[arg-type]
        flush=True,
    )
    seeds = range(seed, seed + count)
    isolated = (in_workers(seeds, options or {}, backs, use_nvrtc, hang_seconds, workers)
                if isolate else None)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy overflow warnings of wrapping int32 code
        for k in seeds:
            refused: list[Finding] = []
            if isolated is not None:
                found, features, refused = next(isolated)
                program = None
            else:
                faulthandler.dump_traceback_later(hang_seconds, exit=True)
                program = generate(k, **(options or {}))
                found = check(program, backs, use_nvrtc, refused)
                features = sorted(program.features)
                faulthandler.cancel_dump_traceback_later()
            for f in refused:
                print(f"REFUSED {f}", file=stream, flush=True)  # type: ignore[arg-type]
            s.refused += refused
            s.kernels += 1
            s.features.update(features)
            for f in found:
                print(f"FAIL {f}", file=stream, flush=True)  # type: ignore[arg-type]
                if do_shrink and f.kind not in ("crash", "hang"):  # those would end us here
                    program = program or generate(k, **(options or {}))
                    small = shrink(program, same_failure(f, backs, use_nvrtc))
                    print(f"shrunk to:\n{small.source}", file=stream)  # type: ignore[arg-type]
                    if save_to is not None:
                        path = save(small, f, save_to, command_flags(options))
                        print(f"saved {path}", file=stream)  # type: ignore[arg-type]
                    break
            s.findings += found
            words = [w for f in found for w in INTERNAL_WORDS if w in f.detail]
            if words:
                print(f"  (message shows {sorted(set(words))})", file=stream)  # type: ignore[arg-type]
        for k in range(seed, seed + mutants):
            m = mutate(k)
            why = verdict(m)
            s.mutants += 1
            if why is not None:
                s.mutant_failures.append(f"mutant {k}: {why}")
                print(f"FAIL mutant {k}: {why}", file=stream, flush=True)  # type: ignore[arg-type]
    s.seconds = time.perf_counter() - start
    for line in s.lines():
        print(line, file=stream)  # type: ignore[arg-type]
    return s


Checked = tuple[list[Finding], list[str], list[Finding]]  # findings, features, refusals


def in_workers(
    seeds: range, options: dict[str, Any], backends: tuple[str, ...], nvrtc: bool,
    hang_seconds: float, workers: int,
) -> Iterator[Checked]:  # fmt: skip
    """Each kernel of `seeds` checked in a worker process (`isolated.Child`), `workers`
    processes at once, each taking the next seed when it is done with one: a kernel's
    findings, features and refusals, in seed order as they come (the threads only wait on
    their worker's pipe)."""
    todo = iter(seeds)
    ready = threading.Condition()
    got: dict[int, Checked] = {}
    errors: list[BaseException] = []
    stop = threading.Event()

    def serve() -> None:
        child = Child(backends, nvrtc, hang_seconds)
        try:
            while not stop.is_set():
                with ready:
                    k = next(todo, None)
                if k is None:
                    return
                refused: list[Finding] = []
                found, features = child.check(k, options, refused)
                with ready:
                    got[k] = (found, features, refused)
                    ready.notify_all()
        except BaseException as e:  # noqa: BLE001 - raised again in the caller's thread
            with ready:
                errors.append(e)
                ready.notify_all()
        finally:
            child.close()

    threads = [threading.Thread(target=serve, daemon=True)
               for _ in range(max(1, min(workers, len(seeds))))]  # fmt: skip
    for t in threads:
        t.start()
    try:
        for k in seeds:
            with ready:
                ready.wait_for(lambda k=k: k in got or bool(errors))  # type: ignore[misc]
                if k not in got:
                    raise errors[0]
                answer = got.pop(k)
            yield answer  # (the lock free meanwhile: the caller may shrink a failure)
    finally:
        stop.set()
        for t in threads:
            t.join()


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m simt fuzz`."""
    p = argparse.ArgumentParser(prog="simt fuzz", description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--count", type=int, default=100, help="kernels to run (default 100)")
    p.add_argument("--mutants", type=int, default=0, help="front-end mutants (default 0)")
    p.add_argument("--backends", default="", help="comma-separated (default: all present)")
    p.add_argument("--no-nvrtc", action="store_true", help="skip compiling with NVRTC")
    p.add_argument("--shrink", action="store_true", help="reduce each failing kernel")
    p.add_argument("--save", type=Path, default=None, help="folder for shrunk failures")
    p.add_argument("--with", dest="with_", default="", metavar="FEATURES",
                   help=f"comma-separated features forced on: {FEATURES}")
    p.add_argument("--without", default="", metavar="FEATURES",
                   help="features left out (default: drawn per seed)")
    p.add_argument(
        "--oob",
        action="store_true",
        help="one out-of-bounds access a kernel: a KernelError naming it expected",
    )
    p.add_argument(
        "--size",
        type=int,
        default=14,
        help="statements a kernel draws (default 14; smaller kernels run faster)",
    )
    p.add_argument(
        "--hang",
        type=float,
        default=HANG_SECONDS,
        help=f"seconds one kernel may take on every backend (default {HANG_SECONDS})",
    )
    p.add_argument(
        "--isolate",
        action="store_true",
        help="each kernel in a worker process (a crash is a finding; --oob does)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes checking kernels at once (more than 1 implies --isolate)",
    )
    a = p.parse_args(argv)
    if a.count < 0 or a.mutants < 0:
        p.error("--count and --mutants are 0 or more")
    if a.workers < 1:
        p.error("--workers is 1 or more")
    from ..runtime import registry

    known = list(registry.RUNTIMES)
    bad = [b for b in a.backends.split(",") if b and b not in known]
    if bad:
        p.error(f"unknown backend {bad[0]!r}; choose from {', '.join(known)}")
    options = {f: True for f in a.with_.split(",") if f} | {
        f: False for f in a.without.split(",") if f
    }
    if set(options) - set(FEATURES.split(",")):
        p.error(f"features are {FEATURES}")
    if a.oob:
        options["oob"] = True
    if a.size != 14:
        options["size"] = a.size
    backs = tuple(b for b in a.backends.split(",") if b) or None
    s = run(
        a.seed,
        a.count,
        a.mutants,
        backs,
        False if a.no_nvrtc else None,
        a.shrink or a.save is not None,
        a.save,
        options=options,
        isolate=a.isolate or a.oob,
        hang_seconds=a.hang,
        workers=a.workers,
    )
    return 1 if s.findings or s.mutant_failures else 0
