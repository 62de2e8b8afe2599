"""Every shrunk failure the fuzzer found (tests/corpus/fuzz/) stays fixed on every backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from simt.runtime import registry
from simt.testing import campaign
from simt.testing.differential import check
from simt.testing.generator import from_source

FOLDER = Path(__file__).resolve().parents[1] / "corpus" / "fuzz"
FILES = sorted(FOLDER.glob("fuzz_*.py"))


@pytest.fixture(autouse=True)
def _keep_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_current", registry._current)


def test_the_regression_folder_is_not_empty() -> None:
    assert FILES, f"no regression cases in {FOLDER}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_regression(path: Path) -> None:
    program = from_source(path.read_text())
    found = check(program, campaign.backends_present(), campaign.nvrtc_present())
    assert not found, "\n".join(map(str, found))
