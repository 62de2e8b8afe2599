"""`simt repl`: an interactive Python prompt where every input runs on every thread.

Each input is compiled to a kernel over all threads (not interpreted); each thread keeps its
own variables between inputs; the outputs are grouped and each distinct text is printed once
with the number of threads that printed it.
"""

from __future__ import annotations

from .console import PlainSink, main
from .session import Session

__all__ = ["main", "PlainSink", "Session"]
