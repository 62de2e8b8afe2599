"""The host's half of files read in kernels (simt.filereads): which files a pattern stages,
the staged block's layout, the hash the kernel computes, and the limits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simt import filereads as fr


def _entries(block: np.ndarray) -> list[tuple[str, str, int]]:
    """(path, text, hash) of each staged file, in the block's order."""
    out = []
    for k in range(int(block[0])):
        h, po, pn, do, dn = (int(x) for x in block[fr.HEADER + fr.ENTRY * k :][: fr.ENTRY])
        path = "".join(map(chr, block[po : po + pn]))
        text = "".join(map(chr, block[do : do + max(dn, 0)]))
        out.append((path, text, h))
    return out


def test_a_pattern_stages_the_files_it_matches_with_their_text(tmp_path: Path) -> None:
    for name, text in [("part1.txt", "a\nb"), ("part22.txt", "é€😀\n"), ("other.txt", "x")]:
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "partdir.txt").mkdir()  # a directory: an entry of length DIRECTORY
    (tmp_path / ".part3.txt").write_text("hidden")  # `*` matches no leading "." (glob's rule)
    pattern = fr.glob_of([f"{tmp_path}/part", None, ".txt"])
    block, paths = fr.stage([(pattern, "k.py:3")])
    assert paths == [f"{tmp_path}/part1.txt", f"{tmp_path}/part22.txt", f"{tmp_path}/partdir.txt"]
    got = _entries(block)
    assert sorted((p, t) for p, t, _ in got) == [(paths[0], "a\nb"), (paths[1], "é€😀\n"),
                                                 (paths[2], "")]  # fmt: skip
    k = next(k for k, (p, _, _) in enumerate(got) if p == paths[2])
    assert block[fr.HEADER + fr.ENTRY * k + 4] == fr.DIRECTORY
    assert fr.stage([(fr.glob_of([f"{tmp_path}/.part", None, ".txt"]), "k.py:4")])[1] == [
        f"{tmp_path}/.part3.txt"
    ]
    seed = int(block[1])
    assert [h for _, _, h in got] == sorted(fr.path_hash(p, seed) for p in paths)  # sorted
    assert all(h == fr.path_hash(p, seed) for p, _, h in got)
    assert block[-1] == 0  # a read one past a file's end stays inside the block


def test_literal_parts_are_matched_literally(tmp_path: Path) -> None:
    (tmp_path / "a[1].txt").write_text("x")
    (tmp_path / "a1.txt").write_text("y")
    block, paths = fr.stage([(fr.glob_of([f"{tmp_path}/a[1].txt"]), "k.py:1")])
    assert paths == [f"{tmp_path}/a[1].txt"]


def test_no_match_stages_an_empty_block() -> None:
    """No file, and still one entry's words: a thread's lookup reads entry 0 whatever the
    count (it read past the heap array before, an IndexError from inside simt)."""
    block, paths = fr.stage([("/nonexistent-simt-dir/*.txt", "k.py:1")])
    assert paths == [] and block.tolist() == [0, 0] + [0] * fr.ENTRY + [0]


def test_the_seed_tells_every_staged_path_apart() -> None:
    paths = [f"d/p{i}.txt" for i in range(5000)]
    seed = fr.distinct_seed(paths)
    assert len({fr.path_hash(p, seed) for p in paths}) == len(paths)
    assert fr.path_hash("ab", 0) != fr.path_hash("ba", 0)
    assert 0 <= fr.path_hash("x" * 100, 7) <= fr.HASH_MASK


