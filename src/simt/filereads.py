"""Files that kernel threads read: `open(path)` in a `@simt.kernel` (#27 item 3).

A thread cannot reach the host's file system, so the host reads the files a kernel may open
before each launch ("staging") and the threads look their paths up in what it staged. The
rule for which files are staged, stated once (docs/language.md, "Reading files"):

    the path of each `open(path)` for reading is a string known at compile time or an
    f-string; the host stages every existing file whose path matches it, each run-time part
    (`{i}`, `{name}`) standing for any text inside one path component (a glob `*`).

So `open(f"data/part{i}.txt")` stages `data/part*.txt`: every file a thread can name there,
whatever values the run-time parts take, at the cost of reading the files no thread opens
(keep the fixed parts specific). A run-time part holding a `/` names a file of another
directory, which is not staged: such a thread's `open` raises FileNotFoundError.

The staged files are text, decoded as UTF-8, one int32 word per code point, as the front
end's run-time strings hold their characters (`frontend/strings.py`). They are put in the
kernel's int32 arena array after every thread's region (`frontend/arena.py`), a block that
no thread writes: a string read from a file is then an ordinary run-time string whose words
happen to lie in that block, so `read()`, `readline()` and `for line in f` copy nothing and
take no heap, and every string operation works on them unchanged. The block (`stage`):

    word 0: the number of files N; word 1: the hash seed
    words 2 .. 2 + 5N: per file, sorted by hash: hash, path offset, path length, data
        offset, data length (offsets from the block's start); with no file, 5 zero words
        (a thread's lookup reads entry 0 whatever N is)
    then the paths' and the files' code points, then one zero word (a read one past a
        file's end stays inside the block)

A thread hashes its path (`path_hash`: FNV-1a over the code points, cut to 31 bits),
binary-searches the hashes and compares the one path that has its hash; the host picks a
seed that gives the staged paths distinct hashes, so one comparison decides.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from typing import Any

import numpy as np

HEADER = 2  # words before the entries: count, seed
ENTRY = 5  # words per file: hash, path offset, path length, data offset, data length
MAX_FILES = 65536  # files one launch may stage
MAX_CHARS = 1 << 26  # code points one launch may stage, all files together (256 MiB)
FNV_OFFSET = 2166136261
FNV_PRIME = 16777619
HASH_MASK = 0x7FFFFFFF

# what the front end records for each `open` for reading (`Function.attrs["file_reads"]`):
# (glob pattern, "file:line" of the `open`)
Pattern = tuple[str, str]


class StageError(Exception):
    """The files a launch would stage cannot be (too many, too large, not text)."""


def path_hash(path: str, seed: int) -> int:
    """The 31-bit hash of `path` the kernel computes (`frontend/files.py`): FNV-1a over the
    code points in uint32, the seed xored into the offset basis."""
    h = (FNV_OFFSET ^ seed) & 0xFFFFFFFF
    for c in path:
        h = ((h ^ ord(c)) * FNV_PRIME) & 0xFFFFFFFF
    return h & HASH_MASK


def glob_of(parts: Iterable[str | None]) -> str:
    """The glob pattern of a path made of literal parts and run-time parts (None)."""
    return "".join("*" if p is None else glob.escape(p) for p in parts)


def matches(patterns: Iterable[Pattern]) -> list[str]:
    """The existing files (not directories) the patterns match, sorted, each once."""
    found: set[str] = set()
    for pattern, _ in patterns:
        for p in glob.glob(pattern):
            if os.path.isfile(p):
                found.add(p)
    return sorted(found)


def stage(patterns: Iterable[Pattern]) -> tuple[np.ndarray, list[str]]:
    """The int32 block of the files the patterns match (layout: the module's docstring), and
    their paths. StageError names the file or the limit when they cannot be staged."""
    patterns = list(patterns)
    paths = matches(patterns)
    where = ", ".join(sorted({f"{g!r} (open at {place})" for g, place in patterns}))
    if len(paths) > MAX_FILES:
        raise StageError(
            f"{len(paths)} files match the paths the kernel reads, {where}: at most "
            f"{MAX_FILES} are staged for one launch; make the fixed parts of the path "
            "more specific"
        )
    texts: list[np.ndarray] = []
    total = 0
    for p in paths:
        try:
            with open(p, encoding="utf-8") as fh:  # "\r\n" read as "\n", as Python
                text = fh.read()
        except UnicodeDecodeError as bad:
            raise StageError(
                f"{p!r} is not UTF-8 text ({bad.reason} at byte {bad.start}), and a kernel reads "
                f"files as text: it matches {where}; binary files are read on the host "
                '(DATA = open(path, "rb").read() outside the kernel, or an array argument)'
            ) from None
        except OSError as err:
            raise StageError(f"{p!r} cannot be read for the kernel: {err}") from None
        total += len(p) + len(text)
        if total > MAX_CHARS:
            raise StageError(
                f"the files matching {where} hold more than {MAX_CHARS} characters, the most "
                "one launch stages; read fewer or smaller files per launch"
            )
        texts.append(np.frombuffer(text.encode("utf-32-le"), np.uint32).view(np.int32))
    seed = _seed(paths)
    order = sorted(range(len(paths)), key=lambda k: path_hash(paths[k], seed))
    n = len(paths)
    # at least one entry's words: with no file staged, a thread's lookup still reads entry 0
    # (then all zeros, never a match) inside the block
    block = np.zeros(HEADER + ENTRY * max(n, 1) + total + 1, np.int32)
    block[0], block[1] = n, seed
    at = HEADER + ENTRY * max(n, 1)
    for slot, k in enumerate(order):
        path = np.frombuffer(paths[k].encode("utf-32-le"), np.uint32).view(np.int32)
        e = HEADER + ENTRY * slot
        block[e] = path_hash(paths[k], seed)
        block[e + 1], block[e + 2] = at, len(path)
        block[at : at + len(path)] = path
        at += len(path)
        data = texts[k]
        block[e + 3], block[e + 4] = at, len(data)
        block[at : at + len(data)] = data
        at += len(data)
    return block, paths


def read_and_written(read: list[str], written: dict[str, Any]) -> list[str]:
    """The written paths that name a file the launch read (staged before it)."""
    if not read:
        return []
    staged = {os.path.realpath(p) for p in read}
    return [p for p in written if os.path.realpath(p) in staged]


def _seed(paths: list[str]) -> int:
    """A seed under which the paths' hashes are distinct (the first of 0, 1, 2, ...)."""
    for seed in range(1 << 16):
        if len({path_hash(p, seed) for p in paths}) == len(paths):
            return seed
    raise StageError("no hash seed tells the staged paths apart")  # (never met: 31 bits)


class KernelReader:
    """A file a thread of a `@simt.kernel` opened for reading (`open(path)`, `open(path,
    "r")`). The front end (`frontend/files.py`) translates these methods; the class is what
    `with open(...) as f:` inlines (`__exit__` calls `close`)."""

    def __init__(self, state: Any, data: Any, n: Any) -> None:
        self.state = state  # the arena word holding the position (-1: closed)
        self.data = data  # where the file's characters start (an arena offset)
        self.n = n  # how many there are

    def read(self, size: Any = -1) -> Any:
        """The rest of the file (at most `size` characters when `size` >= 0)."""

    def readline(self) -> Any:
        """The next line, with its "\\n" (the empty string at the end)."""

    def close(self) -> None:
        """Close the file: reading it afterwards raises ValueError."""

    def __enter__(self) -> KernelReader:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # refused with what to write instead (frontend/files.py)
    def seek(self, *a: Any) -> Any: ...

    def tell(self) -> Any: ...

    def readlines(self) -> Any: ...

    def write(self, *a: Any) -> Any: ...

