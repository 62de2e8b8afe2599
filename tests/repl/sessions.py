"""A REPL session writing to a string, for tests that drive `Session` directly (no pty)."""

from __future__ import annotations

import io

import pytest

import simt
from simt.repl.console import PlainSink
from simt.repl.session import Session
from simt.runtime import registry


def new_session(backend: str, threads: int) -> tuple[Session, io.StringIO]:
    """A session on `backend` with `threads` threads and the buffer its output goes to;
    skips the test when `backend` is not present here."""
    if backend != "sim":
        ok, why = registry.probe(backend)
        if not ok:
            pytest.skip(f"{backend} not present: {why}")
    buf = io.StringIO()
    with simt.using(simt.backend()):  # the session's choice ends with this call
        s = Session(PlainSink(buf), threads=threads, backend=backend)
    return s, buf
