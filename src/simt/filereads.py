"""Files that kernel threads read: `open(path)` in a `@simt.kernel` (#27 item 3).

A thread cannot reach the host's file system, so the host reads the files a kernel may open
before each launch ("staging") and the threads look their paths up in what it staged. The
rule for which files are staged, stated once (docs/language.md, "Reading files"):

    the path of each `open(path)` for reading is a string known at compile time or an
    f-string; the host stages every existing file whose path matches it, each run-time part
    (`{i}`, `{name}`) standing for any text inside one path component (a glob `*`).

So `open(f"data/part{i}.txt")` stages `data/part*.txt`: every file a thread can name there,
whatever values the run-time parts take, at the cost of reading the files no thread opens
(keep the fixed parts specific). Which names match is Python's `glob.glob`'s rule: a
run-time part holding a `/` names a file of another directory, and one starting a name with
"." a hidden file, neither staged: such a thread's `open` raises FileNotFoundError. A
directory that matches is staged as a name (its `open` raises IsADirectoryError).

The staged files are text, decoded as UTF-8, one int32 word per code point, as the front
end's run-time strings hold their characters (`frontend/strings.py`). They are put in the
kernel's int32 arena array after every thread's region (`frontend/arena.py`), a block that
no thread writes: a string read from a file is then an ordinary run-time string whose words
happen to lie in that block, so `read()`, `readline()` and `for line in f` copy nothing and
take no heap, and every string operation works on them unchanged. The block (`stage`):

    word 0: the number of files N; word 1: the hash seed
    words 2 .. 2 + 5N: per file, sorted by hash: hash, path offset, path length, data
        offset, data length (offsets from the block's start; length DIRECTORY, -1, for a
        directory); with no file, 5 zero words (a thread's lookup reads entry 0 whatever N
        is)
    then the paths' and the files' code points, then one zero word (a read one past a
        file's end stays inside the block)

A thread hashes its path (`path_hash`: FNV-1a over the code points, cut to 31 bits),
binary-searches the hashes and compares the one path that has its hash; the host picks a
seed that gives the staged paths distinct hashes, so one comparison decides.

A launch stages through `staged`, which keeps the block while nothing it was made of changed
(each file's mtime_ns and size, the mtime_ns of each directory whose listing decides what
matches): an unchanged set of files is not read again.
"""

from __future__ import annotations

import glob
import os
import re
import stat
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

HEADER = 2  # words before the entries: count, seed
ENTRY = 5  # words per file: hash, path offset, path length, data offset, data length
MAX_FILES = 65536  # files one launch may stage
MAX_CHARS = 1 << 26  # code points one launch may stage, all files together (256 MiB)
FNV_OFFSET = 2166136261
FNV_PRIME = 16777619
HASH_MASK = 0x7FFFFFFF
DIRECTORY = -1  # an entry's data length for a directory the path matched (IsADirectoryError)
# the staged blocks kept for the next launches (`staged`): at most this many, of at most
# CACHE_WORDS words together
CACHE_ENTRIES = 8
CACHE_WORDS = 1 << 26
# a file or directory changed less than this before it was staged may change again within
# its file system's timestamp granularity (2 s on FAT; a clock tick on Linux) without its
# mtime showing it: such a block is not kept, and the next launch stages again
RACY_NS = 2_000_000_000

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


def describe(patterns: Iterable[Pattern]) -> str:
    """The patterns with the places of their `open`s, for a message."""
    return ", ".join(sorted({f"{g!r} (open at {place})" for g, place in patterns}))


def glob_of(parts: Iterable[str | None]) -> str:
    """The glob pattern of a path made of literal parts and run-time parts (None)."""
    return "".join("*" if p is None else glob.escape(p) for p in parts)


def matches(patterns: Iterable[Pattern]) -> list[str]:
    """The existing files and directories the patterns match, sorted, each once: Python's
    `glob.glob`, so a `*` matches no name that starts with "." (a hidden file), as the shell's
    and Python's globs do; a pattern whose fixed part starts the name with "." matches them."""
    found: set[str] = set()
    for pattern, _ in patterns:
        # (not a FIFO or a device, whose read would wait or never end)
        found.update(p for p in glob.glob(pattern) if os.path.isfile(p) or os.path.isdir(p))
    return sorted(found)


def stage(patterns: Iterable[Pattern]) -> tuple[np.ndarray, list[str]]:
    """The int32 block of the files the patterns match (layout: the module's docstring), and
    their paths. StageError names the file or the limit when they cannot be staged. A matched
    directory is an entry of length DIRECTORY (opening it raises IsADirectoryError)."""
    patterns = list(patterns)
    paths = matches(patterns)
    return _build(patterns, paths), paths


