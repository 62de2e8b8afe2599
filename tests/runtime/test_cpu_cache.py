"""The cpu runtime's disk cache of lowered kernels (`runtime/cpu_cache.py`): a variant compiled
once is found by its IR in a later compile (a new kernel object, as in a new process), whose
launch then lowers and renders nothing, and whose errors name the same lines; the key changes
with everything that decides the LLVM text (#28, #29: a cached W6 in a new process lowered and
rendered its kernel again, a third of its time)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import simt
from simt.runtime import cpu, cpu_cache


def _colsum(a, out):  # noqa: ANN001, ANN202 - a kernel (W1's): out[j] raises IndexError
    j = simt.block_idx.x * simt.block_dim.x + simt.thread_idx.x
    if j < a.shape[1]:
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i, j]
        out[j] = s


def _shifted(a):  # noqa: ANN001, ANN202 - threads meet at a barrier: the backend's own check
    i = simt.thread_idx.x
    simt.syncthreads()
    a[i + 4] = 1.0


def _shout(a):  # noqa: ANN001, ANN202 - prints: not stored
    print("a is", a[0])


@pytest.fixture
def lowered(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """An empty disk cache, and the names of the kernels the cpu runtime lowers."""
    monkeypatch.setenv("SIMT_CACHE_DIR", str(tmp_path))
    names: list[str] = []
    real = cpu.lower_and_render

    def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
        names.append(fn.name)
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(cpu, "lower_and_render", counted)
    return names


def test_a_second_compile_lowers_nothing(lowered: list[str]) -> None:
    a = np.arange(24, dtype=np.float32).reshape(3, 8)
    with simt.using("cpu"):
        for attempt in range(2):  # a new kernel object each time: compiled again
            out = np.zeros(8, np.float32)
            simt.kernel(_colsum)[1, 8](a, out)
            np.testing.assert_array_equal(out, a.sum(axis=0))
            assert lowered == ["_colsum"], (attempt, lowered)
        short = np.zeros(5, np.float32)  # threads 5-7 raise IndexError at out[j] = s
        with pytest.raises(simt.KernelError, match=r"IndexError") as e:
            simt.kernel(_colsum)[1, 8](a, short)
        assert e.value.line == _colsum.__code__.co_firstlineno + 6


def test_an_error_site_is_named_from_the_process_own_ir(lowered: list[str]) -> None:
    """The backend's own check (threads that meet at a barrier): its site, stored as a number,
    names the line of the op in the IR of the compile that found the entry."""
    with simt.using("cpu"):
        messages = []
        for _ in range(2):
            a = np.zeros(8, np.float32)
            with pytest.raises(simt.KernelError) as e:
                simt.kernel(_shifted)[1, 8](a)
            messages.append((str(e.value), e.value.line))
        assert lowered == ["_shifted"], lowered
    assert messages[0] == messages[1]
    assert messages[0][1] == _shifted.__code__.co_firstlineno + 3 and "`a`" in messages[0][0]


def test_kernels_that_print_are_lowered_every_time(
    lowered: list[str], capfd: pytest.CaptureFixture[str]
) -> None:
    with simt.using("cpu"):
        for _ in range(2):
            simt.kernel(_shout)[1, 1](np.ones(1, np.float32))
    assert lowered == ["_shout", "_shout"] and capfd.readouterr().out.count("a is 1.0") == 2


def test_the_key_follows_what_decides_the_llvm_text(monkeypatch: pytest.MonkeyPatch) -> None:
    base: tuple[Any, ...] = ("fingerprint", "k", frozenset({"a"}), (8, 1, 1), 1, True,
                             ("x86_64", "znver5", "+avx512f", "22.1"))  # fmt: skip
    k = cpu_cache.key(*base)
    for i, other in enumerate(["fingerprint2", "k2", frozenset(), (16, 1, 1), 2, False,
                               ("x86_64", "znver4", "+avx512f", "22.1")]):  # fmt: skip
        changed = list(base)
        changed[i] = other
        assert cpu_cache.key(*changed) != k, i
    monkeypatch.setattr(cpu_cache, "lowering_digest", lambda: "other lowering code")
    assert cpu_cache.key(*base) != k


def test_the_source_digest_follows_every_source_file(tmp_path: Any) -> None:
    import os

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "lowering.py").write_text("x = 1\n")
    (tmp_path / "notes.txt").write_text("not source")
    first = cpu_cache.tree_digest(str(tmp_path))
    (tmp_path / "notes.txt").write_text("still not source")
    assert cpu_cache.tree_digest(str(tmp_path)) == first
    st = os.stat(tmp_path / "sub" / "lowering.py")
    os.utime(tmp_path / "sub" / "lowering.py", ns=(st.st_atime_ns, st.st_mtime_ns + 1000))
    assert cpu_cache.tree_digest(str(tmp_path)) != first  # an edit (its time) changes it
    (tmp_path / "new.py").write_text("")
    assert len({first, cpu_cache.tree_digest(str(tmp_path))}) == 2


def test_every_field_of_the_lowering_meta_is_stored_or_excluded() -> None:
    """`cpu_cache.store` writes `Meta` field by field: a field added to `llvm_abi.Meta`
    would take its default on every cache hit, silently. Each field is either stored or
    makes the kernel not cached (prints)."""
    from dataclasses import fields

    from simt.backends.llvm_abi import Meta

    stored = {"record_slots", "sites", "layout", "jammed"}
    not_cached = {"formats", "print_types"}  # a kernel that prints is not stored
    assert {f.name for f in fields(Meta)} == stored | not_cached, (
        "a new llvm_abi.Meta field: store it in runtime/cpu_cache.store and read it in load, "
        "or leave kernels that need it uncached"
    )
