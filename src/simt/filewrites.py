"""Files that kernel threads write: the records threads print and the host lands after a
launch, shared by `@simt.kernel` (`open(path, "w")` in a kernel) and the REPL.

A thread opening a file prints a record `MARK o<handle> SEP <mode> SEP <path> MARK`, each
`write` a record `MARK w<handle> SEP <text> MARK`, `close` `MARK c<handle> MARK`. After the
launch the host separates them from what threads printed (`split_records`), puts each
thread's writes into the file it opened, checks that no two threads write one file opened
with "w" and that the size limits hold (`land_open`), and only then writes the real files.
"""

from __future__ import annotations

from typing import Any

MARK = "\x00"  # starts and ends what kernels print for the host to replace (bytes, file records)
SEP = "\x01"  # between the fields of a file record
COUNT = "_simt_nrec"  # each thread's number of file records (a dropped one is then noticed)
MAX_FILES = 65536  # files one input may write
MAX_BYTES = 1 << 28  # bytes one input may write, all files together


class WriteError(Exception):
    """What the threads wrote cannot be landed in files (the message says why)."""


def split_records(
    prints: list[tuple[int, str]],
) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(what threads printed, their file records), each as (thread, text) in thread order."""
    shown: list[tuple[int, str]] = []
    records: list[tuple[int, str]] = []
    open_record: dict[int, int] = {}  # thread -> its record still missing its end mark
    for t, text in prints:
        if t in open_record:  # the next piece of a record written by several print ops (the
            k = open_record[t]  # characters of a run-time string, one op each)
            records[k] = (t, records[k][1] + text)
            if text.endswith(MARK):
                del open_record[t]
            continue
        kind = text[1:2]
        if text.startswith(MARK) and kind in ("o", "w", "c"):
            records.append((t, text))
            if len(text) < 3 or not text.endswith(MARK):
                open_record[t] = len(records) - 1
        else:
            shown.append((t, text))
    return shown, records


Handles = dict[str, dict[int, str]]  # variable -> thread -> path of a file open for writing


def land(records: list[tuple[int, str]]) -> dict[str, tuple[str, bytes]]:
    """The files the records write: path -> (mode, bytes) (see `land_open`)."""
    return land_open(records)[0]


def land_open(
    records: list[tuple[int, str]], carried: Handles | None = None
) -> tuple[dict[str, tuple[str, bytes]], Handles]:
    """The files the records write: path -> (mode, bytes), and the handles still open after
    them. One thread per "w" path; "a" paths take every thread's writes in thread order.
    `carried` are the handles earlier inputs left open (as Python keeps a file open until
    `close()`): their writes are appended to what already landed. WriteError names two
    threads that clash, a write to a file that is not open, or a size limit passed."""
    current: dict[tuple[int, str], str] = {}  # (thread, variable) -> path
    owner: dict[str, tuple[str, int]] = {}  # path -> (mode, first thread)
    data: dict[str, list[str]] = {}
    for name, paths in (carried or {}).items():
        for t, path in paths.items():
            current[(t, name)] = path
            if path not in owner:  # it landed already: what is written now is appended
                owner[path] = ("a", t)
                data[path] = []
    total = 0
    for t, text in records:
        kind, body = text[1], text[2:-1]
        name, _, rest = body.partition(SEP)
        if kind == "c":
            current.pop((t, name), None)
            continue
        if kind == "o":
            mode, _, path = rest.partition(SEP)
            if path not in owner:
                if len(owner) >= MAX_FILES:
                    raise WriteError(f"more than {MAX_FILES} files written by one input")
                owner[path] = (mode, t)
                data[path] = []
            else:
                first_mode, first = owner[path]
                if first != t and (mode == "w" or first_mode == "w"):
                    raise WriteError(
                        f"threads {first} and {t} both open {path!r}, with mode "
                        f"{first_mode!r} and {mode!r}: one thread per file, or open it with "
                        '"a" in every thread (their writes are then joined in thread order)'
                    )
                if mode == "w":
                    data[path] = []  # reopened for writing: truncated, as in Python
                    owner[path] = ("w", t)
            current[(t, name)] = path
            continue
        path_w = current.get((t, name))
        if path_w is None:
            raise WriteError(
                f"thread {t} writes to {name!r}, which is not open for writing in that thread "
                f'(never opened, or closed): open it first, {name} = open(path, "w") or "a"'
            )
        total += len(rest.encode())
        if total > MAX_BYTES:
            raise WriteError(f"one input may write at most {MAX_BYTES} bytes to files")
        data[path_w].append(rest)
    still: Handles = {}
    for (t, name), path in current.items():
        still.setdefault(name, {})[t] = path
    written = {p: (owner[p][0], "".join(parts).encode()) for p, parts in data.items()
               if parts or owner[p][0] == "w" or p not in _paths(carried)}  # fmt: skip
    return written, still


def _paths(handles: Handles | None) -> set[str]:
    return {p for paths in (handles or {}).values() for p in paths.values()}




class KernelFile:
    """A file a thread of a `@simt.kernel` opened for writing: `open(path, "w")` (or "a")
    with a path made per thread (an f-string of the thread's index). The front end writes
    its records (`write`, `close`); this class is what it inlines (`with open(...) as f:`
    calls `close` on leaving)."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def write(self, text: Any) -> None:
        """Write `text` (a record the host lands after the launch)."""

    def close(self) -> None:
        """Close the file: later writes through this handle are an error."""

    def __enter__(self) -> KernelFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def write_files(written: dict[str, tuple[str, bytes]]) -> None:
    """Write what `land_open` gives into the host's files (append for mode "a")."""
    for path, (mode, data) in written.items():
        with open(path, "ab" if mode == "a" else "wb") as f:
            f.write(data)
