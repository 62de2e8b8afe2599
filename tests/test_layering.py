"""The package's layering, as docs/architecture.md states it: each part of `simt` imports only
what the "reads" column of the table there names (checked over every module's `ast`).

A part is a subpackage (`simt.frontend`) or a top-level module (`simt.kernel`); `simt` itself
(the package root, `import simt` or `from simt import x`) is the user API. Every import
counts: inside functions (a cycle hidden behind a function-level import is still a cycle) and
inside `if TYPE_CHECKING:` (a part that names a higher one in its annotations depends on it;
it declares a `Protocol` of what it needs instead, as `array.Memory`). `__version__` may be read
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
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            in_function.update(id(n) for n in ast.walk(node) if n is not node)
    package = list(path.relative_to(ROOT).parts[:-1])
    out: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
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


def test_the_table_has_no_circle() -> None:
    """The "reads" column orders the parts: no part reads one that reads it back, however
    indirectly (so no import circle between parts can pass the test above)."""
    assert _sccs({part: reads - {part} for part, reads in _table().items()}) == []


def test_no_renderer_runs_a_pass() -> None:
    """Backends turn IR into text: they import no pass (the CPU lowering is the runtime's)."""
    assert "passes" not in _table()["backends"]


# ------------------------------------------------------------------------- import circles
def _module(path: Path) -> str:
    rel = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


_MODULES = {_module(p): p for p in ROOT.rglob("*.py")}


def _resolve(name: str) -> str | None:
    """The module of `simt` that `name` (a module or a name in one) is."""
    while name and name not in _MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _module_imports(path: Path) -> set[str]:
    """Every module of `simt` the file imports, anywhere in it (at module level, in functions,
    under `if TYPE_CHECKING:`: a circle through annotations is still a circle), but not the
    package root (`import simt` gathers the user API from everything)."""
    me = _module(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            names = [
                f"{mod}.{a.name}" if f"{mod}.{a.name}" in _MODULES else mod for a in node.names
            ]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for n in names:
            target = _resolve(n) if n.startswith("simt") else None
            if target and target not in (me, "simt"):
                out.add(target)
    return out


def _circles() -> list[list[str]]:
    """The import circles of simt's modules."""
    return _sccs({m: _module_imports(p) for m, p in _MODULES.items()})


def _sccs(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, set())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                found.append(sorted(scc))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle() -> None:
    """No module of simt imports, however indirectly, one that imports it back: inside a part
    or between parts, at module level, inside functions or for annotations."""
    assert _circles() == []


# --------------------------------------------------------------------- private names
def _defined(tree: ast.Module) -> set[str]:
    """The private names (`_x`, not dunders) a module defines: functions, classes, attributes
    and variables it assigns."""
    out: set[str] = set()
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for t in targets:
            for x in ast.walk(t):
                if isinstance(x, ast.Name):
                    out.add(x.id)
                elif isinstance(x, ast.Attribute):
                    out.add(x.attr)
    return {n for n in out if n.startswith("_") and not n.startswith("__")}


def _private_uses(path: Path, owners: dict[str, set[str]]) -> list[str]:
    """Uses in `path` of another part's private names (see `_private_uses_in`)."""
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    return _private_uses_in(ast.parse(path.read_text()), _part(path), package, owners)


def _private_uses_in(
    tree: ast.Module, me: str, package: str, owners: dict[str, set[str]]
) -> list[str]:
    """Uses in a module of part `me` of another part's private names: `from simt.x import _y`
    of another part, a comparison of a `__name__` with `"_y"` (a private class by its name),
    and `obj._y` (or `getattr(obj, "_y")`, `hasattr`, `setattr`) where `_y`
    is a private name another part defines (`owners`: name -> parts) and `obj` is not `self`,
    `cls`, `super()` or a class or function of the module."""
    local = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    bad: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if not mod.startswith("simt.") or mod.split(".")[1] == me:
                continue
            bad += [
                f"line {node.lineno}: from {mod} import {a.name}"
                for a in node.names
                if a.name.startswith("_") and not a.name.startswith("__")
            ]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and node.args[1].value.startswith("_")
            and not node.args[1].value.startswith("__")
        ):
            others = owners.get(node.args[1].value, set()) - {me}
            if others:
                bad.append(
                    f"line {node.lineno}: {ast.unparse(node)} (a private name of "
                    f"{', '.join(sorted(others))})"
                )
        elif isinstance(node, ast.Compare) and any(
            isinstance(x, ast.Attribute) and x.attr in ("__name__", "__qualname__")
            for x in ast.walk(node)
        ):
            # `type(v).__name__ == "_Undef"`: another part's private class, by its name
            for c in ast.walk(node):
                if (
                    isinstance(c, ast.Constant)
                    and isinstance(c.value, str)
                    and c.value.startswith("_")
                    and not c.value.startswith("__")
                    and owners.get(c.value, set()) - {me}
                ):
                    bad.append(
                        f"line {node.lineno}: {ast.unparse(node)} (a private name of "
                        f"{', '.join(sorted(owners[c.value] - {me}))}, by its name)"
                    )
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            if node.attr.startswith("__"):
                continue
            base = node.value
            if isinstance(base, ast.Name) and (base.id in ("self", "cls") or base.id in local):
                continue
            if isinstance(base, ast.Call) and ast.unparse(base.func) == "super":
                continue
            others = owners.get(node.attr, set()) - {me}
            if others:
                bad.append(
                    f"line {node.lineno}: {ast.unparse(node)} (a private name of "
                    f"{', '.join(sorted(others))})"
                )
    return bad


def test_no_private_name_crosses_a_part() -> None:
    """A part uses another part only through its public names (add a public entry instead):
    no `_name` of one part is imported or read by another."""
    owners: dict[str, set[str]] = {}
    for p in ROOT.rglob("*.py"):
        for n in _defined(ast.parse(p.read_text())):
            owners.setdefault(n, set()).add(_part(p))
    bad = {
        str(p.relative_to(ROOT)): uses
        for p in sorted(ROOT.rglob("*.py"))
        if (uses := _private_uses(p, owners))
    }
    assert bad == {}


# ------------------------------------------------------------------------- backend names
def _name_tests(tree: ast.Module, names: set[str]) -> list[str]:
    """The tests in `tree` of one of `names`: comparisons (`==`, `!=`, `in`, ...) involving
    one, `case` patterns matching one, dicts keyed by one (a switch written as a table), and
    lists, tuples and sets of two or more (an enumeration of the backends, which is
    `registry.RUNTIMES`' alone: adding a backend is one line there)."""

    def named(node: ast.AST | None) -> bool:
        return isinstance(node, ast.Constant) and node.value in names

    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(named(c) for c in ast.walk(node)):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.match_case) and any(named(c) for c in ast.walk(node.pattern)):
            found.append(f"{node.pattern.lineno}: case {ast.unparse(node.pattern)}")
        elif isinstance(node, ast.Dict) and any(named(k) for k in node.keys):
            found.append(f"{node.lineno}: {ast.unparse(node)[:80]}")
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)) and (
            sum(named(e) for e in node.elts) > 1
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_no_backend_name_is_tested_outside_runtime_and_backends() -> None:
    """Behaviour is decided by the capabilities a runtime declares (`runtime/base.py`), never
    by comparing a backend's name: no `==`, `!=`, `in` or `not in` with a backend's name, no
    `case` of one, no dict keyed by one and no list of them outside `simt.runtime` and
    `simt.backends`."""
    from simt.runtime.registry import RUNTIMES

    bad = {
        str(p.relative_to(ROOT)): found
        for p in sorted(ROOT.rglob("*.py"))
        if _part(p) not in ("runtime", "backends")
        and (found := _name_tests(ast.parse(p.read_text()), set(RUNTIMES)))
    }
    assert bad == {}


def test_the_checks_catch_what_they_forbid() -> None:
    """Each check above fails on an example of what it forbids, and passes its allowed twin."""
    assert _sccs({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _sccs({"a": {"b"}, "b": set()}) == []
    owners = {"_bind": {"kernel"}, "_ir": {"kernel"}}

    def uses(text: str) -> list[str]:
        return _private_uses_in(ast.parse(text), "dask", "simt.dask", owners)

    assert uses("def f(k):\n    return k._bind(1)\n")
    assert uses("from simt.kernel import _ir\n")
    assert uses("from ..kernel import _ir\n")
    assert not uses("def f(self):\n    return self._bind(1)\n")
    assert not uses("from .chunk import _ir\n")  # its own part's
    assert uses("def f(k):\n    return getattr(k, '_ir')\n")
    assert not uses("def f(k):\n    return getattr(k, 'ir')\n")
    assert uses("def f(v):\n    return type(v).__name__ == '_ir'\n")  # by the class's name
    assert not uses("def f(v):\n    return type(v).__name__ == 'Complex'\n")
    tree = ast.parse("def f(rt):\n    return rt.name == 'cpu' or 'sim' in names\n")
    assert len(_name_tests(tree, {"cpu", "sim"})) == 2
    assert not _name_tests(ast.parse("x = registry.get('sim')\n"), {"sim"})
    tree = ast.parse("match rt.name:\n    case 'cpu':\n        pass\n")
    assert len(_name_tests(tree, {"cpu", "sim"})) == 1
    assert len(_name_tests(ast.parse("w = {'cuda': 32, 'cpu': 8}[name]\n"), {"cpu"})) == 1
    assert not _name_tests(ast.parse("w = {'x': 32}\n"), {"cpu"})
    assert len(_name_tests(ast.parse("p.add(choices=['ir', 'sim', 'cpu'])\n"), {"cpu", "sim"}))
    assert not _name_tests(ast.parse("p.add(choices=['ir', *RUNTIMES], default='sim')\n"),
                           {"cpu", "sim"})  # fmt: skip
    assert _sccs({"a": {"b"}, "b": {"a"}}) == [["a", "b"]]  # two parts reading each other
