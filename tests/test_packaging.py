"""The package ships its types (PEP 561, issue 26 item 5): `py.typed` is in the package and
in the package data the build includes."""

from __future__ import annotations

import sys
from pathlib import Path

import simt

ROOT = Path(__file__).resolve().parents[1]


def test_py_typed_is_shipped() -> None:
    assert (Path(simt.__file__).parent / "py.typed").is_file()
    if sys.version_info >= (3, 11):
        import tomllib

        data = tomllib.loads((ROOT / "pyproject.toml").read_text())
        assert "py.typed" in data["tool"]["setuptools"]["package-data"]["simt"]