def _build(patterns: list[Pattern], paths: list[str]) -> np.ndarray:
    """The block of `paths`, which `patterns` matched (`stage`)."""
    where = describe(patterns)
    if len(paths) > MAX_FILES:
        raise StageError(
            f"{len(paths)} files match the paths the kernel reads, {where}: at most "
            f"{MAX_FILES} are staged for one launch; make the fixed parts of the path "
            "more specific"
        )
    texts: list[np.ndarray] = []
    total = 0
    for p in paths:
        if os.path.isdir(p):
            texts.append(np.zeros(0, np.int32))
            total += len(p)
            continue
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
    seed = distinct_seed(paths)
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
        block[e + 3] = at
        block[e + 4] = DIRECTORY if os.path.isdir(paths[k]) else len(data)
        block[at : at + len(data)] = data
        at += len(data)
    return block


Stamp = tuple[int, int] | None | bool  # what `_file_stamp` gives


@dataclass
class _Staged:
    """A staged block kept for the next launches, with what it was staged from: the
    (mtime_ns, size) of each path (None: a directory) and the mtime_ns of each directory whose
    listing decides what the patterns match (None: it did not exist)."""

    block: np.ndarray
    paths: list[str]
    stamps: dict[str, Stamp]
    listed: dict[str, int | None]

    def fresh(self) -> bool:
        """Whether staging again would give the same block (nothing it was made of changed)."""
        return self.listed == _dir_stamps(self.listed) and all(
            _file_stamp(p) == st for p, st in self.stamps.items()
        )


_CACHE: OrderedDict[tuple[tuple[Pattern, ...], str], _Staged] = OrderedDict()
_MAGIC = re.compile(r"[*?[]")


def staged(patterns: Iterable[Pattern]) -> tuple[np.ndarray, list[str]]:
    """`stage(patterns)`, kept for the next launches: a launch whose files and directories
    are unchanged since the block was staged (the same mtime_ns and size of each file, the
    same mtime_ns of each directory listed, the same working directory) reuses it without
    reading a file; any change stages again. The block is shared: never written."""
    patterns = tuple(patterns)
    key = (patterns, os.getcwd())
    kept = _CACHE.get(key)
    if kept is not None:
        if kept.fresh():
            _CACHE.move_to_end(key)
            return kept.block, kept.paths
        del _CACHE[key]
    now = time.time_ns()
    listed = _dir_stamps(d for pattern, _ in patterns for d in _listed_dirs(pattern))
    paths = matches(patterns)
    stamps = {p: _file_stamp(p) for p in paths}  # before reading: a change while it reads shows
    block = _build(list(patterns), paths)
    times = [*(m for m in listed.values() if m is not None),
             *(st[0] for st in stamps.values() if isinstance(st, tuple))]  # fmt: skip
    if max(times, default=0) < now - RACY_NS and len(block) <= CACHE_WORDS:
        _CACHE[key] = _Staged(block, paths, stamps, listed)
        while len(_CACHE) > CACHE_ENTRIES or sum(len(c.block) for c in _CACHE.values()) > (
            CACHE_WORDS
        ):
            _CACHE.popitem(last=False)
    return block, paths


def _listed_dirs(pattern: str) -> list[str]:
    """The directories whose listings decide what `pattern` matches: the deepest one named
    by its fixed leading components (listed even where it does not exist yet), and every
    directory that the components after it reach (their listings can add a match)."""
    parts = pattern.split("/")
    magic = [i for i, c in enumerate(parts) if _MAGIC.search(c)]
    first = magic[0] if magic else len(parts) - 1
    root = "/" if pattern.startswith("/") else "."
    out = ["/".join(parts[:first]) or root]
    for i in range(first + 1, len(parts)):
        out += [d for d in glob.glob("/".join(parts[:i])) if os.path.isdir(d)]
    return out


def _dir_stamps(dirs: Iterable[str]) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for d in dirs:
        try:
            out[d] = os.stat(d).st_mtime_ns
        except OSError:
            out[d] = None
    return out


def _file_stamp(path: str) -> Stamp:
    """What a path was staged as: (mtime_ns, size) of a file, None for a directory, False
    when it is neither now."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    if stat.S_ISDIR(st.st_mode):
        return None
    return (st.st_mtime_ns, st.st_size) if stat.S_ISREG(st.st_mode) else False


def read_and_written(read: list[str], written: dict[str, Any]) -> list[str]:
    """The written paths that name a file the launch read (staged before it)."""
    if not read:
        return []
    staged = {os.path.realpath(p) for p in read}
    return [p for p in written if os.path.realpath(p) in staged]


def distinct_seed(paths: list[str]) -> int:
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

    def seek(self, pos: Any, whence: Any = 0) -> Any:
        """Move to `pos` (a number `tell` gave, or 0; whence 1: `seek(0, 1)`, here; whence 2:
        `seek(0, 2)`, the end); the new position."""

    def tell(self) -> Any:
        """The position: an opaque number that `seek` takes back."""

    # refused with what to write instead (frontend/files.py)
    def readlines(self) -> Any: ...

    def write(self, *a: Any) -> Any: ...

