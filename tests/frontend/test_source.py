"""`frontend.source`: reading and parsing a kernel's source, and the bounded cache of it."""

from __future__ import annotations

import linecache
from typing import Any

from simt.frontend import source


def _function(n: int) -> Any:
    """A function of a pseudo-file of its own (registered with linecache, as notebook cells
    are), so that its code object is like no other's."""
    text = f"def f{n}(a):\n    return a + {n}\n"
    filename = f"<test_source {n}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    ns: dict[str, Any] = {}
    exec(compile(text, filename, "exec"), ns)  # noqa: S102 - the test's own text
    return ns[f"f{n}"]


def test_a_source_is_parsed_once_and_found_again() -> None:
    f = _function(0)
    got = source.get_source(f)
    assert got.tree.name == "f0" and got.filename == "<test_source 0>"
    assert source.get_source(f) is got


def test_the_cache_keeps_the_functions_used_last_and_no_more() -> None:
    """A process that makes thousands of kernels (the fuzzer, a test run, a long REPL
    session) kept every function's syntax tree and code object (mem11): now the last
    `SOURCE_CACHE_SIZE`, the one used last kept longest."""
    size = source.SOURCE_CACHE_SIZE
    fns = [_function(n) for n in range(1, size + 40)]
    first = source.get_source(fns[0])
    for f in fns[1:]:
        source.get_source(f)
        assert source.get_source(fns[0]) is first  # used again each time: kept
    assert len(source._cache) == size
    assert (fns[1].__code__, fns[1].__code__.co_filename) not in source._cache
    again = source.get_source(fns[1])  # parsed again, the same
    assert again.tree.name == "f2" and again.first_line == 1