def test_limits_and_binary_files_are_stage_errors_naming_the_pattern(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(3):
        (tmp_path / f"p{i}.txt").write_text("abcd")
    pattern = (fr.glob_of([f"{tmp_path}/p", None, ".txt"]), "user.py:12")
    monkeypatch.setattr(fr, "MAX_FILES", 2)
    with pytest.raises(fr.StageError, match=r"3 files match .*open at user.py:12"):
        fr.stage([pattern])
    monkeypatch.setattr(fr, "MAX_FILES", 10)
    monkeypatch.setattr(fr, "MAX_CHARS", 20)
    with pytest.raises(fr.StageError, match="more than 20 characters"):
        fr.stage([pattern])
    (tmp_path / "p9.txt").write_bytes(b"\x80")
    monkeypatch.setattr(fr, "MAX_CHARS", 1 << 20)
    with pytest.raises(fr.StageError, match=r"p9.txt' is not UTF-8 text"):
        fr.stage([pattern])


def test_read_and_written_compares_real_paths(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    read = [str(tmp_path / "a.txt")]
    assert fr.read_and_written(read, {f"{tmp_path}/./a.txt": ("w", b"")}) == [f"{tmp_path}/./a.txt"]
    assert fr.read_and_written(read, {f"{tmp_path}/b.txt": ("w", b"")}) == []


def _old_files(tmp_path: Path, n: int) -> tuple[fr.Pattern, ...]:
    """`n` files p{k}.txt, their and their directory's mtimes 10 s ago (past RACY_NS)."""
    for k in range(n):
        (tmp_path / f"p{k}.txt").write_text(f"text {k}\n")
    _age(tmp_path, *(tmp_path / f"p{k}.txt" for k in range(n)))
    return ((fr.glob_of([f"{tmp_path}/p", None, ".txt"]), "k.py:1"),)


def _age(*paths: Path) -> None:
    import os
    import time

    old = time.time_ns() - 10_000_000_000
    for p in paths:
        os.utime(p, ns=(old, old))


def _counting_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one at each staging that reads files (`_build`)."""
    reads: list[int] = []
    build = fr._build

    def counted(patterns, paths):  # noqa: ANN001, ANN202
        reads.append(len(paths))
        return build(patterns, paths)

    monkeypatch.setattr(fr, "_build", counted)
    return reads


def test_an_unchanged_set_of_files_is_staged_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second launch reuses the block: no file is read again (#27 item 3: 20k files were
    read at every launch)."""
    reads = _counting_reads(monkeypatch)
    patterns = _old_files(tmp_path, 3)
    first, paths = fr.staged(patterns)
    again, paths2 = fr.staged(patterns)
    assert reads == [3] and again is first and paths2 == paths
    assert again.tolist() == fr.stage(patterns)[0].tolist()


def test_a_changed_added_or_removed_file_is_staged_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = _counting_reads(monkeypatch)
    patterns = _old_files(tmp_path, 3)
    fr.staged(patterns)
    (tmp_path / "p1.txt").write_text("changed, longer\n")  # its mtime and size change
    block, _ = fr.staged(patterns)
    assert len(reads) == 2 and "changed, longer\n" in [t for _, t, _ in _entries(block)]
    _age(tmp_path, tmp_path / "p1.txt")
    fr.staged(patterns)
    (tmp_path / "p7.txt").write_text("new")  # the directory's mtime changes
    block, paths = fr.staged(patterns)
    assert f"{tmp_path}/p7.txt" in paths
    _age(tmp_path, tmp_path / "p7.txt")
    fr.staged(patterns)
    (tmp_path / "p0.txt").unlink()
    block, paths = fr.staged(patterns)
    assert f"{tmp_path}/p0.txt" not in paths and len(reads) == 6
    assert block.tolist() == fr.stage(patterns)[0].tolist()


def test_a_directory_a_wildcard_reaches_is_watched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`{d}/{sub}/x.txt`: a file made in an existing subdirectory changes that directory's
    mtime, not the top one's; it is staged at the next launch."""
    reads = _counting_reads(monkeypatch)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.txt").write_text("a")
    _age(tmp_path, tmp_path / "a", tmp_path / "b", tmp_path / "a" / "x.txt")
    patterns = ((fr.glob_of([f"{tmp_path}/", None, "/x.txt"]), "k.py:1"),)
    assert fr.staged(patterns)[1] == [f"{tmp_path}/a/x.txt"]
    assert fr.staged(patterns)[1] == [f"{tmp_path}/a/x.txt"] and len(reads) == 1
    (tmp_path / "b" / "x.txt").write_text("b")
    assert fr.staged(patterns)[1] == [f"{tmp_path}/a/x.txt", f"{tmp_path}/b/x.txt"]


def test_files_changed_just_before_staging_are_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file written within RACY_NS of its staging could change again with the same mtime
    (a file system's timestamp granularity): its block is staged again at the next launch."""
    reads = _counting_reads(monkeypatch)
    (tmp_path / "p0.txt").write_text("now")
    patterns = ((fr.glob_of([f"{tmp_path}/p", None, ".txt"]), "k.py:1"),)
    fr.staged(patterns)
    fr.staged(patterns)
    assert len(reads) == 2
