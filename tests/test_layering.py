"""The package's layering, as docs/architecture.md states it: each part of `simt` imports only
what the "reads" column of the table there names (checked over every module's `ast`).

A part is a subpackage (`simt.frontend`) or a top-level module (`simt.kernel`); `simt` itself
(the package root, `import simt` or `from simt import x`) is the user API. Imports inside
`if TYPE_CHECKING:` are annotations only and are not counted; imports inside functions are
(a cycle hidden behind a function-level import is still a cycle). `__version__` may be read
anywhere. No part imports a higher one: optional extras are reached by name through
`simt.extras`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import simt

ROOT = Path(simt.__file__).resolve().parent
DOC = ROOT.parents[1] / "docs" / "architecture.md"



def _table() -> dict[str, set[str]]:
    """part -> the parts it may import, from the doc's table (`| `simt.x`, `simt.y` | holds |
    reads |`); "user API" in the reads column is the package root `simt`."""
    parts: dict[str, set[str]] = {}
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`simt"):
            continue
        names = re.findall(r"`simt(?:\.(\w+))?`", cells[0])
        reads = {w for w in re.findall(r"[\w ]+", cells[2]) for w in [w.strip()] if w}
        reads = {"simt" if r == "user API" else r for r in reads} - {"—", "all above"}
        for n in names:
            parts[n or "simt"] = reads
    return parts


def _part(path: Path) -> str:
    rel = path.relative_to(ROOT)
    name = rel.parts[0].removesuffix(".py")
    return "simt" if name in ("__init__", "__main__") else name


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(imported part, at module level) of each import of `simt` in the file."""
    tree = ast.parse(path.read_text())
    skip: set[int] = set()
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_function.update(id(n) for n in ast.walk(node) if n is not node)
    package = list(path.relative_to(ROOT).parts[:-1])
    out: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        targets: list[list[str]] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                if node.module:
                    targets = [base + node.module.split(".")]
                else:
                    targets = [base + [a.name] for a in node.names]
            elif node.module == "simt":
                targets = [[a.name] for a in node.names]
            elif node.module and node.module.startswith("simt."):
                targets = [node.module.split(".")[1:]]
        elif isinstance(node, ast.Import):
            targets = [a.name.split(".")[1:] for a in node.names if a.name.split(".")[0] == "simt"]
        for t in targets:
            name = t[0] if t else "simt"
            if name == "__version__":
                continue
            if (ROOT / name).is_dir() or (ROOT / f"{name}.py").is_file():
                out.append((name, id(node) not in in_function))
            else:  # a name of the package root (`from simt import thread_idx`)
                out.append(("simt", id(node) not in in_function))
    return out


def test_the_table_names_every_part() -> None:
    table = _table()
    parts = {_part(p) for p in ROOT.rglob("*.py")}
    assert parts - table.keys() == set(), "parts missing from docs/architecture.md's table"
    assert table.keys() - parts == set(), "the table names parts that do not exist"


@pytest.mark.parametrize("path", sorted(ROOT.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_follow_the_table(path: Path) -> None:
    table = _table()
    me = _part(path)
    if me == "simt":
        return  # the package root gathers the user API from everywhere
    allowed = table[me] | {me}
    bad = []
    for name, _top_level in _imports(path):
        if name in allowed:
            continue
        bad.append(name)
    assert not bad, (
        f"simt/{path.relative_to(ROOT)} ({me}) imports {sorted(set(bad))}, which the "
        f"'reads' column of docs/architecture.md does not allow for {me}: {sorted(table[me])}"
    )


def test_no_renderer_runs_a_pass() -> None:
    """Backends turn IR into text: they import no pass (the CPU lowering is the runtime's)."""
    assert "passes" not in _table()["backends"]
