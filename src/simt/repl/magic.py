"""Jupyter: `%load_ext simt` gives the `%%simt` cell magic, with the REPL's grouped output.

    %%simt --threads 1024 --backend cpu
    x = tid * 2
    x % 3

A cell runs as one input (its last bare expression is echoed); lines starting with `%` in it
are the REPL's commands (`%bind`, `%save`, ...), run in order between the other lines. The
session, its per-thread variables and buffers, is kept from cell to cell per notebook.
"""

from __future__ import annotations

import argparse
import shlex
from typing import Any

from ..errors import SimtError
from . import commands
from .console import PlainSink
from .session import Session

_sessions: dict[int, Session] = {}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="%%simt", add_help=False)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--backend", default=None)
    return p


def run_cell(key: int, line: str, cell: str) -> None:
    """Run `cell` in the session `key` (made on first use), with options from `line`."""
    try:
        opts = _parser().parse_args(shlex.split(line))
    except SystemExit:
        print("%%simt: options are --threads N and --backend NAME")
        return
    s = _sessions.get(key)
    try:
        if s is None:
            s = Session(PlainSink(), threads=opts.threads or 1 << 20, backend=opts.backend)
            _sessions[key] = s
        else:
            if opts.backend is not None and opts.backend != s.backend:
                s.set_backend(opts.backend)
            if opts.threads is not None and opts.threads != s.threads:
                s.set_threads(opts.threads)
    except (SimtError, ValueError) as e:
        print(f"%%simt: {e}")
        return
    chunk: list[str] = []
    for ln in [*cell.split("\n"), None]:
        if ln is None or ln.lstrip().startswith("%"):
            if chunk and not s.run("\n".join(chunk)):
                return
            chunk = []
            if ln is not None and not commands.run(s, ln.strip()):
                return
        else:
            chunk.append(ln)


def load_ipython_extension(ipython: Any) -> None:
    """Called by IPython's `%load_ext simt`: registers the `%%simt` cell magic."""
    key = id(ipython)

    def simt_magic(line: str, cell: str) -> None:
        run_cell(key, line, cell)

    simt_magic.__doc__ = __doc__
    ipython.register_magic_function(simt_magic, magic_kind="cell", magic_name="simt")
