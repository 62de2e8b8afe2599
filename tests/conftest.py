"""Test-wide settings: an isolated compile cache, and every test's backend choice undone."""

import os
import tempfile
from collections.abc import Iterator

os.environ.setdefault("SIMT_CACHE_DIR", tempfile.mkdtemp(prefix="simt-test-cache-"))
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="simt-xdg-"))

import pytest  # noqa: E402 - after the environment it reads

import simt  # noqa: E402


@pytest.fixture(autouse=True)
def restore_backend() -> Iterator[None]:
    """A test may `simt.use` any backend: the one chosen before it is chosen again after it
    (`simt.using`, the public way), so no test sees another's choice."""
    with simt.using(simt.backend()):
        yield
