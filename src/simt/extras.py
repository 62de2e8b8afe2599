"""The optional parts (`pip install 'simt[NAME]'`) and their entry points, reached from below
by name: `entry("dask", "map_blocks")` imports `simt.dask` on first use (never at
`import simt`) and returns the function it registered in its `ENTRY_POINTS`. So the user API,
image functions and index expressions hand dask arrays to `simt.dask` without importing a
higher part; an extra that is not installed is a `BackendUnavailable` saying what to install."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from .errors import BackendUnavailable

# extra -> the module that registers its entry points (a dict `ENTRY_POINTS` of name -> callable)
EXTRAS = {"dask": "simt.dask"}


def entry(extra: str, name: str) -> Callable[..., Any]:
    """Entry point `name` of optional part `extra`, importing the part now."""
    try:
        module = importlib.import_module(EXTRAS[extra])
    except ImportError as e:
        raise BackendUnavailable(str(e)) from None
    return module.ENTRY_POINTS[name]  # type: ignore[no-any-return]
