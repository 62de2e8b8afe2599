"""The `%` commands (issue 26): `%bind` shapes and dtypes, `%threads` limits, `%help`."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from simt.repl import commands
from simt.repl.session import Session

from .sessions import new_session


def test_bind_takes_shapes_in_words_or_commas_and_every_kernel_dtype() -> None:
    """`%bind q 256 256` made a 1-D buffer of 256256 elements; `%bind img 4 uint8` leaked a
    SyntaxWarning and complained about the shape."""
    s, buf = new_session("cpu", 8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for cmd in ("%bind q 256 256", "%bind r 2,3,4", "%bind t (5, 6) float32",
                    "%bind img 4 uint8", "%bind i8 4 int8", "%bind h 2,3 float16",
                    "%bind z 4 complex64"):
            assert commands.run(s, cmd), buf.getvalue()
    assert s.bound["q"].shape == (256, 256) and s.bound["r"].shape == (2, 3, 4)
    assert s.bound["t"].shape == (5, 6) and s.bound["t"].dtype == np.float32
    assert [s.bound[n].dtype.name for n in ("img", "i8", "h", "z")] == [
        "uint8", "int8", "float16", "complex64"]
    for line in ("q[1, 2] = 5.0", "img[tid % 4] = 200", "i8[tid % 4] = -3", "h[0, 1] = 1.5",
                 "z[tid % 4] = complex(1, tid % 4)"):
        assert s.run(line), buf.getvalue()
    assert s.bound["q"][1, 2] == 5.0 and s.bound["img"].tolist() == [200] * 4
    assert s.bound["i8"].tolist() == [-3] * 4 and s.bound["h"][0, 1] == 1.5
    assert s.bound["z"].tolist() == [1 + 0j, 1 + 1j, 1 + 2j, 1 + 3j]
    assert not commands.run(s, "%bind bad 4 uint7")
    assert "the dtype must be one of bool, complex128" in buf.getvalue()
    assert not commands.run(s, "%bind bad 4x")
    assert "the shape must be positive whole numbers like 512,512,3" in buf.getvalue()


def test_threads_refuses_what_cannot_run() -> None:
    """`%threads 100000000` was accepted and then every input failed with advice for
    kernels, not the REPL."""
    s, buf = new_session("sim", 8)
    assert not commands.run(s, f"%threads {2**26 + 1}")
    assert f"{2**26 + 1} threads are more than one launch runs on sim" in buf.getvalue()
    assert s.threads == 8 and s.run("x = tid")


def test_memory_error_is_not_called_a_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    s, buf = new_session("sim", 8)

    def no_memory(*args: object) -> bool:
        raise MemoryError

    monkeypatch.setattr(Session, "_run", no_memory)
    assert not s.run("x = tid")
    out = buf.getvalue()
    assert "out of memory" in out and "bug" not in out and "%threads N" in out


def test_help_keeps_its_example_on_one_line() -> None:
    assert 'f.write(f"{tid} {x}\\n") writes' in commands.HELP
