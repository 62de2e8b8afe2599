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
        text = "".join(map(chr, block[do : do + dn]))
        out.append((path, text, h))
    return out


def test_a_pattern_stages_the_files_it_matches_with_their_text(tmp_path: Path) -> None:
    for name, text in [("part1.txt", "a\nb"), ("part22.txt", "é€😀\n"), ("other.txt", "x")]:
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "partdir.txt").mkdir()  # a directory that matches is not a file
    pattern = fr.glob_of([f"{tmp_path}/part", None, ".txt"])
    block, paths = fr.stage([(pattern, "k.py:3")])
    assert paths == [f"{tmp_path}/part1.txt", f"{tmp_path}/part22.txt"]
    got = _entries(block)
    assert sorted((p, t) for p, t, _ in got) == [(paths[0], "a\nb"), (paths[1], "é€😀\n")]
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
    seed = fr._seed(paths)
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
