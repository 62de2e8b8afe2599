"""Executable documentation (issue 26 item 3): every complete ```python block of README.md and
docs/*.md runs, as written, in the test suite.

A page's blocks run in order as one script (later blocks may use what earlier ones defined),
in a fresh Python in an empty folder, each block at the line it has in the page: an error
names the page's own line. A block that is deliberately partial (a fragment, `...` standing
for code, names the prose defines) is marked by the line `<!-- partial -->` just before its
opening fence, and is left out (docs/testing.md, "Executable documentation").
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from spawn_env import pythonpath

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PARTIAL = "<!-- partial -->"
FENCE = re.compile(r"^(\s*)```(\w*)\s*$")


def blocks(text: str) -> list[tuple[int, str, bool]]:
    """The page's ```python blocks: (line of the block's first code line, 1-based; the code,
    dedented to the fence; whether it is marked partial)."""
    out: list[tuple[int, str, bool]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, lang = m.group(1), m.group(2)
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            j += 1
        if lang == "python":
            before = next((ln.strip() for ln in reversed(lines[:i]) if ln.strip()), "")
            code = [ln[len(indent):] if ln.startswith(indent) else ln for ln in lines[i + 1 : j]]
            out.append((i + 2, "\n".join(code), before == PARTIAL))
        i = j + 1
    return out


def script(text: str) -> str:
    """The page's complete blocks as one script, each block's lines at their page lines."""
    lines: list[str] = []
    for first, code, partial in blocks(text):
        if partial:
            continue
        lines += [""] * (first - 1 - len(lines))
        lines += code.splitlines()
    return "\n".join(lines) + "\n"


def test_the_extractor() -> None:
    page = "intro\n\n```python\nx = 1\n```\n\n<!-- partial -->\n```python\ny = ...\n```\n" \
        "- item:\n\n  ```python\n  z = x + 1\n  ```\n```bash\nls\n```\n"
    got = blocks(page)
    assert got == [(4, "x = 1", False), (9, "y = ...", True), (14, "z = x + 1", False)]
    assert script(page).splitlines()[3] == "x = 1" and script(page).splitlines()[13] == "z = x + 1"
    assert "y = ..." not in script(page)


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_complete_block_runs(page: Path, tmp_path: Path) -> None:
    code = script(page.read_text())
    if not code.strip():
        pytest.skip(f"{page.name} has no complete python block")
    path = tmp_path / f"{page.stem}_md.py"  # the name tracebacks show, with the page's lines
    path.write_text(code)
    env = dict(os.environ, PYTHONPATH=pythonpath(), MPLBACKEND="Agg")
    env.setdefault("SIMT_BACKEND", "cpu")
    # run as a module of its own, not as __main__: a page's LocalCluster starts worker
    # processes, which (spawned) would run a __main__ script again, as in a notebook they don't
    run = f"import runpy; runpy.run_path({str(path)!r}, run_name='{page.stem}_md')"
    p = subprocess.run(
        [sys.executable, "-c", run], cwd=tmp_path, capture_output=True, text=True, env=env,
        timeout=600,
    )  # fmt: skip
    assert p.returncode == 0, (
        f"a block of {page.relative_to(ROOT)} fails (line numbers are the page's):\n{p.stderr}"
    )
