"""Every message a user sees speaks the user's language: a sweep over the errors the corpus,
the fuzzer's kernels and mutants, the fuzz regressions and the REPL provoke (issue #15,
item 13).

Each provoked error must be a `simt` error (CompileError, LaunchError, KernelError), never
another exception, and its text must show none of simt's internal names: the front end's
(`<probe N>`, `$retval`, `NeedsKnown`), the generated code's (`_simt_...`, `simt_P`), a
Python traceback or object repr, or a path into simt's own modules.

Bounded: a few hundred errors, about ten seconds. Arguments that change an array's shape
are given to `sim` (which checks every access) and to debug-mode kernels only: outside debug
mode the compiled backends do not check bounds (docs/backends.md), so a too-small array there
is the user's out-of-bounds write, not a message.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.corpus import CASES

import simt
from simt.errors import SimtError
from simt.runtime import registry
from simt.testing import mutator
from simt.testing.differential import load
from simt.testing.generator import from_source, generate

SIMT_DIR = Path(simt.__file__).resolve().parent
# What no message may show: internal names, and the marks of an internal failure.
LEAKS = re.compile(
    "|".join(
        [
            r"<probe", r"<kernel \d", r"_simt_", r"\bsimt_P\b", r"NeedsKnown", r"\$retval",
            r"\$ret\b", r"\$brk", r"\$cnt", r"Traceback", r'\.py", line \d', r"<simt\.",
            r"object at 0x", r"internal error", r"a bug in simt",
            re.escape(str(SIMT_DIR)), r"simt/(frontend|backends|passes|runtime|ir|repl)/",
        ]
    )
)  # fmt: skip
BACKENDS = [b for b in ("sim", "cpu", "webgpu") if b == "sim" or registry.probe(b)[0]]


@pytest.fixture(autouse=True)
def _keep_backend() -> Iterator[None]:
    with simt.using(simt.backend()):
        yield


def _error(run: Callable[[], Any]) -> BaseException | None:
    """The exception `run` raises (its prints swallowed), or None."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            run()
            simt.synchronize()
    except Exception as e:  # noqa: BLE001 - every exception is what is looked at
        return e
    return None


def _problems(where: str, e: BaseException | None) -> list[str]:
    if e is None:
        return []
    text = f"{type(e).__name__}: {e}"
    if not isinstance(e, SimtError) or type(e).__module__ != "simt.errors":
        return [f"{where}: {type(e).__module__}.{text}"]
    m = LEAKS.search(text)
    return [f"{where}: shows {m.group(0)!r}: {text}"] if m else []


def test_the_leak_pattern_catches_what_it_names() -> None:
    for text in ("at <probe 3>:2", "`_simt_sh_x`", "NeedsKnown: a", "object at 0x7f", "$retval"):
        assert LEAKS.search(text), text
    for text in ("index out of bounds in array write of `buf`", "fuzz_3.py:12: x", "simt_x"):
        assert not LEAKS.search(text), text


def test_mutants_and_corpus_refusals_speak_the_users_language() -> None:
    problems: list[str] = []
    for seed in range(3 * len([c for c in mutator.CONSTRUCTS.values() if c])):  # each 3x
        m = mutator.mutate(seed)
        try:
            kernel = load(m.program)
        except SyntaxError:
            continue
        e = _error(lambda: kernel.ir(*m.program.make_args()))  # noqa: B023
        assert e is not None, f"mutant {seed} ({m.construct}) was accepted"
        problems += _problems(f"mutant {seed} ({m.construct})", e)
    for case in CASES:
        for backend in BACKENDS:
            if case.expected_error(backend):
                simt.use(backend)
                e = _error(lambda: case.kernel[case.grid, case.block](*case.make_args()))  # noqa: B023
                problems += _problems(f"corpus {case.name} on {backend}", e)
    assert not problems, "\n".join(problems)


def _bad_values(a: Any, reshape: bool) -> Iterator[tuple[str, Any]]:
    """Wrong arguments in place of `a`: other kinds, dtypes, byte orders, flags, shapes."""
    if isinstance(a, np.ndarray):
        yield "a list", a.tolist()
        yield "float64", (a.real if np.iscomplexobj(a) else a).astype(np.float64)
        yield "complex128", a.astype(np.complex128)
        yield "big-endian", a.astype(a.dtype.newbyteorder(">"))
        ro = a.copy()
        ro.flags.writeable = False
        yield "read-only", ro
        yield "objects", np.array([object()] * a.size)
        yield "None", None
        yield "a string", "abc"
        if reshape:
            yield "2-D", a.reshape(1, -1)
            yield "empty", a[:0]
    else:
        yield "a string", "abc"
        yield "an array", np.zeros(3)
        yield "2**70", 2**70
        yield "None", None
        yield "1j", 1j
        yield "a float", 0.5


