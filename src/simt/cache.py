"""The on-disk cache of compiled artefacts (CUBIN, object code, ...).

Keyed by a hash of what was compiled (source text or IR), the backend, the target and simt's
version. Entries are raw bytes with a SHA-256 check sum in front: a corrupt or truncated entry is
rebuilt, never trusted, and nothing is ever unpickled. `SIMT_CACHE_DIR` sets the folder;
`SIMT_CACHE=0` turns the cache off.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from . import __version__

_MAGIC = b"SIMT1"


def cache_dir() -> Path:
    """The cache folder: `SIMT_CACHE_DIR`, else the user cache folder of the platform."""
    env = os.environ.get("SIMT_CACHE_DIR")
    if env:
        return Path(env)
    if os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif os.uname().sysname == "Darwin":  # type: ignore[attr-defined,unused-ignore]
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "simt"


def enabled() -> bool:
    return os.environ.get("SIMT_CACHE", "1") != "0"


def key(*parts: str | bytes) -> str:
    """A cache key from the parts that decide the artefact; simt's version is always one."""
    h = hashlib.sha256(__version__.encode())
    for p in parts:
        h.update(b"\0")
        h.update(p if isinstance(p, bytes) else p.encode())
    return h.hexdigest()


def load(backend: str, k: str) -> bytes | None:
    """The artefact stored under `k`, or None when absent or damaged (then it is removed)."""
    if not enabled():
        return None
    path = cache_dir() / backend / k
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    head = len(_MAGIC) + 32
    if len(raw) < head or not raw.startswith(_MAGIC):
        _drop(path)
        return None
    digest, data = raw[len(_MAGIC) : head], raw[head:]
    if hashlib.sha256(data).digest() != digest:
        _drop(path)
        return None
    return data


def store(backend: str, k: str, data: bytes) -> None:
    """Store `data` under `k`, atomically (a reader never sees half an entry)."""
    if not enabled():
        return
    folder = cache_dir() / backend
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + hashlib.sha256(data).digest() + data)
        os.replace(tmp, folder / k)
    except OSError:
        pass  # a read-only or full disk only costs a recompile


def _drop(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass
