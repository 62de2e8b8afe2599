"""Fixtures shared by the front end's tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simt


@pytest.fixture
def refusal(tmp_path: Path) -> Callable[..., str]:
    """`refusal(source)`: the text of the CompileError that compiling and launching kernel `k`
    of `source` (written to the user's own file, `user_kernel.py`, so that messages name it)
    raises on `sim`; the launch is `k[1, 2](*args)`, by default an int32 array and 3."""

    def run(source: str, args: tuple[Any, ...] | None = None) -> str:
        path = tmp_path / "user_kernel.py"
        path.write_text(source)
        ns: dict[str, Any] = {}
        exec(compile(source, str(path), "exec"), ns)  # noqa: S102 - the test's own file
        simt.use("sim")
        with pytest.raises(simt.CompileError) as info:
            ns["k"][1, 2](*(args if args is not None else (np.zeros(2, np.int32), 3)))
        return str(info.value)

    return run
