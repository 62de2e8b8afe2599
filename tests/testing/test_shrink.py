"""The delta-debugging shrinker reduces a kernel while a failure persists, and only into
kernels the generator could have written (never into a kernel rejected for a good reason)."""

from __future__ import annotations

import pytest

from simt.runtime import registry
from simt.testing.differential import check
from simt.testing.generator import Program, from_source, generate
from simt.testing.shrink import shrink, well_formed


@pytest.fixture(autouse=True)
def _keep_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_current", registry._current)


def _kernel(p: Program) -> str:
    return p.source[p.source.index("def kernel(") :]


def test_shrinks_to_the_lines_that_matter() -> None:
    # (without gen_lang's section: its early returns keep barriers the shrinker must keep)
    kernels = (generate(seed, lang=False) for seed in range(50))
    program = next(p for p in kernels if "simt.atomic" in p.source)

    def fails(p: Program) -> bool:  # stands for "still gives the same wrong answer"
        return "simt.atomic" in p.source

    small = shrink(program, fails)
    kernel = _kernel(small)
    assert "simt.atomic" in kernel
    # the signature, `i`, and the atomic's line; the first kernel with an atomic may hold it
    # in an f-string (the lists feature's effect check), which keeps the string's two lines
    assert len(kernel.splitlines()) <= 5, kernel
    assert len(small.source) < len(program.source) / 2
    assert "def helper" not in small.source  # helpers nothing calls are removed


def test_a_shrunk_kernel_is_still_valid() -> None:
    # "fails" whenever a helper is still called: a shrinker that deleted the helper's
    # `return`, or the assignment of a variable the call reads, would keep a kernel that
    # sim rejects for a good reason (a different failure from the one being shrunk)
    seeds = [s for s in range(40) if "= helper" in _kernel(generate(s))][:4]
    assert seeds
    for seed in seeds:
        small = shrink(generate(seed), lambda p: "helper0(" in _kernel(p))
        assert well_formed(small.source)
        assert "return" in small.source[: small.source.index("def kernel(")]
        assert check(small, (), False) == [], small.source


HEAD = """import math
import simt
from simt import block_idx, thread_idx
LAUNCH = {'seed': 0, 'grid': 1, 'block': 32, 'fp64': False}
NSLOT_fo = 1
NSLOT_io = 1
NSLOT_uo = 1
NSLOT_fx = 1
NSLOT_do = 1

@simt.kernel
def kernel(fa, ia, ua, fo, io, uo, fx, hist, s0, s1):
    i = simt.grid(1)
"""


def test_an_if_is_replaced_by_its_body() -> None:
    src = HEAD + "    if True:\n        io[i] = 7\n    else:\n        io[i] = 8\n"
    small = shrink(from_source(src), lambda p: "io[i] = 7" in p.source)
    assert "if" not in _kernel(small) and "io[i] = 7" in _kernel(small), small.source


def test_a_loop_is_replaced_by_one_pass_of_its_body() -> None:
    src = HEAD + "    for k in range(3, s0):\n        io[i] = k + 1\n    w = 0\n"
    src += "    while w < 3:\n        w += 1\n        uo[i] = simt.uint32(w)\n"
    small = shrink(from_source(src), lambda p: "k + 1" in p.source and "uo[i]" in p.source)
    kernel = _kernel(small)
    assert "for" not in kernel and "while" not in kernel, kernel
    assert "k = 3" in kernel and "io[i] = k + 1" in kernel, kernel
    assert well_formed(small.source)


def test_well_formed_refuses_what_a_kernel_cannot_be() -> None:
    ok = HEAD + "    v = 1\n    if s0 > 0:\n        v = 2\n    io[i] = v\n"
    assert well_formed(ok)
    assert not well_formed(HEAD + "    if s0 > 0:\n        v = 2\n    io[i] = v\n")
    assert not well_formed(HEAD + "    io[i] = v\n")
    assert not well_formed(HEAD + "    break\n")
    helper = "def helper0(p0):\n    if p0 > 0:\n        return (1, 2)\n"
    assert not well_formed(HEAD.replace("@simt.kernel", helper + "\n@simt.kernel"))


def test_a_variant_must_fail_the_same_way(monkeypatch: pytest.MonkeyPatch) -> None:
    from simt.testing import campaign
    from simt.testing.differential import Finding

    bug = Finding(1, "webgpu", "mismatch", "io[3] = 1, sim gives 2 (1 differ)")
    answers = {
        "same": [Finding(1, "webgpu", "mismatch", "io[0] = 5, sim gives 0 (2 differ)")],
        "other array": [Finding(1, "webgpu", "mismatch", "fo[3] = 1.0, sim gives 2.0")],
        "other backend": [Finding(1, "cpu", "mismatch", "io[3] = 1, sim gives 2")],
        "rejected": [Finding(1, "webgpu", "rejected", "CompileError: io[3] is not defined")],
        "sim rejects": [Finding(1, "sim", "rejected", "CompileError: x")],
    }
    monkeypatch.setattr(campaign, "check", lambda p, b, n: answers[p.source])
    still = campaign.same_failure(bug, ("webgpu",), False)
    verdicts = {k: still(Program(1, k, 1, 32, {})) for k in answers}
    assert verdicts == {k: k == "same" for k in answers}


def test_shared_and_local_arrays_stay_initialised() -> None:
    src = HEAD + (
        "    sh = simt.shared.array(32, simt.int32)\n    sh[thread_idx.x] = i\n"
        "    simt.syncthreads()\n    la = simt.local.array(8, simt.int32)\n"
        "    for q in range(8):\n        la[q] = q\n"
        "    io[i] = sh[(thread_idx.x + 1) % 32] + la[i % 8]\n"
    )
    small = shrink(
        from_source(src), lambda p: "io[i] = sh[(thread_idx.x + 1) % 32] + la[" in p.source
    )
    for line in ("sh[thread_idx.x] = i", "simt.syncthreads()", "for q in range(8):"):
        assert line in small.source, small.source


def test_the_out_of_bounds_access_is_kept() -> None:
    """A kernel of the `oob` option keeps its one out-of-bounds access and its index: the
    campaign's first shrink of seed 32256 removed it, leaving an in-bounds kernel whose LAUNCH
    still expected a KernelError."""
    kinds: dict[str, Program] = {}
    for seed in range(60):
        p = generate(seed, oob=True, size=3)
        if p.oob:
            kinds.setdefault(p.oob[1], p)
    assert len(kinds) >= 4, kinds.keys()
    for kind, program in kinds.items():
        array = program.oob[0]  # type: ignore[index]
        access = [
            ln.split("#")[0].strip() for ln in _kernel(program).splitlines()
            if ln.strip().startswith(("qoob = " + array + "[", "for koob", "while koob",
                                      f"{array}[i * NSLOT_{array} + NSLOT_{array}]",
                                      array + "[t - 2]"))
            and "[0]" not in ln
        ]  # fmt: skip
        assert access, (kind, program.source)
        small = _kernel(shrink(program, lambda p: True))  # "still fails" whatever is removed
        for line in access:
            assert line in small, (kind, line, small)


def test_a_saved_case_names_the_flags_that_find_it_again() -> None:
    """Every generator feature can be forced on or off from the command line (`lang` could
    not), and a saved case's header repeats the campaign's generator options."""
    from simt.testing import campaign

    assert set(campaign.FEATURES.split(",")) >= {"lang", "lists", "exceptions", "views"}
    flags = campaign.command_flags({"lang": True, "lists": False, "oob": True, "size": 5})
    assert flags == " --with lang --without lists --oob --size 5"