LAUNCHES = [
    (0, 1), (-1, 32), (2**41, 1024), ((1, 2, 3, 4), 1), (1.5, 32), ("a", 1), (1, 0), (1, 4096),
    (None, 1), (1, (2, 0)),
]  # fmt: skip


@pytest.mark.slow  # each accepted wrong argument compiles a variant: minutes on cpu
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("backend", BACKENDS)
def test_wrong_arguments_and_launches_of_fuzz_kernels(backend: str, seed: int) -> None:
    problems: list[str] = []
    simt.use(backend)
    prog = generate(seed, fp64=False)
    kernel = load(prog)
    names = list(kernel.signature.parameters)
    base = prog.make_args()
    for pos, a in enumerate(base):
        for what, bad in _bad_values(a, reshape=backend == "sim"):
            args = list(prog.make_args())
            args[pos] = bad
            e = _error(lambda: kernel[prog.grid, prog.block](*args))  # noqa: B023
            problems += _problems(f"seed {seed}: {names[pos]} = {what}", e)
    for grid, block in LAUNCHES:
        e = _error(lambda: kernel[grid, block](*prog.make_args()))  # noqa: B023
        problems += _problems(f"seed {seed}: [{grid!r}, {block!r}]", e)
    e = _error(lambda: kernel[prog.grid, prog.block](*base[:-1]))  # noqa: B023
    problems += _problems(f"seed {seed}: an argument short", e)
    e = _error(lambda: kernel[prog.grid, prog.block](*base, 1))  # noqa: B023
    problems += _problems(f"seed {seed}: an argument too many", e)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_of_bounds_in_debug_mode_and_the_fuzz_regressions(backend: str) -> None:
    problems: list[str] = []
    simt.use(backend)
    found = 0
    for seed in range(6):
        prog = generate(seed, fp64=False)
        checked = simt.kernel(load(prog).pyfunc, debug=True)
        args = [
            a[: max(1, len(a) // 3)] if isinstance(a, np.ndarray) and a.ndim == 1 else a
            for a in prog.make_args()
        ]
        e = _error(lambda: checked[prog.grid, prog.block](*args))  # noqa: B023
        found += isinstance(e, simt.KernelError)
        problems += _problems(f"seed {seed} in debug mode, arrays cut to a third", e)
    assert found, "no out-of-bounds access was provoked"
    for path in sorted((Path(__file__).parent / "corpus" / "fuzz").glob("fuzz_*.py")):
        prog = from_source(path.read_text())
        kernel = load(prog)
        e = _error(lambda: kernel[prog.grid, prog.block](*prog.make_args()))  # noqa: B023
        problems += _problems(path.name, e)
    assert not problems, "\n".join(problems)


REPL_INPUTS = [
    "y = x + nope",
    "buf[tid] = 1",
    "z = buf[tid - 1]",
    "x[0]",
    "cache[threadIdx + 1] = 2.0",
    "q = (1, 2)[tid:]",
    "w = {\"a\": x, 1: 2}",  # (int and string keys work since #27: not both in one dict)
    "print(buf)",
    "buf[tid % 10] = 1j * x",
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_repl_errors(backend: str) -> None:
    from simt.repl import commands
    from simt.repl.console import PlainSink
    from simt.repl.session import Session

    out = io.StringIO()
    s = Session(PlainSink(out), threads=64, backend=backend)
    s.bind("buf", (10,), np.dtype(np.int32))
    commands.run(s, "%block 16")
    s.run("x = tid * 2")
    s.run("cache = shared(16)")
    problems = []
    for text in REPL_INPUTS:
        out.seek(0)
        out.truncate()
        s.run(text)
        shown = out.getvalue()
        assert shown.strip(), text  # each input is refused, with a message
        m = LEAKS.search(shown)
        if m:
            problems.append(f"{text!r} shows {m.group(0)!r}: {shown}")
    assert not problems, "\n".join(problems)


@simt.kernel
def _fill(a, n):
    i = simt.grid(1)
    if i < a.size:
        a[i] = n


def test_api_misuse_is_named() -> None:
    """Misuses found by the sweep beside the fuzzer: each a simt error naming what was
    wrong (were: a wrong argument count for an unknown keyword, a ValueError from inspect,
    an NVRTC option error called a bug in simt)."""
    from simt.runtime import nvrtc

    with pytest.raises(simt.LaunchError, match="no parameter named 'm'; its parameters are"):
        _fill[1, 4](np.zeros(4), m=1)
    with pytest.raises(simt.CompileError, match="is not a Python function"):
        simt.kernel(int)
    if nvrtc.version() is not None:
        with pytest.raises(simt.LaunchError, match="arch='sm_1' is not a GPU architecture"):
            _fill.resources(np.zeros(4), 1, arch="sm_1")


FULL = 0xFFFFFFFF


@simt.kernel
def _constant_mask_in_branch(a, out):
    i = simt.grid(1)
    if i % 3 == 0:
        out[i] = simt.ballot_sync(0x0F0F0F0F, a[i] > 0)  # lanes 1, 2 are named, not here


@simt.kernel
def _shuffle_in_branch(a, out):
    i = simt.grid(1)
    if i < 20:
        out[i] = simt.shfl_down_sync(FULL, a[i], 1)


@simt.kernel
def _own_lane_left_out(a, out):
    i = simt.grid(1)
    out[i] = simt.any_sync(0x0000FFFF, a[i] > 0)


@simt.kernel
def _syncwarp_in_branch(a, out):
    i = simt.grid(1)
    if simt.laneid < 8:
        simt.syncwarp()
    out[i] = a[i]


@simt.kernel
def _two_masks(a, out):
    i = simt.grid(1)
    m = 0x0000FFFF if simt.laneid < 8 else 0xFFFF0000  # lanes 8-15 name themselves out
    out[i] = simt.shfl_sync(m, a[i], 0)


@simt.kernel
def _halves(a, out):
    i = simt.grid(1)
    m = 0x0000FFFF if simt.laneid < 8 else 0xFFFFFF00  # lane 8 is in both, with another mask
    out[i] = simt.shfl_sync(m, a[i], 0)


@simt.kernel
def _masks_done_right(a, out):
    i = simt.grid(1)
    if i >= 40:
        return  # returned lanes may be named
    thirds = simt.ballot_sync(FULL, i % 3 == 0)  # the mask computed before the branch
    if i % 3 == 0:
        out[i] = simt.ballot_sync(thirds, a[i] > 0) + simt.ballot_sync(simt.activemask(), True)
    out[i] += simt.shfl_xor_sync(FULL, a[i], 1)  # lanes past the block's end do not exist
    half = 0x0000FFFF if simt.laneid < 16 else 0xFFFF0000  # two groups, each its own mask
    out[i] += simt.shfl_sync(half, a[i], 0)


def test_a_warp_mask_naming_a_lane_not_in_the_call_is_named_on_sim() -> None:
    """H100: `ballot_sync(0x0F0F0F0F, p)` under `if i % 3 == 0` was an illegal instruction that
    ended the process's use of the GPU; sim, which quietly took the lanes that were there, now
    says which lanes the mask names that do not make the call, and what to do."""
    simt.use("sim")
    a = np.arange(-20, 44, dtype=np.int32)
    out = np.zeros(64, np.uint32)
    cases = [
        (lambda: _constant_mask_in_branch[1, 64](a, out), "ballot_sync with mask 0x0f0f0f0f "
         "names lanes 1, 2, 8, 10,", (0, 0, 0), "0x0F0F0F0F, a[i] > 0"),
        (lambda: _shuffle_in_branch[1, 64](a, np.zeros(64, np.int32)),
         "shfl_down_sync with mask 0xffffffff names lanes 20, 21", (0, 0, 0), "a[i], 1)"),
        (lambda: _own_lane_left_out[1, 64](a, np.zeros(64, bool)), "does not name its own "
         "lane 16", (16, 0, 0), "0x0000FFFF"),
        (lambda: _syncwarp_in_branch[1, 32](a, np.zeros(64, np.int32)),
         "syncwarp with mask 0xffffffff names lanes 8, 9", (0, 0, 0), "simt.syncwarp()"),
        (lambda: _two_masks[1, 32](a, np.zeros(64, np.int32)), "own lane 8", (8, 0, 0),
         "shfl_sync(m, a[i], 0)"),
        (lambda: _halves[1, 32](a, np.zeros(64, np.int32)), "shfl_sync with mask 0x0000ffff "
         "names lane 8 of this thread's warp, which makes the call with mask 0xffffff00",
         (0, 0, 0), "shfl_sync(m, a[i], 0)"),
    ]  # fmt: skip
    for run, says, thread, source in cases:
        e = _error(run)
        assert isinstance(e, simt.KernelError), e
        text = str(e)
        assert says in text and source in text, text
        assert e.thread == thread and e.filename == __file__, text
        assert "simt.ballot_sync(0xFFFFFFFF, condition)" in text and "activemask()" in text
        assert not _problems("warp mask", e), text
    out = np.zeros(64, np.int32)
    _masks_done_right[1, 48](a, out)  # no error: computed masks, returned and missing lanes
    assert out[0] != 0
