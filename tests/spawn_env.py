"""PYTHONPATH for a test that starts Python in a subprocess.

The child must import the simt under test (this checkout's `src/`, first), and must still find
whatever the parent found through its own PYTHONPATH (a machine whose packages come from a
PYTHONPATH entry, as the GPU pass's wheels do). Replacing PYTHONPATH with `src/` alone lost
those, so every such test builds the child's variable here.
"""

from __future__ import annotations

import os
from pathlib import Path

import simt

SRC = str(Path(simt.__file__).resolve().parents[1])


def pythonpath() -> str:
    """simt's source folder, then the entries of this process's PYTHONPATH, without repeats."""
    entries = [SRC] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return os.pathsep.join(dict.fromkeys(entries))
