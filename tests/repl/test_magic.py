"""The `%%simt` cell magic, through a stand-in for IPython's shell (IPython is optional)."""

from __future__ import annotations

from typing import Any

import pytest

import simt


class FakeShell:
    """Records what `load_ipython_extension` registers, as IPython's shell would."""

    def __init__(self) -> None:
        self.magics: dict[str, Any] = {}

    def register_magic_function(self, fn: Any, magic_kind: str, magic_name: str) -> None:
        assert magic_kind == "cell"
        self.magics[magic_name] = fn


def test_cell_magic_groups_and_keeps_state(capsys: pytest.CaptureFixture[str]) -> None:
    shell = FakeShell()
    simt.load_ipython_extension(shell)
    cell = shell.magics["simt"]
    cell("--threads 6 --backend sim", "x = tid * 2\nx % 3")
    assert capsys.readouterr().out == ("----- 2x -----\n0\n----- 2x -----\n2\n----- 2x -----\n1\n")
    cell("", "%bind buf 6 int64\nbuf[tid] = x + 1\nprint(buf[5])")
    out = capsys.readouterr().out
    assert out.endswith("11\n") and "buf: 6 int64" in out
    cell("", "y = x +")
    assert "SyntaxError" in capsys.readouterr().out
