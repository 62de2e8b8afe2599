"""examples/numba_port.py: the classic Numba program runs unchanged on every backend present,
and (where numba is installed) gives what Numba's own simulator gives for the same program
with the import line put back to `from numba import cuda`."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import simt
from simt.runtime import registry

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "numba_port.py"


def _load():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("numba_port", EXAMPLE)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("backend", ["sim", "cpu", "webgpu"])
def test_numba_port_runs_on_every_backend(backend: str) -> None:
    ok, why = registry.probe(backend)
    if not ok:
        pytest.skip(f"backend {backend!r} not present: {why}")
    mod = _load()
    simt.use(backend)
    r = mod.program()
    assert mod.check(r) == []


NUMBA_SIDE = r"""
import re, sys, numpy as np
src = open(sys.argv[1]).read()
src, n = re.subn(r"^from simt import cuda\b", "from numba import cuda", src, flags=re.M)
assert n == 1  # the one line a port changes (and the random module's, beside it)
src = re.sub(r"^from simt.cuda.random", "from numba.cuda.random", src, flags=re.M)
ns = {"__name__": "numba_port_on_numba"}
exec(compile(src, "numba_port_on_numba.py", "exec"), ns)
r = ns["program"]()
np.savez(sys.argv[2], pi=r["pi"], C=r["C"], inc=r["incremented"])
"""


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")
def test_numba_port_gives_numbas_answers(tmp_path: Path) -> None:
    out = tmp_path / "numba.npz"
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONWARNINGS="ignore")
    r = subprocess.run([sys.executable, "-c", NUMBA_SIDE, str(EXAMPLE), str(out)], env=env,
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    theirs = np.load(out)
    mod = _load()
    simt.use("cpu")
    mine = mod.program()
    np.testing.assert_array_equal(mine["pi"], theirs["pi"])  # the same random stream
    np.testing.assert_array_equal(mine["incremented"], theirs["inc"])
    np.testing.assert_allclose(mine["C"], theirs["C"], rtol=1e-5, atol=1e-6)
