"""The kernel generator: deterministic, parseable, and what it promises to avoid."""

from __future__ import annotations

import ast
import re

import pytest

from simt.testing.generator import from_source, generate


def test_a_seed_always_gives_the_same_kernel() -> None:
    assert generate(17).source == generate(17).source
    assert generate(17).source != generate(18).source


def test_the_source_describes_its_own_launch() -> None:
    p = generate(5)
    q = from_source(p.source)
    assert (q.seed, q.grid, q.block, q.slots, q.fp64) == (p.seed, p.grid, p.block, p.slots, p.fp64)
    for a, b in zip(p.make_args(), q.make_args()):
        assert type(a) is type(b)


def test_approximate_operations_only_reach_the_fx_output() -> None:
    # `/`, `//` on floats and math functions are sinks: never assigned to a variable
    for seed in range(40):
        tree = ast.parse(generate(seed).source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                target = ast.unparse(node.targets[0])
                text = ast.unparse(node.value)
                if not target.startswith("fx["):
                    assert "math.sqrt" not in text and "math.sin" not in text, text
                    assert not any(isinstance(n, ast.Div) for n in ast.walk(node.value)), text


def test_optional_features_are_options() -> None:
    from simt.testing.generator import Generator

    off = Generator(7, dtypes=False, complexes=False, views=False).program()
    assert not off.extras and not ({"complex", "views", "small_int"} & off.features)
    on = Generator(7, dtypes=True, complexes=True, views=True).program()
    assert {"complex", "views"} <= on.features and {"m2", "vo"} <= set(on.extras)
    assert on.features & {"small_int", "f16", "u64"}
    q = from_source(on.source)  # the extras travel in the source's LAUNCH
    assert q.extras == on.extras and q.array_names == on.array_names
    assert len([a for a in q.make_args() if hasattr(a, "dtype") and a.ndim]) == len(q.array_names)


def test_a_kernel_without_the_options_is_the_old_text() -> None:
    # the optional features draw from their own stream: a seed that draws none of them
    # writes the kernel it wrote before they existed (pinned seeds keep their meaning)
    from simt.testing.generator import Generator

    for seed in range(30):
        p = Generator(seed, bigconst=False).program()
        drawn = {"complex", "iterate", "early_return", "warp", "lists", "exceptions", "dicts",
                 "files"}  # fmt: skip
        if not p.extras and not drawn & p.features:
            off = Generator(
                seed, dtypes=False, complexes=False, views=False, lang=False, lists=False,
                exceptions=False, dicts=False, files=False,
                bigconst=False,
            )
            assert p.source == off.program().source
        if not Generator(seed).big_on:  # big constants drawn from a stream of their own too
            assert generate(seed).source == p.source


def test_numba_spelling_mode() -> None:
    """`numba=True` writes the same kernel as a Numba-CUDA program: `from simt import cuda`,
    `@cuda.jit`, device functions, cuda.* names and NumPy casts; from_source reads it back."""
    for seed in (1, 5, 9):
        plain = generate(seed)
        p = generate(seed, numba=True)
        assert p.numba and "numba" in p.features and not plain.numba
        assert "@cuda.jit\ndef kernel(" in p.source and "from simt import cuda" in p.source
        assert "simt.grid(" not in p.source and "thread_idx." not in p.source
        assert "@simt.kernel" not in p.source
        if "\ndef helper" in plain.source:
            assert "@cuda.jit(device=True)\ndef helper" in p.source
        back = from_source(p.source)
        assert back.numba and back.slots == p.slots and back.grid == p.grid
        ast.parse(p.source)


def test_numba_spelled_kernels_agree_on_every_backend() -> None:
    from simt.testing.differential import check

    for seed in (0, 6):
        findings = check(generate(seed, numba=True), ("cpu",), nvrtc=False)
        assert findings == [], [str(f) for f in findings]


def test_big_constants_make_int64_operations() -> None:
    """`bigconst`: int32 expressions with constants int32 cannot hold (issue 23), wrapped back
    to int32; the LAUNCH says int64 so that a shrunk kernel keeps the feature."""
    from simt.testing.generator import BIG_LITS, Generator

    p = Generator(3, bigconst=True).program()
    assert "int64" in p.features and "'int64': True" in p.source
    assert any(c in p.source for c in BIG_LITS)
    assert "int64" in from_source(p.source).features
    assert not any(c in Generator(3, bigconst=False).program().source for c in BIG_LITS)


def test_out_of_bounds_kernels_have_one_access_outside_its_array() -> None:
    """`oob`: one access outside its array, of each kind users write by mistake; the LAUNCH
    carries it (a shrunk kernel keeps its expectation)."""
    from simt.testing.generator import Generator

    kinds = set()
    for seed in range(60):
        p = Generator(seed, oob=True, size=4).program()
        assert p.oob is not None and p.oob[0] in ("fa", "ia", "ua", "fo", "io", "uo")
        kinds.add(p.oob[1])
        assert from_source(p.source).oob == p.oob
        assert "debug=True" not in p.source  # bounds checks are on by default
    assert {k.split("+")[0] for k in kinds} == {
        "off_by_one", "loop_off_by_one", "negative", "slot_off_by_one", "store_negative",
        "missing_guard", "wrong_guard", "walk_off",  # (a loop that only ends by failing)
        "stride_off_by_one",  # (`if i * 2 <= len(fa): fa[i * 2]`)
    }  # fmt: skip
    # some followed by a barrier the threads that did not raise meet at (#23)
    assert {"walk_off+barrier", "store_negative+barrier"} <= kinds
    assert Generator(3).program().oob is None


def test_lists_are_drawn_and_agree_between_backends() -> None:
    # the `lists` feature: lists that grow per thread (gen_lists.py), the same on sim and cpu
    from simt.testing.differential import check

    p = generate(3, lists=True)
    assert "lists" in p.features and ("append(" in p.source or "] * " in p.source)
    assert "lists" not in generate(3, lists=False).features
    assert check(p, ("cpu",), nvrtc=False) == []


@pytest.mark.parametrize("seed", [3, 8])
def test_dicts_are_drawn_and_agree_between_backends(seed: int) -> None:
    # the `dicts` feature: dicts and sets per thread (gen_dicts.py), the same on sim and cpu
    from simt.testing.differential import check

    p = generate(seed, dicts=True, exceptions=True)
    assert "dicts" in p.features and "{" in p.source
    assert "dicts" not in generate(seed, dicts=False).features
    assert "dicts" not in generate(seed, numba=True).features
    assert check(p, ("cpu",), nvrtc=False) == []


@pytest.mark.parametrize("seed", [5, 12])
def test_string_keys_are_drawn_and_agree_between_backends(seed: int) -> None:
    # gen_dicts.words: a dict of string keys, its KeyError and its size changed under a `for`
    from simt.testing.differential import check

    p = generate(seed, dicts=True, exceptions=True)
    assert "'k' + str(" in p.source and "except RuntimeError:" in p.source
    assert check(p, ("cpu",), nvrtc=True) == []


def test_constant_tables_are_drawn_and_agree_between_backends() -> None:
    # the `lang` feature's constant tables (a known tuple indexed by a run-time value)
    from simt.testing.differential import check

    p = generate(1)
    assert "tables" in p.features and re.search(r"tt\d+\[", p.source)
    assert check(p, ("cpu",), nvrtc=True) == []


def test_exceptions_feature_draws_try_raise_assert_and_with() -> None:
    """`exceptions=True` writes a try statement with raise/assert/with, each exception
    caught in its thread; the kernels agree on every backend (differential.check)."""
    from simt.testing.differential import check

    seen: set[str] = set()
    for seed in range(40):
        p = generate(seed, exceptions=True, size=4)
        assert "exceptions" in p.features and "try:" in p.source and "finally:" in p.source
        for word in ("raise ", "assert ", "with Tally(", "except (AssertionError, KeyError)"):
            if word in p.source:
                seen.add(word)
    assert len(seen) == 4, seen
    for seed in (0, 4, 24):  # a with, an assert, a warp vote feeding the raise's condition
        assert check(generate(seed, exceptions=True, size=6), ("cpu",), nvrtc=True) == []


def test_exceptions_feature_draws_str_of_an_exception_from_several_places() -> None:
    """#27: `str(e)` where the `try` may raise at several places with different messages
    (was refused: a CompileError); the kernels agree on every backend."""
    from simt.testing.differential import check

    seeds = [s for s in range(30)
             if "len(str(e)) * 3" in generate(s, exceptions=True, size=4).source]  # fmt: skip
    assert len(seeds) >= 5, seeds
    assert check(generate(seeds[0], exceptions=True, size=4), ("cpu",), nvrtc=True) == []


def test_exceptions_feature_draws_an_assert_message_built_at_run_time() -> None:
    """#27: `assert c, 'x=' + repr(x) + ...`, caught (a run-time message and `repr` of a
    run-time number were refused: CompileErrors); the kernels agree on every backend, and the
    draw has a stream of its own (the seeds' other draws are as before)."""
    from simt.testing.differential import check

    seeds = [s for s in range(30)
             if "len(str(e)) * 7" in generate(s, exceptions=True, size=4).source]  # fmt: skip
    assert len(seeds) >= 5, seeds
    src = generate(seeds[0], exceptions=True, size=4).source
    assert re.search(r"assert .*, 'x=' \+ repr\(ex\d+\) \+ ' ' \+ repr\(", src), src
    assert check(generate(seeds[0], exceptions=True, size=4), ("cpu",), nvrtc=True) == []


def test_lists_feature_draws_list_displays_on_the_paths_of_an_if() -> None:
    """#27: a variable given displays of different lengths on an `if`'s paths is a run-time
    list (was refused: 'may be undefined'); the kernels agree on every backend."""
    from simt.testing.differential import check

    seeds = [s for s in range(40)
             if re.search(r"ys\d+ = \[t % 5, 2\] if", generate(s, lists=True, size=4).source)]
    assert seeds
    assert check(generate(seeds[0], lists=True, size=4), ("cpu",), nvrtc=True) == []


def test_lists_feature_draws_enumerate_zip_reversed_over_lists_and_strings() -> None:
    """#27: `enumerate`/`zip`/`reversed` over a run-time list and string, in loops and
    comprehensions (comprehensions and `list(reversed(xs))` were refused); the kernels agree
    on every backend."""
    from simt.testing.differential import check

    drawn: dict[str, int] = {}
    for s in range(60):
        src = generate(s, lists=True, size=4).source
        for form in (r"in enumerate\(wx\d+, ", r"zip\(reversed\(wx", r"enumerate\(reversed\(wx",
                     r"enumerate\(reversed\(ws"):  # fmt: skip
            if re.search(form, src):
                drawn.setdefault(form, s)
    assert len(drawn) == 4, drawn
    for seed in sorted(set(drawn.values()))[:2]:
        assert check(generate(seed, lists=True, size=4), ("cpu",), nvrtc=True) == []


def test_lists_feature_draws_rsplit_maxsplit_and_lists_of_strings_sorted() -> None:
    """#27: a run-time string cut by `rsplit` or with a `maxsplit`, its list of strings read
    (`min`/`max`, `count`/`index`/`in`), ordered (`sorted`, slices, copies), changed and
    added to, and two strings compared with `<` (each refused before); the kernels agree on
    every backend."""
    from simt.testing.differential import check

    drawn: dict[str, int] = {}
    for s in range(80):
        src = generate(s, lists=True, size=4).source
        if "' b,a 1 a')" not in src:
            continue
        for form in (".rsplit(", "maxsplit=", "sorted(ws", "min(ws", ".index('a') if 'a' in",
                     "] < us"):  # fmt: skip
            if form in src:
                drawn.setdefault(form, s)
    assert len(drawn) == 6, drawn
    assert check(generate(drawn[".rsplit("], lists=True, size=4), ("cpu",), nvrtc=True) == []


def test_lists_feature_draws_searches_between_a_start_and_an_end() -> None:
    """#27: `find`, `rfind` and `count` of a run-time string with a start and an end
    (`count` and `rfind` took neither before); the kernels agree on every backend."""
    from simt.testing.differential import check

    drawn: dict[str, int] = {}
    for s in range(300):
        src = generate(s, lists=True, size=4).source
        for form in ("find", "rfind", "count"):
            if re.search(rf"\* 3 \+ \w+\.{form}\([^\n]*, ", src):
                drawn.setdefault(form, s)
        if len(drawn) == 3:
            break
    assert len(drawn) == 3, drawn
    for seed in sorted(set(drawn.values()))[:2]:
        assert check(generate(seed, lists=True, size=4), ("cpu",), nvrtc=True) == []


def test_an_f_string_with_an_effect_is_drawn_and_runs_it_once() -> None:
    """A run-time string (gen_lists.text) may be an f-string holding an atomic add to the
    thread's own `io` slot, and the kernel asserts the add ran once: comparing backends
    with `sim` cannot see an expression translated twice (sim runs the same translation),
    this assertion can."""
    from simt.testing.differential import check

    drawn = [s for s in range(12) if "simt.atomic.add(io, " in generate(s, lists=True).source]
    assert drawn, "no kernel of seeds 0-11 draws the f-string with an atomic"
    p = generate(drawn[0], lists=True)
    assert "assert io[i * NSLOT_io + " in p.source and "atomics" in p.features
    assert check(p, ("cpu",), nvrtc=True) == []


def test_format_specs_are_drawn_and_agree_between_backends() -> None:
    """With exceptions on, a run-time string (gen_lists.text) may be followed by an int under
    a format spec (an f-string, str.format or format()), its MemoryError caught."""
    from simt.testing.differential import check

    kinds = set()
    drawn = []
    for seed in range(40):
        src = generate(seed, lists=True, exceptions=True, size=4).source
        if "except MemoryError" in src:
            drawn.append(seed)
            kinds |= {k for k in ('= f"<{fv', ".format(fv", "= format(fv") if k in src}
    assert len(kinds) == 3, kinds
    assert check(generate(drawn[0], lists=True, exceptions=True, size=4), ("cpu",),
                 nvrtc=True) == []  # fmt: skip


def test_files_feature_reads_per_thread_files_and_agrees_between_backends() -> None:
    """`files=True` (gen_files.py): each thread opens a file named by its index inside
    `with`, reads it by iteration, readline, read, read(k) or tell/seek, or opens it in a
    loop; with exceptions on, a missing file's FileNotFoundError is caught. The kernels agree
    on every backend and NVRTC."""
    from simt.testing.differential import check

    seen: set[str] = set()
    for seed in range(40):
        p = generate(seed, files=True, exceptions=seed % 2 == 0, size=4)
        assert "files" in p.features and "with open(f\"{FDIR}/" in p.source
        for word in ("for ln", ".readline()", ".read()", ".read(", "except FileNotFoundError",
                     "int(ln", "with open(f\"{FDIR}/g{", "in enumerate(fh", ".seek(", ".tell()",
                     "in range((t & 1) + "):  # fmt: skip
            if word in p.source:
                seen.add(word)
    assert len(seen) == 11, seen  # `g{...}`: a name no file has (maybe none staged)
    assert "files" not in generate(3, files=False).features
    assert not any("files" in generate(s, numba=True).features for s in range(30))
    for seed in (0, 2, 3, 6, 24):  # 24: int(line) of each line, its errors caught
        assert check(generate(seed, files=True, exceptions=True, size=5), ("cpu",),
                     nvrtc=True) == []  # fmt: skip


def test_float64_kernels_draw_math_rows_reading_float64_constants() -> None:
    """In a float64 kernel the math sinks include rows of `d0` that read float64 constants
    (MATH_SINKS_F64): `math.copysign(1.5, d0)` (seed 309's once) was an internal error on webgpu
    before 9d7c0e7 (naga evaluated `abs(1.5lf)` and has no float64 abs), a finding of the
    differential check there; it agrees on every backend present now."""
    from simt.runtime import registry
    from simt.testing.differential import check
    from simt.testing.generator import MATH_SINKS_F64

    sink = "simt.float32(math.copysign(1.5, d0))"  # the first seed that draws it (generator
    p = next(q for q in map(generate, range(400)) if sink in q.source)  # changes move it)
    assert p.fp64
    assert not any(s in generate(3).source for s in MATH_SINKS_F64)  # not in float32 kernels
    backends = ("cpu",) + (("webgpu",) if registry.probe("webgpu")[0] else ())
    assert check(p, backends, nvrtc=True) == []


def test_kernels_draw_fmod_with_large_ratios_and_subnormal_divisors() -> None:
    """`math.fmod` where webgpu's old spelling `a - b * trunc(a / b)` was wrong (278a3a1):
    ratios up to 1e32 in float32, and in float64 kernels up to 1e302 and subnormal divisors
    (FMOD_SINKS, drawn from a stream of their own: a kernel that draws none is the text it
    was); every sink is drawn within the first seeds and agrees with sim on every backend
    present (and compiles with NVRTC)."""
    from simt.runtime import registry
    from simt.testing.differential import check
    from simt.testing.generator import FMOD_SINKS, FMOD_SINKS_F64

    backends = ("cpu",) + (("webgpu",) if registry.probe("webgpu")[0] else ())
    left = set(FMOD_SINKS + FMOD_SINKS_F64)
    for seed in range(400):
        p = generate(seed, size=2)
        drawn = {s for s in left if s in p.source}
        if not drawn:
            continue
        assert "fmod" in p.features and (p.fp64 or not drawn & set(FMOD_SINKS_F64))
        assert check(p, backends, nvrtc=True) == [], (seed, drawn)
        left -= drawn
        if not left:
            break
    assert not left, left


def test_specials_feature_feeds_special_values_and_agrees_between_backends() -> None:
    """`specials=True` (gen_special.py): -0.0, NaN and infinities read from `sv` go to
    copysign, isnan, isinf, isfinite, comparisons (`!=` of a NaN was false on webgpu),
    min/max, `+ - *`; the results compare with their sign in `sv` (-0.0 is not 0.0 there)
    and without it in `fo`. The kernels agree on cpu and NVRTC compiles them."""
    import numpy as np

    from simt.testing.differential import check, compare

    seen: set[str] = set()
    for seed in range(30):
        p = generate(seed, specials=True, size=4)
        assert "specials" in p.features and "sv" in p.extras
        for word in ("math.copysign(", "math.isnan(", "math.isinf(", "math.isfinite(", " != ",
                     "min(", "max(", "abs(sp"):  # fmt: skip
            if word in p.source:
                seen.add(word)
        assert np.isnan(p.make_args()[-1][:64]).any() or seed % 7  # NaNs among the values
    assert len(seen) == 8, seen
    assert "specials" not in generate(3, specials=False).features
    zero, neg = np.zeros(1, np.float32), np.array([-0.0], np.float32)
    assert compare(0, "x", [zero], [neg], ("sv",)) and not compare(0, "x", [zero], [neg], ("fo",))
    for seed in (0, 1, 2):
        assert check(generate(seed, specials=True, size=4), ("cpu",), nvrtc=True) == []


def test_a_shared_phase_may_sum_its_tile_in_interleaved_steps() -> None:
    # Harris's first reduction (`t % (2 * w) == 0`, `sh[t + w]`), after a barrier that
    # follows the neighbour's read: what the bounds pass's alignment rule proves (#23)
    srcs = [generate(seed).source for seed in range(60)]
    tree = [s for s in srcs if re.search(r"if t % \(2 \* w\d+\) == 0:", s)]
    assert tree
    for s in tree:
        lines = s.splitlines()
        at = next(k for k, ln in enumerate(lines) if re.search(r"w\d+ = 1$", ln))
        assert "simt.syncthreads()" in lines[at - 1]
        compile(s, "<fuzz>", "exec")


def test_a_shared_phase_may_load_tiles_by_a_counter_of_its_loop() -> None:
    """nbody's tile loop (`sh[t] = fa[k * simt.block_dim.x + t]`, `k += 1` each iteration
    of `range(0, len(fa), block)`): what the bounds pass tests once per block (#23); the
    kernels that draw it agree on `cpu` and `webgpu` and compile with NVRTC, and so does one
    in Numba's spelling (`cuda.blockDim.x`, int64 loop bounds)."""
    from simt.runtime import registry
    from simt.testing.differential import check

    backends = ("cpu",) + (("webgpu",) if registry.probe("webgpu")[0] else ())
    simt_form = r"\[k\d+ \* simt\.block_dim\.x \+ t\]"
    numba_form = r"\[k\d+ \* cuda\.blockDim\.x \+ t\]"
    drawn = [p for p in (generate(seed, size=4) for seed in range(60))
             if re.search(simt_form, p.source)]  # fmt: skip
    assert len(drawn) >= 2, len(drawn)
    for program in drawn[:2]:
        assert check(program, backends, nvrtc=True) == []
    numba = next(p for p in (generate(seed, numba=True, size=4) for seed in range(200))
                 if re.search(numba_form, p.source))  # fmt: skip
    assert check(numba, backends, nvrtc=False) == []


def test_lists_feature_draws_displays_of_known_strings_made_lists() -> None:
    """#27: a display of known strings appended to, extended or set (refused as "a list in a
    kernel holds numbers, not a str"), and one read at a run-time index; the kernels agree
    on every backend."""
    from simt.testing.differential import check

    drawn: dict[str, int] = {}
    for s in range(300):
        src = generate(s, lists=True, size=4).source
        for form in (r"vs\d+\.append\(", r"vs\d+\.extend\(", r"vs\d+\[t % 2\] = ",
                     r"\['x', 'yy', 'zzz'\]\[t % 3\]"):  # fmt: skip
            if re.search(form, src):
                drawn.setdefault(form, s)
        if len(drawn) == 4:
            break
    assert len(drawn) == 4, drawn
    for seed in sorted(set(drawn.values()))[:2]:
        assert check(generate(seed, lists=True, size=4), ("cpu",), nvrtc=True) == []


def test_a_guarded_read_at_a_multiple_of_i_is_drawn_and_agrees() -> None:
    """About one kernel in five reads `fa[js]` / `ia[js]` with `js = i * 2` (or 3) under
    `if js < len(..)` (#23: the guard bounds it once the product cannot wrap)."""
    from simt.testing.differential import check

    seeds = [s for s in range(40) if "js = i *" in generate(s).source]
    assert 3 <= len(seeds) <= 20, seeds
    p = generate(seeds[0])
    assert "if js < len(" in p.source
    assert check(p, ("cpu",), nvrtc=False) == []


def test_lists_feature_draws_sort_keys_as_lambdas_nested_defs_and_builtins() -> None:
    """`sort(key=)`, `sorted(key=)`, `min`/`max(key=)` with a builtin, a lambda (one with a
    default, one giving tuples), and a nested def reading the thread's `t` when called, and
    `reverse=` decided per thread; such kernels agree with sim on cpu and compile with NVRTC
    (the slice runs every backend)."""
    from simt.testing.differential import check

    drawn: dict[str, int] = {}
    for s in range(120):
        p = generate(s, lists=True, size=4)
        if "local_functions" not in p.features:
            continue
        for form in (r"\.sort\(key=", r"= sorted\(xs\d+, key=", r"(min|max)\(xs\d+, key=",
                     r"key=abs\b", r"key=lambda v:", r"key=lambda v: \(v", r"lambda v, w=t % 4:",
                     r"    return \(v \* m \+ t\) % 7", r"reverse=(t % 2 == 1|t % 3|i > 40)"
                     ):  # fmt: skip
            if re.search(form, p.source):
                drawn.setdefault(form, s)
    assert len(drawn) == 9, drawn
    for form in (r"key=lambda v: \(v", r"lambda v, w=t % 4:", r"    return \(v \* m \+ t\) % 7",
                 r"reverse=(t % 2 == 1|t % 3|i > 40)"):  # fmt: skip
        assert check(generate(drawn[form], lists=True, size=4), ("cpu",), nvrtc=True) == []


def test_lists_feature_draws_a_list_of_strings_repeated_at_run_time() -> None:
    """`[s[:2], 'q'] * n` with a run-time n (-1 to 2): drawn, and it agrees with sim on cpu
    and compiles with NVRTC."""
    from simt.testing.differential import check

    seeds = [s for s in range(120) if "'q'] * (t %" in generate(s, lists=True, size=4).source]
    assert seeds
    assert check(generate(seeds[0], lists=True, size=4), ("cpu",), nvrtc=True) == []
