"""Test-wide settings: an isolated compile cache, and `sim` as the default backend."""

import os
import tempfile

os.environ.setdefault("SIMT_CACHE_DIR", tempfile.mkdtemp(prefix="simt-test-cache-"))
os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp(prefix="simt-xdg-"))
